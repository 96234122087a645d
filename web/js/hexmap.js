// The hex map of vaevictis-corbach-1760 and spi-dark-ages, drawn as SVG from the state's
// normalised "map" (rules/common/hex.h): hexes are CCRR, flat-topped, in vertical columns; every
// other column ("columns_shifted": "even" or "odd") sits half a hex lower. Unit counters carry
// their facing (one of the six hexsides, n ne se s sw nw) and a marker for their condition.

import { h, s } from './dom.js';
import { conditions, conditionCode, isGone, counterLines, unitSymbol, sideClass, describeUnit, colourOf } from './units.js';

const R = 28; // hex radius (centre to corner), in SVG units
const HH = Math.sqrt(3) * R; // hex height (flat side to flat side)
const PAD = 6;

const TERRAIN = {
  clear: '#eef0d8', woods: '#8fbf7a', forest: '#8fbf7a', village: '#d9b48c', town: '#d9b48c',
  city: '#c79a72', river: '#8cc4ef', water: '#8cc4ef', lake: '#8cc4ef', sea: '#7ab2e3',
  stream: '#b7dcf5', slope: '#e3d09a', hill: '#e3d09a', rough: '#cdbf9c', marsh: '#a9c9a4',
  swamp: '#a9c9a4', bridge: '#a8865f', ford: '#b7dcf5', road: '#c8a878',
};
const DIR_ANGLE = { n: -90, ne: -30, se: 30, s: 90, sw: 150, nw: -150 };
// What the legend says of each unit-type symbol drawn.
const SYMBOL_WORDS = {
  infantry: { mark: '[X]', words: 'infantry' }, cavalry: { mark: '[/]', words: 'cavalry' },
  artillery: { mark: '[•]', words: 'artillery' }, missile: { mark: '[→]', words: 'missile troops (bows)' },
  leader: { mark: '[★]', words: 'leader' }, ship: { mark: '[◡]', words: 'ship' },
};

export function terrainColour(t) {
  return TERRAIN[t] || colourOf(t);
}

function parseHex(key) {
  return /^\d{4}$/.test(key) ? { col: Number(key.slice(0, 2)), row: Number(key.slice(2)) } : null;
}

/** Pixel geometry of a map. */
export function grid(map) {
  const [c0, c1] = map.columns;
  const [r0, r1] = map.rows;
  const oddShifted = map.columns_shifted === 'odd';
  const shifted = (c) => (oddShifted ? c % 2 !== 0 : c % 2 === 0);
  const centre = (col, row) => ({
    x: PAD + R + (col - c0) * 1.5 * R,
    y: PAD + HH / 2 + (row - r0) * HH + (shifted(col) ? HH / 2 : 0),
  });
  return {
    c0, c1, r0, r1, centre,
    width: 2 * PAD + 2 * R + (c1 - c0) * 1.5 * R,
    height: 2 * PAD + (r1 - r0 + 1) * HH + HH / 2,
  };
}

function corners(c, scale = 1) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 3) * k;
    pts.push({ x: c.x + R * scale * Math.cos(a), y: c.y + R * scale * Math.sin(a) });
  }
  return pts;
}

const pointsAttr = (pts) => pts.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');

/** The hexside shared by two adjacent hexes: the two corners of a nearest to b's centre. */
function sharedEdge(a, b) {
  return corners(a)
    .map((p) => ({ p, d: (p.x - b.x) ** 2 + (p.y - b.y) ** 2 }))
    .sort((u, v) => u.d - v.d)
    .slice(0, 2)
    .map((x) => x.p);
}

function edgeMid(c, dir) {
  const a = (DIR_ANGLE[dir] * Math.PI) / 180;
  return { x: c.x + (HH / 2) * Math.cos(a), y: c.y + (HH / 2) * Math.sin(a) };
}

const line = (a, b, cls, extra = {}) =>
  s('line', { x1: a.x.toFixed(1), y1: a.y.toFixed(1), x2: b.x.toFixed(1), y2: b.y.toFixed(1), class: cls, ...extra });

function hexTerrain(map, key) {
  const hx = (map.hexes || {})[key] || {};
  const t = hx.terrain;
  const terrain = Array.isArray(t) && t.length ? t : [typeof t === 'string' ? t : map.default_terrain || 'clear'];
  return { terrain, level: hx.level || 0 };
}

// The picked unit (a tap or Enter on its counter): outlined at once, and again after a redraw.
let picked = null;

// A type symbol in a small box at the counter's top, NATO-style (units.js unitSymbol).
function symbol(kind, C) {
  const w = 11, hgt = 6.5, x0 = -w / 2, y0 = -C / 2 + 2;
  const box = s('rect', { x: x0, y: y0, width: w, height: hgt, class: 'sym-box' });
  const l = (x1, y1, x2, y2) => s('line', { x1, y1, x2, y2, class: 'sym-line' });
  const parts = {
    infantry: [l(x0, y0, x0 + w, y0 + hgt), l(x0, y0 + hgt, x0 + w, y0)],
    cavalry: [l(x0, y0 + hgt, x0 + w, y0)],
    artillery: [s('circle', { cx: 0, cy: y0 + hgt / 2, r: 1.8, class: 'sym-dot' })],
    missile: [l(x0 + 2, y0 + hgt / 2, x0 + w - 2, y0 + hgt / 2), l(x0 + w - 4, y0 + 1.5, x0 + w - 2, y0 + hgt / 2), l(x0 + w - 4, y0 + hgt - 1.5, x0 + w - 2, y0 + hgt / 2)],
    leader: [s('polygon', { points: '0,-1.6 0.5,-0.4 1.7,-0.4 0.7,0.4 1.1,1.6 0,0.9 -1.1,1.6 -0.7,0.4 -1.7,-0.4 -0.5,-0.4', transform: `translate(0 ${(y0 + hgt / 2).toFixed(2)}) scale(1.6)`, class: 'sym-dot' })],
    ship: [s('path', { d: `M${x0 + 2} ${y0 + 2.5} Q0 ${y0 + hgt + 1.5} ${x0 + w - 2} ${y0 + 2.5}`, class: 'sym-line', fill: 'none' })],
  };
  return s('g', { class: `sym sym-${kind}`, 'aria-hidden': 'true' }, box, ...(parts[kind] || []));
}

function counter(u, sides, c, i, n, onPick, onStack) {
  const C = R * 0.95;
  const x = c.x + i * 5 - 4;
  const y = c.y + i * 5 - 4;
  const cond = conditions(u);
  const label = n > 1 ? `${describeUnit(u)}; ${n} units in this hex` : describeUnit(u);
  const kind = unitSymbol(u);
  const lines = counterLines(u);
  const g = s('g', {
    class: ['unit', sideClass(sides, u.side), isGone(u) && 'gone', cond.length && 'marked', picked === u.id && 'picked'],
    transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
    tabindex: '0', role: 'button', 'aria-label': label, dataset: { unit: u.id },
  }, s('title', null, label),
  s('rect', { x: -C / 2, y: -C / 2, width: C, height: C, rx: 3, class: 'counter' }),
  kind ? symbol(kind, C) : null,
  // The name in one or two lines, squeezed to the counter's width rather than spilling over
  // its neighbours.
  ...lines.map((t, k) => s('text', {
    x: 0, y: (lines.length === 1 ? 2.5 : -0.5 + k * 6).toFixed(1), class: 'counter-label', 'text-anchor': 'middle',
    ...(t.length > 5 ? { textLength: C - 3, lengthAdjust: 'spacingAndGlyphs' } : {}),
  }, t)),
  typeof u.strength === 'number' ? s('text', { x: 0, y: C / 2 - 2, class: 'counter-value', 'text-anchor': 'middle' }, String(u.strength)) : null,
  // The top counter of a stack says how many it hides (the stack list shows each).
  n > 1 && i === n - 1 ? s('g', { class: 'stack-count', 'aria-hidden': 'true' },
    s('circle', { cx: -C / 2 + 2, cy: C / 2 - 2, r: 4.5 }),
    s('text', { x: -C / 2 + 2, y: C / 2, 'text-anchor': 'middle' }, String(n))) : null);
  if (typeof u.facing === 'string' && DIR_ANGLE[u.facing] !== undefined) {
    const a = (DIR_ANGLE[u.facing] * Math.PI) / 180;
    const tip = { x: Math.cos(a) * (C / 2 + 6), y: Math.sin(a) * (C / 2 + 6) };
    const side = (sgn) => ({ x: Math.cos(a) * (C / 2 - 1) - sgn * Math.sin(a) * 5, y: Math.sin(a) * (C / 2 - 1) + sgn * Math.cos(a) * 5 });
    g.append(s('polygon', { class: 'facing', points: pointsAttr([tip, side(1), side(-1)]) }));
  }
  if (cond.length && !isGone(u)) {
    const code = conditionCode(cond[0]);
    g.append(s('rect', { x: C / 2 - 9, y: -C / 2 - 4, width: 13, height: 10, rx: 3, class: 'cond-mark' }),
      s('text', { x: C / 2 - 2.5, y: -C / 2 + 3.5, class: 'cond-letter', 'text-anchor': 'middle', ...(code.length > 2 ? { textLength: 11, lengthAdjust: 'spacingAndGlyphs' } : {}) }, code));
  }
  if (isGone(u)) g.append(line({ x: -C / 2, y: -C / 2 }, { x: C / 2, y: C / 2 }, 'gone-x'), line({ x: C / 2, y: -C / 2 }, { x: -C / 2, y: C / 2 }, 'gone-x'));
  const pick = (ev) => {
    ev.stopPropagation();
    picked = u.id;
    const svg = g.ownerSVGElement;
    if (svg) for (const other of svg.querySelectorAll('.unit.picked')) other.classList.remove('picked');
    g.classList.add('picked');
    if (onStack) onStack(u.hex);
    onPick({ kind: 'unit', id: u.id, side: u.side, hex: u.hex });
  };
  g.addEventListener('click', pick);
  g.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      pick(ev);
    }
  });
  return g;
}

/** The map as a <figure>: SVG, legend. onPick({kind: 'hex'|'unit', ...}) on click. */
export function hexMap({ map, units, sides, streams, onPick }) {
  const gm = grid(map);
  const hexLayer = s('g', { class: 'hexes' });
  // Hexsides and labels let clicks through to the hex under them.
  const sideLayer = s('g', { class: 'hexsides' });
  const unitLayer = s('g', { class: 'units' });
  const used = new Set();
  const features = new Set();
  const codes = new Map();
  for (const u of units) if (!isGone(u)) for (const c of conditions(u).slice(0, 1)) codes.set(conditionCode(c), c);

  for (let col = gm.c0; col <= gm.c1; col++) {
    for (let row = gm.r0; row <= gm.r1; row++) {
      const key = String(col).padStart(2, '0') + String(row).padStart(2, '0');
      const c = gm.centre(col, row);
      const { terrain, level } = hexTerrain(map, key);
      terrain.forEach((t) => used.add(t));
      const title = `${key}: ${terrain.join(', ')}${level ? `, level ${level}` : ''}`;
      const g = s('g', { class: 'hex', dataset: { hex: key } },
        s('title', null, title),
        s('polygon', { points: pointsAttr(corners(c)), fill: terrainColour(terrain[0]), class: `hex-shape level-${Math.min(level, 3)}` }),
        terrain.slice(1).map((t) => s('polygon', { points: pointsAttr(corners(c, 0.55)), fill: terrainColour(t), class: 'hex-inner' })),
        s('text', { x: c.x, y: c.y - HH / 2 + 8, class: 'hex-label', 'text-anchor': 'middle' }, key),
        level ? s('text', { x: c.x, y: c.y + HH / 2 - 3, class: 'hex-level', 'text-anchor': 'middle' }, `L${level}`) : null);
      g.addEventListener('click', () => onPick({ kind: 'hex', hex: key }));
      hexLayer.append(g);
    }
  }

  // Streams that run through a hex (spi-dark-ages: state.streams {"0507": ["sw", "se"]}).
  for (const [key, dirs] of Object.entries(streams || {})) {
    const p = parseHex(key);
    if (!p || !Array.isArray(dirs)) continue;
    const c = gm.centre(p.col, p.row);
    const pts = dirs.filter((d) => DIR_ANGLE[d] !== undefined).map((d) => edgeMid(c, d));
    if (pts.length === 2) sideLayer.append(s('polyline', { points: pointsAttr([pts[0], c, pts[1]]), class: 'side-stream through' }));
  }

  // Hexside features, drawn water first so that bridges and roads lie on top.
  const order = (f) => ({ stream: 0, river: 0, slope: 1, bridge: 3, road: 4 }[f] ?? 2);
  const sideEntries = [];
  for (const [key, feats] of Object.entries(map.hexsides || {})) {
    const [ka, kb] = key.split('/');
    const a = parseHex(ka || '');
    const b = parseHex(kb || '');
    if (!a || !b || !Array.isArray(feats)) continue;
    for (const f of feats) sideEntries.push({ ca: gm.centre(a.col, a.row), cb: gm.centre(b.col, b.row), f, key });
  }
  sideEntries.sort((x, y) => order(x.f) - order(y.f));
  for (const { ca, cb, f, key } of sideEntries) {
    features.add(f);
    let el;
    if (f === 'road') el = line(ca, cb, 'side-road');
    else if (f === 'bridge') {
      const mid = (t) => ({ x: ca.x + (cb.x - ca.x) * t, y: ca.y + (cb.y - ca.y) * t });
      el = line(mid(0.35), mid(0.65), 'side-bridge');
    } else {
      const [p, q] = sharedEdge(ca, cb);
      const cls = { stream: 'side-stream', river: 'side-river', slope: 'side-slope' }[f] || 'side-other';
      el = line(p, q, cls, cls === 'side-other' ? { stroke: colourOf(f) } : {});
    }
    el.append(s('title', null, `${key}: ${f}`));
    sideLayer.append(el);
  }

  // Units, stacked per hex.
  const byHex = new Map();
  for (const u of units) {
    const p = typeof u.hex === 'string' ? parseHex(u.hex) : null;
    if (!p) continue;
    if (!byHex.has(u.hex)) byHex.set(u.hex, []);
    byHex.get(u.hex).push(u);
  }
  // The stack list: a tap on a counter of a stacked hex lists every unit in it, each a button
  // that picks it (a counter hides the ones under it).
  let svgRef = null;
  const stackBox = h('div', { class: 'stack-list', role: 'region', 'aria-live': 'polite', 'aria-label': 'Units in the picked hex', hidden: true });
  const showStack = (hex) => {
    const list = byHex.get(hex) || [];
    stackBox.hidden = list.length < 2;
    if (list.length < 2) return stackBox.replaceChildren();
    stackBox.replaceChildren(h('p', null, h('strong', null, `Hex ${hex}: ${list.length} units`), ' (tap one to pick it)'),
      h('ul', null, list.map((u) => h('li', null, h('button', {
        type: 'button', class: ['stack-unit', sideClass(sides, u.side), picked === u.id && 'picked'], dataset: { unit: u.id },
        onclick: () => {
          picked = u.id;
          if (svgRef) for (const g of svgRef.querySelectorAll('.unit')) g.classList.toggle('picked', g.dataset.unit === u.id);
          showStack(hex);
          onPick({ kind: 'unit', id: u.id, side: u.side, hex: u.hex });
        },
      }, `${u.name || u.id}${u.name ? ` (${u.id})` : ''}${conditions(u).length ? `: ${conditions(u).join(', ')}` : ''}`)))));
  };
  for (const [key, list] of byHex) {
    const p = parseHex(key);
    const c = gm.centre(p.col, p.row);
    // Units out of play under the ones still fighting.
    list.sort((x, y) => Number(isGone(y)) - Number(isGone(x)));
    list.forEach((u, i) => unitLayer.append(counter(u, sides, c, i, list.length, onPick, showStack)));
  }

  const symbolsUsed = new Set(units.map(unitSymbol).filter(Boolean));
  const nCols = gm.c1 - gm.c0 + 1;
  const nRows = gm.r1 - gm.r0 + 1;
  const svg = s('svg', {
    class: 'board-svg hexmap', viewBox: `0 0 ${gm.width.toFixed(0)} ${gm.height.toFixed(0)}`,
    role: 'group', 'aria-label': `Hex map, ${nCols} columns by ${nRows} rows, ${units.length} units; the unit table lists the same units`,
    preserveAspectRatio: 'xMidYMin meet',
  }, hexLayer, sideLayer, unitLayer);
  svgRef = svg;

  const legend = h('ul', { class: 'legend', 'aria-label': 'Map legend' },
    [...used].map((t) => h('li', null, swatch(terrainColour(t), 'hex'), t)),
    [...features].map((f) => h('li', null, swatch(null, `feat-${['road', 'bridge', 'stream', 'river', 'slope'].includes(f) ? f : 'other'}`, f), f)),
    [...codes].map(([code, c]) => h('li', null, h('span', { class: 'code-swatch' }, code), c)),
    [...symbolsUsed].map((k) => h('li', null, h('span', { class: 'code-swatch' }, SYMBOL_WORDS[k].mark), SYMBOL_WORDS[k].words)),
    h('li', null, 'L1, L2: hill levels; a triangle: the facing; crossed out: eliminated; a number in a circle: units stacked in the hex'));
  if (picked && units.some((u) => u.id === picked && u.hex)) showStack(units.find((u) => u.id === picked).hex);
  return { svg, legend: h('div', { class: 'map-notes' }, stackBox, legend) };
}

function swatch(fill, kind, name) {
  const attrs = { class: 'swatch', viewBox: '0 0 16 12', 'aria-hidden': 'true', focusable: 'false' };
  if (kind === 'hex') return s('svg', attrs, s('rect', { x: 0, y: 0, width: 16, height: 12, fill }));
  const cls = kind === 'feat-road' ? 'side-road' : kind === 'feat-bridge' ? 'side-bridge' : kind === 'feat-stream' ? 'side-stream'
    : kind === 'feat-river' ? 'side-river' : kind === 'feat-slope' ? 'side-slope' : 'side-other';
  return s('svg', attrs, s('line', { x1: 0, y1: 6, x2: 16, y2: 6, class: cls, ...(cls === 'side-other' ? { stroke: colourOf(name) } : {}) }));
}
