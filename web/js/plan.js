// The table of the miniatures rulesets (vis-magica, horse-and-musket), drawn as SVG: units
// stand at "at": [x, y] in 1/resolution of the measure (inch or cm), x to the right and y away
// from the player at the bottom; "facing" is in degrees clockwise from north (+y)
// (rules/common/tabletop.h). Terrain areas are polygons. SVG's y grows downward, so every
// point is drawn at (x, -y); a base is drawn front up and rotated by its facing.

import { h, s } from './dom.js';
import { conditions, isGone, sideClass, describeUnit, colourOf } from './units.js';

const AREA = { difficult: '#c9c08a', impassable: '#9a9a9a', woods: '#8fbf7a', water: '#8cc4ef', rough: '#cdbf9c', hill: '#e3d09a', building: '#c79a72' };

/** Units per inch in this session (cm: 2.54 cm to the inch). */
function perInch(options) {
  const res = Number.isInteger(options.resolution) && options.resolution > 0 ? options.resolution : 10;
  return options.measure === 'cm' ? res * 2.54 : res;
}

// The picked unit (a tap or Enter on its base), outlined until another is picked.
let picked = null;

/** The plan as {svg, legend}. onPick({kind: 'unit', id} | {kind: 'point', at: [x, y]}). */
export function tablePlan({ units, terrain, options = {}, sides, onPick }) {
  const inch = perInch(options);
  const cm = options.measure === 'cm';
  const pts = [];
  for (const u of units) if (Array.isArray(u.at)) pts.push(u.at);
  for (const t of terrain || []) for (const p of t.polygon || []) pts.push(p);
  if (!pts.length) pts.push([0, 0]);
  const m = 4 * inch;
  const minX = Math.min(...pts.map((p) => p[0])) - m;
  const maxX = Math.max(...pts.map((p) => p[0])) + m;
  const minY = Math.min(...pts.map((p) => p[1])) - m;
  const maxY = Math.max(...pts.map((p) => p[1])) + m;
  const w = maxX - minX;
  const hgt = maxY - minY;
  const fs = Math.max(w, hgt) / 32; // font size that stays readable when the plan is scaled down

  const layer = s('g', { class: 'table-grid' });
  // A light grid every 6 inches (15 cm), and a scale bar.
  const step = cm ? 15 * (inch / 2.54) : 6 * inch;
  for (let x = Math.ceil(minX / step) * step; x <= maxX; x += step) layer.append(s('line', { x1: x, y1: -maxY, x2: x, y2: -minY, class: 'grid-line' }));
  for (let y = Math.ceil(minY / step) * step; y <= maxY; y += step) layer.append(s('line', { x1: minX, y1: -y, x2: maxX, y2: -y, class: 'grid-line' }));
  const sbY = -minY - fs * 0.8;
  layer.append(s('line', { x1: minX + fs, y1: sbY, x2: minX + fs + step, y2: sbY, class: 'scale-bar' }),
    s('text', { x: minX + fs, y: sbY - fs * 0.4, 'font-size': fs, class: 'plan-text' }, cm ? '15 cm' : '6 in'),
    s('text', { x: maxX - fs, y: -maxY + fs * 1.3, 'font-size': fs, class: 'plan-text', 'text-anchor': 'end' }, 'N ↑'));

  const areas = s('g', { class: 'areas' });
  const types = new Set();
  for (const t of terrain || []) {
    if (!Array.isArray(t.polygon) || t.polygon.length < 3) continue;
    types.add(t.type);
    const cx = t.polygon.reduce((a, p) => a + p[0], 0) / t.polygon.length;
    const cy = t.polygon.reduce((a, p) => a + p[1], 0) / t.polygon.length;
    areas.append(s('g', { class: 'area' },
      s('title', null, `${t.id}: ${t.type}`),
      s('polygon', { points: t.polygon.map((p) => `${p[0]},${-p[1]}`).join(' '), fill: AREA[t.type] || colourOf(t.type), class: 'area-shape' }),
      s('text', { x: cx, y: -cy, 'font-size': fs, class: 'plan-text', 'text-anchor': 'middle' }, t.id)));
  }

  const fw = 3 * inch; // a base's frontage and depth: only a drawing, the daemon measures centres
  const dp = inch;
  const bases = s('g', { class: 'units' });
  const placed = units.filter((u) => Array.isArray(u.at));
  // Units out of play first, so that the ones still fighting are drawn on top.
  placed.sort((a, b) => Number(isGone(b)) - Number(isGone(a)));
  // Labels go below their base unless that would run into a label already placed below a base
  // nearby (two bases side by side): then above. Widths are estimated from the text length.
  const labelsBelow = [];
  const labelWidth = (text) => text.length * fs * 0.6;
  for (const u of placed) {
    const [x, y] = u.at;
    const clash = labelsBelow.some((o) => Math.abs(o.x - x) < (o.w + labelWidth(u.id)) / 2 + fs * 0.5 && Math.abs(o.y - y) < fs * 2.5);
    const below = !clash;
    if (below) labelsBelow.push({ x, y, w: labelWidth(u.id) });
    const cond = conditions(u);
    const label = describeUnit(u);
    const facing = Number.isFinite(u.facing) ? u.facing : 0;
    const g = s('g', {
      class: ['unit', sideClass(sides, u.side), isGone(u) && 'gone', cond.length && 'marked', picked === u.id && 'picked'],
      tabindex: '0', role: 'button', 'aria-label': label, dataset: { unit: u.id },
    }, s('title', null, label),
    s('g', { transform: `translate(${x} ${-y}) rotate(${facing})` },
      s('rect', { x: -fw / 2, y: -dp / 2, width: fw, height: dp, class: 'base' }),
      s('line', { x1: -fw / 2, y1: -dp / 2, x2: fw / 2, y2: -dp / 2, class: 'base-front' }),
      s('polygon', { points: `0,${-dp / 2 - dp * 0.7} ${-dp * 0.45},${-dp / 2} ${dp * 0.45},${-dp / 2}`, class: 'facing' }),
      isGone(u) ? [s('line', { x1: -fw / 2, y1: -dp / 2, x2: fw / 2, y2: dp / 2, class: 'gone-x' }), s('line', { x1: fw / 2, y1: -dp / 2, x2: -fw / 2, y2: dp / 2, class: 'gone-x' })] : null),
    // The condition goes on a line of its own: side by side, two bases' labels ran together.
    s('text', { x, y: below ? -y + dp + fs : -y - dp * 1.3 - (cond.length ? fs * 1.1 : 0), 'font-size': fs, class: 'plan-text unit-name', 'text-anchor': 'middle' },
      u.id,
      cond.length ? s('tspan', { x, dy: fs * 1.1, class: 'unit-cond' }, `(${cond.join(', ')})`) : null));
    const pick = (ev) => {
      ev.stopPropagation();
      // Outlined at once, and after a redraw (picked), so a tap shows what it picked.
      picked = u.id;
      for (const other of bases.querySelectorAll('.unit.picked')) other.classList.remove('picked');
      g.classList.add('picked');
      onPick({ kind: 'unit', id: u.id, side: u.side, at: u.at });
    };
    g.addEventListener('click', pick);
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        pick(ev);
      }
    });
    bases.append(g);
  }

  const bg = s('rect', { x: minX, y: -maxY, width: w, height: hgt, class: 'table-bg' });
  const svg = s('svg', {
    class: 'board-svg plan', viewBox: `${minX} ${-maxY} ${w} ${hgt}`, role: 'group',
    'aria-label': `Table plan, ${Math.round(w / inch)} by ${Math.round(hgt / inch)} inches shown, ${placed.length} units; the unit table lists the same units`,
    preserveAspectRatio: 'xMidYMin meet',
  }, bg, layer, areas, bases);
  // A click on the table picks the point under it, in table coordinates (for "to" of a move).
  svg.addEventListener('click', (ev) => {
    const ctm = svg.getScreenCTM();
    if (!ctm) return;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(ctm.inverse());
    onPick({ kind: 'point', at: [Math.round(p.x), Math.round(-p.y)] });
  });

  const legend = h('ul', { class: 'legend', 'aria-label': 'Plan legend' },
    [...types].map((t) => h('li', null, s('svg', { class: 'swatch', viewBox: '0 0 16 12', 'aria-hidden': 'true', focusable: 'false' },
      s('rect', { x: 0, y: 0, width: 16, height: 12, fill: AREA[t] || colourOf(t) })), t)),
    h('li', null, `Coordinates in 1/${options.resolution || 10} ${cm ? 'cm' : 'inch'}; north is up; the thick edge and triangle: a base's front. Click the table to pick a point.`));
  return { svg, legend };
}
