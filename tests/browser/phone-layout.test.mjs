// At a 390 px phone (issue 23, item 4): the turn banner, the board, the list of actions and the
// log follow each other without 2,000 px of scrolling, for each ruleset's example scenario. The
// unit table (the drawing's accessible alternative) and the action forms start folded there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, createFromScenario, linkOf } from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

test('390 px: banner, board, actions and log within 2,000 px, per example scenario', async (t) => {
  const base = shared.daemon.base;
  const scenarios = (await (await fetch(`${base}/v1/scenarios`)).json()).scenarios;
  assert.ok(scenarios.length >= 6);
  for (const sc of scenarios) {
    await t.test(sc.id, async () => {
      const { created, scenario } = await createFromScenario(base, sc.id);
      const side = scenario.session.sides[0];
      const page = await newPage(shared.browser, PHONE);
      await openSession(page, linkOf(base, created, side));
      const m = await page.evaluate(() => {
        const top = (sel) => { const e = document.querySelector(sel); return e && !e.hidden ? e.getBoundingClientRect().top + scrollY : null; };
        const folded = document.querySelector('details.units-fold');
        return {
          first: top('#turn-banner') ?? top('#board-panel'), board: top('#board-panel'), act: top('#act-panel'), log: top('#log-panel'),
          unitsFolded: folded ? !folded.open : null, openForms: document.querySelectorAll('details.action[open]').length,
        };
      });
      assert.ok(m.first <= m.board && m.board < m.act && m.act < m.log, `${sc.id}: banner, board, actions, log in order: ${JSON.stringify(m)}`);
      assert.ok(m.log - m.first < 2000, `${sc.id}: the log starts ${Math.round(m.log - m.first)} px below the banner`);
      assert.equal(m.openForms, 0, `${sc.id}: the forms start folded on a phone`);
      if (m.unitsFolded !== null) assert.equal(m.unitsFolded, true, `${sc.id}: the unit table starts folded under a drawing`);
      // Unfolded on demand: the table is still there, every unit a row.
      if (m.unitsFolded) {
        await page.locator('details.units-fold > summary').click();
        assert.ok(await page.locator('details.units-fold table.units tbody tr').count() >= 2);
      }
      await screenshot(page, `phone-layout-${sc.id}`);
      assertNoPageErrors(page);
      await page.close();
    });
  }
});
