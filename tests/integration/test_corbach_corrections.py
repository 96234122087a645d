"""Issue 20, items 1-4: corrections to ruleset vaevictis-corbach-1760 found by independent checks,
through the real daemon. Each test fails on the module before the correction.

1. A turn in place (a path of changes of facing only) changes the unit's facing in the state,
   the next turn starts from it, and GET /verify re-adjudicates the log to the same state.
2. TET, Bridge: "There is a bridge where there is a road": a road across a stream is a bridge
   (combat -2, no ZoC blocked) whether or not the map marks the bridge.
3. TET, Village: "The flank hexes of the infantry occupying these hexes are considered like
   frontal hexes", also for the house rule that a unit moves and assaults into its front hexes.
4. CRT, Miscellaneous: "Change of order of a stack in an ennemy ZoC: -2": `changed_order` is
   refused (422 naming the rule, nothing written) unless the acting unit stands in a stack of two
   or more units in an enemy ZoC.

Hex geometry (even columns half a hex lower): from 1204 the neighbours are n 1203, ne 1304,
se 1305, s 1205, sw 1105, nw 1104; from 1305 n 1304, ne 1404, se 1405, s 1306, sw 1205, nw 1204."""

import json
from pathlib import Path

from umpire_client import assert_error, expect

from ruleset_helpers import act, create_session, units

REPO = Path(__file__).resolve().parents[2]
RS = "vaevictis-corbach-1760"
SKIRMISH = json.loads((REPO / "scenarios" / "vaevictis-corbach-1760-skirmish.json").read_text())


def unit(uid, side, hx, facing, type_="line_infantry", **extra):
    return {"id": uid, "side": side, "type": type_, "hex": hx, "facing": facing, "strength": 3,
            "morale": 3, **extra}


def small_setup(units_, hexes=None, hexsides=None):
    return {"map": {"columns": [10, 16], "rows": [1, 9], "hexes": hexes or {},
                    "hexsides": hexsides or []},
            "units": units_}


def create(umpire, setup):
    return create_session(umpire, RS, "Corbach corrections", setup, ("french", "allies"))


def terms(result):
    return [(t["name"], t["value"]) for t in result["modifiers"]]


def test_a_turn_in_place_is_applied_and_verifies(umpire):
    """Item 1, the issue's own case: al-hussars in the skirmish turns in place to face sw."""
    r = umpire.post("/v1/sessions", SKIRMISH["session"])
    assert r.status == 201, r
    sid, tok = r.body["session"]["id"], r.body["tokens"]
    ref, al = tok["referee"], tok["sides"]["allies"]
    assert units(umpire, sid, ref)["al-hussars"]["facing"] == "s"

    out = act(umpire, sid, al, {"type": "move", "unit": "al-hussars", "path": [{"face": "sw"}]})
    assert "al-hussars turns in 1504 to face sw" in out["summary"]
    assert (out["result"]["from"], out["result"]["to"], out["result"]["facing"],
            out["result"]["cost"]) == ("1504", "1504", "sw", 1)
    hussars = units(umpire, sid, ref)["al-hussars"]
    assert (hussars["hex"], hussars["facing"]) == ("1504", "sw")

    # the next turn starts from sw: facing sw again is refused, back to s is a turn
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "al-hussars", "path": [{"face": "sw"}]}, token=al),
        422, "rules_violation", "path[0]")
    assert "already faces sw" in err["message"]
    out = act(umpire, sid, al, {"type": "move", "unit": "al-hussars", "path": [{"face": "s"}]})
    assert "al-hussars turns in 1504 to face s" in out["summary"]
    assert units(umpire, sid, ref)["al-hussars"]["facing"] == "s"

    act(umpire, sid, al, {"type": "move", "unit": "al-hussars", "path": [{"face": "sw"}]})
    assert units(umpire, sid, ref)["al-hussars"]["facing"] == "sw"

    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 3, rep
    events = umpire.events(sid, token=ref)[0]
    # the log says which rules adjudicated it: version 2 applied a turn in place (issue 20),
    # version 3 (issue 23, the sequence of play) still does; the moves are the marching movement's
    assert [e["data"]["ruleset_version"] for e in events[1:]] == [3, 3, 3]
    assert umpire.session(sid, token=ref)["ruleset_version"] == 3


def test_a_road_across_a_stream_is_a_bridge(umpire):
    """Item 2: the hexside 1205|1206 has a road and a stream and no `bridge`."""
    setup = small_setup([unit("a1", "french", "1206", "n"), unit("d1", "allies", "1205", "s")],
                        hexsides=[{"hexes": ["1205", "1206"], "features": ["stream", "road"]}])
    ans = expect(umpire.post(f"/v1/rulesets/{RS}/odds", {
        "type": "melee", "unit": "a1", "defender": "1205", "setup": setup}), 200)
    assert terms(ans) == [("ratio 1:1", 0), ("bridge", -2)]
    assert ans["modifier"] == -2

    # the bridge does not block d1's ZoC on 1206's neighbour: a unit crossing by it stops
    setup = small_setup([unit("m", "french", "1206", "n"), unit("e", "allies", "1305", "n")],
                        hexsides=[{"hexes": ["1204", "1305"], "features": ["road", "stream"]}])
    sid, tok = create(umpire, setup)
    fr = tok["sides"]["french"]
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "m", "path": ["1205", "1204", "1203"]}, token=fr),
        422, "rules_violation", "path[2]")
    assert "zone of control" in err["message"]
    out = act(umpire, sid, fr, {"type": "move", "unit": "m", "path": ["1205", "1204"]})
    assert out["result"]["stopped_by_zoc"] is True


def test_village_infantry_moves_and_assaults_into_its_flank_hexes(umpire):
    """Item 3: infantry in the village of 1204 facing n; 1305 (se) and 1105 (sw) are its flank
    hexes, which count as front ones; 1205 (s) is still its rear."""
    setup = small_setup([unit("v", "french", "1204", "n"), unit("d", "allies", "1305", "n")],
                        hexes={"1204": {"terrain": "village"}})
    sid, tok = create(umpire, setup)
    ref, fr = tok["referee"], tok["sides"]["french"]
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds",
                             {"type": "melee", "unit": "v", "defender": "1305"}, token=ref), 200)
    assert terms(ans) == [("ratio 1:1", 0)]          # from d's front, in the clear
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {
        "type": "move", "unit": "v", "path": ["1205"]}, token=fr), 422, "rules_violation",
        "path[0]")
    assert "front hexes" in err["message"]
    out = act(umpire, sid, fr, {"type": "move", "unit": "v", "path": ["1105"]})
    assert (out["result"]["to"], out["result"]["cost"]) == ("1105", 1)


def test_changed_order_needs_a_stack_in_an_enemy_zoc(umpire):
    """Item 4: d at 1205 facing s has 1206 in its ZoC; a1 alone there may not claim a change of
    order; stacked with a2 it may (-2)."""
    alone = small_setup([unit("a1", "french", "1206", "n"), unit("d", "allies", "1205", "s")])
    alone["turn"] = {"phases": ["combat"]}  # setup.turn: a session of the combat phase only
    sid, tok = create(umpire, alone)
    ref, fr = tok["referee"], tok["sides"]["french"]
    # the dice the old module took (1 - 2 = -1: attacker 1-TM+2-R1, and a1's test)
    body = {"type": "melee", "unit": "a1", "defender": "1205", "changed_order": True,
            "dice": [1, 1]}
    err = assert_error(umpire.post(f"/v1/sessions/{sid}/actions", body, token=fr),
                       422, "rules_violation", "changed_order")
    assert "change of order of a stack in an enemy ZoC" in err["message"]
    assert umpire.session(sid, token=ref)["version"] == 1          # nothing written

    stacked = small_setup([unit("a1", "french", "1206", "n"), unit("a2", "french", "1206", "n"),
                           unit("d", "allies", "1205", "s")])
    sid, tok = create(umpire, stacked)
    ref = tok["referee"]
    ans = expect(umpire.post(f"/v1/sessions/{sid}/odds", {
        "type": "melee", "unit": "a1", "defender": "1205", "changed_order": True}, token=ref), 200)
    assert ("change of order in enemy ZoC", -2) in terms(ans)
