// The sequence of play in the web client, for every ruleset that has one (GET /v1/rulesets/{id}
// `sequence`, state.turn): the banner above the board says whose turn and phase it is to the
// side in turn, to a side waiting and to the referee; a waiting side is not offered the
// actions of the side in turn; End phase moves the turn on, live in the other pages.
// Table-driven: a ruleset whose description has no sequence yet is skipped, by name.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedDaemonAndBrowser, newPage, screenshot, assertNoPageErrors, openSession, createFromScenario, linkOf,
} from './lib/harness.mjs';

const shared = sharedDaemonAndBrowser();

// The rulesets and their example scenarios, read from the daemon the tests start (the table is
// built inside the one test below, so that it follows the binary under test).
async function table(base) {
  const ids = (await (await fetch(`${base}/v1/rulesets`)).json()).rulesets.map((r) => r.id);
  const scs = (await (await fetch(`${base}/v1/scenarios`)).json()).scenarios;
  const rows = [];
  for (const id of ids) {
    const desc = await (await fetch(`${base}/v1/rulesets/${id}`)).json();
    // The ruleset's first scenario whose setup asks for a turn when it has to ask (generic's
    // sequence is only the setup's choice: generic-turns), else its first.
    const mine = scs.filter((s) => s.ruleset === id);
    let scenario = mine.length ? mine[0].id : null;
    for (const s of mine) {
      const file = await (await fetch(`${base}/v1/scenarios/${s.id}`)).json();
      if (file.session && file.session.setup && file.session.setup.turn) { scenario = s.id; break; }
    }
    rows.push({ id, sequence: desc.sequence || null, scenario });
  }
  return rows;
}

async function stateOf(base, created) {
  const r = await fetch(`${base}/v1/sessions/${created.session.id}`, { headers: { Authorization: `Bearer ${created.tokens.referee}` } });
  return (await r.json()).state;
}

const banner = (page) => page.locator('#turn-banner .turn-text');

// Who leads the phase: an acting side with a step of its own (not only an "every side" one).
// In a phase that comes once a turn for every side, every acting side that has not ended its
// part leads.
function leaders(sequence, turn) {
  const phase = sequence.phases.find((p) => p.name === turn.phase);
  const notDone = (side) => !(turn.done || []).includes(side);
  if (phase.once) return turn.acting.filter(notDone);
  const mine = (side, who) => (who === 'player' ? side === turn.player : who === 'opponent' ? side !== turn.player : true);
  return turn.acting.filter((side) => phase.steps.some((s) => s.who !== 'every side' && mine(side, s.who)));
}

test('turn banner, legal actions and End phase, per ruleset with a sequence of play', async (t) => {
  const base = shared.daemon.base;
  const rows = await table(base);
  assert.ok(rows.some((r) => r.id === 'vis-magica' && r.sequence), 'vis-magica describes its sequence of play');
  for (const row of rows) {
    if (!row.sequence) {
      await t.test(row.id, { skip: `${row.id}: its ruleset description has no sequence of play yet` }, () => {});
      continue;
    }
    if (!row.scenario) {
      await t.test(row.id, { skip: `${row.id}: no example scenario to play` }, () => {});
      continue;
    }
    await t.test(row.id, async () => {
      const { created } = await createFromScenario(base, row.scenario);
      const turn0 = (await stateOf(base, created)).turn;
      assert.ok(turn0 && turn0.phase, `${row.id}: the state of a new session carries turn`);
      const phase0 = row.sequence.phases.find((p) => p.name === turn0.phase);
      const lead = leaders(row.sequence, turn0)[0] || turn0.player;
      const other = turn0.order.find((s) => s !== lead);
      assert.ok(other, `${row.id}: a second side`);

      const pLead = await newPage(shared.browser);
      const pOther = await newPage(shared.browser);
      const pRef = await newPage(shared.browser);
      await openSession(pLead, linkOf(base, created, lead));
      await openSession(pOther, linkOf(base, created, other));
      await openSession(pRef, linkOf(base, created, 'referee'));

      // The banner comes first, above the board.
      for (const p of [pLead, pOther, pRef]) {
        await banner(p).waitFor();
        const above = await p.evaluate(() => {
          const b = document.getElementById('turn-banner');
          const board = document.getElementById('board');
          return !!(b.compareDocumentPosition(board) & Node.DOCUMENT_POSITION_FOLLOWING);
        });
        assert.ok(above, `${row.id}: the banner is above the board`);
      }
      const title = phase0.title || phase0.name;
      const together = leaders(row.sequence, turn0).includes(other); // both sides act in this phase
      assert.equal(await banner(pLead).textContent(), `Your turn: ${lead}, ${title}`);
      if (together) assert.equal(await banner(pOther).textContent(), `Your turn: ${other}, ${title}`);
      else assert.match(await banner(pOther).textContent(), new RegExp(`^Waiting for the .*${lead}`));
      assert.equal(await banner(pRef).textContent(), `Turn ${turn0.number}, ${turn0.player}: ${title}`);
      assert.equal(await pRef.locator('#turn-banner button.end-phase').count(), 1, 'the referee may end the phase');
      for (const p of [pLead, pOther]) assert.doesNotMatch(await p.locator('#turn-banner').textContent(), /[{}[\]"]/, 'no raw JSON for players');

      // A waiting side is not offered the lead's own actions; the lead is.
      const leadOnly = phase0.steps.filter((s) => s.who === 'player' && lead === turn0.player && other !== turn0.player).map((s) => s.action);
      for (const a of leadOnly) {
        assert.equal(await pOther.locator(`details.action[data-action="${a}"]`).isVisible(), false, `${row.id}: ${other} is not offered ${a}`);
        assert.equal(await pLead.locator(`details.action[data-action="${a}"]`).isVisible(), true, `${row.id}: ${lead} is offered ${a}`);
      }
      // Nothing of another phase is offered to a side (end_phase aside).
      const here = new Set([...phase0.steps.map((s) => s.action), 'end_phase']);
      const visible = async (p) => p.locator('details.action').evaluateAll((ds) => ds.filter((d) => !d.hidden).map((d) => d.dataset.action));
      for (const a of await visible(pLead)) assert.ok(here.has(a), `${row.id}: ${a} is not in the ${title} phase`);
      // The referee sees every action, those out of sequence marked as an override.
      const all = await pRef.locator('details.action').evaluateAll((ds) => ds.map((d) => [d.dataset.action, !d.hidden, !!d.querySelector('.override-mark')]));
      for (const [a, shown, marked] of all) {
        if (a === 'accept' || a === 'dispute') { // a claim is answered from the banner (claims.test.mjs)
          assert.ok(!shown, `${row.id}: ${a} is not a form`);
          continue;
        }
        assert.ok(shown, `${row.id}: the referee sees ${a}`);
        assert.equal(marked, !here.has(a), `${row.id}: ${a} ${here.has(a) ? 'is' : 'is not'} in sequence for the referee`);
      }
      await screenshot(pLead, `turn-${row.id}-01-lead`);
      await screenshot(pOther, `turn-${row.id}-02-waiting`);

      // End phase, from the page of a side that may end it (else the referee's), moves it on;
      // the other pages follow live.
      const ender = (await pLead.locator('#turn-banner button.end-phase').count()) ? pLead : pRef;
      if (together && phase0.ends === 'each side' && ender === pLead) {
        // Each side ends its own part: the lead's end leaves the phase to the other side, and
        // the lead's page says so; the other side's end then moves the phase on.
        await ender.locator('#turn-banner button.end-phase').click();
        await pLead.locator('#turn-banner .turn-text', { hasText: new RegExp(`^Waiting for the ${other}`) }).waitFor();
        assert.equal((await stateOf(base, created)).turn.phase, turn0.phase, `${row.id}: one side's end leaves the phase to the other`);
        assert.equal(await pLead.locator('details.action:not([hidden])').evaluateAll((ds) => ds.filter((d) => d.dataset.action !== 'end_phase').length), 0,
          `${row.id}: a side that ended its part is offered nothing more in the phase`);
        await banner(pOther).waitFor();
      }
      const before = await banner(pOther).textContent();
      await (together && phase0.ends === 'each side' && ender === pLead ? pOther : ender).locator('#turn-banner button.end-phase').click();
      await assert.doesNotReject(async () => {
        for (let i = 0; i < 100; i++) {
          const st = (await stateOf(base, created)).turn;
          if (st.phase !== turn0.phase || st.number !== turn0.number || st.player !== turn0.player) return;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('the turn did not move on');
      });
      const turn1 = (await stateOf(base, created)).turn;
      const phase1 = row.sequence.phases.find((p) => p.name === turn1.phase);
      await pRef.locator('#turn-banner .turn-text', { hasText: `Turn ${turn1.number}, ${turn1.player}: ${phase1.title || phase1.name}` }).waitFor();
      await pOther.waitForFunction((b) => document.querySelector('#turn-banner .turn-text')?.textContent !== b, before);
      await screenshot(pOther, `turn-${row.id}-03-after-end-phase`);

      for (const p of [pLead, pOther, pRef]) {
        assertNoPageErrors(p);
        await p.context().close();
      }
    });
  }
});
