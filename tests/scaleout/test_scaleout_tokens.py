"""Tokens across nodes (issue 22, item 8): a token rotated or revoked through node A is refused by
node B, which had it in its token cache, as soon as B hears of the change (NOTIFY umpire_tokens,
delivered when A's transaction commits, server/store/pg_listen.h); the new token works on B at
once (B reads it from the database)."""

import time

from scaleout_util import Client

SEED = "70" * 32
NOTIFY_BOUND = 5.0  # seconds: a bound on a test that waits, not a timing assertion


def session(client):
    s = client.create_session(mode="seeded", seed=SEED)
    return s["session"]["id"], s["tokens"]["referee"], s["tokens"]["sides"]


def refused_on(client, sid, token):
    """Acts with token through client until it is refused (401); -> how many were accepted
    first (the notification still on its way)."""
    accepted = 0
    deadline = time.monotonic() + NOTIFY_BOUND
    while True:
        r = client.roll(sid, token, "1d6", expect=None)
        if r.status == 401:
            return accepted
        assert r.status == 200, r
        accepted += 1
        assert time.monotonic() < deadline, "node B still accepts the old token"
        time.sleep(0.01)


def test_rotated_on_a_is_refused_on_b(cluster):
    a, b = cluster.nodes_up(["A", "B"])
    ca, cb = Client(a), Client(b)
    sid, ref, sides = session(ca)
    old = sides["alice"]
    cb.roll(sid, old, "1d6")                      # B caches alice's token
    cb.roll(sid, ref, "1d6")                      # and the referee's
    r = ca.post(f"/v1/sessions/{sid}/tokens/rotate", {"role": "side:alice"}, token=ref)
    assert r.status == 200, r
    new = r.body["token"]
    late = refused_on(cb, sid, old)
    print(f"old token accepted {late} time(s) on B after the rotation was answered on A")
    cb.roll(sid, new, "1d6")
    ca.roll(sid, new, "1d6")
    cb.roll(sid, ref, "1d6")                      # other roles are untouched

    # the referee's own token, and a revocation, the same way
    r = ca.post(f"/v1/sessions/{sid}/tokens/rotate", {"role": "referee"}, token=ref)
    assert r.status == 200, r
    ref2 = r.body["token"]
    refused_on(cb, sid, ref)
    ca.roll(sid, sides["bob"], "1d6")             # A caches bob's token
    r = cb.post(f"/v1/sessions/{sid}/tokens/revoke", {"role": "side:bob"}, token=ref2)
    assert r.status == 200, r
    refused_on(ca, sid, sides["bob"])
    v = ca.get(f"/v1/sessions/{sid}/verify", token=ref2)
    assert v.status == 200 and v.body["ok"] is True, v
