// Units as every ruleset's state holds them ({"id", "side", ...the ruleset's fields}): the
// conditions worth showing on a counter, and the plain unit table that every board has (the
// accessible alternative to the SVG drawings).

import { h } from './dom.js';

// Values of state/status/morale that are the normal case and need no marker.
const NORMAL = new Set(['good', 'normal', 'alive', 'ok', '']);
// Boolean (or object: "since when") flags that mark a condition when truthy.
const FLAGS = ['eliminated', 'removed', 'killed', 'routed', 'demoralized', 'disordered', 'disorganized', 'panicked', 'shaken', 'retreating', 'dismounted'];
// Conditions after which a unit is off the board.
const GONE = new Set(['eliminated', 'removed', 'killed', 'destroyed', 'dead', 'escaped']);

/** The unit's notable conditions, e.g. ['disordered', 'shaken'] (empty when in good order). */
export function conditions(u) {
  const out = [];
  for (const k of ['state', 'status', 'morale']) {
    const v = u[k];
    if (typeof v === 'string' && !NORMAL.has(v)) out.push(v.replace(/_/g, ' '));
  }
  for (const k of FLAGS) if (u[k] && !out.includes(k)) out.push(k);
  return out;
}

// Short codes for a counter's condition marker (the legend spells them out).
const CODES = {
  disorganized: 'Dg', demoralized: 'Dm', disordered: 'Do', routed: 'R', 'march column': 'MC', panicked: 'P',
  shaken: 'S', retreating: 'Rt', eliminated: 'X', removed: 'X', killed: 'X', destroyed: 'X', dismounted: 'Dis',
};

/** The marker for a condition: "Dm" for demoralized; a condition it does not know: 2 letters. */
export function conditionCode(c) {
  return CODES[c] || c.slice(0, 2).replace(/^./, (x) => x.toUpperCase());
}

/** True when the unit is out of play (eliminated, removed, killed...). */
export function isGone(u) {
  return conditions(u).some((c) => GONE.has(c));
}

/** A short label for a counter: the id without a side prefix such as "fr-", at most 6 chars. */
export function shortLabel(u) {
  const id = String(u.id);
  const rest = id.includes('-') ? id.slice(id.indexOf('-') + 1) : id;
  return (rest || id).slice(0, 6);
}

// Words a counter's name can do without ("Regiment de Navarre" reads as "Regiment Navarre").
const SMALL = new Set(['de', 'du', 'des', 'la', 'le', 'of', 'the', 'von', 'der', 'at', 'and', 'a']);

/**
 * A counter's name in at most two short lines, readable at counter size: the unit's name (its id
 * without the side prefix when it has none), small words left out, each line at most `max`
 * characters: "Harold's huscarls" -> ["Harold's", "huscarls"], "Batterie de 12" -> ["Batterie", "12"].
 */
export function counterLines(u, max = 9) {
  const text = u.name ? String(u.name) : String(u.id).replace(/^[a-z]{1,3}-/, '').replace(/[-_]/g, ' ');
  const words = text.split(/\s+/).filter((w) => w && !SMALL.has(w.toLowerCase()));
  if (!words.length) return [shortLabel(u)];
  const cut = (w) => (w.length > max ? `${w.slice(0, max - 1)}.` : w);
  if (words.length === 1) return [cut(words[0])];
  // The first word, then the most telling of the rest (the last: "Fyrd of the Derwent").
  return [cut(words[0]), cut(words[words.length - 1])];
}

// Unit-type symbols, as a board game's counters carry them (NATO-style): a unit's type (or kind)
// read by keyword. The legend spells each out.
const SYMBOLS = [
  ['leader', /king|earl|general|leader|command|hero|duke|jarl/],
  ['ship', /ship|boat|fleet|galley/],
  ['artillery', /artiller|gun|battery|cannon|catapult/],
  ['missile', /archer|bow|sling|skirmish|javelin/],
  ['cavalry', /cav|horse|hussar|cuirass|dragoon|knight|lancer|chariot|rider/],
  ['infantry', /inf|foot|fyrd|huscarl|hird|berserk|bondi|levy|spear|pike|line|guard|legion|close_order|open_order/],
];

/** The symbol of a unit's type: leader, ship, artillery, missile, cavalry, infantry, or null. */
export function unitSymbol(u) {
  const t = `${u.type || ''} ${u.kind || ''}`.toLowerCase();
  if (!t.trim()) return null;
  for (const [name, re] of SYMBOLS) if (re.test(t)) return name;
  return null;
}

/** CSS class of a side, by its position in the session's sides (8 colours, then round). */
export function sideClass(sides, side) {
  const i = sides.indexOf(side);
  return `side-${i < 0 ? 'x' : i % 8}`;
}

/** The position as text: a hex, or "x, y" on a table. */
export function position(u) {
  if (typeof u.hex === 'string') return u.hex;
  if (Array.isArray(u.at)) return u.at.join(', ');
  return '';
}

/**
 * A table cell's value in words, not JSON: a list of named things by name with their other
 * values ("suit of armor (H, intact)"; "Great Sword, F H6 (striking, T, time 6, length 8)"),
 * an object as "key value" pairs ("harm M, time 2"), true as "yes".
 */
export function cellText(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v !== 'object') return String(v);
  const scalar = (x) => x !== null && typeof x !== 'object' && x !== false && x !== 0 && x !== '';
  const pairs = (o, skip) => Object.entries(o).filter(([k, x]) => !skip.has(k) && scalar(x))
    .map(([k, x]) => (['harm', 'toughness', 'state', 'kind', 'status'].includes(k) || x === true ? String(x === true ? k.replace(/_/g, ' ') : x) : `${k.replace(/_/g, ' ')} ${x}`));
  if (Array.isArray(v)) {
    return v.map((x) => {
      if (!x || typeof x !== 'object') return String(x);
      const rest = pairs(x, new Set(['name']));
      return x.name ? `${x.name}${rest.length ? ` (${rest.join(', ')})` : ''}` : rest.join(', ');
    }).join('; ');
  }
  const rest = pairs(v, new Set());
  const nested = Object.entries(v).filter(([, x]) => x && typeof x === 'object').map(([k, x]) => `${k.replace(/_/g, ' ')}: ${cellText(x)}`);
  return [...rest, ...nested].join(', ');
}

const FIRST = ['id', 'name', 'side', 'type', 'kind'];
const SKIP = new Set(['id', 'name', 'side', 'type', 'kind', 'hex', 'at', 'facing']);

/** The plain table of units: one row per unit, every field the state has. */
export function unitTable(units, sides, { caption = 'Units' } = {}) {
  const extra = [];
  for (const u of units) for (const k of Object.keys(u)) if (!SKIP.has(k) && !extra.includes(k)) extra.push(k);
  const hasPos = units.some((u) => position(u) !== '');
  const hasFacing = units.some((u) => u.facing !== undefined);
  const cols = [...FIRST.filter((k) => units.some((u) => u[k] !== undefined))];
  const head = [...cols, ...(hasPos ? ['position'] : []), ...(hasFacing ? ['facing'] : []), 'condition', ...extra];
  const rows = units.map((u) => {
    const cond = conditions(u);
    return h('tr', { class: ['unit-row', sideClass(sides, u.side), isGone(u) && 'gone'], dataset: { unit: u.id } },
      cols.map((k, i) => (i === 0 ? h('th', { scope: 'row' }, cellText(u[k])) : h('td', null, cellText(u[k])))),
      hasPos ? h('td', null, position(u)) : null,
      hasFacing ? h('td', null, u.facing === undefined ? '' : String(u.facing)) : null,
      h('td', { class: 'cond' }, cond.length ? cond.join(', ') : 'in good order'),
      extra.map((k) => h('td', null, cellText(u[k]))));
  });
  // The wrapper scrolls sideways on a phone; it is focusable so a keyboard can scroll it too.
  return h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h('table', { class: 'units' },
      h('caption', null, caption),
      h('thead', null, h('tr', null, head.map((k) => h('th', { scope: 'col' }, k.replace(/_/g, ' '))))),
      h('tbody', null, rows)));
}

/** One line describing a unit, for <title>, aria-label and the log. */
export function describeUnit(u) {
  const bits = [String(u.id)];
  if (u.name) bits.push(`(${u.name})`);
  if (u.side) bits.push(`of ${u.side}`);
  const pos = position(u);
  if (pos) bits.push(`at ${pos}`);
  if (u.facing !== undefined) bits.push(`facing ${u.facing}`);
  const cond = conditions(u);
  bits.push(cond.length ? `: ${cond.join(', ')}` : ': in good order');
  return bits.join(' ');
}

/** A fill colour for a name the client does not know (terrain, feature): stable per name. */
export function colourOf(name) {
  let hash = 0;
  for (const ch of String(name)) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return `hsl(${hash % 360} 35% 72%)`;
}
