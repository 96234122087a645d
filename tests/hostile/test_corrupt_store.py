"""A store that is checked (issue 22, item 7).

- A SQLite file with damaged pages: the daemon refuses to start (PRAGMA quick_check at start),
  with a log line that says so, instead of serving it as sound.
- A session whose stored head no longer matches its last event (tampered with beside the
  daemon): its next write answers 503 storage_corrupt and appends nothing, while other sessions
  still act. Both backends (UMPIRE_TEST_BACKEND=postgresql).
- A read-only database file, and a full disk: GET /v1/health answers 503 with what is wrong
  and `umpired --check-health` exits non-zero; once writes succeed again it says ok. The mounts
  need root (skipped otherwise)."""

import contextlib
import http.client
import os
import random
import subprocess

import pytest

from hostile_util import Client, wait_until
from umpire_client import ON_POSTGRESQL, Daemon, _EarlyExit, strict_json_loads
from umpire_client import tmpfs as mount_tmpfs

PAGE = 4096  # SQLite's default page size, which the daemon keeps


class AnyHealthDaemon(Daemon):
    """A Daemon whose start-up waits for any answer of /v1/health (a degraded store answers
    503, and the daemon is up all the same)."""

    def wait_healthy(self, timeout):
        import time
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise _EarlyExit(f"exited with {self.proc.returncode}:\n"
                                 f"{self.stderr_text()[-3000:]}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                health(self)
                return
            time.sleep(0.03)
        raise RuntimeError(f"no answer on /v1/health within {timeout}s")


def health(d):
    """(status, body) of GET /v1/health."""
    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=5)
    try:
        c.request("GET", "/v1/health")
        r = c.getresponse()
        return r.status, strict_json_loads(r.read())
    finally:
        c.close()


def check_health_exit(d):
    """The exit code of `umpired --check-health URL` against d."""
    r = subprocess.run([d.binary, "--check-health", f"http://127.0.0.1:{d.port}/v1/health"],
                       capture_output=True, timeout=30)
    return r.returncode


def error_code(r):
    return r.body.get("error", {}).get("code") if isinstance(r.body, dict) else None


@pytest.fixture
def daemons():
    started = []
    try:
        yield started
        for d in started:
            rc = d.stop() if d.alive() else None
            assert rc in (None, 0), f"exit code {rc} on SIGTERM:\n{d.stderr_text()[-3000:]}"
            assert not d.sanitizer_findings(), d.stderr_text()[-4000:]
    finally:
        for d in started:
            d.cleanup()


def tmpfs(size):
    return mount_tmpfs(size, prefix="umpire-store-")


# --------------------------------------------------------------------------- damaged pages

@pytest.mark.skipif(ON_POSTGRESQL, reason="PRAGMA quick_check: SQLite files only")
def test_damaged_pages_refuse_to_start(daemons):
    d = Daemon()
    daemons.append(d)
    d.start()
    c = Client(d)
    for _ in range(4):
        s = c.create_session(mode="seeded", seed="ab" * 32, title="t" * 200)
        for _ in range(60):
            c.roll(s["session"]["id"], s["tokens"]["referee"], "3d6kh2+1d4-1")
    assert d.stop() == 0
    size = os.path.getsize(d.db)
    pages = size // PAGE
    assert pages > 40, f"the database is too small to damage ({pages} pages)"
    # 25 pages from the middle (never page 1, the header SQLite must read to open the file)
    rng = random.Random(22)
    with open(d.db, "r+b") as f:
        for page in range(pages // 3, pages // 3 + 25):
            f.seek(page * PAGE)
            f.write(bytes(rng.randrange(256) for _ in range(PAGE)))
    with pytest.raises(RuntimeError):
        d.start(timeout=20)
    rc = d.proc.wait(10)
    assert rc != 0, "the daemon started on a damaged database"
    log = d.stderr_text()
    assert "quick_check" in log and "corrupt" in log, log[-3000:]
    d.exit_codes.clear()


@pytest.mark.skipif(ON_POSTGRESQL, reason="storage.quick_check_ms: SQLite only")
def test_quick_check_outcome_is_logged(daemons):
    d = Daemon()
    daemons.append(d)
    d.start()
    assert "quick_check ok" in d.stderr_text()


# --------------------------------------------------------------------------- a tampered head

def tamper_head(d, sid):
    con = d.db_connect()
    try:
        con.execute("UPDATE sessions SET head = ? WHERE id = ?", ("0" * 64, sid))
    finally:
        con.close()


def event_count(d, sid):
    return d.sql("SELECT count(*) FROM events WHERE session_id = ?", (sid,))[0][0]


def test_tampered_head_refuses_to_append(daemons):
    d = Daemon()
    daemons.append(d)
    d.start()
    c = Client(d)
    fresh = c.create_session()                  # never written since: read from the store
    cached = c.create_session()                 # acted on: its row is in the writer's cache
    other = c.create_session()
    c.roll(cached["session"]["id"], cached["tokens"]["referee"], "1d6")

    sid, ref = fresh["session"]["id"], fresh["tokens"]["referee"]
    tamper_head(d, sid)
    before = event_count(d, sid)
    r = c.roll(sid, ref, "1d6", expect=None)
    assert r.status == 503 and error_code(r) == "storage_corrupt", r
    assert "chain" in r.body["error"]["message"]
    r = c.post(f"/v1/sessions/{sid}/reveal", token=ref)       # every write of the session
    assert r.status == 503 and error_code(r) == "storage_corrupt", r
    assert event_count(d, sid) == before, "a refused write appended to the broken chain"
    assert sid in d.stderr_text() and "does not match its head" in d.stderr_text()

    # other sessions act as before, in the same batches
    c.roll(other["session"]["id"], other["tokens"]["referee"], "2d6")
    c.roll(cached["session"]["id"], cached["tokens"]["referee"], "2d6")
    assert health(d)[0] == 200, "a damaged session is not a store that refuses writes"

    # a row cached before the damage was checked when read; after a restart it is read again
    csid, cref = cached["session"]["id"], cached["tokens"]["referee"]
    assert d.stop() == 0
    tamper_head(d, csid)
    d.start()
    c = Client(d)
    before = event_count(d, csid)
    r = c.roll(csid, cref, "1d6", expect=None)
    assert r.status == 503 and error_code(r) == "storage_corrupt", r
    assert event_count(d, csid) == before
    c.roll(other["session"]["id"], other["tokens"]["referee"], "2d6")
    # the responses list holds the expected 503s: not a harness failure
    d.responses.clear()


# --------------------------------------------------------------------------- read-only, full

@pytest.mark.skipif(ON_POSTGRESQL, reason="a read-only SQLite file")
def test_read_only_file_is_reported(daemons):
    with tmpfs("8m") as mnt:
        d = AnyHealthDaemon()
        daemons.append(d)
        d.db = os.path.join(mnt, "u.db")
        d.start()
        c = Client(d)
        s = c.create_session()
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        c.roll(sid, ref, "1d6")
        assert d.stop() == 0
        # The file alone read-only (its directory writable, as for a file of mode 0444 under
        # another user): a bind mount of it, remounted read-only. Root ignores file modes.
        if subprocess.run(["mount", "--bind", d.db, d.db]).returncode != 0:
            pytest.skip("cannot bind-mount")
        try:
            assert subprocess.run(["mount", "-o", "remount,bind,ro", d.db]).returncode == 0
            d.start()
            status, body = health(d)
            assert status == 503, body
            assert body["status"] == "degraded" and body["storage"] == "read_only", body
            assert check_health_exit(d) != 0
            assert "read-only" in d.stderr_text()
            # reads are served; writes are refused, with nothing written
            c = Client(d)
            assert c.get(f"/v1/sessions/{sid}", token=ref).status == 200
            r = c.roll(sid, ref, "1d6", expect=None)
            assert r.status == 503 and error_code(r) == "storage_unavailable", r
            assert health(d)[1]["storage"] == "read_only"
            assert d.stop() == 0
        finally:
            subprocess.run(["umount", d.db], capture_output=True)
        # writable again: a restart reports ok
        d.start()
        assert health(d)[0] == 200
        assert check_health_exit(d) == 0
        Client(d).roll(sid, ref, "1d6")


def fill_disk(path):
    """Writes to path until the disk is full."""
    with contextlib.suppress(OSError), open(path, "ab") as f:
        while True:
            f.write(b"\0" * 65536)
            f.flush()


@pytest.mark.skipif(ON_POSTGRESQL, reason="a full disk under a SQLite file")
def test_full_disk_is_reported(daemons):
    with tmpfs("3m") as mnt:
        d = AnyHealthDaemon()
        daemons.append(d)
        d.db = os.path.join(mnt, "u.db")
        d.start()
        c = Client(d)
        s = c.create_session(mode="seeded", seed="cd" * 32)
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        filler = os.path.join(mnt, "filler")
        fill_disk(filler)
        refused = 0
        for _ in range(3000):
            r = c.roll(sid, ref, "3d6kh2+1d4-1", expect=None)
            assert r.status in (200, 503), r
            if r.status == 503:
                assert error_code(r) == "storage_unavailable", r
                refused += 1
                break
        assert refused, "the disk never filled"
        status, body = health(d)
        assert status == 503 and body == {"status": "degraded", "storage": "full",
                                          "version": body["version"]}, body
        assert check_health_exit(d) != 0
        # space again: the next write succeeds and the store is reported writable
        os.unlink(filler)
        c.roll(sid, ref, "1d6")
        assert wait_until(lambda: health(d)[0] == 200, 5)
        assert check_health_exit(d) == 0
        assert "writable again" in d.stderr_text()
