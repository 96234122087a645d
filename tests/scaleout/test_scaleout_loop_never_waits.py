"""On PostgreSQL the event loop never waits on the database (server/store/db_reads.h, the read gate in
server/api/gate.c): while PostgreSQL holds every read of the sessions table behind a lock, requests
that need no database are answered at once, the ones that do wait on reader threads (or are
refused with 503 when their queue is full), and all of them complete once the lock goes.

With reads on the loop thread, /v1/health would hang behind the first blocked GET: these tests
would time out."""

import http.client
import json
import threading
import time

from scaleout_util import Client

LOCK_HOLD = 3.0  # seconds PostgreSQL keeps the sessions table locked


def get(port, path, token=None, timeout=30):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    t0 = time.monotonic()
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body, time.monotonic() - t0


CONFIG = "[storage]\nread_threads = 2\nread_queue_max = 4\n"


def lock_sessions(uri, hold, locked):
    """Holds ACCESS EXCLUSIVE on sessions for `hold` seconds: every read of it waits."""
    import psycopg2
    con = psycopg2.connect(uri)
    try:
        cur = con.cursor()
        cur.execute("BEGIN")
        cur.execute("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE")
        locked.set()
        time.sleep(hold)
        con.rollback()
    finally:
        con.close()


def node_with_locked_session(cluster):
    """A node and one session of it, with PostgreSQL holding the sessions table locked for
    LOCK_HOLD seconds from now. -> (node, session id, referee token, the locking thread)."""
    d = cluster.node("a", config=CONFIG)
    c = Client(d)
    created = c.create_session()
    c.close()
    locked = threading.Event()
    locker = threading.Thread(target=lock_sessions, args=(cluster.db, LOCK_HOLD, locked))
    locker.start()
    assert locked.wait(10)
    return d, created["session"]["id"], created["tokens"]["referee"], locker


def test_health_answers_while_postgresql_blocks_reads(cluster):
    d, sid, ref, locker = node_with_locked_session(cluster)

    # Reads of the session: they wait on the reader threads (2) and their queue (4).
    results = []

    def read_session():
        results.append(get(d.port, f"/v1/sessions/{sid}", ref))

    readers = [threading.Thread(target=read_session) for _ in range(10)]
    for t in readers:
        t.start()
    time.sleep(0.5)

    # The loop is free: health and the ruleset list (no database) answer at once.
    health = [get(d.port, "/v1/health") for _ in range(20)]
    rulesets = get(d.port, "/v1/rulesets")
    still_locked = locker.is_alive()
    for t in readers:
        t.join(30)
    locker.join(30)

    assert still_locked, "the lock ended before the checks: the test proved nothing"
    assert all(s == 200 for s, _, _ in health)
    worst = max(t for _, _, t in health)
    print(f"\n/v1/health while PostgreSQL blocked every session read: 20 answers, "
          f"slowest {worst * 1000:.1f} ms (lock held {LOCK_HOLD} s)")
    assert worst < LOCK_HOLD / 2, "health waited for the blocked database"
    assert rulesets[0] == 200

    statuses = sorted(s for s, _, _ in results)
    ok = [r for r in results if r[0] == 200]
    busy = [r for r in results if r[0] == 503]
    assert len(ok) + len(busy) == 10, statuses
    # 2 running + 4 queued fit; the others were refused at once, not left hanging.
    assert len(ok) >= 6, statuses
    for s, body, elapsed in busy:
        assert json.loads(body)["error"]["code"] == "overloaded"
        assert elapsed < LOCK_HOLD / 2
    for s, body, elapsed in ok:
        assert json.loads(body)["session"]["id"] == sid
        assert elapsed >= LOCK_HOLD / 2, "a read finished while its table was locked"
    print(f"session reads: {len(ok)} answered after the lock, {len(busy)} refused 503 at once")


def test_writes_wait_on_the_writer_thread_not_the_loop(cluster):
    d, sid, ref, locker = node_with_locked_session(cluster)
    answers = []

    def roll():
        w = Client(d)
        try:
            answers.append(w.roll(sid, ref, "1d6", expect=None))
        finally:
            w.close()

    t = threading.Thread(target=roll)
    t.start()
    time.sleep(0.5)
    status, _, elapsed = get(d.port, "/v1/health")
    assert status == 200 and elapsed < LOCK_HOLD / 2
    assert locker.is_alive()
    t.join(30)
    locker.join(30)
    assert len(answers) == 1
    # The action was committed once the lock went (or refused for a reason of its own, never a
    # 5xx): the writer waited, the loop did not.
    assert answers[0].status < 500, answers[0]
