"""A node killed (SIGKILL) in the middle of a concurrent load that both nodes share: every
action either node acknowledged is in the log afterwards (read through the survivor), seqs have
no gap, chains and seeded dice verify, the survivor carried on answering 200 throughout, and
the killed node restarted on the same database serves the sessions again.

Two rounds: A is killed, restarted; then B is killed, restarted."""

import random
import secrets
import threading
import time

from scaleout_util import Client, Loader, check_log, verify_ok

SESSIONS = 4
THREADS_PER_NODE = 4
AFTER_KILL = 1.0        # s the survivor stays under load after the kill


def test_node_killed_mid_load_loses_nothing(cluster):
    a, b = cluster.nodes_up(["A", "B"])
    nodes = {"A": a, "B": b}
    c0 = Client(a)
    sessions = []          # (sid, referee token, seed)
    for _ in range(SESSIONS):
        seed = secrets.token_hex(32)
        s = c0.create_session(mode="seeded", seed=seed)
        sessions.append((s["session"]["id"], s["tokens"]["referee"], seed))
    c0.close()
    pairs = [(sid, tok) for sid, tok, _ in sessions]
    acked = {sid: [] for sid, _, _ in sessions}
    rng = random.Random(secrets.randbits(64))
    stats = []

    for victim_name, survivor_name in (("A", "B"), ("B", "A")):
        victim, survivor = nodes[victim_name], nodes[survivor_name]
        stop = threading.Event()
        loaders = [Loader(n, pairs, stop, random.Random(rng.random()))
                   for n in (victim, survivor) for _ in range(THREADS_PER_NODE)]
        for t in loaders:
            t.start()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not all(
                any(t.acked for t in loaders if t.label == n.name) for n in (victim, survivor)):
            time.sleep(0.01)
        time.sleep(rng.uniform(0.3, 1.0))
        t_kill = time.monotonic()
        victim.kill9()
        time.sleep(AFTER_KILL)
        stop.set()
        for t in loaders:
            t.join(30)
            assert not t.is_alive(), f"a load thread on {t.label} hung after the kill"
        on_victim = [t for t in loaders if t.label == victim_name]
        on_survivor = [t for t in loaders if t.label == survivor_name]
        for t in loaders:
            assert not t.bad, f"{t.label}: malformed 200 answers: {t.bad[:3]}"
            assert not t.other, \
                f"{t.label}: non-200 answers (the victim before its death, or the survivor " \
                f"while the victim died): {t.other[:5]}\n{cluster.tails()}"
        for t in on_survivor:
            assert t.failure is None, \
                f"the survivor {survivor_name} failed a request: {t.failure!r}\n{cluster.tails()}"
        after = [x for t in on_survivor for x in t.acked if x[5] > t_kill + 0.1]
        assert after, f"{survivor_name} acknowledged nothing in the {AFTER_KILL} s after " \
                      f"{victim_name} was killed\n{cluster.tails()}"
        in_flight = sum(1 for t in on_victim if t.failure is not None)
        n_victim = sum(len(t.acked) for t in on_victim)
        n_survivor = sum(len(t.acked) for t in on_survivor)
        for t in loaders:
            for sid, seq, h, *_r in t.acked:
                acked[sid].append((seq, h))

        # every acknowledged action is there, read through the survivor
        cs = Client(survivor)
        events = 0
        for sid, tok, seed in sessions:
            seqs = [s for s, _ in acked[sid]]
            dup = sorted({x for x in seqs if seqs.count(x) > 1})
            assert not dup, f"{sid}: seqs acknowledged twice: {dup[:10]}"
            evs, page = check_log(cs, sid, tok, acked=acked[sid], seed=seed, limit=100)
            verify_ok(cs, sid, tok, events=len(evs), head=page["head"])
            events += len(evs)
        n_acked = sum(len(v) for v in acked.values())
        # log = creation events + acknowledged + at most the victim's requests in flight
        unanswered = events - SESSIONS - n_acked
        assert 0 <= unanswered <= in_flight, \
            f"{events} events, {n_acked} acknowledged, {in_flight} unanswered requests"

        # the victim comes back on the same database and serves the sessions
        victim.start()
        cv = Client(victim)
        for sid, tok, seed in sessions:
            s_v, s_s = cv.session(sid, tok), cs.session(sid, tok)
            assert (s_v["version"], s_v["head"]) == (s_s["version"], s_s["head"]), \
                f"{sid}: restarted {victim_name} says {s_v['version']}, " \
                f"{survivor_name} {s_s['version']}"
            r = cv.roll(sid, tok, "2d6").body
            assert r["version"] == s_s["version"] + 1
            acked[sid].append((r["version"], r["head"]))
            evs, page = check_log(cv, sid, tok, acked=acked[sid], seed=seed)
            assert evs[-1]["prev"] == s_s["head"], "the new action does not continue the chain"
            verify_ok(cs, sid, tok, events=len(evs), head=page["head"])
        cv.close()
        cs.close()
        stats.append(f"kill {victim_name}: acknowledged {victim_name}={n_victim} "
                     f"{survivor_name}={n_survivor} (after the kill {len(after)}), "
                     f"requests left unanswered by the kill {in_flight}, committed but unanswered {unanswered}, "
                     f"lost 0")
    print("\nnode kill: " + "; ".join(stats))
