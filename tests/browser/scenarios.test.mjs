// Every example scenario played through in the web client, in turn order (issue 23, item 5):
// each step on the page of the side (or referee) it names, the action's form filled from the
// scenario's own example (Fill in) and resolved, a claim accepted from the banner (a side is
// offered only the forms legal in its turn, so each step is found where the turn puts it). At the
// end the session has every step and verifies.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedDaemonAndBrowser, newPage, assertNoPageErrors, openSession, createFromScenario, linkOf, actionForm, screenshot } from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

async function getJson(path, token) {
  const r = await fetch(`${shared.daemon.base}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return r.json();
}

async function until(fn, what, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('every example scenario plays through in the browser, in turn order', async (t) => {
  const base = shared.daemon.base;
  const list = (await getJson('/v1/scenarios')).scenarios;
  assert.ok(list.length >= 7);
  for (const sc of list) {
    await t.test(sc.id, async () => {
      const { created, scenario } = await createFromScenario(base, sc.id);
      const sid = created.session.id;
      const ref = created.tokens.referee;
      const pages = new Map();
      const pageOf = async (as) => {
        if (!pages.has(as)) {
          const p = await newPage(shared.browser);
          await openSession(p, linkOf(base, created, as));
          pages.set(as, p);
        }
        return pages.get(as);
      };
      let version = (await getJson(`/v1/sessions/${sid}`, ref)).session.version;
      for (const [i, step] of scenario.actions.entries()) {
        const { as, ...body } = step;
        const page = await pageOf(as);
        // The page of whoever acts follows the session before acting (live events).
        await until(async () => page.evaluate((v) => Number(document.querySelector('.log-entry')?.dataset.seq || 0) >= v, version), `${sc.id} step ${i + 1}: the page at version ${version}`);
        if (body.type === 'accept') {
          await page.locator('#turn-banner button.claim-accept').click();
        } else {
          const form = await actionForm(page, body.type);
          const label = `${sc.id}, step ${i + 1}`;
          const select = form.locator('.field.example select');
          const value = await select.evaluate((sel, want) => [...sel.options].find((o) => o.textContent.startsWith(want))?.value, label);
          assert.ok(value !== undefined, `${label}: the form offers the scenario's step as an example`);
          await select.selectOption(value);
          await form.locator('.field.example button').click();
          await form.locator('button.resolve-button').click();
        }
        const after = await until(async () => {
          const s = (await getJson(`/v1/sessions/${sid}`, ref)).session;
          return s.version > version ? s.version : null;
        }, `${sc.id} step ${i + 1} (${body.type} as ${as}) to commit`);
        version = after;
      }
      const rep = await getJson(`/v1/sessions/${sid}/verify`, ref);
      assert.equal(rep.ok, true, `${sc.id}: the chain verifies: ${JSON.stringify(rep)}`);
      assert.equal(rep.actions_readjudicated, scenario.actions.length, `${sc.id}: every step is in the log`);
      const last = pages.get(scenario.actions[scenario.actions.length - 1].as);
      await screenshot(last, `scenario-${sc.id}-end`);
      for (const p of pages.values()) {
        assertNoPageErrors(p);
        await p.context().close();
      }
    });
  }
});
