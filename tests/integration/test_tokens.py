"""Tokens (issue 22, item 8): the referee rotates any role's token, its own too, and revokes a
side's (POST /v1/sessions/{id}/tokens/rotate | revoke). The old token is refused from the next
request on, even when it was cached; each change is an event on the chain (token_rotated /
token_revoked {role}, never the token), and verify, in the daemon and offline, still passes.
Both backends (UMPIRE_TEST_BACKEND=postgresql)."""

import json
import os
import subprocess

from audit_helpers import export_jsonl
from umpire_client import REPO_ROOT, assert_error


def rotate(c, sid, token, role, expect=200, **extra):
    r = c.post(f"/v1/sessions/{sid}/tokens/rotate", {"role": role, **extra}, token=token)
    assert r.status == expect, r
    return r


def revoke(c, sid, token, role, expect=200, **extra):
    r = c.post(f"/v1/sessions/{sid}/tokens/revoke", {"role": role, **extra}, token=token)
    assert r.status == expect, r
    return r


def new_session(c):
    s = c.create_session(sides=("alice", "bob"), mode="seeded", seed="5e" * 32)
    return s["session"]["id"], s["tokens"]["referee"], s["tokens"]["sides"]


def test_rotate_a_side(umpire):
    sid, ref, sides = new_session(umpire)
    old = sides["alice"]
    umpire.roll(sid, old, "1d6")           # the old token is now in the token cache
    r = rotate(umpire, sid, ref, "side:alice")
    new = r.body["token"]
    assert len(new) == 64 and new != old
    assert r.body["role"] == "side:alice" and r.body["version"] == 3
    assert [e["type"] for e in r.body["events"]] == ["token_rotated"]
    assert r.header("Cache-Control") == "no-store"
    assert_error(umpire.roll(sid, old, "1d6", expect=None), 401, "unauthorized")
    assert_error(umpire.get(f"/v1/sessions/{sid}", token=old), 401, "unauthorized")
    umpire.roll(sid, new, "1d6")
    umpire.roll(sid, sides["bob"], "1d6")  # the other side's token is untouched


def test_revoke_a_side(umpire):
    sid, ref, sides = new_session(umpire)
    umpire.roll(sid, sides["bob"], "1d6")
    r = revoke(umpire, sid, ref, "side:bob")
    assert "token" not in r.body and r.body["role"] == "side:bob"
    assert [e["type"] for e in r.body["events"]] == ["token_revoked"]
    assert_error(umpire.roll(sid, sides["bob"], "1d6", expect=None), 401, "unauthorized")
    umpire.roll(sid, sides["alice"], "1d6")
    umpire.roll(sid, ref, "1d6")
    # twice: nothing to revoke, nothing written
    assert_error(revoke(umpire, sid, ref, "side:bob", expect=409), 409, "not_applicable")
    # a later rotation gives the side a token again
    new = rotate(umpire, sid, ref, "side:bob").body["token"]
    umpire.roll(sid, new, "1d6")


def test_referee_rotates_its_own(umpire):
    sid, ref, sides = new_session(umpire)
    new = rotate(umpire, sid, ref, "referee").body["token"]
    assert_error(umpire.roll(sid, ref, "1d6", expect=None), 401, "unauthorized")
    assert_error(rotate(umpire, sid, ref, "side:alice", expect=401), 401, "unauthorized")
    umpire.roll(sid, new, "1d6")
    rotate(umpire, sid, new, "side:alice")
    # the referee's token cannot be revoked: a session always has a referee
    assert_error(revoke(umpire, sid, new, "referee", expect=409), 409, "not_applicable")


def test_only_the_referee(umpire):
    sid, ref, sides = new_session(umpire)
    for path in ("rotate", "revoke"):
        for body in ({"role": "side:alice"}, {"role": "side:bob"}, {"role": "referee"}):
            r = umpire.post(f"/v1/sessions/{sid}/tokens/{path}", body, token=sides["alice"])
            assert_error(r, 403, "forbidden")
        r = umpire.post(f"/v1/sessions/{sid}/tokens/{path}", {"role": "side:alice"})
        assert_error(r, 401, "unauthorized")
    umpire.roll(sid, sides["alice"], "1d6")
    assert umpire.session(sid, token=ref)["version"] == 2  # nothing written by the refusals


def test_bad_requests_write_nothing(umpire):
    sid, ref, sides = new_session(umpire)
    assert_error(rotate(umpire, sid, ref, "side:carol", expect=422), 422, "unknown_role")
    assert_error(rotate(umpire, sid, ref, "alice", expect=400), 400, "invalid_field", "role")
    r = umpire.post(f"/v1/sessions/{sid}/tokens/rotate", {"role": "referee", "x": 1}, token=ref)
    assert_error(r, 400, "invalid_field")
    r = umpire.post(f"/v1/sessions/{sid}/tokens/rotate", {}, token=ref)
    assert_error(r, 400, "invalid_field", "role")
    r = rotate(umpire, sid, ref, "side:alice", expect=409, expect_version=7)
    assert_error(r, 409, "version_conflict")
    assert umpire.session(sid, token=ref)["version"] == 1
    umpire.roll(sid, sides["alice"], "1d6")   # every old token still works
    rotate(umpire, sid, ref, "side:alice", expect_version=2)
    r = umpire.post("/v1/sessions/" + "0" * 32 + "/tokens/rotate", {"role": "referee"}, token=ref)
    assert_error(r, 404, "session_not_found")


def test_changes_are_on_the_chain_and_verify(umpire, tmp_path):
    sid, ref, sides = new_session(umpire)
    umpire.roll(sid, sides["alice"], "2d6")
    a = rotate(umpire, sid, ref, "side:alice").body["token"]
    revoke(umpire, sid, ref, "side:bob")
    ref2 = rotate(umpire, sid, ref, "referee").body["token"]
    umpire.roll(sid, a, "1d20")
    events, last = umpire.events(sid, token=ref2)
    changes = [(e["type"], e["actor"], e["data"]) for e in events if e["type"].startswith("token")]
    assert changes == [("token_rotated", "referee", {"role": "side:alice"}),
                       ("token_revoked", "referee", {"role": "side:bob"}),
                       ("token_rotated", "referee", {"role": "referee"})]
    text = json.dumps(events)
    for secret in (a, ref2, ref, sides["alice"], sides["bob"]):
        assert secret not in text, "a token is in the log"
    v = umpire.get(f"/v1/sessions/{sid}/verify?head={last['head']}", token=ref2)
    assert v.status == 200 and v.body["ok"] is True, v
    # offline, from the exported log
    path, _ = export_jsonl(umpire, sid, ref2, tmp_path, "campaign.jsonl")
    verify = os.environ.get("UMPIRE_VERIFY", str(REPO_ROOT / "build" / "umpire-verify"))
    r = subprocess.run([verify, str(path), "--head", last["head"]], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_verify_refuses_a_forged_change(umpire):
    """A token event with another actor, or naming no role of the session, does not verify
    (events made here with the chain recomputed, as a forger would)."""
    from umpire_ref import event_hash, jcs
    sid, ref, sides = new_session(umpire)
    revoke(umpire, sid, ref, "side:bob")
    d = umpire.daemon
    rows = d.sql("SELECT seq, ts, actor, type, data, prev FROM events WHERE session_id = ? "
                 "ORDER BY seq", (sid,))
    seq, ts, _, typ, _, prev = rows[-1]
    forged = {"role": "side:bob"}
    h = event_hash(prev, {"seq": seq, "ts": ts, "actor": "side:alice", "type": typ,
                          "data": forged})
    con = d.db_connect()
    try:
        con.execute("UPDATE events SET actor = ?, data = ?, hash = ? WHERE session_id = ? AND "
                    "seq = ?", ("side:alice", jcs(forged), h, sid, seq))
        con.execute("UPDATE sessions SET head = ? WHERE id = ?", (h, sid))
    finally:
        con.close()
    v = umpire.get(f"/v1/sessions/{sid}/verify", token=ref)
    assert v.status == 200 and v.body["ok"] is False and v.body["first_bad_seq"] == seq, v


def test_tokens_survive_a_restart(umpire):
    sid, ref, sides = new_session(umpire)
    new = rotate(umpire, sid, ref, "side:alice").body["token"]
    revoke(umpire, sid, ref, "side:bob")
    umpire.daemon.restart()
    assert_error(umpire.roll(sid, sides["alice"], "1d6", expect=None), 401, "unauthorized")
    assert_error(umpire.roll(sid, sides["bob"], "1d6", expect=None), 401, "unauthorized")
    umpire.roll(sid, new, "1d6")
