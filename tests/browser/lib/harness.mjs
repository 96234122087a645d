// Shared by the browser tests: a real umpired on a free loopback port with a temporary
// database, Debian's Chromium through playwright-core, screenshots as artefacts, and checks
// that a page logged no error (a Content-Security-Policy violation is one).
//
// Environment:
//   UMPIRED            the daemon (default build/asan/umpired, relative to the repo root)
//   UMPIRE_WEB_ROOT    the web client directory the daemon serves (default: the tree's web/, so
//                      the tests see the files as they are now; "builtin" serves the copy built
//                      into the binary)
//   CHROMIUM           the browser (default /usr/bin/chromium)
//   BROWSER_ARTIFACTS  where screenshots go (default tests/browser/artifacts/)

import { spawn } from 'node:child_process';
import { before, after } from 'node:test';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const artifacts = path.resolve(repoRoot, process.env.BROWSER_ARTIFACTS || 'tests/browser/artifacts');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts umpired; resolves to {base, port, dir, stop(), log()} once /v1/health answers.
 * stop() sends SIGTERM and rejects unless the daemon exits 0 (ASan reports make it non-zero);
 * stop({keep: true}) keeps the database so that startDaemon({dir, port}) can start it again.
 */
export async function startDaemon({ dir: reuse, port: fixedPort } = {}) {
  const bin = path.resolve(repoRoot, process.env.UMPIRED || 'build/asan/umpired');
  assert.ok(existsSync(bin), `no daemon at ${bin}: build it (make test builds build/asan/umpired) or set UMPIRED`);
  const dir = reuse || mkdtempSync(path.join(tmpdir(), 'umpire-browser-'));
  const args = ['--db', path.join(dir, 'umpire.db')];
  const webRoot = process.env.UMPIRE_WEB_ROOT ?? path.join(repoRoot, 'web');
  // Every test talks from 127.0.0.1: the per-address rates of [limits] are lifted (their own
  // tests are tests/hostile/test_client_limits.py), and so is the per-client cap on live
  // streams (a closed page's stream is counted until the daemon sees it gone; tests/integration/
  // test_sse.py tests the cap).
  let confText = '[server]\nmax_streams_per_client = 1024\n[limits]\n' +
    ['create', 'actions', 'odds', 'verify', 'webhook_changes']
      .map((k) => `${k}_per_minute = 1000000\n${k}_burst = 1000000\n`).join('');
  if (webRoot !== 'builtin' && webRoot !== '') {
    confText += `[web]\nroot = ${JSON.stringify(path.resolve(repoRoot, webRoot))}\n`;
  }
  const conf = path.join(dir, 'umpire.toml');
  writeFileSync(conf, confText);
  args.unshift('--config', conf);
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = fixedPort || (await freePort());
    let stderr = '';
    const child = spawn(bin, [...args, '--listen', `127.0.0.1:${port}`], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ASAN_OPTIONS: process.env.ASAN_OPTIONS || 'detect_leaks=1:abort_on_error=0' },
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      stderr = (stderr + d).slice(-200000);
    });
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    let state = null;
    exited.then((s) => {
      state = s;
    });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30000;
    let up = false;
    while (!state && Date.now() < deadline) {
      try {
        const r = await fetch(`${base}/v1/health`);
        if (r.ok) {
          up = true;
          break;
        }
      } catch {
        /* not listening yet */
      }
      await sleep(100);
    }
    if (!up) {
      child.kill('SIGKILL');
      await exited;
      if (/listen/i.test(stderr) && attempt < 2 && !fixedPort) continue; // the port was taken meanwhile
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`umpired did not start:\n${stderr.slice(-4000)}`);
    }
    return {
      base,
      port,
      dir,
      log: () => stderr,
      async stop({ keep = false } = {}) {
        if (!state) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
        const st = await exited;
        clearTimeout(timer);
        if (!keep) rmSync(dir, { recursive: true, force: true });
        assert.equal(st.code, 0, `umpired exited with ${st.code ?? st.signal}:\n${stderr.slice(-6000)}`);
        assert.doesNotMatch(stderr, /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/, 'sanitizer report in the daemon log');
      },
    };
  }
  throw new Error('umpired: no free port after 3 attempts');
}

// One daemon and one browser for a whole test file, started before its first test and stopped
// after its last (a daemon that exits non-zero or printed a sanitizer report fails the file).
// Returns an object whose .daemon and .browser are set once `before` has run.
export function sharedDaemonAndBrowser() {
  const shared = { daemon: null, browser: null };
  before(async () => {
    shared.daemon = await startDaemon();
    shared.browser = await launchBrowser();
  });
  after(async () => {
    if (shared.browser) await shared.browser.close();
    if (shared.daemon) await shared.daemon.stop();
  });
  return shared;
}

export async function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true });
}

/** A page that records console errors and uncaught exceptions (see assertNoPageErrors). */
export async function newPage(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(`console: ${m.text()}`);
  });
  return page;
}

/** Fails on any error the page logged, except those a test expects (regexps). */
export function assertNoPageErrors(page, allowed = []) {
  const errs = page.errors.filter((e) => !allowed.some((re) => re.test(e)));
  assert.deepEqual(errs, [], 'the page logged errors');
}

export async function screenshot(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** POST /v1/sessions with a scenario's session body; returns {created, scenario}. */
export async function createFromScenario(base, id, patch = {}) {
  const scenario = await (await fetch(`${base}/v1/scenarios/${id}`)).json();
  const body = { ...scenario.session, ...patch };
  const res = await fetch(`${base}/v1/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 201, `creating ${id}: ${await res.clone().text()}`);
  return { created: await res.json(), scenario };
}

/** Resolves scenario actions ({as, type, ...}) through the API, each as its `as`; asserts 200. */
export async function postActions(base, created, actions) {
  for (const { as, ...body } of actions) {
    const token = as === 'referee' ? created.tokens.referee : created.tokens.sides[as];
    const res = await fetch(`${base}/v1/sessions/${created.session.id}/actions`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, `${body.type} as ${as}: ${await res.clone().text()}`);
  }
}

/** Ends the phase `n` times as `as` (the referee by default), through the API. */
export async function endPhases(base, created, n, as = 'referee') {
  await postActions(base, created, Array.from({ length: n }, () => ({ as, type: 'end_phase' })));
}

/** The page link of a role, as the client builds it. */
export function linkOf(base, created, as) {
  const token = as === 'referee' ? created.tokens.referee : created.tokens.sides[as];
  return `${base}/#session=${created.session.id}&token=${token}&as=${encodeURIComponent(as)}`;
}

/** Opens a session link and waits until the live log is connected. */
export async function openSession(page, url) {
  await page.goto(url);
  await page.locator('#conn[data-state=live]').waitFor();
  await page.locator('.log-entry[data-seq="1"]').waitFor();
}

/** The form of an action type, opened. */
export async function actionForm(page, type) {
  const details = page.locator(`details.action[data-action="${type}"]`);
  if (!(await details.evaluate((d) => d.open))) await details.locator(':scope > summary').click();
  return details.locator('form');
}
