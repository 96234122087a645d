// At phone width (360 x 740): no page scrolls sideways, whatever panel is open; every form
// control has an accessible name (in the DOM and in Chromium's accessibility tree); the page
// has its landmarks; the board works from the keyboard, with a visible focus.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, actionForm,
  createFromScenario, linkOf,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

async function assertNoOverflow(page, where) {
  const { scroll, client, culprits } = await page.evaluate(() => {
    const client = document.documentElement.clientWidth;
    // The widest elements, to say what overflows when something does.
    const culprits = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > client + 1 && !el.closest('.table-scroll, .board-scroll, pre, .log-list'))
      .slice(0, 5).map((el) => `${el.tagName.toLowerCase()}.${el.className && el.className.baseVal !== undefined ? el.className.baseVal : el.className}`);
    return { scroll: document.documentElement.scrollWidth, client, culprits };
  });
  assert.ok(scroll <= client, `${where}: the page is ${scroll}px wide in a ${client}px viewport (${culprits.join(', ')})`);
}

/** Every input, select and textarea (open or not) has a non-empty label by the DOM's rules. */
async function assertLabelled(page, where) {
  const bad = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden')
    .filter((el) => {
      const byLabel = el.labels ? [...el.labels].map((l) => l.textContent.trim()).join(' ') : '';
      const byAria = el.getAttribute('aria-label') || (el.getAttribute('aria-labelledby') || '').split(/\s+/)
        .map((id) => (document.getElementById(id) || {}).textContent || '').join(' ');
      return !(byLabel || byAria).trim();
    })
    .map((el) => el.outerHTML.slice(0, 120)));
  assert.deepEqual(bad, [], `${where}: form controls without a label`);
}

/** Chromium's own accessibility tree: every control the page shows has a name. */
async function assertAxNames(page, where) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const roles = new Set(['textbox', 'combobox', 'checkbox', 'spinbutton', 'listbox', 'button', 'link', 'radio']);
  const unnamed = nodes.filter((n) => !n.ignored && n.role && roles.has(n.role.value) && !(n.name && String(n.name.value).trim()));
  assert.deepEqual(unnamed.map((n) => n.role.value), [], `${where}: controls with no accessible name`);
  const controls = nodes.filter((n) => !n.ignored && n.role && ['textbox', 'combobox', 'checkbox', 'spinbutton'].includes(n.role.value));
  return controls.length;
}

async function assertLandmarks(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const roles = new Set(nodes.filter((n) => !n.ignored && n.role).map((n) => n.role.value));
  for (const r of ['banner', 'main', 'contentinfo', 'navigation']) assert.ok(roles.has(r), `landmark ${r}`);
}

test('phone width: start page and created links fit, every control is labelled', async () => {
  const page = await newPage(shared.browser, PHONE);
  await page.goto(`${shared.daemon.base}/`);
  await page.locator('#scenario-select option').first().waitFor({ state: 'attached' });
  await page.getByText('Or paste session JSON').click();
  await assertNoOverflow(page, 'start page');
  await assertLabelled(page, 'start page');
  assert.ok(await assertAxNames(page, 'start page') >= 5);
  await assertLandmarks(page);
  // The dice choice with its warning and the referee-only box open.
  await page.getByLabel('Manual dice').check();
  await page.getByLabel('Only the referee types the dice').check();
  await assertNoOverflow(page, 'start page, manual dice');
  await assertAxNames(page, 'start page, manual dice');
  await page.getByLabel('Server dice (recommended)').check();
  await page.selectOption('#scenario-select', 'spi-dark-ages-stamford-bridge');
  await page.getByRole('button', { name: 'Create from scenario' }).click();
  await page.locator('.session-link').first().waitFor();
  await assertNoOverflow(page, 'created links (64-digit tokens)');
  await screenshot(page, 'phone-01-created');
  assertNoPageErrors(page);
});

for (const [scenario, as] of [['vaevictis-corbach-1760-skirmish', 'french'], ['vis-magica-bog-and-cliffs', 'referee'], ['magic-realm-bats-at-the-crag', 'referee'], ['spi-dark-ages-stamford-bridge', 'referee']]) {
  test(`phone width: ${scenario} fits with every form open, controls labelled`, async () => {
    const { created, scenario: file } = await createFromScenario(shared.daemon.base, scenario);
    const page = await newPage(shared.browser, PHONE);
    await openSession(page, linkOf(shared.daemon.base, created, as));
    await page.locator('details.action > summary').first().waitFor(); // (folded on a phone)
    await assertNoOverflow(page, `${scenario}: board`);
    await assertLabelled(page, scenario);
    await assertLandmarks(page);
    // Every form offered now (a side is offered only what its phase allows).
    const types = await page.locator('details.action').evaluateAll((ds) => ds.filter((d) => !d.hidden).map((d) => d.dataset.action));
    assert.ok(types.length >= 2, `${scenario}: forms are offered to ${as}`);
    for (const type of types) {
      const form = await actionForm(page, type);
      await form.locator('details.extra > summary').click();
      await assertNoOverflow(page, `${scenario}: form ${type}`);
      assert.ok(await assertAxNames(page, `${scenario}: form ${type}`) >= 1, `${type}: its controls are in the accessibility tree`);
    }
    // The first scripted action, resolved: long summaries and the log still fit.
    const step = file.actions.findIndex((a) => a.as === as || as === 'referee');
    const first = file.actions[step];
    const form = await actionForm(page, first.type);
    await form.getByLabel('Example from a scenario').selectOption({ label: `${scenario}, step ${step + 1} (as ${first.as})` });
    await form.getByRole('button', { name: 'Fill in' }).click();
    await form.getByRole('button', { name: 'Odds' }).click();
    await form.locator('.odds-view, .error').first().waitFor();
    await assertNoOverflow(page, `${scenario}: odds`);
    await form.getByRole('button', { name: 'Resolve' }).click();
    await form.locator('.outcome .summary').waitFor();
    await page.locator('.log-entry[data-seq="2"]').waitFor();
    await page.locator('.log-entry[data-seq="2"] > details > summary').click();
    await assertNoOverflow(page, `${scenario}: after an action`);
    await screenshot(page, `phone-02-${scenario}`);
    assertNoPageErrors(page);
  });
}

test('keyboard: a unit counter is reachable by Tab, Enter picks it, the focus is visible', async () => {
  const { created } = await createFromScenario(shared.daemon.base, 'vaevictis-corbach-1760-skirmish');
  const page = await newPage(shared.browser, PHONE);
  await openSession(page, linkOf(shared.daemon.base, created, 'french'));
  const move = await actionForm(page, 'move');
  await page.locator('#zoom').focus();
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => document.activeElement.getAttribute('data-unit'));
  assert.equal(focused, 'fr-line', 'the first counter follows the zoom button');
  const stroke = await page.evaluate(() => getComputedStyle(document.activeElement.querySelector('rect.counter')).stroke);
  assert.equal(stroke, 'rgb(194, 94, 0)', 'the focused counter is outlined');
  await page.keyboard.press('Enter');
  assert.equal(await move.locator('select[name="unit"]').inputValue(), 'fr-line');
  // Buttons show a focus outline too.
  await page.locator('#zoom').focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.equal(outline, 'solid');
  assertNoPageErrors(page);
});
