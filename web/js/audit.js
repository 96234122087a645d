// The audit panel: what a player keeps to hold the umpire honest (the chain head, the dice
// commitment), the daemon's own check of the chain and the dice (verify, against the head this
// page holds, so a log cut short or rewritten is caught), the referee's reveal of the dice seed,
// and the campaign log for offline checks (umpire-verify) and for the players' diary.

import { h, fill } from './dom.js';
import { api, download } from './api.js';
import { renderError } from './results.js';

export function auditPanel({ sessionId, token, role }) {
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
    h('h3', null, 'Reveal (referee)'),
    h('p', { class: 'hint' }, 'Publishes the secret seed the dice so far were rolled with, so anyone can recompute them; the server commits to a fresh seed for later rolls.'),
    revealBtn, revealOut);
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

  let head = '';
  verifyBtn.addEventListener('click', async () => {
    verifyBtn.disabled = true;
    fill(verifyOut, h('p', { class: 'pending' }, 'Verifying the whole chain…'));
    try {
      const q = head ? `?head=${encodeURIComponent(head)}` : '';
      const r = await api('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/verify${q}`, { token });
      fill(verifyOut, h('div', { class: r.ok ? 'verify-ok' : 'verify-bad' },
        h('p', { class: 'verdict' }, h('strong', null, r.ok ? 'Verified: the log is intact.' : `NOT verified: event ${r.first_bad_seq} cannot be trusted.`)),
        r.ok ? null : h('p', null, `Reason: ${r.reason}`),
        h('ul', null,
          h('li', null, `${r.events} events, hash chain recomputed${head ? ' and checked against the head this page holds' : ''}`),
          h('li', null, `${r.dice_checked} dice recomputed from known seeds (seeded, or revealed)`),
          h('li', null, `${r.actions_readjudicated} actions re-adjudicated`),
          h('li', null, 'head ', h('code', { class: 'hash' }, r.head || '')))));
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
    } catch (err) {
      fill(revealOut, renderError(err));
    } finally {
      revealBtn.disabled = false;
    }
  });

  const element = h('div', { class: 'audit' },
    facts,
    h('div', { class: 'buttons' }, verifyBtn), verifyOut,
    revealBox,
    h('h3', null, 'Export the campaign log'),
    h('div', { class: 'buttons' }, exportBtns), exportOut);

  return {
    element,
    /** info: {version, head, dice: {mode, commitment, next_nonce}} as the page knows them now. */
    update(info) {
      head = info.head || head;
      el.version.textContent = String(info.version ?? '');
      el.head.firstChild.textContent = info.head || '';
      el.mode.textContent = info.dice ? info.dice.mode : '';
      el.commitment.firstChild.textContent = (info.dice && info.dice.commitment) || '(none: manual dice)';
      el.nonce.textContent = info.dice && info.dice.next_nonce !== undefined ? String(info.dice.next_nonce) : '';
      revealBox.hidden = !((role === 'referee' || role === '') && info.dice && info.dice.mode === 'server');
    },
  };
}
