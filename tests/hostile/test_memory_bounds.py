"""Memory by bytes, not slots (issue 22, item 5): the writes waiting for the writer hold at most
storage.writer_queue_max_bytes of request bodies together. Many clients sending big bodies at
once get 503 overloaded for what would pass it, nothing of theirs is written, and what was
answered 2xx is all there.

To see the queue fill, the test holds SQLite's write lock for a moment (BEGIN IMMEDIATE on the
database from another connection): the writer waits on it with its first job (busy_timeout), as
it would behind a slow disk, while the loop keeps queueing."""

import json
import socket
import sqlite3
import threading

from hostile_util import parse_head

UNITS = 520  # about 38 KiB of setup per creation
QUEUE_BYTES = 60000  # room for one such body waiting, not two
BURST = 12


def big_creation():
    units = [{"id": f"u{i}", "side": "red", "name": f"Unit number {i} of a large army"}
             for i in range(UNITS)]
    body = json.dumps({"ruleset": "generic", "sides": ["red", "blue"],
                       "setup": {"units": units}}).encode()
    return (b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def send_all_at_once(port, request, n):
    """n connections, each sends the whole request once every one is connected -> statuses."""
    socks = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(n)]
    go = threading.Barrier(n)
    statuses = [None] * n

    def one(i):
        s = socks[i]
        go.wait()
        s.sendall(request)
        data = b""
        while parse_head(data) is None:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        head = parse_head(data)
        if head and head[0] == 503:  # which 503: the whole body, to read its code
            length = int(head[1].get("content-length", "0"))
            rest = head[2]
            while len(rest) < length:
                chunk = s.recv(65536)
                if not chunk:
                    break
                rest += chunk
            statuses[i] = json.loads(rest)["error"]["code"]
        else:
            statuses[i] = head[0] if head else None
        s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return statuses


def test_the_write_queue_is_bounded_by_bytes(hostile):
    d = hostile(storage={"writer_queue_max_bytes": QUEUE_BYTES, "synchronous": "full"},
                limits={"max_setup_bytes": 1 << 20}, server={"max_body_bytes": 1 << 20})
    request = big_creation()
    assert len(request) > QUEUE_BYTES // 2 and len(request) < QUEUE_BYTES
    lock = sqlite3.connect(d.db, isolation_level=None, timeout=10, check_same_thread=False)
    lock.execute("BEGIN IMMEDIATE")
    released = threading.Timer(2.0, lambda: lock.execute("ROLLBACK"))
    released.start()
    try:
        statuses = send_all_at_once(d.port, request, BURST)
    finally:
        released.join()
        lock.close()
    assert set(statuses) <= {201, "overloaded"}, statuses
    created, refused = statuses.count(201), statuses.count("overloaded")
    # One job taken by the writer (waiting on the lock) and one waiting in the queue fit the
    # byte bound; the others would pass it.
    assert refused >= BURST - 3, statuses
    assert created >= 1, statuses
    db = sqlite3.connect(d.db)
    try:
        stored = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    finally:
        db.close()
    assert stored == created, f"{stored} sessions stored for {created} answered 201"
