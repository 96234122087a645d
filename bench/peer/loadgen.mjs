// The load generator of bench/peer (bench/README.md, "Live fan-out" and "boardgame.io peer").
// Node, loopback only. Measures and prints; never judges a figure.
//
//   node loadgen.mjs peer --target umpire|bgio --watch 0|1 --port P --server-pid PID
//        [--clients 50] [--seconds 5] [--warmup 1] [--workers 1] [--bgio-client raw|lib] [--json FILE]
//   node loadgen.mjs fanout --port P --server-pid PID --subs N
//        [--posters 8] [--sub-workers 2] [--rate 0] [--seconds 5] [--warmup 1] [--json FILE]
//   node loadgen.mjs ratios FILE...    the ratio lines from the JSON files of the runs above
//
// Prints one row per run (and its figures as JSON to --json FILE).
//
// peer: C clients on ONE shared session (Umpire) or match (boardgame.io), each in a closed loop:
//   a move, wait for its acknowledgement, the next. The move is the roll of 2d6.
//   Umpire: POST /v1/sessions/{id}/actions {"type":"roll","expr":"2d6"} with a side's token over a
//   keep-alive connection of its own (RawHttp, as the fan-out posters); acknowledged = its 2xx.
//   With watchers each client also holds the session's live stream (SSE, GET .../events,
//   Accept: text/event-stream) on a connection of its own and decodes every event (JSON.parse),
//   checking that seqs arrive contiguous.
//   boardgame.io, --bgio-client raw (the default): socket.io-client, the library boardgame.io's
//   own client uses, speaking boardgame.io's protocol without the redux store: `sync` once, then
//   `update` with a MAKE_MOVE of `roll`. --bgio-client lib: boardgame.io's own client
//   (boardgame.io/client with SocketIO from boardgame.io/multiplayer, websocket transport),
//   client.moves.roll(nonce). Either way: acknowledged = the state
//   broadcast to this client whose G.last_roll is its own move (player and nonce: the state that
//   holds its move; every state is broadcast to every client of the match, in order), and every
//   state's _stateID is checked for contiguity. With watchers all C clients are on one match, so
//   every move is broadcast to all C of them (boardgame.io cannot acknowledge a move any other
//   way). Without watchers each client is alone on a match of its own (numPlayers C), so each move
//   reaches its mover only: the nearest boardgame.io has to "no other subscribers", and its most
//   favourable case (no shared match either).
// fanout (Umpire alone): one busy generic session A that --posters connections keep posting the
//   roll to (referee token, raw keep-alive HTTP/1.1, closed loop each), --subs SSE subscribers on
//   A (raw sockets, chunked decoding, every event's id read and checked for contiguity, reconnect
//   with Last-Event-ID if the daemon drops one), and one client on a separate session B posting
//   the same roll one at a time, whose latency is recorded. Each role runs in a worker thread of
//   its own (the subscribers split over --sub-workers threads), so the subscribers' reading does
//   not delay B's clock. --rate R (actions/s, 0: as fast as answered) paces A's posters to R in
//   all, so that rows with different N put the same load on session A and B's latency measures
//   what the subscribers cost it, not how saturated the machine is.
// Server CPU: utime + stime of --server-pid from /proc/PID/stat over the measured window (after
// --warmup seconds). Load generator CPU: process.cpuUsage() over the same window.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const HOST = '127.0.0.1';
const ROLL = JSON.stringify({ type: 'roll', expr: '2d6' });
const GAME = 'umpire-roll';
const absNow = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function fail(msg) {
  process.stderr.write(`loadgen: ${msg}\n`);
  process.exit(2);
}

// ---- small helpers ---------------------------------------------------------------------------
function parseArgs(argv) {
  const o = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const k = a.slice(2);
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) fail(`${a} needs a value`);
      o[k] = v;
      i++;
    } else o._.push(a);
  }
  return o;
}
function intArg(o, k, def, min, max) {
  const v = o[k] === undefined ? def : Number(o[k]);
  if (!Number.isInteger(v) || v < min || v > max) fail(`--${k} must be an integer ${min}..${max}`);
  return v;
}
function numArg(o, k, def, min, max) {
  const v = o[k] === undefined ? def : Number(o[k]);
  if (!Number.isFinite(v) || v < min || v > max) fail(`--${k} must be a number ${min}..${max}`);
  return v;
}

let clkTck = 100;
try { clkTck = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100; } catch { /* 100 */ }
function cpuTicks(pid) { // utime + stime of the whole process (all threads)
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // fields 14 and 15 of stat(5)
}

function pct(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function request(port, method, path, body, token) { // setup requests only
  return new Promise((resolve, reject) => {
    const headers = { Host: `${HOST}:${port}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (token) headers.Authorization = `Bearer ${token}`;
    const req = http.request({ host: HOST, port, method, path, headers, agent: false }, (res) => {
      let d = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { d += c; });
      res.on('end', () => {
        if (res.statusCode < 200 || res.statusCode > 299) reject(new Error(`${method} ${path} -> ${res.statusCode}: ${d.slice(0, 300)}`));
        else resolve(d ? JSON.parse(d) : null);
      });
    });
    req.on('error', reject);
    req.setTimeout(30000, () => req.destroy(new Error(`${method} ${path}: timeout`)));
    if (body !== undefined) req.end(JSON.stringify(body)); else req.end();
  });
}

async function createSession(port, title, sides) {
  const s = await request(port, 'POST', '/v1/sessions', { ruleset: 'generic', title, sides, dice: { mode: 'server' } });
  return { id: s.session.id, version: s.session.version, referee: s.tokens.referee, sides: s.tokens.sides };
}

// A sequence checker: contiguous from the first seq after `after`.
class SeqCheck {
  constructor(after) { this.last = after; this.count = 0; this.gaps = 0; this.backwards = 0; }
  see(seq) {
    if (seq === this.last + 1) this.last = seq;
    else if (seq > this.last + 1) { this.gaps++; this.last = seq; }
    else this.backwards++;
    this.count++;
  }
}

// ---- raw HTTP/1.1 keep-alive client (fan-out posters and B) ---------------------------------
class RawHttp {
  constructor(port, path, token, body) {
    this.port = port;
    this.req = Buffer.from(`POST ${path} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    this.sock = null;
    this.pending = null;
    this.buf = null;
  }
  connect() {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host: HOST, port: this.port });
      s.setNoDelay(true);
      s.once('connect', () => { this.sock = s; resolve(); });
      s.once('error', reject);
      s.on('data', (d) => this.onData(d));
      s.on('close', () => {
        this.sock = null;
        const why = this.timedOut ? 'no answer in 10 s' : 'connection closed by the server';
        this.timedOut = false;
        if (this.pending) { const p = this.pending; this.pending = null; p.reject(new Error(why)); }
      });
      s.on('error', () => {});
    });
  }
  async post() { // resolves { status, body }
    if (!this.sock) await this.connect();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.timedOut = true; if (this.sock) this.sock.destroy(); }, 10000);
      this.pending = { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } };
      this.buf = null;
      this.sock.write(this.req);
    });
  }
  onData(d) {
    this.buf = this.buf ? Buffer.concat([this.buf, d]) : d;
    const he = this.buf.indexOf('\r\n\r\n');
    if (he < 0 || !this.pending) return;
    const head = this.buf.toString('latin1', 0, he);
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!m) { const p = this.pending; this.pending = null; this.sock.destroy(); p.reject(new Error('answer without Content-Length')); return; }
    const len = Number(m[1]);
    if (this.buf.length < he + 4 + len) return;
    const status = Number(head.slice(9, 12));
    const body = this.buf.toString('utf8', he + 4, he + 4 + len);
    this.buf = null;
    const p = this.pending;
    this.pending = null;
    if (/\r\nconnection:\s*close/i.test(head)) this.sock.destroy();
    p.resolve({ status, body });
  }
  close() { if (this.sock) this.sock.destroy(); }
}
const versionOf = (body) => {
  const i = body.lastIndexOf('"version":');
  return i < 0 ? 0 : parseInt(body.slice(i + 10), 10) || 0;
};

// ---- SSE over a raw socket: chunked decoding, ids only (fan-out subscribers) -----------------
class RawSse {
  // onIds(n): called with how many ids a read delivered (for the window count)
  constructor(port, path, token, after, onIds) {
    this.port = port; this.path = path; this.token = token; this.onIds = onIds;
    this.check = new SeqCheck(after);
    this.reconnects = 0; this.status = 0; this.closedByUs = false;
    this.error = null; // a final failure (refused, undecodable, given up); socket errors are counted
    this.sockErrors = 0; this.lastSockError = null;
  }
  open() {
    return new Promise((resolve) => {
      this.resetParser();
      const s = net.connect({ host: HOST, port: this.port });
      this.sock = s;
      s.setNoDelay(true);
      let head = Buffer.alloc(0);
      let inHead = true;
      this.readyResolve = resolve;
      s.once('connect', () => {
        const lei = this.check.last > 0 ? `Last-Event-ID: ${this.check.last}\r\n` : '';
        s.write(`GET ${this.path} HTTP/1.1\r\nHost: ${HOST}:${this.port}\r\nAccept: text/event-stream\r\n` +
          `Authorization: Bearer ${this.token}\r\n${lei}\r\n`);
      });
      s.on('data', (d) => {
        if (inHead) {
          head = Buffer.concat([head, d]);
          const he = head.indexOf('\r\n\r\n');
          if (he < 0) return;
          const h = head.toString('latin1', 0, he);
          this.status = Number(h.slice(9, 12));
          this.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(h);
          inHead = false;
          if (this.status !== 200) { this.error = `HTTP ${this.status}`; this.closedByUs = true; s.destroy(); this.done(); return; }
          this.done();
          d = head.subarray(he + 4);
          head = null;
          if (!d.length) return;
        }
        this.feed(d);
      });
      s.on('error', (e) => { this.sockErrors++; this.lastSockError = e.code || String(e); });
      s.on('close', () => {
        this.done();
        if (this.closedByUs) return;
        // Dropped by the daemon (a subscriber that fell behind, or the stream's lifetime):
        // reconnect with Last-Event-ID, as an EventSource would, missing nothing.
        this.reconnects++;
        if (this.reconnects > 100) { this.error = `reconnected 100 times (${this.lastSockError})`; return; }
        setTimeout(() => this.open(), 10);
      });
    });
  }
  done() { if (this.readyResolve) { const r = this.readyResolve; this.readyResolve = null; r(); } }
  close() { this.closedByUs = true; if (this.sock) this.sock.destroy(); }
  resetParser() { this.cst = 0; this.sizeLine = ''; this.left = 0; this.crlf = 0; this.partial = null; this.skipping = false; }
  feed(d) {
    if (!this.chunked) { this.lines(d); return; }
    let p = 0;
    const n = d.length;
    while (p < n) {
      if (this.cst === 0) { // chunk-size line
        const nl = d.indexOf(10, p);
        if (nl < 0) { this.sizeLine += d.toString('latin1', p); return; }
        this.sizeLine += d.toString('latin1', p, nl);
        p = nl + 1;
        const size = parseInt(this.sizeLine, 16);
        this.sizeLine = '';
        if (!(size >= 0)) { this.error = 'bad chunk'; this.close(); return; }
        if (size === 0) { // the daemon ended the stream (its lifetime): reconnect, as on a close
          this.cst = 3;
          this.sock.destroy();
          return;
        }
        this.left = size; this.cst = 1;
      } else if (this.cst === 1) {
        const take = Math.min(this.left, n - p);
        this.lines(d.subarray(p, p + take));
        p += take; this.left -= take;
        if (this.left === 0) { this.cst = 2; this.crlf = 2; }
      } else if (this.cst === 2) {
        const take = Math.min(this.crlf, n - p);
        p += take; this.crlf -= take;
        if (this.crlf === 0) this.cst = 0;
      } else return;
    }
  }
  // SSE lines: only "id: N" lines matter; every other line is skipped without a copy.
  lines(b) {
    let p = 0, ids = 0;
    const e = b.length;
    while (p < e) {
      const nl = b.indexOf(10, p);
      if (this.partial !== null) {
        if (nl < 0) { this.partial += b.toString('latin1', p); if (this.partial.length > 64) { this.partial = null; this.skipping = true; } break; }
        const line = this.partial + b.toString('latin1', p, nl);
        this.partial = null;
        if (line.startsWith('id:')) { this.check.see(parseInt(line.slice(3).trim(), 10)); ids++; }
        p = nl + 1;
        continue;
      }
      if (this.skipping) { if (nl < 0) break; this.skipping = false; p = nl + 1; continue; }
      if (nl < 0) {
        const frag = b.toString('latin1', p, Math.min(e, p + 8));
        if ('id:'.startsWith(frag) || frag.startsWith('id:')) this.partial = b.toString('latin1', p); else this.skipping = true;
        break;
      }
      if (b[p] === 105 && b[p + 1] === 100 && b[p + 2] === 58) { // "id:"
        let q = p + 3, v = 0;
        while (q < nl && b[q] === 32) q++;
        while (q < nl && b[q] >= 48 && b[q] <= 57) { v = v * 10 + (b[q] - 48); q++; }
        this.check.see(v);
        ids++;
      }
      p = nl + 1;
    }
    if (ids) this.onIds(ids);
  }
}

// ---- SSE through node:http, every event decoded (peer watchers) ----------------------------
class HttpSse {
  constructor(port, path, token, after, onEvent) {
    this.port = port; this.path = path; this.token = token; this.onEvent = onEvent;
    this.check = new SeqCheck(after);
    this.reconnects = 0; this.closedByUs = false; this.error = null; this.buf = '';
    this.sockErrors = 0; this.lastSockError = null;
  }
  open() {
    return new Promise((resolve) => {
      const headers = { Host: `${HOST}:${this.port}`, Accept: 'text/event-stream', Authorization: `Bearer ${this.token}` };
      if (this.check.last > 0) headers['Last-Event-ID'] = String(this.check.last);
      this.buf = '';
      const req = http.get({ host: HOST, port: this.port, path: this.path, headers, agent: false }, (res) => {
        this.res = res;
        if (res.statusCode !== 200) { this.error = `HTTP ${res.statusCode}`; this.closedByUs = true; res.destroy(); resolve(); return; }
        res.setEncoding('utf8');
        resolve();
        res.on('data', (c) => this.data(c));
        res.on('close', () => {
          if (this.closedByUs) return;
          this.reconnects++;
          if (this.reconnects > 100) { this.error = 'reconnected 100 times'; return; }
          setTimeout(() => this.open(), 10);
        });
      });
      this.req = req;
      req.on('error', (e) => {
        this.sockErrors++; this.lastSockError = e.code || String(e);
        if (!this.res) this.error = `cannot connect: ${this.lastSockError}`; // never opened
        else if (!this.closedByUs && ++this.reconnects <= 100) setTimeout(() => this.open(), 10);
        else if (!this.closedByUs) this.error = `reconnected 100 times (${this.lastSockError})`;
        resolve();
      });
    });
  }
  data(c) {
    this.buf += c;
    let i;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const d = block.indexOf('data: ');
      if (d < 0) continue; // a comment (": stream open", ": heartbeat")
      const nl = block.indexOf('\n', d);
      const ev = JSON.parse(block.slice(d + 6, nl < 0 ? undefined : nl));
      this.check.see(ev.seq);
      this.onEvent(ev);
    }
  }
  close() { this.closedByUs = true; if (this.req) this.req.destroy(); if (this.res) this.res.destroy(); }
}

// ---- the window: counts taken between markAt and stopAt (absolute ms) ------------------------
class Window {
  constructor() { this.markAt = Infinity; this.stopAt = Infinity; this.acks = 0; this.deliveries = 0; this.lat = []; this.errors = {}; }
  set(markAt, stopAt) { this.markAt = markAt; this.stopAt = stopAt; }
  in(t) { return t >= this.markAt && t < this.stopAt; }
  ack(t, ms) { if (this.in(t)) { this.acks++; if (ms !== undefined) this.lat.push(ms); } }
  err(what) { this.errors[what] = (this.errors[what] || 0) + 1; }
  over() { return absNow() >= this.stopAt; }
}

// ==== workers ==================================================================================
async function workerMain() {
  const w = workerData;
  const win = new Window();
  let role;
  if (w.role === 'umpire-peer') role = umpirePeer(w, win);
  else if (w.role === 'bgio-peer') role = await bgioPeer(w, win);
  else if (w.role === 'fan-subs') role = fanSubs(w, win);
  else if (w.role === 'fan-post') role = fanPost(w, win);
  else if (w.role === 'fan-lat') {
    // B's client is the probe: at nice -10 (root; else as it is), so that what it measures is the
    // daemon's answer, not how long this thread waited for a core behind the stream readers.
    try { os.setPriority(0, -10); } catch { /* not allowed */ }
    role = fanPost(w, win);
  }
  else throw new Error(`unknown role ${w.role}`);
  await role.setup();
  parentPort.on('message', async (m) => {
    if (m.cmd === 'go') {
      win.set(m.markAt, m.stopAt);
      const wait = m.t0 - absNow();
      if (wait > 0) await sleep(wait);
      const top = await role.run(); // returns when the window is over and nothing is in flight
      parentPort.postMessage({ type: 'stopped', top });
    } else if (m.cmd === 'drain') {
      const extra = await role.drain(m.final, m.deadline);
      role.close();
      win.lat.sort((a, b) => a - b);
      parentPort.postMessage({
        type: 'result', acks: win.acks, deliveries: win.deliveries, errors: win.errors,
        p50: pct(win.lat, 50), p99: pct(win.lat, 99), max: win.lat.length ? win.lat[win.lat.length - 1] : null,
        lat: w.wantLat ? win.lat : undefined, ...extra,
      });
    }
  });
  parentPort.postMessage({ type: 'ready' });
}

// Closed loop: `step()` resolves with true on an acknowledged move; loops until the window ends.
// perSec > 0: at most that many steps a second (a step is sent at its time, or at once when late).
async function closedLoop(step, win, perSec = 0) {
  const gap = perSec > 0 ? 1000 / perSec : 0;
  let next = performance.now() + Math.random() * gap;
  while (!win.over()) {
    if (gap) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      next += gap;
    }
    const t = performance.now();
    let ok = false;
    try { ok = await step(); } catch (e) { win.err(String(e.message || e).slice(0, 60)); await sleep(5); continue; }
    if (ok) win.ack(absNow(), performance.now() - t);
  }
}

async function untilAll(pred, deadline) {
  while (!pred() && absNow() < deadline) await sleep(20);
  return pred();
}

function watchersResult(watchers, final) {
  let complete = 0, gaps = 0, backwards = 0, reconnects = 0, behind = 0;
  const errs = {};
  for (const s of watchers) {
    const ok = s.check.last >= final && s.check.gaps === 0 && s.check.backwards === 0 && !s.error;
    if (ok) complete++;
    if (s.check.last < final) behind++;
    gaps += s.check.gaps; backwards += s.check.backwards; reconnects += s.reconnects;
    if (s.error) errs[s.error] = (errs[s.error] || 0) + 1;
  }
  return { watchers: watchers.length, complete, behind, gaps, backwards, reconnects, watcher_errors: errs };
}

function umpirePeer(w, win) {
  // The same lean keep-alive client as the fan-out rows (RawHttp): one connection per client,
  // the request's bytes made once, the answer's head scanned for its length only. Node's http
  // module costs the load generator about twice as much CPU per move on the same machine.
  const clients = w.clients.map((c) => ({
    i: c.i, token: c.token,
    http: new RawHttp(w.port, `/v1/sessions/${w.sid}/actions`, c.token, ROLL),
    sse: w.watch ? new HttpSse(w.port, `/v1/sessions/${w.sid}/events?after=${w.after}`, c.token, w.after,
      () => { win.deliveries += win.in(absNow()) ? 1 : 0; }) : null,
  }));
  let top = 0;
  const post = async (c) => {
    const r = await c.http.post();
    if (r.status >= 200 && r.status < 300) {
      const v = versionOf(r.body);
      if (v > top) top = v;
      return true;
    }
    win.err(`HTTP ${r.status}`);
    return false;
  };
  return {
    async setup() {
      if (w.watch) {
        await Promise.all(clients.map((c) => c.sse.open()));
        const bad = clients.filter((c) => c.sse.error);
        if (bad.length) throw new Error(`${bad.length} live streams refused: ${bad[0].sse.error}`);
      }
    },
    async run() { await Promise.all(clients.map((c) => closedLoop(() => post(c), win))); return top; },
    async drain(final, deadline) {
      if (!w.watch) return {};
      const ws = clients.map((c) => c.sse);
      await untilAll(() => ws.every((s) => s.check.last >= final || s.error), deadline);
      return watchersResult(ws, final);
    },
    close() { for (const c of clients) { c.http.close(); if (c.sse) c.sse.close(); } },
  };
}

// The role of boardgame.io's clients, whichever client drives them: connect (sync) each, moves
// in a closed loop, then (with watchers) wait for every client to have the last state.
function bgioRole(w, win, clients, connect, move, top, closeAll) {
  return {
    async setup() {
      await Promise.all(clients.map(connect));
      const bad = clients.filter((c) => c.error || !c.check);
      if (bad.length) throw new Error(`${bad.length} boardgame.io clients failed to sync: ${bad[0].error}`);
    },
    async run() { await Promise.all(clients.map((c) => closedLoop(() => move(c), win))); return top(); },
    async drain(final, deadline) {
      if (!w.watch) return {};
      await untilAll(() => clients.every((c) => c.check.last >= final || c.error), deadline);
      return watchersResult(clients, final);
    },
    close: closeAll,
  };
}

async function bgioPeer(w, win) {
  if (w.lib) return bgioLibPeer(w, win);
  const { io } = await import('socket.io-client');
  let top = 0;
  const clients = w.clients.map((c) => ({
    i: c.i, pid: String(c.i), match: w.watch ? 'shared' : `solo-${c.i}`, nonce: 0, waiting: null,
    stateID: 0, check: null, reconnects: 0, error: null, socket: null,
  }));
  const connect = (c) => new Promise((resolve) => {
    const s = io(`http://${HOST}:${w.port}/${GAME}`, { transports: ['websocket'], forceNew: true, reconnection: false });
    c.socket = s;
    let synced = false;
    s.on('connect', () => s.emit('sync', c.match, c.pid, undefined, w.numPlayers));
    s.on('connect_error', (e) => { c.error = String(e.message || e); resolve(); });
    s.on('disconnect', (r) => { if (!c.closing && !c.error) c.error = `disconnected: ${r}`; if (c.waiting) { const x = c.waiting; c.waiting = null; x.reject(new Error('disconnected')); } });
    s.on('sync', (matchID, info) => {
      if (synced) return;
      synced = true;
      c.stateID = info.state._stateID;
      c.check = new SeqCheck(c.stateID);
      resolve();
    });
    s.on('update', (matchID, state) => {
      if (!c.check) return;
      c.check.see(state._stateID);
      c.stateID = state._stateID;
      const t = absNow();
      if (win.in(t)) win.deliveries++;
      const last = state.G.last_roll;
      if (c.waiting && last && last.player === c.pid && last.n === c.nonce) {
        if (state._stateID > top) top = state._stateID;
        const x = c.waiting;
        c.waiting = null;
        x.resolve(true);
      }
    });
  });
  const move = (c) => new Promise((resolve, reject) => {
    c.nonce++;
    const timer = setTimeout(() => { if (c.waiting) { c.waiting = null; reject(new Error('no acknowledgement in 10 s')); } }, 10000);
    c.waiting = { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } };
    c.socket.emit('update', { type: 'MAKE_MOVE', payload: { type: 'roll', args: [c.nonce], playerID: c.pid } }, c.stateID, c.match, c.pid);
  });
  return bgioRole(w, win, clients, connect, move, () => top,
    () => { for (const c of clients) { c.closing = true; c.socket.disconnect(); } });
}

// The same clients through boardgame.io's own client (boardgame.io/client, with SocketIO from
// boardgame.io/multiplayer): its redux store takes every update, as a player's browser would.
async function bgioLibPeer(w, win) {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const { Client } = require('boardgame.io/client');
  const { SocketIO } = require('boardgame.io/multiplayer');
  const { RollGame } = await import('./game.mjs');
  let top = 0;
  const clients = w.clients.map((c) => ({ i: c.i, pid: String(c.i), match: w.watch ? 'shared' : `solo-${c.i}`, nonce: 0, waiting: null, check: null, reconnects: 0, error: null }));
  const connect = async (c) => {
    c.client = Client({
      game: RollGame, matchID: c.match, playerID: c.pid, numPlayers: w.numPlayers, debug: false,
      multiplayer: SocketIO({ server: `http://${HOST}:${w.port}`, socketOpts: { transports: ['websocket'], forceNew: true, reconnection: false } }),
    });
    c.client.subscribe((st) => {
      if (!st || !c.check || st._stateID <= c.check.last) return;
      c.check.see(st._stateID);
      if (win.in(absNow())) win.deliveries++;
      const last = st.G.last_roll;
      if (c.waiting && last && last.player === c.pid && last.n === c.nonce) {
        if (st._stateID > top) top = st._stateID;
        const x = c.waiting;
        c.waiting = null;
        x.resolve(true);
      }
    });
    c.client.start();
    const deadline = absNow() + 10000;
    while (c.client.matchData === undefined && absNow() < deadline) await sleep(10);
    if (c.client.matchData === undefined) { c.error = 'no sync in 10 s'; return; }
    await sleep(0);
    c.check = new SeqCheck(c.client.getState()._stateID);
  };
  const move = (c) => new Promise((resolve, reject) => {
    c.nonce++;
    const timer = setTimeout(() => { if (c.waiting) { c.waiting = null; reject(new Error('no acknowledgement in 10 s')); } }, 10000);
    c.waiting = { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } };
    c.client.moves.roll(c.nonce);
  });
  return bgioRole(w, win, clients, connect, move, () => top, () => { for (const c of clients) c.client.stop(); });
}

function fanSubs(w, win) {
  // The readers of the streams run at nice 10 (Linux: a thread's own; who=0 is this worker
  // thread): on a machine of two cores they would otherwise take a core from the daemon and from
  // B's client, and B's latency would measure the load generator, not what the subscribers cost
  // another session in the daemon. They still read every event (checked below).
  try { os.setPriority(0, 10); } catch { /* not allowed: measured at the same priority */ }
  const subs = [];
  const onIds = (n) => { if (win.in(absNow())) win.deliveries += n; };
  for (let i = 0; i < w.n; i++) subs.push(new RawSse(w.port, `/v1/sessions/${w.sid}/events?after=${w.after}`, w.token, w.after, onIds));
  return {
    async setup() {
      for (let i = 0; i < subs.length; i += 50) await Promise.all(subs.slice(i, i + 50).map((s) => s.open()));
      const bad = subs.filter((s) => s.status !== 200);
      if (bad.length) throw new Error(`${bad.length} of ${subs.length} live streams refused: ${bad[0].error}`);
    },
    async run() { while (!win.over()) await sleep(20); return 0; },
    async drain(final, deadline) {
      await untilAll(() => subs.every((s) => s.check.last >= final || s.error), deadline);
      return watchersResult(subs, final);
    },
    close() { for (const s of subs) s.close(); },
  };
}

function fanPost(w, win) {
  const conns = [];
  for (let i = 0; i < w.n; i++) conns.push(new RawHttp(w.port, `/v1/sessions/${w.sid}/actions`, w.token, ROLL));
  let top = 0;
  const step = async (c) => {
    const r = await c.post();
    if (r.status >= 200 && r.status < 300) { const v = versionOf(r.body); if (v > top) top = v; return true; }
    win.err(`HTTP ${r.status}`);
    return false;
  };
  return {
    async setup() { await Promise.all(conns.map((c) => c.connect())); },
    async run() { await Promise.all(conns.map((c) => closedLoop(() => step(c), win, (w.rate || 0) / w.n))); return top; },
    async drain() { return {}; },
    close() { for (const c of conns) c.close(); },
  };
}

// ==== main thread ==============================================================================
function spawn(spec) {
  const wk = new Worker(new URL(import.meta.url), { workerData: spec });
  const q = [];
  let waiter = null;
  wk.on('message', (m) => { if (waiter) { const x = waiter; waiter = null; x(m); } else q.push(m); });
  wk.on('error', (e) => fail(`${spec.role} worker: ${e.stack || e}`));
  wk.on('exit', (code) => { if (code !== 0 && !wk.finished) fail(`${spec.role} worker exited ${code}`); });
  wk.next = () => (q.length ? Promise.resolve(q.shift()) : new Promise((r) => { waiter = r; }));
  return wk;
}

// Runs the workers through setup, warm-up, window and drain; returns what they report.
async function orchestrate(specs, { warmup, seconds, serverPid, drainSeconds }) {
  const workers = specs.map(spawn);
  for (const wk of workers) {
    const m = await wk.next();
    if (m.type !== 'ready') fail(`unexpected ${JSON.stringify(m)}`);
  }
  const t0 = absNow() + 50;
  const markAt = t0 + warmup * 1000, stopAt = markAt + seconds * 1000;
  for (const wk of workers) wk.postMessage({ cmd: 'go', t0, markAt, stopAt });
  let cpu0, cpu1, lg0, lg1;
  await sleep(markAt - absNow());
  cpu0 = cpuTicks(serverPid); lg0 = process.cpuUsage();
  await sleep(stopAt - absNow());
  cpu1 = cpuTicks(serverPid); lg1 = process.cpuUsage(lg0);
  let final = 0; // the last seq / stateID acknowledged: what every watcher must reach
  for (let i = 0; i < workers.length; i++) {
    const m = await workers[i].next();
    if (specs[i].final) final = Math.max(final, m.top || 0);
  }
  const deadline = absNow() + drainSeconds * 1000;
  for (const wk of workers) wk.postMessage({ cmd: 'drain', final, deadline });
  const results = [];
  for (const wk of workers) { results.push(await wk.next()); wk.finished = true; await wk.terminate(); }
  return {
    results, final,
    serverCpuUs: ((cpu1 - cpu0) * 1e6) / clkTck,
    loadgenCpuUs: lg1.user + lg1.system,
  };
}

const fmt = (x, d = 0) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
const ms = (x) => (x === null || x === undefined ? '-' : `${fmt(x, x < 10 ? 2 : 1)} ms`);
function sumWatchers(rs) {
  const o = { watchers: 0, complete: 0, behind: 0, gaps: 0, backwards: 0, reconnects: 0, watcher_errors: {} };
  for (const r of rs) {
    if (r.watchers === undefined) continue;
    for (const k of ['watchers', 'complete', 'behind', 'gaps', 'backwards', 'reconnects']) o[k] += r[k];
    for (const [k, v] of Object.entries(r.watcher_errors)) o.watcher_errors[k] = (o.watcher_errors[k] || 0) + v;
  }
  return o;
}
function orderText(w) {
  if (!w.watchers) return 'no watchers';
  if (w.complete === w.watchers) return w.reconnects ? `all in order (${w.reconnects} reconnects with Last-Event-ID)` : 'all in order';
  const bits = [`${fmt(w.watchers - w.complete)} of ${fmt(w.watchers)} NOT complete and in order`];
  if (w.behind) bits.push(`${w.behind} behind at the end`);
  if (w.gaps) bits.push(`${w.gaps} gaps`);
  if (w.backwards) bits.push(`${w.backwards} repeats`);
  if (w.reconnects) bits.push(`${w.reconnects} reconnects`);
  for (const [k, v] of Object.entries(w.watcher_errors)) bits.push(`${v}x ${k}`);
  return bits.join(', ');
}
function errText(errors) {
  const e = Object.entries(errors);
  return e.length ? `; ERRORS: ${e.map(([k, v]) => `${v}x ${k}`).join(', ')}` : '';
}
function mergeErrors(rs) {
  const o = {};
  for (const r of rs) for (const [k, v] of Object.entries(r.errors)) o[k] = (o[k] || 0) + v;
  return o;
}

async function mainPeer(o) {
  const target = o.target;
  if (target !== 'umpire' && target !== 'bgio') fail('--target umpire|bgio');
  const watch = intArg(o, 'watch', 1, 0, 1) === 1;
  const port = intArg(o, 'port', 0, 1, 65535);
  const serverPid = intArg(o, 'server-pid', 0, 1, 1 << 30);
  const C = intArg(o, 'clients', 50, 1, 1000);
  const seconds = numArg(o, 'seconds', 5, 0.5, 300);
  const warmup = numArg(o, 'warmup', 1, 0, 60);
  const K = Math.min(C, intArg(o, 'workers', 1, 1, 64));
  const bgioClient = o['bgio-client'] || 'raw';
  if (bgioClient !== 'raw' && bgioClient !== 'lib') fail('--bgio-client raw|lib');
  const lib = bgioClient === 'lib';
  const shards = Array.from({ length: K }, () => []);
  const specs = [];
  if (target === 'umpire') {
    // Sessions have at most 16 sides: client i plays side p(i mod 16) with that side's token.
    const sides = Array.from({ length: Math.min(16, C) }, (_, i) => `p${i}`);
    const s = await createSession(port, 'peer bench', sides);
    for (let i = 0; i < C; i++) shards[i % K].push({ i, token: s.sides[sides[i % sides.length]] });
    for (const sh of shards) specs.push({ role: 'umpire-peer', port, sid: s.id, after: s.version, watch, clients: sh, wantLat: true, final: true });
  } else {
    if (watch) { // create the shared match with one sync before the clients come
      const { io } = await import('socket.io-client');
      await new Promise((resolve, reject) => {
        const sk = io(`http://${HOST}:${port}/${GAME}`, { transports: ['websocket'], forceNew: true, reconnection: false });
        sk.on('connect', () => sk.emit('sync', 'shared', '0', undefined, C));
        sk.on('sync', () => { sk.disconnect(); resolve(); });
        sk.on('connect_error', reject);
      });
    }
    for (let i = 0; i < C; i++) shards[i % K].push({ i });
    for (const sh of shards) specs.push({ role: 'bgio-peer', port, watch, numPlayers: C, clients: sh, wantLat: true, final: true, lib });
  }
  const r = await orchestrate(specs, { warmup, seconds, serverPid, drainSeconds: 10 });
  const acks = r.results.reduce((a, x) => a + x.acks, 0);
  const deliveries = r.results.reduce((a, x) => a + x.deliveries, 0);
  const lat = r.results.flatMap((x) => x.lat).sort((a, b) => a - b);
  const w = sumWatchers(r.results);
  const out = {
    kind: 'peer', target, watch, clients: C, seconds, workers: K,
    acks, moves_per_s: acks / seconds, p50_ms: pct(lat, 50), p99_ms: pct(lat, 99),
    deliveries, deliveries_per_s: deliveries / seconds,
    server_cpu_us: r.serverCpuUs, server_cpu_us_per_move: acks ? r.serverCpuUs / acks : null,
    server_cpu_us_per_delivery: deliveries ? r.serverCpuUs / deliveries : null,
    loadgen_cpu_us_per_move: acks ? r.loadgenCpuUs / acks : null,
    final: r.final, ...w, errors: mergeErrors(r.results),
  };
  const name = `${target === 'umpire' ? 'Umpire (durable)' : 'boardgame.io (in memory)'}, ${C} clients${watch ? ' + watchers' : ', no watchers'}`;
  let line = `${name.padEnd(50)} ${fmt(out.moves_per_s).padStart(7)} moves/s, p50 ${ms(out.p50_ms)} p99 ${ms(out.p99_ms)}, ` +
    `server CPU ${fmt(out.server_cpu_us_per_move)} us/move`;
  if (watch) line += `, ${fmt(out.deliveries_per_s)} deliveries/s (${fmt(out.server_cpu_us_per_delivery, 1)} us each), ${orderText(w)}`;
  line += `; load generator ${fmt(out.loadgen_cpu_us_per_move)} us/move${errText(out.errors)}`;
  emit(o, out, line);
}

async function mainFanout(o) {
  const port = intArg(o, 'port', 0, 1, 65535);
  const serverPid = intArg(o, 'server-pid', 0, 1, 1 << 30);
  const N = intArg(o, 'subs', 0, 0, 100000);
  const P = intArg(o, 'posters', 8, 1, 1000);
  const seconds = numArg(o, 'seconds', 5, 0.5, 300);
  const warmup = numArg(o, 'warmup', 1, 0, 60);
  const SW = Math.max(1, Math.min(N, intArg(o, 'sub-workers', 2, 1, 64)));
  const rate = numArg(o, 'rate', 0, 0, 1e6);
  const A = await createSession(port, 'fan-out A', ['a', 'b']);
  const B = await createSession(port, 'fan-out B', ['a', 'b']);
  const specs = [
    { role: 'fan-post', port, sid: A.id, token: A.referee, n: P, final: true, rate },
    { role: 'fan-lat', port, sid: B.id, token: B.referee, n: 1, wantLat: false },
  ];
  // The subscribers, split over SW worker threads (each reads its share on a core of its own).
  for (let k = 0; N > 0 && k < SW; k++) {
    const n = Math.floor(N / SW) + (k < N % SW ? 1 : 0);
    specs.push({ role: 'fan-subs', port, sid: A.id, token: A.referee, after: A.version, n });
  }
  const r = await orchestrate(specs, { warmup, seconds, serverPid, drainSeconds: 15 });
  const [pa, pb, ...subs] = r.results;
  const w = subs.length ? sumWatchers(subs) : { watchers: 0 };
  const delivered = subs.reduce((a, x) => a + x.deliveries, 0);
  // The fan-out workers report "top" from both posters and B; A's final seq is the posters' own.
  const out = {
    kind: 'fanout', subs: N, posters: P, seconds, rate,
    a_actions: pa.acks, a_actions_per_s: pa.acks / seconds, a_p50_ms: pa.p50, a_p99_ms: pa.p99,
    b_actions: pb.acks, b_p50_ms: pb.p50, b_p99_ms: pb.p99, b_max_ms: pb.max,
    deliveries: delivered, deliveries_per_s: delivered / seconds, sub_workers: subs.length,
    server_cpu_us: r.serverCpuUs, server_cpu_us_per_action: (pa.acks + pb.acks) ? r.serverCpuUs / (pa.acks + pb.acks) : null,
    loadgen_cpu_us: r.loadgenCpuUs, ...w, errors: mergeErrors(r.results),
  };
  let line = `fan-out ${rate ? `at ${fmt(rate)}/s` : 'flat out'} N=${fmt(N)}:`.padEnd(28) + ` A ${fmt(out.a_actions_per_s)} actions/s, B p50 ${ms(out.b_p50_ms)} p99 ${ms(out.b_p99_ms)}` +
    ` (${fmt(out.b_actions)} B actions), ${fmt(out.deliveries_per_s)} deliveries/s, ${N ? orderText(w) : 'no subscribers'}` +
    `; server CPU ${fmt(out.server_cpu_us_per_action)} us/action, load generator ${fmt(out.loadgen_cpu_us / seconds / 1e4)}% of a core${errText(out.errors)}`;
  emit(o, out, line);
}

function emit(o, out, line) {
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(out) + '\n');
  process.stdout.write(line + '\n');
}

// ratios FILE...: the comparisons between runs (fan-out p99 at the largest N vs 0; umpire/bgio).
function mainRatios(files) {
  const runs = files.filter((f) => fs.existsSync(f)).map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  const fanAll = runs.filter((r) => r.kind === 'fanout');
  const lines = [];
  const rat = (a, b) => {
    if (!a || !b) return '-';
    const r = a / b;
    return `${fmt(r, r >= 10 ? 1 : r >= 0.1 ? 2 : 4)}x`;
  };
  for (const rate of [...new Set(fanAll.map((r) => r.rate || 0))]) {
    const fan = fanAll.filter((r) => (r.rate || 0) === rate).sort((a, b) => a.subs - b.subs);
    if (fan.length < 2 || fan[0].subs !== 0) continue;
    const hi = fan[fan.length - 1];
    lines.push(`fan-out ${rate ? `at ${fmt(rate)}/s` : 'flat out'}: B p99 at N=${fmt(hi.subs)} / at N=0: ${rat(hi.b_p99_ms, fan[0].b_p99_ms)} (${ms(hi.b_p99_ms)} / ${ms(fan[0].b_p99_ms)}); ` +
      `A actions/s at N=${fmt(hi.subs)} / at N=0: ${rat(hi.a_actions_per_s, fan[0].a_actions_per_s)}`);
  }
  const peer = runs.filter((r) => r.kind === 'peer');
  for (const watch of [true, false]) {
    const u = peer.find((r) => r.target === 'umpire' && r.watch === watch);
    const b = peer.find((r) => r.target === 'bgio' && r.watch === watch);
    if (u && b) lines.push(`Umpire / boardgame.io moves/s, ${watch ? 'with watchers:   ' : 'without watchers:'} ${rat(u.moves_per_s, b.moves_per_s)} (${fmt(u.moves_per_s)} / ${fmt(b.moves_per_s)})`);
  }
  process.stdout.write(lines.map((l) => l + '\n').join(''));
}

if (!isMainThread) {
  workerMain().catch((e) => { process.stderr.write(`loadgen worker ${workerData.role}: ${e.stack || e}\n`); process.exit(2); });
} else {
  const [cmd, ...rest] = process.argv.slice(2);
  const hard = setTimeout(() => fail('gave up after 10 minutes'), 600000);
  hard.unref();
  const run = cmd === 'peer' ? () => mainPeer(parseArgs(rest))
    : cmd === 'fanout' ? () => mainFanout(parseArgs(rest))
      : cmd === 'ratios' ? async () => mainRatios(rest)
        : () => fail('usage: loadgen.mjs peer|fanout|ratios ... (see the head of the file)');
  run().then(() => process.exit(0), (e) => fail(e.stack || String(e)));
}
