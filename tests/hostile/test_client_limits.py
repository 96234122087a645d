"""What one client may ask of the daemon (config [limits] and the per-client bounds of [server]),
each tried as an attacker would, beside an ordinary client that must still get through.

A client is the peer's address, or behind a trusted proxy the X-Forwarded-For hop it names. On
loopback two clients are two source addresses (127.0.0.1 and 127.0.0.2: Linux routes all of
127/8 to lo) or, through a trusted proxy, two X-Forwarded-For values.
"""

import http.client
import json
import socket
import sqlite3
import time

from hostile_util import Client, HostileDaemon, parse_head, wait_until


def request(port, method, path, body=None, headers=None, source="127.0.0.1", timeout=10):
    """One request on a fresh connection from `source` -> (status, headers, parsed body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(source, 0))
    hdrs = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=hdrs)
        r = conn.getresponse()
        raw = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, json.loads(raw) if raw else None
    finally:
        conn.close()


def create(port, headers=None, source="127.0.0.1", setup=None):
    body = {"ruleset": "generic", "sides": ["red", "blue"]}
    if setup is not None:
        body["setup"] = setup
    return request(port, "POST", "/v1/sessions", body, headers, source)


def xff(addr):
    return {"X-Forwarded-For": addr}


PROXIED = {"trusted_proxies": "127.0.0.1"}


def test_session_creation_is_rate_limited_per_client(hostile):
    """A flood of creations from one client gets 429 with Retry-After once its burst is spent,
    writes nothing, and another client (another X-Forwarded-For behind the trusted proxy)
    still creates."""
    d = hostile(limits={**PROXIED, "create_per_minute": 6, "create_burst": 3})
    ok = [create(d.port, xff("198.51.100.7"))[0] for _ in range(3)]
    assert ok == [201, 201, 201]
    status, headers, body = create(d.port, xff("198.51.100.7"))
    assert status == 429, body
    assert body["error"]["code"] == "rate_limited"
    assert body["error"]["details"] == {"per_minute": 6, "burst": 3,
                                        "retry_after": int(headers["retry-after"])}
    assert 1 <= int(headers["retry-after"]) <= 10  # a token a 10 s at 6 a minute
    # Nothing written by the refused requests: three sessions in the database.
    db = sqlite3.connect(d.db)
    try:
        assert db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 3
    finally:
        db.close()
    # Another client is untouched, and so is the proxy itself when it speaks for nobody.
    assert create(d.port, xff("203.0.113.9"))[0] == 201
    assert create(d.port)[0] == 201
    # The attacker cannot step around it by naming a proxy hop of its own: the hop the trusted
    # proxy appended (the last) is the one counted.
    assert create(d.port, xff("203.0.113.50, 198.51.100.7"))[0] == 429


def test_untrusted_peers_cannot_choose_their_address(hostile):
    """Without trusted_proxies, X-Forwarded-For is ignored: a client varying it is still one
    client."""
    d = hostile(limits={"create_per_minute": 6, "create_burst": 2})
    statuses = [create(d.port, xff(f"198.51.100.{i}"))[0] for i in range(4)]
    assert statuses == [201, 201, 429, 429]


def test_actions_are_rate_limited_per_client_and_refill(hostile):
    d = hostile(limits={**PROXIED, "actions_per_minute": 600, "actions_burst": 5})
    status, _, made = create(d.port, xff("198.51.100.7"))
    assert status == 201
    sid, token = made["session"]["id"], made["tokens"]["referee"]
    roll = {"type": "roll", "expr": "1d6"}
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/sessions/{sid}/actions"
    got = [request(d.port, "POST", path, roll, {**auth, **xff("198.51.100.7")})[0]
           for _ in range(7)]
    assert got[:5] == [200] * 5 and 429 in got[5:], got
    # The same session's referee acting from another address is another client.
    assert request(d.port, "POST", path, roll, {**auth, **xff("203.0.113.9")})[0] == 200
    # 600 a minute: a token every 100 ms, so the first client acts again shortly.
    assert wait_until(lambda: request(d.port, "POST", path, roll,
                                      {**auth, **xff("198.51.100.7")})[0] == 200, 5, step=0.2)
    # Every refusal wrote nothing: the session's version counts creation and accepted actions.
    _, _, s = request(d.port, "GET", f"/v1/sessions/{sid}", headers=auth)
    accepted = got.count(200) + 2
    assert s["session"]["version"] == 1 + accepted


def test_operator_key_mode(hostile):
    d = hostile(limits={"session_creation": "key", "operator_key": "k3y-of-the-operator"})
    status, _, body = create(d.port)
    assert status == 401 and body["error"]["code"] == "operator_key_required"
    assert create(d.port, {"Authorization": "Bearer wrong-key-of-the-oper"})[0] == 401
    assert create(d.port, {"Authorization": "Bearer k3y-of-the-operator"})[0] == 201


def test_operator_key_mode_without_a_key_refuses_to_start():
    d = HostileDaemon(limits={"session_creation": "key"})
    try:
        d.start(timeout=5)
    except RuntimeError:
        pass
    else:
        d.stop()
        raise AssertionError("the daemon started with session_creation = key and no key")
    assert "operator_key is empty" in d.stderr_text()


def test_a_setup_over_the_limit_is_refused_and_writes_nothing(hostile):
    d = hostile(limits={"max_setup_bytes": 2048})
    units = [{"id": f"u{i}", "side": "red", "name": "x" * 40} for i in range(60)]
    status, _, body = create(d.port, setup={"units": units})
    assert status == 413, body
    assert body["error"]["code"] == "setup_too_large"
    assert body["error"]["details"]["limit"] == 2048
    assert body["error"]["details"]["size"] > 2048
    db = sqlite3.connect(d.db)
    try:
        assert db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
    finally:
        db.close()
    assert create(d.port, setup={"units": units[:5]})[0] == 201


def test_connections_per_client_address(hostile):
    """One address holding its share of connections gets 429 for the next one; another address
    is served at once."""
    d = hostile(server={"max_connections_per_client": 8, "idle_timeout_ms": 60000})
    held = []
    try:
        for _ in range(8):  # each one accepted and served before the next
            s = socket.create_connection(("127.0.0.1", d.port), timeout=5)
            held.append(s)
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            data = b""
            while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
                data += s.recv(4096)
            assert data.startswith(b"HTTP/1.1 200 ")
        extra = socket.create_connection(("127.0.0.1", d.port), timeout=5)
        data = b""
        extra.settimeout(5)
        while True:
            chunk = extra.recv(4096)
            if not chunk:
                break
            data += chunk
        extra.close()
        status, headers, body = parse_head(data)
        assert status == 429
        assert json.loads(body)["error"]["code"] == "too_many_connections"
        assert headers["connection"] == "close"
        # Another address is another client.
        assert request(d.port, "GET", "/v1/health", source="127.0.0.2")[0] == 200
    finally:
        for s in held:
            s.close()
    # Once its connections close, the first address is served again.
    assert wait_until(lambda: request(d.port, "GET", "/v1/health")[0] == 200, 5)


def test_trickled_body_gets_408_at_the_body_deadline(hostile):
    """A body sent one byte at a time never lets the idle timeout fire; the body deadline
    does."""
    d = hostile(server={"body_timeout_ms": 1500, "idle_timeout_ms": 60000})
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    s.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 1000\r\n\r\n")
    t0 = time.monotonic()
    data = b""
    s.settimeout(0.3)
    while time.monotonic() - t0 < 10:
        try:
            s.sendall(b" ")
        except OSError:
            break
        try:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        except socket.timeout:
            continue
    elapsed = time.monotonic() - t0
    s.close()
    assert data.startswith(b"HTTP/1.1 408 "), data[:200]
    assert elapsed < 8, f"the trickle went on for {elapsed:.1f} s"
    assert Client(d).get("/v1/health").status == 200


def open_stream(port, sid, token=None, headers=None, source="127.0.0.1"):
    """An SSE request that never reads beyond the head -> (socket, status, body text)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    h = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    if token:
        h += f"Authorization: Bearer {token}\r\n"
    s.sendall(f"GET /v1/sessions/{sid}/events HTTP/1.1\r\nHost: x\r\n"
              f"Accept: text/event-stream\r\n{h}\r\n".encode())
    data = b""
    while parse_head(data) is None:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    status, _, rest = parse_head(data)
    return s, status, rest


def stream_status(port, sid, token, client, socks):
    s, st, rest = open_stream(port, sid, token, xff(client))
    socks.append(s)
    return st, rest


def test_streams_are_bounded_per_token(hostile):
    d = hostile(server={"max_streams_per_token": 2}, limits=PROXIED)
    made = create(d.port)[2]
    sid, ref = made["session"]["id"], made["tokens"]["referee"]
    socks = []
    try:
        assert stream_status(d.port, sid, ref, "198.51.100.1", socks)[0] == 200
        assert stream_status(d.port, sid, ref, "198.51.100.2", socks)[0] == 200
        st, rest = stream_status(d.port, sid, ref, "198.51.100.3", socks)
        assert st == 429 and b'"scope":"token"' in rest and b'"limit":2' in rest
        # The refused connection is closed, not left idle in a slot.
        refused = socks[-1]
        refused.settimeout(5)
        while refused.recv(4096):
            pass
        # Another token of the session is not held back.
        red = made["tokens"]["sides"]["red"]
        assert stream_status(d.port, sid, red, "198.51.100.3", socks)[0] == 200
    finally:
        for s in socks:
            s.close()


def test_streams_are_bounded_per_client(hostile):
    d = hostile(server={"max_streams_per_client": 2}, limits=PROXIED)
    made = create(d.port)[2]
    sid, tokens = made["session"]["id"], made["tokens"]
    socks = []
    try:
        assert stream_status(d.port, sid, tokens["referee"], "198.51.100.1", socks)[0] == 200
        assert stream_status(d.port, sid, tokens["sides"]["red"], "198.51.100.1", socks)[0] == 200
        st, rest = stream_status(d.port, sid, tokens["sides"]["blue"], "198.51.100.1", socks)
        assert st == 429 and b'"scope":"client"' in rest
        assert stream_status(d.port, sid, tokens["sides"]["blue"], "203.0.113.9", socks)[0] == 200
        assert request(d.port, "GET", "/v1/health")[0] == 200
    finally:
        for s in socks:
            s.close()


def test_streams_are_bounded_per_session(hostile):
    d = hostile(server={"max_streams_per_session": 3}, limits=PROXIED)
    made, other = create(d.port)[2], create(d.port)[2]
    sid, tokens = made["session"]["id"], made["tokens"]
    socks = []
    try:
        for i, tok in enumerate((tokens["referee"], tokens["sides"]["red"],
                                 tokens["sides"]["blue"])):
            assert stream_status(d.port, sid, tok, f"198.51.100.{i}", socks)[0] == 200
        st, rest = stream_status(d.port, sid, tokens["referee"], "198.51.100.9", socks)
        assert st == 429 and b'"scope":"session"' in rest
        # Another session's readers are not held back by this one's.
        assert stream_status(d.port, other["session"]["id"], other["tokens"]["referee"],
                             "198.51.100.9", socks)[0] == 200
    finally:
        for s in socks:
            s.close()


def test_streams_never_take_every_connection_slot(hostile):
    """Streams that never read hold at most stream_share_percent of max_connections (the
    issue's attack: 1,024 never-reading streams held every slot): an ordinary request still
    finds a slot."""
    d = hostile(server={"max_connections": 20, "stream_share_percent": 50}, limits=PROXIED)
    made = create(d.port)[2]
    sid, ref = made["session"]["id"], made["tokens"]["referee"]
    socks = []
    statuses = []
    try:
        for i in range(16):
            statuses.append(stream_status(d.port, sid, ref, f"198.51.100.{i}", socks)[0])
        assert statuses[:10] == [200] * 10, statuses
        assert set(statuses[10:]) == {503}, statuses
        _, rest = stream_status(d.port, sid, ref, "198.51.100.99", socks)
        assert b'"scope":"server"' in rest and b'"limit":10' in rest
        # The other half of the slots: ordinary requests get through.
        for _ in range(5):
            assert request(d.port, "GET", "/v1/rulesets")[0] == 200
        assert Client(d).get(f"/v1/sessions/{sid}", token=ref).status == 200
    finally:
        for s in socks:
            s.close()


def test_a_stream_ends_at_its_lifetime_and_resumes_without_loss(hostile):
    d = hostile(server={"max_stream_lifetime_ms": 1000})
    status, _, made = create(d.port)
    sid, ref = made["session"]["id"], made["tokens"]["referee"]
    auth = {"Authorization": f"Bearer {ref}"}
    s, st, rest = open_stream(d.port, sid, ref)
    assert st == 200
    t0 = time.monotonic()
    data = rest
    s.settimeout(10)
    while True:  # the server ends the stream (the zero chunk) within the bound
        try:
            chunk = s.recv(4096)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
        if data.endswith(b"0\r\n\r\n"):
            break
    elapsed = time.monotonic() - t0
    s.close()
    assert data.endswith(b"0\r\n\r\n"), data[-200:]
    assert 0.9 <= elapsed < 5, elapsed
    assert b"id: 1\n" in data  # the creation event came before the end
    # Resuming from the last id it saw, the client gets what was committed since.
    request(d.port, "POST", f"/v1/sessions/{sid}/actions", {"type": "roll", "expr": "1d6"}, auth)
    s, st, rest = open_stream(d.port, sid, ref, {"Last-Event-ID": "1"})
    s.settimeout(5)
    data = rest
    while b"id: 2\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    s.close()
    assert b"id: 2\n" in data and b"id: 1\n" not in data
