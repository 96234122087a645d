// The live log: one entry per event of the hash chain, newest first, with its summary, every
// die (purpose, notation, values, the kept value, the nonce that makes it checkable) and the
// modifiers the result lists. Entries arrive from the SSE stream, the backlog first.

import { h, compact } from './dom.js';
import { diceText, roleName } from './dice.js';

const MAX_SHOWN = 300; // older entries stay in the exports; the page keeps the newest

function diceList(dice) {
  return h('ul', { class: 'dice', 'aria-label': 'dice' }, dice.map((d) => h('li', null,
    h('span', { class: 'die-purpose' }, d.purpose || 'roll'), ' ',
    h('code', null, d.notation || ''), ' ',
    h('span', { class: 'die-values' }, `[${(d.values || []).join(', ')}]`),
    d.value !== undefined ? [' = ', h('strong', null, String(d.value))] : null,
    d.manual ? h('span', { class: 'die-src' }, ' manual') : d.nonce !== undefined ? h('span', { class: 'die-src' }, ` nonce ${d.nonce}`) : null)));
}

/** Modifiers a result lists at its top level: modifiers [{name, value}] or drm_terms [{term, value}]. */
function modifiersOf(result) {
  if (!result || typeof result !== 'object') return [];
  const out = [];
  for (const key of ['modifiers', 'drm_terms']) {
    if (Array.isArray(result[key])) for (const m of result[key]) if (m && typeof m === 'object') out.push(m);
  }
  return out;
}

function describe(ev) {
  const d = ev.data || {};
  if (typeof d.summary === 'string' && d.summary) return d.summary;
  if (ev.type === 'session_created') {
    return `Session created: ${d.title ? `"${d.title}", ` : ''}ruleset ${d.ruleset}, sides ${(d.sides || []).join(', ')}, ${d.dice ? diceText(d.dice) : 'dice ?'}`;
  }
  if (ev.type === 'dice_seed_revealed') {
    return `Dice seed revealed for nonces up to ${d.last_nonce}: ${d.seed}; later dice use a new committed seed (next commitment ${d.next_commitment}), and the players' randomness starts afresh`;
  }
  if (ev.type === 'entropy_contributed') {
    const n = d.in_force && typeof d.in_force === 'object' ? Object.keys(d.in_force).length : 0;
    return `${roleName(d.role || ev.actor)} added entropy to the dice (in force from the next die${n > 1 ? `, with ${n} contributions in all` : ''})`;
  }
  return ev.type;
}

export function eventLog() {
  // Focusable so that a keyboard can scroll it (it scrolls on its own on a long game).
  const list = h('ol', { class: 'log-list', reversed: true, tabindex: '0', 'aria-label': 'Events, newest first' });
  // Announces each new event as it comes in, once the backlog is in (not the whole history).
  const live = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const count = h('p', { class: 'facts log-count' }, 'No events yet.');
  const element = h('div', { class: 'log' }, count, list, live);
  let n = 0;
  let backlogDone = false;

  function entry(ev) {
    const d = ev.data || {};
    const mods = modifiersOf(d.result);
    const when = typeof ev.ts === 'string' ? ev.ts.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '';
    return h('li', { class: ['log-entry', `ev-${ev.type}`], dataset: { seq: ev.seq, type: ev.type } },
      h('p', { class: 'log-head' },
        h('span', { class: 'seq' }, `#${ev.seq}`), ' ',
        h('span', { class: 'ev-type' }, ev.type), ' · ',
        h('span', { class: 'actor' }, ev.actor || ''), ' · ',
        h('time', { datetime: ev.ts || '' }, when)),
      h('p', { class: 'log-summary' }, describe(ev)),
      Array.isArray(d.dice) && d.dice.length ? diceList(d.dice) : null,
      mods.length ? h('p', { class: 'mods-line' }, 'Modifiers: ', mods.map((m) => `${typeof m.value === 'number' && m.value > 0 ? '+' : ''}${compact(m.value)} ${m.name ?? m.term}`).join(', ')) : null,
      h('details', null, h('summary', null, 'Event data'),
        h('p', { class: 'facts' }, 'hash ', h('code', { class: 'hash' }, ev.hash || '')),
        h('pre', null, JSON.stringify(d, null, 2))));
  }

  return {
    element,
    add(ev) {
      list.prepend(entry(ev));
      n += 1;
      while (list.children.length > MAX_SHOWN) list.lastElementChild.remove();
      count.textContent = `${n} event${n === 1 ? '' : 's'}${n > MAX_SHOWN ? ` (the newest ${MAX_SHOWN} shown)` : ''}, newest first.`;
      if (backlogDone) live.textContent = `#${ev.seq} ${ev.actor || ''}: ${describe(ev)}`;
    },
    /** Called once the backlog is shown; later events are announced. */
    caughtUp() {
      backlogDone = true;
    },
  };
}
