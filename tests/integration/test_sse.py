"""Live events: GET /v1/sessions/{id}/events with Accept: text/event-stream (SSE)."""

import os
import signal
import threading
import time

import pytest

from audit_helpers import (SEED, ConfiguredDaemon, SSEClient, finish_daemon, tcp_state,
                           vm_rss_kib)
from umpire_client import Client, assert_error
from umpire_ref import verify_chain

DELIVERY_BUDGET = 0.100   # seconds from the POST's answer to the SSE message
SETUP_TIMEOUT = 10.0      # generous: connection setup and backlog only
STREAM_END_BUDGET = 5.0   # SIGTERM -> streams ended (as test_durability allows idle conns)


def seeded(umpire, **kw):
    s = umpire.create_session(mode="seeded", seed=SEED, units=[{"id": "a1", "side": "alice"}],
                              **kw)
    return s, s["session"]["id"], s["tokens"]["referee"]


def rolls(umpire, sid, tok, n, expr="2d6", **kw):
    return [umpire.roll(sid, tok, expr, **kw).body for _ in range(n)]


def events_path(sid, after=None):
    p = f"/v1/sessions/{sid}/events"
    return p if after is None else p + f"?after={after}"


def open_sse(umpire, sid, tok, **kw):
    c = SSEClient(umpire.daemon.port, events_path(sid, kw.pop("after", None)), token=tok, **kw)
    assert c.status == 200, f"SSE: HTTP {c.status} {c.body_prefix[:300]!r}"
    ct = (c.header("content-type") or "").lower()
    assert ct.startswith("text/event-stream"), f"SSE Content-Type {ct!r}"
    return c


def seqs(evs):
    return [e["seq"] for e in evs]


def test_sse_backlog_is_full_chained_events(umpire):
    s, sid, ref = seeded(umpire)
    body = rolls(umpire, sid, ref, 6)[-1]
    c = open_sse(umpire, sid, ref, after=0)
    try:
        c.wait_seq(7, SETUP_TIMEOUT)
        evs = c.events()
        assert seqs(evs) == list(range(1, 8)), seqs(evs)
        verify_chain(evs, head=body["head"])          # data = the full event
        page, _ = umpire.events(sid, ref)
        assert evs == page, "SSE events differ from GET events"
    finally:
        c.close()


def test_sse_backlog_after_n(umpire):
    s, sid, ref = seeded(umpire)
    rolls(umpire, sid, ref, 6)
    c = open_sse(umpire, sid, ref, after=3)
    try:
        c.wait_seq(7, SETUP_TIMEOUT)
        time.sleep(0.2)
        assert seqs(c.events()) == [4, 5, 6, 7]
    finally:
        c.close()


def test_sse_last_event_id_wins_over_after(umpire):
    s, sid, ref = seeded(umpire)
    rolls(umpire, sid, ref, 6)
    c = open_sse(umpire, sid, ref, after=1, last_event_id=5)
    try:
        c.wait_seq(7, SETUP_TIMEOUT)
        time.sleep(0.2)
        assert seqs(c.events()) == [6, 7]
    finally:
        c.close()


def test_sse_resume_with_last_event_id_no_gap_no_duplicate(umpire):
    s, sid, ref = seeded(umpire)
    alice = s["tokens"]["sides"]["alice"]
    rolls(umpire, sid, ref, 5)                          # seqs 1..6
    c = open_sse(umpire, sid, alice, after=0)
    try:
        first = c.wait(3, SETUP_TIMEOUT)[:3]
    finally:
        c.close()
    got = [int(m["id"]) for m in first]
    assert got == [1, 2, 3]
    last_id = first[-1]["id"]
    body = rolls(umpire, sid, ref, 7, expr="1d20")[-1]   # seqs 7..13
    c2 = open_sse(umpire, sid, alice, last_event_id=last_id)
    try:
        c2.wait_seq(13, SETUP_TIMEOUT)
        # more events while the resumed stream is live
        body = rolls(umpire, sid, ref, 3)[-1]            # 14..16
        c2.wait_seq(16, SETUP_TIMEOUT)
        time.sleep(0.2)
        evs = c2.events()
    finally:
        c2.close()
    assert seqs(evs) == list(range(4, 17)), f"resumed stream seqs {seqs(evs)}"
    assert body["version"] == 16
    full, _ = umpire.events(sid, ref)
    assert evs == full[3:]
    verify_chain(full[:3] + evs, head=body["head"])


def test_sse_second_client_sees_commit_within_100ms(umpire):
    s, sid, ref = seeded(umpire)
    rolls(umpire, sid, ref, 2)
    watcher = open_sse(umpire, sid, s["tokens"]["sides"]["alice"], after=0)
    try:
        watcher.wait_seq(3, SETUP_TIMEOUT)
        lat = []
        for i in range(10):
            n_before = len(watcher.messages)
            body = umpire.roll(sid, ref, "3d6").body
            t_resp = time.monotonic()
            msgs = watcher.wait(n_before + 1, 2.0)
            assert len(msgs) > n_before, f"no SSE message for seq {body['version']} within 2 s"
            m = msgs[n_before]
            assert int(m["id"]) == body["version"]
            lat.append(m["t"] - t_resp)
            time.sleep(0.02)
        worst = max(lat)
        assert worst <= DELIVERY_BUDGET, \
            f"SSE delivery took up to {worst * 1000:.1f} ms after the POST's answer: " \
            f"{[round(x * 1000, 1) for x in lat]}"
        evs = watcher.events()
        verify_chain(evs, head=body["head"])
    finally:
        watcher.close()


def test_sse_several_subscribers_and_sessions(umpire):
    s1, sid1, ref1 = seeded(umpire)
    s2, sid2, ref2 = seeded(umpire)
    subs = [open_sse(umpire, sid1, ref1, after=0) for _ in range(3)]
    other = open_sse(umpire, sid2, ref2, after=0)
    try:
        for i in range(5):
            umpire.roll(sid1, ref1, "1d6")
        b2 = umpire.roll(sid2, ref2, "1d8").body
        for c in subs:
            c.wait_seq(6, SETUP_TIMEOUT)
        other.wait_seq(2, SETUP_TIMEOUT)
        time.sleep(0.2)
        for c in subs:
            assert seqs(c.events()) == list(range(1, 7))
        evs = other.events()
        assert seqs(evs) == [1, 2] and evs[1]["hash"] == b2["head"]
    finally:
        for c in subs + [other]:
            c.close()


def test_sse_auth(umpire):
    s, sid, ref = seeded(umpire)
    c = SSEClient(umpire.daemon.port, events_path(sid))
    try:
        assert c.status == 401, c.status
    finally:
        c.close()
    c = SSEClient(umpire.daemon.port, events_path("f" * 32), token=ref)
    try:
        assert c.status == 404, c.status
    finally:
        c.close()
    pub, psid, pref = seeded(umpire, visibility="public")
    c = SSEClient(umpire.daemon.port, events_path(psid, 0))
    try:
        assert c.status == 200
        c.wait(1, SETUP_TIMEOUT)
        assert seqs(c.events()) == [1]
    finally:
        c.close()


def test_sse_bad_last_event_id(umpire):
    s, sid, ref = seeded(umpire)
    c = SSEClient(umpire.daemon.port, events_path(sid), token=ref, last_event_id="banana")
    try:
        assert c.status in (200, 400), c.status
        if c.status == 400:
            assert c.json_body()["error"]["code"] == "invalid_field"
    finally:
        c.close()
    # plain JSON paging still works beside the streams
    r = umpire.get(events_path(sid, 0), token=ref)
    assert r.status == 200 and len(r.body["events"]) == 1


def test_sse_sigterm_ends_stream_and_daemon_exits_0(umpire):
    d = umpire.daemon
    s, sid, ref = seeded(umpire)
    rolls(umpire, sid, ref, 3)
    c = open_sse(umpire, sid, ref, after=0)
    try:
        c.wait_seq(4, SETUP_TIMEOUT)
        umpire.close()
        d.proc.send_signal(signal.SIGTERM)
        ended = c.wait_eof(STREAM_END_BUDGET)
        assert ended, f"the SSE stream did not end within {STREAM_END_BUDGET} s of SIGTERM"
        rc = d.proc.wait(15)
        assert rc == 0, f"exit code {rc} after SIGTERM with an open SSE stream"
        assert c.error is None, f"SSE reader error: {c.error!r}"
        if c._chunked:
            assert c.clean_end, "the SSE stream was cut, not ended (no last chunk)"
        assert seqs(c.events()) == [1, 2, 3, 4]
    finally:
        c.close()


def test_sigterm_after_subscribers_left_is_prompt(umpire):
    """Streams that were closed by their clients must not hold the shutdown (as idle
    keep-alive connections must not: test_durability)."""
    d = umpire.daemon
    s, sid, ref = seeded(umpire)
    rolls(umpire, sid, ref, 2)
    subs = [open_sse(umpire, sid, ref, after=0) for _ in range(3)]
    for c in subs:
        c.wait(3, SETUP_TIMEOUT)
        c.close()           # no event after this: the daemon learns it only by reading
    umpire.close()
    time.sleep(0.3)
    rc = d.stop()
    assert rc == 0
    assert d.last_stop_seconds < STREAM_END_BUDGET, \
        f"stopping took {d.last_stop_seconds:.1f} s after the SSE clients had gone"


# --------------------------------------------------------------------------- slow reader

SLOW_CONFIG = """\
[server]
idle_timeout_ms = 8000
write_queue_max_bytes = 262144
"""
RSS_GROWTH_LIMIT_KIB = 24 * 1024
PURPOSE = "p" * 40          # the longest purpose generic accepts
BIG_ROLL = "100d1000"        # ~2 KB of event


@pytest.fixture
def slow_daemon():
    # Under ASan a big quarantine of freed memory would count as RSS; keep it small (the
    # last ASAN_OPTIONS setting wins; no effect on a build without ASan).
    asan = os.environ.get("ASAN_OPTIONS", "")
    d = ConfiguredDaemon(SLOW_CONFIG, env={
        "ASAN_OPTIONS": (asan + ":" if asan else "") + "quarantine_size_mb=1"})
    d.start()
    try:
        yield d
    finally:
        finish_daemon(d)


def test_sse_reader_that_never_reads_is_cut_off_memory_bounded(slow_daemon):
    d = slow_daemon
    umpire = Client(d)
    try:
        s, sid, ref = seeded(umpire)
        # warm-up (also fills ASan's quarantine, when built with it, before the baseline)
        rolls(umpire, sid, ref, 1000, expr=BIG_ROLL, purpose=PURPOSE)
        base = vm_rss_kib(d.proc.pid)
        # a subscriber that reads its response head, then never reads again
        lazy = SSEClient(d.port, events_path(sid, 0), token=ref, rcvbuf=4096,
                         start_reader=False)
        lazy.read_head()
        assert lazy.status == 200
        server_side = (d.port, lazy.local_port)

        peak = base
        other = Client(d)
        t0 = time.monotonic()
        written = 0
        closed_at = None
        slowest_health = 0.0
        for i in range(12000):
            umpire.roll(sid, ref, BIG_ROLL, purpose=PURPOSE)
            written += 1
            if i % 250 == 0:
                peak = max(peak, vm_rss_kib(d.proc.pid))
                th = time.monotonic()
                r = other.get("/v1/health")
                slowest_health = max(slowest_health, time.monotonic() - th)
                assert r.status == 200
                state, inode = tcp_state(*server_side)
                if closed_at is None and (state is None or state != "01" or inode == "0"):
                    closed_at = time.monotonic() - t0
            if time.monotonic() - t0 > 25:
                break
        peak = max(peak, vm_rss_kib(d.proc.pid))
        assert written >= 5000, f"only {written} rolls in 25 s"
        assert peak - base <= RSS_GROWTH_LIMIT_KIB, \
            f"daemon RSS grew {peak - base} KiB (from {base}) with a subscriber that never reads"
        assert slowest_health < 1.0, f"health took {slowest_health:.2f} s meanwhile"
        # the server closes that connection: at once when its queue is over the limit, at
        # the latest after the idle timeout (8 s) without write progress
        deadline = time.monotonic() + 8.0 + 5.0
        while closed_at is None and time.monotonic() < deadline:
            state, inode = tcp_state(*server_side)
            if state is None or state != "01" or inode == "0":
                closed_at = time.monotonic() - t0
                break
            time.sleep(0.2)
        assert closed_at is not None, \
            "the daemon never closed the SSE connection of a reader that does not read"
        # what the lazy reader got ends; it resumes with Last-Event-ID and misses nothing
        lazy.sock.settimeout(10)
        lazy._reader = threading.Thread(target=lazy._run, daemon=True)
        lazy._reader.start()
        assert lazy.wait_eof(10.0), "no end of stream after the server closed it"
        got = lazy.events()
        assert got and seqs(got) == list(range(1, len(got) + 1)), "gap in what was delivered"
        last_id = got[-1]["seq"]
        lazy.close()
        version = umpire.session(sid, ref)["version"]
        assert last_id < version
        again = open_sse(umpire, sid, ref, last_event_id=last_id)
        try:
            again.wait_seq(version, 20.0)
            evs = again.events()
        finally:
            again.close()
        assert seqs(evs) == list(range(last_id + 1, version + 1))
        other.close()
    finally:
        umpire.close()


def test_events_without_sse_accept_stay_json(umpire):
    """Without Accept: text/event-stream the events route stays plain JSON."""
    s, sid, ref = seeded(umpire)
    r = umpire.get(events_path(sid), token=ref, headers={"Accept": "application/json"})
    assert r.status == 200 and r.body["version"] == 1
    assert_error(umpire.get(events_path(sid) + "?after=-1", token=ref), 400, "invalid_field")
