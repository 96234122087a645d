"""Ruleset horse-and-musket through the real daemon: the ruleset's description, a short game near
La Haye Sainte played action by action with manual dice and checked unit by unit, exact odds of
a morale test, setup validation, hits given or rolled, and the errors a side can meet.

The units are those of scenarios/horse-and-musket-la-haye-sainte.json (inch, resolution 10: 60
is 6 inches; facing 0 is north, +y). Every expected number below is worked out by hand from
shared/rules-sources/horse-and-musket-morale.txt and the module's documented house defaults
(docs/rules/horse-and-musket.md): a test rolls 1d6 + 1 for an attached general + 1 for a
supporter directly behind (within 30 degrees) able to reach the unit in two of its moves, and
needs elite 3, regular 4, poor or militia 5; a failure costs a further 25%; a retreat is a full
move straight away from the enemy, ending with its back to it; bases are discs of half an inch."""

import copy
import json
from fractions import Fraction
from pathlib import Path

from umpire_client import assert_error, expect
from umpire_ref import assert_no_floats, verify_chain

from ruleset_helpers import act, claim_accepted, create_session, units

REPO = Path(__file__).resolve().parents[2]
RS = "horse-and-musket"
SCENARIO = json.loads((REPO / "scenarios" / "horse-and-musket-la-haye-sainte.json").read_text())
SETUP = SCENARIO["session"]["setup"]
ACTIONS = ["fire", "melee", "move", "morale", "attach", "end_phase", "accept", "dispute"]


def create(umpire, mode="manual", setup=SETUP, options=None, sides=("french", "british")):
    return create_session(umpire, RS, "La Haye Sainte", setup, sides, mode, options)


def terms(test):
    return [(t["name"], t["value"]) for t in test["modifiers"]]


def close(x, fraction):
    return abs(x - float(fraction)) < 1e-12


def test_the_ruleset_describes_itself(umpire):
    listed = expect(umpire.get("/v1/rulesets"), 200)["rulesets"]
    hm = next(r for r in listed if r["id"] == RS)
    assert hm["actions"] == ACTIONS
    d = expect(umpire.get(f"/v1/rulesets/{RS}"), 200)
    assert d["id"] == RS and d["version"] == 4 and d["description"]
    assert [a["type"] for a in d["actions"]] == ACTIONS
    fields = {a["type"]: {f["name"]: f for f in a["fields"]} for a in d["actions"]}
    assert set(fields["fire"]) == {"unit", "target", "hits", "hits_back", "situation",
                                   "situation_back", "exchange"}
    assert set(fields["melee"]) == {"unit", "target", "hits", "hits_back", "situation",
                                    "situation_back"}
    assert set(fields["move"]) == {"unit", "to", "path", "facing"}
    assert set(fields["morale"]) == {"unit", "reason"}
    assert set(fields["attach"]) == {"unit", "general"}
    assert set(fields["end_phase"]) == set()
    seq = d["sequence"]
    assert [(p["name"], p["title"]) for p in seq["phases"]] == [
        ("movement", "Movement"), ("fire", "Fire"), ("melee", "Melee")]
    assert "house default" in seq["source"]
    assert "Sequence of play (house default)" in d["description"]
    # hits are the side's word only without a setup table: not required by the schema
    assert fields["fire"]["hits"]["required"] is False
    assert fields["fire"]["hits_back"]["required"] is False
    assert fields["melee"]["hits_back"]["required"] is False
    for a in d["actions"]:
        for f in a["fields"]:
            assert f["description"] and f["type"] in ("string", "integer", "boolean", "object",
                                                      "array"), f
    options = {o["name"]: o for o in d["options"]}
    assert set(options) == {"measure", "resolution", "hits", "base_radius", "trust_claims"}
    assert all(o["required"] is False for o in options.values())
    assert "house default" in options["base_radius"]["description"]
    assert any("horse-and-musket-morale.txt" in s for s in d["sources"])
    assert any("house defaults" in s for s in d["sources"])


def end(umpire, sid, token, dice=None):
    body = {"type": "end_phase"}
    if dice is not None:
        body["dice"] = dice
    return act(umpire, sid, token, body)


def turn_of(umpire, sid, token):
    t = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]["turn"]
    return t["number"], t["player"], t["phase"]


def test_a_game_near_la_haye_sainte_with_manual_dice(umpire):
    """Two turns in the house-default sequence of play (the French first: each side's Movement,
    Fire and Melee), dice rolled at the table; the state checked unit by unit; each side's
    action out of turn refused, and the referee's override logged."""
    sid, tok = create(umpire)
    ref, fr, br = tok["referee"], tok["sides"]["french"], tok["sides"]["british"]
    assert turn_of(umpire, sid, ref) == (1, "french", "movement")

    # Out of turn: the British may not move in the French Movement phase, nor end it; the
    # French may not fire in it. Nothing is written.
    version = umpire.session(sid, token=ref)["version"]
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "br-redcoats", "to": [100, 170]}, token=br), 409, "not_your_turn")
    assert err["details"]["player"] == "french" and err["details"]["phase"] == "movement"
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {"type": "end_phase"}, token=br),
                 409, "not_your_turn")
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": 1, "dice": [4]},
        token=fr), 422, "wrong_phase")
    assert "move" in err["details"]["allowed"]
    assert umpire.session(sid, token=ref)["version"] == version

    # Turn 1, French Movement: the hussars trot 5 in to face the militia; the voltigeurs
    # advance 4 in.
    res = act(umpire, sid, fr, {"type": "move", "unit": "fr-hussars", "to": [250, 150],
                                "facing": 0})["result"]
    assert (res["distance"], res["allowance"], res["to"], res["facing"]) == (50, 120, [250, 150], 0)
    act(umpire, sid, fr, {"type": "move", "unit": "fr-voltigeurs", "to": [20, 160], "facing": 0})
    out = end(umpire, sid, fr)
    assert "The Movement phase of french's turn 1 ends; the Fire phase of french's turn 1 " \
        "begins" in out["summary"]

    # French Fire: the voltigeurs exchange fire with the rifles: 1 hit each. The rifles (elite)
    # roll 1, the voltigeurs (regular) 2: both lose 25% and fail: the exception, neither
    # retreats.
    out = claim_accepted(umpire, sid, fr, {"type": "fire", "unit": "fr-voltigeurs",
                                           "target": "br-rifles", "hits": 1, "hits_back": 1,
                                           "dice": [1, 2]}, br)
    res = out["result"]
    assert res["exchange"] is True
    assert [(t["unit"], t["roll"], t["need"], t["passed"]) for t in res["tests"]] == \
        [("br-rifles", 1, 3, False), ("fr-voltigeurs", 2, 4, False)]
    assert res["retreats"] == []
    assert "does not retreat" in out["summary"]
    end(umpire, sid, fr)

    # French Melee: the hussars charge: 2 hits to none; the militia (2 hits a quarter) loses
    # 25% and the melee, tests (militia 5+: 4 fails, a further 25%) and retreats 6 in straight
    # away from the hussars: [250, 160] -> [250, 220], its back to them (facing 0).
    out = claim_accepted(umpire, sid, fr, {"type": "melee", "unit": "fr-hussars",
                                           "target": "br-militia", "hits": 2, "hits_back": 0,
                                           "dice": [4]}, br)
    res = out["result"]
    assert res["outcome"] == "defender_lost"
    assert [(t["unit"], t["test"], t["roll"], t["need"], t["passed"]) for t in res["tests"]] == \
        [("br-militia", "lost a melee", 4, 5, False)]
    assert res["retreats"] == [{"unit": "br-militia", "distance": 60, "to": [250, 220],
                                "facing": 0}]
    assert "its back to the enemy (facing 0)" in out["summary"]

    # The British turn begins: the militia is diced for at the start of its move of retreat:
    # 3 < 5: another full move away from the hussars [250, 150]: [250, 280], facing 0.
    out = end(umpire, sid, fr, dice=[3])
    [rc] = out["result"]["recoveries"]
    assert (rc["unit"], rc["roll"], rc["need"], rc["passed"]) == ("br-militia", 3, 5, False)
    assert out["result"]["retreats"] == [{"unit": "br-militia", "distance": 60,
                                          "to": [250, 280], "facing": 0}]
    assert "br-militia rolls to recover: d6 3" in out["summary"]
    assert turn_of(umpire, sid, ref) == (1, "british", "movement")

    # British Movement: a retreating unit does not move (409), and nothing is written; the
    # French may not act now.
    version = umpire.session(sid, token=ref)["version"]
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "br-militia", "to": [250, 260]}, token=br), 409, "retreating")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "fr-line", "to": [100, 40]}, token=fr), 409, "not_your_turn")
    assert umpire.session(sid, token=ref)["version"] == version
    # The redcoats close to 2 in of the Guard.
    act(umpire, sid, br, {"type": "move", "unit": "br-redcoats", "to": [100, 120]})
    end(umpire, sid, br)

    # British Fire: the battery fires on the Guard: 1 hit = 25%, a test. Elite needs 3: the die
    # 1, +1 Ney, +1 the 45e directly behind (7 in back, within two 6 in moves) = 3.
    out = claim_accepted(umpire, sid, br, {"type": "fire", "unit": "br-battery",
                                           "target": "fr-guard", "hits": 1, "dice": [1]}, fr)
    res = out["result"]
    assert (res["hits"], res["exchange"]) == (1, False)
    [t] = res["tests"]
    assert (t["unit"], t["roll"], t["modifier"], t["need"], t["passed"]) == \
        ("fr-guard", 1, 2, 3, True)
    assert terms(t) == [("general Ney", 1), ("supported by fr-line", 1)]
    assert res["after"] == [{"unit": "fr-guard", "effectiveness": 75, "state": "normal"},
                            {"unit": "br-battery", "effectiveness": 100, "state": "normal"}]
    assert "+1 general Ney, +1 supported by fr-line = 3, needs 3+: passes" in out["summary"]
    assert units(umpire, sid, ref)["fr-line"]["supporting"] == "fr-guard"
    end(umpire, sid, br)

    # British Melee: the redcoats charge: 2 hits on the Guard, 1 back. This turn the Guard has
    # suffered 3 (the battery's 1 included), the redcoats 1: the Guard loses (75% -> 25%) and
    # tests: 1 + Ney + the 45e (still supporting it this turn) = 3 passes. It retreats all the
    # same, straight south towards [100, 40]: the 45e at [100, 30] is in the way, so the Guard
    # is eliminated, Ney with it, and the 45e (friendly, not cavalry) tests: 3 < 4, it loses 25%.
    out = claim_accepted(umpire, sid, br, {"type": "melee", "unit": "br-redcoats",
                                           "target": "fr-guard", "hits": 2, "hits_back": 1,
                                           "dice": [1, 3]}, ref)
    res = out["result"]
    assert res["outcome"] == "defender_lost"
    assert [(t["unit"], t["roll"], t["modifier"], t["passed"]) for t in res["tests"]] == \
        [("fr-guard", 1, 2, True)]
    [r] = res["retreats"]
    assert (r["unit"], r["distance"], r["blocked_by"], r["eliminated"]) == \
        ("fr-guard", 60, "fr-line", True)
    bt = r["blocker_test"]
    assert (bt["unit"], bt["test"], bt["roll"], bt["need"], bt["passed"]) == \
        ("fr-line", "retreated into", 3, 4, False)
    assert "this turn (fire included) br-redcoats 1, fr-guard 3" in out["summary"]
    assert "fr-guard retreats 6 in but fr-line is in the way: eliminated" in out["summary"]
    assert "general" not in units(umpire, sid, ref)["fr-guard"]

    # Turn 2 begins: hits of the turn and support cleared.
    out = end(umpire, sid, br)
    res = out["result"]
    assert res["new_turn"] is True and res["engaged"] == 0 and res["recoveries"] == []
    assert "supporting" not in units(umpire, sid, ref)["fr-line"]
    assert turn_of(umpire, sid, ref) == (2, "french", "movement")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "fr-guard", "to": [100, 100]}, token=fr), 409, "unit_eliminated")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "attach", "unit": "fr-line", "general": "Ney"}, token=fr),
        422, "rules_violation", "general")

    # French Movement: the 45e steps up 3 in. Fire: nothing.
    act(umpire, sid, fr, {"type": "move", "unit": "fr-line", "to": [100, 60], "facing": 0})
    end(umpire, sid, fr)
    end(umpire, sid, fr)
    # French Melee: the hussars charge the battery: 1 hit each, a tie: no test, another round
    # next turn.
    out = claim_accepted(umpire, sid, fr, {"type": "melee", "unit": "fr-hussars",
                                           "target": "br-battery", "hits": 1, "hits_back": 1},
                         br)
    assert out["result"]["outcome"] == "tie" and out["result"]["tests"] == []
    assert "a tie, the melee goes on next turn" in out["summary"]
    # The British turn: the militia rolls again: 6, back to normal action.
    out = end(umpire, sid, fr, dice=[6])
    assert out["result"]["recoveries"][0]["passed"] is True
    assert "returns to normal action" in out["summary"]

    # British Movement: Picton leaves the redcoats for the rifles; the battery, locked in
    # melee, may not move apart.
    res = act(umpire, sid, br, {"type": "attach", "unit": "br-rifles",
                                "general": "Picton"})["result"]
    assert (res["from"], res["to"]) == ("br-redcoats", "br-rifles")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "br-battery", "to": [180, 190]}, token=br), 409, "engaged")
    # The rifles test (called by the table, in any phase): elite, 2 + Picton = 3 passes.
    out = act(umpire, sid, br, {"type": "morale", "unit": "br-rifles", "reason": "the Guard falls",
                                "dice": [2]})
    t = out["result"]["test"]
    assert (t["roll"], t["modifier"], t["need"], t["passed"]) == (2, 1, 3, True)
    assert terms(t) == [("general Picton", 1)]

    # The referee moves the 45e back in the British phase: out of sequence, an override the
    # log and its summary show.
    out = act(umpire, sid, ref, {"type": "move", "unit": "fr-line", "to": [100, 60]})
    assert out["result"]["override"]
    assert out["summary"].startswith("Referee") or out["summary"].startswith("The referee"), \
        out["summary"]

    # The final state, unit by unit: (at, facing, effectiveness, state, general, engaged).
    final = units(umpire, sid, ref)
    want = {
        "fr-guard": ([100, 100], 0, 0, "eliminated", None, None),
        "fr-line": ([100, 60], 0, 75, "normal", None, None),
        "fr-voltigeurs": ([20, 160], 0, 50, "normal", None, None),
        "fr-hussars": ([250, 150], 0, 75, "normal", None, "br-battery"),
        "br-redcoats": ([100, 120], 180, 75, "normal", None, None),
        "br-militia": ([250, 280], 0, 50, "normal", None, None),
        "br-battery": ([180, 200], 200, 75, "normal", None, "fr-hussars"),
        "br-rifles": ([20, 220], 180, 50, "normal", "Picton", None),
    }
    assert set(final) == set(want)
    for uid, (at, facing, eff, st, general, engaged) in want.items():
        u = final[uid]
        assert (u["at"], u["facing"], u["effectiveness"], u["state"], u.get("general"),
                u.get("engaged")) == (at, facing, eff, st, general, engaged), (uid, u)
        assert "retreat_from" not in u, u

    events = umpire.events(sid, token=ref)[0]
    verify_chain(events)
    assert len(events) == 27  # 21 actions, 5 of them claims, each accepted
    assert events[-1]["data"]["result"]["override"]
    for ev in events[1:]:
        assert_no_floats(ev["data"])
        for d in ev["data"]["dice"]:
            assert d["manual"] is True and d["notation"] == "1d6" and "nonce" not in d
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 26


def test_morale_odds_are_exact(umpire):
    """p_pass of a test: regular with a general 4/6 (3-6); elite with a general and a supporter
    always (1 + 2 = 3); militia alone 2/6; recovering needs 5 whatever the quality: 2/6, with a
    general 3/6."""
    sid, tok = create(umpire)
    fr, br = tok["sides"]["french"], tok["sides"]["british"]

    def odds(body, token):
        ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", body, token=token), 200)
        assert ans["exact"] is True and ans["of"] == 6
        assert abs(sum(o["p"] for o in ans["outcomes"]) - 1) < 1e-12
        return ans

    ans = odds({"type": "morale", "unit": "br-redcoats"}, br)
    assert close(ans["p_pass"], Fraction(4, 6))
    assert close(ans["p_any_retreating"], 0) and close(ans["p_any_eliminated"], 0)
    fail = [o for o in ans["outcomes"] if o["result"]["passed"] is False]
    assert len(fail) == 1 and close(fail[0]["p"], Fraction(2, 6))
    assert fail[0]["result"]["after"] == [{"unit": "br-redcoats", "effectiveness": 75,
                                           "state": "normal"}]
    assert close(odds({"type": "morale", "unit": "fr-guard"}, fr)["p_pass"], 1)
    assert close(odds({"type": "morale", "unit": "br-militia"}, br)["p_pass"], Fraction(2, 6))
    assert close(odds({"type": "morale", "unit": "fr-hussars"}, fr)["p_pass"], Fraction(2, 6))

    # a fire at the redcoats: 1 hit, then the test: retreat (fail) 2/6
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": 1}, token=fr), 200)
    assert close(ans["p_any_retreating"], Fraction(2, 6))

    # recovery, rolled as the British turn begins (one phase a player-turn here, so the
    # French end_phase begins it): the militia, retreating after losing a melee, needs 5+ (2/6)
    setup = dict(SETUP, turn={"phases": ["movement", "melee"]})
    sid, tok = create(umpire, setup=setup)
    fr, br, ref = tok["sides"]["french"], tok["sides"]["british"], tok["referee"]
    act(umpire, sid, fr, {"type": "end_phase"})
    claim_accepted(umpire, sid, fr, {"type": "melee", "unit": "fr-hussars",
                                      "target": "br-militia", "hits": 2, "hits_back": 0,
                                      "dice": [6]}, br)
    ans = odds({"type": "end_phase"}, fr)
    assert close(ans["p_any_retreating"], Fraction(4, 6))
    # the redcoats (Picton) break under fire too (the referee's ruling): 1 + 1 < 4; their
    # recovery is 3/6, the militia's 2/6, both rolled: 36 outcomes
    act(umpire, sid, ref, {"type": "fire", "unit": "fr-guard", "target": "br-redcoats",
                           "hits": 1, "dice": [1]})
    assert units(umpire, sid, ref)["br-redcoats"]["state"] == "retreating"
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", {"type": "end_phase"}, token=fr), 200)
    assert ans["of"] == 36
    assert close(ans["p_any_retreating"], 1 - Fraction(3, 6) * Fraction(2, 6))
    assert umpire.session(sid, token=ref)["version"] == 5   # odds write nothing


def test_inline_odds_take_the_setup(umpire):
    body = {"type": "morale", "unit": "br-redcoats", "setup": SETUP}
    ans = expect(umpire.post(f"/v1/rulesets/{RS}/odds", body), 200)
    assert close(ans["p_pass"], Fraction(4, 6))


def test_setup_is_validated_naming_the_field(umpire):
    def unit(i, **kw):
        return lambda s: s["units"][i].update(kw)

    cases = [
        # (what, mutation, options, status, code, field, words in the message)
        ("effectiveness 30", unit(0, effectiveness=30), None, 400, "invalid_field",
         "setup.units[0].effectiveness", ["25, 50, 75 or 100"]),
        ("effectiveness 0", unit(1, effectiveness=0), None, 400, "invalid_field",
         "setup.units[1].effectiveness", []),
        ("general on two units", unit(1, general="Ney"), None, 422, "invalid_setup",
         "setup.units[1].general", ["Ney", "two units"]),
        ("unknown type", unit(2, type="dragoons"), None, 400, "invalid_field",
         "setup.units[2].type", []),
        ("unknown quality", unit(3, quality="veteran"), None, 400, "invalid_field",
         "setup.units[3].quality", []),
        ("a point of one coordinate", unit(4, at=[1]), None, 400, "invalid_field",
         "setup.units[4].at", []),
        ("facing 360", unit(5, facing=360), None, 400, "invalid_field",
         "setup.units[5].facing", []),
        ("state in a setup", unit(6, state="retreating"), None, 400, "invalid_field",
         "setup.units[6].state", []),
        ("no movement", lambda s: s["units"][7].pop("movement"), None, 400, "invalid_field",
         "setup.units[7].movement", []),
        ("options.hits", None, {"hits": "sometimes"}, 400, "invalid_field", "options.hits", []),
        ("options.measure", None, {"measure": "furlong"}, 400, "invalid_field",
         "options.measure", []),
    ]
    for what, mutate, options, status, code, field, words in cases:
        setup = copy.deepcopy(SETUP)
        if mutate:
            mutate(setup)
        body = {"ruleset": RS, "sides": ["french", "british"], "dice": {"mode": "manual"},
                "setup": setup}
        if options:
            body["options"] = options
        err = assert_error(umpire.post("/v1/sessions", body), status, code, field)
        for w in words:
            assert w in err["message"], (what, err)


def test_hits_given_or_rolled(umpire):
    """options.hits rolled: hits are a dice notation, rolled and logged; an integer is a 422.
    Given (the default): a notation is a 422."""
    sid, tok = create(umpire, options={"hits": "rolled"})
    fr, br, ref = tok["sides"]["french"], tok["sides"]["british"], tok["referee"]
    act(umpire, sid, fr, {"type": "end_phase"})   # to the French Fire phase
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": 1, "dice": [4]},
        token=fr), 422, "hits_must_be_rolled", "hits")
    assert "dice notation" in err["message"]
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": "2d", "dice": [4]},
        token=fr), 422, "invalid_notation", "hits")
    # 1d6-2 rolls 3: one hit; the redcoats test 4 + Picton: pass
    # (the notation is the French word: rolled once the British accept the claim)
    out = claim_accepted(umpire, sid, fr, {"type": "fire", "unit": "fr-guard",
                                           "target": "br-redcoats", "hits": "1d6-2",
                                           "dice": [3, 4]}, br)
    assert out["result"]["hits"] == 1
    assert out["result"]["after"][0] == {"unit": "br-redcoats", "effectiveness": 75,
                                         "state": "normal"}
    claim, ev = umpire.events(sid, token=ref)[0][-2:]
    assert [(d["purpose"], d["value"]) for d in ev["data"]["dice"]] == [("hits", 3), ("morale", 4)]
    assert claim["data"]["action"]["hits"] == "1d6-2"
    assert ev["data"]["action"] == {"type": "accept", "claim": 1}
    # odds enumerate the hits too. The redcoats stand at 75% (three quarters), Picton +1:
    # 1d6-2 gives 0 hits on 1-2; 1 on 3 (50%, a failed test leaves 25%); 2 on 4 (25%, and a
    # failed test on 1-2 eliminates); 3 on 5 and 4 on 6 (eliminated without a test):
    # 1/6 * 2/6 + 2/6 = 14/36.
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": "1d6-2"},
        token=fr), 200)
    # (enumerated over every die; "exact" is false only because the leaves are not equally
    # likely: a test is rolled on some branches and not on others)
    assert ans["enumerated"] == 16 and ans["exact"] is False
    assert close(sum(o["p"] for o in ans["outcomes"]), 1)
    assert close(ans["p_any_eliminated"], Fraction(14, 36))
    # retreating: 1 hit on 3 and a failed test (1-2): 1/6 * 2/6
    assert close(ans["p_any_retreating"], Fraction(2, 36))
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 3

    sid, tok = create(umpire)
    act(umpire, sid, tok["sides"]["french"], {"type": "end_phase"})
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": "1d6",
        "dice": [3, 4]}, token=tok["sides"]["french"]), 422, "hits_must_be_given", "hits")


def test_sides_and_refusals(umpire):
    sid, tok = create(umpire)
    ref, fr, br = tok["referee"], tok["sides"]["french"], tok["sides"]["british"]
    # a side acts with its own units only
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "br-redcoats", "to": [100, 170]}, token=fr), 403, "forbidden")
    # the table no longer sends the retreat variation, nor a recovery, nor a new turn
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": 1, "variation": 5,
        "dice": [4]}, token=fr), 400, "invalid_field")
    for t in ("new_turn", "recover"):
        assert umpire.post(f"/v1/sessions/{sid}/actions", {"type": t, "unit": "br-militia"},
                           token=br).status in (400, 422)
    # the general of the other side; a target of one's own side
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "attach", "unit": "fr-line", "general": "Picton"}, token=fr),
        422, "rules_violation", "general")
    # a move longer than the unit's full move, measured (6.1 in > 6 in)
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "fr-line", "to": [100, 91]}, token=fr), 422, "rules_violation",
        "to")
    assert "6.1 in" in err["message"] and "6 in" in err["message"]
    # malformed fields are 400s naming the field
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "fr-line", "to": [100]}, token=fr), 400, "invalid_field", "to")
    assert umpire.session(sid, token=ref)["version"] == 1
    # in the Fire phase: no hits and no setup table to roll them from; a target of one's own side
    act(umpire, sid, fr, {"type": "end_phase"})
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "dice": [4]}, token=fr),
        400, "invalid_field", "hits")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": 1,
        "situation": "cover", "dice": [4]}, token=fr), 422, "no_table", "hits")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guard", "target": "fr-line", "hits": 1, "dice": [4]},
        token=fr), 422, "rules_violation", "target")
    assert umpire.session(sid, token=ref)["version"] == 2


def test_the_scenarios_first_action_can_be_repeated(umpire):
    """bench/bench.py repeats the scenario's first action under load: a move of length 0 to the
    point where the 45e stands is always legal and leaves the state as it was."""
    first = dict(SCENARIO["actions"][0])
    who = first.pop("as")
    r = umpire.post("/v1/sessions", SCENARIO["session"])
    assert r.status == 201, r
    sid, tok = r.body["session"]["id"], r.body["tokens"]
    token = tok["referee"] if who == "referee" else tok["sides"][who]
    before = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]
    for _ in range(12):
        out = act(umpire, sid, token, first)
        assert out["result"]["distance"] == 0
    after = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]
    assert after == before
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", first, token=token), 200)
    assert len(ans["outcomes"]) == 1 and close(ans["outcomes"][0]["p"], 1)
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=tok["referee"]), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 12


FIRE_TABLE = [
    {"unit": "line_infantry", "range": [0, 200], "situation": "target in cover", "hits": "1d6-4"},
    {"unit": "line_infantry", "range": [0, 100], "hits": "1d6-3", "source": "house table, row 2"},
    {"unit": "line_infantry", "range": [101, 300], "hits": "1d6-5"},
    {"unit": "artillery", "hits": 1},
]
MELEE_TABLE = [{"unit": "line_infantry", "hits": "1d3"}, {"hits": "1d2-1"}]


def test_a_setup_table_rolls_the_hits(umpire):
    """Issue 23, item 3: with setup.fire_table / melee_table the umpire rolls each side's hits
    from the first matching row (unit type, range measured from base to base, situation named);
    hits sent by the side are refused before any die; the summary names the row."""
    setup = dict(copy.deepcopy(SETUP), fire_table=FIRE_TABLE, melee_table=MELEE_TABLE)
    sid, tok = create(umpire, setup=setup)
    ref, fr = tok["referee"], tok["sides"]["french"]
    act(umpire, sid, fr, {"type": "end_phase"})           # the French Fire phase
    shot = {"type": "fire", "unit": "fr-guard", "target": "br-redcoats"}  # 80 apart: 8 in
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", dict(shot, hits=3, dice=[6]),
                                   token=fr), 422, "hits_from_table", "hits")
    assert "fire_table" in err["message"]
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions",
                                   dict(shot, situation="in the open", dice=[6]), token=fr),
                       422, "no_table_row")
    assert err["details"] == {"table": "fire_table", "unit_type": "line_infantry", "range": 80,
                              "situation": "in the open"}
    # manual dice list the row's roll: 1d6-3 for hits, then the redcoats' morale die
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", shot, token=fr), 422,
                       "dice_required")
    assert err["details"]["needed"][0]["purpose"] == "hits"
    assert umpire.session(sid, token=ref)["version"] == 2
    # the odds enumerate the row's die: 1d6-3 is 0 hits on 1-3, then 1, 2, 3
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", shot, token=fr), 200)
    assert close(sum(o["p"] for o in ans["outcomes"]), 1)
    out = act(umpire, sid, fr, dict(shot, dice=[5, 6]))     # 5-3 = 2 hits: 50%, a test (6)
    assert out["result"]["hits"] == 2 and out["result"]["table_rows"] == {"hits": 1}
    assert out["summary"].startswith(
        "fr-guard fires at br-redcoats at 8 in: 2 hits (fire table row 2: line infantry, 0 in to "
        "10 in, 1d6-3, house table, row 2); "), out["summary"]
    # in cover: the first row, named by the situation
    out = act(umpire, sid, fr, {"type": "fire", "unit": "fr-line", "target": "br-redcoats",
                                "situation": "target in cover", "dice": [2]})
    assert out["result"]["hits"] == 0 and out["result"]["table_rows"] == {"hits": 0}, out
    # to the Melee phase: both sides' rows are rolled, none sent
    act(umpire, sid, fr, {"type": "end_phase"})
    out = act(umpire, sid, fr, {"type": "melee", "unit": "fr-guard", "target": "br-redcoats",
                                "dice": [3, 1]})
    assert (out["result"]["hits"], out["result"]["hits_back"]) == (3, 1), out["result"]
    assert out["result"]["table_rows"] == {"hits": 0, "hits_back": 0}
    assert out["summary"].startswith("melee fr-guard vs br-redcoats: 3 and 1 hits (melee table "
                                     "row 1: line infantry, 1d3; row 1: line infantry, 1d3); "), \
        out["summary"]
    assert expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)["ok"] is True


def test_a_setup_table_is_checked(umpire):
    for table, field in (([{"hits": "2d"}], "setup.fire_table[0].hits"),
                         ([{"unit": "dragoons", "hits": 1}], "setup.fire_table[0].unit"),
                         ([{"range": [5, 2], "hits": 1}], "setup.fire_table[0].range"),
                         ([], "setup.fire_table")):
        r = umpire.post("/v1/sessions", {"ruleset": RS, "title": "bad table", "sides": ["french", "british"],
                                         "setup": dict(copy.deepcopy(SETUP), fire_table=table)})
        assert r.status in (400, 422) and r.body["error"]["details"]["field"] == field, (table, r)
    r = umpire.post("/v1/sessions", {"ruleset": RS, "title": "bad table", "sides": ["french", "british"],
                                     "setup": dict(copy.deepcopy(SETUP),
                                                   melee_table=[{"range": [0, 5], "hits": 1}])})
    assert r.status == 400 and r.body["error"]["details"]["field"] == "setup.melee_table[0].range", r
