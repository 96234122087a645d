// Session links. The token rides in the URL fragment (#session=ID&token=TOKEN&as=ROLE): a
// fragment is never sent to the server, so it stays out of access logs, proxies and Referer
// headers. Never put a token in a query string.

/** {session, token, as} from location.hash (missing values are ''). */
export function readFragment(hash = location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  return { session: p.get('session') || '', token: p.get('token') || '', as: p.get('as') || '' };
}

/** '#session=..&token=..&as=..' ; token and as are left out when empty. */
export function fragmentFor({ session, token, as }) {
  const p = new URLSearchParams();
  p.set('session', session);
  if (token) p.set('token', token);
  if (as) p.set('as', as);
  return '#' + p.toString();
}

/** An absolute link to the page with that fragment. */
export function linkFor(parts) {
  return new URL('/' + fragmentFor(parts), location.origin).href;
}
