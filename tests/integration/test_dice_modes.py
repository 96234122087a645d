"""Dice modes: seeded (reproducible), server (commit / reveal), manual (table dice)."""

import json

import pytest

from umpire_client import assert_error, expect
from umpire_ref import (HEX64, check_consecutive_nonces, check_dice_against_seed, check_roll,
                        die, dice_of_event, flat_dice, kept, parse_expr, sha256_hex_of_hex,
                        verify_chain)

SEED = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def expected_roll(seed_hex, sid, expr, first_nonce):
    """Reference outcome of a roll: (total, [values per dice term], next nonce)."""
    seed = bytes.fromhex(seed_hex)
    nonce = first_nonce
    total = 0
    per_term = []
    for sign, t in parse_expr(expr):
        if t["kind"] == "const":
            total += sign * t["value"]
            continue
        vals = [die(seed, sid, nonce + i, t["sides"]) for i in range(t["n"])]
        nonce += t["n"]
        per_term.append(vals)
        total += sign * sum(kept(vals, t["keep"]))
    return total, per_term, nonce


# --------------------------------------------------------------------------- seeded

SEEDED_EXPRS = ["3d6kh2+1d4-1", "2d20kl1", "10d10", "1d1000+1d7", "4d6kl3-2", "1d3",
                "20d1000", "7d13kh3"]


def test_seeded_dice_recompute_from_seed(umpire):
    s = umpire.create_session(mode="seeded", seed=SEED,
                              units=[{"id": "a1", "side": "alice"}])
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    nonce = 1
    for i, expr in enumerate(SEEDED_EXPRS):
        tok = s["tokens"]["sides"]["alice"] if i % 2 else ref
        extra = {"unit": "a1"} if i % 2 else {}
        body = umpire.roll(sid, tok, expr, **extra).body
        total, per_term, nonce_after = expected_roll(SEED, sid, expr, nonce)
        assert body["result"]["total"] == total, \
            f"{expr}: daemon total {body['result']['total']}, reference {total}"
        dice_terms = [t for t in body["result"]["terms"] if "values" in t]
        assert [t["values"] for t in dice_terms] == per_term, (expr, body["result"])
        nonce = nonce_after
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=page["head"])
    dice = flat_dice(evs)
    check_consecutive_nonces(dice, first=1)
    check_dice_against_seed(SEED, sid, dice)
    for ev, expr in zip(evs[1:], SEEDED_EXPRS):
        check_roll(expr, ev["data"]["result"], dice_of_event(ev))
    assert umpire.session(sid, ref)["dice"]["next_nonce"] == nonce


def test_seeded_same_seed_differs_per_session(umpire):
    a = umpire.create_session(mode="seeded", seed=SEED)
    b = umpire.create_session(mode="seeded", seed=SEED)
    ra = umpire.roll(a["session"]["id"], a["tokens"]["referee"], "20d1000").body
    rb = umpire.roll(b["session"]["id"], b["tokens"]["referee"], "20d1000").body
    assert ra["result"]["terms"][0]["values"] != rb["result"]["terms"][0]["values"]
    for s, r in ((a, ra), (b, rb)):
        total, per_term, _ = expected_roll(SEED, s["session"]["id"], "20d1000", 1)
        assert r["result"]["terms"][0]["values"] == per_term[0]


def test_seed_accepts_uppercase_hex(umpire):
    s = umpire.create_session(mode="seeded", seed=SEED.upper())
    sid = s["session"]["id"]
    body = umpire.roll(sid, s["tokens"]["referee"], "5d20").body
    assert body["result"]["total"] == expected_roll(SEED, sid, "5d20", 1)[0]


@pytest.mark.parametrize("mode", ["seeded", "manual"])
def test_reveal_outside_server_mode_is_409(umpire, mode):
    s = umpire.create_session(mode=mode, seed=SEED if mode == "seeded" else None)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    r = umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=ref)
    assert_error(r, 409, "not_applicable")
    assert umpire.session(sid, ref)["version"] == 1


# --------------------------------------------------------------------------- server

def reveal(umpire, sid, ref):
    r = umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=ref)
    body = expect(r, 200)
    for k in ("version", "head", "events", "revealed", "dice"):
        assert k in body, f"reveal response lacks {k}: {body!r}"
    assert set(body["revealed"]) >= {"seed", "commitment", "last_nonce"}, body
    assert HEX64.match(body["revealed"]["seed"]), body
    assert body["dice"]["mode"] == "server" and HEX64.match(body["dice"]["commitment"]), body
    assert len(body["events"]) == 1
    e = body["events"][0]
    assert e["type"] == "dice_seed_revealed" and e["seq"] == body["version"]
    assert e["hash"] == body["head"]
    return body


def test_server_commit_reveal_and_recompute(umpire):
    s = umpire.create_session(units=[{"id": "b1", "side": "bob"}])
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    commitment1 = s["dice"]["commitment"]
    exprs1 = ["3d6kh2+1d4-1", "2d20", "10d10kl4", "1d1000"]
    for expr in exprs1:
        umpire.roll(sid, ref, expr)
    umpire.roll(sid, s["tokens"]["sides"]["bob"], "4d6", unit="b1")
    before, _ = umpire.events(sid, ref)
    n1 = len(flat_dice(before))

    # the seed is nowhere before the reveal
    r1 = reveal(umpire, sid, ref)
    seed1 = r1["revealed"]["seed"]
    dump = json.dumps(before) + json.dumps(umpire.get(f"/v1/sessions/{sid}", token=ref).body)
    assert seed1 not in dump and seed1.upper() not in dump, "server seed leaked before reveal"

    assert sha256_hex_of_hex(seed1) == commitment1, "revealed seed does not match commitment"
    assert r1["revealed"]["commitment"] == commitment1
    assert r1["revealed"]["last_nonce"] == n1
    commitment2 = r1["dice"]["commitment"]
    assert commitment2 != commitment1

    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=r1["head"])
    rev = evs[-1]
    assert rev["type"] == "dice_seed_revealed" and rev["actor"] == "referee"
    assert rev["data"]["seed"] == seed1
    assert rev["data"]["commitment"] == commitment1
    assert rev["data"]["last_nonce"] == n1
    assert rev["data"]["next_commitment"] == commitment2
    dice1 = flat_dice(before)
    check_consecutive_nonces(dice1, first=1)
    check_dice_against_seed(seed1, sid, dice1)
    sess = umpire.session(sid, ref)
    assert sess["dice"]["commitment"] == commitment2
    assert sess["dice"]["next_nonce"] == n1 + 1

    # rolls after the reveal use the new seed, from last_nonce + 1
    exprs2 = ["5d6", "2d12+3", "3d8kh1"]
    for expr in exprs2:
        umpire.roll(sid, ref, expr)
    evs, _ = umpire.events(sid, ref)
    after1 = evs[len(before) + 1:]
    dice2 = flat_dice(after1)
    check_consecutive_nonces(dice2, first=n1 + 1)
    assert all(n > n1 for n, _, _ in dice2)

    r2 = reveal(umpire, sid, ref)
    seed2 = r2["revealed"]["seed"]
    assert seed2 != seed1
    assert sha256_hex_of_hex(seed2) == commitment2
    assert r2["revealed"]["commitment"] == commitment2
    assert r2["revealed"]["last_nonce"] == n1 + len(dice2)
    check_dice_against_seed(seed2, sid, dice2)
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=r2["head"])
    assert evs[-1]["data"]["next_commitment"] == r2["dice"]["commitment"]
    assert umpire.session(sid, ref)["dice"]["commitment"] == r2["dice"]["commitment"]
    # the first seed's dice would not recompute under the second seed (sanity of the check)
    with pytest.raises(AssertionError):
        check_dice_against_seed(seed2, sid, dice1)


def test_reveal_without_rolls(umpire):
    """A seed that rolled nothing has nothing to reveal (409, nothing written): reveals are
    bounded by dice, whoever asks (any token may)."""
    s = umpire.create_session()
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    for tok in (ref, s["tokens"]["sides"]["alice"]):
        r = umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=tok)
        assert r.status == 409 and r.body["error"]["code"] == "nothing_to_reveal", r
    assert umpire.session(sid, ref)["version"] == 1
    umpire.roll(sid, ref, "3d6")
    evs, _ = umpire.events(sid, ref)
    check_consecutive_nonces(flat_dice(evs), first=1)
    r2 = reveal(umpire, sid, ref)
    assert r2["version"] == 3
    assert r2["revealed"]["last_nonce"] == 3
    assert sha256_hex_of_hex(r2["revealed"]["seed"]) == s["dice"]["commitment"]
    check_dice_against_seed(r2["revealed"]["seed"], sid, flat_dice(evs))
    # right after a reveal the fresh seed has rolled nothing either
    r = umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=ref)
    assert r.status == 409 and r.body["error"]["code"] == "nothing_to_reveal", r
    verify_chain(umpire.events(sid, ref)[0], head=r2["head"])


# --------------------------------------------------------------------------- manual

@pytest.fixture
def manual(umpire):
    s = umpire.create_session(mode="manual")
    return umpire, s["session"]["id"], s["tokens"]["referee"]


def _needed_ok(err, expected):
    needed = err["details"].get("needed")
    assert isinstance(needed, list), err
    assert [{"purpose": n.get("purpose"), "notation": n.get("notation")} for n in needed] \
        == expected, err


NEEDED = [{"purpose": "roll", "notation": "2d6"}, {"purpose": "roll", "notation": "1d4"}]


def test_manual_roll_without_dice_lists_needed(manual):
    umpire, sid, ref = manual
    err = assert_error(umpire.roll(sid, ref, "2d6+1d4", expect=None), 422, "dice_required")
    _needed_ok(err, NEEDED)
    assert err["details"].get("supplied") == 0, err
    err = assert_error(umpire.roll(sid, ref, "1d20+5", expect=None, purpose="fumble"), 422,
                       "dice_required")
    _needed_ok(err, [{"purpose": "fumble", "notation": "1d20"}])
    assert umpire.session(sid, ref)["version"] == 1


@pytest.mark.parametrize("dice,supplied", [
    ([], 0),
    ([3], 1),
    ([3, 5], 2),             # too few
    ([3, 5, 2, 1], 4),       # too many
    ([7, 5, 2], 3),          # 7 > 6
    ([3, 5, 5], 3),          # 5 > 4
    ([0, 5, 2], 3),          # 0 < 1
    ([3, -1, 2], 3),
])
def test_manual_bad_dice_is_422(manual, dice, supplied):
    umpire, sid, ref = manual
    err = assert_error(umpire.roll(sid, ref, "2d6+1d4", expect=None, dice=dice), 422,
                       "dice_required")
    _needed_ok(err, NEEDED)
    assert err["details"].get("supplied") == supplied, err
    assert umpire.session(sid, ref)["version"] == 1


@pytest.mark.parametrize("dice", [["3", 5, 2], "3,5,2", [3, None, 2], {"0": 3}])
def test_manual_dice_wrong_type_is_400(manual, dice):
    umpire, sid, ref = manual
    r = umpire.roll(sid, ref, "2d6+1d4", expect=None, dice=dice)
    assert_error(r, 400, "invalid_field", {"dice", "dice[0]", "dice[1]"})
    assert umpire.session(sid, ref)["version"] == 1


def test_manual_correct_dice(manual):
    umpire, sid, ref = manual
    body = umpire.roll(sid, ref, "2d6+1d4", dice=[3, 5, 2]).body
    assert body["result"]["total"] == 10
    assert body["version"] == 2
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=body["head"])
    entries = dice_of_event(evs[-1])
    check_roll("2d6+1d4", body["result"], entries, manual=True)
    assert [(e["notation"], e["values"], e["value"]) for e in entries] == \
        [("2d6", [3, 5], 8), ("1d4", [2], 2)]
    assert "dice" not in evs[-1]["data"]["action"], evs[-1]["data"]["action"]


def test_manual_keep_and_summary(manual):
    umpire, sid, ref = manual
    body = umpire.roll(sid, ref, "3d6kh2+1", dice=[4, 2, 5]).body
    assert body["result"]["total"] == 10
    assert body["summary"] == "referee rolled 3d6kh2+1 = 10 (3d6kh2: [4,2,5] keep 5+4 = 9; +1)"
    t = body["result"]["terms"]
    assert t[0]["values"] == [4, 2, 5] and sorted(t[0]["kept"]) == [4, 5] and t[0]["value"] == 9
    assert t[1] == {"term": "1", "sign": 1, "value": 1}
    body = umpire.roll(sid, ref, "2d20kl1-1d4-2", dice=[17, 9, 3]).body
    assert body["result"]["total"] == 9 - 3 - 2
    evs, _ = umpire.events(sid, ref)
    check_roll("2d20kl1-1d4-2", body["result"], dice_of_event(evs[-1]), manual=True)
    verify_chain(evs, head=body["head"])
