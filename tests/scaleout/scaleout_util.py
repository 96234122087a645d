"""Helpers of the multi-node suite (tests/scaleout): several umpired nodes on one PostgreSQL
database (tests/pg/pg_server.py), load threads that record every answer, log checks.

Reuses the integration harness (tests/integration/umpire_client.py, umpire_ref.py,
audit_helpers.py) and changes none of it."""

import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
for _p in (TESTS / "pg", TESTS / "integration"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import pg_server  # noqa: E402
from audit_helpers import SSEClient  # noqa: E402,F401
from umpire_client import (SANITIZER_MARKERS, START_TIMEOUT, Client, Daemon,  # noqa: E402,F401
                           _EarlyExit, free_port, umpired_path, with_test_limits)
from umpire_ref import (check_consecutive_nonces, check_dice_against_seed,  # noqa: E402,F401
                        event_hash, flat_dice, jcs, verify_chain)

REPO_ROOT = TESTS.parent
SEED = "5ca1e0a7" * 8      # 64 hex digits, a seeded-mode seed
EXPRS = ["1d20", "2d6+1", "3d6kh2+1d4-1", "4d6kl3", "1d100-1"]
PG_MIGRATIONS = sorted(p.name for p in (REPO_ROOT / "migrations" / "postgresql").glob("*.sql"))


# --------------------------------------------------------------------------- nodes

class Node(Daemon):
    """An umpired on a --db of the test's choosing (Daemon picks its own database), with an
    optional config file. name labels it in messages."""

    def __init__(self, db, name="node", config=None, binary=None):
        # Not Daemon.__init__: under UMPIRE_TEST_BACKEND=postgresql it would create a database
        # of its own. The attributes are the ones Daemon's methods use.
        self.binary = binary or umpired_path()
        self.name = name
        self.workdir = tempfile.mkdtemp(prefix=f"umpire-so-{name}-")
        self.db = db
        self.config_path = os.path.join(self.workdir, "config.toml")
        with open(self.config_path, "w") as f:
            f.write(with_test_limits(config))
        self.extra_args = []
        self.stderr_path = os.path.join(self.workdir, "stderr.log")
        self.stdout_path = os.path.join(self.workdir, "stdout.log")
        self.proc = None
        self.port = None
        self.responses = []
        self.exit_codes = []
        self.last_stop_seconds = None

    def argv(self):
        argv = [self.binary]
        if self.config_path is not None:
            argv += ["--config", self.config_path]
        return argv + ["--listen", f"127.0.0.1:{self.port}", "--db", self.db]

    def spawn(self):
        """Starts the process without waiting for it (wait_healthy() next)."""
        if not os.path.exists(self.binary):
            raise RuntimeError(f"daemon binary {self.binary} does not exist (set UMPIRED)")
        self.port = free_port()
        env = dict(os.environ)
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        with open(self.stderr_path, "ab") as err, open(self.stdout_path, "ab") as out:
            err.write(f"--- {self.name}: start on port {self.port}\n".encode())
            err.flush()
            self.proc = subprocess.Popen(self.argv(), stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=err, cwd=self.workdir, env=env)
        return self

    def ready(self, timeout=START_TIMEOUT):
        try:
            self.wait_healthy(timeout)
        except _EarlyExit as e:
            raise AssertionError(f"{self.name}: {e}") from None
        return self

    def log_tail(self, n=4000):
        return f"--- {self.name} stderr tail:\n" + self.stderr_text()[-n:]

    def cleanup(self):
        self.kill9()
        shutil.rmtree(self.workdir, ignore_errors=True)


class Cluster:
    """The test's PostgreSQL databases and nodes. finish(): stops every node (SIGTERM), and
    lists a non-zero exit, a sanitizer report or a 5xx answer to the harness's Client;
    cleanup(): kills what is left, drops the databases, removes the directories."""

    def __init__(self, pg):
        self.pg = pg
        self.dbs = []
        self.nodes = []
        self.dirs = []
        self.db = self.new_db()

    def new_db(self):
        uri = self.pg.create_database()
        self.dbs.append(uri)
        return uri

    def tmpdir(self):
        d = tempfile.mkdtemp(prefix="umpire-so-")
        self.dirs.append(d)
        return d

    def node(self, name, db=None, config=None, start=True):
        n = Node(db or self.db, name=name, config=config)
        self.nodes.append(n)
        if start:
            n.start()
        return n

    def nodes_up(self, names, db=None, config=None):
        return [self.node(name, db=db, config=config) for name in names]

    def sql(self, query, params=(), db=None):
        """One statement on db (default: the first database), autocommit; -> rows or None."""
        con = connect(db or self.db)
        try:
            con.autocommit = True
            cur = con.cursor()
            cur.execute(query, params or None)
            rows = cur.fetchall() if cur.description is not None else None
            cur.close()
            return rows
        finally:
            con.close()

    def finish(self):
        problems = []
        for n in self.nodes:
            if n.alive():
                try:
                    rc = n.stop()
                except AssertionError as e:
                    problems.append(f"{n.name}: {e}")
                    continue
                if rc != 0:
                    problems.append(f"{n.name}: exit code {rc} on SIGTERM at teardown")
            found = n.sanitizer_findings()
            if found:
                problems.append(f"{n.name}: sanitizer report in stderr: {found}")
            fives = [r for r in n.responses if r[2] >= 500]
            if fives:
                problems.append(f"{n.name}: answered 5xx to {fives[:5]}")
        return problems

    def tails(self):
        return "\n".join(n.log_tail() for n in self.nodes)

    def cleanup(self):
        for n in self.nodes:
            n.cleanup()
        for uri in self.dbs:
            try:
                self.pg.drop_database(uri)
            except Exception:  # noqa: BLE001 - best effort at teardown
                pass
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)


def connect(uri):
    import psycopg2
    return psycopg2.connect(uri, connect_timeout=10)


def config(live_poll_ms=None, read_threads=None, extra=""):
    lines = ["[storage]"]
    if live_poll_ms is not None:
        lines.append(f"live_poll_ms = {live_poll_ms}")
    if read_threads is not None:
        lines.append(f"read_threads = {read_threads}")
    return "\n".join(lines) + "\n" + extra


# --------------------------------------------------------------------------- the CLI

def run_cli(*args, timeout=120):
    """umpired export|import ...: -> CompletedProcess (text). Fails on a sanitizer report."""
    env = dict(os.environ)
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    p = subprocess.run([umpired_path(), *[str(a) for a in args]], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=timeout, env=env)
    found = [m for m in SANITIZER_MARKERS if m in p.stderr]
    assert not found, f"umpired {' '.join(map(str, args))}: sanitizer report {found}:\n" \
                      f"{p.stderr[-6000:]}"
    return p


# --------------------------------------------------------------------------- HTTP

def post_action(conn, sid, token, body, key=None):
    """One POST /actions on an http.client connection -> (status, headers, raw bytes)."""
    hdrs = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    if key is not None:
        hdrs["Idempotency-Key"] = key
    conn.request("POST", f"/v1/sessions/{sid}/actions", body=json.dumps(body), headers=hdrs)
    r = conn.getresponse()
    raw = r.read()
    return r.status, r.headers, raw


def is_replay(headers):
    return (headers.get("Idempotent-Replay") or "").strip().lower() == "true"


class Loader(threading.Thread):
    """Posts generic rolls to random sessions on one keep-alive connection until stop is set
    or the connection fails (the node is gone). Every answer is recorded:
    self.acked [(sid, seq, hash, version, head, t)] for 200s, self.other [(status, raw)]."""

    def __init__(self, node, sessions, stop, rng, label=None):
        super().__init__(daemon=True)
        self.port = node.port
        self.label = label or node.name
        self.sessions = sessions
        self.stop = stop
        self.rng = rng
        self.acked = []
        self.other = []
        self.sent = 0
        self.failure = None     # the exception that ended the thread (a dead node)
        self.bad = []           # 200 answers that break the contract's shape

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            while not self.stop.is_set():
                sid, tok = self.rng.choice(self.sessions)
                body = {"type": "roll", "expr": self.rng.choice(EXPRS)}
                try:
                    self.sent += 1
                    status, _h, raw = post_action(conn, sid, tok, body)
                except (OSError, http.client.HTTPException) as e:
                    self.failure = e
                    return
                t = time.monotonic()
                if status != 200:
                    self.other.append((status, raw[:400]))
                    continue
                ans = json.loads(raw)
                evs = ans.get("events") or []
                if len(evs) != 1 or evs[-1]["seq"] != ans["version"] \
                        or evs[-1]["hash"] != ans["head"]:
                    self.bad.append(ans)
                    continue
                self.acked.append((sid, evs[0]["seq"], evs[0]["hash"], ans["version"],
                                   ans["head"], t))
        finally:
            conn.close()


# --------------------------------------------------------------------------- log checks

def read_log(client, sid, token, limit=37):
    """Every event of a session through GET /events, paged by `limit` (the last page's body
    gives version and head). Checks the paging itself: next_after, no page over limit."""
    out = []
    after = 0
    page = None
    for _ in range(100000):
        r = client.get(f"/v1/sessions/{sid}/events?after={after}&limit={limit}", token=token)
        assert r.status == 200, f"GET events after={after}: {r!r}"
        page = r.body
        evs = page["events"]
        assert len(evs) <= limit, f"a page of {len(evs)} events for limit={limit}"
        if not evs:
            assert page["next_after"] == after, f"empty page: next_after {page['next_after']}"
            break
        assert page["next_after"] == evs[-1]["seq"], \
            f"next_after {page['next_after']} but the page ends at {evs[-1]['seq']}"
        out.extend(evs)
        after = page["next_after"]
    return out, page


def check_log(client, sid, token, acked=(), seed=None, limit=37):
    """The log through GET /events (paged): seqs exactly 1..version, each prev the previous
    hash, every hash recomputed, head = the last hash; each acknowledged (seq, hash) in it;
    seeded dice recomputed with nonces consecutive from 1. -> (events, page)."""
    evs, page = read_log(client, sid, token, limit)
    seqs = [e["seq"] for e in evs]
    assert seqs == list(range(1, len(evs) + 1)), \
        f"{sid}: seqs are not 1..{len(evs)}: gaps/duplicates near " \
        f"{[s for i, s in enumerate(seqs, 1) if s != i][:10]}"
    assert page["version"] == len(evs), f"{sid}: version {page['version']}, {len(evs)} events"
    verify_chain(evs, head=page["head"])      # prev links, recomputed hashes, head
    for seq, h in acked:
        assert seq <= len(evs), f"{sid}: acknowledged seq {seq} lost (log ends at {len(evs)})"
        assert evs[seq - 1]["hash"] == h, \
            f"{sid}: acknowledged seq {seq} has hash {evs[seq - 1]['hash']}, the 200 said {h}"
    if seed is not None:
        dice = flat_dice(evs)
        check_consecutive_nonces(dice, first=1)
        check_dice_against_seed(seed, sid, dice)
    return evs, page


def verify_ok(client, sid, token, events=None, head=None):
    path = f"/v1/sessions/{sid}/verify" + (f"?head={head}" if head else "")
    r = client.get(path, token=token)
    assert r.status == 200, f"{client.daemon.name}: GET verify {sid}: {r!r}"
    rep = r.body
    assert rep.get("ok") is True and rep.get("first_bad_seq") is None, \
        f"{client.daemon.name}: GET verify {sid} not ok: {rep!r}"
    if events is not None:
        assert rep["events"] == events, f"{client.daemon.name}: verify counted {rep!r}"
    if head is not None:
        assert rep["head"] == head, f"{client.daemon.name}: verify head {rep!r}"
    return rep


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def ms(x):
    return round(x * 1000, 1)
