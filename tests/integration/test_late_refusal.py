"""No answer depends on a die that was not committed (issue 19, rules/ruleset.h).

A refusal that came after a die would show that die without spending it: in a server-dice
session the nonce is not used, so a side could ask again and again, read the next die each time,
and then pick which action gets it. In vaevictis-corbach-1760 a move that climbed two levels
(TET footnote 3: a test for disorganisation) and then ran out of movement points answered 422
with the climb test's die in its message. Now the whole path is checked before the test is
rolled: the same 422 every time, no die in it, and the session (version, next nonce, log) is
untouched. The die is drawn only by a legal move, which commits with whatever it decides."""

import json

from umpire_client import assert_error, expect

from ruleset_helpers import act, create_session

RS = "vaevictis-corbach-1760"
# 1207 stands two levels up: from 1208 it costs 2 (clear 1, climbing two levels 1) and a test.
SETUP = {
    "map": {"columns": [10, 15], "rows": [1, 9], "columns_shifted": "even",
            "hexes": {"1207": {"terrain": "clear", "level": 2}}},
    "units": [
        {"id": "al-line", "side": "allies", "type": "line_infantry", "hex": "1208",
         "facing": "n", "strength": 3, "morale": 3},
        {"id": "fr-line", "side": "french", "type": "line_infantry", "hex": "1502",
         "facing": "s", "strength": 3, "morale": 3},
    ],
}
# 2 + 1 + 1 + 1 = 5 movement points; line infantry has 4 (house default)
TOO_FAR = {"type": "move", "unit": "al-line", "path": ["1207", "1206", "1205", "1204"]}
LEGAL = {"type": "move", "unit": "al-line", "path": ["1207", "1206", "1205"]}


def where(umpire, sid, token):
    s = umpire.session(sid, token)
    events, _ = umpire.events(sid, token)
    return s["version"], s["dice"]["next_nonce"], len(events)


def test_the_corbach_climb_is_refused_before_its_die(umpire):
    sid, tokens = create_session(umpire, RS, "late refusal", SETUP, ("allies", "french"),
                                 mode="server")
    allies = tokens["sides"]["allies"]
    before = where(umpire, sid, allies)

    answers = []
    for _ in range(2):
        r = umpire.post(f"/v1/sessions/{sid}/actions", TOO_FAR, token=allies)
        assert_error(r, 422, "rules_violation", "path")
        answers.append(r.raw)
    assert answers[0] == answers[1], answers
    message = expect_message(answers[0])
    assert message == ("the path costs 5 movement points; unit 'al-line' has 4 (1207 2 (+1 "
                       "clear, +1 climbing two levels); 1206 1 (+1 clear); 1205 1 (+1 clear); "
                       "1204 1 (+1 clear))"), message
    assert "test" not in message and "morale" not in message  # no die in it
    # nothing written, no nonce used
    assert where(umpire, sid, allies) == before

    # the legal path rolls the test and commits with it: one die, one event
    out = act(umpire, sid, allies, LEGAL)
    assert out["result"]["to"] == "1205"
    assert len(out["result"]["tests"]) == 1
    assert out["result"]["state"] in ("good", "disorganized")
    version, nonce, nevents = where(umpire, sid, allies)
    assert (version, nonce, nevents) == (before[0] + 1, before[1] + 1, before[2] + 1)


def expect_message(raw):
    return json.loads(raw)["error"]["message"]


def test_the_refusal_is_the_same_in_every_session(umpire):
    """Eight server-dice sessions (eight seeds): the refusal depends on none of them (before the
    fix the message carried the die, so eight of them were all alike about once in 280,000)."""
    bodies = []
    for _ in range(8):
        sid, tokens = create_session(umpire, RS, "late refusal", SETUP, ("allies", "french"),
                                     mode="server")
        r = umpire.post(f"/v1/sessions/{sid}/actions", TOO_FAR, token=tokens["sides"]["allies"])
        assert_error(r, 422, "rules_violation", "path")
        bodies.append(r.raw)
        assert expect(umpire.get(f"/v1/sessions/{sid}", token=tokens["referee"]),
                      200)["session"]["dice"]["next_nonce"] == 1
    assert len(set(bodies)) == 1, bodies
