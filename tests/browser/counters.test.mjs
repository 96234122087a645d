// Counters that read as a board game's (issue 23, item 4): on the Dark Ages map a stack shows as
// a stack (a count on its top counter, and a list of each unit in it when tapped, each a button
// that picks that unit), counters carry a unit-type symbol and a readable name, and a tapped
// counter is outlined at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, createFromScenario, linkOf, actionForm,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

test('dark ages: stacks, type symbols, readable names, a tapped counter outlined', async () => {
  const { created } = await createFromScenario(shared.daemon.base, 'spi-dark-ages-stamford-bridge');
  const page = await newPage(shared.browser);
  await openSession(page, linkOf(shared.daemon.base, created, 'referee')); // (the referee sees every form)
  const map = page.locator('svg.hexmap');
  await map.waitFor();

  // King Harold and his huscarls share hex 0305: the top counter says 2.
  const harold = map.locator('.unit[data-unit="as-harold"]');
  const huscarls = map.locator('.unit[data-unit="as-huscarls"]');
  const counts = await map.locator('.stack-count text').allTextContents();
  assert.ok(counts.includes('2'), `a stack of two shows its count: ${counts}`);
  assert.equal((await harold.getAttribute('aria-label')).endsWith('; 2 units in this hex'), true);

  // Readable names, not six letters of the id; a symbol by type (the king a leader, the
  // huscarls infantry, the archers missile troops, the longships a ship).
  assert.deepEqual(await harold.locator('text.counter-label').allTextContents(), ['King', 'Harold']);
  assert.deepEqual(await huscarls.locator('text.counter-label').allTextContents(), ["Harold's", 'huscarls']);
  assert.equal(await harold.locator('.sym-leader').count(), 1);
  assert.equal(await huscarls.locator('.sym-infantry').count(), 1);
  assert.equal(await map.locator('.unit[data-unit="as-archers"] .sym-missile').count(), 1);
  assert.match(await page.locator('.legend').textContent(), /leader/);

  // Tapping the top counter of the stack outlines it and lists both units; the list picks the
  // one underneath, which the open form takes.
  await actionForm(page, 'move');
  const top = (await huscarls.evaluate((g) => g.nextElementSibling === null || !g.nextElementSibling.matches('[data-unit="as-harold"]'))) ? huscarls : harold;
  await top.click();
  assert.match(await top.getAttribute('class'), /\bpicked\b/, 'the tapped counter is outlined at once');
  const list = page.locator('.stack-list');
  await list.waitFor();
  assert.match(await list.textContent(), /Hex 0305: 2 units/);
  const buttons = list.locator('button.stack-unit');
  assert.equal(await buttons.count(), 2);
  const under = top === huscarls ? 'as-harold' : 'as-huscarls';
  await list.locator(`button[data-unit="${under}"]`).click();
  assert.match(await map.locator(`.unit[data-unit="${under}"]`).getAttribute('class'), /\bpicked\b/);
  assert.doesNotMatch(await top.getAttribute('class'), /\bpicked\b/, 'only one counter is outlined');
  const form = page.locator('details.action[data-action="move"] form');
  assert.equal(await form.locator('[name="unit"]').inputValue(), under, 'the stack list picks the unit under the top one');
  await screenshot(page, 'counters-01-stack');
  assertNoPageErrors(page);
});
