"""Allocation failure injection: fail exactly one jansson/SQLite allocation inside one write.

Needs a daemon built with -DUMPIRE_FAULT_INJECTION (server/core/fault_inject.c; make test's build
gets it). The binary is $UMPIRED_FAULT if set, else $UMPIRED; the test is skipped when that
binary has no fault injection (no "fault_inject: installed" line at start-up).

The daemon runs with UMPIRE_FAIL_ALLOC_AT_FILE=<file>; for each N the test writes N into the
file, sends SIGUSR1 (arm: the allocation counter restarts at 0), sends ONE request (a generic
roll, a session creation, or a reveal), then SIGUSR2 (disarm). Only the Nth allocation fails.
For every N:
  - the daemon is still alive;
  - a 200/201 means the change is in the database (acknowledged = committed);
  - anything else is a 5xx (or the connection closes) and nothing was written (events,
    sessions and idempotency rows unchanged, session version and head unchanged);
  - the chain still verifies (GET /verify and the Python reference).
N runs from 1 to past the last allocation the request makes (measured first). The daemons
are stopped with SIGTERM every BATCH values of N: exit 0 and no LeakSanitizer report; a batch
that leaks is re-run one N per daemon to find the N that leaks.

Failures that are daemon bugs already reported are listed in KNOWN and turn the test into an
xfail (with the reason) as long as nothing else fails."""

import http.client
import json
import os
import re
import signal
import sqlite3
import time

import pytest

from fault_common import Client, Daemon, check_session_log, umpired_binary_for_faults

BATCH = 60
FULL = bool(os.environ.get("UMPIRE_FAULT_ALLOC_FULL"))

# (operation, kind) -> reason, for daemon bugs found by this test and reported (see the reply
# of the fault-test task). kind: "crash", "leak", "written_but_error", "4xx", "200_not_written".
# Outcomes tolerated as known daemon bugs (xfail), as (operation, kind) -> reason. Empty: the
# four found by this sweep (a 4xx for a valid request, 200s built on incomplete jansson values,
# an empty events list, a session left unreadable) were fixed by server/core/alloc_guard.c, which
# makes any failed jansson allocation fail the request or roll the job back. Any of them coming
# back now fails the test.
KNOWN = {}


class FaultDaemon(Daemon):
    def __init__(self, binary):
        super().__init__(binary)
        self.nfile = os.path.join(self.workdir, "fail_at")
        with open(self.nfile, "w") as f:
            f.write("0")

    def start(self, timeout=10.0):
        saved = {k: os.environ.get(k) for k in ("UMPIRE_FAIL_ALLOC_AT_FILE", "UMPIRE_FAIL_ALLOC_AT")}
        os.environ["UMPIRE_FAIL_ALLOC_AT_FILE"] = self.nfile
        os.environ.pop("UMPIRE_FAIL_ALLOC_AT", None)
        try:
            return super().start(timeout)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def supports_faults(self):
        return "fault_inject: installed" in self.stderr_text()

    def _signal_and_wait(self, sig, pattern, timeout=5.0):
        start = len(self.stderr_text().encode("utf-8", "replace"))
        self.proc.send_signal(sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.stderr_path, "rb") as f:
                f.seek(start)
                tail = f.read().decode("utf-8", "replace")
            m = re.search(pattern, tail)
            if m:
                return m
            if not self.alive():
                return None
            time.sleep(0.001)
        raise AssertionError(f"no {pattern!r} on stderr after signal {sig}")

    def arm(self, n):
        with open(self.nfile, "w") as f:
            f.write(str(n))
        self.mark = len(self.stderr_text().encode("utf-8", "replace"))
        m = self._signal_and_wait(signal.SIGUSR1, r"fault_inject: armed N=(\d+)")
        assert m and int(m.group(1)) == n, f"armed with {m and m.group(1)}, wanted {n}"

    def disarm(self):
        """-> (allocations counted since arming, whether the failure was injected)"""
        m = self._signal_and_wait(signal.SIGUSR2, r"fault_inject: disarmed after (\d+)")
        with open(self.stderr_path, "rb") as f:
            f.seek(self.mark)
            tail = f.read().decode("utf-8", "replace")
        fired = re.search(r"fault_inject: failed allocation (\d+) \(([^)]*)\)", tail)
        return (int(m.group(1)) if m else None), (fired.group(2) if fired else None)


def db_counts(db):
    con = sqlite3.connect(db, timeout=5)
    try:
        return tuple(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                     for t in ("sessions", "events", "idempotency"))
    finally:
        con.close()


def raw_post(port, path, body, token=None, idem=None):
    """One request on a fresh connection -> (status or None when the connection closed, body)."""
    hdrs = {"Content-Type": "application/json"}
    if token:
        hdrs["Authorization"] = f"Bearer {token}"
    if idem:
        hdrs["Idempotency-Key"] = idem
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=json.dumps(body) if body is not None else None,
                     headers=hdrs)
        r = conn.getresponse()
        raw = r.read()
        try:
            return r.status, json.loads(raw)
        except ValueError:
            return r.status, raw[:300]
    except (OSError, http.client.HTTPException) as e:
        return None, repr(e)
    finally:
        conn.close()


class Harness:
    """One daemon with a session to act on; restarted after a crash."""

    def __init__(self, binary, op):
        self.binary, self.op = binary, op
        self.d = None
        self.n_req = 0

    def start(self):
        self.d = FaultDaemon(self.binary)
        self.d.start()
        if not self.d.supports_faults():
            self.d.cleanup()
            pytest.skip(f"{self.binary} is built without -DUMPIRE_FAULT_INJECTION "
                        "(set UMPIRED_FAULT to a fault-injection build)")
        c = Client(self.d)
        s = c.create_session(mode="server")
        self.sid, self.ref = s["session"]["id"], s["tokens"]["referee"]
        for _ in range(2):
            c.roll(self.sid, self.ref, "2d6+1")
        c.close()

    def prepare(self):
        """Before each armed request, unarmed: a reveal needs a die rolled under the current
        seed (409 nothing_to_reveal otherwise), so each reveal gets one."""
        if self.op == "reveal":
            c = Client(self.d)
            c.roll(self.sid, self.ref, "1d6")
            c.close()

    def request(self):
        self.n_req += 1
        if self.op == "roll":
            return raw_post(self.d.port, f"/v1/sessions/{self.sid}/actions",
                            {"type": "roll", "expr": "3d6kh2+1d4-1"}, self.ref,
                            idem=f"k{self.n_req}")
        if self.op == "create":
            return raw_post(self.d.port, "/v1/sessions",
                            {"ruleset": "generic", "sides": ["alice", "bob"],
                             "dice": {"mode": "server"},
                             "setup": {"units": [{"id": "u1", "side": "alice"}]}})
        return raw_post(self.d.port, f"/v1/sessions/{self.sid}/reveal", None, self.ref)

    def stop_and_check(self):
        """SIGTERM: -> list of problems (exit code, sanitizer report)."""
        d, self.d = self.d, None
        problems = []
        try:
            rc = d.stop() if d.alive() else d.proc.returncode
            if rc != 0:
                problems.append(f"exit code {rc} on SIGTERM")
            if d.sanitizer_findings():
                problems.append("sanitizer report:\n" + sanitizer_excerpt(d.stderr_text()))
        finally:
            d.cleanup()
        return problems


def sanitizer_excerpt(text, limit=6000):
    i = min([text.find(m) for m in ("==ERROR", "ERROR: LeakSanitizer", "runtime error")
             if text.find(m) >= 0] or [max(0, len(text) - limit)])
    return text[max(0, i - 200):i + limit]


def one_n(h, n, outcomes):
    """Arms at n, sends the request, disarms, checks. -> (fired, status) and records problems."""
    d = h.d
    h.prepare()
    c = Client(d)
    before = db_counts(d.db)
    sess = c.session(h.sid, h.ref)
    c.close()
    d.arm(n)
    status, body = h.request()
    if not d.alive():
        outcomes["crash"].append((n, status, sanitizer_excerpt(d.stderr_text())))
        return "crash", status
    count, fired = d.disarm()
    after = db_counts(d.db)
    c = Client(d)
    r2 = c.get(f"/v1/sessions/{h.sid}", token=h.ref)
    if r2.status != 200:
        # the daemon answers, but no longer reads: one failed allocation broke it for good
        outcomes["unusable_after"].append((n, fired, status, body, r2.status, r2.raw[:200],
                                           d.stderr_text()[-1500:]))
        c.close()
        return "crash", status
    sess2 = r2.body["session"]
    ok_status = 201 if h.op == "create" else 200
    if status == ok_status:
        grew = after != before
        if not grew:
            outcomes["200_not_written"].append((n, fired, body))
        if h.op != "create" and not (isinstance(body, dict) and body.get("events")):
            outcomes["200_not_written"].append((n, fired, body, before, after))
        elif h.op != "create":
            ev = body["events"][-1]
            evs, _ = c.events(h.sid, h.ref)
            if len(evs) < ev["seq"] or evs[ev["seq"] - 1]["hash"] != ev["hash"]:
                outcomes["200_not_written"].append((n, fired, body))
    else:
        if after != before or (h.op != "create" and
                               (sess2["version"], sess2["head"]) != (sess["version"], sess["head"])):
            outcomes["written_but_error"].append((n, fired, status, body, before, after))
        if status is not None and status < 500:
            outcomes["4xx"].append((n, fired, status, body))
        if not fired:
            outcomes["error_without_fault"].append((n, status, body))
    if fired and status == ok_status:
        outcomes["tolerated"].append(n)
    # the chain still verifies
    try:
        check_session_log(c, h.sid, h.ref)
    except AssertionError as e:
        outcomes["verify_failed"].append((n, fired, status, str(e)[:400]))
    c.close()
    return (fired, status, count)


def sweep(binary, op, ns=None):
    outcomes = {k: [] for k in ("crash", "leak", "written_but_error", "4xx", "200_not_written",
                                "error_without_fault", "verify_failed", "unusable_after", "tolerated")}
    h = Harness(binary, op)
    h.start()
    # how many allocations does the request take? (also warms the caches)
    h.prepare()
    h.d.arm(10 ** 9)
    status, body = h.request()
    total, fired = h.d.disarm()
    assert status in (200, 201) and not fired, f"{op} without a fault: {status} {body}"
    if ns is None:
        ns = list(range(1, total + 4))
    batch_ns = []
    for n in ns:
        if h.d is None:
            h.start()
        res = one_n(h, n, outcomes)
        batch_ns.append(n)
        if res[0] == "crash":
            h.stop_and_check()
            batch_ns = []
            continue
        if len(batch_ns) >= BATCH or n == ns[-1]:
            problems = h.stop_and_check()
            if problems:
                outcomes["leak"].append((tuple(batch_ns), problems))
            batch_ns = []
    if h.d is not None:
        h.stop_and_check()
    return total, outcomes


def leaking_ns(binary, op, batch):
    """Re-runs a leaking batch one N per daemon: -> [(n, report)]."""
    found = []
    for n in batch:
        h = Harness(binary, op)
        h.start()
        dummy = {k: [] for k in ("crash", "leak", "written_but_error", "4xx", "200_not_written",
                                 "error_without_fault", "verify_failed", "unusable_after", "tolerated")}
        h.prepare()
        h.d.arm(10 ** 9)
        h.request()
        h.d.disarm()
        one_n(h, n, dummy)
        problems = h.stop_and_check() if h.d else []
        if problems:
            found.append((n, problems))
    return found


def fault_binary():
    return os.environ.get("UMPIRED_FAULT") or None


@pytest.mark.parametrize("op", ["roll", "create", "reveal"])
def test_one_failed_allocation(op):
    binary = umpired_binary_for_faults()
    total, out = sweep(binary, op)
    leaks = []
    for batch, problems in out["leak"]:
        if FULL or len(batch) <= 3:
            leaks.extend(leaking_ns(binary, op, batch) or [(batch, problems)])
        else:
            leaks.append((batch, problems))
    out["leak"] = leaks
    summary = {k: (len(v) if k != "tolerated" else v) for k, v in out.items()}
    print(f"\nalloc failure {op}: allocations per request {total}, N = 1..{total + 3}: {summary}")
    bad = {k: v for k, v in out.items() if v and k not in ("tolerated",)}
    if not bad:
        return
    report = []
    for k, v in bad.items():
        report.append(f"--- {k}: {len(v)} case(s); first: {str(v[0])[:4000]}")
    text = f"{op}: " + "\n".join(report)
    unknown = [k for k in bad if (op, k) not in KNOWN]
    if not unknown:
        pytest.xfail("; ".join(KNOWN[(op, k)] for k in bad))
    pytest.fail(text)
