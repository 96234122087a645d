// Two sides play the generic-duel scenario from two browsers: the session is created from the
// start page, each side opens its own link, sees the odds, resolves a roll, and sees the other
// side's roll arrive live in its log; then the chain is verified from the page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, actionForm,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

test('create from a scenario, play as two sides live, odds, errors, verify', async () => {
  const home = await newPage(shared.browser);
  await home.goto(`${shared.daemon.base}/`);
  // The scenario list comes from GET /v1/scenarios.
  await home.locator('#scenario-select option[value="generic-duel"]').waitFor({ state: 'attached' });
  const ids = await home.locator('#scenario-select option').evaluateAll((os) => os.map((o) => o.value));
  const listed = (await (await fetch(`${shared.daemon.base}/v1/scenarios`)).json()).scenarios.map((s) => s.id);
  assert.deepEqual([...ids].sort(), [...listed].sort());

  await home.selectOption('#scenario-select', 'generic-duel');
  await home.getByRole('button', { name: 'Create from scenario' }).click();
  await home.locator('.session-link').first().waitFor();
  await screenshot(home, 'play-01-created');

  const rows = await home.locator('.link-row').evaluateAll((lis) => lis.map((li) => ({
    label: li.querySelector('.link-label').textContent, href: li.querySelector('a').href,
  })));
  assert.deepEqual(rows.map((r) => r.label), ['Referee', 'Side red', 'Side blue', 'Viewers']);
  for (const r of rows) {
    const u = new URL(r.href);
    assert.equal(u.search, '', `no query string in ${r.href}`);
    const frag = new URLSearchParams(u.hash.slice(1));
    assert.match(frag.get('session'), /^[0-9a-f]{32}$/);
    if (r.label === 'Viewers') assert.equal(frag.get('token'), null);
    else assert.match(frag.get('token'), /^[0-9a-f]{64}$/, `token in the fragment of ${r.label}`);
  }
  const link = Object.fromEntries(rows.map((r) => [r.label, r.href]));

  // Two players, two browser contexts (separate storage, as on two machines).
  const red = await newPage(shared.browser);
  const blue = await newPage(shared.browser);
  await openSession(red, link['Side red']);
  await openSession(blue, link['Side blue']);
  await assert.doesNotReject(red.getByRole('heading', { level: 1, name: 'A duel at the ford' }).waitFor());

  // A side's unit picker offers its own units only.
  const redForm = await actionForm(red, 'roll');
  const redUnits = await redForm.locator('select[name="unit"] option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.deepEqual(redUnits, ['red-knight']);

  // Odds before committing: 2d6+1 has 11 totals, 8 comes up 6 times in 36.
  await redForm.getByLabel('expr (required)').fill('2d6+1');
  await redForm.locator('select[name="unit"]').selectOption('red-knight');
  await redForm.getByRole('button', { name: 'Odds' }).click();
  const odds = redForm.locator('.outcome table.odds');
  await odds.waitFor();
  assert.equal(await odds.locator('tbody tr').count(), 11);
  const row8 = odds.locator('tbody tr', { hasText: 'total 8' });
  assert.match(await row8.textContent(), /16\.7%\s*6\/36/);
  await screenshot(red, 'play-02-odds');

  // Resolve: the answer's summary is shown, and blue sees the same roll arrive in its log.
  await redForm.getByRole('button', { name: 'Resolve' }).click();
  const summary = redForm.locator('.outcome .summary');
  await summary.waitFor();
  const redSummary = await summary.textContent();
  assert.match(redSummary, /^red rolled 2d6\+1 = \d+ \(2d6: \[\d,\d\] = \d+; \+1\)$/);
  const inBlue = blue.locator('.log-entry[data-seq="2"]');
  await inBlue.waitFor();
  assert.equal(await inBlue.locator('.log-summary').textContent(), redSummary);
  assert.match(await inBlue.locator('.dice').textContent(), /2d6\s*\[\d, \d\]\s*=\s*\d+\s*nonce 1/);
  assert.match(await inBlue.locator('.log-head').textContent(), /side:red/);
  await screenshot(blue, 'play-03-blue-sees-red');

  // Blue answers; red sees it live, newest first.
  const blueForm = await actionForm(blue, 'roll');
  await blueForm.getByLabel('expr (required)').fill('1d20');
  await blueForm.getByLabel('purpose').fill('parry');
  await blueForm.locator('select[name="unit"]').selectOption('blue-knight');
  await blueForm.getByRole('button', { name: 'Resolve' }).click();
  await blueForm.locator('.outcome .summary').waitFor();
  const blueSummary = await blueForm.locator('.outcome .summary').textContent();
  assert.match(blueSummary, /^blue rolled parry 1d20 = \d+/);
  await red.locator('.log-entry[data-seq="3"]').waitFor();
  assert.equal(await red.locator('.log-list > li').first().getAttribute('data-seq'), '3');
  assert.equal(await red.locator('.log-entry[data-seq="3"] .log-summary').textContent(), blueSummary);
  // The audit panel follows the chain head live.
  const head = (await (await fetch(`${shared.daemon.base}/v1/sessions/${new URLSearchParams(new URL(link['Side red']).hash.slice(1)).get('session')}`)).json()).session.head;
  await red.locator('.audit-facts dd code', { hasText: head }).waitFor();

  // A rules error is shown with its message and code, and writes nothing.
  await blueForm.getByLabel('expr (required)').fill('2d');
  await blueForm.getByRole('button', { name: 'Resolve' }).click();
  await blueForm.locator('.outcome .error').waitFor();
  assert.match(await blueForm.locator('.outcome .error').textContent(), /invalid_notation/);

  // Verify from the page, against the head the page holds.
  await red.getByRole('button', { name: 'Verify', exact: true }).click();
  const verdict = red.locator('.verify-result');
  await verdict.locator('.verify-ok').waitFor();
  const text = await verdict.textContent();
  assert.match(text, /Verified/);
  assert.match(text, /3 events/);
  assert.match(text, /2 actions re-adjudicated/);
  // Server dice (the default from a scenario): the 2d6 and the 1d20 wait for a reveal.
  assert.match(text, /0 dice recomputed/);
  assert.match(text, /3 dice not yet checkable/);
  await screenshot(red, 'play-04-verified');

  // A viewer of the public session, with no token: the board and the log, no forms.
  const viewer = await newPage(shared.browser);
  await openSession(viewer, link.Viewers);
  await viewer.locator('.log-entry[data-seq="3"]').waitFor();
  assert.equal(await viewer.locator('form.action-form').count(), 0);
  assert.match(await viewer.locator('#act').textContent(), /watching/);
  assert.equal(await viewer.locator('table.units tbody tr').count(), 2);

  for (const p of [home, red, viewer]) assertNoPageErrors(p);
  // Chromium logs the 422 of the bad notation as a failed resource load; nothing else is allowed.
  assertNoPageErrors(blue, [/Failed to load resource: the server responded with a status of 422/]);
});
