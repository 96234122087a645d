"""Odds refusals are decided before the work (issue 20, item 8): 422 `odds_too_large` is known
from a few probe resolutions of the action (every die at 1, every die at its highest, fixed
pseudo-random dice), not after a million handler runs, and its details name the dice of a
resolution that rolls (never `dice: 0`). docs/api.md "Exact odds"."""

import json
from pathlib import Path

from umpire_client import assert_error, expect

REPO = Path(__file__).resolve().parents[2]
SHARKS = json.loads((REPO / "scenarios" / "magic-realm-sharks-with-wings.json").read_text())
UNITS = SHARKS["session"]["setup"]["units"]
LIMIT = 1_000_000


def large_round():
    """A ~1 KB inline round: the White Knight (his Great Sword at b1) and six Giant Bats at him.
    Every die at 1 ends it early (the knight falls: few dice); the misses roll every attack."""
    knight = {"id": "wk", "side": "knight", "kind": "character", "vulnerability": "H",
              "armor": [{"toughness": "H"}]}
    bats = [{"id": f"b{i}", "side": "bats", "kind": "denizen", "vulnerability": "H",
             "move_time": 3, "attack": {"harm": "M", "time": 2}, "flying": True}
            for i in range(1, 7)]
    combatants = [{"unit": "wk", "maneuver": {"box": "dodge", "move_time": 4},
                   "attacks": [{"target": "b1", "box": "swing", "kind": "striking", "harm": "T",
                                "time": 6, "length": 8}]}]
    combatants += [{"unit": b["id"], "box": ("thrust", "swing", "smash")[i % 3], "target": "wk"}
                   for i, b in enumerate(bats)]
    return {"type": "round", "combatants": combatants, "setup": {"units": [knight] + bats}}


def check_round_refusal(err):
    d = err["details"]
    assert d.get("limit") == LIMIT, err
    dice = d.get("dice")
    assert type(dice) is int and dice > 0 and dice % 2 == 0, \
        f"details.dice should count the dice of a resolution that rolls (2d6 each): {err!r}"
    assert d.get("dice_combinations") == 6 ** dice, err
    allowed = d.get("combinations_allowed", LIMIT)
    assert type(allowed) is int and 0 < allowed <= LIMIT, err
    assert d["dice_combinations"] > allowed, err
    if "combinations_allowed" in d:
        assert type(d.get("work_per_combination")) is int and d["work_per_combination"] > 0, err


def test_a_large_inline_round_is_refused_with_its_dice(umpire):
    body = large_round()
    assert 900 <= len(json.dumps(body, separators=(",", ":"))) <= 1400
    err = assert_error(umpire.post("/v1/rulesets/magic-realm/odds", body), 422, "odds_too_large")
    check_round_refusal(err)


def test_a_large_round_against_a_session_is_refused_with_its_dice(umpire):
    body = large_round()
    setup = body.pop("setup")
    r = umpire.post("/v1/sessions", {"ruleset": "magic-realm", "title": "Many bats",
                                     "sides": ["knight", "bats"], "dice": {"mode": "manual"},
                                     "setup": setup})
    assert r.status == 201, r
    sid, ref = r.body["session"]["id"], r.body["tokens"]["referee"]
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/odds", body, token=ref), 422,
                       "odds_too_large")
    check_round_refusal(err)


def test_a_small_round_is_still_enumerated(umpire):
    """Situation 10's knight and two Bats: 36 x 36 combinations, answered."""
    body = {"type": "round", "setup": {"units": UNITS},
            "combatants": [{"unit": "white-knight", "maneuver": {"box": "dodge", "move_time": 4}},
                           {"unit": "bat-1", "box": "swing", "target": "white-knight"},
                           {"unit": "bat-2", "box": "smash", "target": "white-knight"}]}
    answer = expect(umpire.post("/v1/rulesets/magic-realm/odds", body), 200)
    assert 1 <= answer["enumerated"] <= 36 * 36
    assert abs(sum(o["p"] for o in answer["outcomes"]) - 1) < 1e-9


def test_generic_refusals_name_dice_and_combinations(umpire):
    def refuse(expr):
        r = umpire.post("/v1/rulesets/generic/odds", {"type": "roll", "expr": expr})
        return assert_error(r, 422, "odds_too_large")["details"]

    d = refuse("100d6")
    assert d["limit"] == LIMIT and d["dice"] == 100, d
    assert abs(d["dice_combinations"] / 6 ** 100 - 1) < 1e-9, d
    assert abs(d["combinations_at_least"] / 6 ** 100 - 1) < 1e-9, d     # one roll of them all
    d = refuse("2d1000+1d2")
    assert d["limit"] == LIMIT and d["dice"] == 3, d
    assert d["dice_combinations"] == 2_000_000, d
    assert d["combinations_at_least"] == 1_000_001, d    # (1000^2 - 1) + (2 - 1) + 1, proven
    d = refuse("10d10")
    assert d == {"limit": LIMIT, "dice": 10, "dice_combinations": 10 ** 10,
                 "combinations_at_least": 10 ** 10}, d
