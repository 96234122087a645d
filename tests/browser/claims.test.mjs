// A pending claim in the web client (issue 23, item 3): without a setup table a side's hits are
// its word, so its melee waits for the other side. The banner says so to each reader, the side
// it acts against accepts it with one click (the action then resolves, live in every page), the
// referee disputes the next one with a reason, and no form is offered while a claim waits.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, createFromScenario, linkOf, postActions,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

const text = (page) => page.locator('#turn-banner .turn-text');

async function stateOf(base, created) {
  const r = await fetch(`${base}/v1/sessions/${created.session.id}`, { headers: { Authorization: `Bearer ${created.tokens.referee}` } });
  return (await r.json()).state;
}

test('a claim waits for the other side: accept from the banner, dispute with a reason', async () => {
  const base = shared.daemon.base;
  const { created, scenario } = await createFromScenario(base, 'horse-and-musket-la-haye-sainte');
  // The scenario up to the French melee: the hussars' 2 hits are the French word, claim 1.
  const upTo = scenario.actions.findIndex((a) => a.type === 'melee');
  await postActions(base, created, scenario.actions.slice(0, upTo + 1));
  const claim = (await stateOf(base, created)).claim;
  assert.equal(claim.number, 1);
  assert.equal(claim.awaiting, 'british');

  const fr = await newPage(shared.browser);
  const br = await newPage(shared.browser);
  const ref = await newPage(shared.browser);
  await openSession(fr, linkOf(base, created, 'french'));
  await openSession(br, linkOf(base, created, 'british'));
  await openSession(ref, linkOf(base, created, 'referee'));

  assert.equal(await text(br).textContent(),
    'french claims: melee fr-hussars vs br-militia: 2 hits on br-militia, 0 hits on fr-hussars. Accept it, or dispute it?');
  assert.equal(await text(fr).textContent(),
    'Your claim: melee fr-hussars vs br-militia: 2 hits on br-militia, 0 hits on fr-hussars. Waiting for british or the referee to accept or dispute it.');
  assert.equal(await fr.locator('#turn-banner button.claim-accept').count(), 0, 'the claimant does not accept its own word');
  assert.equal(await fr.locator('#turn-banner button.claim-withdraw').count(), 1);
  assert.equal(await br.locator('#turn-banner button.claim-accept').count(), 1);
  assert.equal(await br.locator('#turn-banner button.end-phase').count(), 0);
  for (const p of [fr, br, ref]) {
    const shown = await p.locator('details.action').evaluateAll((ds) => ds.filter((d) => !d.hidden).map((d) => d.dataset.action));
    assert.deepEqual(shown, [], 'nothing else is offered while the claim waits');
    assert.doesNotMatch(await p.locator('#turn-banner').textContent(), /[{}[\]"]/, 'no raw JSON for players');
  }
  await screenshot(br, 'claims-01-awaiting');

  // The British accept: the melee resolves (seeded dice), the log says so, every page follows.
  await br.locator('#turn-banner button.claim-accept').click();
  for (const p of [fr, br, ref]) {
    await p.locator('.log-entry', { hasText: "british accepts french's claim 1: melee fr-hussars vs br-militia" }).waitFor();
    await p.locator('#turn-banner button.claim-accept, #turn-banner button.claim-withdraw').waitFor({ state: 'detached' });
  }
  const after = await stateOf(base, created);
  assert.equal(after.claim, undefined);
  assert.equal(after.units.find((u) => u.id === 'br-militia').effectiveness < 100, true, 'the 2 hits were taken');
  assert.match(await text(fr).textContent(), /^Your turn: french, Melee/);
  await screenshot(fr, 'claims-02-accepted');

  // The next claim (the British battery, claim 2): the referee disputes it, with a reason.
  const next = scenario.actions.findIndex((a, i) => i > upTo && a.type === 'fire');
  await postActions(base, created, scenario.actions.slice(upTo + 2, next + 1));
  await text(ref).filter({ hasText: 'british claims: br-battery fires at fr-guard: 1 hit.' }).waitFor();
  await ref.locator('#turn-banner input.claim-reason').fill('the Guard was out of sight');
  await ref.locator('#turn-banner button.claim-dispute').click();
  await fr.locator('.log-entry', { hasText: "the referee disputes british's claim 2 (br-battery fires at fr-guard: 1 hit); nothing is resolved: the Guard was out of sight" }).waitFor();
  const disputed = await stateOf(base, created);
  assert.equal(disputed.claim, undefined);
  assert.equal(disputed.units.find((u) => u.id === 'fr-guard').effectiveness, 100, 'a disputed claim resolves nothing');
  await text(br).filter({ hasText: /^Your turn: british, Fire/ }).waitFor();
  for (const p of [fr, br, ref]) assertNoPageErrors(p);
});
