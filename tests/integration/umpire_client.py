"""Harness for the Umpire integration tests: the daemon process, an HTTP client,
raw-socket helpers and assertions on the contract's envelopes."""

import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SANITIZER_MARKERS = ("LeakSanitizer", "runtime error", "AddressSanitizer",
                     "ThreadSanitizer", "MemorySanitizer")
JSON_CT = "application/json; charset=utf-8"
START_TIMEOUT = 10.0
STOP_TIMEOUT = 15.0   # server.shutdown_timeout_ms defaults to 10 s
# Storage the daemons run on: "sqlite" (a temp file) or "postgresql" (a fresh database of a
# PostgreSQL server the tests start, tests/pg/pg_server.py).
BACKEND = os.environ.get("UMPIRE_TEST_BACKEND", "sqlite")
if BACKEND not in ("sqlite", "postgresql"):
    raise RuntimeError(f"UMPIRE_TEST_BACKEND={BACKEND!r}: expected sqlite or postgresql")
ON_POSTGRESQL = BACKEND == "postgresql"

# What one client may ask of the daemon (config [limits], [server]) is bounded per address, and
# every test talks from 127.0.0.1: the test daemons lift those bounds unless the test's own
# config sets them (the tests of the bounds themselves: tests/hostile/test_client_limits.py).
TEST_LIMITS = {
    "limits": {f"{kind}_{what}": 100000000 if what == "per_minute" and kind == "actions"
               else 1000000
               for kind in ("create", "actions", "odds", "verify", "webhook_changes")
               for what in ("per_minute", "burst")},
    "server": {"max_connections_per_client": 1048576, "max_streams_per_client": 1048576,
               "max_streams_per_session": 1048576, "max_streams_per_token": 1048576},
    "work": {"per_client": 1024},
}


def _toml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return json.dumps(str(v))  # a TOML basic string is JSON's escaping for our ASCII values


@contextlib.contextmanager
def tmpfs(size, prefix="umpire-tmpfs-"):
    """A tmpfs of `size` ("4m") mounted on a fresh directory, for tests of a full disk; skips
    the test where mounting needs a root this machine does not give."""
    import pytest
    mnt = tempfile.mkdtemp(prefix=prefix)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mnt],
                       capture_output=True, text=True)
    if r.returncode != 0:
        os.rmdir(mnt)
        pytest.skip(f"cannot mount a tmpfs (needs root): {r.stderr.strip() or r.returncode}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)
        with contextlib.suppress(OSError):
            os.rmdir(mnt)


def with_test_limits(config_text=None):
    """config_text (TOML; None for none) with TEST_LIMITS added where it sets nothing, as TOML
    text. Tables and keys the test sets win."""
    import tomllib
    tables = tomllib.loads(config_text or "")
    for name, keys in TEST_LIMITS.items():
        table = tables.setdefault(name, {})
        for k, v in keys.items():
            table.setdefault(k, v)
    out = []
    for name, keys in tables.items():
        out.append(f"[{name}]")
        out += [f"{k} = {_toml_scalar(v)}" for k, v in keys.items()]
    return "\n".join(out) + "\n"


def umpired_path():
    p = os.environ.get("UMPIRED", "build/umpired")
    if os.path.isabs(p):
        return p
    if os.path.exists(p):
        return os.path.abspath(p)
    return str(REPO_ROOT / p)


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def strict_json_loads(data):
    """json.loads that refuses duplicate keys (a daemon must never emit them)."""
    def hook(pairs):
        d = {}
        for k, v in pairs:
            if k in d:
                raise ValueError(f"duplicate key {k!r} in response JSON")
            d[k] = v
        return d
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data, object_pairs_hook=hook)


def pg_server():
    """The process-wide PostgreSQL server of the tests (started on first use)."""
    pg_dir = str(REPO_ROOT / "tests" / "pg")
    if pg_dir not in sys.path:
        sys.path.insert(0, pg_dir)
    import pg_server as mod
    return mod.shared()


def new_db_arg(workdir):
    """The --db argument for a new, empty database: a file in workdir, or the URI of a fresh
    PostgreSQL database."""
    if ON_POSTGRESQL:
        return pg_server().create_database()
    return os.path.join(workdir, "umpire.db")


def db_errors():
    """The exception classes a database access may raise, on the backend in use."""
    if ON_POSTGRESQL:
        import psycopg2
        return (psycopg2.Error,)
    return (sqlite3.Error,)


class DbResult:
    def __init__(self, rows, rowcount):
        self.rows = rows
        self.rowcount = rowcount

    def fetchone(self):
        return self.rows[0] if self.rows else None

    def fetchall(self):
        return list(self.rows)


class DbConn:
    """A connection to a daemon's database (db: the --db argument), SQLite or PostgreSQL.

    execute() takes SQLite's ? placeholders on both and returns a DbResult (rows fetched);
    BLOB/bytea values come back as bytes. transaction=True: one write transaction until
    commit()/rollback() (SQLite: BEGIN IMMEDIATE); False: each statement commits."""

    def __init__(self, db, transaction=False, readonly=False, timeout=5):
        self.pg = db.startswith("postgresql://")
        if self.pg:
            import psycopg2
            self.con = psycopg2.connect(db, connect_timeout=timeout)
            self.con.autocommit = not transaction
            if readonly:
                self.con.set_session(readonly=True)
        else:
            target, uri = (f"file:{db}?mode=ro", True) if readonly else (db, False)
            self.con = sqlite3.connect(target, uri=uri, timeout=timeout, isolation_level=None)
            if transaction:
                self.con.execute("BEGIN IMMEDIATE")
        self.transaction = transaction

    def execute(self, query, params=()):
        if self.pg:
            cur = self.con.cursor()
            cur.execute(query.replace("%", "%%").replace("?", "%s"), tuple(params))
        else:
            cur = self.con.execute(query, tuple(params))
        rows = []
        if cur.description is not None:
            rows = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r)
                    for r in cur.fetchall()]
        rowcount = cur.rowcount
        cur.close()
        return DbResult(rows, rowcount)

    def tables(self):
        if self.pg:
            q = ("SELECT table_name FROM information_schema.tables "
                 "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")
        else:
            q = "SELECT name FROM sqlite_master WHERE type='table'"
        return [r[0] for r in self.execute(q).rows]

    def commit(self):
        if self.pg:
            self.con.commit()
        elif self.transaction:
            self.con.execute("COMMIT")
        self.close()

    def rollback(self):
        try:
            if self.pg:
                self.con.rollback()
            elif self.transaction:
                self.con.execute("ROLLBACK")
        finally:
            self.close()

    def close(self):
        self.con.close()


class Response:
    def __init__(self, status, headers, body, raw):
        self.status = status
        self.headers = headers      # http.client.HTTPMessage: case-insensitive get()
        self.body = body            # parsed JSON, or text when not JSON
        self.raw = raw              # the body bytes exactly as received

    def __iter__(self):
        return iter((self.status, self.headers, self.body))

    def header(self, name):
        return self.headers.get(name)

    def __repr__(self):
        return f"<HTTP {self.status} {self.raw[:600]!r}>"


class Client:
    """Keep-alive JSON client bound to a Daemon (follows it across restarts)."""

    def __init__(self, daemon, timeout=10.0):
        self.daemon = daemon
        self.timeout = timeout
        self.conn = None
        self.conn_port = None

    def close(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None

    def _connection(self):
        if self.conn is None or self.conn_port != self.daemon.port:
            self.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.daemon.port,
                                                   timeout=self.timeout)
            self.conn_port = self.daemon.port
        return self.conn

    def request(self, method, path, body=None, token=None, headers=None, raw=None,
                content_type=JSON_CT):
        """-> Response (iterable as (status, headers, json_or_text)).

        body: a JSON value, serialised; raw: bytes sent as they are (content_type
        may be None to send no Content-Type). headers: extra headers.
        """
        hdrs = {}
        data = None
        if raw is not None:
            data = raw.encode("utf-8") if isinstance(raw, str) else raw
            if content_type is not None:
                hdrs["Content-Type"] = content_type
        elif body is not None:
            data = json.dumps(body).encode("utf-8")
            if content_type is not None:
                hdrs["Content-Type"] = content_type
        if token is not None:
            hdrs["Authorization"] = f"Bearer {token}"
        if headers:
            hdrs.update(headers)
        for attempt in (0, 1):
            conn = self._connection()
            reused = conn.sock is not None
            try:
                conn.request(method, path, body=data, headers=hdrs)
                resp = conn.getresponse()
                raw_body = resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError,
                    ConnectionResetError, http.client.CannotSendRequest):
                self.close()
                if attempt == 0 and reused:
                    continue  # the server closed an idle keep-alive connection
                raise
            break
        if resp.will_close:
            self.close()
        ct = resp.getheader("Content-Type") or ""
        parsed = raw_body.decode("utf-8", "replace")
        if raw_body and "json" in ct:
            parsed = strict_json_loads(raw_body)
        self.daemon.responses.append((method, path, resp.status))
        return Response(resp.status, resp.headers, parsed, raw_body)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    # ---- conveniences -------------------------------------------------------

    def create_session(self, sides=("alice", "bob"), mode="server", seed=None,
                       units=None, visibility=None, title=None, options=None,
                       ruleset="generic", extra=None):
        body = {"ruleset": ruleset, "sides": list(sides)}
        if title is not None:
            body["title"] = title
        if visibility is not None:
            body["visibility"] = visibility
        if mode is not None:
            body["dice"] = {"mode": mode}
            if seed is not None:
                body["dice"]["seed"] = seed
        if options is not None:
            body["options"] = options
        if units is not None:
            body["setup"] = {"units": units}
        if extra:
            body.update(extra)
        r = self.post("/v1/sessions", body)
        assert r.status == 201, f"create session failed: {r!r}"
        return r.body

    def roll(self, sid, token, expr, expect=200, **fields):
        body = {"type": "roll", "expr": expr}
        headers = fields.pop("headers", None)
        body.update(fields)
        r = self.post(f"/v1/sessions/{sid}/actions", body, token=token, headers=headers)
        if expect is not None:
            assert r.status == expect, f"roll {expr!r}: expected {expect}, got {r!r}"
        return r

    def events(self, sid, token=None):
        """All events of a session, paging with after/next_after."""
        out = []
        after = 0
        last = None
        for _ in range(1000):
            r = self.get(f"/v1/sessions/{sid}/events?after={after}&limit=1000", token=token)
            assert r.status == 200, f"GET events: {r!r}"
            evs = r.body["events"]
            out.extend(evs)
            last = r.body
            if not evs:
                break
            after = r.body["next_after"]
        return out, last

    def session(self, sid, token=None):
        r = self.get(f"/v1/sessions/{sid}", token=token)
        assert r.status == 200, f"GET session: {r!r}"
        return r.body["session"]


class Daemon:
    """config: TOML text, written to <workdir>/config.toml and passed as --config FILE;
    args: extra command-line arguments, after --listen and --db. self.db is the --db
    argument: <workdir>/umpire.db, or with UMPIRE_TEST_BACKEND=postgresql the URI of a fresh
    database (each Daemon its own; restarts keep it)."""

    def __init__(self, binary=None, config=None, args=None):
        self.binary = binary or umpired_path()
        self.workdir = tempfile.mkdtemp(prefix="umpire-it-")
        self.db = new_db_arg(self.workdir)
        self.config_path = os.path.join(self.workdir, "config.toml")
        with open(self.config_path, "w") as f:
            f.write(with_test_limits(config))
        self.extra_args = list(args or ())
        self.stderr_path = os.path.join(self.workdir, "stderr.log")
        self.stdout_path = os.path.join(self.workdir, "stdout.log")
        self.proc = None
        self.port = None
        self.responses = []
        self.exit_codes = []
        self.last_stop_seconds = None

    # ---- lifecycle ------------------------------------------------------------

    def start(self, timeout=START_TIMEOUT):
        if not os.path.exists(self.binary):
            raise RuntimeError(f"daemon binary {self.binary} does not exist (set UMPIRED)")
        last_err = None
        for _ in range(3):
            self.port = free_port()
            env = dict(os.environ)
            env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
            with open(self.stderr_path, "ab") as err, open(self.stdout_path, "ab") as out:
                err.write(f"--- start on port {self.port}\n".encode())
                err.flush()
                argv = [self.binary]
                if self.config_path is not None:
                    argv += ["--config", self.config_path]
                argv += ["--listen", f"127.0.0.1:{self.port}", "--db", self.db]
                argv += self.extra_args
                self.proc = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=self.workdir,
                    env=env)
            try:
                self.wait_healthy(timeout)
                return self
            except _EarlyExit as e:
                last_err = e
                if "in use" in self.stderr_text()[-2000:].lower():
                    continue  # lost the port race; try another port
                raise RuntimeError(str(e)) from None
        raise RuntimeError(f"daemon did not start: {last_err}")

    def wait_healthy(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                raise _EarlyExit(f"daemon exited with {rc} during start-up; stderr:\n"
                                 f"{self.stderr_text()[-3000:]}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                c.request("GET", "/v1/health")
                r = c.getresponse()
                r.read()
                c.close()
                if r.status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.03)
        self.kill9()
        raise RuntimeError(f"daemon did not answer GET /v1/health within {timeout}s; stderr:\n"
                           f"{self.stderr_text()[-3000:]}")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT):
        """Signals the daemon and waits; returns its exit code (kills -9 on timeout)."""
        if self.proc is None:
            return None
        t0 = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
                self.exit_codes.append(("hung", sig))
                raise AssertionError(f"daemon did not exit within {timeout}s of signal {sig}")
        rc = self.proc.returncode
        self.last_stop_seconds = time.monotonic() - t0
        self.exit_codes.append((rc, sig))
        return rc

    def kill9(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
            self.exit_codes.append((self.proc.returncode, signal.SIGKILL))

    def restart(self):
        """Clean stop (SIGTERM, exit code must be 0), then start on the same db."""
        rc = self.stop()
        assert rc == 0, f"daemon exited with {rc} on SIGTERM; stderr:\n{self.stderr_text()[-3000:]}"
        return self.start()

    def crash_restart(self):
        """kill -9, then start on the same db."""
        self.kill9()
        return self.start()

    # ---- inspection -----------------------------------------------------------

    def stderr_text(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def sanitizer_findings(self):
        text = self.stderr_text()
        return [m for m in SANITIZER_MARKERS if m in text]

    def stop_problems(self):
        """Stops the daemon (SIGTERM) if it runs and lists what a test's teardown refuses: a
        non-zero exit, a sanitizer report in stderr, any 5xx answered (bad input must never
        get one). [] when all is well."""
        rc = self.stop() if self.alive() else None
        problems = []
        if rc is not None and rc != 0:
            problems.append(f"exit code {rc} on SIGTERM at teardown")
        found = self.sanitizer_findings()
        if found:
            problems.append(f"sanitizer report in stderr: {found}")
        fives = [r for r in self.responses if r[2] >= 500]
        if fives:
            problems.append(f"the daemon answered 5xx (bad input must never) to {fives[:5]}")
        return problems

    def db_connect(self, transaction=False, readonly=False):
        """A DbConn on this daemon's database."""
        return DbConn(self.db, transaction=transaction, readonly=readonly)

    def sql(self, query, params=()):
        """Runs one statement (? placeholders) on this daemon's database, committed; -> rows."""
        con = self.db_connect()
        try:
            return con.execute(query, params).rows
        finally:
            con.close()

    def db_row_counts(self):
        """Best effort: {table: rows} read from the database, or None if unreadable."""
        try:
            con = DbConn(self.db, readonly=True, timeout=2)
            try:
                return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                        for t in con.tables()}
            finally:
                con.close()
        except db_errors():
            return None

    def cleanup(self):
        self.kill9()
        shutil.rmtree(self.workdir, ignore_errors=True)
        if ON_POSTGRESQL and self.db.startswith("postgresql://"):
            try:
                pg_server().drop_database(self.db)
            except db_errors():
                pass


class _EarlyExit(Exception):
    pass


# --------------------------------------------------------------------------- assertions

def check_json_ct(resp):
    ct = (resp.header("Content-Type") or "").lower().replace(" ", "")
    assert ct.startswith("application/json"), f"Content-Type {ct!r}: {resp!r}"
    if "charset" in ct:
        assert "charset=utf-8" in ct, f"Content-Type {ct!r}"


def expect(resp, status):
    assert resp.status == status, f"expected HTTP {status}, got {resp!r}"
    check_json_ct(resp)
    assert isinstance(resp.body, dict), f"body is not a JSON object: {resp!r}"
    return resp.body


def assert_error(resp, status, code=None, field=None):
    """The contract's error envelope, with status, code and details.field (a str or a set)."""
    assert resp.status == status, f"expected HTTP {status} {code}, got {resp!r}"
    check_json_ct(resp)
    body = resp.body
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), \
        f"not an error envelope: {resp!r}"
    err = body["error"]
    assert isinstance(err.get("code"), str) and re.match(r"^[a-z][a-z0-9_]*$", err["code"]), \
        f"error.code not snake_case: {resp!r}"
    if code is not None:
        codes = {code} if isinstance(code, str) else set(code)
        assert err["code"] in codes, f"expected error code {code}, got {resp!r}"
    assert isinstance(err.get("message"), str) and err["message"].strip(), \
        f"error.message missing: {resp!r}"
    assert isinstance(err.get("details"), dict), f"error.details not an object: {resp!r}"
    if field is not None:
        fields = {field} if isinstance(field, str) else set(field)
        assert err["details"].get("field") in fields, \
            f"expected details.field in {sorted(fields)}, got {resp!r}"
    return err


def random_hex(nbytes):
    return secrets.token_hex(nbytes)


# --------------------------------------------------------------------------- raw sockets

class RawResponse:
    def __init__(self, status, reason, headers, body):
        self.status = status
        self.reason = reason
        self.headers = headers   # {lowercase name: [values]}
        self.body = body

    def header(self, name):
        v = self.headers.get(name.lower())
        return v[-1] if v else None

    def json(self):
        return strict_json_loads(self.body)

    def __repr__(self):
        return f"<raw HTTP {self.status} {self.body[:600]!r}>"


class RawConn:
    """A plain TCP connection for requests http.client will not send."""

    def __init__(self, port, timeout=5.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def send(self, data):
        if isinstance(data, str):
            data = data.encode("latin-1")
        self.sock.sendall(data)

    def send_tolerant(self, data, chunk=4096):
        """Sends as much as the peer accepts; stops quietly if it resets/closes."""
        if isinstance(data, str):
            data = data.encode("latin-1")
        try:
            for i in range(0, len(data), chunk):
                self.sock.sendall(data[i:i + chunk])
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("connection closed by the daemon")
        self.buf += chunk

    def read_response(self):
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        assert parts[0].startswith("HTTP/1."), f"bad status line {lines[0]!r}"
        status = int(parts[1])
        reason = parts[2] if len(parts) > 2 else ""
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
        te = ",".join(headers.get("transfer-encoding", [])).lower()
        if "chunked" in te:
            body = b""
            while True:
                while b"\r\n" not in self.buf:
                    self._fill()
                size_line, self.buf = self.buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(self.buf) < size + 2:
                    self._fill()
                body += self.buf[:size]
                self.buf = self.buf[size + 2:]
                if size == 0:
                    break
        else:
            n = int(headers.get("content-length", ["0"])[-1])
            while len(self.buf) < n:
                self._fill()
            body, self.buf = self.buf[:n], self.buf[n:]
        return RawResponse(status, reason, headers, body)

    def closed_by_peer(self, timeout=3.0):
        """True if the daemon closes the connection (EOF or reset) within timeout."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buf += chunk
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def raw_request(method, path, headers=(), body=b"", version="HTTP/1.1"):
    lines = [f"{method} {path} {version}", "Host: 127.0.0.1"]
    lines += [f"{k}: {v}" for k, v in headers]
    if isinstance(body, str):
        body = body.encode("utf-8")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@contextlib.contextmanager
def time_limit(seconds, what="test"):
    """Bounds a test with SIGALRM (Debian's pytest has no pytest-timeout); the fixtures of
    every suite (integration, fault, hostile) use it."""
    def on_alarm(signum, frame):
        raise TimeoutError(f"{what} exceeded {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
