"""Ruleset vis-magica through the real daemon: the ruleset's description, a short game played
action by action with manual dice and checked base by base, exact odds of morale checks and
rallies, setup validation naming the field, the errors a side can meet, and the scenario's
repeatable first action.

The table and bases are those of scenarios/vis-magica-bog-and-cliffs.json: lengths in tenths of
an inch, facings in degrees clockwise from north (+y). A bog (difficult) covers (100..200,
100..200); the cliffs (impassable) are the triangle (300, 0), (400, 0), (350, 80). Every expected
number below is worked out by hand from the amendments (shared/rules-sources/
vis-magica-amendments.txt) and the module's documented house defaults (docs/rules/
vis-magica.md): 10.1 passes when 2d6 is LESS than the modified strength (double one always
passes, double six always fails); 10.2 routs a good base that fails a check after combat having
lost half or more of its strength of the start of the phase; casualties come from the flank or
rear when the attacker is more than 45 degrees off the target's facing."""

import copy
import json
from fractions import Fraction
from pathlib import Path

from umpire_client import assert_error, expect
from umpire_ref import assert_no_floats, verify_chain

from ruleset_helpers import act, claim_accepted, create_session, units

REPO = Path(__file__).resolve().parents[2]
RS = "vis-magica"
SCENARIO = json.loads((REPO / "scenarios" / "vis-magica-bog-and-cliffs.json").read_text())
SETUP = SCENARIO["session"]["setup"]
OPTIONS = SCENARIO["session"]["options"]
ACTIONS = ["morale", "rally", "move", "fire", "melee", "end_phase", "accept", "dispute"]


def create(umpire, mode="manual", setup=SETUP, options=OPTIONS, sides=("empire", "horde")):
    return create_session(umpire, RS, "Vis Magica", setup, sides, mode, options)


bases = units  # vis-magica calls its units bases


def close(x, fraction):
    return abs(x - float(fraction)) < 1e-12


def test_the_ruleset_describes_itself(umpire):
    listed = expect(umpire.get("/v1/rulesets"), 200)["rulesets"]
    vm = next(r for r in listed if r["id"] == RS)
    assert vm["actions"] == ACTIONS
    d = expect(umpire.get(f"/v1/rulesets/{RS}"), 200)
    assert d["id"] == RS and d["version"] == 4 and d["description"]
    assert [a["type"] for a in d["actions"]] == ACTIONS
    fields = {a["type"]: {f["name"]: f for f in a["fields"]} for a in d["actions"]}
    assert set(fields["morale"]) == {"unit", "cause", "modifiers", "apply"}
    assert set(fields["rally"]) == {"unit", "cause", "modifiers", "apply"}
    assert set(fields["move"]) == {"unit", "to", "path", "facing"}
    assert set(fields["fire"]) == {"unit", "target", "hits", "situation"}
    assert set(fields["melee"]) == {"unit", "target", "hits", "hits_back", "situation",
                                    "situation_back"}
    assert set(fields["end_phase"]) == set()
    # the sequence of play, as data: four phases, each naming who does what in it
    seq = d["sequence"]
    assert "house default" in seq["source"]
    assert [p["name"] for p in seq["phases"]] == ["movement", "shooting", "melee", "rally"]
    assert {"action": "fire", "who": "player"} in seq["phases"][1]["steps"]
    assert {"action": "morale", "who": "every side"} in seq["phases"][1]["steps"]
    assert fields["move"]["to"]["required"] is True
    assert fields["move"]["path"]["required"] is False
    assert fields["fire"]["target"]["required"] is True
    assert fields["morale"]["cause"]["required"] is False
    for a in d["actions"]:
        assert a["title"]
        for f in a["fields"]:
            assert f["description"] and f["type"] in ("string", "integer", "boolean", "object",
                                                      "array"), f
    assert {o["name"] for o in d["options"]} == {"measure", "resolution", "modifiers",
                                                    "trust_claims"}
    assert all(o["required"] is False for o in d["options"])
    assert any("vis-magica-amendments.txt" in s for s in d["sources"])
    assert any("house defaults" in s and "45 degrees" in s for s in d["sources"])


def end_phase(umpire, sid, token, phase, player, number):
    """Ends the phase; the turn record then says which phase of whose turn it is."""
    out = act(umpire, sid, token, {"type": "end_phase"})
    assert (out["result"]["phase"], out["result"]["player"], out["result"]["number"]) == \
        (phase, player, number), out
    turn = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]["turn"]
    assert (turn["phase"], turn["player"], turn["number"]) == (phase, player, number)
    return out


def test_a_short_game_with_manual_dice(umpire):
    """Twelve actions with the dice rolled at the table, in the house-default sequence of
    play (each side's Movement, Shooting, Melee and Rally, end_phase between), over two turns;
    the state checked base by base."""
    # the session's table of morale modifiers: the scenario's, and the lost standard
    options = dict(OPTIONS, modifiers=dict(OPTIONS["modifiers"], **{"standard lost": -3}))
    sid, tok = create(umpire, options=options)
    ref, em, ho = tok["referee"], tok["sides"]["empire"], tok["sides"]["horde"]
    turn = expect(umpire.get(f"/v1/sessions/{sid}", token=ref), 200)["state"]["turn"]
    assert turn == {"number": 1, "player": "empire", "phase": "movement",
                    "acting": ["empire", "horde"], "order": ["empire", "horde"]}

    # 1. The legion marches 5 in. into the bog: close order ending in difficult terrain is
    # disordered (addition to page 48).
    out = act(umpire, sid, em, {"type": "move", "unit": "legion", "to": [150, 110]})
    res = out["result"]
    assert (res["from"], res["to"], res["distance"], res["allowance"]) == \
        ([150, 60], [150, 110], 50, 60)
    assert res["ends_in"] == "difficult" and res["disordered"] is True
    assert out["summary"] == ("legion moves 5 in of 6 in to [150, 110] facing 0; ends in "
                              "difficult terrain: disordered (amendment to page 48)")

    end_phase(umpire, sid, em, "shooting", "empire", 1)
    # 2. The archers shoot the flying harpies at 9 in.: within short range (12 in.), counted as
    # long range (correction to page 45). One hit: 4 -> 3.
    # Without a shooting table the hit is the empire's word: a claim the horde accepts.
    out = claim_accepted(umpire, sid, em, {"type": "fire", "unit": "archers",
                                           "target": "harpies", "hits": 1}, ho)
    res = out["result"]
    assert (res["distance"], res["range"], res["flying_target"]) == (90, "long", True)
    assert (res["target_strength"], res["lost_this_phase"], res["target_morale"]) == \
        (3, 1, "good")
    assert res["flank_rear_casualties"] is False      # the harpies face the archers (180)
    assert out["summary"] == ("horde accepts empire's claim 1: "
                              "archers shoots at harpies (flying) at 9 in: long range (a flying "
                              "target: only at short range, counted as long); harpies loses 1 "
                              "(strength 3)")

    # 3. The harpies check after combat: strength 3, 3 + 3 = 6 is not less than 3: fails; 1 of
    # 4 lost is under half: shaken.
    out = act(umpire, sid, ho, {"type": "morale", "unit": "harpies", "cause": "combat",
                                "dice": [3, 3]})
    res = out["result"]
    assert (res["strength"], res["modified_strength"], res["score"], res["passed"]) == \
        (3, 3, 6, False)
    assert (res["before"], res["after"]) == ("good", "shaken")
    assert out["summary"] == ("harpies checks morale (combat): strength 3, no modifier = 3; 2d6 "
                              "3+3 = 6 >= 3: fails; good -> shaken (10.2: combat, less than half "
                              "its strength lost)")

    # The empire's Melee and Rally pass with nothing to do; the horde's player-turn begins.
    end_phase(umpire, sid, em, "melee", "empire", 1)
    end_phase(umpire, sid, em, "rally", "empire", 1)
    end_phase(umpire, sid, em, "movement", "horde", 1)

    # 4. The wolf riders (cavalry) ride 8 in. into the bog: disordered.
    out = act(umpire, sid, ho, {"type": "move", "unit": "wolves", "to": [150, 170]})
    assert out["result"]["distance"] == 80 and out["result"]["disordered"] is True
    end_phase(umpire, sid, ho, "shooting", "horde", 1)
    end_phase(umpire, sid, ho, "melee", "horde", 1)

    # 5. Melee: the wolves charge the legion and lose 3 of 6, the legion 1. Each is straight
    # ahead of the other: no flank.
    out = claim_accepted(umpire, sid, ho, {"type": "melee", "unit": "wolves",
                                           "target": "legion", "hits": 1, "hits_back": 3}, em)
    res = out["result"]
    assert (res["strength"], res["target_strength"], res["target_removed"]) == (3, 7, False)
    assert out["summary"] == ("empire accepts horde's claim 2: "
                              "wolves in melee with legion: legion loses 1 (strength 7); wolves "
                              "loses 3 (strength 3)")

    # 6. The wolves (shaken) check after combat: 2 + 2 = 4 >= 3: fail: routed.
    out = act(umpire, sid, ho, {"type": "morale", "unit": "wolves", "cause": "combat",
                                "dice": [2, 2]})
    assert (out["result"]["before"], out["result"]["after"]) == ("shaken", "routed")

    end_phase(umpire, sid, ho, "rally", "horde", 1)

    # 8. The goblins (routed, strength 5) roll to rally: 1 + 2 = 3 < 5 passes: shaken,
    # disordered, H orders, facing the nearest enemy, the legion at [150, 110]: the bearing of
    # (-100, -140) is 215.5 -> 216.
    out = act(umpire, sid, ho, {"type": "rally", "unit": "goblins", "dice": [1, 2]})
    res = out["result"]
    assert (res["action"], res["passed"], res["before"], res["after"]) == \
        ("rally", True, "routed", "shaken")
    assert out["summary"] == ("goblins rallies (not combat): strength 5, no modifier = 5; 2d6 "
                              "1+2 = 3 < 5: passes; routed -> shaken (10.2: rallies facing the "
                              "enemy, disordered, H orders)")

    # Turn 2: the empire's Movement. A side out of its turn is refused before any die (409),
    # and so is an action its phase does not allow (422).
    end_phase(umpire, sid, ho, "movement", "empire", 2)
    e = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "goblins", "to": [250, 240]}, token=ho), 409, "not_your_turn")
    assert "Movement phase of empire's turn 2" in e["message"]
    e = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "archers", "target": "goblins", "hits": 1}, token=em),
        422, "wrong_phase")
    assert e["details"]["allowed"] == ["move", "morale", "end_phase"]
    # 9. The archers could not reach them from where they stand (26.9 in. > 24 in.): the rules
    # still apply to the referee acting out of sequence ...
    e = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "archers", "target": "goblins", "hits": 1}, token=ref),
        422, "rules_violation", "target")
    assert "beyond long range" in e["message"]
    # ... so they step up 6 in. (exactly their movement) and shoot at 23 in.: long range; the
    # goblins now face 216 and the archers lie at 236 from them: 20 degrees, the front.
    out = act(umpire, sid, em, {"type": "move", "unit": "archers", "to": [60, 120]})
    assert out["result"]["distance"] == 60 and out["result"]["disordered"] is False
    end_phase(umpire, sid, em, "shooting", "empire", 2)
    out = claim_accepted(umpire, sid, em, {"type": "fire", "unit": "archers",
                                           "target": "goblins", "hits": 2}, ho)
    res = out["result"]
    assert (res["distance"], res["range"], res["target_strength"]) == (230, "long", 3)
    assert res["flank_rear_casualties"] is False

    # 10. The goblins (shaken) check: a double six always fails (10.1): routed again.
    out = act(umpire, sid, ho, {"type": "morale", "unit": "goblins", "cause": "combat",
                                "dice": [6, 6]})
    res = out["result"]
    assert (res["double_six"], res["passed"], res["after"]) == (True, False, "routed")
    assert "(double six)" in out["summary"]

    # 11. Only the player (or the referee) ends the phase; one base, the goblins, had losses
    # in it.
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {"type": "end_phase"}, token=ho),
                 409, "not_your_turn")
    out = end_phase(umpire, sid, em, "melee", "empire", 2)
    assert out["result"]["bases_reset"] == 1

    # 7. The legion forces the routed wolves into melee: removed from the field (10.2).
    out = act(umpire, sid, em, {"type": "melee", "unit": "legion", "target": "wolves",
                                "hits": 1})
    assert out["result"]["target_removed"] is True
    assert out["summary"] == ("legion forces routed wolves into melee: wolves is removed from "
                              "the field (10.2)")
    e = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "morale", "unit": "wolves", "dice": [1, 1]}, token=ho), 409, "unit_removed",
        "unit")
    assert "wolves" in e["message"]

    # 12. The legion checks for another cause: 7 - 3 standard lost + 1 uphill (both named from
    # the session's table) = 5; 2 + 3 = 5 is not less: fails: shaken. A value typed by the side is
    # refused before any die.
    e = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "morale", "unit": "legion", "modifiers": [{"name": "standard lost", "value": -3}],
        "dice": [2, 3]}, token=em), 422, "modifiers_by_name", "modifiers")
    assert "standard lost" in e["details"]["named"]
    out = act(umpire, sid, em, {"type": "morale", "unit": "legion",
                                "apply": ["standard lost", "uphill"], "dice": [2, 3]})
    res = out["result"]
    assert res["modifiers"] == [{"name": "standard lost", "value": -3},
                                {"name": "uphill", "value": 1}]
    assert (res["modified_strength"], res["passed"], res["after"]) == (5, False, "shaken")
    assert out["summary"] == ("legion checks morale (not combat): strength 7, -3 standard lost, "
                              "+1 uphill = 5; 2d6 2+3 = 5 >= 5: fails; good -> shaken (10.2: "
                              "not combat)")

    final = bases(umpire, sid, ref)
    want = {
        # id: (at, facing, strength, morale, disordered, orders)
        "legion": ([150, 110], 0, 7, "shaken", True, None),
        "archers": ([60, 120], 0, 6, "good", False, None),
        "harpies": ([60, 150], 180, 3, "shaken", False, None),
        "wolves": ([150, 170], 180, 3, "removed", True, None),
        "goblins": ([250, 250], 216, 3, "routed", True, "H"),
    }
    assert set(final) == set(want)
    for uid, (at, facing, strength, morale, disordered, orders) in want.items():
        u = final[uid]
        assert (u["at"], u["facing"], u["strength"], u["morale"], u["disordered"],
                u.get("orders")) == (at, facing, strength, morale, disordered, orders), (uid, u)
        assert u["lost_this_phase"] == 0 and u["flank_rear_casualties"] is False, (uid, u)

    events = umpire.events(sid, token=ref)[0]
    verify_chain(events)
    ends = [ev for ev in events if ev["type"] == "end_phase"]
    assert len(ends) == 10
    assert len(events) == 1 + 12 + 3 + 10  # 12 actions, 3 of them claims each accepted
    rolled = [ev for ev in events[1:] if ev["data"].get("dice")]
    assert len(rolled) == 5
    for ev in events[1:]:
        assert_no_floats(ev["data"])
        for d in ev["data"].get("dice", []):
            assert d["manual"] is True and d["notation"] == "2d6" and "nonce" not in d
            assert d["purpose"] == "morale"
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 12 + 3 + 10


def p_2d6_pass(strength):
    """10.1 by enumeration: a score less than the strength, or a double one; never a double six."""
    n = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if (a, b) == (1, 1) or ((a, b) != (6, 6) and a + b < strength):
                n += 1
    return Fraction(n, 36)


def test_morale_odds_are_exact(umpire):
    """Strength 8: P(2d6 < 8 or double one, not double six) = 21/36."""
    assert p_2d6_pass(8) == Fraction(21, 36)
    sid, tok = create(umpire)
    ref, em, ho = tok["referee"], tok["sides"]["empire"], tok["sides"]["horde"]

    def odds(body, token):
        ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", body, token=token), 200)
        assert ans["exact"] is True and ans["of"] == 36 and ans["enumerated"] == 36
        assert abs(sum(o["p"] for o in ans["outcomes"]) - 1) < 1e-9
        assert close(sum(o["p"] for o in ans["outcomes"] if o["result"]["passed"]),
                     ans["p_pass"])
        return ans

    ans = odds({"type": "morale", "unit": "legion"}, em)
    assert close(ans["p_pass"], Fraction(21, 36))
    assert set(ans["p_after"]) == {"good", "shaken"}
    assert close(ans["p_after"]["good"], Fraction(21, 36))
    assert close(ans["p_after"]["shaken"], Fraction(15, 36))
    labels = {o["summary"]: o for o in ans["outcomes"]}
    assert set(labels) == {"passes: good", "fails: shaken"}
    assert labels["passes: good"]["count"] == 21

    # modifiers (the referee's to rule): 8 + 1 (uphill, from options) - 6 = 3: only the double
    # one passes
    ans = odds({"type": "morale", "unit": "legion", "apply": ["uphill"],
                "modifiers": [{"name": "terror", "value": -6}]}, ref)
    assert close(ans["p_pass"], Fraction(1, 36))
    assert all(o["result"]["modified_strength"] == 3 for o in ans["outcomes"])
    # 8 + 12 = 20, beyond any score: only the double six fails
    ans = odds({"type": "morale", "unit": "legion",
                "modifiers": [{"name": "hero", "value": 12}]}, ref)
    assert close(ans["p_pass"], Fraction(35, 36))

    # the wolves (shaken, strength 6): pass 2d6 < 6 = 10/36 stays shaken, else routed
    ans = odds({"type": "morale", "unit": "wolves"}, ho)
    assert close(ans["p_pass"], p_2d6_pass(6)) and p_2d6_pass(6) == Fraction(10, 36)
    assert close(ans["p_after"]["shaken"], Fraction(10, 36))
    assert close(ans["p_after"]["routed"], Fraction(26, 36))
    # ... rallying: good 10/36, stays shaken 26/36
    ans = odds({"type": "rally", "unit": "wolves"}, ho)
    assert close(ans["p_after"]["good"], Fraction(10, 36))
    assert close(ans["p_after"]["shaken"], Fraction(26, 36))
    # the goblins (routed, strength 5): a rally passes on 2d6 < 5 = 6/36 (shaken), else removed
    ans = odds({"type": "rally", "unit": "goblins"}, ho)
    assert close(ans["p_after"]["shaken"], Fraction(6, 36))
    assert close(ans["p_after"]["removed"], Fraction(30, 36))
    # ... a morale check (not a rally): routed 6/36, removed 30/36
    ans = odds({"type": "morale", "unit": "goblins"}, ho)
    assert close(ans["p_after"]["routed"], Fraction(6, 36))
    assert close(ans["p_after"]["removed"], Fraction(30, 36))

    # the worked example of 10.2: the legion (8) loses 4 to fire this phase; a combat check at
    # strength 4 passes on 2d6 < 4 (3/36), else it routs
    # (the referee's ruling, out of sequence: the horde's melee in the empire's Movement)
    out = act(umpire, sid, ref, {"type": "melee", "unit": "wolves", "target": "legion",
                                 "hits": 4})
    assert out["result"]["override"] == "no melee in the Movement phase"
    assert out["summary"].startswith("Referee's ruling, out of sequence (no melee in the "
                                     "Movement phase): wolves in melee with legion")
    ans = odds({"type": "morale", "unit": "legion", "cause": "combat"}, em)
    assert close(ans["p_pass"], Fraction(3, 36))
    assert set(ans["p_after"]) == {"good", "routed"}
    assert close(ans["p_after"]["routed"], Fraction(33, 36))
    # ... and the flank flag: the wolves came from straight ahead (no modifier)
    assert all(o["result"]["modified_strength"] == 4 for o in ans["outcomes"])
    # the cause is what the state knows: left out, still combat; a ruling of another cause (odds
    # are a what-if, answered as for the referee): shaken, whatever was lost
    ans = odds({"type": "morale", "unit": "legion"}, em)
    assert set(ans["p_after"]) == {"good", "routed"}
    ans = odds({"type": "morale", "unit": "legion", "cause": "other"}, em)
    assert set(ans["p_after"]) == {"good", "shaken"}
    # a side's check that says "other" is refused before any die (the referee's would stand)
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "morale", "unit": "legion", "cause": "other", "dice": [3, 3]}, token=em), 422,
        "cause_mismatch", "cause")
    assert umpire.session(sid, token=ref)["version"] == 2      # odds write nothing

    # inline, with the setup riding along
    ans = expect(umpire.post(f"/v1/rulesets/{RS}/odds",
                             {"type": "morale", "unit": "legion", "setup": SETUP}), 200)
    assert close(ans["p_pass"], Fraction(21, 36))


def test_setup_is_validated_naming_the_field(umpire):
    def unit(i, **kw):
        return lambda s: s["units"][i].update(kw)

    def area(i, **kw):
        return lambda s: s["terrain"][i].update(kw)

    cases = [
        # (what, mutation, options, status, code, field, words in the message)
        ("two corners", area(0, polygon=[[0, 0], [10, 10]]), None, 422, "invalid_setup",
         "setup.terrain[0].polygon", ["bog", "corners"]),
        ("a bow tie", area(0, polygon=[[0, 0], [100, 100], [100, 0], [0, 100]]), None, 422,
         "invalid_setup", "setup.terrain[0].polygon", ["bog", "crosses"]),
        ("a corner that is not a point", area(1, polygon=[[300, 0], [400, 0], [350]]), None,
         400, "invalid_field", "setup.terrain[1].polygon[2]", []),
        ("unknown terrain type", area(1, type="swamp"), None, 422, "invalid_setup",
         "setup.terrain[1].type", ["swamp"]),
        ("area id twice", area(1, id="bog"), None, 422, "invalid_setup", "setup.terrain[1].id",
         ["bog"]),
        ("unknown base type", unit(0, type="phalanx"), None, 400, "invalid_field",
         "setup.units[0].type", []),
        ("facing out of range", unit(1, facing=360), None, 400, "invalid_field",
         "setup.units[1].facing", []),
        ("strength as a string", unit(2, strength="4"), None, 400, "invalid_field",
         "setup.units[2].strength", []),
        ("long range below short", unit(1, range={"short": 120, "long": 100}), None, 400,
         "invalid_field", "setup.units[1].range", []),
        ("removed at the start", unit(3, morale="removed"), None, 400, "invalid_field",
         "setup.units[3]", []),
        ("off the table", unit(4, at=[2000000, 0]), None, 400, "invalid_field",
         "setup.units[4].at", []),
        ("a modifier out of range", None, {"modifiers": {"terror": -30}}, 400, "invalid_field",
         "options.modifiers.terror", []),
        ("an unknown measure", None, {"measure": "furlong"}, 400, "invalid_field",
         "options.measure", []),
    ]
    for what, mutate, options, status, code, field, words in cases:
        setup = copy.deepcopy(SETUP)
        if mutate:
            mutate(setup)
        body = {"ruleset": RS, "sides": ["empire", "horde"], "dice": {"mode": "manual"},
                "setup": setup}
        if options:
            body["options"] = options
        err = assert_error(umpire.post("/v1/sessions", body), status, code, field)
        for w in words:
            assert w in err["message"], (what, err)


def test_sides_and_rule_errors(umpire):
    sid, tok = create(umpire)
    ref, em, ho = tok["referee"], tok["sides"]["empire"], tok["sides"]["horde"]

    def post(body, token):
        return umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)

    # a side acts with its own bases only
    err = assert_error(post({"type": "move", "unit": "wolves", "to": [150, 240]}, em),
                       403, "forbidden")
    assert "wolves" in err["message"]
    # a move longer than the base's movement, measured: [186, 108] is 6 in. exactly, [186, 109]
    # is 6.08 in.
    e = assert_error(post({"type": "move", "unit": "legion", "to": [186, 109]}, em),
                     422, "rules_violation", "to")
    assert "6.1 in" in e["message"] and "6 in" in e["message"]
    e = assert_error(post({"type": "move", "unit": "legion", "path": [[150, 90]],
                           "to": [180, 91]}, em), 422, "rules_violation", "to")
    # the archers fall back 6 in. to [60, 0], 15 in. from the flying harpies
    act(umpire, sid, em, {"type": "move", "unit": "archers", "to": [60, 0]})
    # malformed fields are 400s naming them
    assert_error(post({"type": "morale", "unit": "legion", "cause": "fear"}, em),
                 400, "invalid_field", "cause")
    assert_error(post({"type": "move", "unit": "legion", "to": [150, "x"]}, em),
                 400, "invalid_field", "to")
    assert_error(post({"type": "morale", "unit": "legion", "apply": ["fog"], "dice": [1, 2]},
                      em), 422, "rules_violation", "apply[0]")
    assert umpire.session(sid, token=ref)["version"] == 2
    # exactly 6 in. away after 6 in. of movement: allowed
    out = act(umpire, sid, em, {"type": "move", "unit": "legion", "to": [186, 108]})
    assert out["result"]["distance"] == 60
    # out of sequence: a rally in the Movement phase, the horde's move in the empire's turn
    assert_error(post({"type": "rally", "unit": "legion", "dice": [1, 2]}, em),
                 422, "wrong_phase")
    e = assert_error(post({"type": "move", "unit": "wolves", "to": [150, 240]}, ho),
                     409, "not_your_turn")
    assert e["details"]["player"] == "empire" and e["details"]["phase"] == "movement"
    end_phase(umpire, sid, em, "shooting", "empire", 1)
    # the flying harpies beyond short range (12 in.), though within long range (24 in.)
    e = assert_error(post({"type": "fire", "unit": "archers", "target": "harpies"}, em),
                     422, "rules_violation", "target")
    assert "page 45" in e["message"] and "15 in" in e["message"]
    end_phase(umpire, sid, em, "melee", "empire", 1)
    end_phase(umpire, sid, em, "rally", "empire", 1)
    # a good base does not rally
    assert_error(post({"type": "rally", "unit": "legion", "dice": [1, 2]}, em),
                 422, "rules_violation", "unit")
    end_phase(umpire, sid, em, "movement", "horde", 1)
    end_phase(umpire, sid, ho, "shooting", "horde", 1)
    end_phase(umpire, sid, ho, "melee", "horde", 1)
    # a routed base does not charge
    assert_error(post({"type": "melee", "unit": "goblins", "target": "legion"}, ho),
                 422, "rules_violation", "unit")
    end_phase(umpire, sid, ho, "rally", "horde", 1)
    end_phase(umpire, sid, ho, "movement", "empire", 2)
    # the harpies exactly at short range after the archers step up 3 in.: counted as long
    act(umpire, sid, em, {"type": "move", "unit": "archers", "to": [60, 30]})
    end_phase(umpire, sid, em, "shooting", "empire", 2)
    out = act(umpire, sid, em, {"type": "fire", "unit": "archers", "target": "harpies"})
    assert (out["result"]["distance"], out["result"]["range"]) == (120, "long")


def test_the_scenarios_first_action_can_be_repeated(umpire):
    """bench/bench.py repeats the scenario's first action under load: a move of the legion to
    the point where it stands (length 0) rolls nothing and leaves the state as it was."""
    first = dict(SCENARIO["actions"][0])
    who = first.pop("as")
    r = umpire.post("/v1/sessions", SCENARIO["session"])
    assert r.status == 201, r
    sid, tok = r.body["session"]["id"], r.body["tokens"]
    token = tok["referee"] if who == "referee" else tok["sides"][who]
    before = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]
    for _ in range(12):
        out = act(umpire, sid, token, first)
        assert out["result"]["distance"] == 0 and out["result"]["ends_in"] == "open"
        assert out["summary"] == "legion moves 0 in of 6 in to [150, 60] facing 0"
    after = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]
    assert after == before
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", first, token=token), 200)
    assert len(ans["outcomes"]) == 1 and close(ans["outcomes"][0]["p"], 1)
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=tok["referee"]), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 12


def test_a_setup_table_rolls_the_hits(umpire):
    """Issue 23, item 3: with setup.fire_table / melee_table the umpire rolls each base's hits
    from the first row for its type, the range it measured and the situation named; hits sent
    are refused before any die; the summary names the row."""
    setup = dict(copy.deepcopy(SETUP),
                 fire_table=[{"unit": "open_order", "range": [0, 120], "hits": "1d3",
                              "source": "our club's table"},
                             {"unit": "open_order", "hits": "1d2-1"}],
                 melee_table=[{"unit": "cavalry", "situation": "charging", "hits": "1d3+1"},
                              {"hits": "1d2"}])
    sid, tok = create(umpire, setup=setup)
    ref, em, ho = tok["referee"], tok["sides"]["empire"], tok["sides"]["horde"]
    end_phase(umpire, sid, em, "shooting", "empire", 1)
    shot = {"type": "fire", "unit": "archers", "target": "harpies"}   # 9 in, flying
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", dict(shot, hits=2, dice=[3]),
                             token=em), 422, "hits_from_table", "hits")
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", dict(shot, situation="volley"),
                                   token=em), 422, "no_table_row")
    assert err["details"]["unit_type"] == "open_order"
    out = act(umpire, sid, em, dict(shot, dice=[2]))
    assert out["result"]["hits"] == 2 and out["result"]["table_rows"] == {"hits": 0}
    assert out["summary"] == ("archers shoots at harpies (flying) at 9 in: long range (a flying "
                              "target: only at short range, counted as long); 2 hits (shooting "
                              "table row 1: open order, 0 in to 12 in, 1d3, our club's table); "
                              "harpies loses 2 (strength 2)"), out["summary"]
    events = umpire.events(sid, token=ref)[0]
    assert events[-1]["data"]["dice"][0]["purpose"] == "hits"
    # to the horde's Melee phase (the referee ends the phases between): the wolves charge the
    # legion (the cavalry row for the charge; the row for any base for the legion's hits back)
    t = expect(umpire.get(f"/v1/sessions/{sid}", token=ref), 200)["state"]["turn"]
    while (t["player"], t["phase"]) != ("horde", "melee"):
        act(umpire, sid, ref, {"type": "end_phase"})
        t = expect(umpire.get(f"/v1/sessions/{sid}", token=ref), 200)["state"]["turn"]
    out = act(umpire, sid, ho, {"type": "melee", "unit": "wolves", "target": "legion",
                                "situation": "charging", "dice": [3, 1]})
    assert (out["result"]["hits"], out["result"]["hits_back"]) == (4, 1), out["result"]
    assert out["result"]["table_rows"] == {"hits": 0, "hits_back": 1}
    assert "(melee table row 1: cavalry, charging, 1d3+1; row 2: close order, 1d2)" in \
        out["summary"], out["summary"]
    assert expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)["ok"] is True
