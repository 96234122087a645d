"""Helpers for the auditable-stream tests (verify, SSE, campaign log, odds).

Written from shared/api-contract.md and docs/api.md only; builds on umpire_client /
umpire_ref and changes neither.
"""

import http.client
import json
import os
import re
import socket
import subprocess
import threading
import time
from fractions import Fraction
from itertools import product

from umpire_client import (REPO_ROOT, START_TIMEOUT, Daemon, DbConn, _EarlyExit, db_errors,
                           free_port, strict_json_loads, with_test_limits)
from umpire_ref import ZERO64, event_hash, flat_dice, jcs, parse_expr, kept

SEED = "5eed" * 16
SEED2 = "0123456789abcdef" * 4
NON_ACTION_TYPES = ("session_created", "dice_seed_revealed")
VERIFY_KEYS = ("ok", "events", "head", "first_bad_seq", "reason", "dice_checked",
               "actions_readjudicated")


# --------------------------------------------------------------------------- binaries

def umpire_verify_path():
    p = os.environ.get("UMPIRE_VERIFY", "build/umpire-verify")
    if os.path.isabs(p):
        return p
    if os.path.exists(p):
        return os.path.abspath(p)
    return str(REPO_ROOT / p)


def run_verifier(*args, timeout=30):
    """-> (exit code, parsed stdout JSON or None, stdout text, stderr text)."""
    binary = umpire_verify_path()
    assert os.path.exists(binary), f"offline verifier {binary} does not exist (set UMPIRE_VERIFY)"
    p = subprocess.run([binary, *[str(a) for a in args]], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    out = p.stdout.decode("utf-8", "replace")
    report = None
    try:
        report = strict_json_loads(out) if out.strip() else None
    except ValueError:
        report = None
    return p.returncode, report, out, p.stderr.decode("utf-8", "replace")


class ConfiguredDaemon(Daemon):
    """A Daemon started with --config FILE (the fixture's Daemon takes no config)."""

    def __init__(self, config_text, binary=None, env=None):
        super().__init__(binary)
        self.extra_env = dict(env or {})
        self.config = os.path.join(self.workdir, "umpire.toml")
        with open(self.config, "w") as f:
            f.write(with_test_limits(config_text))

    def start(self, timeout=START_TIMEOUT):
        if not os.path.exists(self.binary):
            raise RuntimeError(f"daemon binary {self.binary} does not exist (set UMPIRED)")
        last_err = None
        for _ in range(3):
            self.port = free_port()
            env = dict(os.environ)
            env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
            env.update(self.extra_env)
            with open(self.stderr_path, "ab") as err, open(self.stdout_path, "ab") as out:
                err.write(f"--- start on port {self.port} (config)\n".encode())
                err.flush()
                self.proc = subprocess.Popen(
                    [self.binary, "--config", self.config, "--listen",
                     f"127.0.0.1:{self.port}", "--db", self.db],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=self.workdir,
                    env=env)
            try:
                self.wait_healthy(timeout)
                return self
            except _EarlyExit as e:
                last_err = e
                if "in use" in self.stderr_text()[-2000:].lower():
                    continue
                raise RuntimeError(str(e)) from None
        raise RuntimeError(f"daemon did not start: {last_err}")


def finish_daemon(d):
    """The fixture's teardown checks, for a daemon a test started itself."""
    try:
        problems = d.stop_problems()
        assert not problems, "; ".join(problems) + "\nstderr tail:\n" + d.stderr_text()[-4000:]
    finally:
        d.cleanup()


# --------------------------------------------------------------------------- verify

def get_verify(client, sid, token=None, head=None):
    path = f"/v1/sessions/{sid}/verify"
    if head is not None:
        path += f"?head={head}"
    r = client.get(path, token=token)
    assert r.status == 200, f"GET verify: expected 200, got {r!r}"
    check_report_shape(r.body)
    return r.body


def check_report_shape(rep):
    assert isinstance(rep, dict), f"verify report is not an object: {rep!r}"
    missing = [k for k in VERIFY_KEYS if k not in rep]
    assert not missing, f"verify report lacks {missing}: {rep!r}"
    assert isinstance(rep["ok"], bool), rep
    for k in ("events", "dice_checked", "actions_readjudicated"):
        assert type(rep[k]) is int and rep[k] >= 0, f"{k} not a count: {rep!r}"


def assert_report_ok(rep, events=None, head=None, dice_checked=None, actions=None):
    check_report_shape(rep)
    assert rep["ok"] is True, f"verify says not ok: {rep!r}"
    assert rep["first_bad_seq"] is None and rep["reason"] is None, rep
    if events is not None:
        assert rep["events"] == events, f"events {rep['events']} != {events}: {rep!r}"
    if head is not None:
        assert rep["head"] == head, f"head {rep['head']} != {head}: {rep!r}"
    if dice_checked is not None:
        assert rep["dice_checked"] == dice_checked, \
            f"dice_checked {rep['dice_checked']} != {dice_checked}: {rep!r}"
    if actions is not None:
        assert rep["actions_readjudicated"] == actions, \
            f"actions_readjudicated {rep['actions_readjudicated']} != {actions}: {rep!r}"


def assert_report_bad(rep, seq, head=None, events=None):
    """ok false at first_bad_seq == seq with a reason; docs: `head` is then the hash of the
    last event that verified, `events` counts every event in the log."""
    check_report_shape(rep)
    assert rep["ok"] is False, f"verify should fail at seq {seq}, says ok: {rep!r}"
    assert rep["first_bad_seq"] == seq, \
        f"first_bad_seq {rep['first_bad_seq']!r}, expected {seq}: {rep!r}"
    assert isinstance(rep["reason"], str) and rep["reason"].strip(), \
        f"reason is not a non-empty string: {rep!r}"
    if head is not None:
        assert rep["head"] == head, \
            f"head {rep['head']!r} is not the hash of the last verified event {head}: {rep!r}"
    if events is not None:
        assert rep["events"] == events, f"events {rep['events']} != {events}: {rep!r}"


def expected_counts(events):
    """(dice_checked, actions_readjudicated) that a correct /verify reports for a full log.

    Dice are counted one per die value; a die's seed is known in seeded mode, or when a later
    dice_seed_revealed covers its nonce (nonce <= last_nonce of the last reveal)."""
    created = events[0]["data"]
    mode = created["dice"]["mode"]
    actions = sum(1 for e in events if e["type"] not in NON_ACTION_TYPES)
    dice = flat_dice(events)
    if mode == "seeded":
        checked = len(dice)
    elif mode == "server":
        reveals = [e for e in events if e["type"] == "dice_seed_revealed"]
        last = reveals[-1]["data"]["last_nonce"] if reveals else 0
        checked = sum(1 for n, _, _ in dice if n <= last)
    else:
        checked = 0
    return checked, actions


# --------------------------------------------------------------------------- the database

class Db:
    """Direct access to the daemon's database (SQLite file or PostgreSQL database, --db) while
    the daemon is stopped: one transaction; self.con.execute takes ? placeholders."""

    def __init__(self, db):
        self.con = DbConn(db, transaction=True)

    def commit(self):
        self.con.commit()

    def rollback(self):
        self.con.rollback()

    def events(self, sid):
        rows = self.con.execute(
            "SELECT seq, ts, actor, type, data, prev, hash FROM events WHERE session_id=? "
            "ORDER BY seq", (sid,)).fetchall()
        return [{"seq": r[0], "ts": r[1], "actor": r[2], "type": r[3], "data": json.loads(r[4]),
                 "prev": r[5], "hash": r[6]} for r in rows]

    def event(self, sid, seq):
        for ev in self.events(sid):
            if ev["seq"] == seq:
                return ev
        raise KeyError(seq)

    def set_data(self, sid, seq, data):
        n = self.con.execute("UPDATE events SET data=? WHERE session_id=? AND seq=?",
                             (jcs(data), sid, seq)).rowcount
        assert n == 1, f"no event {seq} in session {sid}"

    def set_raw_data(self, sid, seq, text):
        n = self.con.execute("UPDATE events SET data=? WHERE session_id=? AND seq=?",
                             (text, sid, seq)).rowcount
        assert n == 1

    def raw_data(self, sid, seq):
        return self.con.execute("SELECT data FROM events WHERE session_id=? AND seq=?",
                                (sid, seq)).fetchone()[0]

    def delete(self, sid, seq):
        n = self.con.execute("DELETE FROM events WHERE session_id=? AND seq=?",
                             (sid, seq)).rowcount
        assert n == 1

    def session_row(self, sid):
        r = self.con.execute("SELECT version, head FROM sessions WHERE id=?", (sid,)).fetchone()
        return {"version": r[0], "head": r[1]}

    def set_session(self, sid, version, head):
        self.con.execute("UPDATE sessions SET version=?, head=? WHERE id=?", (version, head, sid))

    def rechain(self, sid, from_seq):
        """Recomputes prev/hash of every event from from_seq on (with the reference) and
        points sessions.version/head at the last one: a forged, well-chained log."""
        evs = self.events(sid)
        prev = ZERO64
        for ev in evs:
            if ev["seq"] >= from_seq:
                h = event_hash(prev, ev)
                self.con.execute("UPDATE events SET prev=?, hash=? WHERE session_id=? AND seq=?",
                                 (prev, h, sid, ev["seq"]))
                ev["prev"], ev["hash"] = prev, h
            prev = ev["hash"]
        self.set_session(sid, evs[-1]["seq"], evs[-1]["hash"])
        return evs[-1]["hash"]


def tamper(daemon, fn):
    """SIGTERM the daemon (exit 0), run fn(Db) on its database, commit, restart."""
    rc = daemon.stop()
    assert rc == 0, f"daemon exited {rc} on SIGTERM; stderr:\n{daemon.stderr_text()[-3000:]}"
    db = Db(daemon.db)
    try:
        out = fn(db)
        db.commit()
    except BaseException:
        try:
            db.rollback()
        except db_errors():
            pass
        raise
    daemon.start()
    return out


# --------------------------------------------------------------------------- raw HTTP

def http_get_stream(port, path, headers=None, timeout=30.0):
    """GET with http.client; -> (status, headers, body bytes). For big streamed answers."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        return r.status, r.headers, body
    finally:
        c.close()


# --------------------------------------------------------------------------- SSE

class SSEClient:
    """A Server-Sent Events reader on a raw socket (chunked or plain body).

    A background thread reads and parses; each message is stored with its arrival time
    (time.monotonic()) in self.messages as dicts {id, event, data, t, raw_data}."""

    def __init__(self, port, path, token=None, last_event_id=None, rcvbuf=None,
                 extra_headers=(), timeout=10.0, start_reader=True):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.local_port = self.sock.getsockname()[1]
        lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Accept: text/event-stream"]
        if token is not None:
            lines.append(f"Authorization: Bearer {token}")
        if last_event_id is not None:
            lines.append(f"Last-Event-ID: {last_event_id}")
        lines += [f"{k}: {v}" for k, v in extra_headers]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        self.buf = b""
        self.status = None
        self.headers = {}
        self.body_prefix = b""
        self.messages = []
        self.comments = []
        self.eof = False
        self.clean_end = False     # the chunked body's last chunk arrived
        self.error = None
        self.cond = threading.Condition()
        self._reader = None
        self._chunked = False
        if start_reader:
            self.read_head()
            if self.status == 200:
                self._reader = threading.Thread(target=self._run, daemon=True)
                self._reader.start()

    # ---- head --------------------------------------------------------------------
    def read_head(self):
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError(f"connection closed before the response head: {self.buf!r}")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split(" ")[1])
        for line in lines[1:]:
            k, _, v = line.partition(":")
            self.headers.setdefault(k.strip().lower(), []).append(v.strip())
        te = ",".join(self.headers.get("transfer-encoding", [])).lower()
        self._chunked = "chunked" in te
        if self.status != 200:
            self.body_prefix = self._read_plain_body()

    def header(self, name):
        v = self.headers.get(name.lower())
        return v[-1] if v else None

    def _read_plain_body(self):
        if self._chunked:
            out = b""
            for piece in self._chunks():
                out += piece
            return out
        n = int(self.header("content-length") or 0)
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buf += chunk
        body, self.buf = self.buf[:n], self.buf[n:]
        return body

    def json_body(self):
        return strict_json_loads(self.body_prefix)

    # ---- body ---------------------------------------------------------------------
    def _recv(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        return chunk

    def _chunks(self):
        """Yields decoded body bytes of a chunked body until the last chunk."""
        while True:
            while b"\r\n" not in self.buf:
                self.buf += self._recv()
            line, self.buf = self.buf.split(b"\r\n", 1)
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.clean_end = True
                return
            while len(self.buf) < size + 2:
                self.buf += self._recv()
            data, self.buf = self.buf[:size], self.buf[size + 2:]
            yield data

    def _plain(self):
        if self.buf:
            data, self.buf = self.buf, b""
            yield data
        while True:
            yield self._recv()

    def _run(self):
        text = b""
        fields = {}
        data_lines = []
        try:
            self.sock.settimeout(None)
            source = self._chunks() if self._chunked else self._plain()
            for piece in source:
                now = time.monotonic()
                text += piece
                while True:
                    m = re.search(rb"\r\n|\n|\r", text)
                    if not m:
                        break
                    if m.group() == b"\r" and m.end() == len(text):
                        break  # maybe the first half of \r\n
                    line = text[:m.start()].decode("utf-8")
                    text = text[m.end():]
                    if line == "":
                        if data_lines or fields:
                            msg = dict(fields)
                            msg["raw_data"] = "\n".join(data_lines)
                            msg["t"] = now
                            with self.cond:
                                self.messages.append(msg)
                                self.cond.notify_all()
                        fields, data_lines = {}, []
                        continue
                    if line.startswith(":"):
                        with self.cond:
                            self.comments.append(line[1:].strip())
                        continue
                    name, sep, value = line.partition(":")
                    if sep and value.startswith(" "):
                        value = value[1:]
                    if name == "data":
                        data_lines.append(value)
                    else:
                        fields[name] = value
        except (EOFError, ConnectionResetError, BrokenPipeError):
            pass
        except OSError as e:  # closed by close()
            self.error = e
        except Exception as e:  # noqa: BLE001 - reported to the test
            self.error = e
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def wait(self, count, timeout):
        """Waits until at least count messages arrived (or EOF/timeout); -> messages."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.messages) < count and not self.eof:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return list(self.messages)

    def wait_seq(self, seq, timeout):
        """Waits until a message with id >= seq arrived; -> messages."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not self.eof:
                if self.messages and int(self.messages[-1].get("id", "0")) >= seq:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return list(self.messages)

    def wait_eof(self, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not self.eof:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return self.eof

    def events(self):
        """The messages' data parsed as events, checked against id and event fields."""
        out = []
        for m in list(self.messages):
            ev = strict_json_loads(m["raw_data"])
            assert m.get("id") == str(ev["seq"]), f"SSE id {m.get('id')!r} != seq {ev['seq']}"
            assert m.get("event") == ev["type"], \
                f"SSE event {m.get('event')!r} != type {ev['type']!r}"
            out.append(ev)
        return out

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        if self._reader is not None:
            self._reader.join(5)


def tcp_state(local_port, remote_port):
    """State (hex string, e.g. '01' ESTABLISHED, '04' FIN_WAIT1) and inode of the IPv4 TCP
    socket 127.0.0.1:local_port <-> 127.0.0.1:remote_port, or (None, None) if gone."""
    want_l = f"0100007F:{local_port:04X}"
    want_r = f"0100007F:{remote_port:04X}"
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            parts = line.split()
            if parts[1] == want_l and parts[2] == want_r:
                return parts[3], parts[9]
    return None, None


def vm_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


# --------------------------------------------------------------------------- odds reference

def term_distribution(t):
    """Fraction distribution {value: p} of one parsed term (see umpire_ref.parse_term)."""
    if t["kind"] == "const":
        return {t["value"]: Fraction(1)}
    n, s, keep = t["n"], t["sides"], t["keep"]
    if keep is None:
        dist = {0: Fraction(1)}
        one = Fraction(1, s)
        for _ in range(n):
            nxt = {}
            for v, p in dist.items():
                for f in range(1, s + 1):
                    nxt[v + f] = nxt.get(v + f, 0) + p * one
            dist = nxt
        return dist
    assert s ** n <= 2_000_000, "reference enumeration too big"
    counts = {}
    for combo in product(range(1, s + 1), repeat=n):
        v = sum(kept(list(combo), keep))
        counts[v] = counts.get(v, 0) + 1
    total = s ** n
    return {v: Fraction(c, total) for v, c in counts.items()}


def expr_distribution(expr):
    """-> ({total: Fraction}, number of dice combinations)."""
    dist = {0: Fraction(1)}
    combos = 1
    for sign, t in parse_expr(expr):
        if t["kind"] == "dice":
            combos *= t["sides"] ** t["n"]
        td = term_distribution(t)
        nxt = {}
        for a, pa in dist.items():
            for b, pb in td.items():
                k = a + sign * b
                nxt[k] = nxt.get(k, 0) + pa * pb
        dist = nxt
    return dist, combos


# --------------------------------------------------------------------------- offline verifier

def export_jsonl(umpire, sid, token, tmp_path, name="log.jsonl"):
    """GET /log?format=jsonl into tmp_path/name: -> (path, raw bytes)."""
    status, headers, raw = http_get_stream(umpire.daemon.port,
                                           f"/v1/sessions/{sid}/log?format=jsonl",
                                           headers={"Authorization": f"Bearer {token}"})
    assert status == 200, f"GET log jsonl: {status} {raw[:300]!r}"
    path = tmp_path / name
    path.write_bytes(raw)
    return path, raw


def parse_jsonl(raw):
    """The events of a jsonl export, each with exactly the seven members of an event."""
    lines = raw.decode("utf-8").split("\n")
    assert lines[-1] == "", "the jsonl export does not end with a newline"
    evs = [json.loads(line) for line in lines[:-1]]
    for ev in evs:
        assert set(ev) == {"seq", "ts", "actor", "type", "data", "prev", "hash"}, ev
    return evs
