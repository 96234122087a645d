"""Acknowledged means durable: kill -9 right after a 200, restart, nothing lost."""

import signal

from umpire_client import Client, expect
from umpire_ref import (check_consecutive_nonces, check_dice_against_seed, check_roll,
                        dice_of_event, flat_dice, sha256_hex_of_hex, verify_chain)

SEED = "c0ffee00" * 8
EXPRS = ["2d6+1", "3d6kh2+1d4-1", "1d20", "4d6kl3", "10d10"]


def test_kill9_after_ack_loses_nothing(umpire):
    d = umpire.daemon
    s = umpire.create_session(mode="seeded", seed=SEED, units=[{"id": "a1", "side": "alice"}])
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    alice = s["tokens"]["sides"]["alice"]
    acked = [s["session"]["head"]]
    exprs = []
    for round_no in range(4):
        for i in range(1 + round_no):
            expr = EXPRS[(round_no + i) % len(EXPRS)]
            tok, extra = (alice, {"unit": "a1"}) if i % 2 else (ref, {})
            body = umpire.roll(sid, tok, expr, **extra).body
            assert body["version"] == len(acked) + 1
            acked.append(body["head"])
            exprs.append(expr)
        d.kill9()                       # immediately after the last 200
        d.start()
        evs, page = umpire.events(sid, ref)
        assert len(evs) == len(acked), f"round {round_no}: {len(acked)} acknowledged, " \
                                       f"{len(evs)} events after restart"
        assert [e["hash"] for e in evs] == acked
        assert page["head"] == acked[-1] and page["version"] == len(acked)
        verify_chain(evs, head=acked[-1])
        sess = umpire.session(sid, alice)            # side tokens survive too
        assert sess["version"] == len(acked) and sess["head"] == acked[-1]
        dice = flat_dice(evs)
        check_consecutive_nonces(dice, first=1)      # no nonce reused after a crash
        check_dice_against_seed(SEED, sid, dice)
        for ev, expr in zip(evs[1:], exprs):
            check_roll(expr, ev["data"]["result"], dice_of_event(ev))


def test_kill9_server_seed_and_commitment_survive(umpire):
    d = umpire.daemon
    s = umpire.create_session()
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    for expr in EXPRS:
        umpire.roll(sid, ref, expr)
    d.kill9()
    d.start()
    for expr in EXPRS[:2]:
        umpire.roll(sid, ref, expr)
    d.kill9()
    d.start()
    r = expect(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=ref), 200)
    seed = r["revealed"]["seed"]
    assert sha256_hex_of_hex(seed) == s["dice"]["commitment"], \
        "the seed revealed after a crash is not the one committed to at creation"
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=r["head"])
    dice = flat_dice(evs)
    check_consecutive_nonces(dice, first=1)
    check_dice_against_seed(seed, sid, dice)
    assert r["revealed"]["last_nonce"] == len(dice)
    # the next commitment survives a crash as well
    next_commitment = r["dice"]["commitment"]
    umpire.roll(sid, ref, "6d6")
    d.kill9()
    d.start()
    assert umpire.session(sid, ref)["dice"]["commitment"] == next_commitment
    r2 = expect(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=ref), 200)
    assert sha256_hex_of_hex(r2["revealed"]["seed"]) == next_commitment
    evs, _ = umpire.events(sid, ref)
    check_dice_against_seed(r2["revealed"]["seed"], sid, flat_dice(evs)[len(dice):])


def test_kill9_with_several_sessions(umpire):
    """Interleaved writes to three sessions; every acknowledged action survives kill -9."""
    d = umpire.daemon
    sessions = [umpire.create_session(mode="seeded", seed=SEED) for _ in range(3)]
    heads = {s["session"]["id"]: s["session"]["head"] for s in sessions}
    versions = {s["session"]["id"]: 1 for s in sessions}
    for i in range(12):
        s = sessions[i % 3]
        sid = s["session"]["id"]
        body = umpire.roll(sid, s["tokens"]["referee"], "3d6").body
        heads[sid], versions[sid] = body["head"], body["version"]
    d.kill9()
    d.start()
    for s in sessions:
        sid = s["session"]["id"]
        evs, page = umpire.events(sid, s["tokens"]["referee"])
        assert page["head"] == heads[sid] and len(evs) == versions[sid] == 5
        verify_chain(evs, head=heads[sid])
        check_dice_against_seed(SEED, sid, flat_dice(evs))


def test_sigterm_restart_keeps_everything(umpire):
    d = umpire.daemon
    s = umpire.create_session(mode="seeded", seed=SEED)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    last = None
    for expr in EXPRS:
        last = umpire.roll(sid, ref, expr).body
    d.restart()                                     # asserts exit code 0
    evs, page = umpire.events(sid, ref)
    assert page["head"] == last["head"] and len(evs) == 1 + len(EXPRS)
    body = umpire.roll(sid, ref, "2d6").body
    assert body["version"] == len(EXPRS) + 2
    evs, _ = umpire.events(sid, ref)
    verify_chain(evs, head=body["head"])
    check_consecutive_nonces(flat_dice(evs), first=1)
    check_dice_against_seed(SEED, sid, flat_dice(evs))


def test_sigterm_idle_exit_is_clean(umpire):
    d = umpire.daemon
    umpire.create_session()
    umpire.close()
    assert d.stop(signal.SIGTERM) == 0
    assert not d.sanitizer_findings(), d.stderr_text()[-4000:]


def test_sigint_exit_is_clean(umpire):
    d = umpire.daemon
    umpire.create_session()
    umpire.close()
    assert d.stop(signal.SIGINT) == 0
    assert not d.sanitizer_findings(), d.stderr_text()[-4000:]


def test_sigterm_with_idle_keepalive_connections(umpire):
    """Open, idle keep-alive connections must not keep the daemon from stopping: they have
    no request in flight, which is all server.shutdown_timeout_ms waits for."""
    d = umpire.daemon
    s = umpire.create_session()
    others = [Client(d) for _ in range(3)]
    for c in others:
        expect(c.get("/v1/health"), 200)
    expect(umpire.get(f"/v1/sessions/{s['session']['id']}", token=s["tokens"]["referee"]), 200)
    try:
        assert d.stop(signal.SIGTERM) == 0
        assert d.last_stop_seconds < 5, \
            f"idle keep-alive connections delayed the stop by {d.last_stop_seconds:.1f} s"
    finally:
        for c in others:
            c.close()
    assert not d.sanitizer_findings(), d.stderr_text()[-4000:]
    d.start()
    assert umpire.session(s["session"]["id"], s["tokens"]["referee"])["version"] == 1
