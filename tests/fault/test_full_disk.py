"""Full disk: the database on a 2 MiB tmpfs.

A filler file takes most of the space, then rolls fill the rest until writes fail. Every
write answered while the disk is full is either a 200 (acknowledged: it must survive) or a 503
storage_unavailable with nothing written; the daemon stays up and serves reads; the chain
verifies. Deleting the filler frees space and writes succeed again. SIGTERM exits 0 with no
sanitizer report, and integrity_check is ok. Needs root (mount); skipped otherwise."""

import os
import secrets

import pytest

from fault_common import Client, Daemon, check_session_log, integrity_check
from umpire_client import tmpfs

TMPFS_SIZE = "2m"
LEAVE_FREE = 600 * 1024      # what the filler leaves for the database to grow into
MAX_ROLLS = 3000             # bound on the filling loop
FAILS_WANTED = 25            # failing writes to see before freeing space


@pytest.fixture
def small_disk():
    with tmpfs(TMPFS_SIZE, prefix="umpire-fault-disk-") as mnt:
        yield mnt


def fill(path, leave):
    """Writes a filler file until only about `leave` bytes are free (or the disk is full)."""
    st = os.statvfs(os.path.dirname(path))
    want = max(0, st.f_bavail * st.f_frsize - leave)
    try:
        with open(path, "wb") as f:
            while want > 0:
                n = min(want, 64 * 1024)
                f.write(b"\0" * n)
                want -= n
            f.flush()
    except OSError:
        pass


def fill_all(path):
    """Appends to the filler until ENOSPC."""
    try:
        with open(path, "ab") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:
        pass


def is_storage_unavailable(r):
    return (r.status == 503 and isinstance(r.body, dict)
            and r.body.get("error", {}).get("code") == "storage_unavailable")


def test_full_disk_refuses_cleanly_and_recovers(small_disk):
    d = Daemon()
    d.db = os.path.join(small_disk, "u.db")
    filler = os.path.join(small_disk, "filler")
    try:
        d.start()
        c = Client(d)
        seed = secrets.token_hex(32)
        s = c.create_session(mode="seeded", seed=seed)
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        acked = [(1, s["session"]["head"])]
        fill(filler, LEAVE_FREE)

        bad, fails, rolls = [], 0, 0
        version = 1
        while fails < FAILS_WANTED and rolls < MAX_ROLLS:
            rolls += 1
            if fails == 5:
                fill_all(filler)          # and take every last byte
            r = c.roll(sid, ref, "3d6kh2+1d4-1", expect=None)
            if r.status == 200:
                version += 1
                assert r.body["version"] == version, f"version skipped: {r!r}"
                acked.append((r.body["version"], r.body["head"]))
            elif is_storage_unavailable(r):
                fails += 1
                # nothing written: the log still ends at the last acknowledged event
                page = c.get(f"/v1/sessions/{sid}/events?after={version - 1}", token=ref)
                assert page.status == 200, f"reads must be served on a full disk: {page!r}"
                assert page.body["version"] == version and page.body["head"] == acked[-1][1], \
                    f"a refused write changed the log: {page.body!r}"
            else:
                bad.append(r)
            assert d.alive(), f"daemon died on a full disk:\n{d.stderr_text()[-4000:]}"
        assert not bad, f"answers other than 200 / 503 storage_unavailable: {bad[:5]}"
        assert fails >= FAILS_WANTED, f"the disk never filled ({rolls} rolls all succeeded)"

        # still full: creating a session and a reveal are refused the same way (or succeed)
        r = c.post("/v1/sessions", {"ruleset": "generic", "sides": ["a"]})
        assert r.status == 201 or is_storage_unavailable(r), f"create on a full disk: {r!r}"
        srv = None
        if r.status == 201:
            srv = r.body
        # reads and verification still work, nothing acknowledged is missing
        # /health says what the last write met (docs/api.md, Health): 503 "full" while the disk
        # refuses writes, 200 if the creation above still fitted
        h = c.get("/v1/health")
        assert h.status == 200 or (h.status == 503 and h.body["storage"] == "full"), h
        check_session_log(c, sid, ref, seed=seed, acked=acked, head_held=acked[-1][1])

        # free the space: writes succeed again
        os.unlink(filler)
        first = c.roll(sid, ref, "1d20", expect=None)
        assert first.status == 200, \
            f"first write after space was freed: {first!r}\n{d.stderr_text()[-3000:]}"
        acked.append((first.body["version"], first.body["head"]))
        for _ in range(20):
            body = c.roll(sid, ref, "2d6").body
            acked.append((body["version"], body["head"]))
        r = c.post("/v1/sessions", {"ruleset": "generic", "sides": ["a"],
                                    "dice": {"mode": "server"}})
        assert r.status == 201, f"create after recovery: {r!r}"
        c.roll(r.body["session"]["id"], r.body["tokens"]["referee"], "1d6")  # something to reveal
        rev = c.post(f"/v1/sessions/{r.body['session']['id']}/reveal",
                     token=r.body["tokens"]["referee"])
        assert rev.status == 200, f"reveal after recovery: {rev!r}"
        evs = check_session_log(c, sid, ref, seed=seed, acked=acked, head_held=acked[-1][1])
        assert len(evs) == len(acked), \
            f"{len(acked)} acknowledged but {len(evs)} events: a refused write was stored"
        if srv:
            check_session_log(c, srv["session"]["id"], srv["tokens"]["referee"])
        c.close()

        # survives a restart, exits cleanly, the file is sound
        d.restart()
        c = Client(d)
        check_session_log(c, sid, ref, seed=seed, acked=acked)
        c.close()
        rc = d.stop()
        assert rc == 0, f"exit code {rc} on SIGTERM\n{d.stderr_text()[-3000:]}"
        assert not d.sanitizer_findings(), d.stderr_text()[-6000:]
        assert integrity_check(d.db) == ["ok"]
        print(f"\nfull disk: {rolls} rolls while filling, {fails} refused with 503, "
              f"{len(acked)} events acknowledged, lost 0")
    finally:
        d.cleanup()


def test_full_disk_kill9_while_full_then_recover(small_disk):
    """kill -9 while the disk is full, then free space and restart: nothing acknowledged lost."""
    d = Daemon()
    d.db = os.path.join(small_disk, "u.db")
    filler = os.path.join(small_disk, "filler")
    try:
        d.start()
        c = Client(d)
        s = c.create_session(mode="server")
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        acked = [(1, s["session"]["head"])]
        fill(filler, LEAVE_FREE)
        fails = 0
        for _ in range(MAX_ROLLS):
            r = c.roll(sid, ref, "10d10", expect=None)
            if r.status == 200:
                acked.append((r.body["version"], r.body["head"]))
            else:
                assert is_storage_unavailable(r), f"full disk: {r!r}"
                fails += 1
                if fails == 3:
                    fill_all(filler)
                if fails >= 10:
                    break
        assert fails >= 10, "the disk never filled"
        c.close()
        d.kill9()
        os.unlink(filler)
        d.start()
        c = Client(d)
        evs = check_session_log(c, sid, ref, acked=acked)
        assert len(evs) == len(acked), f"{len(acked)} acknowledged, {len(evs)} events"
        c.roll(sid, ref, "1d6")
        c.close()
        rc = d.stop()
        assert rc == 0, f"exit code {rc} on SIGTERM\n{d.stderr_text()[-3000:]}"
        assert not d.sanitizer_findings(), d.stderr_text()[-6000:]
        assert integrity_check(d.db) == ["ok"]
    finally:
        d.cleanup()
