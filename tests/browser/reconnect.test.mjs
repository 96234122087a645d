// The live log survives the daemon going away: the page says it is reconnecting, and once the
// daemon is back it resumes from the last event it holds (Last-Event-ID) and shows the events
// it missed, each once.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startDaemon, launchBrowser, newPage, screenshot, assertNoPageErrors, openSession,
  createFromScenario, linkOf,
} from './lib/harness.mjs';

let daemon;
let browser;

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

async function roll(base, created, side, expr) {
  const res = await fetch(`${base}/v1/sessions/${created.session.id}/actions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${created.tokens.sides[side]}` },
    body: JSON.stringify({ type: 'roll', unit: `${side}-knight`, expr }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

test('reconnects after a daemon restart and catches up without duplicates', async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
  const { created } = await createFromScenario(daemon.base, 'generic-duel');
  const page = await newPage(browser);
  await openSession(page, linkOf(daemon.base, created, 'red'));
  await roll(daemon.base, created, 'blue', '1d6');
  await page.locator('.log-entry[data-seq="2"]').waitFor();

  const { port, dir } = daemon;
  await daemon.stop({ keep: true });
  daemon = null;
  await page.locator('#conn[data-state=reconnecting]').waitFor();
  await screenshot(page, 'reconnect-01-away');

  daemon = await startDaemon({ dir, port });
  const missed = await roll(daemon.base, created, 'blue', '2d6');
  await page.locator('#conn[data-state=live]').waitFor({ timeout: 30000 });
  await page.locator('.log-entry[data-seq="3"]').waitFor({ timeout: 30000 });
  assert.equal(await page.locator('.log-entry[data-seq="3"] .log-summary').textContent(), missed.summary);
  assert.deepEqual(await page.locator('.log-entry').evaluateAll((es) => es.map((e) => e.dataset.seq)), ['3', '2', '1']);
  await page.locator('.audit-facts dd code', { hasText: missed.head }).waitFor();
  await screenshot(page, 'reconnect-02-back');
  // The failed connections while the daemon was down are the only errors allowed.
  assertNoPageErrors(page, [/Failed to load resource: net::ERR_CONNECTION_REFUSED/, /net::ERR_/]);
});
