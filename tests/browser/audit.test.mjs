// A session created from pasted JSON with server dice: the referee rolls, reveals the seed,
// verifies (the dice are then recomputed), and exports the campaign log as files; a side may
// reveal too; a private session needs a token.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, actionForm,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

const BODY = {
  ruleset: 'generic',
  title: 'Bats at the Crag',
  sides: ['knight', 'monsters'],
  visibility: 'private',
  dice: { mode: 'server' },
  setup: { units: [{ id: 'sir-k', side: 'knight' }, { id: 'bat-1', side: 'monsters' }] },
};

test('pasted JSON, server dice: roll, reveal, verify, export; private needs a token', async () => {
  const page = await newPage(shared.browser);
  await page.goto(`${shared.daemon.base}/`);
  await page.getByText('Or paste session JSON').click();
  // A bad paste is refused by the page with the parser's message...
  await page.getByLabel('Session JSON').fill('{"ruleset": ');
  await page.getByRole('button', { name: 'Create from JSON' }).click();
  await page.locator('#create-result .error').waitFor();
  assert.match(await page.locator('#create-result .error').textContent(), /does not parse/);
  // ...one the server refuses shows the server's message...
  await page.getByLabel('Session JSON').fill(JSON.stringify({ ...BODY, sides: ['knight'] }));
  await page.getByRole('button', { name: 'Create from JSON' }).click();
  await page.locator('#create-result .error', { hasText: 'invalid_setup' }).waitFor();
  // ...and a good one gives the links.
  await page.getByLabel('Session JSON').fill(JSON.stringify(BODY, null, 2));
  await page.getByRole('button', { name: 'Create from JSON' }).click();
  await page.locator('.session-link').first().waitFor();
  const labels = await page.locator('.link-label').allTextContents();
  assert.deepEqual(labels, ['Referee', 'Side knight', 'Side monsters'], 'private: no viewer link');
  const refLink = await page.locator('.link-row', { hasText: 'Referee' }).locator('a').getAttribute('href');
  const sideLink = await page.locator('.link-row', { hasText: 'Side knight' }).locator('a').getAttribute('href');
  const sid = new URLSearchParams(new URL(refLink).hash.slice(1)).get('session');

  // Clicking the link opens the session in this tab (the fragment changes, the page follows).
  await page.locator('.link-row', { hasText: 'Referee' }).locator('a').click();
  await page.locator('#conn[data-state=live]').waitFor();
  assert.match(await page.locator('#session-meta').textContent(), /you are the referee/);
  const commitment = await page.locator('.audit-facts dd', { has: page.locator('code') }).nth(1).textContent();
  assert.match(commitment, /^[0-9a-f]{64}$/);

  const roll = await actionForm(page, 'roll');
  await roll.getByLabel('expr (required)').fill('3d6');
  await roll.getByRole('button', { name: 'Resolve' }).click();
  await roll.locator('.outcome .summary').waitFor();
  await page.locator('.log-entry[data-seq="2"]').waitFor();

  // Reveal: the seed is published, the page shows the next commitment.
  await page.getByRole('button', { name: 'Reveal dice seed' }).click();
  await page.locator('.reveal-result code').first().waitFor();
  const seed = await page.locator('.reveal-result code').first().textContent();
  assert.match(seed, /^[0-9a-f]{64}$/);
  const seedHash = createHash('sha256').update(Buffer.from(seed, 'hex')).digest('hex');
  assert.equal(seedHash, commitment, 'the revealed seed hashes to the commitment shown before');
  await page.locator('.log-entry[data-seq="3"][data-type="dice_seed_revealed"]').waitFor();
  await page.locator('.audit-facts dd code', { hasNotText: commitment }).nth(1).waitFor();

  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await page.locator('.verify-result .verify-ok').waitFor();
  const verdict = await page.locator('.verify-result').textContent();
  assert.match(verdict, /3 events/);
  assert.match(verdict, /3 dice recomputed/, 'the three dice of 3d6, now that the seed is out');
  await screenshot(page, 'audit-01-revealed-verified');

  // Exports: fetched with the token and handed over as files.
  const files = {};
  for (const [fmt, name] of [['markdown', 'Markdown diary'], ['jsonl', 'JSONL (for umpire-verify)']]) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
    assert.equal(dl.suggestedFilename(), `umpire-${sid.slice(0, 8)}.${fmt === 'markdown' ? 'md' : 'jsonl'}`);
    files[fmt] = await readFile(await dl.path(), 'utf8');
  }
  assert.match(files.markdown, /Bats at the Crag/);
  const lines = files.jsonl.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((e) => e.type), ['session_created', 'roll', 'dice_seed_revealed']);
  assertNoPageErrors(page, [/Failed to load resource: the server responded with a status of 422/]); // invalid_setup above

  // A side may reveal too (nothing rolled since the reveal above: a friendly no).
  const side = await newPage(shared.browser);
  await openSession(side, sideLink);
  await side.getByRole('button', { name: 'Reveal dice seed' }).click();
  await side.locator('.reveal-result .notice', { hasText: 'nothing to reveal' }).waitFor();
  assert.equal(await side.getByRole('button', { name: 'Verify', exact: true }).count(), 1);
  assertNoPageErrors(side, [/Failed to load resource: the server responded with a status of 409/]); // nothing_to_reveal

  // Private: without a token the page says so.
  const stranger = await newPage(shared.browser);
  await stranger.goto(`${shared.daemon.base}/`);
  await stranger.getByLabel('Session id').fill(sid);
  await stranger.getByRole('button', { name: 'Open', exact: true }).click();
  await stranger.locator('#session-error .error').waitFor();
  assert.match(await stranger.locator('#session-error').textContent(), /private/);
  assert.doesNotMatch(stranger.url(), /\?/);
  assertNoPageErrors(stranger, [/Failed to load resource: the server responded with a status of 401/]);
});
