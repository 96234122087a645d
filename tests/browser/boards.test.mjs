// The board of each kind of ruleset: the hex map (vaevictis-corbach-1760, spi-dark-ages) with
// counters in their hexes, the table plan (vis-magica, horse-and-musket) with bases at their
// measured positions, the unit table (magic-realm) with manual dice; picking units, hexes and
// points on the board fills the action forms, and the board follows the state after an action.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, actionForm,
  createFromScenario, linkOf, endPhases, postActions,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

const centre = (b) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

/** The centre of an element's box; retried while the board is being redrawn. */
async function centreOf(locator) {
  for (let i = 0; i < 50; i++) {
    const b = await locator.boundingBox();
    if (b) return centre(b);
    await new Promise((r) => setTimeout(r, 100));
  }
  return assert.fail(`no box for ${locator}`);
}
const inside = (p, b) => p.x > b.x && p.x < b.x + b.width && p.y > b.y && p.y < b.y + b.height;

/** Waits until fn() is true (the board redraws after the state is fetched again). */
async function until(fn, what, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function counterInHex(page, unit, hex) {
  const u = await centreOf(page.locator(`svg.hexmap .unit[data-unit="${unit}"] rect.counter`));
  const hx = await page.locator(`svg.hexmap .hex[data-hex="${hex}"] polygon.hex-shape`).boundingBox();
  return Boolean(hx) && inside(u, hx);
}

test('hex map: corbach terrain, counters in their hexes, pick to fill, move and fire', async () => {
  const { created } = await createFromScenario(shared.daemon.base, 'vaevictis-corbach-1760-skirmish');
  // The referee ends the marching movement and the rally: the French activations come next.
  await endPhases(shared.daemon.base, created, 2);
  const page = await newPage(shared.browser);
  await openSession(page, linkOf(shared.daemon.base, created, 'french'));
  await page.locator('#turn-banner .turn-text', { hasText: 'Your turn: french, Activations' }).waitFor();
  const map = page.locator('svg.hexmap');
  await map.waitFor();
  assert.equal(await map.locator('.hex').count(), 7 * 9, 'columns 10-16 by rows 1-9');
  assert.equal(await map.locator('.unit').count(), 8);
  assert.equal(await page.locator('table.units tbody tr').count(), 8);
  // Terrain and hexside features from the state's map.
  assert.match(await map.locator('.hex[data-hex="1204"] title').textContent(), /village, level 1/);
  assert.equal(await map.locator('.side-road').count(), 5);
  assert.ok(await map.locator('.side-stream').count() >= 7);
  assert.equal(await map.locator('.side-bridge').count(), 1);
  // Each counter stands in its hex (the even columns sit half a hex lower).
  for (const [u, hx] of [['fr-line', '1206'], ['al-hanover', '1204'], ['al-jaegers', '1003'], ['al-brunswick', '1302'], ['fr-cuirassiers', '1507']]) {
    assert.ok(await counterInHex(page, u, hx), `${u} drawn in ${hx}`);
  }
  const y1206 = (await centreOf(map.locator('.hex[data-hex="1206"] polygon'))).y;
  const y1306 = (await centreOf(map.locator('.hex[data-hex="1306"] polygon'))).y;
  assert.ok(y1206 > y1306, 'even columns shifted down (columns_shifted: even)');
  // Conditions: the jaegers are disorganized, the Brunswickers in march column; facing drawn.
  assert.match(await map.locator('.unit[data-unit="al-jaegers"]').getAttribute('class'), /marked/);
  assert.match(await map.locator('.unit[data-unit="al-jaegers"]').getAttribute('aria-label'), /disorganized/);
  assert.match(await map.locator('.unit[data-unit="al-brunswick"]').getAttribute('aria-label'), /march column/);
  assert.equal(await map.locator('.unit[data-unit="al-jaegers"] .cond-letter').textContent(), 'Dg');
  assert.equal(await map.locator('.unit[data-unit="al-brunswick"] .cond-letter').textContent(), 'MC');
  assert.equal(await map.locator('.unit[data-unit="fr-line"] .cond-letter').count(), 0, 'good order: no marker');
  const legend = await page.locator('.legend').textContent();
  assert.match(legend, /Dgdisorganized/);
  assert.match(legend, /MCmarch column/);
  assert.equal(await map.locator('.unit .facing').count(), 8);
  await screenshot(page, 'boards-01-corbach');

  // Fire (before the move, which would block the line of fire): the gun by click, the target
  // by click; the odds list the chart's modifiers.
  const fire = await actionForm(page, 'fire');
  await map.locator('.unit[data-unit="fr-guns"]').click();
  await map.locator('.unit[data-unit="al-hanover"]').click();
  assert.equal(await fire.locator('select[name="unit"]').inputValue(), 'fr-guns');
  assert.equal(await fire.locator('input[name="target"]').inputValue(), 'al-hanover');
  await fire.getByRole('button', { name: 'Odds' }).click();
  await fire.locator('.odds-view').waitFor();
  const oddsText = await fire.locator('.odds-view').textContent();
  assert.match(oddsText, /village/);
  assert.match(oddsText, /12-pounder/);
  await fire.getByRole('button', { name: 'Resolve' }).click();
  await fire.locator('.outcome .summary').waitFor();
  assert.match(await fire.locator('.outcome .summary').textContent(), /^fr-guns \(12-pounder\) fires at al-hanover/);
  const entry = page.locator('.log-entry[data-seq="4"]');
  await entry.waitFor();
  assert.match(await entry.locator('.dice').textContent(), /artillery\s*1d6/);
  assert.match(await entry.locator('.mods-line').textContent(), /-1 village/);
  // Move: click the unit, then the hex to enter; the board follows the new state.
  const move = await actionForm(page, 'move');
  await map.locator('.unit[data-unit="fr-line"]').click();
  await map.locator('.hex[data-hex="1205"] polygon').click();
  assert.equal(await move.locator('select[name="unit"]').inputValue(), 'fr-line');
  assert.deepEqual(JSON.parse(await move.locator('textarea[name="path"]').inputValue()), ['1205']);
  await move.getByRole('button', { name: 'Resolve' }).click();
  await move.locator('.outcome .summary').waitFor();
  assert.match(await move.locator('.outcome .summary').textContent(), /^fr-line moves 1206 -> 1205 facing n/);
  await until(() => counterInHex(page, 'fr-line', '1205'), 'fr-line redrawn in 1205');
  assert.match(await page.locator('table.units tr[data-unit="fr-line"]').textContent(), /1205/);

  // Assault, in the combat phase (after the army commander's movement): the leader, a friend
  // (joins the attackers), an enemy (its hex is the defender).
  await endPhases(shared.daemon.base, created, 2, 'french');
  await page.locator('#turn-banner .turn-text', { hasText: 'Your turn: french, Combat' }).waitFor();
  const melee = await actionForm(page, 'melee');
  await map.locator('.unit[data-unit="fr-line"]').click();
  await map.locator('.unit[data-unit="fr-chasseurs"]').click();
  await map.locator('.unit[data-unit="al-hanover"]').click();
  assert.equal(await melee.locator('select[name="unit"]').inputValue(), 'fr-line');
  assert.deepEqual(JSON.parse(await melee.locator('textarea[name="attackers"]').inputValue()), ['fr-chasseurs']);
  assert.equal(await melee.locator('input[name="defender"]').inputValue(), '1204');
  assert.equal(await page.locator('details.action[open]').count(), 1, 'one form open at a time');
  await screenshot(page, 'boards-02-corbach-after');
  assertNoPageErrors(page);
});

test('hex map: spi-dark-ages, stacks, streams, turn', async () => {
  const { created } = await createFromScenario(shared.daemon.base, 'spi-dark-ages-stamford-bridge');
  const page = await newPage(shared.browser);
  await openSession(page, linkOf(shared.daemon.base, created, 'referee'));
  const map = page.locator('svg.hexmap');
  await map.waitFor();
  assert.equal(await map.locator('.hex').count(), 16 * 20);
  assert.equal(await map.locator('.unit').count(), 12);
  assert.equal(await map.locator('.side-stream.through').count(), 2, 'streams through 0507 and 0607');
  assert.ok(await counterInHex(page, 'as-harold', '0305') && await counterInHex(page, 'as-huscarls', '0305'), 'a stack of two in 0305');
  assert.match(await page.locator('.turn').textContent(), /phase movement/);
  // Manual dice: every form offers the dice field.
  assert.ok(await page.locator('details.action[data-action="fire"] .field.dice').isVisible() === false);
  await actionForm(page, 'fire');
  assert.ok(await page.locator('details.action[data-action="fire"] .field.dice').isVisible());
  await screenshot(page, 'boards-03-spi');
  assertNoPageErrors(page);
});

test('table plan: vis-magica bases at their positions, pick a point to move', async () => {
  const { created } = await createFromScenario(shared.daemon.base, 'vis-magica-bog-and-cliffs');
  const page = await newPage(shared.browser);
  await openSession(page, linkOf(shared.daemon.base, created, 'empire'));
  const plan = page.locator('svg.plan');
  await plan.waitFor();
  assert.equal(await plan.locator('.unit').count(), 5);
  assert.equal(await plan.locator('.area').count(), 2);
  const at = (id) => centreOf(plan.locator(`.unit[data-unit="${id}"] rect.base`));
  const legion = await at('legion'); // [150, 60]
  const archers = await at('archers'); // [60, 60]
  const harpies = await at('harpies'); // [60, 150]
  assert.ok(legion.x > archers.x + 20 && Math.abs(legion.y - archers.y) < 1, 'x grows to the right');
  assert.ok(harpies.y < archers.y - 20 && Math.abs(harpies.x - archers.x) < 1, 'y grows away from the player (up)');
  assert.match(await plan.locator('.unit[data-unit="wolves"]').getAttribute('aria-label'), /shaken/);
  assert.match(await plan.locator('.unit[data-unit="goblins"]').getAttribute('class'), /marked/);
  // A side's picker: its own bases only.
  const move = await actionForm(page, 'move');
  const own = await move.locator('select[name="unit"] option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.deepEqual(own, ['legion', 'archers']);
  // Pick the legion, then the point halfway to the archers: "to" gets table coordinates.
  await plan.locator('.unit[data-unit="legion"] rect.base').click();
  // (The click may have scrolled the page: measure again.)
  const [l2, a2] = [await at('legion'), await at('archers')];
  await page.mouse.click((l2.x + a2.x) / 2, l2.y);
  const to = JSON.parse(await move.locator('textarea[name="to"]').inputValue());
  assert.ok(Math.abs(to[0] - 105) <= 2 && Math.abs(to[1] - 60) <= 2, `to ${to} is about [105, 60]`);
  await move.locator('textarea[name="to"]').fill('[105, 60]');
  await move.getByRole('button', { name: 'Resolve' }).click();
  await move.locator('.outcome .summary').waitFor();
  assert.match(await move.locator('.outcome .summary').textContent(), /^legion moves 4\.5 in of 6 in to \[105, 60\]/);
  await until(async () => {
    const [l3, a3] = [await at('legion'), await at('archers')];
    return Math.abs(l3.x - a3.x - (legion.x - archers.x) / 2) < 2;
  }, 'the legion redrawn at its new position, halfway to the archers');
  await screenshot(page, 'boards-04-vis-magica');
  assertNoPageErrors(page);
});

test('table plan: horse-and-musket, facing as drawn', async () => {
  const { created } = await createFromScenario(shared.daemon.base, 'horse-and-musket-la-haye-sainte');
  const page = await newPage(shared.browser);
  await openSession(page, linkOf(shared.daemon.base, created, 'referee'));
  const plan = page.locator('svg.plan');
  await plan.waitFor();
  assert.equal(await plan.locator('.unit').count(), 8);
  // The battery faces 200 degrees (clockwise from north): its front triangle points down-left.
  const tri = await centreOf(plan.locator('.unit[data-unit="br-battery"] .facing'));
  const base = await centreOf(plan.locator('.unit[data-unit="br-battery"] rect.base'));
  assert.ok(tri.y > base.y && tri.x < base.x, 'facing 200: the front is south by south-west');
  assertNoPageErrors(page);
});

test('unit table and manual dice: magic-realm round with the example dice', async () => {
  const { created, scenario } = await createFromScenario(shared.daemon.base, 'magic-realm-sharks-with-wings');
  // The first round's plays (steps 1-5: each side plays its units and ends its part), through
  // the API; the page resolves the round (step 6).
  await postActions(shared.daemon.base, created, scenario.actions.slice(0, 5));
  const page = await newPage(shared.browser);
  await openSession(page, linkOf(shared.daemon.base, created, 'referee'));
  assert.equal(await page.locator('#board svg').count(), 0, 'no drawing: the state has no positions');
  const table = page.locator('table.units');
  assert.equal(await table.locator('tbody tr').count(), 3);
  const knightBefore = await table.locator('tr[data-unit="white-knight"]').textContent();

  const round = await actionForm(page, 'round');
  assert.ok(await round.locator('.field.dice').isVisible(), 'manual mode: the dice field is shown');
  await round.getByLabel('Example from a scenario').selectOption({ label: 'magic-realm-sharks-with-wings, step 6 (as referee)' });
  await round.getByRole('button', { name: 'Fill in' }).click();
  assert.deepEqual(await round.getByLabel('dice (manual mode)').inputValue(), '4 1 5 2 3 1');
  // Without its dice the action is refused, and the page says which dice it needs.
  await round.getByLabel('dice (manual mode)').fill('');
  await round.getByRole('button', { name: 'Resolve' }).click();
  await round.locator('.outcome .error').waitFor();
  const err = await round.locator('.outcome .error').textContent();
  assert.match(err, /dice_required/);
  assert.match(err, /stumble/);
  await round.getByLabel('dice (manual mode)').fill('4 1 5 2 3 1');
  await round.getByRole('button', { name: 'Resolve' }).click();
  await round.locator('.outcome .summary').waitFor();
  const entry = page.locator('.log-entry[data-seq="7"]');
  await entry.waitFor();
  assert.match(await entry.locator('.dice').textContent(), /stumble\s*2d6h\s*\[4, 1\]\s*=\s*4\s*manual/);
  await until(async () => (await table.locator('tr[data-unit="white-knight"]').textContent()) !== knightBefore, 'the unit table updated');
  await screenshot(page, 'boards-05-magic-realm');
  assertNoPageErrors(page, [/Failed to load resource: the server responded with a status of 422/]);
});
