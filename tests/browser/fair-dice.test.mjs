// Fair dice from the page (issue 19): a session created from a scenario gets server dice unless
// the creator picks seeded or manual dice, each of which shows what it gives away; the audit
// panel counts the dice it could check and those still waiting for a reveal, and shows the
// verifier's notes; any side may reveal the seed; a side adds its own randomness from the audit
// panel and every page shows the contributions in force until a reveal clears them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, actionForm,
  createFromScenario, linkOf,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

const SEEDED_WARNING = /Anyone who reads the scenario or the first event of the log can compute every die before it is rolled/;
const MANUAL_WARNING = /The acting side types every die, the opponent's too/;
const REFEREE_WARNING = /The referee types every die/;

const fragOf = (href) => new URLSearchParams(new URL(href).hash.slice(1));

async function getJson(path, token) {
  const res = await fetch(`${shared.daemon.base}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  assert.equal(res.status, 200, `GET ${path}: ${await res.clone().text()}`);
  return res.json();
}

/** Creates a scenario from the start page with the dice choice already made; the links by label. */
async function createFromPage(page, scenario) {
  await page.selectOption('#scenario-select', scenario);
  await page.locator('#create-result').evaluate((el) => el.replaceChildren()); // no links of an earlier creation
  await page.getByRole('button', { name: 'Create from scenario' }).click();
  await page.locator('#create-result .session-link, #create-result .error').first().waitFor();
  assert.equal(await page.locator('#create-result .error').count(), 0, await page.locator('#create-result').textContent());
  const rows = await page.locator('.link-row').evaluateAll((lis) => lis.map((li) => [li.querySelector('.link-label').textContent, li.querySelector('a').href]));
  const links = Object.fromEntries(rows);
  const f = fragOf(links.Referee);
  return { links, id: f.get('session'), referee: f.get('token') };
}

async function startPage() {
  const page = await newPage(shared.browser);
  await page.goto(`${shared.daemon.base}/`);
  await page.locator('#scenario-select option[value="generic-duel"]').waitFor({ state: 'attached' });
  return page;
}

async function roll(page, expr, unit) {
  const form = await actionForm(page, 'roll');
  await form.getByLabel('expr (required)').fill(expr);
  if (unit) await form.locator('select[name="unit"]').selectOption(unit);
  await form.getByRole('button', { name: 'Resolve' }).click();
  await form.locator('.outcome .summary').waitFor();
  return (await form.locator('.outcome .summary').textContent());
}

async function verify(page) {
  const out = page.locator('.verify-result');
  await out.evaluate((el) => el.replaceChildren()); // so that the wait below sees the new answer
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await out.locator('.verify-ok, .verify-bad').waitFor();
  return out;
}

/** A generic-duel session with server dice, made through the API: {links, id, referee}. */
async function serverDuel() {
  const { created } = await createFromScenario(shared.daemon.base, 'generic-duel', { dice: { mode: 'server' } });
  const links = { 'Side red': linkOf(shared.daemon.base, created, 'red'), 'Side blue': linkOf(shared.daemon.base, created, 'blue') };
  return { links, id: created.session.id, referee: created.tokens.referee };
}

test('a scenario is created with server dice by default, not the public seed of its file', async () => {
  const page = await startPage();
  // Server dice is the default choice, and no warning shows.
  assert.equal(await page.getByLabel('Server dice (recommended)').isChecked(), true);
  assert.equal(await page.locator('#scenario-form .warning:visible').count(), 0);
  // The scenario hint says what the file would give, and that the choice below decides.
  await page.selectOption('#scenario-select', 'generic-duel');
  await page.locator('#scenario-how', { hasText: 'seeded dice' }).waitFor();
  assert.match(await page.locator('#scenario-how').textContent(), /public seed.*the dice chosen below/);

  const made = await createFromPage(page, 'generic-duel');
  assert.match(await page.locator('.created').textContent(), /Dice: server dice \(secret seed/);
  const { session } = await getJson(`/v1/sessions/${made.id}`, made.referee);
  assert.equal(session.dice.mode, 'server');
  assert.match(session.dice.commitment, /^[0-9a-f]{64}$/);

  // Not the scenario's seed: neither its hash nor the commitment a seeded copy gets.
  const file = await getJson('/v1/scenarios/generic-duel');
  const seed = file.session.dice.seed;
  assert.notEqual(session.dice.commitment, createHash('sha256').update(Buffer.from(seed, 'hex')).digest('hex'));
  const { created: seededCopy } = await createFromScenario(shared.daemon.base, 'generic-duel');
  assert.equal(seededCopy.dice.mode, 'seeded');
  assert.notEqual(session.dice.commitment, seededCopy.dice.commitment);
  // And the first event publishes no seed.
  const { events } = await getJson(`/v1/sessions/${made.id}/events?after=0&limit=1`, made.referee);
  assert.equal(events[0].data.dice.mode, 'server');
  assert.equal(events[0].data.dice.seed, undefined);
  await screenshot(page, 'fair-01-created-server-dice');
  assertNoPageErrors(page);
});

test('seeded and manual dice show what they give away; the choice reaches the session', async () => {
  const page = await startPage();
  const seededWarning = page.locator('#dice-seeded-warning');
  const manualWarning = page.locator('#dice-manual-warning');
  assert.equal(await seededWarning.isVisible(), false);

  await page.getByLabel('Seeded dice').check();
  assert.equal(await seededWarning.isVisible(), true);
  assert.match(await seededWarning.textContent(), SEEDED_WARNING);
  assert.equal(await manualWarning.isVisible(), false);
  await screenshot(page, 'fair-02-seeded-warning');
  // Seeded keeps the scenario's own seed: the same commitment as the file's body gets.
  const seeded = await createFromPage(page, 'generic-duel');
  assert.match(await page.locator('.created').textContent(), /Dice: seeded dice \(public seed/);
  const { created: fileCopy } = await createFromScenario(shared.daemon.base, 'generic-duel');
  const s1 = (await getJson(`/v1/sessions/${seeded.id}`, seeded.referee)).session;
  assert.equal(s1.dice.mode, 'seeded');
  assert.equal(s1.dice.commitment, fileCopy.dice.commitment);

  await page.getByLabel('Manual dice').check();
  assert.equal(await seededWarning.isVisible(), false);
  assert.equal(await manualWarning.isVisible(), true);
  assert.match(await manualWarning.textContent(), MANUAL_WARNING);
  const onlyReferee = page.getByLabel('Only the referee types the dice');
  assert.equal(await onlyReferee.isVisible(), true);
  await onlyReferee.check();
  assert.match(await manualWarning.textContent(), REFEREE_WARNING);
  await screenshot(page, 'fair-03-manual-referee');
  const manual = await createFromPage(page, 'generic-duel');
  const s2 = (await getJson(`/v1/sessions/${manual.id}`, manual.referee)).session;
  assert.equal(s2.dice.mode, 'manual');
  assert.equal(s2.dice.manual_by, 'referee');
  assert.match(await page.locator('.created').textContent(), /Dice: manual dice \(typed by the referee\)/);
  // Back to server dice: the warnings go and the box hides.
  await page.getByLabel('Server dice (recommended)').check();
  assert.equal(await manualWarning.isVisible(), false);
  assert.equal(await onlyReferee.isVisible(), false);

  // A side of the referee-only manual session: no dice field, a line saying why; no entropy form.
  const side = await newPage(shared.browser);
  await openSession(side, manual.links['Side red']);
  await side.locator('.manual-by-referee').waitFor();
  const form = await actionForm(side, 'roll');
  assert.equal(await form.locator('.field.dice').isVisible(), false);
  assert.equal(await side.locator('.audit .entropy').isVisible(), false, 'manual dice: nothing to mix randomness with');
  assert.match(await side.locator('#session-meta').textContent(), /manual dice \(typed by the referee\)/);

  // Pasted JSON is sent as pasted, with the same warning.
  await page.getByText('Or paste session JSON').click();
  const json = page.getByLabel('Session JSON');
  const body = { ruleset: 'generic', sides: ['a', 'b'], dice: { mode: 'seeded', seed: 'ab'.repeat(32) } };
  await json.fill(JSON.stringify(body));
  await page.locator('#json-dice-warning .warning').waitFor();
  assert.match(await page.locator('#json-dice-warning').textContent(), SEEDED_WARNING);
  await json.fill(JSON.stringify({ ...body, dice: { mode: 'manual' } }));
  await page.locator('#json-dice-warning .warning', { hasText: MANUAL_WARNING }).waitFor();
  await json.fill(JSON.stringify({ ...body, dice: { mode: 'server' } }));
  await page.locator('#json-dice-warning .warning').waitFor({ state: 'detached' });
  // A whole scenario file is read as its session: seeded, so warned, and created seeded.
  await json.fill(JSON.stringify({ session: body }));
  await page.locator('#json-dice-warning .warning').waitFor();
  await page.getByRole('button', { name: 'Create from JSON' }).click();
  await page.locator('.created', { hasText: 'seeded dice' }).waitFor();
  assertNoPageErrors(page);
  assertNoPageErrors(side);
});

test('audit: dice checked and not yet checkable, the notes, a reveal by a side', async () => {
  const duel = await serverDuel();
  const red = await newPage(shared.browser);
  await openSession(red, duel.links['Side red']);
  assert.match(await red.locator('#session-meta').textContent(), /server dice \(secret seed, checkable after a reveal\)/);
  assert.match(await red.locator('.audit-facts').textContent(), /server dice/);
  await roll(red, '2d6', 'red-knight');
  await red.locator('.log-entry[data-seq="2"]').waitFor();
  await red.locator('.audit-facts dd code', { hasText: (await getJson(`/v1/sessions/${duel.id}`, duel.referee)).session.head }).waitFor();

  // Before a reveal: nothing checkable, both dice waiting for the seed.
  let out = await verify(red);
  assert.equal(await out.locator('.verify-ok').count(), 1);
  assert.match(await out.locator('.dice-checked').textContent(), /^0 dice recomputed from known seeds$/);
  const unchecked = await out.locator('.dice-unchecked').textContent();
  assert.match(unchecked, /^(\d+) dice not yet checkable: their seed is not revealed yet$/);
  assert.ok(Number(unchecked.match(/^\d+/)[0]) >= 1);
  // Every note of the verify answer is shown, sentence for sentence.
  const head = (await getJson(`/v1/sessions/${duel.id}`, duel.referee)).session.head;
  const answer = await getJson(`/v1/sessions/${duel.id}/verify?head=${head}`, duel.referee);
  assert.equal(answer.dice_unchecked, 2);
  assert.ok(Array.isArray(answer.notes) && answer.notes.length >= 1, 'a note says when the unchecked dice can be checked');
  assert.deepEqual(await out.locator('.verify-notes .note').allTextContents(), answer.notes);
  assert.ok(!answer.notes.some((n) => /No head was given/.test(n)), 'the page passes the head it holds');
  // Without a head the verifier says so (the page always has one; the note is the server's).
  const noHead = await getJson(`/v1/sessions/${duel.id}/verify`, duel.referee);
  assert.ok(noHead.notes.some((n) => /No head was given/.test(n)));
  await screenshot(red, 'fair-04-audit-unchecked');

  // A side may reveal; then the dice are checkable.
  await red.getByRole('button', { name: 'Reveal dice seed' }).click();
  await red.locator('.reveal-result code').first().waitFor();
  await red.locator('.log-entry[data-type="dice_seed_revealed"]').waitFor();
  assert.match(await red.locator('.log-entry[data-type="dice_seed_revealed"] .log-head').textContent(), /side:red/);
  out = await verify(red);
  assert.match(await out.locator('.dice-checked').textContent(), /^2 dice recomputed from known seeds$/);
  assert.match(await out.locator('.dice-unchecked').textContent(), /^0 dice not yet checkable/);
  // Nothing rolled since: a second reveal is a friendly no.
  await red.getByRole('button', { name: 'Reveal dice seed' }).click();
  await red.locator('.reveal-result .notice', { hasText: 'nothing to reveal yet' }).waitFor();
  assert.equal(await red.locator('.reveal-result .error').count(), 0);
  assertNoPageErrors(red, [/status of 409/]);
});

test('entropy: a side adds its randomness, every page shows it, a reveal clears it', async () => {
  const duel = await serverDuel();
  const red = await newPage(shared.browser);
  const blue = await newPage(shared.browser);
  await openSession(red, duel.links['Side red']);
  await openSession(blue, duel.links['Side blue']);
  const input = red.getByLabel('Your randomness');
  // Prefilled with random printable ASCII, different on every page.
  const pre = await input.inputValue();
  assert.match(pre, /^[\x20-\x7e]{1,64}$/);
  assert.notEqual(pre, await blue.getByLabel('Your randomness').inputValue());
  assert.match(await red.locator('.entropy-in-force').textContent(), /None in force/);

  // Out of range: refused by the page, nothing sent.
  const before = (await getJson(`/v1/sessions/${duel.id}`, duel.referee)).session.version;
  await input.fill('x'.repeat(64) + 'y');
  assert.equal((await input.inputValue()).length, 64, 'the field takes 64 characters at most');
  await input.fill('dé');
  await red.getByRole('button', { name: 'Add my randomness' }).click();
  await red.locator('.entropy-result .error').waitFor();
  assert.equal(await input.getAttribute('aria-invalid'), 'true');
  assert.equal((await getJson(`/v1/sessions/${duel.id}`, duel.referee)).session.version, before);

  await input.fill("red's lucky 42");
  await red.getByRole('button', { name: 'Add my randomness' }).click();
  await red.locator('.entropy-result .notice', { hasText: 'Added' }).waitFor();
  const mine = red.locator('.entropy-list li[data-role="side:red"]');
  await mine.waitFor();
  assert.equal(await mine.textContent(), "side red red's lucky 42");
  assert.notEqual(await input.inputValue(), "red's lucky 42", 'a fresh random text for the next time');
  // The server holds it, and blue sees it arrive live, in the log in words.
  const { session } = await getJson(`/v1/sessions/${duel.id}`, duel.referee);
  assert.deepEqual(session.dice.entropy.in_force, { 'side:red': "red's lucky 42" });
  await blue.locator('.entropy-list li[data-role="side:red"]', { hasText: "red's lucky 42" }).waitFor();
  const entry = blue.locator('.log-entry[data-type="entropy_contributed"]');
  await entry.waitFor();
  assert.equal(await entry.locator('.log-summary').textContent(), 'side red added entropy to the dice (in force from the next die)');

  // Once per die: a second contribution before a die is a friendly no.
  await red.getByRole('button', { name: 'Add my randomness' }).click();
  await red.locator('.entropy-result .notice', { hasText: 'already in force for the next die' }).waitFor();
  assert.equal(await red.locator('.entropy-result .error').count(), 0);
  await screenshot(red, 'fair-05-entropy');

  // Blue adds its own: both are in force, on both pages.
  await blue.getByRole('button', { name: 'Add my randomness' }).click();
  await blue.locator('.entropy-result .notice', { hasText: 'Added' }).waitFor();
  await red.locator('.entropy-list li[data-role="side:blue"]').waitFor();
  assert.equal(await red.locator('.entropy-list li').count(), 2);
  assert.match(await red.locator('.log-entry[data-type="entropy_contributed"]').first().locator('.log-summary').textContent(), /^side blue added entropy to the dice \(in force from the next die, with 2 contributions in all\)$/);

  // A die under both contributions, a reveal: the contributions end, the dice verify.
  await roll(red, '1d20', 'red-knight');
  await blue.getByRole('button', { name: 'Reveal dice seed' }).click();
  await blue.locator('.reveal-result code').first().waitFor();
  await red.locator('.entropy-in-force', { hasText: 'None in force' }).waitFor();
  await blue.locator('.entropy-in-force', { hasText: 'None in force' }).waitFor();
  assert.equal((await getJson(`/v1/sessions/${duel.id}`, duel.referee)).session.dice.entropy, undefined);
  const out = await verify(red);
  assert.equal(await out.locator('.verify-ok').count(), 1, await out.textContent());
  assert.match(await out.locator('.dice-checked').textContent(), /^1 die recomputed from known seeds$/, 'the 1d20 rolled under both contributions');
  await screenshot(red, 'fair-06-after-reveal');
  assertNoPageErrors(red, [/status of 409/]);
  assertNoPageErrors(blue);
});
