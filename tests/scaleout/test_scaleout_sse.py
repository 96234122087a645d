"""Live events across nodes: a stream (SSE) on node A shows the events committed through node
B, exactly once each and in order, at once by LISTEN/NOTIFY; when notifications are lost
(the listener's connection gone and unable to come back), the poll every storage.live_poll_ms
still delivers them within that bound."""

import threading
import time

from scaleout_util import (SEED, Client, SSEClient, check_log, config, ms, pct, verify_ok)

SETUP_TIMEOUT = 10.0
NOTIFY_BUDGET = 0.5      # s from B's 200 to A's message, by NOTIFY (A's poll is 60 s)
POLL_MS = 250            # A's live_poll_ms in the lost-notification test
POLL_SLACK = 0.75        # s over POLL_MS allowed for the read and the write (ASan, 2 cores)


def open_stream(node, sid, tok, after=None, last_event_id=None):
    path = f"/v1/sessions/{sid}/events" + (f"?after={after}" if after is not None else "")
    c = SSEClient(node.port, path, token=tok, last_event_id=last_event_id)
    assert c.status == 200, f"SSE on {node.name}: HTTP {c.status} {c.body_prefix[:300]!r}"
    assert (c.header("content-type") or "").startswith("text/event-stream")
    return c


def seeded(client):
    s = client.create_session(mode="seeded", seed=SEED, units=[{"id": "a1", "side": "alice"}])
    return s["session"]["id"], s["tokens"]["referee"], s


def latencies_of(stream, acks):
    """acks: [(seq, time of the 200)] -> [seconds from the 200 to the stream's message]."""
    arrived = {int(m["id"]): m["t"] for m in stream.messages}
    return [arrived[seq] - t for seq, t in acks if seq in arrived]


def assert_exact(stream, evs, what):
    got = stream.events()
    seqs = [e["seq"] for e in got]
    want = [e["seq"] for e in evs]
    assert seqs == want, f"{what}: stream seqs {seqs} but the log has {want}"
    assert got == evs, f"{what}: the stream's events differ from GET /events"


def test_sse_on_a_sees_commits_through_b_by_notify(cluster):
    # A's poll is a minute: what reaches A within the budget came by NOTIFY.
    a = cluster.node("A", config=config(live_poll_ms=60000))
    b = cluster.node("B")
    ca, cb = Client(a), Client(b)
    sid, ref, s = seeded(cb)
    alice = s["tokens"]["sides"]["alice"]
    watch = open_stream(a, sid, alice, after=0)
    watch_ref = open_stream(a, sid, ref)            # no after: the whole log, then live
    try:
        assert watch.wait_seq(1, SETUP_TIMEOUT) and watch_ref.wait_seq(1, SETUP_TIMEOUT)
        acks = []
        for i in range(15):
            body = cb.roll(sid, ref, "2d6+1").body
            t = time.monotonic()
            acks.append((body["version"], t))
            msgs = watch.wait_seq(body["version"], 3.0)
            assert msgs and int(msgs[-1]["id"]) >= body["version"], \
                f"A's stream has no message for seq {body['version']} 3 s after B's 200 " \
                f"(last {msgs[-1]['id'] if msgs else None})\n{cluster.tails()}"
            time.sleep(0.03)
        lat = latencies_of(watch, acks)
        assert len(lat) == len(acks)
        print(f"\nSSE A<-B by NOTIFY (A live_poll_ms=60000): {len(lat)} events, "
              f"median {ms(pct(lat, 0.5))} ms, p90 {ms(pct(lat, 0.9))} ms, max {ms(max(lat))} ms")
        assert max(lat) <= NOTIFY_BUDGET, \
            f"A's stream got B's commits up to {ms(max(lat))} ms after B's 200 " \
            f"(budget {NOTIFY_BUDGET * 1000:.0f} ms, poll 60 s): {[ms(x) for x in lat]}"

        # a burst: 3 threads on B, 30 actions at once; A's stream has each once, in order
        def burst():
            c = Client(b)
            try:
                for _ in range(10):
                    c.roll(sid, ref, "1d20")
            finally:
                c.close()
        threads = [threading.Thread(target=burst, daemon=True) for _ in range(3)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        t_last = time.monotonic()
        watch.wait_seq(46, 3.0)
        watch_ref.wait_seq(46, 3.0)
        behind = watch.messages[-1]["t"] - t_last if watch.messages else None
        time.sleep(0.3)                                 # anything extra (a repeat) shows up
        evs, page = check_log(ca, sid, ref, seed=SEED)
        assert page["version"] == 46
        assert_exact(watch, evs, "A's stream (after=0)")
        assert_exact(watch_ref, evs, "A's stream (no after)")
        print(f"SSE burst: 30 actions from 3 threads on B in {ms(t_last - t0)} ms; A's stream "
              f"complete {ms(max(0.0, behind))} ms after the last 200, in order, no repeat")
        verify_ok(ca, sid, ref, events=46, head=page["head"])
    finally:
        watch.close()
        watch_ref.close()

    # resume on the other node with Last-Event-ID: no gap, no repeat
    first = open_stream(a, sid, alice, after=0)
    try:
        first.wait(5, SETUP_TIMEOUT)
    finally:
        first.close()
    last_id = first.messages[4]["id"]
    cb.roll(sid, ref, "1d4")
    resumed = open_stream(b, sid, alice, last_event_id=last_id)
    try:
        ca.roll(sid, ref, "1d4")                          # committed on A while B streams
        resumed.wait_seq(48, SETUP_TIMEOUT)
        time.sleep(0.2)
        evs, _ = check_log(cb, sid, ref, seed=SEED)
        assert_exact(resumed, evs[int(last_id):], f"B's stream resumed after {last_id}")
    finally:
        resumed.close()


def admin(cluster, query, params=()):
    """A statement run from the "postgres" database (the test's may refuse connections)."""
    return cluster.sql(query, params, db=cluster.pg.uri("postgres"))


def listen_backends(cluster):
    dbname = cluster.db.rsplit("/", 1)[-1]
    return admin(cluster, "SELECT pid FROM pg_stat_activity WHERE datname = %s "
                          "AND application_name = 'umpired listener'", (dbname,))


def test_sse_poll_delivers_when_notifications_are_lost(cluster):
    """The listener connections are terminated while the database refuses new connections
    (ALLOW_CONNECTIONS false): no node can LISTEN, every NOTIFY is lost; A's stream must
    still deliver B's commits, within live_poll_ms (+ slack), through its open connections."""
    cfg = config(live_poll_ms=POLL_MS, read_threads=2)
    a = cluster.node("A", config=cfg)
    b = cluster.node("B", config=cfg)
    ca, cb = Client(a), Client(b)
    sid, ref, _s = seeded(cb)
    watch = open_stream(a, sid, ref, after=0)
    dbname = cluster.db.rsplit("/", 1)[-1]
    try:
        assert watch.wait_seq(1, SETUP_TIMEOUT)
        for _ in range(3):                      # warm: every reader has run a query
            cb.session(sid, ref)
            ca.session(sid, ref)
        deadline = time.monotonic() + 5
        while len(listen_backends(cluster)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = [r[0] for r in listen_backends(cluster)]
        assert len(pids) >= 2, f"expected a LISTEN connection per node, found {pids}"
        admin(cluster, f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS false')
        try:
            for pid in pids:
                admin(cluster, "SELECT pg_terminate_backend(%s)", (pid,))
            time.sleep(0.2)
            left = listen_backends(cluster)
            assert not left, f"LISTEN connections still there: {left}"
            acks = []
            for i in range(12):
                body = cb.roll(sid, ref, "1d6").body
                acks.append((body["version"], time.monotonic()))
                msgs = watch.wait_seq(body["version"], POLL_MS / 1000 + 3.0)
                assert msgs and int(msgs[-1]["id"]) >= body["version"], \
                    f"A's stream has no message for seq {body['version']} " \
                    f"{POLL_MS / 1000 + 3.0:.1f} s after B's 200 with notifications lost " \
                    f"(live_poll_ms={POLL_MS})\n{cluster.tails()}"
                time.sleep(0.05 + (i % 4) * 0.06)         # land at different poll phases
            assert not listen_backends(cluster), "a node got LISTEN back during the outage"
        finally:
            admin(cluster, f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS true')
        lat = latencies_of(watch, acks)
        print(f"\nSSE A<-B by the poll (live_poll_ms={POLL_MS}, no LISTEN): {len(lat)} events, "
              f"median {ms(pct(lat, 0.5))} ms, max {ms(max(lat))} ms")
        assert max(lat) <= POLL_MS / 1000 + POLL_SLACK, \
            f"with notifications lost, A's stream lagged up to {ms(max(lat))} ms " \
            f"(live_poll_ms={POLL_MS}): {[ms(x) for x in lat]}"

        # the listeners come back (they retry once a second): NOTIFY again
        deadline = time.monotonic() + 10
        while len(listen_backends(cluster)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(listen_backends(cluster)) >= 2, "the LISTEN connections did not come back"
        body = cb.roll(sid, ref, "1d6").body
        watch.wait_seq(body["version"], 3.0)
        time.sleep(0.3)
        evs, page = check_log(cb, sid, ref, seed=SEED)
        assert_exact(watch, evs, "A's stream across the outage")
        verify_ok(ca, sid, ref, events=page["version"], head=page["head"])
    finally:
        watch.close()
    assert "LISTEN" in a.stderr_text(), "A logged nothing about its lost LISTEN connection"
