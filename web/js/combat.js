// The magic-realm combat board (issue 23, item 4): in a round's Plays phase a player picks, for
// one of its units, a maneuver of the unit's kit and its box, an attack of its kit, the attack's
// box and a target, from lists (never typing stats), and plays it. A denizen picks a box and a
// target. It posts the ruleset's `play` action; the generic play form stays below it for what
// the board does not offer (a run attempt, change of tactics, horses).
//
// In a session that seals its plays (setup.turn.sealed; docs/api.md, "Sealed orders") the board
// gathers the side's plays in the page instead, one per unit, and seals them together (PUT
// .../orders/plays): nobody reads them until every side has sealed, and the side may change and
// seal them again until then. The referee seals nothing: the board is a side's.

import { h, fill } from './dom.js';

const MANEUVER_BOXES = ['charge', 'dodge', 'duck'];
const ATTACK_BOXES = ['thrust', 'swing', 'smash'];

const alive = (u) => !u.status || u.status === 'alive';

function select(label, name, options, value) {
  const id = `combat-${name}`;
  const sel = h('select', { id, name },
    options.map(([v, text]) => h('option', { value: v, ...(v === value ? { selected: true } : {}) }, text)));
  return { el: h('div', { class: 'field' }, h('label', { for: id }, label), sel), sel };
}

/** The units `role` plays (the referee: every unit in the fight). */
function mine(units, role) {
  const referee = role === 'referee' || role === '';
  return units.filter((u) => alive(u) && (u.kind === 'character' || u.kind === 'denizen') && (referee || u.side === role));
}

/**
 * The board's element, or null when the state is not in a round's Plays phase or `role` has
 * no unit to play. onPlay(body) posts it and answers the action's answer (or throws).
 */
export function combatBoard({ state, role, onPlay, onSeal, pending }) {
  const units = Array.isArray(state && state.units) ? state.units : [];
  const turn = state && state.turn;
  if (!turn || turn.phase !== 'plays' || state.claim) return null;
  const sealed = turn.sealed === true && typeof onSeal === 'function' && pending instanceof Map;
  const hasSealed = Array.isArray(turn.done) && turn.done.includes(role);
  if (sealed && (role === 'referee' || role === '')) return null;
  if (!sealed && role !== 'referee' && role !== '' && hasSealed) return null;
  const own = mine(units, role);
  if (!own.length) return null;
  const played = new Set((Array.isArray(state.plays) ? state.plays : []).map((p) => p.unit));

  const unitPick = select('Your unit', 'unit', own.map((u) => [u.id, `${u.name || u.id} (${u.id})${played.has(u.id) ? ': played' : ''}`]));
  const body = h('div', { class: 'combat-fields' });
  const outcome = h('p', { class: 'combat-outcome', role: 'status' });
  let read = () => null;

  const draw = () => {
    const u = own.find((x) => x.id === unitPick.sel.value) || own[0];
    const enemies = units.filter((x) => alive(x) && x.side !== u.side && (x.kind === 'character' || x.kind === 'denizen'));
    const targets = enemies.map((x) => [x.id, `${x.name || x.id} (${x.id})`]);
    if (u.kind === 'denizen') {
      const box = select('Attack box', 'box', ATTACK_BOXES.map((b) => [b, b]));
      const target = select('Target', 'target', targets);
      fill(body, h('p', { class: 'hint' }, `${u.name || u.id} attacks with its counter (${u.attack ? `${u.attack.harm} harm, time ${u.attack.time}` : 'its attack'}): pick its box and its target.`),
        box.el, target.el);
      read = () => ({ type: 'play', unit: u.id, box: box.sel.value, target: target.sel.value });
      return;
    }
    const maneuvers = (u.maneuvers || []).map((m) => [m.name, m.name]);
    const attacks = (u.attacks || []).map((a) => [a.name, a.name]);
    const man = select('Maneuver', 'maneuver', [['', 'none'], ...maneuvers], maneuvers.length ? maneuvers[0][0] : '');
    const manBox = select('Maneuver box', 'maneuver-box', MANEUVER_BOXES.map((b) => [b, b]));
    const att = select('Attack', 'attack', [['', 'none'], ...attacks], attacks.length ? attacks[0][0] : '');
    const attBox = select('Attack box', 'attack-box', ATTACK_BOXES.map((b) => [b, b]));
    const target = select('Target', 'target', targets);
    fill(body, man.el, manBox.el, att.el, attBox.el, target.el);
    read = () => {
      const play = { type: 'play', unit: u.id, maneuver: man.sel.value ? { name: man.sel.value, box: manBox.sel.value } : null };
      if (att.sel.value) play.attacks = [{ name: att.sel.value, box: attBox.sel.value, target: target.sel.value }];
      return play;
    };
  };
  unitPick.sel.addEventListener('change', draw);
  draw();

  if (sealed) return sealedBoard({ turn, own, unitPick, body, outcome, read: () => read(), onSeal, pending, hasSealed });

  const button = h('button', { type: 'button', class: 'combat-play' }, 'Play');
  button.addEventListener('click', async () => {
    button.disabled = true;
    fill(outcome);
    try {
      const a = await onPlay(read());
      fill(outcome, a && a.summary ? a.summary : 'Played.');
      outcome.classList.remove('error');
    } catch (err) {
      fill(outcome, err && err.message ? err.message : 'The play was refused.');
      outcome.classList.add('error');
    } finally {
      button.disabled = false;
    }
  });
  return h('section', { class: 'combat-board', 'aria-labelledby': 'combat-h' },
    h('h3', { id: 'combat-h' }, `Combat board: round ${turn.number}, Plays`),
    h('p', { class: 'hint' }, 'Pick from your unit\'s kit; the umpire takes the stats from it. Every side plays, then ends its part of the Plays.'),
    unitPick.el, body, h('div', { class: 'buttons' }, button), outcome);
}

const nameOf = (own, id) => {
  const u = own.find((x) => x.id === id);
  return u ? u.name || u.id : id;
};

// The sealed board: plays gathered in `pending` (unit id -> play), listed, then sealed together.
function sealedBoard({ turn, own, unitPick, body, outcome, read, onSeal, pending, hasSealed }) {
  const listEl = h('ul', { class: 'combat-orders' });
  const status = h('p', { class: 'combat-sealed', role: 'status' });
  const drawList = () => {
    const items = [...pending.values()];
    fill(listEl, items.length
      ? items.map((p) => h('li', {}, `${nameOf(own, p.unit)}: ${describe(p, own)}`,
        h('button', { type: 'button', class: 'combat-remove', 'aria-label': `Remove ${nameOf(own, p.unit)}'s play`, onclick: () => { pending.delete(p.unit); drawList(); } }, 'Remove')))
      : [h('li', { class: 'hint' }, 'No plays yet: sealing now plays nothing this round.')]);
  };
  if (hasSealed) fill(status, 'Your orders are sealed. You may change them and seal again until every side has sealed.');
  const add = h('button', { type: 'button', class: 'combat-add' }, 'Add to my orders');
  add.addEventListener('click', () => {
    const play = read();
    if (play) pending.set(play.unit, play);
    fill(outcome);
    drawList();
  });
  const seal = h('button', { type: 'button', class: 'combat-seal' }, hasSealed ? 'Seal again' : 'Seal my orders');
  seal.addEventListener('click', async () => {
    seal.disabled = true;
    add.disabled = true;
    fill(outcome);
    try {
      const a = await onSeal([...pending.values()]);
      outcome.classList.remove('error');
      fill(outcome, a && a.revealed ? `Every side has sealed: ${a.summary}` : 'Sealed. Nobody can read your orders until every side has sealed.');
    } catch (err) {
      fill(outcome, err && err.message ? err.message : 'The orders were refused.');
      outcome.classList.add('error');
    } finally {
      seal.disabled = false;
      add.disabled = false;
    }
  });
  drawList();
  return h('section', { class: 'combat-board sealed', 'aria-labelledby': 'combat-h' },
    h('h3', { id: 'combat-h' }, `Combat board: round ${turn.number}, Plays (sealed orders)`),
    h('p', { class: 'hint' }, 'Pick from your unit\'s kit and add each unit\'s play to your orders, then seal them. The umpire checks them now and reveals every side\'s together.'),
    status, unitPick.el, body, h('div', { class: 'buttons' }, add),
    h('h4', {}, 'Your orders'), listEl, h('div', { class: 'buttons' }, seal), outcome);
}

// A play in words, for the list of orders.
function describe(p, own) {
  if (p.box && !p.maneuver && !p.attacks) return `${p.box} at ${p.target}`;
  const parts = [];
  parts.push(p.maneuver ? `${p.maneuver.name} to ${p.maneuver.box}` : 'no maneuver');
  for (const a of p.attacks || []) parts.push(`${a.name} (${a.box}) at ${nameOf(own, a.target)}`);
  return parts.join('; ');
}
