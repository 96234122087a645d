"""Two umpired nodes on one PostgreSQL database: one session's actions are put in one order
whichever node takes them (seqs never gap or repeat, the chain never forks, seeded dice never
reuse a nonce), and Idempotency-Key and expect_version hold across nodes.

The API's version check is the action's `expect_version` field (409 `version_conflict`,
details.expected / details.actual); there is no If-Match header."""

import http.client
import json
import random
import threading
import time

from scaleout_util import (SEED, Client, Loader, check_log, is_replay, post_action, verify_ok)

RACE_SECONDS = 3.0
THREADS_PER_NODE = 4


def two_nodes(cluster):
    a, b = cluster.nodes_up(["A", "B"])
    return a, b, Client(a), Client(b)


def seeded_session(client, **kw):
    s = client.create_session(mode="seeded", seed=SEED,
                              units=[{"id": "a1", "side": "alice"}, {"id": "b1", "side": "bob"}],
                              **kw)
    return s["session"]["id"], s["tokens"]["referee"], s


def same_state_on(clients, sid, tok):
    """Every node reports the same version and head; -> (version, head)."""
    seen = {c.daemon.name: (c.session(sid, tok)["version"], c.session(sid, tok)["head"])
            for c in clients}
    assert len(set(seen.values())) == 1, f"{sid}: nodes disagree on version/head: {seen}"
    return next(iter(seen.values()))


def at_once(specs):
    """specs: [(node, sid, token, body, idempotency key or None)], all POSTed at the same
    moment (one connection each, opened beforehand, released by a barrier).
    -> [(node name, status, headers, raw)] in spec order."""
    conns = []
    for node, *_ in specs:
        c = http.client.HTTPConnection("127.0.0.1", node.port, timeout=20)
        c.connect()
        conns.append(c)
    barrier = threading.Barrier(len(specs))
    out = [None] * len(specs)

    def go(i):
        node, sid, tok, body, key = specs[i]
        barrier.wait(10)
        try:
            st, h, raw = post_action(conns[i], sid, tok, body, key)
            out[i] = (node.name, st, h, raw)
        except (OSError, http.client.HTTPException) as e:
            out[i] = (node.name, None, None, repr(e).encode())
    threads = [threading.Thread(target=go, args=(i,), daemon=True) for i in range(len(specs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
        assert not t.is_alive(), "a request got no answer within 30 s"
    for c in conns:
        c.close()
    return out


def test_alternating_actions_one_chain(cluster):
    a, b, ca, cb = two_nodes(cluster)
    sid, ref, s = seeded_session(ca)
    alice = s["tokens"]["sides"]["alice"]
    acked = []
    for i in range(20):
        here, there = (ca, cb) if i % 2 == 0 else (cb, ca)
        tok, unit = (ref, None) if i % 3 else (alice, "a1")
        r = here.roll(sid, tok, "3d6kh2+1", **({"unit": unit} if unit else {}))
        ans = r.body
        assert ans["version"] == 2 + i, \
            f"action {i} through {here.daemon.name}: version {ans['version']}, want {2 + i}"
        assert ans["events"][-1]["seq"] == ans["version"] and ans["events"][-1]["hash"] == ans["head"]
        acked.append((ans["version"], ans["head"]))
        # acknowledged = committed: the other node reads it at once
        other = there.session(sid, ref)
        assert (other["version"], other["head"]) == (ans["version"], ans["head"]), \
            f"after a 200 from {here.daemon.name} (version {ans['version']}), " \
            f"{there.daemon.name} reports version {other['version']}"
    evs_a, page = check_log(ca, sid, ref, acked=acked, seed=SEED, limit=6)
    evs_b, _ = check_log(cb, sid, ref, acked=acked, seed=SEED, limit=1000)
    assert evs_a == evs_b, "the two nodes serve different logs"
    for c in (ca, cb):
        rep = verify_ok(c, sid, ref, events=21, head=page["head"])
        assert rep["actions_readjudicated"] == 20 and rep["dice_checked"] > 0, rep
    assert same_state_on([ca, cb], sid, ref) == (21, page["head"])
    actors = {e["actor"] for e in evs_a}
    assert {"referee", "side:alice", "server"} <= actors, actors


def test_racing_actions_on_both_nodes(cluster):
    a, b, ca, cb = two_nodes(cluster)
    sessions = []
    for _ in range(2):
        sid, ref, _s = seeded_session(ca)
        sessions.append((sid, ref))
    stop = threading.Event()
    rng = random.Random(20240601)
    loaders = [Loader(n, sessions, stop, random.Random(rng.random()))
               for n in (a, b) for _ in range(THREADS_PER_NODE)]
    t0 = time.monotonic()
    for t in loaders:
        t.start()
    time.sleep(RACE_SECONDS)
    stop.set()
    for t in loaders:
        t.join(30)
        assert not t.is_alive(), f"a load thread on {t.label} hung"
    elapsed = time.monotonic() - t0
    for t in loaders:
        assert t.failure is None, f"{t.label}: a request failed: {t.failure!r}\n{cluster.tails()}"
        assert not t.other, f"{t.label}: non-200 answers under concurrent load: {t.other[:5]}"
        assert not t.bad, f"{t.label}: malformed 200 answers: {t.bad[:3]}"
    per_node = {n.name: sum(len(t.acked) for t in loaders if t.label == n.name) for n in (a, b)}
    assert all(v > 0 for v in per_node.values()), f"a node acknowledged nothing: {per_node}"

    for sid, ref in sessions:
        acked = [(seq, h) for t in loaders for (s, seq, h, *_r) in t.acked if s == sid]
        seqs = [seq for seq, _ in acked]
        dup = sorted({x for x in seqs if seqs.count(x) > 1})
        assert not dup, f"{sid}: seqs acknowledged twice (by the two nodes?): {dup[:10]}"
        evs_a, page = check_log(ca, sid, ref, acked=acked, seed=SEED, limit=50)
        evs_b, page_b = check_log(cb, sid, ref, acked=acked, seed=SEED, limit=999)
        assert evs_a == evs_b, f"{sid}: the nodes serve different logs"
        # every request was answered 200 and nothing else writes: the log is exactly them
        assert sorted(seqs) == list(range(2, page["version"] + 1)), \
            f"{sid}: {len(seqs)} acknowledged actions but version {page['version']}"
        for c in (ca, cb):
            rep = verify_ok(c, sid, ref, events=page["version"], head=page["head"])
            assert rep["actions_readjudicated"] == page["version"] - 1, rep
        assert same_state_on([ca, cb], sid, ref) == (page["version"], page["head"])
    total = sum(per_node.values())
    print(f"\nracing: {len(loaders)} threads ({THREADS_PER_NODE} per node), 2 sessions, "
          f"{elapsed:.1f} s: acknowledged A={per_node['A']} B={per_node['B']} "
          f"total={total} ({total / elapsed:.0f}/s), no seq gap/duplicate, chains verify on both")


def test_idempotency_key_across_nodes(cluster):
    a, b, ca, cb = two_nodes(cluster)
    sid, ref, _s = seeded_session(ca)
    body = {"type": "roll", "expr": "3d6kh2+1", "purpose": "idem"}

    def post(c, key, bdy=body):
        return c.post(f"/v1/sessions/{sid}/actions", bdy, token=ref,
                      headers={"Idempotency-Key": key})

    first = post(ca, "k-1")
    assert first.status == 200 and not is_replay(first.headers), first
    again = post(cb, "k-1")
    assert again.status == 200, f"replay through B: {again!r}"
    assert again.raw == first.raw, "B's replay is not byte for byte A's answer"
    assert is_replay(again.headers), f"B's replay lacks Idempotent-Replay: {dict(again.headers)}"
    assert same_state_on([ca, cb], sid, ref)[0] == 2, "the replay through B appended an event"
    # the same key with another body, through B: refused, nothing written
    r = post(cb, "k-1", {"type": "roll", "expr": "1d8"})
    assert r.status == 422 and r.body["error"]["code"] == "idempotency_key_reused", r
    # actions in between (through B), then the key again through A: still the first answer
    for _ in range(3):
        cb.roll(sid, ref, "1d6")
    r = post(ca, "k-1")
    assert r.status == 200 and r.raw == first.raw and is_replay(r.headers), r
    r = post(cb, "k-1")
    assert r.status == 200 and r.raw == first.raw and is_replay(r.headers), r
    assert same_state_on([ca, cb], sid, ref)[0] == 5
    # a key first used on B replays on A
    kb = post(cb, "k-2")
    assert kb.status == 200 and not is_replay(kb.headers)
    r = post(ca, "k-2")
    assert r.status == 200 and r.raw == kb.raw and is_replay(r.headers), r

    # the same new key sent to both nodes at the same moment: one action, one stored answer
    rounds, racers = 8, 2
    base = same_state_on([ca, cb], sid, ref)[0]
    for i in range(rounds):
        bdy = {"type": "roll", "expr": "2d6", "purpose": f"race {i}"}
        res = at_once([(n, sid, ref, bdy, f"race-{i}") for n in (a, b) for _ in range(racers)])
        statuses = [(name, st) for name, st, _h, _raw in res]
        assert all(st == 200 for _, st in statuses), \
            f"round {i}: the same key at once on both nodes: {statuses} " \
            f"{[raw[:300] for *_x, raw in res if _x[1] != 200]}"
        raws = {raw for *_x, raw in res}
        assert len(raws) == 1, f"round {i}: different answers for one key: {res!r}"
        fresh = [name for name, _st, h, _raw in res if not is_replay(h)]
        assert len(fresh) == 1, \
            f"round {i}: {len(fresh)} answers without Idempotent-Replay (want exactly 1): {fresh}"
        v = json.loads(next(iter(raws)))["version"]
        assert v == base + 1 + i, f"round {i}: version {v}, want {base + 1 + i}"
    version, head = same_state_on([ca, cb], sid, ref)
    assert version == base + rounds, f"{version - base} events for {rounds} keys"
    evs, page = check_log(ca, sid, ref, seed=SEED)
    verify_ok(cb, sid, ref, events=version, head=head)
    print(f"\nidempotency: {rounds} keys each sent to both nodes at once ({2 * racers} requests), "
          f"{rounds} events appended, version {version}")


def test_expect_version_across_nodes(cluster):
    a, b, ca, cb = two_nodes(cluster)
    sid, ref, _s = seeded_session(cb)
    r = ca.roll(sid, ref, "1d6", expect_version=1)
    assert r.body["version"] == 2
    r = cb.roll(sid, ref, "1d6", expect=None, expect_version=1)
    assert r.status == 409, f"B took expect_version=1 after A moved the session to 2: {r!r}"
    err = r.body["error"]
    assert err["code"] == "version_conflict" and err["details"].get("expected") == 1 \
        and err["details"].get("actual") == 2, r
    r = cb.roll(sid, ref, "1d6", expect_version=2)
    assert r.body["version"] == 3
    r = ca.roll(sid, ref, "1d6", expect=None, expect_version=2)
    assert r.status == 409 and r.body["error"]["details"].get("actual") == 3, r
    assert same_state_on([ca, cb], sid, ref)[0] == 3

    # compare-and-set races: both nodes offer the same expect_version at once; one wins
    rounds = 10
    wins = {"A": 0, "B": 0}
    for i in range(rounds):
        v = same_state_on([ca, cb], sid, ref)[0]
        res = at_once([(n, sid, ref, {"type": "roll", "expr": "1d20", "expect_version": v}, None)
                       for n in (a, b, a, b)])
        ok = [(name, raw) for name, st, _h, raw in res if st == 200]
        conflicts = [json.loads(raw) for _n, st, _h, raw in res if st == 409]
        assert len(ok) == 1 and len(conflicts) == 3, \
            f"round {i}: expect_version={v} sent 4 times at once: " \
            f"{[(name, st, raw[:200]) for name, st, _h, raw in res]}"
        wins[ok[0][0]] += 1
        assert json.loads(ok[0][1])["version"] == v + 1
        for c in conflicts:
            e = c["error"]
            assert e["code"] == "version_conflict" and e["details"].get("expected") == v \
                and e["details"].get("actual") == v + 1, c
    version, head = same_state_on([ca, cb], sid, ref)
    assert version == 3 + rounds
    evs, page = check_log(cb, sid, ref, seed=SEED)
    verify_ok(ca, sid, ref, events=version, head=head)
    print(f"\nexpect_version: {rounds} rounds of 4 racing requests, one winner each "
          f"(A won {wins['A']}, B won {wins['B']}), 3 x 409 each")
