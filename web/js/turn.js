// The sequence of play as the page shows it: a banner saying whose turn and phase it is, and
// which actions the viewer may take now. It mirrors rules/common/sequence.c (seq_check and
// ends_phase) on the state's `turn` {number, player, phase, acting, order, done?} and the
// ruleset's `sequence` {phases: [{name, title, steps: [{action, who}], once?, ends?, sealable?}]}; the
// server still decides (409 not_your_turn, 422 wrong_phase): this only keeps out of the way
// what would be refused.

import { h, fill } from './dom.js';

/** The phase now, or null when the state or the ruleset has no sequence of play. */
export function phaseNow(sequence, turn) {
  if (!sequence || !Array.isArray(sequence.phases) || !turn || typeof turn !== 'object') return null;
  return sequence.phases.find((p) => p.name === turn.phase) || null;
}

function includes(who, turn, side) {
  if (who === 'player') return side === turn.player;
  if (who === 'opponent') return side !== turn.player;
  return true; // "every side"
}

const done = (turn, side) => Array.isArray(turn.done) && turn.done.includes(side);

/** Whether the side may end the phase now (as ends_phase in sequence.c). */
export function mayEnd(phase, turn, side) {
  if (!phase || !side) return false;
  if (phase.ends === 'each side') return (turn.acting || []).includes(side) && !done(turn, side);
  const onlyOpponents = (phase.steps || []).every((s) => s.who === 'opponent') && (phase.steps || []).length > 0;
  return onlyOpponents ? side !== turn.player : side === turn.player;
}

/** Whether `action` is legal now for the side (null side: the referee with no unit). */
export function legalNow(phase, turn, action, side) {
  if (!phase) return true;
  if (action === 'end_phase') return side ? mayEnd(phase, turn, side) : true;
  if (side && done(turn, side)) return false;
  return (phase.steps || []).some((s) => s.action === action && (!side || includes(s.who, turn, side)));
}

const list = (xs) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

// Whether the side has a step of its own in the phase (not only one every side has, such as a
// morale check any side may take at any time): that is whose turn the phase is. A phase that
// comes once a turn for every side (Corbach's marching movement, a magic-realm round's plays) is
// the turn of every acting side that has not ended its part.
function leads(phase, turn, side) {
  if (done(turn, side) || !(turn.acting || []).includes(side)) return false;
  if (phase.once) return true;
  return (phase.steps || []).some((s) => s.who !== 'every side' && includes(s.who, turn, side));
}

/** Whether the phase now is played by sealed orders (docs/api.md, "Sealed orders"). */
export function sealedNow(sequence, turn) {
  const phase = phaseNow(sequence, turn);
  return !!(phase && phase.sealable && turn && turn.sealed === true);
}

/** The banner's words for a role ("referee", a side, or "viewer"). */
export function bannerText(sequence, turn, role) {
  const phase = phaseNow(sequence, turn);
  if (!phase) return null;
  const title = phase.title || phase.name;
  const acting = Array.isArray(turn.acting) ? turn.acting : [];
  const leaders = acting.filter((x) => leads(phase, turn, x));
  if (sealedNow(sequence, turn)) {
    // Sealed orders: who has sealed is public, what they sealed is not.
    const sealed = Array.isArray(turn.done) ? turn.done : [];
    const waiting = acting.length ? `waiting for the ${list(acting)}` : 'every side has sealed';
    if (role === 'referee' || role === '') {
      return `Turn ${turn.number}: ${title}, sealed orders. ${sealed.length ? `Sealed: ${list(sealed)}; ` : ''}${waiting}.`;
    }
    if (sealed.includes(role)) return `Sealed, ${waiting} (turn ${turn.number}: ${title}). You may change your orders until every side has sealed.`;
    if (acting.includes(role)) return `Your turn: ${role}, ${title}. Your orders stay sealed until every side has sealed.`;
    return `Turn ${turn.number}: ${title}, sealed orders; ${waiting}.`;
  }
  if (role === 'referee' || role === '') return `Turn ${turn.number}, ${turn.player}: ${title}`;
  if (leads(phase, turn, role)) return `Your turn: ${role}, ${title}`;
  const waiting = `Waiting for the ${list(leaders.length ? leaders : acting) || turn.player}`;
  const own = acting.includes(role) && !done(turn, role) ? [...new Set((phase.steps || []).filter((s) => includes(s.who, turn, role)).map((s) => s.action))] : [];
  return `${waiting} (turn ${turn.number}, ${turn.player}: ${title})${own.length ? `. You may ${list(own).replace(/_/g, ' ')} meanwhile.` : ''}`;
}

// ---- a pending claim (rules/common/claims.h) ------------------------------------------------
// A side's word the sources leave to the table (hits without a setup table, a declared hit)
// waits for the side it acts against or the referee; nothing else happens meanwhile.

const awaited = (claim) => (claim.awaiting ? `${claim.awaiting} or the referee` : 'the referee');

/** Who may do what with the claim: 'answer' (accept or dispute), 'withdraw' (its claimant), or
 * null (another side, a viewer). */
export function claimRole(claim, role) {
  if (!claim || typeof claim !== 'object') return null;
  if (role === 'referee' || role === '' || (role && role === claim.awaiting)) return 'answer';
  if (role && role === claim.by) return 'withdraw';
  return null;
}

/** The banner's words while a claim is pending. */
export function claimText(claim, role) {
  const what = `${claim.text}.`;
  const mine = claimRole(claim, role);
  if (mine === 'answer') return `${claim.by} claims: ${what} Accept it, or dispute it?`;
  if (mine === 'withdraw') return `Your claim: ${what} Waiting for ${awaited(claim)} to accept or dispute it.`;
  return `${claim.by} claims: ${what} Waiting for ${awaited(claim)} to accept or dispute it.`;
}

/**
 * Draws a pending claim into the banner `el`: its words, and for who may answer it Accept and
 * Dispute (with a reason), for its claimant Withdraw. onAnswer(type, fields, dice) posts the
 * answer; `manual` shows a field for the dice the accepted action rolls.
 */
export function drawClaim(el, { claim, role, manual, onAnswer }) {
  el.hidden = false;
  const mine = claimRole(claim, role);
  el.dataset.mine = String(mine === 'answer');
  const reason = h('input', { type: 'text', class: 'claim-reason', maxlength: '200', 'aria-label': 'Why (optional)', placeholder: 'why (optional)' });
  const dice = h('input', { type: 'text', class: 'claim-dice', inputmode: 'numeric', 'aria-label': 'Dice rolled at the table', placeholder: 'dice, e.g. 4 1' });
  const send = (type) => () => {
    const fields = { claim: claim.number };
    if (type === 'dispute' && reason.value.trim()) fields.reason = reason.value.trim();
    const vals = dice.value.trim() ? dice.value.trim().split(/[\s,]+/).map(Number) : null;
    onAnswer(type, fields, type === 'accept' ? vals : null);
  };
  const buttons = !onAnswer ? [] : mine === 'answer'
    ? [manual ? dice : null,
      h('button', { type: 'button', class: 'claim-accept', onclick: send('accept') }, 'Accept'),
      reason,
      h('button', { type: 'button', class: 'claim-dispute', onclick: send('dispute') }, 'Dispute')]
    : mine === 'withdraw' ? [h('button', { type: 'button', class: 'claim-withdraw', onclick: send('dispute') }, 'Withdraw')] : [];
  fill(el,
    h('p', { class: 'turn-text claim-text' }, claimText(claim, role)),
    ...buttons,
    h('span', { class: 'turn-error', role: 'status' }));
}

/**
 * Draws the banner into `el`; onEnd() is called by its End phase button (shown to the referee
 * and to a side that may end the phase). Hides the banner when there is no sequence.
 */
export function drawBanner(el, { sequence, turn, role, onEnd, onClose }) {
  const text = bannerText(sequence, turn, role);
  el.hidden = !text;
  if (!text) return fill(el);
  const phase = phaseNow(sequence, turn);
  const referee = role === 'referee' || role === '';
  const sealed = sealedNow(sequence, turn);
  // A sealed phase ends with the last seal, or the referee's close; no one ends it otherwise.
  const canEnd = onEnd && !sealed && (referee || mayEnd(phase, turn, role));
  const canClose = onClose && sealed && referee;
  const mine = !referee && leads(phase, turn, role);
  el.dataset.mine = String(mine);
  fill(el,
    h('p', { class: 'turn-text' }, text),
    canEnd ? h('button', { type: 'button', class: 'end-phase', onclick: onEnd }, 'End phase') : null,
    canClose ? h('button', { type: 'button', class: 'close-orders', onclick: onClose }, 'Close the step and reveal') : null,
    h('span', { class: 'turn-error', role: 'status' }));
}

/**
 * Shows only the action forms legal now. A side sees the legal ones; the referee sees all, those
 * out of sequence marked as an override.
 */
export function applyToForms(forms, { sequence, turn, role, claim }) {
  const phase = phaseNow(sequence, turn);
  const referee = role === 'referee' || role === '';
  for (const f of forms) {
    // A claim is answered from the banner; while one is pending nothing else is legal.
    if (f.type === 'accept' || f.type === 'dispute' || claim) {
      f.details.hidden = true;
      f.details.open = false;
      continue;
    }
    // A sealed phase's own actions go into sealed orders (the combat board), not one by one.
    const sealedOwn = sealedNow(sequence, turn) && (f.type === 'end_phase' || (phase.steps || []).some((st) => st.action === f.type));
    const legal = !sealedOwn && legalNow(phase, turn || {}, f.type, referee ? null : role);
    const override = referee && !!phase && !sealedOwn && !legalNow(phase, turn, f.type, null);
    f.details.hidden = sealedOwn || (!referee && !legal);
    if (f.details.hidden) f.details.open = false;
    f.details.classList.toggle('override', override);
    const sum = f.details.querySelector(':scope > summary');
    let mark = sum && sum.querySelector('.override-mark');
    if (override && sum && !mark) sum.append(h('span', { class: 'override-mark' }, ' (override: out of sequence)'));
    if (!override && mark) mark.remove();
  }
}
