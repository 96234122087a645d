// generic's Sealed choice (docs/rules/generic.md): in a session that seals it, a side types its
// choice (a secret bid, a plan) and seals it (PUT .../orders/choice); nobody reads it until every
// side has sealed, and the side may seal again until then. The referee seals nothing.

import { h, fill } from './dom.js';

/** The board's element, or null when the state is not in a sealed Sealed choice or `role` is
 * not a side of it. onSeal(orders) seals and answers the server's answer (or throws). */
export function choiceBoard({ state, role, onSeal }) {
  const turn = state && state.turn;
  if (!turn || turn.phase !== 'choice' || turn.sealed !== true || state.claim) return null;
  if (role === 'referee' || role === '' || !Array.isArray(turn.order) || !turn.order.includes(role)) return null;
  const sealed = Array.isArray(turn.done) && turn.done.includes(role);
  const input = h('input', { type: 'text', id: 'choice-text', maxlength: '200', autocomplete: 'off' });
  const outcome = h('p', { class: 'combat-outcome', role: 'status' });
  const button = h('button', { type: 'button', class: 'choice-seal' }, sealed ? 'Seal again' : 'Seal my choice');
  button.addEventListener('click', async () => {
    const choice = input.value.trim();
    if (!choice) {
      fill(outcome, 'Type your choice first.');
      outcome.classList.add('error');
      return;
    }
    button.disabled = true;
    fill(outcome);
    try {
      const a = await onSeal([{ type: 'choose', choice }]);
      outcome.classList.remove('error');
      fill(outcome, a && a.revealed ? `Every side has sealed: ${a.summary}` : 'Sealed. Nobody can read your choice until every side has sealed.');
    } catch (err) {
      fill(outcome, err && err.message ? err.message : 'The choice was refused.');
      outcome.classList.add('error');
    } finally {
      button.disabled = false;
    }
  });
  return h('section', { class: 'combat-board sealed', 'aria-labelledby': 'choice-h' },
    h('h3', { id: 'choice-h' }, `Sealed choice: turn ${turn.number}`),
    h('p', { class: 'hint' }, sealed
      ? 'Your choice is sealed. You may change it and seal again until every side has sealed.'
      : 'Type your choice (a bid, a plan) and seal it: every side\'s is revealed together.'),
    h('div', { class: 'field' }, h('label', { for: 'choice-text' }, 'Your choice'), input),
    h('div', { class: 'buttons' }, button), outcome);
}
