"""Issue 20, items 5 and 6: corrections to ruleset spi-dark-ages found by independent checks,
through the real daemon, on the map and charts of scenarios/spi-dark-ages-stamford-bridge.json
(illustrative charts). Each test fails on the module before the correction.

5. COMBAT (L) (Correction): "No unit may participate in more than one missile and one melee
   attack per Player Turn", a unit fired at being a participant as a melee defender is: a second
   missile attack on the same target in one Player-Turn is refused (422 naming the rule, before
   any die, nothing written), and GET /verify re-adjudicates the log under version 2.
6. SCENARIO CHART (Correction): "Manzikert Seljug Turks -- PV 145; PL 72": the printed spellings
   are the army ("Seljug Turks", and "Stanford Bridge" for the scenario); with a scenario named, a
   side that matches none of its armies is refused (422 naming setup.players[i].side and listing
   the armies) instead of silently never panicking.

Hex geometry (even columns half a hex lower): 1007 (even) and 1107 (odd) are adjacent (1107's
sw); 1004 is three hexes from both; nothing stands between. Clear terrain has Fire Protection 1
in these charts: bowmen (missile 3) read the 3-1 column, where a 5 is "-"."""

import copy
import json
from pathlib import Path

from umpire_client import assert_error, expect

from ruleset_helpers import act, create_session, units

REPO = Path(__file__).resolve().parents[2]
RS = "spi-dark-ages"
SCENARIO = json.loads((REPO / "scenarios" / "spi-dark-ages-stamford-bridge.json").read_text())
SETUP = SCENARIO["session"]["setup"]
SIDES = ("anglo-saxons", "norwegians")
ERRATA_SOURCE = "errata, SCENARIO CHART (Correction)"


def unit(uid, side, type_, hx, facing):
    return {"id": uid, "side": side, "type": type_, "hex": hx, "facing": facing}


def create(umpire, setup, sides=SIDES):
    return create_session(umpire, RS, "Dark Ages corrections", setup, sides)


def test_the_ruleset_is_version_3(umpire):
    # 2: the errata's corrections; 3: the shared sequence of play (state.turn.number, player, ...)
    d = expect(umpire.get(f"/v1/rulesets/{RS}"), 200)
    assert d["id"] == RS and d["version"] == 3


def test_a_unit_is_fired_at_once_a_player_turn(umpire):
    """Item 5, the issue's case: two Norwegian bowmen allocated against the same fyrd."""
    setup = copy.deepcopy(SETUP)
    setup["units"] = [
        unit("nw-harald", "norwegians", "king", "1007", "n"),
        unit("nw-bow1", "norwegians", "bowmen", "1007", "n"),
        unit("nw-bow2", "norwegians", "bowmen", "1107", "n"),
        unit("as-fyrd", "anglo-saxons", "fyrd", "1004", "s"),
    ]
    sid, tok = create(umpire, setup)
    ref, nw = tok["referee"], tok["sides"]["norwegians"]
    act(umpire, sid, ref, {"type": "end_phase"})  # the Norwegians' Movement Phase
    for bow in ("nw-bow1", "nw-bow2"):
        act(umpire, sid, nw, {"type": "allocate", "unit": bow, "target": "1004", "kind": "fire"})
    act(umpire, sid, ref, {"type": "end_phase"})  # Allocation
    act(umpire, sid, ref, {"type": "end_phase"})  # Defensive Fire
    out = act(umpire, sid, nw, {"type": "fire", "unit": "nw-bow1", "target": "1004",
                                "dice": [5]})
    assert (out["result"]["column"], out["result"]["result"]) == ("3-1", "-"), out
    version = umpire.session(sid, token=ref)["version"]

    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "fire", "unit": "nw-bow2", "target": "1004", "dice": [5]}, token=nw),
        422, "rules_violation", "target")
    assert "as-fyrd" in err["message"] and "COMBAT (L)" in err["message"], err
    # refused before any die, nothing written; the odds say the same
    assert umpire.session(sid, token=ref)["version"] == version
    assert_error(umpire.post(f"/v1/sessions/{sid}/odds", {
        "type": "fire", "unit": "nw-bow2", "target": "1004"}, token=nw),
        422, "rules_violation", "target")
    u = units(umpire, sid, ref)
    assert u["as-fyrd"].get("missile_target") is True
    assert "fired" not in u["nw-bow2"]

    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 6, rep
    events = umpire.events(sid, token=ref)[0]
    assert {e["data"]["ruleset_version"] for e in events[1:]} == {3}


def test_the_printed_seljug_turks_are_the_seljuq_turks(umpire):
    """Item 6, the issue's case: side seljug-turks at Manzikert panics at the corrected PL 72.
    The Seljug Turks (listed second) move first; in the Byzantines' Player-Turn their champion
    (Melee Attack 12, beside their king) melees the Turkish guard (Melee Defense 1, 80 VP): 12 to
    1 reads 6-1, a 1 (-1 for the king: row 1) is DE; the Turks' losses 80 reach 72 and the foot,
    near no command unit and within ten hexes of the enemy, panics."""
    setup = copy.deepcopy(SETUP)
    setup["charts"]["scenario"] = "manzikert"
    setup["charts"]["armies"] = {"byzantines": {"point_value": 150, "panic_level": 50}}
    setup["charts"]["units"]["champion"] = {
        "class": "I", "melee_attack": 12, "melee_defense": 4, "melee_defense_flank": 2,
        "movement": 4, "stacking": 1, "vp": 6}
    setup["charts"]["units"]["guard"] = {
        "class": "I", "melee_attack": 1, "melee_defense": 1, "melee_defense_flank": 1,
        "movement": 4, "stacking": 1, "vp": 80}
    setup["players"] = [{"side": "byzantines"}, {"side": "seljug-turks"}]
    setup["units"] = [unit("b-king", "byzantines", "king", "1005", "n"),
                      unit("b-champ", "byzantines", "champion", "1005", "n"),
                      unit("t-guard", "seljug-turks", "guard", "1004", "s"),
                      unit("t-foot", "seljug-turks", "fyrd", "1002", "s")]
    sid, tok = create(umpire, setup, ("byzantines", "seljug-turks"))
    ref, by = tok["referee"], tok["sides"]["byzantines"]
    st = expect(umpire.get(f"/v1/sessions/{sid}", token=ref), 200)["state"]
    assert st["charts"]["armies"]["Seljuq Turks"] == {
        "point_value": 145, "panic_level": 72, "source": ERRATA_SOURCE}
    for _ in range(6):  # the Turks' Player-Turn, then the Byzantines' Movement Phase
        act(umpire, sid, ref, {"type": "end_phase"})
    act(umpire, sid, by, {"type": "allocate", "unit": "b-champ", "target": "1004",
                          "kind": "melee"})
    for _ in range(3):
        act(umpire, sid, ref, {"type": "end_phase"})
    out = act(umpire, sid, by, {"type": "melee", "unit": "b-champ", "defender": "1004",
                                "dice": [1]})["result"]
    assert (out["column"], out["row"], out["result"]) == ("6-1", 1, "DE"), out
    assert out["eliminated"] == ["t-guard"] and out["panicked"] == ["t-foot"], out
    assert units(umpire, sid, ref)["t-foot"].get("panicked") is True

    # "Stanford Bridge", as printed, is the Stamford Bridge scenario
    setup = copy.deepcopy(SETUP)
    setup["charts"]["scenario"] = "stanford-bridge"
    sid, tok = create(umpire, setup)
    charts = expect(umpire.get(f"/v1/sessions/{sid}", token=tok["referee"]), 200)["state"]["charts"]
    assert charts["scenario"] == "stamford-bridge"
    assert charts["armies"]["Anglo-Saxons"]["panic_level"] == 34


def test_a_side_of_no_army_of_the_scenario_is_refused(umpire):
    """Item 6: a side that is none of the named scenario's armies (a spelling the errata does not
    print, or an army without values) is refused at creation, not left never to panic."""
    cases = [
        # (what, scenario, armies, sides, the refused field, the armies listed)
        ("an unprinted spelling", "manzikert",
         {"byzantines": {"point_value": 150, "panic_level": 50}}, ("byzantines", "seljuk-turks"),
         "setup.players[1].side", ["Seljuq Turks", "byzantines"]),
        ("the other army without values", "stamford-bridge", {}, SIDES,
         "setup.players[1].side", ["Anglo-Saxons"]),
        ("the sides of another scenario", "tours", SETUP["charts"]["armies"], SIDES,
         "setup.players[0].side", ["Franks", "Arabs", "norwegians"]),
    ]
    for what, scenario, armies, sides, field, listed in cases:
        setup = copy.deepcopy(SETUP)
        setup["charts"]["scenario"] = scenario
        setup["charts"]["armies"] = armies
        setup["players"] = [{"side": s} for s in sides]
        setup["units"] = [u for u in setup["units"] if u["side"] in sides]
        body = {"ruleset": RS, "sides": list(sides), "dice": {"mode": "manual"}, "setup": setup}
        err = assert_error(umpire.post("/v1/sessions", body), 422, "invalid_setup", field)
        assert err["details"]["armies"] == listed, (what, err)
        for name in listed:
            assert name in err["message"], (what, err)


def test_each_scenario_corrects_its_armies(umpire):
    """SCENARIO CHART (Correction), each scenario with sides named as its armies (the other army's
    values from the setup)."""
    corrected = {
        "tours": {"Franks": (55, 22), "Arabs": (80, 24)},
        "constantinople": {"Byzantines": (150, 60)},
        "balathusta": {"Byzantines": (160, 64)},
        "stamford-bridge": {"Anglo-Saxons": (115, 34)},
        "manzikert": {"Seljuq Turks": (145, 72)},
    }
    for scenario, armies in corrected.items():
        names = [a.lower().replace(" ", "-") for a in armies]
        sides = (names + ["foes"])[:2]
        setup = copy.deepcopy(SETUP)
        setup["charts"]["scenario"] = scenario
        setup["charts"]["armies"] = {"foes": {"point_value": 1, "panic_level": 1}}
        setup["players"] = [{"side": s} for s in sides]
        setup["units"] = []
        sid, tok = create(umpire, setup, tuple(sides))
        got = expect(umpire.get(f"/v1/sessions/{sid}", token=tok["referee"]),
                     200)["state"]["charts"]["armies"]
        for army, (pv, pl) in armies.items():
            assert got[army] == {"point_value": pv, "panic_level": pl,
                                 "source": ERRATA_SOURCE}, (scenario, got)
