"""Helpers shared by the fault suites (tests/fault): reuse the integration harness
(tests/integration/umpire_client.py, umpire_ref.py) and add what faults need."""

import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from umpire_client import Client, Daemon  # noqa: E402,F401
from umpire_ref import (check_consecutive_nonces, check_dice_against_seed,  # noqa: E402,F401
                        flat_dice, verify_chain)


def integrity_check(db_path):
    """PRAGMA integrity_check on db_path (the daemon must be stopped) -> list of rows."""
    con = sqlite3.connect(db_path, timeout=5)
    try:
        return [r[0] for r in con.execute("PRAGMA integrity_check")]
    finally:
        con.close()


def integrity_check_copy(db_path):
    """integrity_check on a copy of db_path and its -wal/-shm, so that SQLite's recovery in
    the checker does not touch the files the daemon will reopen (used right after kill -9)."""
    tmp = tempfile.mkdtemp(prefix="umpire-fault-ic-")
    try:
        dst = os.path.join(tmp, "copy.db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db_path + suffix):
                shutil.copyfile(db_path + suffix, dst + suffix)
        return integrity_check(dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def get_verify(client, sid, token, head=None):
    path = f"/v1/sessions/{sid}/verify" + (f"?head={head}" if head else "")
    r = client.get(path, token=token)
    assert r.status == 200, f"GET verify: {r!r}"
    return r.body


def check_session_log(client, sid, token, seed=None, acked=(), head_held=None):
    """Reads the whole log; checks it with the Python reference and GET /verify.

    acked: iterable of (seq, hash) the daemon acknowledged; each must be in the log.
    Returns the events."""
    evs, page = client.events(sid, token)
    verify_chain(evs, head=page["head"])          # seq contiguous from 1, prev links, hashes
    assert page["version"] == len(evs), f"version {page['version']} but {len(evs)} events"
    for seq, h in acked:
        assert seq <= len(evs), f"acknowledged seq {seq} lost: the log ends at {len(evs)}"
        assert evs[seq - 1]["hash"] == h, \
            f"acknowledged seq {seq} has hash {evs[seq - 1]['hash']}, the 200 said {h}"
    rep = get_verify(client, sid, token, head=head_held)
    assert rep.get("ok") is True and rep.get("events") == len(evs) \
        and rep.get("head") == page["head"], f"GET verify: {rep!r}"
    if seed is not None:
        dice = flat_dice(evs)
        check_consecutive_nonces(dice, first=1)
        check_dice_against_seed(seed, sid, dice)
    return evs


def umpired_binary_for_faults():
    """The daemon for fault injection: $UMPIRED_FAULT, else the one the other suites use."""
    from umpire_client import umpired_path
    p = os.environ.get("UMPIRED_FAULT")
    return os.path.abspath(p) if p else umpired_path()
