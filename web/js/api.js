// The daemon's HTTP API (docs/api.md): one fetch wrapper that turns the error envelope
// {"error": {"code", "message", "details"}} into an ApiError the panels can show as is.

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || {};
  }
}

function headersFor(token, extra) {
  const headers = { Accept: 'application/json', ...(extra || {}) };
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

async function errorOf(res) {
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON: fall through to a generic message */
  }
  const e = body && body.error;
  if (e && typeof e.message === 'string') return new ApiError(res.status, e.code, e.message, e.details);
  return new ApiError(res.status, 'http_error', `The server answered ${res.status} ${res.statusText}.`, {});
}

/**
 * api('GET', '/v1/sessions/ID', {token}) -> parsed JSON; throws ApiError.
 * body (an object) is sent as JSON; headers are added to the request.
 */
export async function api(method, path, { token, body, headers, signal } = {}) {
  const init = { method, headers: headersFor(token, headers), signal, cache: 'no-store' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'The server could not be reached; check the connection and try again.', {});
  }
  if (!res.ok) throw await errorOf(res);
  return res.json();
}

/** A random Idempotency-Key, so that a resolve retried after a network failure applies once. */
export function idempotencyKey() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return 'web-' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/**
 * Fetches a file with the token (a plain link cannot send Authorization) and hands it to the
 * browser as a download. Returns the Blob.
 */
export async function download(path, token, filename) {
  let res;
  try {
    res = await fetch(path, { headers: headersFor(token), cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'network_error', 'The server could not be reached; check the connection and try again.', {});
  }
  if (!res.ok) throw await errorOf(res);
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke later: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return blob;
}
