"""Idempotency-Key on POST /actions."""

import pytest

from umpire_client import assert_error, expect
from umpire_ref import verify_chain


@pytest.fixture
def sess(umpire):
    s = umpire.create_session()
    return umpire, s["session"]["id"], s["tokens"]["referee"], s


def post(umpire, sid, tok, body, key):
    headers = {"Idempotency-Key": key} if key is not None else None
    return umpire.post(f"/v1/sessions/{sid}/actions", body, token=tok, headers=headers)


def version(umpire, sid, ref):
    return umpire.session(sid, ref)["version"]


def is_replay(r):
    return (r.header("Idempotent-Replay") or "").strip().lower() == "true"


def test_same_key_same_body_replays(sess):
    umpire, sid, ref, _ = sess
    body = {"type": "roll", "expr": "3d6kh2+1"}
    first = post(umpire, sid, ref, body, "key-1")
    expect(first, 200)
    assert not is_replay(first), "the first answer must not be marked as a replay"
    for _ in range(3):
        again = post(umpire, sid, ref, body, "key-1")
        assert again.status == 200, again
        assert again.raw == first.raw, "the replay is not byte for byte the first answer"
        assert is_replay(again), f"no Idempotent-Replay: true header: {dict(again.headers)}"
    assert version(umpire, sid, ref) == 2
    evs, page = umpire.events(sid, ref)
    assert len(evs) == 2
    verify_chain(evs, head=first.body["head"])


def test_replay_after_other_actions_returns_the_old_answer(sess):
    umpire, sid, ref, _ = sess
    body = {"type": "roll", "expr": "1d20"}
    first = post(umpire, sid, ref, body, "k")
    umpire.roll(sid, ref, "1d6")
    umpire.roll(sid, ref, "1d6")
    again = post(umpire, sid, ref, body, "k")
    assert again.status == 200 and again.raw == first.raw and is_replay(again)
    assert version(umpire, sid, ref) == 4


def test_same_key_different_body_is_422(sess):
    umpire, sid, ref, _ = sess
    first = post(umpire, sid, ref, {"type": "roll", "expr": "1d6"}, "key-x")
    expect(first, 200)
    r = post(umpire, sid, ref, {"type": "roll", "expr": "1d8"}, "key-x")
    assert_error(r, 422, "idempotency_key_reused")
    r = post(umpire, sid, ref, {"type": "roll", "expr": "1d6", "purpose": "other"}, "key-x")
    assert_error(r, 422, "idempotency_key_reused")
    assert version(umpire, sid, ref) == 2
    # the original still replays
    again = post(umpire, sid, ref, {"type": "roll", "expr": "1d6"}, "key-x")
    assert again.raw == first.raw and is_replay(again)


def test_different_keys_are_two_actions(sess):
    umpire, sid, ref, _ = sess
    body = {"type": "roll", "expr": "2d6"}
    a = post(umpire, sid, ref, body, "key-a")
    b = post(umpire, sid, ref, body, "key-b")
    expect(a, 200)
    expect(b, 200)
    assert not is_replay(a) and not is_replay(b)
    assert (a.body["version"], b.body["version"]) == (2, 3)
    assert a.body["head"] != b.body["head"]
    assert version(umpire, sid, ref) == 3


def test_no_key_is_never_deduplicated(sess):
    umpire, sid, ref, _ = sess
    body = {"type": "roll", "expr": "2d6"}
    assert post(umpire, sid, ref, body, None).body["version"] == 2
    assert post(umpire, sid, ref, body, None).body["version"] == 3


def test_keys_are_per_session(umpire):
    a = umpire.create_session()
    b = umpire.create_session()
    body = {"type": "roll", "expr": "1d6"}
    ra = post(umpire, a["session"]["id"], a["tokens"]["referee"], body, "shared")
    rb = post(umpire, b["session"]["id"], b["tokens"]["referee"], body, "shared")
    expect(ra, 200)
    expect(rb, 200)
    assert not is_replay(rb)
    assert rb.body["head"] != ra.body["head"]
    assert version(umpire, b["session"]["id"], b["tokens"]["referee"]) == 2


def test_failed_action_does_not_burn_the_key(sess):
    umpire, sid, ref, _ = sess
    r = post(umpire, sid, ref, {"type": "roll", "expr": "2d6+x"}, "key-f")
    assert_error(r, 422, "invalid_notation")
    r = post(umpire, sid, ref, {"type": "roll", "expr": "2d6"}, "key-f")
    assert r.status == 200 and not is_replay(r), r
    assert version(umpire, sid, ref) == 2


def test_replay_wins_over_a_now_stale_expect_version(sess):
    """The contract: the same key with the same body returns the first response again and
    applies nothing -- also when its expect_version has since gone stale. (docs/api.md's
    order of checks, expect_version before idempotency, would answer 409 here; the binding
    contract decides.)"""
    umpire, sid, ref, _ = sess
    body = {"type": "roll", "expr": "1d6", "expect_version": 1}
    first = post(umpire, sid, ref, body, "key-v")
    expect(first, 200)
    again = post(umpire, sid, ref, body, "key-v")
    assert again.status == 200 and again.raw == first.raw and is_replay(again), again
    # without the key, the same body is a plain version conflict
    assert_error(post(umpire, sid, ref, body, None), 409, "version_conflict")
    assert version(umpire, sid, ref) == 2


@pytest.mark.parametrize("key", ["k" * 129, "caf\u00e9", "a\tb"])
def test_invalid_key_is_400(sess, key):
    umpire, sid, ref, _ = sess
    headers = {"Idempotency-Key": key.encode("utf-8").decode("latin-1")}
    r = umpire.post(f"/v1/sessions/{sid}/actions", {"type": "roll", "expr": "1d6"}, token=ref,
                    headers=headers)
    assert r.status == 400, r
    assert version(umpire, sid, ref) == 1


def test_key_of_128_chars_accepted(sess):
    umpire, sid, ref, _ = sess
    key = "K~" * 64
    a = post(umpire, sid, ref, {"type": "roll", "expr": "1d6"}, key)
    b = post(umpire, sid, ref, {"type": "roll", "expr": "1d6"}, key)
    assert a.status == 200 and b.raw == a.raw and is_replay(b)


def test_key_survives_restart_and_crash(sess):
    umpire, sid, ref, _ = sess
    body = {"type": "roll", "expr": "4d6kh3"}
    first = post(umpire, sid, ref, body, "durable")
    expect(first, 200)
    umpire.daemon.restart()
    again = post(umpire, sid, ref, body, "durable")
    assert again.status == 200 and again.raw == first.raw and is_replay(again)
    second = post(umpire, sid, ref, {"type": "roll", "expr": "1d6"}, "durable-2")
    expect(second, 200)
    umpire.daemon.crash_restart()
    again = post(umpire, sid, ref, {"type": "roll", "expr": "1d6"}, "durable-2")
    assert again.status == 200 and again.raw == second.raw and is_replay(again)
    assert version(umpire, sid, ref) == 3
