"""What one session may hold (issue 22, item 1: limits.max_state_bytes, max_events_per_session,
max_session_bytes), with small limits from a config file. A creation or an action whose state
would pass max_state_bytes gets 413 state_too_large; an action when the session already holds
max_events_per_session events, or whose event data would pass max_session_bytes, gets 422
session_full; `details` names the limit and nothing is written. The bytes are a running total
the store keeps (migration 0004), which survives a restart and an export/import."""

import json
import subprocess

from hostile_util import Client
from umpire_client import (ON_POSTGRESQL, REPO_ROOT, Daemon, assert_error, new_db_arg,
                           with_test_limits)
from umpire_ref import jcs


def limits(**keys):
    return "[limits]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items())


def counts(d):
    return (d.sql("SELECT count(*) FROM sessions")[0][0],
            d.sql("SELECT count(*) FROM events")[0][0])


def units(n):
    return [{"id": f"u{i}", "side": "alice", "name": "x" * 40} for i in range(n)]


def started(config):
    d = Daemon(config=config)
    d.start()
    return d


def finish(d):
    d.responses.clear()  # the refusals asserted are not faults of the daemon
    problems = d.stop_problems()
    d.cleanup()
    assert not problems, problems


def test_state_too_large_on_create():
    d = started(limits(max_state_bytes=2000))
    try:
        c = Client(d)
        before = counts(d)
        r = c.post("/v1/sessions", {"ruleset": "generic", "sides": ["alice", "bob"],
                                    "setup": {"units": units(60)}})
        err = assert_error(r, 413, "state_too_large")
        assert err["details"]["max_state_bytes"] == 2000
        assert err["details"]["state_bytes"] > 2000
        assert counts(d) == before, "a refused creation wrote something"
        c.create_session(units=units(3))
    finally:
        finish(d)


def test_state_too_large_on_action():
    scenario = json.loads((REPO_ROOT / "scenarios" / "horse-and-musket-la-haye-sainte.json")
                          .read_text())
    d = started(None)
    try:
        c = Client(d)
        r = c.post("/v1/sessions", scenario["session"])
        assert r.status == 201, r
        sid, ref = r.body["session"]["id"], r.body["tokens"]["referee"]
        state = c.get(f"/v1/sessions/{sid}", token=ref).body["state"]
        size = len(jcs(state).encode())
        # the same daemon, restarted with room for half of that state
        with open(d.config_path, "w") as f:
            f.write(with_test_limits(limits(max_state_bytes=size // 2)))
        d.restart()
        c = Client(d)
        before = counts(d)
        action = {k: v for k, v in scenario["actions"][0].items() if k != "as"}
        r = c.post(f"/v1/sessions/{sid}/actions", action, token=ref)
        err = assert_error(r, 413, "state_too_large")
        assert err["details"]["max_state_bytes"] == size // 2
        assert counts(d) == before
        assert c.session(sid, token=ref)["version"] == 1
        r = c.post("/v1/sessions", scenario["session"])
        assert_error(r, 413, "state_too_large")
    finally:
        finish(d)


def test_session_full_by_events():
    d = started(limits(max_events_per_session=5))
    try:
        c = Client(d)
        s = c.create_session(mode="server")
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        alice = s["tokens"]["sides"]["alice"]
        for _ in range(4):
            c.roll(sid, alice, "1d6")
        before = counts(d)
        err = assert_error(c.roll(sid, alice, "1d6", expect=None), 422, "session_full")
        assert err["details"]["max_events_per_session"] == 5
        r = c.post(f"/v1/sessions/{sid}/tokens/rotate", {"role": "side:bob"}, token=ref)
        assert_error(r, 422, "session_full")
        assert counts(d) == before
        # a full session may still reveal its seed: the dice it rolled stay checkable
        r = c.post(f"/v1/sessions/{sid}/reveal", token=ref)
        assert r.status == 200, r
        # another session is not concerned
        other = c.create_session()
        c.roll(other["session"]["id"], other["tokens"]["referee"], "1d6")
    finally:
        finish(d)


def data_bytes(d, sid):
    stored = d.sql("SELECT data_bytes FROM sessions WHERE id = ?", (sid,))[0][0]
    if ON_POSTGRESQL:
        summed = d.sql("SELECT sum(octet_length(data)) FROM events WHERE session_id = ?", (sid,))
    else:
        summed = d.sql("SELECT sum(length(CAST(data AS BLOB))) FROM events WHERE session_id = ?",
                       (sid,))
    return stored, summed[0][0]


def test_manual_dice_are_refused_before_passing_the_bound():
    """Dice the caller typed are no secret: the action that would pass the bound is refused,
    with what it would add, and nothing is written."""
    d = started(limits(max_session_bytes=3000))
    try:
        c = Client(d)
        s = c.create_session(mode="manual")
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        full = None
        for _ in range(200):
            r = c.roll(sid, ref, "4d6kh3+1d8", expect=None, dice=[1, 2, 3, 4, 5])
            if r.status != 200:
                full = r
                break
        assert full is not None, "the session never filled"
        err = assert_error(full, 422, "session_full")
        stored, summed = data_bytes(d, sid)
        assert stored == summed
        assert stored <= 3000 < stored + err["details"]["adding"]
    finally:
        finish(d)


def test_session_full_by_bytes(tmp_path):
    d = started(limits(max_session_bytes=6000))
    try:
        c = Client(d)
        s = c.create_session(mode="seeded", seed="77" * 32, title="é" * 50)
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        full = None
        for _ in range(200):
            r = c.roll(sid, ref, "4d6kh3+1d8", expect=None)
            if r.status != 200:
                full = r
                break
        assert full is not None, "the session never filled"
        err = assert_error(full, 422, "session_full")
        assert err["details"]["max_session_bytes"] == 6000
        stored, summed = data_bytes(d, sid)
        assert stored == summed, "the running total is not the bytes the events hold"
        # The roll that passed the bound had drawn its dice: it committed with them (no answer
        # depends on a die that was not committed, rules/ruleset.h), and the next one was
        # refused before any die.
        assert stored > 6000
        assert err["details"]["adding"] == 0
        before = counts(d)
        d.restart()                      # the total is stored, not counted in memory
        c = Client(d)
        assert_error(c.roll(sid, ref, "4d6kh3+1d8", expect=None), 422, "session_full")
        assert counts(d) == before
        c.roll(sid, ref, "1d4", expect=None)  # a smaller event may still fit, or not: no 5xx

        # export / import keeps the total (counted again by the import)
        assert d.stop() == 0
        out = tmp_path / "export.jsonl"
        r = subprocess.run([d.binary, "export", "--db", d.db, "--file", str(out)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        target = new_db_arg(str(tmp_path))
        r = subprocess.run([d.binary, "import", "--db", target, "--file", str(out)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        e = Daemon(config=limits(max_session_bytes=6000))
        e.db = target
        try:
            e.start()
            assert data_bytes(e, sid) == data_bytes(d, sid)
            assert_error(Client(e).roll(sid, ref, "4d6kh3+1d8", expect=None), 422, "session_full")
        finally:
            finish(e)
    finally:
        finish(d)
