// The board panel: the drawing that fits the ruleset's state (a hex map when the state has a
// "map", a table plan when units stand "at" [x, y]), then the unit table every ruleset gets,
// then the rest of the state (turn, pending retreats, armies...) as text.

import { h, compact } from './dom.js';
import { hexMap } from './hexmap.js';
import { tablePlan } from './plan.js';
import { unitTable } from './units.js';

// State keys drawn or tabled elsewhere (a pending claim is the banner's), or too bulky to list
// (spi-dark-ages' charts).
const SHOWN = new Set(['units', 'map', 'terrain', 'charts', 'streams', 'claim', 'claims']);

let unitsOpen = null; // the unit table's fold, as the reader left it (null: by screen width)

function turnLine(turn) {
  if (!turn || typeof turn !== 'object') return null;
  // Lists of sides read as words ("acting french, british"), not JSON.
  const words = (v) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.join(', ') || 'none' : compact(v));
  const bits = Object.entries(turn).map(([k, v]) => `${k.replace(/_/g, ' ')} ${words(v)}`);
  return h('p', { class: 'turn' }, h('strong', null, 'Turn: '), bits.join(' · '));
}

function otherState(state) {
  const keys = Object.keys(state).filter((k) => !SHOWN.has(k) && k !== 'turn');
  if (!keys.length) return null;
  return h('details', { class: 'more-state' }, h('summary', null, `More state (${keys.join(', ')})`),
    h('dl', null, keys.map((k) => [h('dt', null, k), h('dd', null, h('pre', null, JSON.stringify(state[k], null, 2)))])));
}

/**
 * Renders the board into `container`.
 *   state      the ruleset's projection (GET /v1/sessions/{id} .state)
 *   sides      the session's sides (for colours)
 *   options    the session's options (from event 1), for the table's measure
 *   zoomed     draw the map at twice the width (the panel scrolls)
 */
export function renderBoard(container, { state, sides, options, onPick, zoomed }) {
  const units = Array.isArray(state.units) ? state.units : [];
  const parts = [];
  const pending = Array.isArray(state.pending) && state.pending.length
    ? h('p', { class: 'pending-note' }, h('strong', null, 'Pending: '), state.pending.map(compact).join('; '))
    : null;
  parts.push(turnLine(state.turn), pending);

  let drawing = null;
  if (state.map && Array.isArray(state.map.columns) && Array.isArray(state.map.rows)) {
    drawing = hexMap({ map: state.map, units, sides, streams: state.streams, onPick });
  } else if (units.some((u) => Array.isArray(u.at))) {
    drawing = tablePlan({ units, terrain: state.terrain, options: options || {}, sides, onPick });
  }
  if (drawing) {
    parts.push(h('div', { class: ['board-scroll', zoomed && 'zoomed'] }, drawing.svg), drawing.legend);
  }
  // With a drawing, the table of units is the accessible alternative: folded on a phone, so that
  // the board, the forms and the log follow each other closely; it remembers being opened.
  const table = unitTable(units, sides, { caption: `Units (${units.length})` });
  if (drawing) {
    if (unitsOpen === null) unitsOpen = !(window.matchMedia && window.matchMedia('(max-width: 700px)').matches);
    const fold = h('details', { class: 'units-fold', open: unitsOpen }, h('summary', null, `The units as a table (${units.length})`), table);
    fold.addEventListener('toggle', () => { unitsOpen = fold.open; });
    parts.push(fold, otherState(state));
  } else {
    parts.push(table, otherState(state));
  }
  container.replaceChildren(...parts.filter(Boolean));
  return { hasDrawing: Boolean(drawing) };
}
