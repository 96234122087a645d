"""generic with setup.turn (issue 23, item 1: a sequence of play for every ruleset): each side in
turn has a Play phase in which it rolls and which it ends; a side out of its turn is refused
before any die, the referee's roll for a side's unit out of sequence is an override the log
shows. Without setup.turn the table plays its own rules: anyone rolls at any time."""

from umpire_client import assert_error, expect
from umpire_ref import verify_chain

from ruleset_helpers import act

UNITS = [{"id": "red-knight", "side": "red"}, {"id": "blue-knight", "side": "blue"}]


def create(umpire, setup):
    r = umpire.post("/v1/sessions", {"ruleset": "generic", "title": "turns", "sides": ["red", "blue"],
                                     "dice": {"mode": "manual"}, "setup": setup})
    body = expect(r, 201)
    return body["session"]["id"], body["tokens"]


def roll(side, unit, dice=(3,)):
    return {"type": "roll", "unit": unit, "expr": "1d6", "dice": list(dice)}


def post(umpire, sid, token, body):
    return umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)


def turn(umpire, sid, token):
    t = expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]["turn"]
    return t["number"], t["player"], t["phase"]


def test_two_full_turns_in_order(umpire):
    sid, tok = create(umpire, {"units": UNITS, "turn": {}})
    ref, red, blue = tok["referee"], tok["sides"]["red"], tok["sides"]["blue"]
    desc = expect(umpire.get("/v1/rulesets/generic"), 200)
    # The Sealed choice is optional: a session whose setup names no phases plays without it.
    assert [p["name"] for p in desc["sequence"]["phases"]] == ["play", "choice"]
    assert desc["sequence"]["phases"][1]["optional"] is True
    assert "end_phase" in [a["type"] for a in desc["actions"]]
    assert turn(umpire, sid, ref) == (1, "red", "play")
    for number in (1, 2):
        for side, token, other, other_token in (("red", red, "blue", blue), ("blue", blue, "red", red)):
            assert turn(umpire, sid, ref) == (number, side, "play")
            version = umpire.session(sid, token=ref)["version"]
            err = assert_error(post(umpire, sid, other_token, roll(other, f"{other}-knight")), 409,
                               "not_your_turn")
            assert err["details"]["player"] == side
            assert_error(post(umpire, sid, other_token, {"type": "end_phase"}), 409, "not_your_turn")
            assert umpire.session(sid, token=ref)["version"] == version  # nothing written
            out = act(umpire, sid, token, roll(side, f"{side}-knight", (4,)))
            assert out["result"]["total"] == 4 and "override" not in out["result"]
            act(umpire, sid, token, {"type": "end_phase"})
    assert turn(umpire, sid, ref) == (3, "red", "play")
    # The referee rolls for blue's knight in red's phase: an override, said first in the log.
    out = act(umpire, sid, ref, roll("blue", "blue-knight", (6,)))
    assert out["result"]["override"] == "blue does not roll in the Play phase of red's turn 3"
    assert out["summary"].startswith("Referee's ruling, out of sequence (")
    events = umpire.events(sid, token=ref)[0]
    verify_chain(events)
    assert events[-1]["data"]["result"]["override"]
    assert expect(umpire.get(f"/v1/sessions/{sid}/verify", token=red), 200)["ok"] is True


def test_without_turn_anyone_rolls_at_any_time(umpire):
    sid, tok = create(umpire, {"units": UNITS})
    red, blue = tok["sides"]["red"], tok["sides"]["blue"]
    for token, side in ((blue, "blue"), (red, "red"), (blue, "blue")):
        assert "override" not in act(umpire, sid, token, roll(side, f"{side}-knight"))["result"]
    assert_error(post(umpire, sid, red, {"type": "end_phase"}), 409, "no_sequence")
    assert "turn" not in expect(umpire.get(f"/v1/sessions/{sid}", token=red), 200)["state"]


def test_a_turn_naming_an_unknown_side_is_refused(umpire):
    r = umpire.post("/v1/sessions", {"ruleset": "generic", "title": "x", "sides": ["red", "blue"],
                                     "setup": {"units": UNITS, "turn": {"order": ["red", "green"]}}})
    assert_error(r, 422, None, "setup.turn.order")
