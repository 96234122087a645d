"""Ruleset vaevictis-corbach-1760 through the real daemon: the ruleset's description, a skirmish
near Corbach played action by action with manual dice and checked unit by unit, setup validation,
exact odds of a fire and an assault, and the errors a side can meet (403, 409, 422 path[i]).

The map and units are those of scenarios/vaevictis-corbach-1760-skirmish.json (even columns sit
half a hex lower: from 1204 the neighbours are n 1203, ne 1304, se 1305, s 1205, sw 1105, nw
1104). Every expected number below is worked out by hand from the charts
(shared/rules-sources/vaevictis-142-corbach-1760-charts.txt, read as shared/rules-notes.md says)
and the module's documented house defaults (docs/rules/vaevictis-corbach-1760.md): a morale
test rolls 1d6 + its modifier and passes at most the unit's morale, a failure costs one grade
(good / march column -> disorganized -> routed -> a step); front hexes are the three ahead; a
unit entering an enemy zone of control stops; a change of facing costs 1, nothing on a road."""

import copy
import json
from fractions import Fraction
from pathlib import Path

from umpire_client import assert_error, expect
from umpire_ref import assert_no_floats, verify_chain

from ruleset_helpers import act, create_session, units

REPO = Path(__file__).resolve().parents[2]
RS = "vaevictis-corbach-1760"
SKIRMISH = json.loads((REPO / "scenarios" / "vaevictis-corbach-1760-skirmish.json").read_text())
SETUP = SKIRMISH["session"]["setup"]
ACTIONS = ["move", "fire", "melee", "retreat", "morale", "rally", "end_phase"]
END = {"type": "end_phase"}


def create(umpire, mode="manual", setup=SETUP, options=None, sides=("french", "allies")):
    return create_session(umpire, RS, "Corbach 1760", setup, sides, mode, options)


def pending(umpire, sid, token):
    return expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]["pending"]


def turn_of(umpire, sid, token):
    return expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]["turn"]


def to_phase(umpire, sid, ref, phase, player="french"):
    """The referee ends phases until `phase` of `player`'s part of the turn (the chart's
    sequence of play: marching, rally, then each side's activations, commander, combat; end of
    turn)."""
    ended = 0
    for _ in range(40):
        t = turn_of(umpire, sid, ref)
        if t["phase"] == phase and (player is None or t["player"] == player):
            return ended
        act(umpire, sid, ref, END)
        ended += 1
    raise AssertionError(f"never reached {phase} of {player}")


def terms(result):
    return [(t["name"], t["value"]) for t in result["modifiers"]]


def close(x, fraction):
    return abs(x - float(fraction)) < 1e-12


def test_the_ruleset_describes_itself(umpire):
    listed = expect(umpire.get("/v1/rulesets"), 200)["rulesets"]
    vc = next(r for r in listed if r["id"] == RS)
    assert vc["actions"] == ACTIONS
    d = expect(umpire.get(f"/v1/rulesets/{RS}"), 200)
    assert d["id"] == RS and d["version"] == 3 and d["description"]
    assert [a["type"] for a in d["actions"]] == ACTIONS
    fields = {a["type"]: {f["name"]: f for f in a["fields"]} for a in d["actions"]}
    assert set(fields["move"]) == {"unit", "path"}
    assert set(fields["fire"]) == {"unit", "target"}
    assert set(fields["melee"]) == {"unit", "attackers", "defender", "changed_order"}
    assert set(fields["retreat"]) == {"unit", "path"}
    assert set(fields["morale"]) == {"unit", "modifier", "reason"}
    assert set(fields["rally"]) == {"unit"}
    assert fields["melee"]["defender"]["required"] is True
    assert fields["melee"]["attackers"]["required"] is False
    for a in d["actions"]:
        for f in a["fields"]:
            assert f["description"] and f["type"] in ("string", "integer", "boolean", "object",
                                                      "array"), f
    # every option is a house default the charts do not give, and says so
    options = {o["name"]: o for o in d["options"]}
    assert set(options) == {"morale_dice", "stacking_limit", "facing_change_cost", "max_range"}
    for o in options.values():
        assert "house default" in o["description"], o
        assert o["required"] is False
    assert "house default 1" in options["morale_dice"]["description"]
    assert "house default 2" in options["stacking_limit"]["description"]
    assert "[5, 6, 7, 8]" in options["max_range"]["description"]
    assert any("vaevictis-142-corbach-1760-charts.txt" in s for s in d["sources"])
    assert any("rules-notes" in s for s in d["sources"])
    assert any("house defaults" in s for s in d["sources"])


def test_skirmish_at_corbach_with_manual_dice(umpire):
    """Twelve actions with the dice rolled at the table; the state checked unit by unit."""
    sid, tok = create(umpire)
    ref, fr, al = tok["referee"], tok["sides"]["french"], tok["sides"]["allies"]
    ended = 0  # the referee's end_phase actions, played between the twelve

    # 1. The 12-pounders (1307) shell the Hanoverians in the village (1204, level 1), range 3.
    # Artillery Table: village -1 (TET Fire), target one level up -1 (TET Climbing one level,
    # Fire -1), 12-pounder +1 = -1; fired at from straight ahead (no flank). 6 - 1 = 5: TM+2.
    # The test: 2 + 2 = 4 > morale 3: good order -> disorganized.
    ended += to_phase(umpire, sid, ref, "activations")  # C1: the French fire (1b) and move
    out = act(umpire, sid, fr, {"type": "fire", "unit": "fr-guns", "target": "al-hanover",
                                "dice": [6, 2]})
    res = out["result"]
    assert res["range"] == 3
    assert terms(res) == [("village", -1), ("target one level up", -1), ("12-pounder", 1)]
    assert (res["roll"], res["modifier"], res["adjusted"], res["row"]) == (6, -1, 5, 5)
    tr = res["target_result"]
    assert tr["result"] == "TM+2" and tr["steps_lost"] == 0 and tr["retreat"] == 0
    [t] = tr["tests"]
    assert (t["unit"], t["modifier"], t["roll"], t["passed"], t["before"], t["after"]) == \
        ("al-hanover", 2, 2, False, "good", "disorganized")
    assert "-1 village, -1 target one level up, +1 12-pounder" in out["summary"]
    # fire is not combat: the CRT's * will not count this disorganisation (vc.h, vc_apply_result)
    assert "disorganized_by_combat" not in units(umpire, sid, ref)["al-hanover"]

    # 2. Navarre crosses the stream by the road bridge (1206 -> 1205): the road costs 1 and
    # cancels the stream's +1 (TET footnote 2); 1205 is a front hex of al-hanover: it stops.
    res = act(umpire, sid, fr, {"type": "move", "unit": "fr-line", "path": ["1205"]})["result"]
    assert (res["from"], res["to"], res["facing"], res["cost"], res["allowance"]) == \
        ("1206", "1205", "n", 1, 4)
    assert res["steps"][0]["terms"] == [{"name": "road", "value": 1}]
    assert res["stopped_by_zoc"] is True and res["state"] == "good"

    # 3. Navarre, with Broglie, storms the village. CRT: 4 vs 3 is 1:1 (rounded for the
    # defender) +0, morale 4 vs 3 +1, defender disorganized +1, village -1, climbing one level
    # (0 -> 1) -1, commander +1, defender's formation (erbprinz) demoralized +1 = +2.
    # 5 + 2 = 7: attacker -, defender 1-TM+2-R1: a step (3 -> 2), TM+2: 1 + 2 = 3 <= 3 passes,
    # and a retreat of one hex left to the Allies.
    ended += to_phase(umpire, sid, ref, "combat")  # C1.5
    out = act(umpire, sid, fr, {"type": "melee", "unit": "fr-line", "defender": "1204",
                                "dice": [5, 1]})
    res = out["result"]
    assert terms(res) == [("ratio 1:1", 0), ("morale 4 vs 3", 1), ("defender disorganized", 1),
                          ("village", -1), ("climbing one level", -1),
                          ("commander Broglie", 1), ("defender's formation demoralized", 1)]
    assert (res["attack_strength"], res["defence_strength"], res["ratio"]) == (4, 3, "1:1")
    assert (res["roll"], res["modifier"], res["adjusted"], res["row"]) == (5, 2, 7, 7)
    assert res["attacker_result"]["result"] == "-" and res["attacker_result"]["tests"] == []
    dr = res["defender_result"]
    assert (dr["result"], dr["steps_lost"], dr["retreat"]) == ("1-TM+2-R1", 1, 1)
    assert [(t["roll"], t["modifier"], t["passed"], t["after"]) for t in dr["tests"]] == \
        [(1, 2, True, "disorganized")]
    assert dr["units"] == [{"unit": "al-hanover", "state": "disorganized", "strength": 2}]
    assert pending(umpire, sid, ref) == [{"kind": "retreat", "unit": "al-hanover",
                                          "side": "allies", "hexes": 1, "away_from": ["1205"]}]

    # Meanwhile every other action waits for the retreat (409 naming it) and writes nothing.
    version = umpire.session(sid, token=ref)["version"]
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "melee", "unit": "fr-cuirassiers", "defender": "1504", "dice": [5]}, token=fr),
        409, "retreat_pending")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", END, token=fr), 409,
                 "retreat_pending")
    assert err["details"]["pending"][0]["unit"] == "al-hanover"
    assert "al-hanover" in err["message"]
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "morale", "unit": "al-brunswick", "dice": [1]}, token=al), 409, "retreat_pending")
    # the retreat is the Allies' decision, along a legal path
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "retreat", "unit": "al-hanover", "path": ["1203"]}, token=fr), 403, "forbidden")
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "retreat", "unit": "al-hanover", "path": ["1305"]}, token=al),
        422, "rules_violation", "path[0]")
    assert "zone of control" in err["message"]          # 1305: fr-line's front hex
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "retreat", "unit": "al-hanover", "path": ["1203", "1202"]}, token=al),
        422, "rules_violation", "path")
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "retreat", "unit": "al-hanover", "path": []}, token=al),
        422, "rules_violation", "path")                 # a path exists, so it must take it
    assert umpire.session(sid, token=ref)["version"] == version

    # 4. The Hanoverians fall back up the road to 1203 (farther from 1205).
    res = act(umpire, sid, al, {"type": "retreat", "unit": "al-hanover",
                                "path": ["1203"]})["result"]
    assert (res["from"], res["to"], res["hexes"], res["eliminated"]) == ("1204", "1203", 1, False)
    assert pending(umpire, sid, ref) == []

    ended += to_phase(umpire, sid, ref, "activations")  # the next turn's C1
    # 5. The cuirassiers close on the hussars: 1506, 1505 (clear, 1 each), in the hussars' ZoC.
    res = act(umpire, sid, fr, {"type": "move", "unit": "fr-cuirassiers",
                                "path": ["1506", "1505"]})["result"]
    assert (res["to"], res["cost"], res["allowance"], res["stopped_by_zoc"]) == \
        ("1505", 2, 6, True)

    # 6. ... and charge. 3 vs 2 is 3:2 +1, morale 4 vs 3 +1, heavy cavalry with its bonus
    # against cavalry +1, every defender light in clear +1 = +4. 5 + 4 = 9: defender 2D-R2*:
    # two steps, the hussars' last: eliminated (no retreat left pending); attacker -.
    ended += to_phase(umpire, sid, ref, "combat")
    res = act(umpire, sid, fr, {"type": "melee", "unit": "fr-cuirassiers", "defender": "1504",
                                "dice": [5]})["result"]
    assert terms(res) == [("ratio 3:2", 1), ("morale 4 vs 3", 1),
                          ("heavy cavalry bonus vs cavalry", 1),
                          ("all defenders light in clear", 1)]
    assert (res["roll"], res["modifier"], res["adjusted"], res["row"]) == (5, 4, 9, 9)
    assert res["attacker_result"]["result"] == "-"
    dr = res["defender_result"]
    assert (dr["result"], dr["steps_lost"]) == ("2D-R2*", 2)
    assert dr["units"] == [{"unit": "al-hussars", "state": "eliminated", "strength": 0}]
    assert pending(umpire, sid, ref) == []
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "morale", "unit": "al-hussars", "dice": [1]}, token=al), 409, "unit_eliminated")

    ended += to_phase(umpire, sid, ref, "activations")
    # 7. The chasseurs wade the stream (1105: clear 1 + stream 1) and climb the heights (1104,
    # level 2 from level 0: clear 1 + climbing two levels 1, and a test for disorganisation:
    # 3 <= morale 3 passes): 4 of 5 MP; 1104 is a front hex of al-hanover at 1203: stop.
    res = act(umpire, sid, fr, {"type": "move", "unit": "fr-chasseurs", "path": ["1105", "1104"],
                                "dice": [3]})["result"]
    assert [(s["hex"], s["cost"], [(t["name"], t["value"]) for t in s["terms"]])
            for s in res["steps"]] == [("1105", 2, [("clear", 1), ("stream", 1)]),
                                      ("1104", 2, [("clear", 1), ("climbing two levels", 1)])]
    assert (res["cost"], res["allowance"], res["stopped_by_zoc"], res["state"]) == \
        (4, 5, True, "good")
    assert [(t["roll"], t["passed"]) for t in res["tests"]] == [(3, True)]

    ended += to_phase(umpire, sid, ref, "combat")
    # 8. The chasseurs charge down on 1203: 2 vs 2 1:1 +0, morale 3 vs 3 (no term), defender
    # disorganized +1, going down +1, every attacker light -1, defender's formation demoralized
    # +1 = +2. 1 + 2 = 3: attacker TM, defender TM. The defender's result first: 6 > 3, the
    # disorganized Hanoverians rout; then the chasseurs: 2 <= 3, they hold.
    res = act(umpire, sid, fr, {"type": "melee", "unit": "fr-chasseurs", "defender": "1203",
                                "dice": [1, 6, 2]})["result"]
    assert terms(res) == [("ratio 1:1", 0), ("defender disorganized", 1), ("going down", 1),
                          ("all attackers light", -1), ("defender's formation demoralized", 1)]
    assert (res["roll"], res["adjusted"], res["row"]) == (1, 3, 3)
    dr, ar = res["defender_result"], res["attacker_result"]
    assert (dr["result"], ar["result"]) == ("TM", "TM")
    assert [(t["roll"], t["passed"], t["before"], t["after"]) for t in dr["tests"]] == \
        [(6, False, "disorganized", "routed")]
    assert [(t["roll"], t["passed"], t["after"]) for t in ar["tests"]] == [(2, True, "good")]

    # 9. The Brunswick column wavers: TM+1, 4 + 1 = 5 > 3: march column -> disorganized.
    out = act(umpire, sid, al, {"type": "morale", "unit": "al-brunswick", "modifier": 1,
                                "reason": "the village is lost", "dice": [4]})
    t = out["result"]["test"]
    assert (t["roll"], t["modifier"], t["passed"], t["before"], t["after"]) == \
        (4, 1, False, "march_column", "disorganized")
    assert "house default" in out["result"]["procedure"]

    ended += to_phase(umpire, sid, ref, "rally")  # B. the next turn's rally
    # 10. ... and reorganises: no enemy ZoC reaches 1302, so no test (12.2, house default).
    res = act(umpire, sid, al, {"type": "rally", "unit": "al-brunswick"})["result"]
    assert (res["before"], res["after"], res["test"]) == ("disorganized", "good", None)
    assert "12.2" in res["rule"]

    # 11. The routed Hanoverians rally (12.5): 3 <= 3 passes: routed -> disorganized.
    res = act(umpire, sid, al, {"type": "rally", "unit": "al-hanover", "dice": [3]})["result"]
    assert (res["before"], res["after"]) == ("routed", "disorganized")
    assert (res["test"]["roll"], res["test"]["passed"]) == (3, True)
    assert "12.5" in res["rule"]

    # A rally of a unit in good order is refused (and writes nothing).
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "rally", "unit": "al-brunswick"}, token=al), 422, "rules_violation", "unit")

    ended += to_phase(umpire, sid, ref, "activations")
    # 12. Navarre takes the village by the road (1, the village's 2 cancelled) and turns to face
    # the heights on the road, free (footnote 2: "including facing change"). No enemy ZoC
    # reaches into a village (TET: Block the ZoC), so it does not stop.
    res = act(umpire, sid, fr, {"type": "move", "unit": "fr-line",
                                "path": ["1204", {"face": "nw"}]})["result"]
    assert (res["to"], res["facing"], res["cost"], res["stopped_by_zoc"]) == \
        ("1204", "nw", 1, False)
    assert res["steps"][1] == {"face": "nw", "cost": 0}

    # The final state, unit by unit: (hex, facing, strength, state).
    final = units(umpire, sid, ref)
    want = {
        "fr-line": ("1204", "nw", 4, "good"),
        "fr-chasseurs": ("1104", "n", 2, "good"),
        "fr-cuirassiers": ("1505", "n", 3, "good"),
        "fr-guns": ("1307", "n", 1, "good"),
        "al-hanover": ("1203", "s", 2, "disorganized"),
        "al-hussars": ("1504", "s", 0, "eliminated"),
        "al-brunswick": ("1302", "s", 3, "good"),
        "al-jaegers": ("1003", "se", 2, "disorganized"),
    }
    assert set(final) == set(want)
    for uid, (hx, facing, strength, st) in want.items():
        u = final[uid]
        assert (u["hex"], u["facing"], u["strength"], u["state"]) == (hx, facing, strength, st), \
            (uid, u)
    # a failed `morale` action disorganizes, but not "by combat" (the CRT's * does not see it)
    assert "disorganized_by_combat" not in final["al-brunswick"]
    assert pending(umpire, sid, ref) == []

    events = umpire.events(sid, token=ref)[0]
    verify_chain(events)
    assert len(events) == 13 + ended
    for ev in events[1:]:
        assert_no_floats(ev["data"])
        for d in ev["data"]["dice"]:
            assert d["manual"] is True and d["notation"] == "1d6" and "nonce" not in d
    played = [ev for ev in events[1:] if ev["type"] != "end_phase"]
    ends = [ev for ev in events[1:] if ev not in played]
    assert len(ends) == ended and all(ev["data"]["dice"] == [] for ev in ends)
    assert [d["purpose"] for d in played[0]["data"]["dice"]] == ["artillery", "morale"]
    assert [d["purpose"] for d in played[2]["data"]["dice"]] == ["combat", "morale"]
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 12 + ended


def test_setup_is_validated_naming_the_unit_or_field(umpire):
    def extra(uid, hx, facing="n", side="french"):
        return {"id": uid, "side": side, "type": "line_infantry", "hex": hx, "facing": facing,
                "strength": 2, "morale": 3}

    def unit(i, **kw):
        return lambda s: s["units"][i].update(kw)

    cases = [
        # (what, mutation, options, status, code, field, words in the message)
        ("off the map", unit(0, hex="1709"), None, 422, "invalid_setup",
         "setup.units[0].hex", ["fr-line", "1709"]),
        ("not a hex", unit(0, hex="12x4"), None, 400, "invalid_field", "setup.units[0].hex", []),
        ("two facings in one stack", lambda s: s["units"].append(extra("fr-extra", "1206", "ne")),
         None, 422, "invalid_setup", "setup.units[8]", ["fr-extra", "facing"]),
        ("two sides in one hex", unit(4, hex="1206", facing="n"), None, 422, "invalid_setup",
         "setup.units[4]", ["al-hanover", "enemy"]),
        ("three in a stack", lambda s: s["units"].extend([extra("fr-a", "1206"),
                                                          extra("fr-b", "1206")]),
         None, 422, "invalid_setup", "setup.units[9]", ["fr-b"]),
        ("two over options.stacking_limit 1", lambda s: s["units"].append(extra("fr-a", "1206")),
         {"stacking_limit": 1}, 422, "invalid_setup", "setup.units[8]", ["fr-a"]),
        ("heavy cavalry in woods", unit(2, hex="1406"), None, 422, "invalid_setup",
         "setup.units[2]", ["fr-cuirassiers", "woods"]),
        ("unknown terrain", lambda s: s["map"]["hexes"].update({"1305": {"terrain": "swamp"}}),
         None, 422, "invalid_setup", "setup.map.hexes.1305.terrain", []),
        ("unknown hexside feature",
         lambda s: s["map"]["hexsides"].append({"hexes": ["1305", "1405"], "features": ["river"]}),
         None, 422, "invalid_setup", "setup.map.hexsides[13].features[0]", []),
        ("hexside of two hexes apart",
         lambda s: s["map"]["hexsides"].append({"hexes": ["1305", "1505"], "features": ["road"]}),
         None, 422, "invalid_setup", "setup.map.hexsides[13].hexes", []),
        ("strength as a string", unit(0, strength="4"), None, 400, "invalid_field",
         "setup.units[0].strength", []),
        ("unknown facing", unit(0, facing="e"), None, 400, "invalid_field",
         "setup.units[0].facing", []),
        ("unknown formation", unit(0, formation="soubise"), None, 422, "invalid_setup",
         "setup.units[0].formation", ["fr-line", "soubise"]),
        ("calibre on infantry", unit(0, calibre=12), None, 400, "invalid_field",
         "setup.units[0].calibre", []),
    ]
    for what, mutate, options, status, code, field, words in cases:
        setup = copy.deepcopy(SETUP)
        mutate(setup)
        body = {"ruleset": RS, "sides": ["french", "allies"], "dice": {"mode": "manual"},
                "setup": setup}
        if options:
            body["options"] = options
        err = assert_error(umpire.post("/v1/sessions", body), status, code, field)
        for w in words:
            assert w in err["message"], (what, err)
    # light cavalry may stand in woods (TET footnote 1)
    setup = copy.deepcopy(SETUP)
    setup["units"][5]["hex"] = "1405"
    expect(umpire.post("/v1/sessions", {"ruleset": RS, "sides": ["french", "allies"],
                                        "setup": setup}), 201)


def test_fire_odds_are_exact_and_name_every_modifier(umpire):
    """The opening shot asked before it is fired: -1 (village -1, one level up -1, 12-pounder +1)
    on 1d6 gives rows 0-5: '-' on rolls 1-2, TM on 3-4, TM+1 on 5, TM+2 on 6. Al-hanover (morale
    3) then fails TM on 4-6 (1/2), TM+1 on 3-6 (2/3), TM+2 on 2-6 (5/6): disorganized with
    2/6 * 1/2 + 1/6 * 2/3 + 1/6 * 5/6 = 15/36."""
    sid, tok = create(umpire)
    ref = tok["referee"]
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds",
                             {"type": "fire", "unit": "fr-guns", "target": "al-hanover"},
                             token=tok["sides"]["french"]), 200)
    assert terms(ans) == [("village", -1), ("target one level up", -1), ("12-pounder", 1)]
    assert ans["modifier"] == -1
    assert abs(sum(o["p"] for o in ans["outcomes"]) - 1) < 1e-9
    want = {"-": Fraction(2, 6), "TM": Fraction(2, 6), "TM+1": Fraction(1, 6),
            "TM+2": Fraction(1, 6)}
    assert set(ans["p_results"]) == set(want)
    for code, p in want.items():
        assert close(ans["p_results"][code], p), (code, ans["p_results"])
    assert ans["p_target_eliminated"] == 0 and ans["p_target_retreats"] == 0
    disorganized = sum(o["p"] for o in ans["outcomes"]
                       if o["result"]["units"][0]["state"] == "disorganized")
    assert close(disorganized, Fraction(15, 36))
    top = next(o for o in ans["outcomes"] if o["result"]["row"] == 5
               and o["result"]["units"][0]["state"] == "disorganized")
    assert close(top["p"], Fraction(1, 6) * Fraction(5, 6))
    for o in ans["outcomes"]:
        assert o["summary"].startswith(
            "-1 village, -1 target one level up, +1 12-pounder = -1; row "), o
    assert umpire.session(sid, token=ref)["version"] == 1     # odds write nothing


def test_melee_odds_are_exact_and_name_every_modifier(umpire):
    """Navarre (4, morale 4, Broglie) against the Hanoverians in good order in the village:
    1:1 +0, morale +1, village -1, climbing one level -1, commander +1, demoralized formation +1
    = +1; rolls 1-6 give rows 2-7."""
    sid, tok = create(umpire)
    fr = tok["sides"]["french"]
    act(umpire, sid, fr, {"type": "move", "unit": "fr-line", "path": ["1205"]})
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds",
                             {"type": "melee", "unit": "fr-line", "defender": "1204"},
                             token=fr), 200)
    assert terms(ans) == [("ratio 1:1", 0), ("morale 4 vs 3", 1), ("village", -1),
                          ("climbing one level", -1), ("commander Broglie", 1),
                          ("defender's formation demoralized", 1)]
    assert ans["modifier"] == 1 and ans["ratio"] == "1:1"
    assert abs(sum(o["p"] for o in ans["outcomes"]) - 1) < 1e-9
    sixth = Fraction(1, 6)
    want_def = {"TM": 2 * sixth, "TM+1": sixth, "TM+2": sixth, "1-TM+2": sixth,
                "1-TM+2-R1": sixth}
    want_att = {"TM+1": sixth, "TM": 2 * sixth, "TM-1": 2 * sixth, "-": sixth}
    assert set(ans["p_defender_results"]) == set(want_def)
    assert set(ans["p_attacker_results"]) == set(want_att)
    for code, p in want_def.items():
        assert close(ans["p_defender_results"][code], p), code
    for code, p in want_att.items():
        assert close(ans["p_attacker_results"][code], p), code
    assert close(ans["p_defender_retreats"], sixth)
    assert ans["p_defender_eliminated"] == 0 and ans["p_attacker_retreats"] == 0

    def p_of(pred):
        return sum(o["p"] for o in ans["outcomes"] if pred(o["result"]))
    # fr-line (morale 4) fails TM+1 on 4-6, TM on 5-6, TM-1 on 6:
    # 1/6 * 3/6 + 2 * 1/6 * 2/6 + 2 * 1/6 * 1/6 = 9/36
    assert close(p_of(lambda r: r["attacker_units"][0]["state"] == "disorganized"),
                 Fraction(9, 36))
    # al-hanover loses a step on rows 6-7 and fails the TM+2 that follows on 2-6
    assert close(p_of(lambda r: r["defender_units"][0] == {
        "unit": "al-hanover", "state": "disorganized", "strength": 2}), 2 * sixth * Fraction(5, 6))
    for o in ans["outcomes"]:
        assert o["summary"].startswith(
            "+0 ratio 1:1, +1 morale 4 vs 3, -1 village, -1 climbing one level, "
            "+1 commander Broglie, +1 defender's formation demoralized = +1; row "), o


def test_morale_odds(umpire):
    """TM+1 on the Brunswick column (morale 3): passes on 1-2."""
    sid, tok = create(umpire)
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds",
                             {"type": "morale", "unit": "al-brunswick", "modifier": 1},
                             token=tok["sides"]["allies"]), 200)
    assert ans["exact"] is True and ans["of"] == 6
    assert close(ans["p_pass"], Fraction(1, 3))


def test_inline_odds_take_the_setup(umpire):
    """POST /v1/rulesets/{rs}/odds with the setup riding along answers as the session would."""
    body = {"type": "fire", "unit": "fr-guns", "target": "al-hanover", "setup": SETUP}
    ans = expect(umpire.post(f"/v1/rulesets/{RS}/odds", body), 200)
    assert ans["modifier"] == -1
    assert close(ans["p_results"]["-"], Fraction(1, 3))


def test_sides_and_illegal_paths(umpire):
    sid, tok = create(umpire)
    ref, fr, al = tok["referee"], tok["sides"]["french"], tok["sides"]["allies"]
    ended = to_phase(umpire, sid, ref, "activations")
    # a side moves its own units only
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "al-hanover", "path": ["1205"]}, token=fr), 403, "forbidden")
    assert "al-hanover" in err["message"]
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "fr-line", "path": ["1205"]}, token=al), 403, "forbidden")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "fr-guns", "target": "al-hanover", "dice": [1]}, token=al),
        403, "forbidden")

    def bad_path(unit, path, field, *words):
        e = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
            "type": "move", "unit": unit, "path": path}, token=fr), 422, "rules_violation", field)
        for w in words:
            assert w in e["message"], e
        return e

    bad_path("fr-line", ["1204"], "path[0]", "not adjacent")
    bad_path("fr-line", ["1207"], "path[0]", "front hexes")            # behind it, facing n
    bad_path("fr-line", ["1205", "1305"], "path[1]", "zone of control")  # stopped at 1205
    bad_path("fr-cuirassiers", [{"face": "nw"}, "1406"], "path[1]", "woods")  # TET: Forb
    bad_path("fr-cuirassiers", [{"face": "ne"}, "1606", "1706"], "path[2]", "not on the map")
    bad_path("fr-cuirassiers", [{"face": "n"}], "path[0]", "already faces")
    # 1306 1, a change of facing 1, 1205 across the stream 2: 4 > the battery's 3
    e = bad_path("fr-guns", ["1306", {"face": "nw"}, "1205"], "path", "costs 4", "has 3")
    assert "+1 stream" in e["message"]
    # an assault with a unit of the other side
    ended += to_phase(umpire, sid, ref, "combat")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "melee", "unit": "fr-chasseurs", "attackers": ["al-jaegers"],
        "defender": "1204", "dice": [1]}, token=fr), 403, "forbidden", "attackers[0]")
    # malformed paths are 400s naming the entry
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "fr-line", "path": ["1205", {"face": "east"}]}, token=fr),
        400, "invalid_field", "path[1].face")
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "fr-line", "path": [1205]}, token=fr),
        400, "invalid_field", "path[0]")
    assert umpire.session(sid, token=ref)["version"] == 1 + ended


def test_the_scenarios_first_action_can_be_repeated(umpire):
    """bench/bench.py repeats the scenario's first action under load: a morale test at -6
    always passes (1d6 - 6 <= 0 <= morale) and leaves the state as it was."""
    first = dict(SKIRMISH["actions"][0])
    who = first.pop("as")
    r = umpire.post("/v1/sessions", SKIRMISH["session"])
    assert r.status == 201, r
    sid, tok = r.body["session"]["id"], r.body["tokens"]
    token = tok["referee"] if who == "referee" else tok["sides"][who]
    before = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]
    for _ in range(12):
        out = act(umpire, sid, token, first)
        assert out["result"]["test"]["passed"] is True
    after = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]
    assert after == before
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", first, token=token), 200)
    assert close(ans["p_pass"], 1)


def test_fire_at_range_on_infantry_in_a_village_has_no_flank(umpire):
    """TET, Village: "The flank hexes of the infantry occupying these hexes are considered like
    frontal hexes." The module applies this to an adjacent shooter; at range 2 along the same
    bearing (a flank bearing by the house default) the battery must not get +2 either."""
    setup = {"map": {"columns": [10, 16], "rows": [1, 9],
                     "hexes": {"1204": {"terrain": "village"}}},
             "units": [{"id": "t", "side": "allies", "type": "line_infantry", "hex": "1204",
                        "facing": "s", "strength": 3, "morale": 3}]}
    for gun_hex, adjacent in (("1304", True), ("1403", False)):
        s = copy.deepcopy(setup)
        s["units"].append({"id": "g", "side": "french", "type": "artillery", "calibre": 6,
                           "hex": gun_hex, "facing": "sw", "strength": 1, "morale": 3})
        sid, tok = create(umpire, setup=s)
        ans = expect(umpire.post(f"/v1/sessions/{sid}/odds",
                                 {"type": "fire", "unit": "g", "target": "t"},
                                 token=tok["referee"]), 200)
        want = [("village", -1)] + ([("adjacent fire", 1)] if adjacent else [])
        assert terms(ans) == want, (gun_hex, terms(ans))


def test_two_turns_in_the_charts_sequence_of_play(umpire):
    """Two full turns of the chart's SEQUENCE OF PLAY with the sides' own tokens: A. marching
    movement and B. rally by both sides, each ending its own part; C1/C2 each side's activations,
    army commander's movement and combat; D. end of turn. Each side's out-of-turn action is
    refused (409 not_your_turn / 422 wrong_phase) and writes nothing; the referee's is an
    override, logged."""
    sid, tok = create(umpire)
    ref, fr, al = tok["referee"], tok["sides"]["french"], tok["sides"]["allies"]
    t = turn_of(umpire, sid, ref)
    assert (t["number"], t["player"], t["phase"], t["order"]) == \
        (1, "french", "marching", ["french", "allies"])
    assert sorted(t["acting"]) == ["allies", "french"]

    def refused(token, body, status, code):
        version = umpire.session(sid, token=ref)["version"]
        err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", body, token=token),
                           status, code)
        assert umpire.session(sid, token=ref)["version"] == version
        return err

    def end(token, phase, player, number, new_turn=False):
        out = act(umpire, sid, token, END)
        t = turn_of(umpire, sid, ref)
        assert (t["phase"], t["player"], t["number"]) == (phase, player, number), out
        assert out["result"]["new_turn"] is new_turn
        return out

    marches = [["1506"], ["1505"]]
    for n in (1, 2):
        # A. marching movement: both sides; no assault in it
        act(umpire, sid, fr, {"type": "move", "unit": "fr-cuirassiers", "path": marches[n - 1]})
        act(umpire, sid, al, {"type": "morale", "unit": "al-brunswick", "dice": [1]})
        err = refused(al, {"type": "melee", "unit": "al-hussars", "defender": "1505",
                           "dice": [1]}, 422, "wrong_phase")
        assert "melee" not in err["details"]["allowed"]
        out = end(fr, "marching", "french", n)          # the French end their part only
        assert "french has ended its part" in out["summary"], out["summary"]
        end(al, "rally", "french", n)
        # B. rally: both sides, each its own part; no movement in it
        refused(fr, {"type": "move", "unit": "fr-guns", "path": ["1306"]}, 422, "wrong_phase")
        end(al, "rally", "french", n)
        end(fr, "activations", "french", n)
        # C1: the French are active; the Allies may not end their phase
        err = refused(al, END, 409, "not_your_turn")
        assert err["details"]["player"] == "french"
        end(fr, "commander", "french", n)
        refused(al, {"type": "move", "unit": "al-hussars", "path": ["1503"]}, 409,
                "not_your_turn")
        end(fr, "combat", "french", n)
        if n == 1:
            # the referee moves Navarre in the combat phase: out of sequence, logged
            out = act(umpire, sid, ref, {"type": "move", "unit": "fr-line", "path": ["1205"]})
            assert "no move in the Combat phase" in out["result"]["override"], out["result"]
            assert out["summary"].startswith("Referee's ruling, out of sequence ("), out["summary"]
        end(fr, "activations", "allies", n)
        # C2: the Allies are active
        refused(fr, END, 409, "not_your_turn")
        end(al, "commander", "allies", n)
        refused(fr, {"type": "move", "unit": "fr-guns", "path": ["1306"]}, 409, "not_your_turn")
        end(al, "combat", "allies", n)
        refused(fr, {"type": "melee", "unit": "fr-line", "defender": "1204", "dice": [1]}, 409,
                "not_your_turn")
        end(al, "end_of_turn", "french", n)
        # D. end of turn
        end(fr, "marching", "french", n + 1, new_turn=True)
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True


def test_odds_outcomes_read_as_words_beside_the_chart_code(umpire):
    """Issue 23, item 4: an odds outcome's summary says what the chart's code means ("-", "TM",
    "1D-R1"), the code after it so that the chart can be read beside it."""
    sid, tok = create(umpire)
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", {
        "type": "fire", "unit": "fr-guns", "target": "al-hanover"}, token=tok["referee"]), 200)
    lines = [o["summary"] for o in ans["outcomes"]]
    assert any("row 0: no effect (-) (al-hanover good, strength 3)" in s for s in lines), lines
    assert any("row 2: morale test (TM)" in s for s in lines), lines
    assert any("morale test at +1 (TM+1)" in s for s in lines), lines
    for s in lines:
        assert "{" not in s and '"' not in s, s
