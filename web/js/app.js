// The page's wiring: the URL fragment decides what is shown (no fragment: the start page;
// #session=ID[&token=T&as=ROLE]: that session as that role), and a session view ties the
// panels to the API: the board and unit pickers follow the state, the log and the audit facts
// follow the live event stream.

import { h, fill } from './dom.js';
import { api, ApiError, idempotencyKey } from './api.js';
import { readFragment } from './fragment.js';
import { openEventStream } from './sse.js';
import { initHome, scenarios } from './home.js';
import { renderBoard } from './board.js';
import { actionForms } from './forms.js';
import { eventLog } from './log.js';
import { auditPanel } from './audit.js';
import { renderError } from './results.js';
import { diceText } from './dice.js';
import { drawBanner, drawClaim, applyToForms } from './turn.js';
import { combatBoard } from './combat.js';
import { choiceBoard } from './sealed.js';

const $ = (id) => document.getElementById(id);
const rulesetCache = new Map();

function ruleset(id) {
  if (!rulesetCache.has(id)) {
    rulesetCache.set(id, api('GET', `/v1/rulesets/${encodeURIComponent(id)}`).catch((e) => {
      rulesetCache.delete(id);
      throw e;
    }));
  }
  return rulesetCache.get(id);
}

/** Example actions per type from the example scenarios of a ruleset (best effort). */
async function examplesFor(rs) {
  const out = {};
  try {
    const list = (await scenarios()).filter((sc) => sc.ruleset === rs);
    const files = await Promise.all(list.map((sc) => api('GET', `/v1/scenarios/${encodeURIComponent(sc.id)}`).then((f) => [sc.id, f]).catch(() => null)));
    for (const [id, f] of files.filter(Boolean)) {
      (f.actions || []).forEach((a, i) => {
        const { as, ...body } = a;
        if (!body.type) return;
        (out[body.type] ||= []);
        if (out[body.type].length < 32) out[body.type].push({ label: `${id}, step ${i + 1}${as ? ` (as ${as})` : ''}`, body });
      });
    }
  } catch {
    /* no examples: the forms work without them */
  }
  return out;
}

function roleText(role) {
  if (role === 'viewer') return 'watching (no token)';
  if (role === 'referee') return 'the referee';
  if (role === '') return 'a token holder (role not given in the link)';
  return `side ${role}`;
}

/** Opens one session view; returns {close()}. */
function openSession(frag) {
  const ctl = new AbortController();
  const id = frag.session;
  const token = frag.token;
  const role = token ? frag.as : 'viewer';
  const s = { info: null, state: null, options: {}, lastSeq: 0, version: 0, head: '', dice: {}, zoomed: false, caughtUp: false };
  let forms = null;
  let audit = null;
  let log = null;
  let refreshTimer = null;
  let schema = null; // the ruleset's description, once fetched (its `sequence`, if any)

  const title = $('session-title');
  const meta = $('session-meta');
  const conn = $('conn');
  const errorBox = $('session-error');
  const board = $('board');
  const zoom = $('zoom');
  fill(title, 'Loading the session…');
  fill(meta);
  fill(errorBox);
  fill(board);
  fill($('act'));
  fill($('log'));
  fill($('audit'));
  fill($('turn-banner'));
  $('turn-banner').hidden = true;
  conn.textContent = '';
  zoom.hidden = true;

  let drawn = '';
  function drawBoard() {
    // Only when something drawn changed: a redraw would lose the keyboard focus and scroll.
    const key = JSON.stringify([s.state, s.options, s.info.sides, s.zoomed]);
    if (key === drawn) return;
    drawn = key;
    const focused = document.activeElement && board.contains(document.activeElement) ? document.activeElement.getAttribute('data-unit') : null;
    const r = renderBoard(board, {
      state: s.state, sides: s.info.sides || [], options: s.options, zoomed: s.zoomed,
      onPick: (p) => forms && forms.pick(p),
    });
    zoom.hidden = !r.hasDrawing;
    if (focused) {
      const again = board.querySelector(`svg [data-unit="${CSS.escape(focused)}"]`);
      if (again) again.focus({ preventScroll: true });
    }
  }

  function drawMeta() {
    const i = s.info;
    document.title = `${i.title || i.id} — Umpire`;
    fill(title, i.title || `Session ${i.id}`);
    fill(meta,
      h('span', null, `ruleset ${i.ruleset}`), ' · ',
      h('span', null, `sides ${(i.sides || []).join(', ')}`), ' · ',
      h('span', { class: 'dice-mode' }, diceText(s.dice)), ' · ',
      h('span', null, i.visibility), ' · ',
      h('span', { class: 'you' }, `you are ${roleText(role)}`));
  }

  function auditInfo() {
    return { version: s.version, head: s.head, dice: s.dice };
  }

  // Takes a GET /v1/sessions/{id} answer as the page's view of the session, and redraws.
  function adopt(snapshot) {
    s.info = snapshot.session;
    s.state = snapshot.state;
    s.version = snapshot.session.version;
    s.head = snapshot.session.head;
    s.dice = { ...snapshot.session.dice };
    drawMeta();
    drawBoard();
    drawTurn();
  }

  // The turn banner and the forms legal now, from state.turn and the ruleset's sequence.
  function drawTurn() {
    const turn = s.state && typeof s.state.turn === 'object' && s.state.turn && s.state.turn.phase ? s.state.turn : null;
    const sequence = schema && schema.sequence;
    const claim = s.state && s.state.claim && typeof s.state.claim === 'object' ? s.state.claim : null;
    if (claim) {
      drawClaim($('turn-banner'), {
        claim, role, manual: s.dice && s.dice.mode === 'manual', onAnswer: token ? answerClaim : null,
      });
    } else {
      drawBanner($('turn-banner'), {
        sequence, turn, role,
        onEnd: token && turn ? endPhase : null,
        onClose: token && turn ? closeOrders : null,
      });
    }
    if (forms) applyToForms(forms.forms, { sequence, turn, role, claim });
    drawCombat();
  }

  // magic-realm: the combat board above the forms, in a round's Plays. Drawn again only when
  // what it offers changes (the round, the plays made, a claim), so a choice in progress stays.
  let combatKey = null;
  let sealedPlays = null; // {round, plays: Map unit -> play}: the sealed board's orders
  function drawCombat() {
    const slot = document.getElementById('combat-slot');
    if (!slot || !s.state || !s.info) return;
    const st = s.state;
    if (s.info.ruleset === 'generic') {
      // generic's Sealed choice, when the session seals it.
      const key = JSON.stringify(['choice', st.turn]);
      if (key === combatKey) return;
      combatKey = key;
      fill(slot, token ? choiceBoard({ state: st, role, onSeal: sealOrders }) : null);
      return;
    }
    if (s.info.ruleset !== 'magic-realm') return;
    // Only the viewer's own plays mark its board: another side's play does not redraw it (a
    // choice in progress would be lost to a redraw the player did not cause).
    const sideOf = new Map((st.units || []).map((u) => [u.id, u.side]));
    const mine = (st.plays || []).filter((p) => role === 'referee' || role === '' || sideOf.get(p.unit) === role);
    const key = JSON.stringify([st.turn, mine.map((p) => p.unit), !!st.claim, (st.units || []).map((u) => u.status)]);
    if (key === combatKey) return;
    combatKey = key;
    const round = st.turn && st.turn.number;
    if (!sealedPlays || sealedPlays.round !== round) sealedPlays = { round, plays: new Map() };
    fill(slot, token ? combatBoard({
      state: st, role, onPlay: (body) => forms.resolve(body),
      onSeal: sealOrders, pending: sealedPlays.plays,
    }) : null);
  }

  // Sealed orders (docs/api.md): the side's plays of this round, kept in the page until the
  // reveal; sealed together, and sealed again when changed.
  async function sealOrders(orders) {
    const step = s.state && s.state.turn && s.state.turn.phase;
    try {
      return await api('PUT', `/v1/sessions/${encodeURIComponent(id)}/orders/${encodeURIComponent(step)}`, {
        token, body: { orders },
      });
    } finally {
      scheduleRefresh();
    }
  }

  async function closeOrders() {
    const btn = $('turn-banner').querySelector('.close-orders');
    if (btn) btn.disabled = true;
    const step = s.state && s.state.turn && s.state.turn.phase;
    try {
      await api('POST', `/v1/sessions/${encodeURIComponent(id)}/orders/${encodeURIComponent(step)}/close`, {
        token, body: { expect_version: s.version },
      });
    } catch (err) {
      const box = $('turn-banner').querySelector('.turn-error');
      if (box) fill(box, err && err.message ? err.message : 'The step could not be closed.');
      if (btn) btn.disabled = false;
    } finally {
      scheduleRefresh();
    }
  }

  // Accept, dispute or withdraw the pending claim from the banner's buttons.
  async function answerClaim(type, fields, dice) {
    const banner = $('turn-banner');
    for (const b of banner.querySelectorAll('button')) b.disabled = true;
    const body = { type, ...fields, expect_version: s.version };
    if (dice && dice.length) body.dice = dice;
    try {
      await api('POST', `/v1/sessions/${encodeURIComponent(id)}/actions`, {
        token, body, headers: { 'Idempotency-Key': idempotencyKey() },
      });
    } catch (err) {
      const box = banner.querySelector('.turn-error');
      if (box) fill(box, err && err.message ? err.message : 'The claim could not be answered.');
      for (const b of banner.querySelectorAll('button')) b.disabled = false;
    } finally {
      scheduleRefresh();
    }
  }

  async function endPhase() {
    const btn = $('turn-banner').querySelector('.end-phase');
    if (btn) btn.disabled = true;
    try {
      await api('POST', `/v1/sessions/${encodeURIComponent(id)}/actions`, {
        token, body: { type: 'end_phase', expect_version: s.version }, headers: { 'Idempotency-Key': idempotencyKey() },
      });
    } catch (err) {
      const box = $('turn-banner').querySelector('.turn-error');
      if (box) fill(box, err && err.message ? err.message : 'The phase could not be ended.');
      if (btn) btn.disabled = false;
    } finally {
      scheduleRefresh();
    }
  }

  async function refresh() {
    try {
      const r = await api('GET', `/v1/sessions/${encodeURIComponent(id)}`, { token, signal: ctl.signal });
      if (r.session.version < s.version) return; // an older snapshot than the events we hold
      adopt(r);
      if (forms) forms.refresh();
      drawTurn();
      audit.update(auditInfo());
    } catch (err) {
      if (err.name !== 'AbortError') fill(errorBox, renderError(err));
    }
  }

  function scheduleRefresh() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 120); // one GET for a burst of events
  }

  function onEvent(ev) {
    if (typeof ev.seq !== 'number' || ev.seq <= s.lastSeq) return; // already shown (a reconnect)
    s.lastSeq = ev.seq;
    log.add(ev);
    if (ev.seq === 1 && ev.data && ev.data.options && Object.keys(ev.data.options).length) {
      s.options = ev.data.options;
      drawBoard();
    }
    if (ev.seq > s.version) {
      s.version = ev.seq;
      s.head = ev.hash;
      if (ev.type === 'dice_seed_revealed' && ev.data) {
        // A reveal ends every contribution in force: the fresh seed was drawn after them.
        s.dice = { ...s.dice, commitment: ev.data.next_commitment };
        delete s.dice.entropy;
      }
      if (ev.type === 'entropy_contributed' && ev.data && ev.data.in_force) s.dice = { ...s.dice, entropy: { in_force: ev.data.in_force, digest: ev.data.digest } };
      // The next nonce follows from the dice just rolled (die i of an entry used nonce + i).
      for (const d of (ev.data && Array.isArray(ev.data.dice) ? ev.data.dice : [])) {
        if (typeof d.nonce === 'number' && Array.isArray(d.values)) s.dice.next_nonce = Math.max(s.dice.next_nonce || 0, d.nonce + d.values.length);
      }
      audit.update(auditInfo());
      scheduleRefresh();
    }
    if (!s.caughtUp && ev.seq >= s.info.version) {
      s.caughtUp = true;
      log.caughtUp();
    }
  }

  async function start() {
    let first;
    try {
      first = await api('GET', `/v1/sessions/${encodeURIComponent(id)}`, { token, signal: ctl.signal });
    } catch (err) {
      if (err.name === 'AbortError') return;
      fill(title, 'This session could not be opened');
      const hint = err instanceof ApiError && err.status === 401
        ? (token ? 'The token in this link is not one of this session\'s.' : 'This session is private: open it with the link (and token) you were given.')
        : null;
      fill(errorBox, renderError(err), hint ? h('p', null, hint) : null, h('p', null, h('a', { href: '#' }, 'Back to the start page')));
      return;
    }
    adopt(first);
    // The ruleset's sequence of play feeds the turn banner, for viewers too.
    ruleset(s.info.ruleset).then((r) => {
      schema = schema || r;
      drawTurn();
    }).catch(() => { /* no banner: the forms say what the server refuses */ });

    log = eventLog();
    fill($('log'), log.element);
    audit = auditPanel({ sessionId: id, token, role });
    fill($('audit'), audit.element);
    audit.update(auditInfo());

    openEventStream({
      sessionId: id, token, signal: ctl.signal,
      lastEventId: () => s.lastSeq,
      onEvent,
      onStatus: (st, err) => {
        conn.dataset.state = st;
        conn.textContent = { connecting: 'Connecting to the live log…', live: 'Live', reconnecting: 'Connection lost: reconnecting…', failed: `Live log unavailable: ${err ? err.message : ''}` }[st] || st;
        if (st === 'live') scheduleRefresh(); // catch up on what changed while away
      },
    });

    if (!token) {
      fill($('act'), h('p', null, 'You are watching this public session. Open a link with a token (the referee\'s or a side\'s) to act.'));
      return;
    }
    try {
      schema = await ruleset(s.info.ruleset);
    } catch (err) {
      fill($('act'), renderError(err));
      return;
    }
    const examples = await examplesFor(s.info.ruleset);
    if (ctl.signal.aborted) return;
    const ctx = {
      role: role === 'viewer' ? '' : role,
      units: () => (Array.isArray(s.state.units) ? s.state.units : []),
      // In a session whose manual dice only the referee types, a side sends none (the server
      // refuses them; an action that needs dice answers which ones, for the referee to enter).
      manualDice: () => s.dice.mode === 'manual' && !(s.dice.manual_by === 'referee' && role !== 'referee' && role !== ''),
      unitListId: 'unit-ids',
      hexListId: 'hex-ids',
    };
    const resolve = async (body, dice) => {
      const req = { ...body, expect_version: s.version };
      if (dice) req.dice = dice;
      try {
        const a = await api('POST', `/v1/sessions/${encodeURIComponent(id)}/actions`, { token, body: req, headers: { 'Idempotency-Key': idempotencyKey() } });
        if (a.version > s.version) {
          s.version = a.version;
          s.head = a.head;
          audit.update(auditInfo());
        }
        return a;
      } finally {
        scheduleRefresh();
      }
    };
    forms = actionForms({
      schema, ctx, examples,
      onOdds: (body) => api('POST', `/v1/sessions/${encodeURIComponent(id)}/odds`, { token, body }),
      onResolve: resolve,
    });
    forms.resolve = (body) => resolve(body, null);
    combatKey = null; // a new slot below: the board is drawn into it
    fill($('act'),
      h('p', { class: 'hint' }, role === 'referee' || role === '' ? 'You may act with any unit.' : `You act with ${role}'s units. Click a unit or a hex on the board to fill the open form.`),
      s.dice.mode === 'manual' && s.dice.manual_by === 'referee' ? h('p', { class: 'hint manual-by-referee' }, 'In this session only the referee types the dice: an action that needs dice is entered by the referee.') : null,
      h('div', { id: 'combat-slot' }), forms.element, datalists());
    drawTurn();
  }

  // Suggestions for unit and hex fields, kept in step with the state.
  function datalists() {
    const units = h('datalist', { id: 'unit-ids' });
    const hexes = h('datalist', { id: 'hex-ids' });
    const update = () => {
      const us = Array.isArray(s.state.units) ? s.state.units : [];
      fill(units, us.map((u) => h('option', { value: u.id }, u.name || u.id)));
      const hs = [...new Set(us.map((u) => u.hex).filter((x) => typeof x === 'string'))].sort();
      fill(hexes, hs.map((x) => h('option', { value: x })));
    };
    update();
    const orig = forms.refresh;
    forms.refresh = () => {
      orig();
      update();
    };
    return [units, hexes];
  }

  zoom.onclick = () => {
    s.zoomed = !s.zoomed;
    zoom.setAttribute('aria-pressed', String(s.zoomed));
    const sc = board.querySelector('.board-scroll');
    if (sc) sc.classList.toggle('zoomed', s.zoomed);
  };

  start();
  return {
    close() {
      ctl.abort();
      clearTimeout(refreshTimer);
    },
  };
}

let current = null;

function route() {
  const frag = readFragment();
  if (current) current.close();
  current = null;
  const home = $('home');
  const session = $('session');
  if (frag.session) {
    home.hidden = true;
    session.hidden = false;
    current = openSession(frag);
    $('session-title').focus({ preventScroll: true });
  } else {
    session.hidden = true;
    home.hidden = false;
    document.title = 'Umpire — play by web';
  }
}

initHome();
window.addEventListener('hashchange', route);
route();
