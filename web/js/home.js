// The start page: create a session from an example scenario (GET /v1/scenarios) or from pasted
// JSON, then hand out the links (one for the referee, one per side: whoever holds a link acts
// as that role); or open a session by id, with a token or, for a public session, without.
// A scenario is created with server dice unless the creator picks seeded or manual dice (the
// scenario files carry a public seed, which would let anyone compute every die in advance);
// seeded and manual dice show what they give away, pasted JSON too.

import { h, fill } from './dom.js';
import { api } from './api.js';
import { linkFor, fragmentFor } from './fragment.js';
import { renderError } from './results.js';
import { warningFor, diceText, randomSeed } from './dice.js';

let scenarioCache = null;

/** The example scenarios: [{id, ruleset, title}] (cached). */
export async function scenarios() {
  if (!scenarioCache) scenarioCache = api('GET', '/v1/scenarios').then((r) => r.scenarios || []).catch((e) => {
    scenarioCache = null;
    throw e;
  });
  return scenarioCache;
}

function linkRow(label, href, note) {
  const copy = h('button', { type: 'button', class: 'copy-button' }, 'Copy');
  const a = h('a', { href, class: 'session-link' }, href);
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(href);
      copy.textContent = 'Copied';
    } catch {
      // No clipboard (permissions): select the link's text for a manual copy.
      const r = document.createRange();
      r.selectNodeContents(a);
      getSelection().removeAllRanges();
      getSelection().addRange(r);
      copy.textContent = 'Selected: press Ctrl+C';
    }
  });
  copy.setAttribute('aria-label', `Copy the ${label} link`);
  return h('li', { class: 'link-row' }, h('span', { class: 'link-label' }, label), note ? h('span', { class: 'hint' }, note) : null, a, copy);
}

/** The links panel after a 201 from POST /v1/sessions. */
function showLinks(out, created, body) {
  const id = created.session.id;
  const manualByReferee = body.dice && body.dice.mode === 'manual' && body.dice.manual_by === 'referee';
  const rows = [linkRow('Referee', linkFor({ session: id, token: created.tokens.referee, as: 'referee' }), manualByReferee ? 'acts for every side, types the dice' : 'acts for every side')];
  // In the session's order of sides (the tokens object may come sorted).
  const sides = Array.isArray(body.sides) ? body.sides : Object.keys(created.tokens.sides || {});
  for (const side of sides) {
    const tok = (created.tokens.sides || {})[side];
    if (tok) rows.push(linkRow(`Side ${side}`, linkFor({ session: id, token: tok, as: side }), `acts with ${side}'s units`));
  }
  if (body.visibility === 'public') rows.push(linkRow('Viewers', linkFor({ session: id }), 'public session: watch without a token'));
  fill(out, h('section', { class: 'created', 'aria-labelledby': 'created-h' },
    h('h3', { id: 'created-h', tabindex: '-1' }, `Session created: ${body.title || id}`),
    h('p', null, 'Send each player the link of their role, and keep the referee link. ',
      h('strong', null, 'The tokens in these links are shown only now'), ': anyone holding a link acts as that role, so share each one privately.'),
    h('ul', { class: 'links' }, rows),
    h('p', { class: 'facts created-dice' }, `Dice: ${diceText({ mode: (created.dice && created.dice.mode) || (body.dice && body.dice.mode), manual_by: body.dice && body.dice.manual_by })}.`),
    h('p', { class: 'facts' }, 'Session id ', h('code', null, id), created.dice && created.dice.commitment ? [' · dice commitment ', h('code', { class: 'hash' }, created.dice.commitment)] : null)));
  out.querySelector('#created-h').focus();
}

async function create(body, out, button) {
  button.disabled = true;
  fill(out, h('p', { class: 'pending' }, 'Creating the session…'));
  try {
    const created = await api('POST', '/v1/sessions', { body });
    showLinks(out, created, body);
  } catch (err) {
    fill(out, renderError(err));
  } finally {
    button.disabled = false;
  }
}

/** A "Warning: ..." line for dice that give something away, or null. */
function warningLine(dice) {
  const w = warningFor(dice);
  return w ? h('p', { class: 'warning' }, h('strong', null, 'Warning:'), ' ', w) : null;
}

/**
 * The dice of a session created from a scenario, by the creator's choice: server dice unless
 * seeded (the scenario's own seed, or a random one when it has none) or manual was picked.
 */
export function chosenDice(mode, scenarioDice, referee) {
  if (mode === 'seeded') {
    const seed = scenarioDice && scenarioDice.mode === 'seeded' && typeof scenarioDice.seed === 'string' ? scenarioDice.seed : randomSeed();
    return { mode: 'seeded', seed };
  }
  if (mode === 'manual') return referee ? { mode: 'manual', manual_by: 'referee' } : { mode: 'manual' };
  return { mode: 'server' };
}

/** The dice choice of the scenario form: {dice(scenarioDice)}, the body's dice. */
function diceChoice() {
  const radios = [...document.querySelectorAll('input[name="dice-mode"]')];
  const referee = document.getElementById('dice-manual-referee');
  const refereeField = document.getElementById('dice-referee-field');
  const mode = () => (radios.find((r) => r.checked) || {}).value || 'server';
  const show = () => {
    const m = mode();
    for (const which of ['seeded', 'manual']) {
      const p = document.getElementById(`dice-${which}-warning`);
      p.hidden = m !== which;
      p.querySelector('span').textContent = warningFor(which === 'manual' ? { mode: 'manual', manual_by: referee.checked ? 'referee' : undefined } : { mode: which });
    }
    refereeField.hidden = m !== 'manual';
  };
  for (const r of radios) r.addEventListener('change', show);
  referee.addEventListener('change', show);
  show();
  return { dice: (scenarioDice) => chosenDice(mode(), scenarioDice, referee.checked) };
}

/** Wires the start page's three forms (markup in index.html). */
export function initHome() {
  const out = document.getElementById('create-result');
  const scenarioForm = document.getElementById('scenario-form');
  const select = document.getElementById('scenario-select');
  const how = document.getElementById('scenario-how');
  const scenarioBtn = scenarioForm.querySelector('button[type=submit]');
  const choice = diceChoice();

  scenarios().then((list) => {
    const groups = new Map();
    for (const sc of list) {
      if (!groups.has(sc.ruleset)) groups.set(sc.ruleset, []);
      groups.get(sc.ruleset).push(sc);
    }
    fill(select, [...groups].map(([rs, scs]) => h('optgroup', { label: rs }, scs.map((sc) => h('option', { value: sc.id }, `${sc.title} (${sc.id})`)))));
    scenarioBtn.disabled = list.length === 0;
    select.dispatchEvent(new Event('change'));
  }).catch((err) => {
    fill(how, renderError(err));
  });

  select.addEventListener('change', async () => {
    if (!select.value) return;
    try {
      const sc = await api('GET', `/v1/scenarios/${encodeURIComponent(select.value)}`);
      const s = sc.session || {};
      how.textContent = `${s.ruleset}: sides ${(s.sides || []).join(', ')}; ${s.visibility || 'private'}. The file suggests ${diceText(s.dice)}; the session gets the dice chosen below.`;
    } catch (err) {
      fill(how, renderError(err));
    }
  });

  scenarioForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try {
      const sc = await api('GET', `/v1/scenarios/${encodeURIComponent(select.value)}`);
      await create({ ...sc.session, dice: choice.dice(sc.session && sc.session.dice) }, out, scenarioBtn);
    } catch (err) {
      fill(out, renderError(err));
    }
  });

  const jsonForm = document.getElementById('json-form');
  const jsonText = document.getElementById('session-json');
  const jsonWarning = document.getElementById('json-dice-warning');
  // The pasted body as the page will send it (a scenario file's session), or null.
  const pasted = () => {
    let body;
    try {
      body = JSON.parse(jsonText.value);
    } catch {
      return null;
    }
    if (body && typeof body === 'object' && body.session && typeof body.session === 'object' && !body.ruleset) body = body.session;
    return body && typeof body === 'object' ? body : null;
  };
  let warnTimer = null;
  const warnPasted = () => {
    const body = pasted();
    fill(jsonWarning, body ? warningLine(body.dice) : null);
  };
  jsonText.addEventListener('input', () => {
    clearTimeout(warnTimer);
    warnTimer = setTimeout(warnPasted, 250);
  });
  jsonForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const text = jsonText.value;
    clearTimeout(warnTimer);
    warnPasted();
    let body;
    try {
      body = JSON.parse(text);
    } catch (err) {
      fill(out, renderError(new Error(`The session JSON does not parse: ${err.message}`)));
      return;
    }
    // A whole scenario file ({"how", "session", "actions"}) or just the body of POST /v1/sessions.
    if (body && typeof body === 'object' && body.session && typeof body.session === 'object' && !body.ruleset) body = body.session;
    await create(body, out, jsonForm.querySelector('button[type=submit]'));
  });

  document.getElementById('open-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const id = document.getElementById('open-id').value.trim();
    const token = document.getElementById('open-token').value.trim();
    const as = document.getElementById('open-as').value.trim();
    if (!id) return;
    location.hash = fragmentFor({ session: id, token, as: token ? as : '' });
  });
}
