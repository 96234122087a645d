// How answers are shown: the exact odds of an action, a resolved action's summary, an error
// with its message (and what its details say, e.g. the dice a manual action needs).

import { h, compact, percent } from './dom.js';

const MAX_OUTCOMES = 40;

/** A named probability such as p_kill: 0.42 or p_after: {"good": 0.1, ...}. */
function named(key, v) {
  const name = key.replace(/^p_/, 'P(').replace(/_/g, ' ') + (key.startsWith('p_') ? ')' : '');
  if (typeof v === 'number') return h('li', null, h('span', { class: 'k' }, name), ' ', h('strong', null, percent(v)));
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    return h('li', null, h('span', { class: 'k' }, name), ' ',
      Object.entries(v).map(([k, p], i) => [i ? ', ' : '', `${k} `, h('strong', null, typeof p === 'number' ? percent(p) : compact(p))]));
  }
  return null;
}

function modifierList(mods) {
  return h('ul', { class: 'mods' }, mods.map((m) => {
    const n = m.name ?? m.term ?? '?';
    const v = typeof m.value === 'number' ? (m.value > 0 ? `+${m.value}` : String(m.value)) : compact(m.value ?? m.cost ?? '');
    return h('li', null, `${v} ${n}`);
  }));
}

/** The odds answer (docs/api.md, Exact odds). */
export function renderOdds(o) {
  const parts = [h('h4', null, 'Exact odds')];
  const facts = [];
  // Every answer is an exact enumeration; `exact` only says whether the combinations were
  // equally likely (docs/api.md, Exact odds), so that each chance is also a fraction count/of.
  if (typeof o.exact === 'boolean') facts.push(o.exact ? 'equally likely combinations' : 'combinations weighted by their chance');
  if (typeof o.enumerated === 'number') facts.push(`${o.enumerated} dice combination${o.enumerated === 1 ? '' : 's'} enumerated`);
  if (typeof o.mean === 'number') facts.push(`mean ${Math.round(o.mean * 1000) / 1000}`);
  if (facts.length) parts.push(h('p', { class: 'facts' }, facts.join(' · ')));
  const probs = Object.entries(o).filter(([k]) => k.startsWith('p_')).map(([k, v]) => named(k, v)).filter(Boolean);
  if (probs.length) parts.push(h('ul', { class: 'named-p' }, probs));
  if (Array.isArray(o.modifiers) && o.modifiers.length) parts.push(h('p', null, 'Modifiers:'), modifierList(o.modifiers));
  const outcomes = Array.isArray(o.outcomes) ? o.outcomes : [];
  if (outcomes.length) {
    const rows = outcomes.slice(0, MAX_OUTCOMES).map((x) => h('tr', null,
      h('td', { class: 'num' }, percent(typeof x.count === 'number' && typeof o.of === 'number' && o.of > 0 ? x.count / o.of : x.p)),
      h('td', { class: 'num' }, typeof x.count === 'number' && typeof o.of === 'number' ? `${x.count}/${o.of}` : ''),
      h('td', null, x.summary || compact(x.result ?? ''))));
    parts.push(h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': 'Outcomes' },
      h('table', { class: 'odds' },
        h('caption', null, `${outcomes.length} outcome${outcomes.length === 1 ? '' : 's'}`),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'chance'), h('th', { scope: 'col' }, 'exactly'), h('th', { scope: 'col' }, 'outcome'))),
        h('tbody', null, rows))));
    if (outcomes.length > MAX_OUTCOMES) parts.push(h('p', null, `…and ${outcomes.length - MAX_OUTCOMES} more outcomes.`));
  }
  if (Array.isArray(o.rolls)) {
    parts.push(h('ul', { class: 'rolls' }, o.rolls.map((r) => h('li', null, `roll ${r.roll}: ${percent(r.p)} → ${r.outcome ?? compact(r)}`))));
  }
  return h('div', { class: 'odds-view' }, parts);
}

/** A resolved action's answer: {version, head, summary, result, events}. */
export function renderResolved(a) {
  return h('div', { class: 'resolved' },
    h('h4', null, 'Resolved'),
    h('p', { class: 'summary' }, a.summary || '(no summary)'),
    h('p', { class: 'facts' }, `version ${a.version} · head `, h('code', { class: 'hash' }, String(a.head || '').slice(0, 16) + '…')),
    h('details', null, h('summary', null, 'Full result'), h('pre', null, JSON.stringify(a.result, null, 2))));
}

/** An error from the API (ApiError) or from the form itself. */
export function renderError(err) {
  const parts = [h('p', { class: 'error-message' }, h('strong', null, 'Error: '), err.message || String(err))];
  const d = err.details || {};
  if (err.code) parts.push(h('p', { class: 'facts' }, `${err.status ? `${err.status} ` : ''}${err.code}`));
  if (Array.isArray(d.needed)) {
    parts.push(h('p', null, `The dice this action needs${typeof d.supplied === 'number' ? ` (${d.supplied} value(s) given)` : ''}:`),
      h('ul', null, d.needed.map((n) => h('li', null, compact(n)))));
  }
  if (Array.isArray(d.actions)) parts.push(h('p', null, `Actions: ${d.actions.join(', ')}`));
  if (err.code === 'version_conflict') parts.push(h('p', null, 'The session changed since this page last saw it: check the board and the log, then resolve again.'));
  const rest = Object.fromEntries(Object.entries(d).filter(([k]) => !['needed', 'supplied', 'actions'].includes(k)));
  if (Object.keys(rest).length) parts.push(h('pre', { class: 'details' }, JSON.stringify(rest, null, 2)));
  return h('div', { class: 'error' }, parts);
}
