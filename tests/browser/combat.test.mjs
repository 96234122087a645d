// The magic-realm combat board (issue 23, item 4): in a round's Plays each side picks, for one of
// its units, a maneuver and an attack of the unit's kit, their boxes and a target from lists,
// and plays it; a denizen picks its box and target. The plays land in the state; a side sees
// only its own units; the board goes once the round moves to its Resolution.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, createFromScenario, linkOf } from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

async function stateOf(base, created) {
  const r = await fetch(`${base}/v1/sessions/${created.session.id}`, { headers: { Authorization: `Bearer ${created.tokens.referee}` } });
  return (await r.json()).state;
}

test('magic-realm: the combat board plays from the kit', async () => {
  const base = shared.daemon.base;
  const { created } = await createFromScenario(base, 'magic-realm-bats-at-the-crag');
  const knight = await newPage(shared.browser);
  const monsters = await newPage(shared.browser);
  await openSession(knight, linkOf(base, created, 'knight'));
  await openSession(monsters, linkOf(base, created, 'monsters'));

  const board = knight.locator('.combat-board');
  await board.waitFor();
  assert.match(await board.locator('h3').textContent(), /round 1, Plays/);
  // The knight's own unit only; his kit's maneuvers and attacks by name, never a stat to type.
  assert.deepEqual(await board.locator('#combat-unit option').evaluateAll((os) => os.map((o) => o.value)), ['white-knight']);
  assert.deepEqual(await board.locator('#combat-maneuver option').evaluateAll((os) => os.map((o) => o.value)), ['', 'Move H6', 'Move H5*', 'Move H4**']);
  assert.deepEqual(await board.locator('#combat-attack option').evaluateAll((os) => os.map((o) => o.value)), ['', 'Great Sword, F H6', 'Great Sword, F H5*', 'Light Bow, F H1']);
  assert.deepEqual(await board.locator('#combat-target option').evaluateAll((os) => os.map((o) => o.value)), ['bat-1', 'bat-2']);
  assert.equal(await board.locator('input[type="number"]').count(), 0, 'no stat is typed');

  await board.locator('#combat-maneuver').selectOption('Move H6');
  await board.locator('#combat-maneuver-box').selectOption('dodge');
  await board.locator('#combat-attack').selectOption('Great Sword, F H6');
  await board.locator('#combat-attack-box').selectOption('swing');
  await board.locator('#combat-target').selectOption('bat-1');
  await board.locator('button.combat-play').click();
  await board.locator('.combat-outcome', { hasText: 'white-knight plays: Move H6 (move 6) to dodge; Great Sword, F H6 swing at bat-1' }).waitFor();
  let st = await stateOf(base, created);
  assert.deepEqual(st.plays, [{ unit: 'white-knight', maneuver: { name: 'Move H6', box: 'dodge' }, attacks: [{ name: 'Great Sword, F H6', box: 'swing', target: 'bat-1' }] }]);

  // A bat: its box and its target.
  const mb = monsters.locator('.combat-board');
  await mb.waitFor();
  assert.deepEqual(await mb.locator('#combat-unit option').evaluateAll((os) => os.map((o) => o.value)), ['bat-1', 'bat-2']);
  assert.equal(await mb.locator('#combat-maneuver').count(), 0, 'a denizen has no maneuver to pick');
  await mb.locator('#combat-box').selectOption('thrust');
  await mb.locator('#combat-target').selectOption('white-knight');
  await mb.locator('button.combat-play').click();
  await mb.locator('.combat-outcome', { hasText: 'bat-1' }).waitFor();
  st = await stateOf(base, created);
  assert.deepEqual(st.plays.map((p) => p.unit), ['white-knight', 'bat-1']);
  await screenshot(knight, 'combat-01-plays');

  // Both end their part: the Resolution begins, and the board goes.
  for (const p of [knight, monsters]) await p.locator('#turn-banner button.end-phase').click();
  await knight.locator('#turn-banner .turn-text', { hasText: 'Resolution' }).waitFor();
  await knight.locator('.combat-board').waitFor({ state: 'detached' });
  for (const p of [knight, monsters]) assertNoPageErrors(p);
});
