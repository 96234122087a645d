// The odds panel says what is true: every answer is an exact enumeration, and `exact: false`
// only means the dice combinations were not equally likely (docs/api.md, Exact odds). It once
// read "approximate" for those.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedDaemonAndBrowser, newPage, assertNoPageErrors } from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

test('odds with unequally likely combinations are not called approximate', async () => {
  const page = await newPage(shared.browser);
  await page.goto(`${shared.daemon.base}/`);
  // A real answer of the daemon whose combinations are weighted: a horse-and-musket fire with
  // rolled hits, where the morale test is rolled on some branches only (as in
  // tests/integration/test_horse_and_musket.py), beside a generic roll (equally likely).
  const texts = await page.evaluate(async () => {
    const { renderOdds } = await import('/js/results.js');
    const post = async (path, body, token) => (await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    })).json();
    const sc = await (await fetch('/v1/scenarios/horse-and-musket-la-haye-sainte')).json();
    const session = { ...sc.session, dice: { mode: 'server' }, options: { ...sc.session.options, hits: 'rolled' } };
    const made = await post('/v1/sessions', session);
    const weighted = await post(`/v1/sessions/${made.session.id}/odds`,
      { type: 'fire', unit: 'fr-guard', target: 'br-redcoats', hits: '1d6-2' }, made.tokens.sides.french);
    const fair = await post('/v1/rulesets/generic/odds', { type: 'roll', expr: '2d6' });
    return { exact: [weighted.exact, fair.exact], weighted: renderOdds(weighted).textContent, fair: renderOdds(fair).textContent };
  });
  assert.deepEqual(texts.exact, [false, true], 'the two answers cover both cases');
  assert.match(texts.weighted, /Exact odds/);
  assert.match(texts.weighted, /combinations weighted by their chance/);
  assert.doesNotMatch(texts.weighted, /approximate/i);
  assert.match(texts.fair, /equally likely combinations/);
  assertNoPageErrors(page);
  await page.close();
});
