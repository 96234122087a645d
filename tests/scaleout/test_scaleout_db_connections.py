"""A node's PostgreSQL connections broken under it (the database restarted, a proxy dropped
them): the node reconnects by itself, retrying a statement that had not started anything on a
new connection (so clients see no error at all), never acknowledges what it did not commit,
and its health check answers throughout. Other nodes' commits still reach its live streams after its listener
reconnects."""

import http.client
import threading
import time

from scaleout_util import Client


def terminate_backends(uri):
    """Closes every connection to the database but our own, as a server restart would."""
    import psycopg2
    con = psycopg2.connect(uri)
    con.autocommit = True
    try:
        cur = con.cursor()
        cur.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cur.fetchone()[0]
    finally:
        con.close()


CONFIG = "[storage]\nlive_poll_ms = 200\n"


def test_node_reconnects_after_its_connections_are_killed(cluster):
    d, uri = cluster.node("a", config=CONFIG), cluster.db
    c = Client(d)
    created = c.create_session(units=[{"id": "u1", "side": "alice"}])
    sid, ref = created["session"]["id"], created["tokens"]["referee"]
    acked = [c.roll(sid, ref, "2d6", unit="u1").body["version"] for _ in range(3)]

    killed = terminate_backends(uri)
    # The writer, the reader threads and the listener: read_threads (4) + 2.
    assert killed >= 5, f"only {killed} connections of the node were open"

    statuses = []
    for _ in range(10):
        assert c.get("/v1/health").status == 200
        r = c.get(f"/v1/sessions/{sid}", token=ref)
        statuses.append(r.status)
        w = c.roll(sid, ref, "2d6", unit="u1", expect=None)
        statuses.append(w.status)
        if w.status == 200:
            acked.append(w.body["version"])
        else:
            assert w.status == 503 and w.body["error"]["code"] == "storage_unavailable", w
    print(f"\nstatuses after the connections were killed: {statuses}")
    # Reads and BEGIN retry once on a new connection: nothing had started.
    assert statuses.count(200) == len(statuses), statuses
    events, _ = c.events(sid, token=ref)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert set(acked) <= {e["seq"] for e in events}
    assert c.get(f"/v1/sessions/{sid}/verify", token=ref).body["ok"] is True
    c.close()


def test_live_stream_catches_up_after_the_listener_lost_its_connection(cluster):
    d, uri = cluster.node("a", config=CONFIG), cluster.db
    other = cluster.node("b")
    c = Client(d)
    created = c.create_session(units=[{"id": "u1", "side": "alice"}])
    sid, ref = created["session"]["id"], created["tokens"]["referee"]
    conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=20)
    conn.request("GET", f"/v1/sessions/{sid}/events?after=1",
                 headers={"Authorization": f"Bearer {ref}", "Accept": "text/event-stream"})
    resp = conn.getresponse()
    assert resp.status == 200
    seen = []
    done = threading.Event()

    def read():
        while len(seen) < 4:
            chunk = resp.fp.readline()
            if not chunk:
                break
            if chunk.startswith(b"id: "):
                seen.append(int(chunk[4:]))
        done.set()

    threading.Thread(target=read, daemon=True).start()
    o = Client(other)
    o.roll(sid, ref, "1d6", unit="u1")
    time.sleep(0.5)
    terminate_backends(uri)
    # Committed on the other node while this node's listener is away or reconnecting.
    t0 = time.monotonic()
    for _ in range(3):
        r = o.roll(sid, ref, "1d6", unit="u1", expect=None)
        if r.status != 200:  # the other node's connections were killed too: retried
            o.roll(sid, ref, "1d6", unit="u1")
    assert done.wait(15), f"stream saw only {seen}"
    print(f"\nstream after the listener's connection was killed: {seen}, "
          f"{time.monotonic() - t0:.2f} s")
    assert seen == [2, 3, 4, 5]
    o.close()
    c.close()
    conn.close()
