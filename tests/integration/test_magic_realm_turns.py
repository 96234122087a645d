"""magic-realm's sequence of play and kits (issue 23, items 1-2): two rounds of Situation 10 in
turn order, each side's out-of-turn action refused, the referee's override logged, and an
attack naming a weapon the unit lacks refused before any die."""
import json
from pathlib import Path

from umpire_client import assert_error

REPO = Path(__file__).resolve().parents[2]
SHARKS = json.loads((REPO / "scenarios" / "magic-realm-sharks-with-wings.json").read_text())


def post(umpire, sid, tokens, action):
    body = dict(action)
    who = body.pop("as")
    token = tokens["referee"] if who == "referee" else tokens["sides"][who]
    return umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)


def test_two_rounds_in_turn_order_with_refusals_and_an_override(umpire):
    r = umpire.post("/v1/sessions", SHARKS["session"])
    assert r.status == 201, r
    sid, tokens = r.body["session"]["id"], r.body["tokens"]
    acts = SHARKS["actions"]
    # Plays of round 1: the resolution's round is out of phase for a side
    assert_error(post(umpire, sid, tokens, {"as": "monsters", "type": "round"}), 422, "wrong_phase")
    for a in acts[:4]:                       # knight plays, bats play, knight ends his part
        assert post(umpire, sid, tokens, a).status == 200
    err = assert_error(post(umpire, sid, tokens, acts[0]), 409, "not_your_turn")
    assert err["details"]["acting"] == ["monsters"]
    for a in acts[4:6]:                      # monsters end; the referee's round (length)
        r = post(umpire, sid, tokens, a)
        assert r.status == 200, r
    assert "round 1 of combat ends" in r.body["summary"]
    # Round 2: a play naming a weapon the knight lacks: 422 naming his kit, no die
    bad = dict(acts[6], attacks=[{"name": "Broadsword, F M4**", "box": "swing", "target": "bat-1"}])
    err = assert_error(post(umpire, sid, tokens, bad), 422, "not_in_kit")
    assert "Great Sword, F H6" in err["details"]["attacks"]
    raw = {"as": "knight", "type": "attack", "unit": "white-knight", "target": {"unit": "bat-1"},
           "hit": "intercept", "attack": {"kind": "striking", "harm": "T", "time": 1}}
    assert_error(post(umpire, sid, tokens, raw), 422, "wrong_phase")
    for a in acts[6:11]:
        assert post(umpire, sid, tokens, a).status == 200
    # resolution: a play is out of phase for the monsters; the referee's play is an override
    assert_error(post(umpire, sid, tokens, acts[7]), 422, "wrong_phase")
    r = post(umpire, sid, tokens, dict(acts[7], **{"as": "referee"}))
    assert r.status == 200, r
    assert r.body["result"]["override"]
    assert r.body["summary"].startswith("Referee's ruling, out of sequence")
    r = post(umpire, sid, tokens, acts[11])   # round 2 of the plays, called by a side
    assert r.status == 200, r
    assert r.body["result"]["turn"] == {"number": 3, "phase": "plays"}
    s = umpire.get(f"/v1/sessions/{sid}", token=tokens["referee"]).body
    assert s["state"]["turn"]["number"] == 3
    wk = next(u for u in s["state"]["units"] if u["id"] == "white-knight")
    assert wk["wounds"] == 4
    r = umpire.get(f"/v1/sessions/{sid}/verify", token=tokens["referee"])
    assert r.body["ok"] is True, r.body


def test_a_unit_killed_after_its_play_lapses_in_the_round(umpire):
    """An attack of the Resolution phase kills bat-2 after it played: the round of the plays
    still resolves (the plays were committed), and bat-2's strike lapses, said so."""
    r = umpire.post("/v1/sessions", SHARKS["session"])
    assert r.status == 201, r
    sid, tokens = r.body["session"]["id"], r.body["tokens"]
    for a in SHARKS["actions"][:5]:
        assert post(umpire, sid, tokens, a).status == 200
    kill = {"as": "knight", "type": "attack", "unit": "white-knight", "attack": {"name": "Great Sword, F H6"},
            "target": {"unit": "bat-2"}, "hit": "intercept"}
    r = post(umpire, sid, tokens, kill)
    assert r.status == 200 and r.body["result"]["pending"] is True, r
    # the declared intercept is the knight's word: the monsters accept it, and the dice roll
    r = post(umpire, sid, tokens, {"as": "monsters", "type": "accept", "claim": 1, "dice": [1, 1]})
    assert r.status == 200, r
    assert r.body["summary"].endswith("bat-2 killed")
    r = post(umpire, sid, tokens, {"as": "monsters", "type": "round", "dice": [6, 6, 4, 1]})
    assert r.status == 200, r
    assert "bat-2 Giant Bat (striking M2) at white-knight: bat-2 was killed before its attack" in r.body["summary"]
    assert "round 1 of combat ends" in r.body["summary"]
    assert umpire.get(f"/v1/sessions/{sid}/verify", token=tokens["referee"]).body["ok"] is True


def test_flying_away_is_the_setups(umpire):
    """5.1.3 "if he flies away": the white knight does not fly (his setup says nothing of it), so
    a side's run or play that says he flies is refused before any die; the referee may rule it."""
    r = umpire.post("/v1/sessions", SHARKS["session"])
    assert r.status == 201, r
    sid, tokens = r.body["session"]["id"], r.body["tokens"]
    play = dict(SHARKS["actions"][0], run={"maneuver": "Move H4**", "flying": True})
    err = assert_error(post(umpire, sid, tokens, play), 422, "not_flying")
    assert err["details"] == {"field": "run.flying", "unit": "white-knight"}
    assert post(umpire, sid, tokens, dict(play, **{"as": "referee"})).status == 200
