// Sealed orders in the browser (issue 24, items 1 and 4): a magic-realm round played by two sides
// sealing their own plays from the combat board, each in its own page. Before the last seal the
// referee's page says who has sealed and nothing of what; the last seal reveals every side's
// plays and the server resolves the round at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, createFromScenario, linkOf } from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

async function get(base, created, path) {
  const r = await fetch(`${base}/v1/sessions/${created.session.id}${path}`, { headers: { Authorization: `Bearer ${created.tokens.referee}` } });
  return r.json();
}

test('magic-realm: two sides seal their plays in their browsers, and the server reveals and resolves the round', async () => {
  const base = shared.daemon.base;
  const scenario = await (await fetch(`${base}/v1/scenarios/magic-realm-bats-at-the-crag`)).json();
  const setup = { ...scenario.session.setup, turn: { sealed: true } };
  const { created } = await createFromScenario(base, 'magic-realm-bats-at-the-crag', { setup });
  const knight = await newPage(shared.browser);
  const monsters = await newPage(shared.browser);
  const referee = await newPage(shared.browser);
  await openSession(knight, linkOf(base, created, 'knight'));
  await openSession(monsters, linkOf(base, created, 'monsters'));
  await openSession(referee, linkOf(base, created, 'referee'));

  // The knight gathers his play from the kit and seals it.
  const board = knight.locator('.combat-board');
  await board.waitFor();
  assert.match(await board.locator('h3').textContent(), /round 1, Plays \(sealed orders\)/);
  assert.equal(await knight.locator('#turn-banner button.end-phase').count(), 0, 'a sealed phase has no End phase button');
  await board.locator('#combat-maneuver').selectOption('Move H6');
  await board.locator('#combat-maneuver-box').selectOption('dodge');
  await board.locator('#combat-attack').selectOption('Great Sword, F H6');
  await board.locator('#combat-attack-box').selectOption('swing');
  await board.locator('#combat-target').selectOption('bat-1');
  await board.locator('button.combat-add').click();
  assert.match(await board.locator('.combat-orders').textContent(), /White Knight: Move H6 to dodge; Great Sword, F H6 \(swing\) at bat-1/);
  await board.locator('button.combat-seal').click();
  await knight.locator('.combat-outcome', { hasText: 'Sealed. Nobody can read your orders' }).waitFor();
  await knight.locator('#turn-banner .turn-text', { hasText: 'Sealed, waiting for the monsters' }).waitFor();

  // Nobody reads them: the referee sees who has sealed, not what; the state and the log hold no play.
  await referee.locator('#turn-banner .turn-text', { hasText: 'Sealed: knight; waiting for the monsters' }).waitFor();
  assert.equal(await referee.locator('#turn-banner button.close-orders').count(), 1, 'the referee may close the step');
  const st = await get(base, created, '');
  assert.equal(st.state.plays, undefined);
  assert.deepEqual(st.state.turn.done, ['knight']);
  const ev = await get(base, created, '/events');
  assert.deepEqual(ev.events.map((e) => e.type), ['session_created', 'orders_sealed']);
  assert.ok(!JSON.stringify(ev.events[1].data).includes('Move H6'), 'the sealed event holds no play');
  assert.ok(!(await referee.locator('#log').textContent()).includes('Move H6 to dodge'));
  await screenshot(referee, 'sealed-01-referee-waiting');

  // The monsters seal both bats: the last seal reveals, and the round is resolved at once.
  const mb = monsters.locator('.combat-board');
  await mb.waitFor();
  await monsters.locator('#turn-banner .turn-text', { hasText: 'Your turn: monsters, Plays' }).waitFor();
  for (const [unit, box] of [['bat-1', 'thrust'], ['bat-2', 'smash']]) {
    await mb.locator('#combat-unit').selectOption(unit);
    await mb.locator('#combat-box').selectOption(box);
    await mb.locator('#combat-target').selectOption('white-knight');
    await mb.locator('button.combat-add').click();
  }
  assert.equal(await mb.locator('.combat-orders li').count(), 2);
  await mb.locator('button.combat-seal').click();
  await knight.locator('#log', { hasText: 'Sealed orders revealed for the Plays phase of turn 1' }).waitFor();
  await knight.locator('#turn-banner .turn-text', { hasText: 'Your turn: knight, Plays' }).waitFor(); // round 2
  const after = await get(base, created, '');
  assert.equal(after.state.turn.number, 2);
  const types = (await get(base, created, '/events')).events.map((e) => e.type);
  assert.deepEqual(types, ['session_created', 'orders_sealed', 'orders_sealed', 'orders_revealed']);
  const verify = await get(base, created, '/verify');
  assert.equal(verify.ok, true, JSON.stringify(verify));
  await screenshot(knight, 'sealed-02-revealed');
  for (const p of [knight, monsters, referee]) assertNoPageErrors(p);
});

test('generic: secret bids sealed in two browsers, revealed together', async () => {
  const base = shared.daemon.base;
  const res = await fetch(`${base}/v1/sessions`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      ruleset: 'generic', title: 'The auction', sides: ['red', 'blue'],
      setup: { units: [{ id: 'red-lord', side: 'red' }, { id: 'blue-lord', side: 'blue' }], turn: { phases: ['choice', 'play'], sealed: true } },
    }),
  });
  assert.equal(res.status, 201);
  const created = await res.json();
  const red = await newPage(shared.browser);
  const blue = await newPage(shared.browser);
  await openSession(red, linkOf(base, created, 'red'));
  await openSession(blue, linkOf(base, created, 'blue'));

  await red.locator('#choice-text').fill('twelve gold crowns');
  await red.locator('button.choice-seal').click();
  await red.locator('.combat-outcome', { hasText: 'Sealed. Nobody can read your choice' }).waitFor();
  await red.locator('#turn-banner .turn-text', { hasText: 'Sealed, waiting for the blue' }).waitFor();
  await blue.locator('#turn-banner .turn-text', { hasText: 'Your turn: blue, Sealed choice' }).waitFor();
  assert.ok(!(await blue.locator('body').textContent()).includes('twelve gold'), 'blue cannot read red\'s bid');

  await blue.locator('#choice-text').fill('nine gold crowns');
  await blue.locator('button.choice-seal').click();
  await red.locator('#log', { hasText: 'red chooses: twelve gold crowns; blue chooses: nine gold crowns' }).waitFor();
  await red.locator('#turn-banner .turn-text', { hasText: 'Your turn: red, Play' }).waitFor();
  await screenshot(red, 'sealed-03-bids-revealed');
  for (const p of [red, blue]) assertNoPageErrors(p);
});
