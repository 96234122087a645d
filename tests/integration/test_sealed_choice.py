"""generic's sealed choice (issue 24, item 1: "generic: a sealed choice, e.g. secret bids"): with
setup.turn {phases: ["choice", "play"], sealed: true} each turn opens with a Sealed choice phase
in which every side seals a `choose`; nobody reads a bid before the last is sealed, the reveal
records them all at once and the turn goes on to the Plays. Without `sealed` the choices are
made in the open; a setup naming no phases has no choice phase."""

import hashlib
import json

from umpire_client import assert_error, expect

UNITS = [{"id": "red-lord", "side": "red"}, {"id": "blue-lord", "side": "blue"}]


def create(umpire, turn):
    r = umpire.post("/v1/sessions", {"ruleset": "generic", "title": "bids", "sides": ["red", "blue"],
                                     "setup": {"units": UNITS, "turn": turn}})
    body = expect(r, 201)
    return body["session"]["id"], body["tokens"]


def seal(umpire, sid, token, choice):
    return umpire.request("PUT", f"/v1/sessions/{sid}/orders/choice",
                          body={"orders": [{"type": "choose", "choice": choice}]}, token=token)


def state(umpire, sid, token):
    return expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]


def test_secret_bids_are_sealed_then_revealed_together(umpire):
    sid, tok = create(umpire, {"phases": ["choice", "play"], "sealed": True})
    ref, red, blue = tok["referee"], tok["sides"]["red"], tok["sides"]["blue"]
    t = state(umpire, sid, ref)["turn"]
    assert (t["phase"], t["sealed"], t["acting"]) == ("choice", True, ["red", "blue"])
    # One by one is refused: the choice is sealed.
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {"type": "choose", "choice": "1"},
                             token=red), 409, "orders_sealed")
    a = expect(seal(umpire, sid, red, "twelve gold crowns"), 200)
    assert a["revealed"] is False
    want = hashlib.sha256(bytes.fromhex(a["salt"]) + json.dumps(
        a["orders"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    assert a["commitment"] == want
    # Blue, the referee and a reader see that red has bid, not what.
    for token in (blue, ref, None):
        r = umpire.get(f"/v1/sessions/{sid}", token=token)
        assert "twelve gold" not in r.raw.decode() and a["salt"] not in r.raw.decode()
        r = umpire.get(f"/v1/sessions/{sid}/events", token=token)
        assert "twelve gold" not in r.raw.decode()
    assert state(umpire, sid, ref)["turn"]["done"] == ["red"]
    b = expect(seal(umpire, sid, blue, "nine gold crowns"), 200)
    assert b["revealed"] is True
    assert b["summary"] == ("Sealed orders revealed for the Sealed choice phase of turn 1: red "
                            "chooses: twelve gold crowns; blue chooses: nine gold crowns")
    st = state(umpire, sid, ref)
    assert st["choices"] == {"red": "twelve gold crowns", "blue": "nine gold crowns"}
    assert (st["turn"]["phase"], st["turn"]["player"]) == ("play", "red")
    assert expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)["ok"] is True


def test_a_choice_is_a_sides_own(umpire):
    sid, tok = create(umpire, {"phases": ["choice", "play"], "sealed": True})
    assert_error(seal(umpire, sid, tok["referee"], "x"), 403, "forbidden")
    err = assert_error(umpire.request("PUT", f"/v1/sessions/{sid}/orders/choice", body={"orders": [{"type": "choose", "choice": ""}]},
                                  token=tok["sides"]["red"]), 422, "invalid_orders")
    assert err["details"]["error"]["code"] == "invalid_field"
    err = assert_error(umpire.request("PUT", f"/v1/sessions/{sid}/orders/choice", body={"orders": [{"type": "roll", "expr": "1d6"}]},
                                  token=tok["sides"]["red"]), 422, "invalid_orders")
    assert err["details"]["error"]["code"] == "wrong_phase"


def test_open_choices_and_no_choice_phase_by_default(umpire):
    sid, tok = create(umpire, {"phases": ["choice", "play"]})
    ref, red, blue = tok["referee"], tok["sides"]["red"], tok["sides"]["blue"]
    r = expect(umpire.post(f"/v1/sessions/{sid}/actions", {"type": "choose", "choice": "north"},
                           token=red), 200)
    assert r["summary"] == "red chooses: north"
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", {"type": "choose", "choice": "x"},
                             token=ref), 422, "rule_violation")
    for token in (red, blue):
        expect(umpire.post(f"/v1/sessions/{sid}/actions", {"type": "end_phase"}, token=token), 200)
    assert state(umpire, sid, ref)["turn"]["phase"] == "play"
    # A setup naming no phases plays without the choice, as sessions made before it did.
    sid, tok = create(umpire, {})
    assert state(umpire, sid, tok["referee"])["turn"]["phase"] == "play"
    assert_error(umpire.request("PUT", f"/v1/sessions/{sid}/orders/choice", body={"orders": []},
                            token=tok["sides"]["red"]), 409, "no_sealed_step")
