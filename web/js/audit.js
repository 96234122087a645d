// The audit panel: what a player keeps to hold the umpire honest (the chain head, the dice
// commitment), the daemon's own check of the chain and the dice (verify, against the head this
// page holds, so a log cut short or rewritten is caught; it says how many dice it could check
// and how many wait for a reveal), the players' own randomness mixed into the dice, the reveal
// of the dice seed (any token of a server-dice session), and the campaign log for offline
// checks (umpire-verify) and for the players' diary.

import { h, fill } from './dom.js';
import { api, download } from './api.js';
import { renderError } from './results.js';
import { diceText, roleName, randomText, validEntropy } from './dice.js';

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export function auditPanel({ sessionId, token }) {
  const el = {
    version: h('dd', null, ''),
    head: h('dd', null, h('code', { class: 'hash' }, '')),
    mode: h('dd', null, ''),
    commitment: h('dd', null, h('code', { class: 'hash' }, '')),
    nonce: h('dd', null, ''),
  };
  const facts = h('dl', { class: 'audit-facts' },
    h('dt', null, 'Version'), el.version,
    h('dt', null, 'Chain head'), el.head,
    h('dt', null, 'Dice mode'), el.mode,
    h('dt', null, 'Dice commitment'), el.commitment,
    h('dt', null, 'Next nonce'), el.nonce);

  const verifyOut = h('div', { class: 'outcome verify-result', role: 'status', 'aria-live': 'polite' });
  const verifyBtn = h('button', { type: 'button', class: 'verify-button' }, 'Verify');
  const revealOut = h('div', { class: 'outcome reveal-result', role: 'status', 'aria-live': 'polite' });
  const revealBtn = h('button', { type: 'button', class: 'reveal-button' }, 'Reveal dice seed');
  const revealBox = h('div', { class: 'reveal', hidden: true },
    h('h3', null, 'Reveal the dice seed'),
    h('p', { class: 'hint' }, 'Publishes the secret seed the dice so far were rolled with, so that anyone can recompute them; the server commits to a fresh seed for later dice, and the players\' randomness starts afresh. Any player may ask.'),
    revealBtn, revealOut);

  // The players' own randomness (POST /v1/sessions/{id}/entropy).
  const entropyInput = h('input', {
    type: 'text', id: 'entropy-seed', name: 'seed', maxlength: '64', autocomplete: 'off', spellcheck: 'false',
    'aria-describedby': 'entropy-seed-hint', value: randomText(),
  });
  const entropyBtn = h('button', { type: 'submit', class: 'entropy-button' }, 'Add my randomness');
  const entropyOut = h('div', { class: 'outcome entropy-result', role: 'status', 'aria-live': 'polite' });
  const inForce = h('div', { class: 'entropy-in-force' });
  const entropyHint = h('p', { class: 'hint' }, '');
  const entropyForm = h('form', { class: 'entropy-form' },
    h('div', { class: 'field' },
      h('label', { for: 'entropy-seed' }, 'Your randomness'),
      entropyInput,
      h('span', { class: 'hint', id: 'entropy-seed-hint' }, '1 to 64 letters, digits, spaces or punctuation (plain ASCII). Keep the random text or type your own.')),
    h('div', { class: 'buttons' }, entropyBtn));
  const entropyBox = h('div', { class: 'entropy', hidden: true },
    h('h3', null, 'Add your own randomness'),
    entropyHint, inForce, entropyForm, entropyOut);
  const exportOut = h('div', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
  const formats = [['markdown', 'Markdown diary', 'md'], ['html', 'HTML page', 'html'], ['jsonl', 'JSONL (for umpire-verify)', 'jsonl']];
  const exportBtns = formats.map(([fmt, label, ext]) => {
    const b = h('button', { type: 'button', class: 'export-button', dataset: { format: fmt } }, label);
    b.addEventListener('click', async () => {
      b.disabled = true;
      try {
        const blob = await download(`/v1/sessions/${encodeURIComponent(sessionId)}/log?format=${fmt}`, token, `umpire-${sessionId.slice(0, 8)}.${ext}`);
        fill(exportOut, h('p', null, `Downloaded the ${label} (${blob.size} bytes).`));
      } catch (err) {
        fill(exportOut, renderError(err));
      } finally {
        b.disabled = false;
      }
    });
    return b;
  });

  entropyInput.addEventListener('input', () => entropyInput.removeAttribute('aria-invalid'));
  entropyForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const seed = entropyInput.value;
    if (!validEntropy(seed)) {
      entropyInput.setAttribute('aria-invalid', 'true');
      fill(entropyOut, h('div', { class: 'error' }, h('p', { class: 'error-message' }, h('strong', null, 'Error: '), 'Use 1 to 64 plain ASCII characters (letters, digits, spaces, punctuation).')));
      entropyInput.focus();
      return;
    }
    entropyBtn.disabled = true;
    fill(entropyOut, h('p', { class: 'pending' }, 'Sending…'));
    try {
      const r = await api('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/entropy`, { token, body: { seed } });
      if (r.entropy) showInForce(r.entropy.in_force);
      fill(entropyOut, h('p', { class: 'notice' }, 'Added: your randomness is mixed into every die from the next one.'));
      entropyInput.value = randomText();
    } catch (err) {
      if (err.code === 'entropy_pending') fill(entropyOut, h('p', { class: 'notice' }, 'Your randomness is already in force for the next die. You can change it after a die is rolled.'));
      else if (err.code === 'not_applicable') fill(entropyOut, h('p', { class: 'notice' }, 'These dice have no seed to mix randomness with.'));
      else fill(entropyOut, renderError(err));
    } finally {
      entropyBtn.disabled = false;
    }
  });

  let mode = '';
  function showInForce(contributions) {
    const entries = Object.entries(contributions && typeof contributions === 'object' ? contributions : {});
    if (!entries.length) {
      fill(inForce, h('p', { class: 'facts' }, mode === 'seeded' ? 'None in force: the dice come from the seed alone.' : 'None in force: the dice come from the server\'s seed alone.'));
      return;
    }
    fill(inForce,
      h('p', { class: 'facts' }, `In force (${plural(entries.length, 'contribution', 'contributions')}), mixed into every die until the next reveal:`),
      h('ul', { class: 'entropy-list' }, entries.map(([role, seed]) => h('li', { dataset: { role } }, h('span', { class: 'entropy-role' }, roleName(role)), ' ', h('code', null, String(seed))))));
  }

  let head = '';
  verifyBtn.addEventListener('click', async () => {
    verifyBtn.disabled = true;
    fill(verifyOut, h('p', { class: 'pending' }, 'Verifying the whole chain…'));
    try {
      const q = head ? `?head=${encodeURIComponent(head)}` : '';
      const r = await api('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/verify${q}`, { token });
      const notes = Array.isArray(r.notes) ? r.notes.filter((n) => typeof n === 'string' && n) : [];
      const headChecked = typeof r.head_checked === 'boolean' ? r.head_checked : Boolean(head);
      fill(verifyOut, h('div', { class: r.ok ? 'verify-ok' : 'verify-bad' },
        h('p', { class: 'verdict' }, h('strong', null, r.ok ? 'Verified: the log is intact.' : `NOT verified: event ${r.first_bad_seq} cannot be trusted.`)),
        r.ok ? null : h('p', null, `Reason: ${r.reason}`),
        h('ul', null,
          h('li', null, `${plural(r.events, 'event', 'events')}, hash chain recomputed${headChecked ? ' and checked against the head this page holds' : ''}`),
          h('li', { class: 'dice-checked' }, `${plural(r.dice_checked, 'die', 'dice')} recomputed from known seeds`),
          typeof r.dice_unchecked === 'number' ? h('li', { class: 'dice-unchecked' }, `${plural(r.dice_unchecked, 'die', 'dice')} not yet checkable: ${r.dice_unchecked === 1 ? 'its' : 'their'} seed is not revealed yet`) : null,
          h('li', null, `${plural(r.actions_readjudicated, 'action', 'actions')} re-adjudicated`),
          h('li', null, 'head ', h('code', { class: 'hash' }, r.head || ''))),
        notes.length ? h('div', { class: 'verify-notes' }, notes.map((n) => h('p', { class: 'note' }, n))) : null));
    } catch (err) {
      fill(verifyOut, renderError(err));
    } finally {
      verifyBtn.disabled = false;
    }
  });

  revealBtn.addEventListener('click', async () => {
    revealBtn.disabled = true;
    fill(revealOut, h('p', { class: 'pending' }, 'Revealing…'));
    try {
      const r = await api('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/reveal`, { token, body: {} });
      fill(revealOut, h('div', null,
        h('p', null, `Seed for nonces up to ${r.revealed.last_nonce}: `, h('code', { class: 'hash' }, r.revealed.seed)),
        h('p', null, 'New commitment: ', h('code', { class: 'hash' }, r.dice.commitment))));
      showInForce({}); // a reveal ends every contribution
    } catch (err) {
      if (err.code === 'nothing_to_reveal') fill(revealOut, h('p', { class: 'notice' }, 'No die has been rolled since the last reveal: there is nothing to reveal yet.'));
      else fill(revealOut, renderError(err));
    } finally {
      revealBtn.disabled = false;
    }
  });

  const element = h('div', { class: 'audit' },
    facts,
    h('div', { class: 'buttons' }, verifyBtn), verifyOut,
    entropyBox,
    revealBox,
    h('h3', null, 'Export the campaign log'),
    h('div', { class: 'buttons' }, exportBtns), exportOut);

  return {
    element,
    /**
     * info: {version, head, dice: {mode, manual_by, commitment, next_nonce, entropy: {in_force,
     * digest}}} as the page knows them now.
     */
    update(info) {
      const dice = info.dice || {};
      head = info.head || head;
      mode = dice.mode || '';
      el.version.textContent = String(info.version ?? '');
      el.head.firstChild.textContent = info.head || '';
      el.mode.textContent = dice.mode ? diceText(dice) : '';
      el.commitment.firstChild.textContent = dice.commitment || '(none: manual dice)';
      el.nonce.textContent = dice.next_nonce !== undefined ? String(dice.next_nonce) : '';
      revealBox.hidden = !(token && mode === 'server');
      entropyBox.hidden = !(token && (mode === 'server' || mode === 'seeded'));
      entropyHint.textContent = mode === 'seeded'
        ? 'Your text is mixed into every die from the next one. The seed of this session is public, so anyone can still compute a die once the contributions are in the log; you may change yours once per die.'
        : 'Your text is mixed into every die from the next one. The server committed to its seed before anyone chose, so it cannot pick dice to suit you, and nobody can foresee them. You may change yours once per die.';
      showInForce(dice.entropy && dice.entropy.in_force);
    },
  };
}
