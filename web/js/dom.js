// Tiny DOM helpers. Everything the client shows is built with these (textContent, attributes),
// never with innerHTML: session titles, unit names and summaries come from other players.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') el.textContent = String(v);
    else if (k === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value' || k === 'checked') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: h('p', {class: 'x'}, 'text', child, ...). */
export function h(tag, attrs, ...children) {
  return apply(document.createElement(tag), attrs, children);
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs, ...children) {
  return apply(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replaces every child of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  return apply(el, null, children);
}

let uid = 0;
/** A fresh id for label/for and aria-describedby pairs. */
export function newId(prefix = 'u') {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** Compact JSON for tables and hints. */
export function compact(v) {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A probability as a percentage with sensible precision. */
export function percent(p) {
  if (typeof p !== 'number') return String(p);
  // The daemon sums doubles, so a certainty can arrive as 0.9999999999999999: round that off.
  const v = Math.abs(p - 1) < 1e-9 ? 100 : Math.abs(p) < 1e-12 ? 0 : p * 100;
  if (v > 0 && v < 0.1) return '<0.1%';
  if (v < 100 && v > 99.9) return '>99.9%';
  return `${Math.round(v * 10) / 10}%`;
}
