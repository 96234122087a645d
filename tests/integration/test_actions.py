"""POST /v1/sessions/{id}/actions with the generic ruleset's roll."""

import threading

import pytest

from umpire_client import Client, assert_error, expect
from umpire_ref import (HEX64, check_consecutive_nonces, check_roll, dice_of_event,
                        flat_dice, verify_chain)

UNITS = [{"id": "a1", "side": "alice"}, {"id": "b1", "side": "bob"}]


@pytest.fixture
def sess(umpire):
    s = umpire.create_session(units=UNITS)
    return umpire, s["session"]["id"], s["tokens"]["referee"], s


def cur_version(umpire, sid, ref):
    s = umpire.session(sid, ref)
    return s["version"], s["head"]


def test_roll_response_shape(sess):
    umpire, sid, ref, s = sess
    body = expect(umpire.roll(sid, ref, "2d6+1"), 200)
    for k in ("version", "head", "summary", "result", "events"):
        assert k in body, f"action response lacks {k}: {body!r}"
    assert body["version"] == 2
    assert HEX64.match(body["head"]) and body["head"] != s["session"]["head"]
    assert isinstance(body["summary"], str) and body["summary"] and "\n" not in body["summary"]
    assert type(body["result"]["total"]) is int
    assert isinstance(body["result"]["terms"], list)
    assert body["result"].get("expr") == "2d6+1"
    assert len(body["events"]) == 1
    e = body["events"][0]
    assert set(e) >= {"seq", "type", "hash"}
    assert e["seq"] == 2 and e["type"] == "roll" and e["hash"] == body["head"]


def test_version_increments_and_head_matches_events(sess):
    umpire, sid, ref, _ = sess
    responses = [umpire.roll(sid, ref, "1d6").body for _ in range(6)]
    assert [r["version"] for r in responses] == list(range(2, 8))
    evs, page = umpire.events(sid, ref)
    assert len(evs) == 7
    assert page["head"] == responses[-1]["head"] == evs[-1]["hash"]
    assert [e["hash"] for e in evs[1:]] == [r["head"] for r in responses]
    assert [e["seq"] for e in evs[1:]] == [r["events"][0]["seq"] for r in responses]
    verify_chain(evs, head=responses[-1]["head"])
    assert cur_version(umpire, sid, ref) == (7, responses[-1]["head"])


EXPRS = ["1d6", "2d6+1", "3d6kh2+1d4-1", "4d6kl3", "1d1000", "100d2", "1d6-1",
         "10d10kh1+2d20kl1+7", "1d1", "2d4-1d4+3", "5d6kh5", "100d6"]


def test_totals_within_bounds_and_event_data(sess):
    umpire, sid, ref, _ = sess
    responses = []
    for expr in EXPRS:
        body = umpire.roll(sid, ref, expr).body
        responses.append((expr, body))
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=page["head"])
    assert len(evs) == 1 + len(EXPRS)
    for (expr, body), ev in zip(responses, evs[1:]):
        assert ev["type"] == "roll" and ev["actor"] == "referee"
        data = ev["data"]
        assert type(data.get("ruleset_version")) is int, data
        assert data["action"].get("type") == "roll" and data["action"].get("expr") == expr, data
        assert "dice" not in data["action"] and "expect_version" not in data["action"]
        assert data["result"] == body["result"], (data["result"], body["result"])
        assert data["summary"] == body["summary"]
        entries = dice_of_event(ev)
        for entry in entries:
            assert set(entry) >= {"purpose", "notation", "values", "value", "nonce"}, entry
            assert "manual" not in entry or entry["manual"] is False, entry
        check_roll(expr, body["result"], entries)
    # nonces count from 1 and are consecutive across entries and actions
    check_consecutive_nonces(flat_dice(evs), first=1)
    s = umpire.session(sid, ref)
    assert s["dice"]["next_nonce"] == 1 + len(flat_dice(evs))


def test_summary_names_actor_expr_and_total(sess):
    umpire, sid, ref, _ = sess
    body = umpire.roll(sid, ref, "3d6kh2+1").body
    assert body["summary"].startswith(f"referee rolled 3d6kh2+1 = {body['result']['total']} ("), \
        body["summary"]


def test_purpose_labels_the_dice(sess):
    umpire, sid, ref, _ = sess
    body = umpire.roll(sid, ref, "2d6+1d4", purpose="fumble").body
    evs, _ = umpire.events(sid, ref)
    check_roll("2d6+1d4", body["result"], dice_of_event(evs[-1]), purpose="fumble")


@pytest.mark.parametrize("expr,position", [
    ("2d6+x", 4),
    ("x", 0),
    ("2d6+1d4*2", 7),
    ("2d6++1", 4),
])
def test_bad_notation_names_position(sess, expr, position):
    umpire, sid, ref, _ = sess
    err = assert_error(umpire.roll(sid, ref, expr, expect=None), 422, "invalid_notation")
    assert err["details"].get("position") == position, err
    assert cur_version(umpire, sid, ref)[0] == 1


@pytest.mark.parametrize("expr", ["2d", "d", "+", "2d6+", "1d0", "1d1001",
                                  "101d6", "60d6+41d6", "3d6kh", "1d99999999999999999999",
                                  "99999999999999999999d6"])
def test_invalid_notation_is_422_and_writes_nothing(sess, expr):
    umpire, sid, ref, _ = sess
    err = assert_error(umpire.roll(sid, ref, expr, expect=None), 422)
    assert err["code"] == "invalid_notation", err
    assert type(err["details"].get("position")) is int, err
    assert cur_version(umpire, sid, ref)[0] == 1


def test_hundred_dice_and_thousand_sides_allowed(sess):
    umpire, sid, ref, _ = sess
    umpire.roll(sid, ref, "100d1000")
    umpire.roll(sid, ref, "50d6+50d4")
    assert cur_version(umpire, sid, ref)[0] == 3


def test_unknown_action_type(sess):
    umpire, sid, ref, _ = sess
    r = umpire.post(f"/v1/sessions/{sid}/actions", {"type": "attack", "expr": "1d6"}, token=ref)
    err = assert_error(r, 422, "unknown_action")
    assert "roll" in err["details"].get("actions", []), err
    assert cur_version(umpire, sid, ref)[0] == 1


@pytest.mark.parametrize("body,field", [
    ({"type": "roll"}, "expr"),
    ({"type": "roll", "expr": 26}, "expr"),
    ({"type": "roll", "expr": ["1d6"]}, "expr"),
    ({"expr": "1d6"}, "type"),
    ({"type": 5, "expr": "1d6"}, "type"),
    ({"type": "roll", "expr": "1d6", "expect_version": "1"}, "expect_version"),
    ({"type": "roll", "expr": "1d6", "expect_version": 1.5}, "expect_version"),
    ({"type": "roll", "expr": "1d6", "unit": 3}, "unit"),
    ({"type": "roll", "expr": "1d6", "purpose": 3}, "purpose"),
])
def test_invalid_fields_are_400(sess, body, field):
    umpire, sid, ref, _ = sess
    r = umpire.post(f"/v1/sessions/{sid}/actions", body, token=ref)
    assert_error(r, 400, "invalid_field", field)
    assert cur_version(umpire, sid, ref)[0] == 1


def test_action_body_must_be_json(sess):
    umpire, sid, ref, _ = sess
    path = f"/v1/sessions/{sid}/actions"
    assert_error(umpire.post(path, raw=b'{"type":"roll","expr":"1d6"', token=ref), 400,
                 "invalid_json")
    assert_error(umpire.post(path, raw=b'{"type":"roll","expr":"1d6","expr":"2d6"}',
                             token=ref), 400, "invalid_json")
    assert_error(umpire.post(path, raw=b'{"type":"roll","expr":"1d6"}', token=ref,
                             content_type="text/plain"), 415, "unsupported_media_type")
    assert cur_version(umpire, sid, ref)[0] == 1


def test_expect_version(sess):
    umpire, sid, ref, _ = sess
    umpire.roll(sid, ref, "1d6")                                   # version 2
    v, head = cur_version(umpire, sid, ref)
    assert v == 2
    for stale in (1, 3, 99):
        err = assert_error(umpire.roll(sid, ref, "1d6", expect=None, expect_version=stale),
                           409, "version_conflict")
        assert err["details"].get("expected") == stale, err
        assert err["details"].get("actual") == 2, err
        assert cur_version(umpire, sid, ref) == (2, head), "a version conflict wrote something"
    evs, _ = umpire.events(sid, ref)
    assert len(evs) == 2
    body = umpire.roll(sid, ref, "1d6", expect_version=2).body
    assert body["version"] == 3
    body = umpire.roll(sid, ref, "1d6", expect_version=3).body
    assert body["version"] == 4
    evs, _ = umpire.events(sid, ref)
    assert "expect_version" not in evs[-1]["data"]["action"]


@pytest.mark.parametrize("mode,seed", [("server", None), ("seeded", "ab" * 32)])
def test_dice_list_not_allowed_outside_manual(umpire, mode, seed):
    s = umpire.create_session(mode=mode, seed=seed)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    r = umpire.roll(sid, ref, "2d6", expect=None, dice=[3, 4])
    assert_error(r, 422, "dice_not_allowed")
    r = umpire.roll(sid, ref, "2d6", expect=None, dice=[])
    assert_error(r, 422, "dice_not_allowed")
    assert cur_version(umpire, sid, ref)[0] == 1


def test_concurrent_rolls_are_serialised(sess):
    """Four connections rolling at once: versions and nonces stay unique, chain intact."""
    umpire, sid, ref, _ = sess
    per_thread = 15
    results = [[] for _ in range(4)]
    errors = []

    def worker(i):
        c = Client(umpire.daemon)
        try:
            for _ in range(per_thread):
                r = c.roll(sid, ref, "2d6", expect=None)
                if r.status != 200:
                    errors.append(r)
                    return
                results[i].append(r.body["version"])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            c.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert not errors, errors[:3]
    versions = sorted(v for r in results for v in r)
    assert versions == list(range(2, 2 + 4 * per_thread))
    evs, page = umpire.events(sid, ref)
    assert len(evs) == 1 + 4 * per_thread
    verify_chain(evs, head=page["head"])
    check_consecutive_nonces(flat_dice(evs), first=1)


@pytest.mark.parametrize("expr", ["1d6+9223372036854775807", "9223372036854775807+9223372036854775807",
                                  "1d6-9223372036854775807-9223372036854775807",
                                  "18446744073709551617+1d4"])
def test_huge_constants_are_refused_or_exact(sess, expr):
    """No silent integer overflow: either 422 invalid_notation or an exactly right total."""
    umpire, sid, ref, _ = sess
    r = umpire.roll(sid, ref, expr, expect=None)
    if r.status == 422:
        assert_error(r, 422, "invalid_notation")
        assert cur_version(umpire, sid, ref)[0] == 1
        return
    body = expect(r, 200)
    evs, _ = umpire.events(sid, ref)
    check_roll(expr, body["result"], dice_of_event(evs[-1]))
