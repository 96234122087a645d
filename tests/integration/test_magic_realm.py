"""Ruleset magic-realm through the real daemon: the ruleset's description, a session played round
by round (Situation 10 with the article's dice, manual mode), seeded dice that anyone can
recompute, odds of a round against a session's state, and the errors a bot can meet."""

import json
from fractions import Fraction
from pathlib import Path

from umpire_client import Client, assert_error, expect
from umpire_ref import assert_no_floats, die, verify_chain

from ruleset_helpers import claim_accepted

REPO = Path(__file__).resolve().parents[2]
SHARKS = json.loads((REPO / "scenarios" / "magic-realm-sharks-with-wings.json").read_text())
UNITS = SHARKS["session"]["setup"]["units"]
SEED = "626174732d61742d7468652d637261672d6d616769632d7265616c6d2d303031"


def create(umpire, mode="manual", seed=None, units=UNITS, options=None):
    body = {"ruleset": "magic-realm", "title": "Bats at the Crag", "sides": ["knight", "monsters"],
            "dice": {"mode": mode}, "setup": {"units": units}}
    if seed:
        body["dice"]["seed"] = seed
    if options is not None:
        body["options"] = options
    r = umpire.post("/v1/sessions", body)
    assert r.status == 201, r
    return r.body["session"]["id"], r.body["tokens"]


def act(umpire, sid, token, body, status=200):
    r = umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)
    assert r.status == status, r
    return r.body


def state(umpire, sid, token):
    r = umpire.get(f"/v1/sessions/{sid}", token=token)
    assert r.status == 200, r
    return {u["id"]: u for u in r.body["state"]["units"]}


def by(result, attacker):
    return next(a for a in result["attacks"] if a.get("attacker") == attacker)


# Situation 10's rounds given whole (the referee's form: in the Plays phase each is a logged
# override); the scenario plays the same rounds in turn order (test_magic_realm_turns.py).
ROUNDS = json.loads('[{"as": "referee", "type": "round", "order": "length", "runs": [{"unit": "white-knight", "move_time": 4}], "combatants": [{"unit": "white-knight", "maneuver": {"box": "dodge", "move_time": 6}, "attacks": [{"target": "bat-1", "box": "swing", "kind": "striking", "harm": "T", "time": 6, "length": 8, "name": "Great Sword"}]}, {"unit": "bat-1", "box": "thrust", "target": "white-knight"}, {"unit": "bat-2", "box": "smash", "target": "white-knight"}], "dice": [4, 1, 5, 2, 3, 1]}, {"as": "referee", "type": "round", "runs": [{"unit": "white-knight", "move_time": 6}], "combatants": [{"unit": "white-knight", "maneuver": {"box": "dodge", "move_time": 4}, "attacks": [{"target": "bat-1", "box": "swing", "kind": "striking", "harm": "T", "time": 6, "length": 8, "name": "Great Sword"}]}, {"unit": "bat-1", "box": "swing", "target": "white-knight"}, {"unit": "bat-2", "box": "thrust", "target": "white-knight", "change_tactics": true}], "dice": [6, 3, 4, 4, 4, 2, 5, 1]}, {"as": "referee", "type": "round", "runs": [{"unit": "white-knight", "move_time": 6}], "combatants": [{"unit": "white-knight", "maneuver": {"box": "dodge", "move_time": 4}, "attacks": [{"target": "bat-2", "box": "swing", "kind": "striking", "harm": "T", "time": 6, "length": 8, "name": "Great Sword"}]}, {"unit": "bat-2", "box": "smash", "target": "white-knight"}], "dice": [2, 1, 1, 1]}, {"as": "referee", "type": "round", "runs": [{"unit": "white-knight", "move_time": 6}], "combatants": [{"unit": "white-knight", "maneuver": {"box": "dodge", "move_time": 5}, "attacks": [{"target": "bat-2", "box": "swing", "kind": "striking", "harm": "T", "time": 5, "length": 8, "name": "Great Sword"}]}, {"unit": "bat-2", "box": "swing", "target": "white-knight"}], "dice": [6, 6, 6, 1, 6, 2]}, {"as": "knight", "type": "run", "unit": "white-knight", "move_time": 5, "attackers": ["bat-2"], "dice": [2, 2]}]')
# The knight's own run names the maneuver of his kit (Move H5*: move time 5): a side's raw move
# time is refused (kit_required).
ROUNDS[4].pop("move_time")
ROUNDS[4]["maneuver"] = "Move H5*"


def action(i):
    body = dict(ROUNDS[i])
    body.pop("as")
    return body


def test_the_ruleset_describes_itself(umpire):
    listed = expect(umpire.get("/v1/rulesets"), 200)["rulesets"]
    mr = next(r for r in listed if r["id"] == "magic-realm")
    assert mr["actions"] == ["attack", "run", "round", "play", "end_phase", "accept", "dispute"]
    d = expect(umpire.get("/v1/rulesets/magic-realm"), 200)
    assert d["id"] == "magic-realm" and d["version"] == 4 and d["description"]
    fields = {a["type"]: {f["name"]: f for f in a["fields"]} for a in d["actions"]}
    for name in ("attack.kind", "attack.harm", "attack.sharpness", "attack.time", "attack.spell",
                 "attack.alerted", "target.kind", "target.vulnerability", "target.armored",
                 "target.move_time", "target.armor", "target.horse", "target.aim", "hit",
                 "table"):
        assert name in fields["attack"], name
    assert fields["attack"]["hit"]["required"] is True
    assert {"move_time", "attackers", "flying", "with"} <= set(fields["run"])
    assert {"runs", "combatants", "combatants[].maneuver", "combatants[].box",
            "combatants[].change_tactics", "combatants[].attacks[].hit"} <= set(fields["round"])
    for a in d["actions"]:
        for f in a["fields"]:
            assert f["description"] and f["type"] in ("string", "integer", "boolean", "object",
                                                      "array"), f
    options = {o["name"]: o for o in d["options"]}
    assert set(options) == {"missile_table", "hamblens_kludge", "beyond_t_vs_armor", "order",
                            "trust_claims"}
    assert "house default" in options["beyond_t_vs_armor"]["description"]
    assert "house default" in options["order"]["description"]
    assert any("5.6" in s for s in d["sources"]) and any("house defaults" in s for s in d["sources"])


def test_sharks_with_wings_round_by_round(umpire):
    """Situation 10 with the article's dice: DRMs, harm, armor state and kills of every round."""
    sid, tok = create(umpire)
    ref = tok["referee"]

    r1 = act(umpire, sid, ref, action(0))
    res = r1["result"]
    assert res["runs"][0]["drm"] == 3 and res["runs"][0]["roll"] == 4
    assert res["runs"][0]["outcome"] == "cancelled"
    assert res["attacks"][0]["attacker"] == "white-knight" and res["attacks"][0]["hit"] == "miss"
    b1, b2 = by(res, "bat-1"), by(res, "bat-2")
    assert (b1["hit"], b1["drm"], b1["roll"], b1["harm"], b1["outcome"]) == \
        ("undercut", 0, 5, "M", "wounded")
    assert (b2["hit"], b2["drm"], b2["roll"], b2["harm"], b2["outcome"]) == \
        ("undercut", 0, 3, "H", "armor_damaged")
    assert [t["term"] for t in b1["drm_terms"]] == ["time", "move", "undercut"]
    assert "time +2, move -6, undercut +4" in r1["summary"]
    wk = state(umpire, sid, ref)["white-knight"]
    assert wk["wounds"] == 2 and wk["armor"][0]["state"] == "damaged"

    res = act(umpire, sid, ref, action(1))["result"]
    assert res["runs"][0]["drm"] == 5 and res["runs"][0]["outcome"] == "cancelled"
    assert res["tactics_changed"] == ["bat-2"]
    b1, b2, k = by(res, "bat-1"), by(res, "bat-2"), by(res, "white-knight")
    assert (b1["hit"], b1["drm"], b1["roll"], b1["harm"], b1["outcome"]) == \
        ("intercept", -2, 4, "H", "armor_destroyed")
    assert (b2["hit"], b2["drm"], b2["roll"], b2["harm"], b2["outcome"]) == \
        ("undercut", 3, 4, "L", "wounded")
    assert (k["hit"], k["drm"], k["roll"], k["harm"], k["outcome"]) == \
        ("intercept", 3, 5, "H", "killed")
    assert [a["attacker"] for a in res["attacks"]] == ["bat-1", "bat-2", "white-knight"]
    units = state(umpire, sid, ref)
    assert units["white-knight"]["wounds"] == 4
    assert units["white-knight"]["armor"][0]["state"] == "destroyed"
    assert units["bat-1"]["status"] == "killed"
    assert units["bat-2"]["move_time"] == 2 and units["bat-2"]["attack"]["time"] == 3

    res = act(umpire, sid, ref, action(2))["result"]
    assert res["runs"][0]["drm"] == 5
    b2 = by(res, "bat-2")
    assert (b2["drm"], b2["roll"], b2["harm"], b2["outcome"]) == (3, 1, "M", "wounded")
    assert by(res, "white-knight")["hit"] == "miss"

    res = act(umpire, sid, ref, action(3))["result"]
    b2, k = by(res, "bat-2"), by(res, "white-knight")
    assert (b2["hit"], b2["drm"], b2["roll"], b2["harm"]) == ("intercept", -2, 6, "M")
    assert (k["drm"], k["roll"], k["harm"], k["outcome"]) == (3, 6, "M", "no_effect")

    body = action(4)
    res = act(umpire, sid, tok["sides"]["knight"], body)["result"]
    assert (res["drm"], res["roll"], res["adjusted"], res["outcome"]) == (4, 2, 6, "completed")

    units = state(umpire, sid, ref)
    assert units["white-knight"]["wounds"] == 6          # "took six wounds"
    assert units["white-knight"]["armor"][0]["state"] == "destroyed"
    assert units["bat-1"]["status"] == "killed" and units["bat-2"]["status"] == "alive"

    events = umpire.events(sid, token=ref)[0]
    verify_chain(events)
    for ev in events[1:]:
        assert_no_floats(ev["data"])
        for d in ev["data"]["dice"]:
            assert d["manual"] is True and d["notation"] == "2d6h" and "nonce" not in d
            assert d["value"] == max(d["values"])
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 5


def test_seeded_round_dice_recompute_and_verify(umpire):
    sid, tok = create(umpire, mode="seeded", seed=SEED)
    ref = tok["referee"]
    body = action(1)
    body.pop("dice")
    out = act(umpire, sid, ref, body)
    # the referee's round in the Plays phase: an override, its ruling first
    assert out["summary"].startswith("Referee's ruling, out of sequence")
    assert "Round: white-knight runs" in out["summary"]
    events = umpire.events(sid, token=ref)[0]
    dice = events[-1]["data"]["dice"]
    assert [d["purpose"] for d in dice][0] == "stumble"
    nonce = 1
    for d in dice:
        assert d["nonce"] == nonce
        assert d["values"] == [die(SEED, sid, nonce + i, 6) for i in range(2)]
        nonce += 2
    # the stumble roll in the result is the higher of the logged pair
    assert out["result"]["runs"][0]["roll"] == max(dice[0]["values"])
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["dice_checked"] == 2 * len(dice)


def test_attack_between_units_changes_the_state(umpire):
    sid, tok = create(umpire)
    knight, ref = tok["sides"]["knight"], tok["referee"]
    # a single attack is resolved after the plays: each side ends its part of the Plays phase
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "attack", "unit": "white-knight", "target": {"unit": "bat-1"},
        "attack": {"name": "Great Sword, F H6"}, "hit": "intercept", "dice": [2, 1]},
        token=knight), 422, "wrong_phase")
    # the knight plays Move H4** (move time 4) to dodge: the maneuver an attack on him meets
    act(umpire, sid, knight, {"type": "play", "unit": "white-knight",
                              "maneuver": {"name": "Move H4**", "box": "dodge"}, "attacks": []})
    act(umpire, sid, knight, {"type": "end_phase"})
    act(umpire, sid, tok["sides"]["monsters"], {"type": "end_phase"})
    # a side's raw stats are not taken: the attack is one of the unit's kit
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "attack", "unit": "white-knight", "target": {"unit": "bat-1"},
        "attack": {"kind": "striking", "harm": "T", "time": 4, "name": "Great Sword"},
        "hit": "intercept", "dice": [2, 1]}, token=knight), 422, "kit_required")
    # the referee may give any stats
    out = act(umpire, sid, ref, {
        "type": "attack", "unit": "white-knight", "target": {"unit": "bat-1"},
        "attack": {"kind": "striking", "harm": "T", "time": 4, "name": "Great Sword"},
        "hit": "intercept", "dice": [2, 1]})
    # +4 -3 = +1: 2 -> 3, increase one level: beyond T
    assert out["result"]["drm"] == 1 and out["result"]["harm"] == "KILL"
    assert out["result"]["outcome"] == "killed"
    assert "Great Sword" in out["summary"] and "time +4, move -3" in out["summary"]
    assert state(umpire, sid, knight)["bat-1"]["status"] == "killed"
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "attack", "unit": "white-knight", "target": {"unit": "bat-1"},
        "attack": {"kind": "striking", "harm": "T", "time": 4}, "hit": "intercept",
        "dice": [2, 1]}, token=ref), 409, "not_applicable", "target.unit")
    assert "dead" in err["message"]
    # a Bat attacks with its counter; the monsters' side acts with its own unit; the knight's
    # move time is his play's (Move H4**: 4), not the attacker's word
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "attack", "unit": "bat-2", "target": {"unit": "white-knight", "move_time": 8},
        "hit": "undercut", "dice": [6, 6]}, token=tok["sides"]["monsters"]), 422,
        "target_from_play", "target.move_time")
    assert "white-knight" in err["message"]
    # the declared undercut is the monsters' word: a claim the knight accepts
    out = claim_accepted(umpire, sid, tok["sides"]["monsters"], {
        "type": "attack", "unit": "bat-2", "target": {"unit": "white-knight"},
        "hit": "undercut", "dice": [6, 6]}, knight)
    assert out["result"]["drm"] == 2 and out["result"]["outcome"] == "no_effect"
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "attack", "unit": "bat-2", "target": {"unit": "white-knight", "move_time": 4},
        "hit": "undercut", "dice": [6, 6]}, token=knight), 403, "forbidden")


def test_session_odds_of_a_round(umpire):
    """Round 4 of Situation 10, asked before it is played: the Bat (M3, time 3) lines up on Move
    5: the knight, armor gone, dies on 5 or less (25/36); the Bat dies when the knight survives
    and his +3 swing rolls 5 or less (11/36 * 25/36)."""
    sid, tok = create(umpire)
    ref = tok["referee"]
    for i in range(3):
        act(umpire, sid, ref, action(i))
    body = action(3)
    body.pop("dice")
    body.pop("runs")
    before = umpire.session(sid, token=ref)["version"]
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", body, token=ref), 200)
    # a dead knight does not swing: 25 pairs end the round, 11 go on to the knight's 36
    assert ans["enumerated"] == 25 + 11 * 36
    units = ans["units"]
    assert abs(units["white-knight"]["p_killed"] - 25 / 36) < 1e-12
    assert abs(units["bat-2"]["p_killed"] - float(Fraction(11, 36) * Fraction(25, 36))) < 1e-12
    assert abs(sum(o["p"] for o in ans["outcomes"]) - 1) < 1e-9
    assert all(o["summary"] for o in ans["outcomes"])
    # the DRMs, fixed at hit determination, named once beside the outcomes (the article's
    # "Bat: +3 -5 = -2", "Knight: +5 -2 = +3")
    assert [(a["order"], a["attacker"], a["target"], a["hit"], a["drm"]) for a in ans["attacks"]] \
        == [(1, "bat-2", "white-knight", "intercept", -2), (2, "white-knight", "bat-2",
                                                           "intercept", 3)]
    assert [(t["term"], t["value"]) for t in ans["attacks"][0]["drm_terms"]] == \
        [("time", 3), ("move", -5)]
    assert [(t["term"], t["value"]) for t in ans["attacks"][1]["drm_terms"]] == \
        [("time", 5), ("move", -2)]
    assert ans["attacks"][1]["summary"] == \
        "white-knight Great Sword at bat-2: intercept, DRM +3 (time +5, move -2)"
    assert ans["runs"] == []
    assert all(set(o["result"]) == {"effects"} for o in ans["outcomes"])
    assert umpire.session(sid, token=ref)["version"] == before   # odds write nothing


def test_round_odds_name_every_drm_once(umpire):
    """Round 1 of Situation 10 asked before it is played: the run's DRM (+4 -3 +2) and both Bats'
    (+2 -6 +4) are listed once; the Knight's swing misses and has none."""
    sid, tok = create(umpire)
    body = action(0)
    body.pop("dice")
    # 35,001 combinations: 8-10 s under ASan on a loaded 2-core machine, beyond the default
    # client's 10 s (measured in make bench, never timed here)
    slow = Client(umpire.daemon, timeout=120.0)
    ans = expect(slow.post(f"/v1/sessions/{sid}/odds", body, token=tok["referee"]), 200)
    slow.close()
    assert [(r["unit"], r["drm"]) for r in ans["runs"]] == [("white-knight", 3)]
    assert [t["value"] for t in ans["runs"][0]["drm_terms"]] == [4, -3, 2]
    assert ans["runs"][0]["summary"] == \
        "white-knight runs: DRM +3 (move +4, fastest attacker -3, attackers +2)"
    assert [(a["attacker"], a["hit"], a["drm"]) for a in ans["attacks"]] == \
        [("bat-1", "undercut", 0), ("bat-2", "undercut", 0)]
    for a in ans["attacks"]:
        assert [(t["term"], t["value"]) for t in a["drm_terms"]] == \
            [("time", 2), ("move", -6), ("undercut", 4)]
        assert a["summary"].endswith(": undercut, DRM +0 (time +2, move -6, undercut +4)")
    # he gets away on 3 or less (9/36), and then nobody strikes anyone
    assert abs(ans["units"]["white-knight"]["p_escaped"] - 9 / 36) < 1e-12


def test_round_odds_group_by_effects_alone(umpire):
    """Two swings at one Bat: when the first kills it the second is skipped and has no DRM in
    that result; the Bat's death is still one outcome, and each swing's DRM is listed once."""
    sid, tok = create(umpire)
    swing = {"target": "bat-1", "box": "swing", "kind": "striking", "harm": "M", "time": 4,
             "name": "Mace"}
    body = {"type": "round", "combatants": [
        {"unit": "white-knight", "maneuver": {"box": "dodge", "move_time": 4},
         "attacks": [swing, dict(swing)]},
        {"unit": "bat-1", "box": "swing"}]}
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", body, token=tok["referee"]), 200)
    # +4 -3 = +1 on the Fumble table: M harm goes to H (the Bat's vulnerability) on 2 or less
    assert ans["enumerated"] == 4 + 32 * 36
    effects = [json.dumps(o["result"]["effects"], sort_keys=True) for o in ans["outcomes"]]
    assert len(effects) == len(set(effects)) == 2
    killed = next(o for o in ans["outcomes"]
                  if any(e["unit"] == "bat-1" and e["status"] == "killed"
                         for e in o["result"]["effects"]))
    want = Fraction(4, 36) + Fraction(32, 36) * Fraction(4, 36)
    assert abs(killed["p"] - float(want)) < 1e-12
    assert abs(ans["units"]["bat-1"]["p_killed"] - float(want)) < 1e-12
    assert [(a["order"], a["drm"]) for a in ans["attacks"]] == [(1, 1), (2, 1)]
    assert all(a["summary"] == "white-knight Mace at bat-1: intercept, DRM +1 (time +4, move -3)"
               for a in ans["attacks"])


def test_errors_a_bot_can_meet(umpire):
    sid, tok = create(umpire)
    ref, knight = tok["referee"], tok["sides"]["knight"]
    body = action(0)
    body.pop("dice")
    # a round given whole is resolved after the plays, and moves every side's units: the
    # referee's
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", body, token=knight), 422,
                 "wrong_phase")
    act(umpire, sid, knight, {"type": "end_phase"})
    act(umpire, sid, tok["sides"]["monsters"], {"type": "end_phase"})
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", body, token=knight), 403,
                 "forbidden")
    # manual dice missing: every roll the round needs, in order
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", body, token=ref), 422,
                       "dice_required")
    assert err["details"]["needed"][0]["purpose"] == "stumble"
    assert all(n["notation"] == "2d6h" for n in err["details"]["needed"])
    # field paths
    bad = json.loads(json.dumps(body))
    bad["combatants"][0]["attacks"][0]["harm"] = "Q"
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", bad, token=ref), 400,
                 "invalid_field", "combatants[0].attacks[0].harm")
    bad = json.loads(json.dumps(body))
    bad["combatants"][1]["unit"] = "bat-9"
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", bad, token=ref), 422,
                 "unknown_unit", "combatants[1]")
    # 5.2 / 5.1 rules violations name the rule
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "run", "unit": "white-knight", "move_time": 4,
        "attackers": [{"move_time": 4, "red_side_up": True}], "dice": [1, 1]}, token=ref),
        422, "rules_violation")
    assert "(5.1)" in err["message"]
    # nothing was written by any of these (the two end_phase only)
    assert umpire.session(sid, token=ref)["version"] == 3


def test_odds_refuse_what_they_cannot_enumerate(umpire):
    """Five Bats on a knight who cannot die this round (T vulnerability, four T pieces of armor):
    five rolls, 36^5 combinations: refused at once."""
    bats = [dict(UNITS[1], id=f"bat-{i}") for i in range(5)]
    tank = {"id": "tank", "side": "knight", "kind": "character", "vulnerability": "T",
            "armor": [{"toughness": "T"}] * 4}
    sid, tok = create(umpire, units=[tank] + bats)
    body = {"type": "round", "combatants": [{"unit": "tank", "maneuver": {"box": "dodge",
                                                                          "move_time": 4}}]}
    body["combatants"] += [{"unit": b["id"], "box": "swing", "target": "tank"} for b in bats]
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/odds", body, token=tok["referee"]), 422,
                       "odds_too_large")
    assert err["details"]["dice"] == 10


def test_inline_odds_take_options(umpire):
    """Options ride along with inline odds: the 2nd-edition table and the kludge."""
    bow = {"type": "attack", "attack": {"kind": "missile", "harm": "L", "sharpness": 2, "time": 1},
           "target": {"kind": "denizen", "vulnerability": "L", "move_time": 4,
                      "horse": {"move_time": 2}, "aim": "rider"},
           "hit": {"horse": "undercut", "rider": "undercut"}}
    revised = expect(umpire.post("/v1/rulesets/magic-realm/odds", bow), 200)
    second = expect(umpire.post("/v1/rulesets/magic-realm/odds",
                                dict(bow, options={"missile_table": "second-edition"})), 200)
    assert abs(revised["p_kill"] - 9 / 36) < 1e-12 and abs(second["p_kill"] - 4 / 36) < 1e-12
    assert_error(umpire.post("/v1/rulesets/magic-realm/odds",
                             dict(bow, options={"missile_table": "fourth"})), 400,
                 "invalid_field", "options.missile_table")


def test_inline_round_odds_with_setup(umpire):
    """A round's odds without a session: the setup rides along. The M2 Bat lines up on Move 5
    (2 - 5 = -3) against intact H armor: a wound on every roll, the armor destroyed on 1-4."""
    body = {"type": "round", "setup": SHARKS["session"]["setup"], "combatants": [
        {"unit": "white-knight", "maneuver": {"box": "dodge", "move_time": 5}},
        {"unit": "bat-1", "box": "swing", "target": "white-knight"}]}
    ans = expect(umpire.post("/v1/rulesets/magic-realm/odds", body), 200)
    wk = ans["units"]["white-knight"]
    assert wk["p_wounded"] == 1.0 and wk["p_killed"] == 0.0
    destroyed = sum(o["count"] for o in ans["outcomes"]
                    if o["result"]["effects"][0]["armor"] == ["destroyed"])
    assert Fraction(destroyed, ans["of"]) == Fraction(16, 36)
