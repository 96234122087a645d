"""Ruleset spi-dark-ages through the real daemon: the ruleset's description, chart validation at
session creation, chart_missing, the errata's corrected Point Values and Panic Levels, the
Terrain Effects Chart errata's movement costs, a scripted battle at Stamford Bridge with manual
dice checked unit by unit over two Game-Turns, exact odds of a fire and a melee, the Anglo-Saxons'
corrected Panic Level in play, a side's token and the other side's units, the hash chain.

The map, charts and units are those of scenarios/spi-dark-ages-stamford-bridge.json (illustrative
charts, not the published ones). Columns 1-16, rows 1-20, even columns sit half a hex lower: from
0605 the neighbours are n 0604, ne 0705, se 0706, s 0606, sw 0506, nw 0505; from 0705 (an odd
column) n 0704, ne 0804, se 0805, s 0706, sw 0605, nw 0604. A unit's three front hexes are the
ones ahead and on either side of its facing.

Every expected number is worked out by hand from the errata
(shared/rules-sources/spi-dark-ages-errata.txt), the scenario's charts and the module's documented
house defaults (header comments of rules/spi_dark_ages/*.c): the Player-Turn's phases are
Movement, Allocation, Defensive Fire, Fire, Melee, numbered player_turn * 5 + phase inside a
Game-Turn for demoralization; a unit moves into its three front hexes only; a change of facing
costs 1 MP a hexside; missile fire is the firer's Missile Strength against the target hex's Fire
Protection Strength on the CRT, never affecting the firer; a melee die roll beyond the table
reads its first or last row; the lead attacker's class reads the capability chart; losses are
counted in Victory Points, the scale of the Panic Level; 1E takes the least valuable unit."""

import copy
import json
import re
from fractions import Fraction
from pathlib import Path

from umpire_client import assert_error, expect
from umpire_ref import assert_no_floats, verify_chain

from ruleset_helpers import act, create_session, units

REPO = Path(__file__).resolve().parents[2]
RS = "spi-dark-ages"
SCENARIO = json.loads((REPO / "scenarios" / "spi-dark-ages-stamford-bridge.json").read_text())
SETUP = SCENARIO["session"]["setup"]
SIDES = ("anglo-saxons", "norwegians")
ACTIONS = ["move", "allocate", "fire", "melee", "rally", "end_phase"]
ERRATA_SOURCE = "errata, SCENARIO CHART (Correction)"


TOKENS = {}  # session id -> its tokens, for end_phase below


def create(umpire, setup=SETUP, mode="manual", sides=SIDES):
    sid, tok = create_session(umpire, RS, "Stamford Bridge 1066", setup, sides, mode)
    TOKENS[sid] = tok
    return sid, tok


def state(umpire, sid, token):
    return expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]


def odds(umpire, sid, token, body):
    r = expect(umpire.post(f"/v1/sessions/{sid}/odds", body, token=token), 200)
    return r


def sixths(x, k):
    """x is exactly k/6 (as a double)."""
    return abs(x - float(Fraction(k, 6))) < 1e-12


def assert_sixths(p_results, expected):
    """p_results {code: p} is exactly {code: k/6} and sums to 1."""
    assert set(p_results) == set(expected), p_results
    for code, k in expected.items():
        assert sixths(p_results[code], k), (code, p_results)
    assert sum(expected.values()) == 6
    assert abs(sum(p_results.values()) - 1.0) < 1e-12


def terms(result):
    return [(t["name"], t["value"]) for t in result["modifiers"]]


def end_phase(umpire, sid, token, phase, side, game_turn):
    """Ends the current phase with `token`; the Defensive Fire Phase (the one whose end begins
    "fire") is the defending side's to end, so the other side's token ends it then."""
    if phase == "fire" and token != TOKENS[sid]["referee"]:
        sides = TOKENS[sid]["sides"]
        token = next(t for name, t in sides.items() if name != side)
        other = next(t for name, t in sides.items() if name == side)
        err = act(umpire, sid, other, {"type": "end_phase"}, status=409)["error"]
        assert err["code"] == "not_your_turn" and "Defensive Fire" in err["message"], err
    res = act(umpire, sid, token, {"type": "end_phase"})["result"]
    assert (res["phase"], res["side"], res["game_turn"]) == (phase, side, game_turn), res
    return res


def turn_of(umpire, sid, token):
    t = state(umpire, sid, token)["turn"]
    return (t["game_turn"], t["player_turn"], t["phase"], t["side"])


def check_unit(u, hex_, facing=None, **expected):
    """The unit's hex and facing, and every flag the scripted battle follows: demoralized
    (its {game_turn, phase} or absent), panicked, eliminated, contact (as a set), rallied, bank."""
    assert u["hex"] == hex_, u
    if facing is not None:
        assert u["facing"] == facing, u
    assert u.get("demoralized") == expected.get("demoralized"), u
    assert bool(u.get("panicked")) == expected.get("panicked", False), u
    assert bool(u.get("eliminated")) == expected.get("eliminated", False), u
    assert set(u.get("contact", [])) == set(expected.get("contact", [])), u
    assert u.get("rallied") == expected.get("rallied"), u
    if "panic_edge" in expected:
        assert u.get("panic_edge") == expected["panic_edge"], u
    if "bank" in expected:
        assert u.get("bank") == expected["bank"], u


def armies(umpire, sid, token):
    a = state(umpire, sid, token)["armies"]
    return {side: (v["losses"], v["vp"], v["panicked"]) for side, v in a.items()}


# --------------------------------------------------------------------------- description

def test_the_ruleset_describes_itself(umpire):
    listed = expect(umpire.get("/v1/rulesets"), 200)["rulesets"]
    da = next(r for r in listed if r["id"] == RS)
    assert da["actions"] == ACTIONS
    d = expect(umpire.get(f"/v1/rulesets/{RS}"), 200)
    assert d["id"] == RS and d["version"] == 3 and d["description"] and d["title"]
    assert [a["type"] for a in d["actions"]] == ACTIONS
    fields = {a["type"]: {f["name"]: f for f in a["fields"]} for a in d["actions"]}
    assert set(fields["move"]) == {"unit", "path", "dismount", "remount"}
    assert set(fields["allocate"]) == {"unit", "target", "kind", "cancel"}
    assert set(fields["fire"]) == {"unit", "target"}
    assert set(fields["melee"]) == {"unit", "attackers", "defender"}
    assert set(fields["rally"]) == {"unit", "target"}
    assert fields["end_phase"] == {}
    required = {(t, n) for t, fs in fields.items() for n, f in fs.items() if f["required"]}
    assert required == {("move", "unit"), ("allocate", "unit"), ("allocate", "target"),
                        ("allocate", "kind"), ("fire", "unit"), ("fire", "target"),
                        ("melee", "unit"), ("melee", "defender"), ("rally", "unit"),
                        ("rally", "target")}
    for a in d["actions"]:
        assert a["title"]
        for f in a["fields"]:
            assert f["description"] and f["type"] in ("string", "integer", "boolean", "object",
                                                      "array"), f
    # the rally numbers of PANIC are in the field's description
    assert "1-5" in fields["rally"]["unit"]["description"]
    assert "1-3" in fields["rally"]["unit"]["description"]
    options = {o["name"]: o for o in d["options"]}
    assert set(options) == {"facing_cost"}
    assert "house default 1" in options["facing_cost"]["description"]
    assert options["facing_cost"]["required"] is False
    assert any("spi-dark-ages-errata.txt" in s for s in d["sources"])
    assert any("setup.charts" in s for s in d["sources"])
    assert any("house defaults" in s for s in d["sources"])


# --------------------------------------------------------------------------- validation

def test_setup_validation_points_at_the_bad_entry(umpire):
    def crt_cell(s):
        s["charts"]["crt"]["rows"]["4"][2] = "DX"

    def crt_columns(s):
        s["charts"]["crt"]["columns"][3] = "1-1"

    def crt_row_missing(s):
        del s["charts"]["crt"]["rows"]["6"]

    def chart_terrain(s):
        s["charts"]["terrain"]["marsh"] = {"move": 3}

    def map_terrain(s):
        s["map"]["hexes"]["0909"] = {"terrain": "marsh"}

    def fps_5(s):
        s["charts"]["terrain"]["woods"]["fps"] = 5

    def bad_cost(s):
        s["charts"]["terrain"]["clear"]["move"]["I"] = "3/4"

    def bad_class(s):
        s["charts"]["terrain"]["clear"]["move"]["VI"] = 1

    def unit_type(s):
        s["units"][9]["type"] = "jarls"

    def stream_hex(s):
        s["streams"]["0606"] = ["n", "s"]

    def stream_course(s):
        s["streams"]["0607"] = ["n", "n"]

    def capability_class(s):
        s["charts"]["capability"]["VI"] = {"bowmen": "x2"}

    def capability_type(s):
        s["charts"]["capability"]["I"]["peasants"] = "x2"

    def fleet_points(s):
        s["charts"]["units"]["longship"]["stacking"] = 1

    def river(s):
        s["units"][2]["hex"] = "0406"

    def scenario(s):
        s["charts"]["scenario"] = "hastings"

    cases = [
        # (what, mutate, status, code, details.field, words in the message)
        ("a CRT result that is no code", crt_cell, 400, "invalid_field",
         "setup.charts.crt.rows.4[2]", ["result code"]),
        ("CRT columns out of order", crt_columns, 422, "invalid_setup",
         "setup.charts.crt.columns[3]", ["1-1"]),
        ("a die roll without its row", crt_row_missing, 422, "invalid_setup",
         "setup.charts.crt.rows.6", []),
        ("a chart terrain the map does not know", chart_terrain, 422, "invalid_setup",
         "setup.charts.terrain.marsh", ["marsh"]),
        ("a map terrain the ruleset does not know", map_terrain, 422, "invalid_setup",
         "setup.map.hexes.0909.terrain", ["marsh"]),
        ("Fire Protection 5 without keep (TEC: at most 4)", fps_5, 422, "invalid_setup",
         "setup.charts.terrain.woods.fps", ["4", "woods"]),
        ("a movement cost that is none", bad_cost, 400, "invalid_field",
         "setup.charts.terrain.clear.move.I", []),
        ("a unit class that is none", bad_class, 422, "invalid_setup",
         "setup.charts.terrain.clear.move.VI", ["VI"]),
        ("a unit type the units chart lacks", unit_type, 422, "invalid_setup",
         "setup.units[9].type", ["nw-berserkers", "jarls"]),
        ("a stream course on a hex with no stream", stream_hex, 422, "invalid_setup",
         "setup.streams.0606", ["0606"]),
        ("a stream course through one hexside", stream_course, 400, "invalid_field",
         "setup.streams.0607", []),
        ("a capability row of no class", capability_class, 422, "invalid_setup",
         "setup.charts.capability.VI", ["VI"]),
        ("a capability entry of no unit type", capability_type, 422, "invalid_setup",
         "setup.charts.capability.I.peasants", ["peasants"]),
        ("a Viking Fleet with stacking points (STACKING (C))", fleet_points, 422,
         "invalid_setup", "setup.charts.units.longship.stacking", ["longship"]),
        ("a land unit in a river hex off the bridge", river, 422, "invalid_setup",
         "setup.units[2]", ["as-fyrd", "0406"]),
        ("a scenario the errata does not correct", scenario, 400, "invalid_field",
         "setup.charts.scenario", ["stamford-bridge"]),
    ]
    for what, mutate, status, code, field, words in cases:
        setup = copy.deepcopy(SETUP)
        mutate(setup)
        body = {"ruleset": RS, "sides": list(SIDES), "dice": {"mode": "manual"}, "setup": setup}
        err = assert_error(umpire.post("/v1/sessions", body), status, code, field)
        for w in words:
            assert w in err["message"], (what, err)
    # the Keep alone may go above 4 (TEC: "other than the Keep hex")
    setup = copy.deepcopy(SETUP)
    setup["charts"]["terrain"]["keep"] = {"move": 2, "fps": 6, "keep": True}
    expect(umpire.post("/v1/sessions", {"ruleset": RS, "sides": list(SIDES), "setup": setup}), 201)


def test_an_action_needing_a_missing_chart_names_it(umpire):
    # no Combat Results Table: fire and melee need it
    setup = copy.deepcopy(SETUP)
    del setup["charts"]["crt"]
    sid, tok = create(umpire, setup)
    nw = tok["sides"]["norwegians"]
    # out of their phases for the Norwegians (the Movement Phase): the referee's, as an override
    for body in ({"type": "fire", "unit": "nw-bowmen", "target": "0604", "dice": [3]},
                 {"type": "melee", "unit": "nw-bowmen", "defender": "0604", "dice": [3]}):
        assert_error(umpire.post(f"/v1/sessions/{sid}/actions", body, token=nw), 422, "wrong_phase")
        err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", body, token=tok["referee"]),
                           422, "chart_missing")
        assert err["details"]["chart"] == "crt" and "crt" in err["message"], err
    r = expect(umpire.post(f"/v1/sessions/{sid}/odds", {"type": "fire", "unit": "nw-bowmen",
                                                        "target": "0604"}, token=nw), 422)
    assert r["error"]["code"] == "chart_missing" and r["error"]["details"]["chart"] == "crt"
    # no Terrain Effects Chart: a move needs it
    setup = copy.deepcopy(SETUP)
    del setup["charts"]["terrain"]
    sid, tok = create(umpire, setup)
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "nw-bondi", "path": ["0806"]}, token=tok["sides"]["norwegians"]),
        422, "chart_missing")
    assert err["details"]["chart"] == "terrain"
    # no stacking limit: a second unit entering a hex needs it
    setup = copy.deepcopy(SETUP)
    del setup["charts"]["stacking_limit"]
    sid, tok = create(umpire, setup)
    ref, ans = tok["referee"], tok["sides"]["anglo-saxons"]
    for _ in range(5):
        act(umpire, sid, ref, {"type": "end_phase"})
    act(umpire, sid, ans, {"type": "move", "unit": "as-huscarls", "path": ["0405", "0505", "0605"]})
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "as-harold", "path": ["0405", "0505", "0605"]}, token=ans),
        422, "chart_missing")
    assert err["details"]["chart"] == "stacking_limit"
    # nothing was written by the refusals: as-harold is still where it began
    assert units(umpire, sid, ref)["as-harold"]["hex"] == "0305"


def test_the_errata_corrects_point_values_and_panic_levels(umpire):
    sid, tok = create(umpire)
    charts = state(umpire, sid, tok["referee"])["charts"]
    assert charts["scenario"] == "stamford-bridge"
    # SCENARIO CHART (Correction): "Stanford Bridge Anglo-Saxons -- PV 115; PL 34"; the other army
    # from the setup
    assert charts["armies"] == {
        "Anglo-Saxons": {"point_value": 115, "panic_level": 34, "source": ERRATA_SOURCE},
        "norwegians": {"point_value": 31, "panic_level": 8, "source": "setup"}}
    # Each scenario's armies: tests/integration/test_dark_ages_corrections.py
    # (test_each_scenario_corrects_its_armies): since version 2 a side must be an army of the
    # named scenario, so the sides here (anglo-saxons, norwegians) fit Stamford Bridge only.


# --------------------------------------------------------------------------- movement costs

def test_terrain_effects_chart_movement_costs(umpire):
    """TERRAIN EFFECTS CHART (Clarification), on a small map with its own chart (woods 2, slope 4):
    a wooded slope costs the dearer terrain only (4, not 6); a bridge entered from a non-road hex
    costs 1; a ford is clear for movement and crossing the stream through it costs nothing more;
    a hexside covered by water costs 2 more; a road hexside into a road hex costs 1/2 whatever
    the other terrain (woods 2); a river hex is never entered but at a bridge. From 0203 (even
    column): ne 0303; from 0303 (odd): se 0403; from 0403: ne 0503; from 0503: se 0603."""
    foot = {"class": "I", "melee_attack": 1, "melee_defense": 1, "melee_defense_flank": 1,
            "movement": 12, "stacking": 1, "vp": 1}
    setup = {
        "map": {"columns": [1, 8], "rows": [1, 8],
                "hexes": {"0303": {"terrain": ["woods", "slope"], "level": 1},
                          "0401": {"terrain": "river"}, "0402": {"terrain": "river"},
                          "0403": {"terrain": ["river", "bridge"]},
                          "0404": {"terrain": "river"},
                          "0503": {"terrain": ["stream", "ford"]},
                          "0205": {"terrain": "woods"}},
                "hexsides": [{"hexes": ["0204", "0205"], "features": ["road"]},
                             {"hexes": ["0703", "0704"], "features": ["water"]}]},
        "streams": {"0503": ["n", "s"]},
        "charts": {"units": {"foot": foot},
                   "terrain": {"clear": {"move": 1}, "woods": {"move": 2, "fps": 2},
                               "slope": {"move": 4, "fps": 1}, "stream": {"move": 2, "fps": 2},
                               "river": {"move": "P"}, "bridge": {"move": 1},
                               "ford": {"move": 1}},
                   "stacking_limit": 2},
        "players": [{"side": "a"}, {"side": "b"}],
        "units": [{"id": "walker", "side": "b", "type": "foot", "hex": "0203", "facing": "ne"},
                  {"id": "wader", "side": "b", "type": "foot", "hex": "0702", "facing": "s"},
                  {"id": "roadie", "side": "b", "type": "foot", "hex": "0204", "facing": "s"},
                  {"id": "swimmer", "side": "b", "type": "foot", "hex": "0302", "facing": "ne"},
                  {"id": "enemy", "side": "a", "type": "foot", "hex": "0808", "facing": "n"}]}
    sid, tok = create_session(umpire, RS, "movement costs", setup, ("a", "b"))
    b = tok["sides"]["b"]

    def move(unit, path):
        return act(umpire, sid, b, {"type": "move", "unit": unit, "path": path})

    out = move("walker", ["0303", "0403", "0503", "0603"])
    res = out["result"]
    # wooded slope 4 (not 6), bridge from a non-road hex 1, ford as clear 1, out of the ford
    # to the other bank: clear 1, no crossing cost
    assert [s["cost"] for s in res["steps"]] == ["4", "1", "1", "1"]
    assert (res["cost"], res["allowance"], res["to"]) == ("7", "12", "0603")
    assert [t["name"] for t in res["steps"][1]["terms"]] == ["bridge"]
    assert [t["name"] for t in res["steps"][2]["terms"]] == ["ford (as clear)"]
    assert [t["name"] for t in res["steps"][3]["terms"]] == ["clear"]
    assert "slope (the dearer terrain) 4" in out["summary"]
    res = move("wader", ["0703", "0704"])["result"]
    assert [s["cost"] for s in res["steps"]] == ["1", "3"]  # clear 1 + water hexside 2
    assert [t["name"] for t in res["steps"][1]["terms"]] == ["clear", "water hexside"]
    res = move("roadie", ["0205", "0206"])["result"]
    assert [s["cost"] for s in res["steps"]] == ["1/2", "1"] and res["cost"] == "1 1/2"
    assert [t["name"] for t in res["steps"][0]["terms"]] == ["road hexside"]
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "swimmer", "path": ["0402"]}, token=b), 422, "rules_violation",
        "path[0]")
    assert "river" in err["message"]
    assert units(umpire, sid, b)["swimmer"]["hex"] == "0302"


# --------------------------------------------------------------------------- the battle

def test_stamford_bridge_scripted_battle_with_manual_dice(umpire):
    """Two Game-Turns with the dice rolled at the table, checked unit by unit."""
    sid, tok = create(umpire)
    ref = tok["referee"]
    ans, nw = tok["sides"]["anglo-saxons"], tok["sides"]["norwegians"]
    nactions = 0

    def do(token, body, status=200):
        nonlocal nactions
        out = act(umpire, sid, token, body, status)
        if status == 200:
            nactions += 1
            assert out["summary"], out
            assert_no_floats(out["result"])
        return out

    def refused(token, body, status, code, field=None):
        r = umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)
        return assert_error(r, status, code, field)

    # ---- Game-Turn 1, the Norwegians' Player-Turn --------------------------------------------
    # HOW TO SET-UP: "the second Player listed always moves first": players are [anglo-saxons,
    # norwegians], so the Norwegians move first; they pass.
    assert turn_of(umpire, sid, ref) == (1, 0, "movement", "norwegians")
    err = refused(ans, {"type": "end_phase"}, 409, "not_your_turn")
    assert "norwegians" in err["message"] and err["details"]["acting"] == ["norwegians"]
    end_phase(umpire, sid, ref, "allocation", "norwegians", 1)
    nactions += 1
    for phase in ("defensive_fire", "fire", "melee"):
        end_phase(umpire, sid, nw, phase, "norwegians", 1)
        nactions += 1
    end_phase(umpire, sid, nw, "movement", "anglo-saxons", 1)
    nactions += 1
    assert turn_of(umpire, sid, ref) == (1, 1, "movement", "anglo-saxons")

    # ---- Game-Turn 1, the Anglo-Saxons' Player-Turn: Movement --------------------------------
    # A side's token never moves the other side's units.
    err = refused(nw, {"type": "move", "unit": "as-fyrd", "path": ["0605"]}, 403, "forbidden")
    assert "as-fyrd" in err["message"]
    # The huscarls cross by the road: 0305 -> 0405 (the bridge, entered from a road hex: 1/2),
    # 0405 -> 0505 and 0505 -> 0605 (road hexsides: 1/2 each). 0605 is the sw front hex of the
    # bowmen in 0705 facing sw (front: s 0706, sw 0605, nw 0604): MOVEMENT (K), they stop there;
    # a path going on to 0606 is refused at its fourth step.
    err = refused(ans, {"type": "move", "unit": "as-huscarls",
                        "path": ["0405", "0505", "0605", "0606"]}, 422, "rules_violation",
                  "path[3]")
    assert "(K)" in err["message"] and "0605" in err["message"]
    out = do(ans, {"type": "move", "unit": "as-huscarls", "path": ["0405", "0505", "0605"]})
    res = out["result"]
    assert (res["from"], res["to"], res["facing"]) == ("0305", "0605", "se")
    assert [s["cost"] for s in res["steps"]] == ["1/2", "1/2", "1/2"]
    assert [[t["name"] for t in s["terms"]] for s in res["steps"]] == \
        [["bridge from a road hex"], ["road hexside"], ["road hexside"]]
    assert (res["cost"], res["allowance"]) == ("1 1/2", "4")
    assert res["stopped"] is True and res["stopped_by"] == "nw-bowmen"
    assert res["steps"][2]["stopped_by"] == "nw-bowmen"
    # Harold follows and stops in the same hex (stacking 2 of 3).
    res = do(ans, {"type": "move", "unit": "as-harold",
                   "path": ["0405", "0505", "0605"]})["result"]
    assert (res["to"], res["cost"], res["allowance"], res["stopped_by"]) == \
        ("0605", "1 1/2", "6", "nw-bowmen")
    # The Derwent fyrd stands in stream hex 0507 (course sw-se) on its south bank; leaving by the
    # ne hexside to 0606 crosses the stream: clear 1 + 2 (TEC: "Streams may be crossed at any
    # point at a cost of two additional Movement Points").
    out = do(ans, {"type": "move", "unit": "as-levy", "path": ["0606"]})
    res = out["result"]
    assert (res["from"], res["to"], res["cost"], res["allowance"], res["stopped"]) == \
        ("0507", "0606", "3", "4", False)
    # (each term's cost in Movement Points, as text like the step's own cost: "1/2", "2")
    assert [(t["name"], t["cost"]) for t in res["steps"][0]["terms"]] == \
        [("clear", "1"), ("crossing the stream", "2")]
    assert "(clear 1, crossing the stream 2)" in out["summary"]
    # each unit moves once a Movement Phase (GENERAL MOVEMENT RULES (C))
    refused(ans, {"type": "move", "unit": "as-levy", "path": ["0706"]}, 422, "rules_violation",
            "unit")
    end_phase(umpire, sid, ans, "allocation", "anglo-saxons", 1)
    nactions += 1

    # ---- Allocation ----------------------------------------------------------------------------
    # COMMAND UNITS (B): each attacker beside a Friendly Command unit that is not demoralized.
    # as-fyrd (0604), the huscarls (0605) and the levy (0606) are all with or next to Harold
    # (0605); the archers are stacked with Gyrth on the hilltop 0703.
    for unit, target, kind, command in (("as-fyrd", "0705", "melee", "as-harold"),
                                        ("as-huscarls", "0705", "melee", "as-harold"),
                                        ("as-levy", "0707", "melee", "as-harold"),
                                        ("as-archers", "0707", "fire", "as-gyrth")):
        res = do(ans, {"type": "allocate", "unit": unit, "target": target,
                       "kind": kind})["result"]
        assert (res["unit"], res["target"], res["kind"], res["command"], res["contact"]) == \
            (unit, target, kind, command, False)
    # a melee only on an adjacent hex
    refused(ans, {"type": "allocate", "unit": "as-levy", "target": "0805", "kind": "melee"},
            422, "rules_violation", "target")
    end_phase(umpire, sid, ans, "defensive_fire", "anglo-saxons", 1)
    nactions += 1

    # ---- Defensive Fire (the Norwegians) -----------------------------------------------------
    # Odds first (nothing written): the bowmen at the huscarls' hex 0605, where Harold stands
    # too. EXPLANATION OF COMBAT RESULTS: "Command units, when stacked with other units, may never
    # be affected by Enemy missile fire": Harold is in no outcome. Missile 3 vs Fire Protection 1
    # (clear) is 3 to 1: rolls 1-2 1E, 3-4 DD, 5 -, 6 AD (the firer is never affected).
    o = odds(umpire, sid, nw, {"type": "fire", "unit": "nw-bowmen", "target": "0605"})
    assert o["exact"] is True and o["column"] == "3-1" and o["fps"] == 1
    assert o["strength"]["strength"] == "3"
    assert_sixths(o["p_results"], {"1E": 2, "DD": 2, "-": 1, "AD": 1})
    assert sixths(o["p_any_eliminated"], 2) and sixths(o["p_any_demoralized"], 2)
    for outcome in o["outcomes"]:
        assert "as-harold" not in json.dumps(outcome), outcome
    # COMBAT General Rule: Defensive Fire only at units allocated to attack the missile unit
    # itself: the levy in 0606 is allocated against 0707, not 0705.
    err = refused(nw, {"type": "fire", "unit": "nw-bowmen", "target": "0606", "dice": [3]}, 422,
                  "rules_violation", "target")
    assert "allocated" in err["message"]
    # At the York fyrd (0604, allocated against 0705): 3 vs 1, 3 to 1; roll 3: DD.
    # Demoralized in phase 1 * 5 + 2 = 7 of Game-Turn 1.
    out = do(nw, {"type": "fire", "unit": "nw-bowmen", "target": "0604", "dice": [3]})
    res = out["result"]
    assert (res["defensive"], res["distance"], res["range"], res["fps"], res["column"],
            res["roll"], res["result"]) == (True, 1, 3, 1, "3-1", 3, "DD")
    assert res["units"] == ["as-fyrd"] and res["demoralized"] == ["as-fyrd"]
    assert res["eliminated"] == [] and res["panicked"] == []
    assert "no modifier in missile combat" in out["summary"]
    # one missile attack a Player-Turn (COMBAT (L))
    refused(nw, {"type": "fire", "unit": "nw-bowmen", "target": "0605", "dice": [1]}, 422,
            "rules_violation", "unit")
    # the phasing side's own missile units do not fire in the Defensive Fire Phase
    refused(ans, {"type": "fire", "unit": "as-archers", "target": "0707", "dice": [1]}, 409,
            "not_your_turn")
    end_phase(umpire, sid, ans, "fire", "anglo-saxons", 1)
    nactions += 1

    # ---- Fire ----------------------------------------------------------------------------------
    # The archers on the hilltop 0703 (level 2, every neighbour a slope hex) fire at the
    # berserkers in the woods of 0707 (level 0), four hexes down column 7: range 3 + 1 firing
    # downhill (COMBAT (D)); the line crosses the slope 0704 and the bowmen in 0705, both lower.
    # Missile 3 vs woods' Fire Protection 2: 3/2 reaches 1-1, not 2-1. Rolls 1-2 DD, 3 -, 4-5 AD,
    # 6 AE (no effect on the firer).
    o = odds(umpire, sid, ans, {"type": "fire", "unit": "as-archers", "target": "0707"})
    assert (o["column"], o["fps"], o["strength"]["strength"]) == ("1-1", 2, "3")
    assert_sixths(o["p_results"], {"DD": 2, "-": 1, "AD": 2, "AE": 1})
    assert sixths(o["p_any_demoralized"], 2) and o["p_any_eliminated"] == 0
    assert [oc["result"]["row"] for oc in o["outcomes"]] == [1, 2, 3, 4, 5, 6]
    out = do(ans, {"type": "fire", "unit": "as-archers", "target": "0707", "dice": [2]})
    res = out["result"]
    assert (res["defensive"], res["distance"], res["range"], res["fps"], res["column"],
            res["roll"], res["result"]) == (False, 4, 4, 2, "1-1", 2, "DD")
    assert res["demoralized"] == ["nw-berserkers"]
    assert "hilltop +1 range" in out["summary"]
    end_phase(umpire, sid, ans, "melee", "anglo-saxons", 1)
    nactions += 1

    # ---- Melee ----------------------------------------------------------------------------------
    # The huscarls (Melee Attack 4) against the bowmen (Melee Defense 1, attacked from their sw
    # front hex): the capability chart halves bowmen against Class I: 1/2, which the errata lets
    # a defender keep ("4 vs. 1/2 is treated as an eight to one attack"): 8 to 1, beyond the last
    # column: 6-1. Die roll modifiers: -1 Harold with the attackers (COMMAND UNITS (C)), +1 Harald
    # next to the defenders, +1 attacking the ferocious Norwegians (FEROCITY (C)): +1.
    # Rolls 1-6 read rows 2-6, 6: DE, 2E, 1E, 1E, DD, DD.
    o = odds(umpire, sid, ans, {"type": "melee", "unit": "as-huscarls", "defender": "0705"})
    assert (o["attack"], o["defence"], o["column"], o["modifier"]) == ("4", "1/2", "6-1", 1)
    assert terms(o) == [("command as-harold", -1), ("enemy command nw-harald", 1),
                        ("against the ferocious", 1)]
    assert o["defenders"] == [{"unit": "nw-bowmen", "base": 1, "strength": "1/2",
                               "adjustments": ["x1/2 capability vs class I"]}]
    assert_sixths(o["p_results"], {"DE": 1, "2E": 1, "1E": 2, "DD": 2})
    assert sixths(o["p_any_eliminated"], 4) and sixths(o["p_any_demoralized"], 2)
    assert o["p_contact"] == 0
    assert sorted(oc["result"]["row"] for oc in o["outcomes"]) == [2, 3, 4, 5, 6]
    # a demoralized unit may never initiate an attack: the York fyrd cannot join
    refused(ans, {"type": "melee", "unit": "as-huscarls", "attackers": ["as-fyrd"],
                  "defender": "0705", "dice": [3]}, 422, "rules_violation", "attackers")
    # roll 3 + 1 = row 4: 1E, the bowmen are eliminated (3 VP)
    out = do(ans, {"type": "melee", "unit": "as-huscarls", "defender": "0705", "dice": [3]})
    res = out["result"]
    assert (res["attack"], res["defence"], res["column"], res["roll"], res["modifier"],
            res["row"], res["result"]) == ("4", "1/2", "6-1", 3, 1, 4, "1E")
    assert res["eliminated"] == ["nw-bowmen"] and res["panicked"] == [] and not res["contact"]
    assert "x1/2 capability vs class I" in out["summary"]
    assert "-1 command as-harold" in out["summary"]
    assert "+1 against the ferocious" in out["summary"]
    assert armies(umpire, sid, ref) == {"anglo-saxons": (0, 3, False),
                                        "norwegians": (3, 0, False)}
    # The levy (Melee Attack 2) against the demoralized berserkers (Melee Defense 3, halved,
    # "losing any fractions": 1): 2 to 1. Modifiers: -1 Harold next to the levy, +1 against the
    # ferocious; Harald is two hexes from 0707: 0. Roll 2: row 2 of 2-1, DD; the berserkers are
    # already demoralized: "Panicked and/or demoralized units which receive a DD combat result
    # are eliminated" (5 VP). The Norwegians' losses reach 3 + 5 = 8, their Panic Level (charts):
    # PANIC. Exempt: Harald (a command unit), the hird in 0804 (adjacent to Harald in 0805), the
    # longships in 0420 (15 hexes from the nearest enemy, the levy in 0606: more than ten). The
    # bondi in 0807 (two hexes from Harald, two from the levy) panic; their nearest edge is the
    # north (6 hexes; east 8, west 7, south 13).
    out = do(ans, {"type": "melee", "unit": "as-levy", "defender": "0707", "dice": [2]})
    res = out["result"]
    assert (res["attack"], res["defence"], res["column"], res["roll"], res["modifier"],
            res["row"], res["result"]) == ("2", "1", "2-1", 2, 0, 2, "DD")
    assert terms(res) == [("command as-harold", -1), ("against the ferocious", 1)]
    assert res["defenders"] == [{"unit": "nw-berserkers", "base": 3, "strength": "1",
                                 "adjustments": ["x1/2 demoralized"]}]
    assert res["eliminated"] == ["nw-berserkers"] and res["demoralized"] == []
    assert res["panicked"] == ["nw-bondi"]
    assert "DD eliminates it" in out["summary"] and "Panic Level 8" in out["summary"]
    assert armies(umpire, sid, ref) == {"anglo-saxons": (0, 8, False),
                                        "norwegians": (8, 0, True)}
    u = units(umpire, sid, ref)
    check_unit(u["as-harold"], "0605", "se")
    check_unit(u["as-huscarls"], "0605", "se")
    check_unit(u["as-fyrd"], "0604", "se", demoralized={"game_turn": 1, "phase": 7})
    check_unit(u["as-levy"], "0606", "ne")
    check_unit(u["as-archers"], "0703", "s")
    check_unit(u["as-gyrth"], "0703", "s")
    check_unit(u["nw-harald"], "0805", "sw")
    check_unit(u["nw-hirdmen"], "0804", "sw")
    check_unit(u["nw-bowmen"], "0705", eliminated=True)
    check_unit(u["nw-berserkers"], "0707", eliminated=True,
               demoralized={"game_turn": 1, "phase": 8})
    check_unit(u["nw-bondi"], "0807", "n", panicked=True, panic_edge="north")
    check_unit(u["nw-fleet"], "0420")
    assert "panicked" not in u["nw-fleet"] and "panicked" not in u["nw-hirdmen"]
    # an eliminated unit is no longer on the map (not even for the referee, out of sequence)
    refused(ref, {"type": "move", "unit": "nw-bowmen", "path": ["0704"]}, 409, "unit_eliminated",
            "unit")
    end_phase(umpire, sid, ans, "movement", "norwegians", 2)
    nactions += 1
    assert turn_of(umpire, sid, ref) == (2, 0, "movement", "norwegians")

    # ---- Game-Turn 2, the Norwegians: Movement --------------------------------------------------
    # PANIC: "The panicked units are moved by the owning Player at the beginning of each Friendly
    # Movement Phase before any other Friendly units are moved."
    err = refused(nw, {"type": "move", "unit": "nw-hirdmen", "path": ["0705"]}, 422,
                  "rules_violation", "unit")
    assert "nw-bondi" in err["message"]
    refused(nw, {"type": "end_phase"}, 422, "rules_violation")
    # "towards the mapsheet edge which they were nearest to at the instant they panicked": 0907
    # (ne of 0807) is no nearer the north edge
    refused(nw, {"type": "move", "unit": "nw-bondi", "path": ["0907"]}, 422, "rules_violation",
            "path[0]")
    # "moved their full Movement Allowance": one hex, with 3 MP left, is not enough
    err = refused(nw, {"type": "move", "unit": "nw-bondi", "path": ["0806"]}, 422,
                  "rules_violation", "path")
    assert "full Movement Allowance" in err["message"]
    # 0806, 0805 (through Harald's hex), 0804 (with the hird): 3 MP, clear; the next hex north,
    # the slope 0803, costs 2 and 1 MP is left: the run ends. Panicked units keep their full
    # Movement Allowance (4).
    out = do(nw, {"type": "move", "unit": "nw-bondi", "path": ["0806", "0805", "0804"]})
    res = out["result"]
    assert (res["from"], res["to"], res["facing"], res["cost"], res["allowance"]) == \
        ("0807", "0804", "n", "3", "4")
    assert "panicked: full allowance" in out["summary"]
    res = do(nw, {"type": "move", "unit": "nw-hirdmen", "path": ["0705"]})["result"]
    assert (res["to"], res["cost"], res["stopped"]) == ("0705", "1", False)
    # The longships row up the Derwent: river hexes cost the fleet 1 each (charts).
    res = do(nw, {"type": "move", "unit": "nw-fleet", "path": ["0419", "0418"]})["result"]
    assert (res["to"], res["cost"], res["allowance"]) == ("0418", "2", "6")
    # Rally, at the end of the Movement Phase: the hird (a combat unit, in 0705 next to 0804)
    # rallies on 1-3 only: roll 4 fails. Harald (a command unit, 0805) rallies on anything but a
    # six: roll 5 succeeds.
    res = do(nw, {"type": "rally", "unit": "nw-hirdmen", "target": "nw-bondi",
                  "dice": [4]})["result"]
    assert (res["command"], res["roll"], res["needs"], res["rallied"]) == (False, 4, 3, False)
    refused(nw, {"type": "rally", "unit": "nw-hirdmen", "target": "nw-bondi", "dice": [1]},
            422, "rules_violation", "target")  # one roll a rallier and panicked unit a phase
    o = odds(umpire, sid, nw, {"type": "rally", "unit": "nw-harald", "target": "nw-bondi"})
    assert sixths(o["p_rallied"], 5)
    res = do(nw, {"type": "rally", "unit": "nw-harald", "target": "nw-bondi",
                  "dice": [5]})["result"]
    assert (res["command"], res["roll"], res["needs"], res["rallied"]) == (True, 5, 5, True)
    # the rally rolls come after all movement: no unit moves any more this phase
    refused(nw, {"type": "move", "unit": "nw-harald", "path": ["0905"]}, 422, "rules_violation",
            "unit")
    end_phase(umpire, sid, nw, "allocation", "norwegians", 2)
    nactions += 1

    # ---- Allocation, Defensive Fire ------------------------------------------------------------
    res = do(nw, {"type": "allocate", "unit": "nw-hirdmen", "target": "0605",
                  "kind": "melee"})["result"]
    assert (res["command"], res["contact"]) == ("nw-harald", False)
    end_phase(umpire, sid, nw, "defensive_fire", "norwegians", 2)
    nactions += 1
    # the archers (0703) may answer only units allocated against them: the hird is allocated
    # against 0605
    refused(ans, {"type": "fire", "unit": "as-archers", "target": "0705", "dice": [1]}, 422,
            "rules_violation", "target")
    end_phase(umpire, sid, nw, "fire", "norwegians", 2)
    end_phase(umpire, sid, nw, "melee", "norwegians", 2)
    nactions += 2

    # ---- Melee ----------------------------------------------------------------------------------
    # The hird (4) against Harold (2) and the huscarls (5) in 0605, attacked from 0705, ne of
    # 0605: in the front of both (facing se: ne, se, s). 4 vs 7 reaches 1-2, not 1-1.
    # Modifiers: -1 Harald next to the hird, +1 Harold with the defenders, -1 ferocity
    # (FEROCITY (B)): -1. Rolls 1-6 read rows 1 (clamped), 1, 2, 3, 4, 5 of 1-2: DD, DD, AD, -,
    # AD, AE. DD demoralizes Harold too ("All Combat and Command units may become demoralized").
    o = odds(umpire, sid, nw, {"type": "melee", "unit": "nw-hirdmen", "defender": "0605"})
    assert (o["attack"], o["defence"], o["column"], o["modifier"]) == ("4", "7", "1-2", -1)
    assert terms(o) == [("command nw-harald", -1), ("enemy command as-harold", 1),
                        ("ferocity", -1)]
    assert_sixths(o["p_results"], {"DD": 2, "AD": 2, "-": 1, "AE": 1})
    assert sixths(o["p_contact"], 1) and sixths(o["p_any_eliminated"], 1)
    assert sixths(o["p_any_demoralized"], 4)
    # roll 4 - 1 = row 3: "-": COMBAT (K), no unit eliminated or demoralized: contact
    out = do(nw, {"type": "melee", "unit": "nw-hirdmen", "defender": "0605", "dice": [4]})
    res = out["result"]
    assert (res["attack"], res["defence"], res["column"], res["roll"], res["modifier"],
            res["row"], res["result"], res["contact"]) == ("4", "7", "1-2", 4, -1, 3, "-", True)
    assert "stay in contact" in out["summary"]
    u = units(umpire, sid, ref)
    check_unit(u["nw-hirdmen"], "0705", "sw", contact=["as-harold", "as-huscarls"])
    check_unit(u["as-harold"], "0605", "se", contact=["nw-hirdmen"])
    check_unit(u["as-huscarls"], "0605", "se", contact=["nw-hirdmen"])
    check_unit(u["nw-bondi"], "0804", "n", rallied=4)  # rallied in Player-Turn 2 * 2 + 0
    check_unit(u["nw-fleet"], "0418")
    # Panic occurs once per army: the Norwegians stay marked as having panicked
    assert armies(umpire, sid, ref) == {"anglo-saxons": (0, 8, False),
                                        "norwegians": (8, 0, True)}
    end_phase(umpire, sid, ref, "movement", "anglo-saxons", 2)
    nactions += 1
    assert turn_of(umpire, sid, ref) == (2, 1, "movement", "anglo-saxons")

    # ---- Game-Turn 2, the Anglo-Saxons: Movement ------------------------------------------------
    # COMBAT (K): units in contact may not leave their hex; they may turn one hexside.
    err = refused(ans, {"type": "move", "unit": "as-harold", "path": ["0505"]}, 422,
                  "rules_violation", "path[0]")
    assert "contact" in err["message"]
    refused(ans, {"type": "move", "unit": "as-huscarls", "path": [{"face": "n"}]}, 422,
            "rules_violation", "path[0]")  # se -> n is two hexsides
    res = do(ans, {"type": "move", "unit": "as-huscarls", "path": [{"face": "ne"}]})["result"]
    assert (res["to"], res["facing"], res["cost"]) == ("0605", "ne", "1")
    # The York fyrd is still demoralized (Game-Turn 1, phase 7) and began the phase next to
    # Harold: COMMAND UNITS (A), half its Movement Allowance, 2. 0605, 0606, 0607 (a stream hex,
    # 2) would cost 4.
    err = refused(ans, {"type": "move", "unit": "as-fyrd", "path": ["0605", "0606", "0607"]}, 422,
                  "rules_violation", "path")
    assert "demoralized" in err["message"] and "4" in err["message"]
    out = do(ans, {"type": "move", "unit": "as-fyrd", "path": ["0704"]})
    res = out["result"]
    assert (res["to"], res["cost"], res["allowance"]) == ("0704", "2", "2")  # slope 2
    assert "demoralized: half allowance" in out["summary"]
    # Gyrth leaves the hilltop: 0603 (slope 2), 0604 (clear 1).
    res = do(ans, {"type": "move", "unit": "as-gyrth", "path": ["0603", "0604"]})["result"]
    assert (res["to"], res["cost"]) == ("0604", "3")
    # The levy turns se (1) and enters the stream hex 0607 (TEC: "It costs units two Movement
    # Points to enter a stream hex"), by its north bank.
    res = do(ans, {"type": "move", "unit": "as-levy",
                   "path": [{"face": "se"}, "0607"]})["result"]
    assert [s["cost"] for s in res["steps"]] == ["1", "2"] and res["cost"] == "3"
    assert [t["name"] for t in res["steps"][1]["terms"]] == ["stream hex"]
    end_phase(umpire, sid, ans, "allocation", "anglo-saxons", 2)
    nactions += 1

    # ---- Allocation -----------------------------------------------------------------------------
    # The archers (0703) are alone now: Gyrth (0604) and Harold (0605) are two hexes away, and
    # they are in contact with nobody: COMMAND UNITS (B) refuses the attack.
    err = refused(ans, {"type": "allocate", "unit": "as-archers", "target": "0705",
                        "kind": "fire"}, 422, "rules_violation", "unit")
    assert "COMMAND UNITS (B)" in err["message"]
    # the York fyrd is still demoralized: no attack
    refused(ans, {"type": "allocate", "unit": "as-fyrd", "target": "0705", "kind": "melee"},
            422, "rules_violation", "unit")
    res = do(ans, {"type": "allocate", "unit": "as-huscarls", "target": "0705",
                   "kind": "melee"})["result"]
    assert res["command"] == "as-harold"
    # DEMORALIZATION: until the end of the same phase (Defensive Fire) of the next Game-Turn
    end_phase(umpire, sid, ans, "defensive_fire", "anglo-saxons", 2)
    nactions += 1
    assert units(umpire, sid, ref)["as-fyrd"]["demoralized"] == {"game_turn": 1, "phase": 7}
    res = end_phase(umpire, sid, ans, "fire", "anglo-saxons", 2)
    nactions += 1
    assert "as-fyrd" in res["demoralization_ended"]
    assert "demoralized" not in units(umpire, sid, ref)["as-fyrd"]
    end_phase(umpire, sid, ans, "melee", "anglo-saxons", 2)
    nactions += 1

    # ---- Melee ----------------------------------------------------------------------------------
    # The huscarls (4) against the hird (4, attacked from 0605, its sw front hex): 1 to 1.
    # Modifiers: -1 Harold, +1 Harald next to 0705, +1 against the ferocious: +1. Roll 1: row 2
    # of 1-1: DD. The hird is demoralized (Game-Turn 2, phase 1 * 5 + 4 = 9), which ends the
    # contact (COMBAT (K)).
    out = do(ans, {"type": "melee", "unit": "as-huscarls", "defender": "0705", "dice": [1]})
    res = out["result"]
    assert (res["attack"], res["defence"], res["column"], res["roll"], res["modifier"],
            res["row"], res["result"]) == ("4", "4", "1-1", 1, 1, 2, "DD")
    assert res["demoralized"] == ["nw-hirdmen"] and res["contact"] is False
    u = units(umpire, sid, ref)
    check_unit(u["as-harold"], "0605", "se")
    check_unit(u["as-huscarls"], "0605", "ne")
    check_unit(u["as-fyrd"], "0704", "se")
    check_unit(u["as-levy"], "0607", "se", bank="n")
    check_unit(u["as-archers"], "0703", "s")
    check_unit(u["as-gyrth"], "0604", "s")
    check_unit(u["nw-harald"], "0805", "sw")
    check_unit(u["nw-hirdmen"], "0705", "sw", demoralized={"game_turn": 2, "phase": 9})
    check_unit(u["nw-bowmen"], "0705", eliminated=True)
    # (its marker ran out at the end of the Fire Phase of Game-Turn 2, eliminated as it was)
    check_unit(u["nw-berserkers"], "0707", eliminated=True)
    check_unit(u["nw-bondi"], "0804", "n", rallied=4)
    check_unit(u["nw-fleet"], "0418")
    assert armies(umpire, sid, ref) == {"anglo-saxons": (0, 8, False),
                                        "norwegians": (8, 0, True)}
    assert turn_of(umpire, sid, ref) == (2, 1, "melee", "anglo-saxons")

    # ---- the log ---------------------------------------------------------------------------
    events, _ = umpire.events(sid, token=ref)
    head = umpire.session(sid, token=ref)["head"]
    verify_chain(events, head)
    assert len(events) == nactions + 1
    manual = [d for ev in events if ev["type"] != "session_created"
              for d in ev["data"].get("dice") or []]
    assert [d["values"] for d in manual] == [[3], [2], [3], [2], [4], [5], [4], [1]]
    assert all(d.get("manual") is True for d in manual)
    r = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert r["ok"] is True and r["actions_readjudicated"] == nactions, r


def test_the_anglo_saxons_panic_at_their_corrected_panic_level(umpire):
    """The Anglo-Saxons' Panic Level is the errata's 34 (SCENARIO CHART (Correction), matched to
    the side 'anglo-saxons' without regard to case). Two Norwegian champions (Melee Attack 12)
    with Harald (1009) strike at 1008 (two units of 12 VP, Melee Defense 1 each: 12 vs 2, 6 to 1)
    and 1110 (a lone command unit, Melee Defense 1: 12 to 1, the 6-1 column; 10 VP as every
    command unit). Modifiers -1 ferocity, -1 Harald: roll 3 reads row 1, DE. 24 VP of losses: no
    panic; 34: panic. Exempt: Gyrth (a command unit,
    1206), the fyrd next to him (1205), the far fyrd in 0120 (fifteen hexes from 1009). The
    archers in 0906 (three hexes from 1008) panic, toward the north edge (5 hexes; east 7)."""
    setup = copy.deepcopy(SETUP)
    extra = {"class": "I", "melee_attack": 1, "melee_defense": 1, "melee_defense_flank": 1,
             "movement": 4, "stacking": 1}
    setup["charts"]["units"]["thegns"] = dict(extra, vp=12)
    # VICTORY CONDITIONS: "Command units are worth ten Victory Points apiece", whatever the
    # chart's vp says (4 here)
    setup["charts"]["units"]["reeve"] = dict(extra, **{"class": "command", "vp": 4,
                                                      "combat_bonus": 1})
    setup["charts"]["units"]["champions"] = dict(extra, melee_attack=12, vp=6)
    setup["units"] = [
        {"id": "as-thegns-1", "side": "anglo-saxons", "type": "thegns", "hex": "1008",
         "facing": "s"},
        {"id": "as-thegns-2", "side": "anglo-saxons", "type": "thegns", "hex": "1008",
         "facing": "s"},
        {"id": "as-reeve", "side": "anglo-saxons", "type": "reeve", "hex": "1110",
         "facing": "nw"},
        {"id": "as-gyrth", "side": "anglo-saxons", "type": "earl", "hex": "1206", "facing": "n"},
        {"id": "as-fyrd", "side": "anglo-saxons", "type": "fyrd", "hex": "1205", "facing": "n"},
        {"id": "as-archers", "side": "anglo-saxons", "type": "archers", "hex": "0906",
         "facing": "s"},
        {"id": "as-far", "side": "anglo-saxons", "type": "fyrd", "hex": "0120", "facing": "n"},
        {"id": "nw-harald", "side": "norwegians", "type": "king", "hex": "1009", "facing": "n"},
        {"id": "nw-champ-1", "side": "norwegians", "type": "champions", "hex": "1009",
         "facing": "n"},
        {"id": "nw-champ-2", "side": "norwegians", "type": "champions", "hex": "1009",
         "facing": "se"},
    ]
    sid, tok = create(umpire, setup)
    ref, nw = tok["referee"], tok["sides"]["norwegians"]
    end_phase(umpire, sid, nw, "allocation", "norwegians", 1)
    act(umpire, sid, nw, {"type": "allocate", "unit": "nw-champ-1", "target": "1008",
                          "kind": "melee"})
    act(umpire, sid, nw, {"type": "allocate", "unit": "nw-champ-2", "target": "1110",
                          "kind": "melee"})
    for phase in ("defensive_fire", "fire", "melee"):
        end_phase(umpire, sid, nw, phase, "norwegians", 1)
    res = act(umpire, sid, nw, {"type": "melee", "unit": "nw-champ-1", "defender": "1008",
                                "dice": [3]})["result"]
    assert (res["attack"], res["defence"], res["column"], res["modifier"], res["row"],
            res["result"]) == ("12", "2", "6-1", -2, 1, "DE")
    assert sorted(res["eliminated"]) == ["as-thegns-1", "as-thegns-2"] and res["panicked"] == []
    assert armies(umpire, sid, ref)["anglo-saxons"] == (24, 0, False)
    assert armies(umpire, sid, ref)["norwegians"] == (0, 24, False)
    out = act(umpire, sid, nw, {"type": "melee", "unit": "nw-champ-2", "defender": "1110",
                                "dice": [3]})
    res = out["result"]
    # the reeve in 1110 is a command unit itself: +1 for the Anglo-Saxons, -2 + 1 = -1, row 2:
    # DE again
    assert (res["column"], res["modifier"], res["row"], res["result"], res["eliminated"]) == \
        ("6-1", -1, 2, "DE", ["as-reeve"])
    assert res["panicked"] == ["as-archers"]
    assert "Panic Level 34" in out["summary"]
    assert armies(umpire, sid, ref)["anglo-saxons"] == (34, 0, True)
    u = units(umpire, sid, ref)
    check_unit(u["as-archers"], "0906", "s", panicked=True, panic_edge="north")
    for exempt, where in (("as-gyrth", "1206"), ("as-fyrd", "1205"), ("as-far", "0120")):
        check_unit(u[exempt], where)
    # PANIC: the panicked archers move before any other Anglo-Saxon unit
    end_phase(umpire, sid, nw, "movement", "anglo-saxons", 1)
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "as-far", "path": ["0119"]}, token=tok["sides"]["anglo-saxons"]),
        422, "rules_violation", "unit")
    assert "as-archers" in err["message"]


def test_class_i_units_may_both_fire_and_melee_offensively(umpire):
    """COMBAT (L) (Correction): "No unit may participate in more than one missile and one melee
    attack per Player Turn (only Class I units have the option to both melee and fire offensively
    in a single Player Turn)". A Class I unit with a Missile Strength (the charts give it one) may
    therefore be allocated both to fire at and to melee an adjacent enemy hex, beside its command
    unit; a Class IV unit may not do both. The Norwegians move first; their spearmen (Class I,
    missile 2, range 1) and bowmen (Class IV) stand with Harald in 0805, the Anglo-Saxon fyrd in
    0705 (nw of 0805)."""
    setup = copy.deepcopy(SETUP)
    setup["charts"]["units"]["spearmen"] = {
        "class": "I", "melee_attack": 3, "melee_defense": 3, "melee_defense_flank": 1,
        "missile": 2, "range": 1, "movement": 4, "stacking": 1, "vp": 4}
    setup["units"] = [
        {"id": "as-fyrd", "side": "anglo-saxons", "type": "fyrd", "hex": "0705", "facing": "se"},
        {"id": "as-harold", "side": "anglo-saxons", "type": "king", "hex": "0305", "facing": "se"},
        {"id": "nw-harald", "side": "norwegians", "type": "king", "hex": "0805", "facing": "nw"},
        {"id": "nw-spearmen", "side": "norwegians", "type": "spearmen", "hex": "0805",
         "facing": "nw"},
        {"id": "nw-bowmen", "side": "norwegians", "type": "bowmen", "hex": "0805",
         "facing": "nw"},
    ]
    sid, tok = create(umpire, setup)
    nw = tok["sides"]["norwegians"]
    end_phase(umpire, sid, nw, "allocation", "norwegians", 1)
    # a Class IV unit: one kind of attack only
    act(umpire, sid, nw, {"type": "allocate", "unit": "nw-bowmen", "target": "0705",
                          "kind": "fire"})
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "allocate", "unit": "nw-bowmen", "target": "0705", "kind": "melee"}, token=nw),
        422, "rules_violation", "kind")
    assert "(L)" in err["message"]
    # a Class I unit: both (the errata's answer)
    act(umpire, sid, nw, {"type": "allocate", "unit": "nw-spearmen", "target": "0705",
                          "kind": "melee"})
    r = umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "allocate", "unit": "nw-spearmen", "target": "0705", "kind": "fire"}, token=nw)
    assert r.status == 200, ("COMBAT (L): a Class I unit may also fire offensively", r)
    assert units(umpire, sid, nw)["nw-spearmen"]["allocated"] == {"fire": "0705",
                                                                  "melee": "0705"}


def test_defensive_fire_strikes_only_units_allocated_against_the_firer(umpire):
    """COMBAT General Rule (Clarification): "Missile units may only employ defensive fire against
    Enemy units which have been allocated to attack the missile unit(s) itself." Harold, the
    huscarls (allocated to melee the bowmen in 0705) and the Derwent levy (not allocated: it
    crossed the stream and stopped in the bowmen's front hex 0605) stand in 0605. The bowmen's
    Defensive Fire at 0605 (3 vs Fire Protection 1, 3 to 1: 1E, 1E, DD, DD, -, AD) may strike the
    huscarls only: never the levy, never Harold (a command unit stacked with others)."""
    sid, tok = create(umpire)
    ref, ans, nw = tok["referee"], tok["sides"]["anglo-saxons"], tok["sides"]["norwegians"]
    for _ in range(5):
        act(umpire, sid, ref, {"type": "end_phase"})
    for unit, path in (("as-huscarls", ["0405", "0505", "0605"]),
                       ("as-harold", ["0405", "0505", "0605"]),
                       ("as-levy", ["0606", "0605"])):
        res = act(umpire, sid, ans, {"type": "move", "unit": unit, "path": path})["result"]
        assert res["to"] == "0605" and res["stopped_by"] == "nw-bowmen"
    act(umpire, sid, ans, {"type": "end_phase"})
    act(umpire, sid, ans, {"type": "allocate", "unit": "as-huscarls", "target": "0705",
                           "kind": "melee"})
    act(umpire, sid, ans, {"type": "end_phase"})
    o = odds(umpire, sid, nw, {"type": "fire", "unit": "nw-bowmen", "target": "0605"})
    assert o["column"] == "3-1"
    assert_sixths(o["p_results"], {"1E": 2, "DD": 2, "-": 1, "AD": 1})
    struck = set()
    for outcome in o["outcomes"]:
        struck |= set(outcome["result"]["eliminated"]) | set(outcome["result"]["demoralized"])
    assert struck == {"as-huscarls"}, o["outcomes"]


def test_two_game_turns_in_sequence_refusals_and_the_referees_override(umpire):
    """The shared sequence of play (issue 23): state.turn carries number, player, phase, acting
    and order besides game_turn, player_turn and side; through two Game-Turns each side's action
    out of its turn is refused (409 not_your_turn) or out of its phase (422 wrong_phase) before
    any die, and the referee's move out of sequence goes through as an override the log keeps."""
    sid, tok = create(umpire)
    ref, nw, ans = tok["referee"], tok["sides"]["norwegians"], tok["sides"]["anglo-saxons"]
    t = state(umpire, sid, ref)["turn"]
    assert (t["number"], t["player"], t["phase"], t["acting"], t["order"]) == \
        (1, "norwegians", "movement", ["norwegians"], ["norwegians", "anglo-saxons"])
    for game_turn in (1, 2):
        move_fyrd = {"type": "move", "unit": "as-fyrd", "path": [{"face": "s" if game_turn == 1 else "se"}]}
        # the Norwegians' Player-Turn: the Anglo-Saxons may not move; the Norwegians not allocate
        err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", move_fyrd, token=ans), 409,
                           "not_your_turn")
        assert err["details"]["acting"] == ["norwegians"]
        assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
            "type": "allocate", "unit": "nw-bowmen", "target": "0604", "kind": "fire"},
            token=nw), 422, "wrong_phase")
        for phase in ("allocation", "defensive_fire", "fire", "melee"):
            end_phase(umpire, sid, nw, phase, "norwegians", game_turn)
        end_phase(umpire, sid, nw, "movement", "anglo-saxons", game_turn)
        # the Anglo-Saxons' Player-Turn: the Norwegians may not end it
        assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {"type": "end_phase"}, token=nw),
                     409, "not_your_turn")
        act(umpire, sid, ans, move_fyrd)
        for phase in ("allocation", "defensive_fire", "fire", "melee"):
            end_phase(umpire, sid, ans, phase, "anglo-saxons", game_turn)
        if game_turn == 1:
            # in the Anglo-Saxons' Melee Phase the referee moves a Norwegian: an override
            out = act(umpire, sid, ref, {"type": "move", "unit": "nw-bowmen", "path": [{"face": "s"}]})
            assert out["result"]["override"] == "no move in the Melee phase", out["result"]
            assert out["summary"].startswith("Referee's ruling, out of sequence")
        end_phase(umpire, sid, ans, "movement", "norwegians", game_turn + 1)
    t = state(umpire, sid, ref)["turn"]
    assert (t["number"], t["game_turn"], t["player"], t["phase"]) == (3, 3, "norwegians", "movement")
    events = umpire.events(sid, token=ref)[0]
    verify_chain(events)
    overrides = [e for e in events if e["data"].get("result", {}).get("override")]
    assert len(overrides) == 1 and overrides[0]["actor"] == "referee"
    r = umpire.get(f"/v1/sessions/{sid}/verify", token=ref)
    assert r.body["ok"] is True, r.body


def test_odds_outcomes_read_as_words_beside_the_crt_code(umpire):
    """Issue 23, item 4: odds outcomes say each Combat Results Table code in words, the code
    after them ("2 defending units eliminated (2E)"); an action without dice says what it does."""
    r = umpire.post("/v1/sessions", SCENARIO["session"])
    body = expect(r, 201)
    sid, tok = body["session"]["id"], body["tokens"]
    tokens = {"referee": tok["referee"], **tok["sides"]}
    for step in SCENARIO["actions"]:
        action = {k: v for k, v in step.items() if k != "as"}
        if action["type"] in ("fire", "melee"):
            odds = {k: v for k, v in action.items() if k != "dice"}
            ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", odds, token=tok["referee"]), 200)
            lines = [o["summary"] for o in ans["outcomes"]]
            assert all(re.search(r"row \d+: .+ \([-A-Z0-9]+\)", s) for s in lines), lines
            assert any("defending unit" in s for s in lines), lines
            assert not any("{" in s or '"' in s for s in lines), lines
            break
        expect(umpire.post(f"/v1/sessions/{sid}/actions", action, token=tokens[step["as"]]), 200)
    move = next(a for a in SCENARIO["actions"] if a["type"] == "move")
    r2 = expect(umpire.post("/v1/sessions", SCENARIO["session"]), 201)
    ans = expect(umpire.post(f"/v1/sessions/{r2['session']['id']}/odds",
                             {k: v for k, v in move.items() if k not in ("as", "dice")},
                             token=r2["tokens"]["referee"]), 200)
    assert "no dice" not in ans["outcomes"][0]["summary"] and "moves" in ans["outcomes"][0]["summary"]
