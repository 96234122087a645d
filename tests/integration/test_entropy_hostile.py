"""Issue 19: hostile and limit cases of POST /entropy and of the reveal. Every refusal writes
nothing: the session's version and head are unchanged, and the role may still contribute."""

import http.client
import json
import threading

import pytest

from entropy_ref import (ENTROPY_EVENT, REVEAL_EVENT, SIDES, UNITS, assert_unchanged, contribute,
                         die_c, digest_of, knight_and_monsters, reveal)
from umpire_client import assert_error
from umpire_ref import verify_chain

SEED = "0123456789abcdef" * 4


@pytest.fixture
def sess(umpire):
    return (umpire,) + knight_and_monsters(umpire)[1:]


def entropy_path(sid):
    return f"/v1/sessions/{sid}/entropy"


def head_of(umpire, sid, tok):
    s = umpire.session(sid, tok)
    return s["version"], s["head"]


# --------------------------------------------------------------------------- bad bodies

BAD_JSON_BODIES = [
    ("missing seed", {}, "seed"),
    ("empty seed", {"seed": ""}, "seed"),
    ("65 bytes", {"seed": "a" * 65}, "seed"),
    ("non-ASCII", {"seed": "caf\u00e9"}, "seed"),
    ("non-ASCII 64 bytes", {"seed": "\u00e9" * 32}, "seed"),
    ("tab", {"seed": "a\tb"}, "seed"),
    ("newline", {"seed": "line\n"}, "seed"),
    ("control char", {"seed": "a\x01b"}, "seed"),
    ("DEL", {"seed": "a\x7fb"}, "seed"),
    ("number", {"seed": 12345}, "seed"),
    ("null", {"seed": None}, "seed"),
    ("bool", {"seed": True}, "seed"),
    ("array", {"seed": ["abc"]}, "seed"),
    ("object", {"seed": {"s": "abc"}}, "seed"),
    ("extra member", {"seed": "fine", "extra": 1}, "extra"),
    ("role smuggled", {"seed": "fine", "role": "referee"}, "role"),
    ("expect_version a string", {"seed": "fine", "expect_version": "2"}, "expect_version"),
]


@pytest.mark.parametrize("name,body,field", BAD_JSON_BODIES, ids=[b[0] for b in BAD_JSON_BODIES])
def test_bad_body_is_400_and_writes_nothing(sess, name, body, field):
    umpire, sid, ref, kn, mo = sess
    v0, h0 = head_of(umpire, sid, ref)
    r = umpire.post(entropy_path(sid), body, token=kn)
    assert_error(r, 400, "invalid_field", field)
    assert_unchanged(umpire, sid, ref, v0, h0)
    # nothing pending either: the knight may still contribute, and it is his first
    b = contribute(umpire, sid, kn, "ok")
    assert b["entropy"]["in_force"] == {"side:knight": "ok"} and b["version"] == v0 + 1


RAW_BAD = [
    ("NUL escape", b'{"seed": "ab\\u0000cd"}', 400, "invalid_field"),
    ("NUL escape alone", b'{"seed": "\\u0000"}', 400, "invalid_field"),
    ("escaped control", b'{"seed": "\\u001f"}', 400, "invalid_field"),
    ("escaped non-ASCII", b'{"seed": "\\u00e9"}', 400, "invalid_field"),
    ("raw UTF-8", '{"seed": "\u0434\u0430"}'.encode("utf-8"), 400, "invalid_field"),
    ("not JSON", b"seed=abc", 400, "invalid_json"),
    ("truncated JSON", b'{"seed": "abc"', 400, "invalid_json"),
    ("duplicate seed", b'{"seed": "a", "seed": "b"}', 400, "invalid_json"),
    ("empty body", b"", 400, ("invalid_json", "invalid_field")),
    ("a string, not an object", b'"abc"', 400, ("invalid_field", "invalid_json")),
    ("an array", b'["abc"]', 400, ("invalid_field", "invalid_json")),
]


@pytest.mark.parametrize("name,raw,status,code", RAW_BAD, ids=[b[0] for b in RAW_BAD])
def test_raw_bad_body_is_refused_and_writes_nothing(sess, name, raw, status, code):
    umpire, sid, ref, kn, mo = sess
    v0, h0 = head_of(umpire, sid, ref)
    r = umpire.post(entropy_path(sid), raw=raw, token=mo)
    err = assert_error(r, status, code)
    if err["code"] == "invalid_field" and name.startswith(("NUL", "escaped", "raw")):
        assert err["details"].get("field") == "seed", err
    assert_unchanged(umpire, sid, ref, v0, h0)
    assert contribute(umpire, sid, mo, "ok")["version"] == v0 + 1


def test_huge_bodies(sess):
    umpire, sid, ref, kn, mo = sess
    v0, h0 = head_of(umpire, sid, ref)
    # under the body limit: a seed far too long
    r = umpire.post(entropy_path(sid), {"seed": "x" * 900_000}, token=kn)
    assert_error(r, 400, "invalid_field", "seed")
    # over server.max_body_bytes (1 MiB by default): refused from Content-Length
    r = umpire.post(entropy_path(sid), {"seed": "x" * (2 * 1024 * 1024)}, token=kn)
    assert_error(r, 413, "body_too_large")
    assert_unchanged(umpire, sid, ref, v0, h0)
    assert contribute(umpire, sid, kn, "ok")["version"] == v0 + 1


def test_exact_limits_are_accepted(sess):
    umpire, sid, ref, kn, mo = sess
    every = "".join(chr(c) for c in range(0x20, 0x7F))     # all 95 printable ASCII bytes
    contribute(umpire, sid, kn, every[:64])
    contribute(umpire, sid, mo, "~")                       # one byte
    contribute(umpire, sid, ref, every[64:])               # the rest, 31 bytes
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=page["head"])
    inf = {"side:knight": every[:64], "side:monsters": "~", "referee": every[64:]}
    assert evs[-1]["data"]["in_force"] == inf
    assert evs[-1]["data"]["digest"] == digest_of(inf)


def test_wrong_content_type_is_415(sess):
    umpire, sid, ref, kn, mo = sess
    v0, h0 = head_of(umpire, sid, ref)
    r = umpire.post(entropy_path(sid), raw=b'{"seed": "abc"}', token=kn,
                    content_type="text/plain")
    assert_error(r, 415, "unsupported_media_type")
    assert_unchanged(umpire, sid, ref, v0, h0)


# --------------------------------------------------------------------------- tokens

def test_missing_or_wrong_token_is_401(sess, umpire):
    _, sid, ref, kn, mo = sess
    other = umpire.create_session(sides=SIDES)
    v0, h0 = head_of(umpire, sid, ref)
    for tok in (None, "", "0" * 64, kn[:-1] + ("0" if kn[-1] != "0" else "1"),
                other["tokens"]["referee"], other["tokens"]["sides"]["knight"]):
        r = umpire.post(entropy_path(sid), {"seed": "sneaky"}, token=tok)
        assert_error(r, 401, "unauthorized")
    r = umpire.post(entropy_path(sid), {"seed": "sneaky"}, headers={"Authorization": kn})
    assert_error(r, 401, "unauthorized")
    assert_unchanged(umpire, sid, ref, v0, h0)
    # and the other session got nothing either
    assert umpire.session(other["session"]["id"], other["tokens"]["referee"])["version"] == 1


def test_unknown_session_is_404(umpire):
    r = umpire.post(entropy_path("f" * 32), {"seed": "x"}, token="0" * 64)
    assert_error(r, 404, "session_not_found")


def test_get_is_405(sess):
    umpire, sid, ref, kn, mo = sess
    r = umpire.get(entropy_path(sid), token=ref)
    assert_error(r, 405, "method_not_allowed")
    assert "POST" in (r.header("Allow") or "")


# --------------------------------------------------------------------------- modes

def test_manual_mode_is_409_not_applicable(umpire):
    s = umpire.create_session(sides=SIDES, mode="manual", units=UNITS)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    for tok in (ref, s["tokens"]["sides"]["knight"]):
        r = umpire.post(entropy_path(sid), {"seed": "table dice"}, token=tok)
        assert_error(r, 409, "not_applicable")
    assert_unchanged(umpire, sid, ref, 1)
    assert "entropy" not in umpire.session(sid, ref)["dice"]


def test_seeded_mode_accepts(umpire):
    s = umpire.create_session(sides=SIDES, mode="seeded", seed=SEED, units=UNITS)
    sid = s["session"]["id"]
    b = contribute(umpire, sid, s["tokens"]["sides"]["monsters"], "seeded too")
    assert b["version"] == 2


# --------------------------------------------------------------------------- once between dice

def test_second_contribution_before_a_die_is_entropy_pending(sess):
    umpire, sid, ref, kn, mo = sess
    contribute(umpire, sid, kn, "first")
    v0, h0 = head_of(umpire, sid, ref)
    for seed in ("second", "first"):                   # even the same seed again
        r = contribute(umpire, sid, kn, seed, expect_status=None)
        assert_error(r, 409, "entropy_pending")
    assert_unchanged(umpire, sid, ref, v0, h0)
    # another role still may
    b = contribute(umpire, sid, mo, "monsters")
    assert b["entropy"]["in_force"] == {"side:knight": "first", "side:monsters": "monsters"}
    b = contribute(umpire, sid, ref, "referee")
    assert_error(contribute(umpire, sid, ref, "again", expect_status=None), 409,
                 "entropy_pending")
    assert_error(contribute(umpire, sid, kn, "third", expect_status=None), 409,
                 "entropy_pending")
    # a refused action rolls no die: still pending
    r = umpire.roll(sid, ref, "2d6+x", expect=None)
    assert_error(r, 422, "invalid_notation")
    assert_error(contribute(umpire, sid, kn, "third", expect_status=None), 409,
                 "entropy_pending")
    # after a die, the knight may change his
    umpire.roll(sid, mo, "1d6", unit="bat-1")
    b = contribute(umpire, sid, kn, "after a die")
    assert b["entropy"]["in_force"] == {"side:knight": "after a die",
                                        "side:monsters": "monsters", "referee": "referee"}
    assert_error(contribute(umpire, sid, kn, "once more", expect_status=None), 409,
                 "entropy_pending")
    # the monsters too (a die was rolled since theirs)
    contribute(umpire, sid, mo, "monsters 2")


def test_a_diceless_action_is_not_a_die(sess):
    """An action that rolls nothing (a constant) moves no nonce: the contribution is still
    pending and there is still nothing to reveal."""
    umpire, sid, ref, kn, mo = sess
    contribute(umpire, sid, kn, "first")
    b = umpire.roll(sid, ref, "5").body
    assert b["result"]["total"] == 5
    v0, h0 = head_of(umpire, sid, ref)
    assert_error(contribute(umpire, sid, kn, "second", expect_status=None), 409,
                 "entropy_pending")
    assert_error(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=kn), 409,
                 "nothing_to_reveal")
    assert_unchanged(umpire, sid, ref, v0, h0)
    assert umpire.session(sid, ref)["dice"]["next_nonce"] == 1


def test_token_is_checked_before_the_body(sess):
    umpire, sid, ref, kn, mo = sess
    for raw in (b"zzz", b'{"seed": ""}', b'{"seed": "ok", "x": 1}'):
        assert_error(umpire.post(entropy_path(sid), raw=raw), 401, "unauthorized")
        assert_error(umpire.post(entropy_path(sid), raw=raw, token="1" * 64), 401,
                     "unauthorized")
    assert_unchanged(umpire, sid, ref, 1)


def test_reveal_clears_pending(sess):
    umpire, sid, ref, kn, mo = sess
    umpire.roll(sid, ref, "1d6")
    contribute(umpire, sid, kn, "before")
    umpire.roll(sid, ref, "1d6")
    contribute(umpire, sid, kn, "before 2")       # a die since: allowed
    reveal(umpire, sid, mo)
    assert "entropy" not in umpire.session(sid, ref)["dice"]
    # a reveal ends every contribution: the knight may contribute again at once
    b = contribute(umpire, sid, kn, "after the reveal")
    assert b["entropy"]["in_force"] == {"side:knight": "after the reveal"}


def test_rapid_contributions_from_one_side_yield_one_event(sess):
    umpire, sid, ref, kn, mo = sess
    port = umpire.daemon.port
    results = []
    lock = threading.Lock()

    def worker(idx, count):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            for j in range(count):
                body = json.dumps({"seed": f"spam {idx}-{j}"})
                c.request("POST", entropy_path(sid), body=body,
                          headers={"Authorization": f"Bearer {kn}",
                                   "Content-Type": "application/json"})
                r = c.getresponse()
                data = r.read()
                with lock:
                    results.append((r.status, json.loads(data)))
        finally:
            c.close()

    threads = [threading.Thread(target=worker, args=(i, 25)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(40)
    assert len(results) == 200, f"{len(results)} answers"
    for status, _ in results:
        umpire.daemon.responses.append(("POST", entropy_path(sid), status))
    ok = [b for s, b in results if s == 200]
    pending = [b for s, b in results if s == 409 and b["error"]["code"] == "entropy_pending"]
    assert len(ok) == 1, f"{len(ok)} contributions accepted: {sorted({s for s, _ in results})}"
    assert len(pending) == 199, sorted({(s, json.dumps(b)[:80]) for s, b in results})
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=page["head"])
    ent = [e for e in evs if e["type"] == ENTROPY_EVENT]
    assert len(ent) == 1 and len(evs) == 2, evs
    assert ent[0]["data"]["seed"] == ok[0]["entropy"]["in_force"]["side:knight"]


# --------------------------------------------------------------------------- reveal

def test_reveal_with_no_die_is_nothing_to_reveal(sess):
    umpire, sid, ref, kn, mo = sess
    for tok in (ref, kn):
        r = umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=tok)
        assert_error(r, 409, "nothing_to_reveal")
    assert_unchanged(umpire, sid, ref, 1)
    # a contribution is not a die
    contribute(umpire, sid, kn, "k")
    v0, h0 = head_of(umpire, sid, ref)
    assert_error(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=mo), 409,
                 "nothing_to_reveal")
    assert_unchanged(umpire, sid, ref, v0, h0)
    # a refused action rolls no die
    assert_error(umpire.roll(sid, ref, "0d6", expect=None), 422)
    assert_error(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=mo), 409,
                 "nothing_to_reveal")
    umpire.roll(sid, ref, "1d6")
    r1 = reveal(umpire, sid, mo)
    assert r1["revealed"]["last_nonce"] == 1
    # straight after a reveal: nothing rolled under the new seed
    v1, h1 = head_of(umpire, sid, ref)
    for tok in (ref, kn, mo):
        assert_error(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=tok), 409,
                     "nothing_to_reveal")
    contribute(umpire, sid, ref, "r")
    assert_error(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=kn), 409,
                 "nothing_to_reveal")
    assert umpire.session(sid, ref)["version"] == v1 + 1
    umpire.roll(sid, kn, "1d6", unit="sir-k")
    r2 = reveal(umpire, sid, kn)
    assert r2["revealed"]["last_nonce"] == 2
    assert r2["revealed"]["commitment"] == r1["dice"]["commitment"]


@pytest.mark.parametrize("who", ["knight", "monsters", "referee"])
def test_reveal_by_anyone_and_actor(sess, who):
    umpire, sid, ref, kn, mo = sess
    tok = {"knight": kn, "monsters": mo, "referee": ref}[who]
    actor = "referee" if who == "referee" else f"side:{who}"
    umpire.roll(sid, ref, "3d6")
    r = reveal(umpire, sid, tok)
    assert r["events"][0]["type"] == REVEAL_EVENT
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=r["head"])
    assert evs[-1]["type"] == REVEAL_EVENT and evs[-1]["actor"] == actor, evs[-1]
    assert set(evs[-1]["data"]) == {"seed", "commitment", "last_nonce", "next_commitment"}
    seed = r["revealed"]["seed"]
    vals = evs[1]["data"]["dice"][0]["values"]
    assert vals == [die_c(seed, sid, n, 6) for n in (1, 2, 3)]


def test_reveal_bad_token_and_seeded(umpire):
    s = umpire.create_session(sides=SIDES, units=UNITS)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    umpire.roll(sid, ref, "1d6")
    other = umpire.create_session(sides=SIDES)
    for tok in (None, "0" * 64, other["tokens"]["sides"]["knight"]):
        assert_error(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=tok), 401,
                     "unauthorized")
    assert_unchanged(umpire, sid, ref, 2)
    seeded = umpire.create_session(sides=SIDES, mode="seeded", seed=SEED, units=UNITS)
    ssid = seeded["session"]["id"]
    umpire.roll(ssid, seeded["tokens"]["referee"], "1d6")
    assert_error(umpire.post(f"/v1/sessions/{ssid}/reveal", {},
                             token=seeded["tokens"]["sides"]["knight"]), 409, "not_applicable")
