"""Who may act: the 401/403 matrix of POST /actions and POST /reveal."""

import pytest

from umpire_client import assert_error, expect, random_hex

UNITS = [{"id": "a1", "side": "alice"}, {"id": "a2", "side": "alice"},
         {"id": "b1", "side": "bob"}]


@pytest.fixture
def two(umpire):
    """Two sessions with the same sides and units."""
    s = umpire.create_session(units=UNITS)
    other = umpire.create_session(units=UNITS)
    return umpire, s, other


def version(umpire, s):
    return umpire.session(s["session"]["id"], s["tokens"]["referee"])["version"]


def act(umpire, s, token, unit=None, raw=None, **extra):
    body = {"type": "roll", "expr": "1d6"}
    if unit is not None:
        body["unit"] = unit
    body.update(extra)
    path = f"/v1/sessions/{s['session']['id']}/actions"
    if raw is not None:
        return umpire.post(path, raw=raw, token=token)
    return umpire.post(path, body, token=token)


def test_action_without_token_is_401(two):
    umpire, s, _ = two
    assert_error(act(umpire, s, None), 401, "unauthorized")
    assert_error(act(umpire, s, None, unit="a1"), 401, "unauthorized")
    assert version(umpire, s) == 1


def test_action_with_unknown_token_is_401(two):
    umpire, s, _ = two
    assert_error(act(umpire, s, random_hex(32)), 401, "unauthorized")
    assert_error(act(umpire, s, "not-a-token"), 401, "unauthorized")
    assert_error(act(umpire, s, s["tokens"]["referee"].upper()), 401, "unauthorized")
    assert version(umpire, s) == 1


def test_action_with_other_sessions_token_is_401(two):
    umpire, s, other = two
    assert_error(act(umpire, s, other["tokens"]["referee"]), 401, "unauthorized")
    assert_error(act(umpire, s, other["tokens"]["sides"]["alice"], unit="a1"), 401,
                 "unauthorized")
    assert version(umpire, s) == 1
    assert version(umpire, other) == 1


def test_token_is_checked_before_json(two):
    umpire, s, _ = two
    assert_error(act(umpire, s, None, raw=b"{not json"), 401, "unauthorized")
    assert_error(act(umpire, s, random_hex(32), raw=b"{not json"), 401, "unauthorized")
    assert_error(act(umpire, s, s["tokens"]["referee"], raw=b"{not json"), 400, "invalid_json")


def test_side_acting_with_own_unit_is_200(two):
    umpire, s, _ = two
    r = act(umpire, s, s["tokens"]["sides"]["alice"], unit="a1")
    body = expect(r, 200)
    assert body["version"] == 2
    r = act(umpire, s, s["tokens"]["sides"]["alice"], unit="a2")
    assert expect(r, 200)["version"] == 3
    r = act(umpire, s, s["tokens"]["sides"]["bob"], unit="b1")
    assert expect(r, 200)["version"] == 4
    evs, _ = umpire.events(s["session"]["id"], s["tokens"]["referee"])
    assert [e["actor"] for e in evs[1:]] == ["side:alice", "side:alice", "side:bob"]
    assert evs[1]["data"]["action"]["unit"] == "a1"


def test_side_acting_with_other_sides_unit_is_403(two):
    umpire, s, _ = two
    assert_error(act(umpire, s, s["tokens"]["sides"]["alice"], unit="b1"), 403, "forbidden")
    assert_error(act(umpire, s, s["tokens"]["sides"]["bob"], unit="a2"), 403, "forbidden")
    assert version(umpire, s) == 1


def test_referee_acts_with_any_unit(two):
    umpire, s, _ = two
    ref = s["tokens"]["referee"]
    for i, unit in enumerate(["a1", "b1", "a2"]):
        assert expect(act(umpire, s, ref, unit=unit), 200)["version"] == 2 + i
    evs, _ = umpire.events(s["session"]["id"], ref)
    assert [e["actor"] for e in evs[1:]] == ["referee"] * 3


@pytest.mark.parametrize("who", ["referee", "alice"])
def test_unknown_unit_is_422(two, who):
    umpire, s, _ = two
    tok = s["tokens"]["referee"] if who == "referee" else s["tokens"]["sides"]["alice"]
    assert_error(act(umpire, s, tok, unit="zz"), 422, "unknown_unit")
    assert version(umpire, s) == 1


def test_unit_of_another_session_is_unknown(umpire):
    s = umpire.create_session(units=[{"id": "a1", "side": "alice"}])
    o = umpire.create_session(units=[{"id": "x9", "side": "alice"}])
    assert_error(act(umpire, s, s["tokens"]["referee"], unit="x9"), 422, "unknown_unit")
    assert_error(act(umpire, s, s["tokens"]["sides"]["alice"], unit="x9"), 422, "unknown_unit")
    assert version(umpire, s) == 1 and version(umpire, o) == 1


def test_reveal_auth(two):
    umpire, s, other = two
    path = f"/v1/sessions/{s['session']['id']}/reveal"
    assert_error(umpire.post(path, {}), 401, "unauthorized")
    assert_error(umpire.post(path, {}, token=random_hex(32)), 401, "unauthorized")
    assert_error(umpire.post(path, {}, token=other["tokens"]["referee"]), 401, "unauthorized")
    # Any token of the session may ask for a reveal (issue 19); with no die rolled under the
    # current seed there is nothing to reveal, for the referee and the sides alike.
    for token in (s["tokens"]["sides"]["alice"], s["tokens"]["sides"]["bob"],
                  s["tokens"]["referee"]):
        assert_error(umpire.post(path, {}, token=token), 409, "nothing_to_reveal")
    assert version(umpire, s) == 1
    expect(act(umpire, s, s["tokens"]["referee"]), 200)
    body = expect(umpire.post(path, {}, token=s["tokens"]["sides"]["bob"]), 200)
    assert body["version"] == 3
    evs, _ = umpire.events(s["session"]["id"], s["tokens"]["referee"])
    assert evs[-1]["type"] == "dice_seed_revealed" and evs[-1]["actor"] == "side:bob"


def test_public_session_still_needs_a_token_to_act(umpire):
    s = umpire.create_session(units=UNITS, visibility="public")
    assert_error(act(umpire, s, None, unit="a1"), 401, "unauthorized")
    assert_error(umpire.post(f"/v1/sessions/{s['session']['id']}/reveal", {}), 401,
                 "unauthorized")
    assert expect(umpire.get(f"/v1/sessions/{s['session']['id']}"), 200)["session"]["version"] == 1


def test_action_on_unknown_session_is_404(umpire):
    s = umpire.create_session()
    r = umpire.post(f"/v1/sessions/{random_hex(16)}/actions", {"type": "roll", "expr": "1d6"},
                    token=s["tokens"]["referee"])
    assert_error(r, 404, "session_not_found")


def test_tokens_keep_their_meaning_once_authenticated(two):
    """The loop thread remembers tokens it has found (server/api/token_cache.h): a remembered token
    still means exactly its role in its own session, and nothing anywhere else."""
    umpire, s, other = two
    sid, oid = s["session"]["id"], other["session"]["id"]
    ref, alice = s["tokens"]["referee"], s["tokens"]["sides"]["alice"]
    for _ in range(2):  # the first round fills the cache, the second is answered from it
        assert_error(act(umpire, s, random_hex(32)), 401, "unauthorized")
        expect(act(umpire, s, alice, unit="a1"), 200)
        expect(act(umpire, s, ref, unit="b1"), 200)
        assert_error(act(umpire, s, alice, unit="b1"), 403, "forbidden")
        assert_error(umpire.get(f"/v1/sessions/{sid}/webhooks", token=alice), 403, "forbidden")
        assert_error(act(umpire, other, ref), 401, "unauthorized")
        assert_error(act(umpire, other, alice, unit="a1"), 401, "unauthorized")
        assert_error(act(umpire, s, ref.upper()), 401, "unauthorized")
        r = umpire.post(f"/v1/sessions/{random_hex(16)}/actions", {"type": "roll", "expr": "1d6"},
                        token=ref)
        assert_error(r, 404, "session_not_found")
    evs, _ = umpire.events(sid, ref)
    assert [e["actor"] for e in evs[1:]] == ["side:alice", "referee"] * 2
    assert version(umpire, other) == 1
    # The other session's own tokens were never refused for having been tried here.
    expect(act(umpire, other, other["tokens"]["referee"]), 200)
    assert version(umpire, other) == 2
