// Action forms built from the ruleset's schema (GET /v1/rulesets/{rs}: actions[].fields with
// name, type, required, description). One form per action type; inputs by field type: text,
// number, checkbox, a fieldset for an object whose sub-fields the schema lists ("attack.kind"),
// JSON for other objects and arrays; a unit picker where a field names a unit, a hex list
// where it names a hex. "Odds" asks for the exact odds, "Resolve" commits the action.

import { h, newId, compact } from './dom.js';
import { renderOdds, renderResolved, renderError } from './results.js';

class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

const HEX_HINT = /hex/i;
const HEX_EXAMPLE = /"\d{4}"/;
// ("general" is not here: horse-and-musket names generals, not units.)
const UNIT_NAMES = new Set(['target', 'defender', 'with', 'attacker', 'unit']);

/** What a string field refers to: 'actor' (the acting unit), 'unit', 'hex' or 'text'. */
function stringKind(field, nested) {
  const last = field.name.split(/\.|\[\]\./).pop();
  const d = field.description || '';
  if (HEX_HINT.test(d) && (HEX_EXAMPLE.test(d) || /^the hex\b/i.test(d))) return 'hex';
  if (last === 'unit' && !nested) return 'actor';
  if (UNIT_NAMES.has(last) && /\b(unit|base|general)s?\b/i.test(d) && !/\bor\b.*\bmove\b/.test(d)) return 'unit';
  return 'text';
}

/** Lenient array input: JSON, or a list of words ("1205 1305", "fr-line, fr-guns"). */
function parseArray(text, field) {
  try {
    return JSON.parse(text);
  } catch {
    if (/[[\]{}"]/.test(text)) throw new FieldError(field.name, `${field.name}: not valid JSON`);
    const words = text.split(/[\s,]+/).filter(Boolean);
    const hexes = HEX_EXAMPLE.test(field.description || '');
    return words.map((w) => (!hexes && /^-?\d+$/.test(w) ? Number(w) : w));
  }
}

/** Builds one control; returns {el, read(), write(v), clear(), field, kind, input}. */
function control(field, ctx, fields, nested) {
  const id = newId('f');
  const hintId = `${id}-hint`;
  const short = field.name.split('.').pop();
  const labelText = [short.replace(/_/g, ' '), field.required ? ' (required)' : ''];
  const hint = field.description ? h('span', { class: 'hint', id: hintId }, field.description) : null;
  const described = hint ? hintId : undefined;

  // Sub-fields "name.x" of an object: a fieldset.
  const children = fields.filter((f) => f.name.startsWith(`${field.name}.`) && !f.name.slice(field.name.length + 1).includes('.') && !f.name.includes('['));
  if (field.type === 'object' && children.length) {
    const subs = children.map((f) => control(f, ctx, fields, true));
    const el = h('fieldset', { class: 'subfields' }, h('legend', null, labelText), hint, subs.map((c) => c.el));
    return {
      el, field, kind: 'object', subs,
      read() {
        const o = {};
        for (const c of subs) {
          const v = c.read();
          if (v !== undefined) o[c.field.name.split('.').pop()] = v;
        }
        return Object.keys(o).length ? o : undefined;
      },
      write(v) {
        for (const c of subs) c.write(v && typeof v === 'object' ? v[c.field.name.split('.').pop()] : undefined);
      },
    };
  }

  if (field.type === 'boolean') {
    const input = h('input', { type: 'checkbox', id, name: field.name, 'aria-describedby': described });
    const el = h('div', { class: 'field check' }, input, h('label', { for: id }, labelText), hint);
    return {
      el, field, kind: 'boolean', input,
      // Unchecked is left out (the ruleset's default), so that "default: on" options keep it.
      read: () => (input.checked ? true : undefined),
      write: (v) => { input.checked = v === true; },
    };
  }

  let input;
  let kind = field.type;
  if (field.type === 'string') {
    kind = stringKind(field, nested);
    if (kind === 'actor') {
      input = h('select', { id, name: field.name, 'aria-describedby': described, 'aria-required': field.required ? 'true' : undefined, class: 'unit-select' });
    } else {
      const attrs = { type: 'text', id, name: field.name, 'aria-describedby': described, 'aria-required': field.required ? 'true' : undefined, autocomplete: 'off', spellcheck: 'false' };
      if (kind === 'unit') attrs.list = ctx.unitListId;
      if (kind === 'hex') {
        attrs.list = ctx.hexListId;
        attrs.placeholder = 'CCRR, e.g. 1305';
        attrs.inputmode = 'numeric';
      }
      input = h('input', attrs);
    }
  } else if (field.type === 'integer') {
    // Some integer fields take dice notation when the session rolls them (horse-and-musket hits).
    const notation = /notation/i.test(field.description || '');
    input = h('input', notation
      ? { type: 'text', inputmode: 'numeric', id, name: field.name, 'aria-describedby': described, autocomplete: 'off' }
      : { type: 'number', step: '1', id, name: field.name, 'aria-describedby': described, 'aria-required': field.required ? 'true' : undefined });
  } else {
    input = h('textarea', { id, name: field.name, rows: '2', 'aria-describedby': described, 'aria-required': field.required ? 'true' : undefined, spellcheck: 'false', placeholder: field.type === 'array' ? '[ ... ] JSON, or words separated by spaces' : '{ ... } JSON' });
  }
  const el = h('div', { class: `field ${kind}` }, h('label', { for: id }, labelText), input, hint);

  function read() {
    const raw = input.value.trim();
    if (raw === '') return undefined;
    if (field.type === 'integer') {
      if (/^-?\d+$/.test(raw)) return Number(raw);
      if (input.type === 'text') return raw; // dice notation
      throw new FieldError(field.name, `${field.name}: a whole number is needed`);
    }
    if (field.type === 'string') return raw;
    if (field.type === 'array') return parseArray(raw, field);
    try {
      return JSON.parse(raw);
    } catch {
      throw new FieldError(field.name, `${field.name}: not valid JSON`);
    }
  }
  function write(v) {
    if (v === undefined || v === null) input.value = '';
    else if (field.type === 'object' || field.type === 'array') input.value = JSON.stringify(v);
    else {
      if (kind === 'actor' && ![...input.options].some((o) => o.value === String(v))) input.append(h('option', { value: String(v) }, String(v)));
      input.value = String(v);
    }
  }
  return { el, field, kind, input, read, write };
}

function flatten(controls) {
  return controls.flatMap((c) => (c.subs ? [c, ...flatten(c.subs)] : [c]));
}

/**
 * The forms panel.
 *   schema       GET /v1/rulesets/{rs}
 *   ctx          {units(), role, manualDice(), unitListId, hexListId}
 *   examples     {type: [{label, body}]} from the example scenarios of the ruleset
 *   onOdds(body), onResolve(body, dice): promises of the API answers
 */
export function actionForms({ schema, ctx, examples, onOdds, onResolve }) {
  const forms = [];
  let current = null;

  for (const [i, action] of (schema.actions || []).entries()) {
    const fields = action.fields || [];
    const top = fields.filter((f) => !f.name.includes('.') && !f.name.includes('['));
    const controls = top.map((f) => control(f, ctx, fields, false));
    const arrayHints = top.filter((f) => f.type === 'array' && fields.some((x) => x.name.startsWith(`${f.name}[].`)));
    const diceId = newId('dice');
    const diceInput = h('input', { type: 'text', id: diceId, name: 'dice', inputmode: 'numeric', autocomplete: 'off', 'aria-describedby': `${diceId}-hint` });
    const diceField = h('div', { class: 'field dice' },
      h('label', { for: diceId }, 'dice (manual mode)'), diceInput,
      h('span', { class: 'hint', id: `${diceId}-hint` }, 'The values rolled at the table, in the order the rules consume them, e.g. 4 1 5 2. Odds ignore them.'));
    const extraId = newId('extra');
    const extra = h('textarea', { id: extraId, name: 'extra', rows: '2', spellcheck: 'false', placeholder: '{"field": value}', 'aria-describedby': `${extraId}-hint` });
    const outcome = h('div', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
    const oddsBtn = h('button', { type: 'button', class: 'odds-button' }, 'Odds');
    const resolveBtn = h('button', { type: 'submit', class: 'resolve-button primary' }, 'Resolve');

    const exList = (examples && examples[action.type]) || [];
    let exampleRow = null;
    if (exList.length) {
      const exId = newId('ex');
      const sel = h('select', { id: exId }, exList.map((e, k) => h('option', { value: String(k) }, e.label)));
      const use = h('button', { type: 'button' }, 'Fill in');
      exampleRow = h('div', { class: 'field example' }, h('label', { for: exId }, 'Example from a scenario'), h('div', { class: 'row' }, sel, use));
      use.addEventListener('click', () => fillFrom(exList[Number(sel.value)].body));
    }

    const form = h('form', { class: 'action-form', novalidate: true, dataset: { action: action.type } },
      exampleRow,
      controls.map((c) => c.el),
      arrayHints.map((f) => h('p', { class: 'hint' }, `${f.name}: each entry has ${fields.filter((x) => x.name.startsWith(`${f.name}[].`) && !x.name.slice(f.name.length + 3).includes('.')).map((x) => x.name.slice(f.name.length + 3)).join(', ')}`)),
      diceField,
      h('details', { class: 'extra' }, h('summary', null, 'More fields as JSON'),
        h('div', { class: 'field' }, h('label', { for: extraId }, 'extra fields (JSON object)'), extra,
          h('span', { class: 'hint', id: `${extraId}-hint` }, 'Merged into the request as is: for fields the form does not show, or a false value for a boolean.'))),
      h('div', { class: 'buttons' }, oddsBtn, resolveBtn),
      outcome);

    // The first form opens by itself on a wide screen; on a phone every form starts folded, so
    // that the board, the list of actions and the log follow each other closely.
    const narrow = window.matchMedia && window.matchMedia('(max-width: 700px)').matches;
    const details = h('details', { class: 'action', dataset: { action: action.type }, open: i === 0 && !narrow },
      h('summary', null, action.title || action.type, ' ', h('code', null, action.type)), form);

    function fillFrom(body) {
      const rest = { ...body };
      delete rest.type;
      for (const c of controls) {
        c.write(rest[c.field.name]);
        delete rest[c.field.name];
      }
      diceInput.value = Array.isArray(rest.dice) ? rest.dice.join(' ') : '';
      delete rest.dice;
      extra.value = Object.keys(rest).length ? JSON.stringify(rest) : '';
    }

    function build() {
      for (const c of flatten(controls)) if (c.input) c.input.removeAttribute('aria-invalid');
      const body = { type: action.type };
      for (const c of controls) {
        try {
          const v = c.read();
          if (v !== undefined) body[c.field.name] = v;
        } catch (err) {
          const bad = flatten(controls).find((x) => x.field.name === err.field);
          if (bad && bad.input) {
            bad.input.setAttribute('aria-invalid', 'true');
            bad.input.focus();
          }
          throw err;
        }
      }
      if (extra.value.trim()) {
        let more;
        try {
          more = JSON.parse(extra.value);
        } catch {
          more = null;
        }
        if (!more || typeof more !== 'object' || Array.isArray(more)) throw new FieldError('extra', 'More fields: a JSON object is needed, e.g. {"kludge": false}');
        Object.assign(body, more);
        body.type = action.type;
      }
      return body;
    }

    function readDice() {
      const raw = diceInput.value.trim();
      if (!ctx.manualDice() || raw === '') return undefined;
      const vals = raw.split(/[\s,]+/).filter(Boolean);
      if (!vals.every((v) => /^\d+$/.test(v))) throw new FieldError('dice', 'dice: whole numbers separated by spaces, e.g. 4 1 5');
      return vals.map(Number);
    }

    async function run(label, job, render) {
      let body;
      let dice;
      try {
        body = build();
        dice = readDice();
      } catch (err) {
        outcome.replaceChildren(renderError(err));
        return;
      }
      oddsBtn.disabled = true;
      resolveBtn.disabled = true;
      outcome.setAttribute('aria-busy', 'true');
      outcome.replaceChildren(h('p', { class: 'pending' }, label));
      try {
        const answer = await job(body, dice);
        outcome.replaceChildren(render(answer));
      } catch (err) {
        outcome.replaceChildren(renderError(err));
      } finally {
        oddsBtn.disabled = false;
        resolveBtn.disabled = false;
        outcome.removeAttribute('aria-busy');
      }
    }

    oddsBtn.addEventListener('click', () => run('Working out the odds…', (b) => onOdds(b), renderOdds));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      run('Resolving…', (b, d) => onResolve(b, d), renderResolved);
    });
    // One form open at a time (an accordion): the open one is where board clicks go.
    details.addEventListener('toggle', () => {
      if (details.open) {
        current = entry;
        for (const f of forms) if (f !== entry && f.details.open) f.details.open = false;
      } else if (current === entry) current = null;
    });
    form.addEventListener('focusin', () => {
      current = entry;
    });

    const entry = { type: action.type, details, form, controls, diceField, fillFrom };
    forms.push(entry);
  }
  current = forms[0] || null;

  const status = h('p', { class: 'pick-status visually-hidden', role: 'status', 'aria-live': 'polite' });
  const element = h('div', { class: 'forms' }, forms.map((f) => f.details), status);

  /** Unit pickers and the dice field follow the state (units come and go, sides see theirs). */
  function refresh() {
    const units = ctx.units();
    const manual = ctx.manualDice();
    for (const f of forms) {
      f.diceField.hidden = !manual;
      for (const c of flatten(f.controls)) {
        if (c.kind !== 'actor') continue;
        const sel = c.input;
        const keep = sel.value;
        const own = units.filter((u) => !ctx.role || ctx.role === 'referee' || u.side === ctx.role);
        sel.replaceChildren(h('option', { value: '' }, c.field.required ? 'Choose a unit' : '(none)'), ...
          own.map((u) => h('option', { value: u.id }, `${u.id}${u.name ? ` — ${u.name}` : ''}${u.side ? ` (${u.side})` : ''}`)));
        if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
      }
    }
  }

  /** A click on the board: fill the open form's first fitting field. */
  function pick(p) {
    const f = current;
    if (!f) return;
    f.details.open = true;
    const all = flatten(f.controls);
    const empty = (c) => c.input && c.input.value.trim() === '';
    let target = null;
    let value = null;
    if (p.kind === 'unit') {
      // In order: the acting unit if none yet; an empty unit field (a target); for a form that
      // takes a hex (an assault), an enemy's hex; a friend joins the attackers; else it becomes
      // the acting unit.
      const actorField = all.find((c) => c.kind === 'actor');
      // The acting-unit picker offers only the units this role may act with.
      const actor = actorField && [...actorField.input.options].some((o) => o.value === p.id) ? actorField : null;
      const actorUnit = actorField ? ctx.units().find((u) => u.id === actorField.input.value) : null;
      const friend = actorUnit ? actorUnit.side === p.side : Boolean(actor);
      const unitField = all.find((c) => c.kind === 'unit' && empty(c));
      const hexField = all.find((c) => c.kind === 'hex' && empty(c));
      const list = all.find((c) => c.field.name === 'attackers' && c.field.type === 'array');
      if (actor && empty(actor)) target = actor;
      else if (unitField) target = unitField;
      else if (hexField && p.hex && !friend) {
        hexField.write(p.hex);
        status.textContent = `${p.hex} put in ${hexField.field.name}`;
        return;
      } else if (list && friend && actor && actor.input.value !== p.id) {
        let cur = [];
        try {
          cur = list.input.value.trim() ? parseArray(list.input.value, list.field) : [];
        } catch {
          cur = [];
        }
        if (!Array.isArray(cur)) cur = [];
        if (!cur.includes(p.id)) cur.push(p.id);
        list.write(cur);
        status.textContent = `${p.id} added to attackers`;
        return;
      } else if (actor) target = actor;
      value = p.id;
    } else if (p.kind === 'hex') {
      const hexField = all.find((c) => c.kind === 'hex' && empty(c));
      const path = all.find((c) => c.field.name === 'path' && c.field.type === 'array');
      if (hexField) {
        target = hexField;
        value = p.hex;
      } else if (path) {
        let cur = [];
        try {
          cur = path.input.value.trim() ? parseArray(path.input.value, path.field) : [];
        } catch {
          cur = [];
        }
        if (!Array.isArray(cur)) cur = [];
        cur.push(p.hex);
        path.write(cur);
        status.textContent = `${p.hex} added to path`;
        return;
      }
    } else if (p.kind === 'point') {
      target = all.find((c) => c.field.name === 'to' && c.field.type === 'array') || null;
      value = p.at;
    }
    if (!target) return;
    target.write(value);
    status.textContent = `${compact(value)} put in ${target.field.name}`;
  }

  refresh();
  return { element, refresh, pick, forms };
}
