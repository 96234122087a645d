"""Exact odds: POST /v1/rulesets/{rs}/odds and POST /v1/sessions/{id}/odds (generic)."""

from fractions import Fraction

import pytest

from audit_helpers import SEED, expr_distribution
from umpire_client import Client, assert_error, expect

EXPRS = ["1d6", "2d6", "3d6", "2d6+1d4-1", "4d6kh3", "1d20kl1", "4d6kl3", "3d6kh2+1d4-1",
         "1d8-1d4", "2d20kh1+5", "1d100", "5d10", "1d6-7", "3d4-2d4"]


def odds(umpire, expr, path="/v1/rulesets/generic/odds", token=None, **extra):
    body = {"type": "roll", "expr": expr}
    body.update(extra)
    return umpire.post(path, body, token=token)


def check_distribution(body, expr):
    want, combos = expr_distribution(expr)
    outcomes = body.get("outcomes")
    assert isinstance(outcomes, list) and outcomes, f"no outcomes: {body!r}"
    totals = [o["result"]["total"] for o in outcomes]
    assert totals == sorted(want), \
        f"{expr}: totals {totals} (in this order), expected {sorted(want)} increasing"
    assert body.get("exact") is True, body.get("exact")
    assert body.get("enumerated") == combos, \
        f"{expr}: enumerated {body.get('enumerated')}, product of sides {combos}"
    of = body.get("of")
    assert type(of) is int and of > 0, f"of = {of!r}"
    psum = 0.0
    csum = 0
    for o in outcomes:
        t = o["result"]["total"]
        p = want[t]
        assert isinstance(o["p"], float) or isinstance(o["p"], int), o
        assert abs(o["p"] - float(p)) <= 1e-12, f"{expr} total {t}: p {o['p']!r}, exact {p}"
        assert type(o.get("count")) is int, o
        assert Fraction(o["count"], of) == p, \
            f"{expr} total {t}: count/of = {o['count']}/{of}, exact {p}"
        assert isinstance(o.get("summary"), str) and o["summary"], o
        psum += o["p"]
        csum += o["count"]
    assert abs(psum - 1.0) <= 1e-9, f"{expr}: sum of p = {psum!r}"
    assert csum == of, f"{expr}: counts sum to {csum}, of = {of}"
    mean = sum(t * p for t, p in want.items())
    assert "mean" in body and abs(body["mean"] - float(mean)) <= 1e-9, \
        f"{expr}: mean {body.get('mean')!r}, exact {float(mean)}"
    return outcomes


@pytest.mark.parametrize("expr", EXPRS)
def test_ruleset_odds_exact(umpire, expr):
    body = expect(odds(umpire, expr), 200)
    check_distribution(body, expr)


def test_3d6_ten_is_27_of_216(umpire):
    body = expect(odds(umpire, "3d6"), 200)
    o = {x["result"]["total"]: x for x in body["outcomes"]}
    assert Fraction(o[10]["count"], body["of"]) == Fraction(27, 216)
    assert abs(o[10]["p"] - 0.125) <= 1e-12
    assert body["enumerated"] == 216 and len(body["outcomes"]) == 16


def test_constant_only_expression(umpire):
    body = expect(odds(umpire, "7"), 200)
    check_distribution(body, "7")
    assert body["enumerated"] == 1 and len(body["outcomes"]) == 1


def test_odds_limit_is_one_million_combinations(umpire):
    slow = Client(umpire.daemon, timeout=50.0)     # a million handler runs (ASan: ~15 s)
    try:
        body = expect(odds(slow, "2d1000"), 200)            # exactly 1,000,000
    finally:
        slow.close()
    assert body["enumerated"] == 1_000_000
    assert len(body["outcomes"]) == 1999
    o = {x["result"]["total"]: x for x in body["outcomes"]}
    assert Fraction(o[1001]["count"], body["of"]) == Fraction(1000, 1_000_000)
    for expr in ("10d10", "2d1000+1d2", "7d10", "100d6"):
        err = assert_error(odds(umpire, expr), 422, "odds_too_large")
        assert err["details"].get("limit") == 1_000_000, err


def test_odds_too_large_details(umpire):
    """docs/api.md: 422 odds_too_large (details.limit, details.dice)."""
    err = assert_error(odds(umpire, "10d10"), 422, "odds_too_large")
    assert err["details"].get("limit") == 1_000_000, err
    assert err["details"].get("dice") == 10, \
        f"details.dice should be 10 (the dice one combination rolls): {err!r}"


@pytest.mark.parametrize("expr,pos", [("2d", 2), ("2d6+", 4), ("2x6", 1), ("1d1001", 2),
                                      ("3d6kh", 5), ("", 0), ("1d6+101d6", 4)])
def test_odds_bad_notation(umpire, expr, pos):
    err = assert_error(odds(umpire, expr), 422, "invalid_notation")
    assert err["details"].get("position") == pos, err


def test_odds_envelope_errors(umpire):
    assert_error(umpire.post("/v1/rulesets/generic/odds", {"type": "attack"}), 422,
                 "unknown_action")
    assert_error(umpire.post("/v1/rulesets/generic/odds", {"type": "roll"}), 400,
                 "invalid_field", field="expr")
    assert_error(umpire.post("/v1/rulesets/generic/odds", {"type": "roll", "expr": 5}), 400,
                 "invalid_field", field="expr")
    assert_error(umpire.post("/v1/rulesets/generic/odds", raw="{"), 400, "invalid_json")
    assert_error(umpire.post("/v1/rulesets/nope/odds", {"type": "roll", "expr": "1d6"}), 404,
                 "ruleset_not_found")
    assert_error(umpire.get("/v1/rulesets/generic/odds"), 405, "method_not_allowed")


def test_odds_do_not_need_a_token_and_write_nothing(umpire):
    before = umpire.daemon.db_row_counts()
    for expr in ("2d6", "4d6kh3"):
        expect(odds(umpire, expr), 200)
    assert umpire.daemon.db_row_counts() == before


# --------------------------------------------------------------------------- session odds

def test_session_odds_same_distribution_and_nothing_written(umpire):
    s = umpire.create_session(mode="seeded", seed=SEED, units=[{"id": "a1", "side": "alice"}])
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    alice = s["tokens"]["sides"]["alice"]
    umpire.roll(sid, ref, "2d6")
    before = umpire.session(sid, ref)
    evs_before, _ = umpire.events(sid, ref)
    rows_before = umpire.daemon.db_row_counts()
    for expr, tok, extra in (("3d6", ref, {}), ("2d6+1d4-1", alice, {"unit": "a1"}),
                             ("4d6kh3", alice, {})):
        path = f"/v1/sessions/{sid}/odds"
        a = expect(odds(umpire, expr, path=path, token=tok, **extra), 200)
        b = expect(odds(umpire, expr), 200)
        check_distribution(a, expr)
        assert a["outcomes"] == b["outcomes"] and a["of"] == b["of"] and \
            a["enumerated"] == b["enumerated"]
    after = umpire.session(sid, ref)
    assert after["version"] == before["version"] and after["head"] == before["head"]
    assert after["dice"]["next_nonce"] == before["dice"]["next_nonce"], \
        "odds consumed dice nonces"
    evs_after, _ = umpire.events(sid, ref)
    assert evs_after == evs_before
    assert umpire.daemon.db_row_counts() == rows_before
    # the next real roll still uses the next nonce
    r = umpire.roll(sid, ref, "1d6").body
    assert r["version"] == before["version"] + 1


def test_session_odds_access(umpire):
    s = umpire.create_session(mode="seeded", seed=SEED, units=[{"id": "a1", "side": "alice"},
                                                               {"id": "b1", "side": "bob"}])
    sid = s["session"]["id"]
    path = f"/v1/sessions/{sid}/odds"
    assert_error(odds(umpire, "2d6", path=path), 401, "unauthorized")
    assert_error(odds(umpire, "2d6", path=path, token="cd" * 32), 401, "unauthorized")
    assert_error(odds(umpire, "2d6", path=f"/v1/sessions/{'0' * 32}/odds", token="cd" * 32),
                 404, "session_not_found")
    assert_error(odds(umpire, "2d6", path=path, token=s["tokens"]["referee"], unit="zz"), 422,
                 "unknown_unit")
    assert_error(odds(umpire, "10d10", path=path, token=s["tokens"]["referee"]), 422,
                 "odds_too_large")
    assert_error(odds(umpire, "2d", path=path, token=s["tokens"]["referee"]), 422,
                 "invalid_notation")
    pub = umpire.create_session(mode="seeded", seed=SEED, visibility="public")
    body = expect(odds(umpire, "2d6", path=f"/v1/sessions/{pub['session']['id']}/odds"), 200)
    check_distribution(body, "2d6")
    assert umpire.session(sid, s["tokens"]["referee"])["version"] == 1


@pytest.mark.parametrize("mode", ["server", "manual"])
def test_session_odds_in_other_dice_modes(umpire, mode):
    s = umpire.create_session(mode=mode)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    body = expect(odds(umpire, "2d6+1", path=f"/v1/sessions/{sid}/odds", token=ref), 200)
    check_distribution(body, "2d6+1")
    assert umpire.session(sid, ref)["version"] == 1


def test_p_is_count_over_of_exactly(umpire):
    """Each p is the double nearest count/of, not a running sum of doubles (which reads a
    certain outcome as 0.9999999999999999 and drifts in the last bits elsewhere)."""
    for expr in ("3d6", "2d10", "1d6+1d8"):
        body = expect(odds(umpire, expr), 200)
        for o in body["outcomes"]:
            assert o["p"] == o["count"] / body["of"], (expr, o)
