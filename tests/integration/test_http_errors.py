"""HTTP/1.1 framing through the real daemon, on raw sockets."""

import json
import socket
import struct

import pytest

from umpire_client import RawConn, assert_error, expect, raw_request

MIB = 1024 * 1024
CREATE = b'{"ruleset": "generic", "sides": ["a"]}'


def raw_error(resp, status, code):
    assert resp.status == status, f"expected {status} {code}, got {resp!r}"
    ct = (resp.header("content-type") or "").lower()
    assert ct.startswith("application/json"), resp
    body = resp.json()
    assert body["error"]["code"] == code, resp
    assert isinstance(body["error"]["message"], str) and isinstance(body["error"]["details"], dict)
    return body


def healthy(umpire):
    expect(umpire.get("/v1/health"), 200)


@pytest.mark.parametrize("length", [MIB + 1, 10 * MIB, 2 ** 40])
def test_body_too_large_by_content_length(umpire, length):
    """413 decided from Content-Length: the body is never sent."""
    c = RawConn(umpire.daemon.port)
    try:
        c.send(raw_request("POST", "/v1/sessions",
                           [("Content-Type", "application/json"),
                            ("Content-Length", str(length))]))
        raw_error(c.read_response(), 413, "body_too_large")
    finally:
        c.close()
    healthy(umpire)


def test_body_too_large_on_actions(umpire):
    s = umpire.create_session()
    c = RawConn(umpire.daemon.port)
    try:
        c.send(raw_request("POST", f"/v1/sessions/{s['session']['id']}/actions",
                           [("Content-Type", "application/json"),
                            ("Authorization", f"Bearer {s['tokens']['referee']}"),
                            ("Content-Length", str(2 * MIB))]))
        raw_error(c.read_response(), 413, "body_too_large")
    finally:
        c.close()
    assert umpire.session(s["session"]["id"], s["tokens"]["referee"])["version"] == 1


def test_body_of_exactly_1mib_is_read(umpire):
    body = CREATE + b" " * (MIB - len(CREATE))
    assert len(body) == MIB
    expect(umpire.post("/v1/sessions", raw=body), 201)


@pytest.mark.parametrize("shape", ["one-long-header", "many-headers"])
def test_headers_too_large_is_431(umpire, shape):
    if shape == "one-long-header":
        headers = [("X-Pad", "a" * (17 * 1024))]
    else:
        headers = [(f"X-Pad-{i}", "b" * 100) for i in range(200)]
    c = RawConn(umpire.daemon.port)
    try:
        c.send_tolerant(raw_request("GET", "/v1/health", headers))
        raw_error(c.read_response(), 431, "headers_too_large")
    finally:
        c.close()
    healthy(umpire)


def test_headers_just_under_limit_are_fine(umpire):
    c = RawConn(umpire.daemon.port)
    try:
        c.send(raw_request("GET", "/v1/health", [("X-Pad", "a" * (15 * 1024))]))
        r = c.read_response()
        assert r.status == 200, r
    finally:
        c.close()


def test_content_length_and_transfer_encoding_is_400_and_closed(umpire):
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(CREATE), CREATE)
    c = RawConn(umpire.daemon.port)
    try:
        c.send(raw_request("POST", "/v1/sessions",
                           [("Content-Type", "application/json"),
                            ("Content-Length", str(len(chunked))),
                            ("Transfer-Encoding", "chunked")], chunked))
        raw_error(c.read_response(), 400, "bad_request")
        assert c.closed_by_peer(), "connection not closed after an ambiguous request"
    finally:
        c.close()
    healthy(umpire)


@pytest.mark.parametrize("name,request_bytes", [
    ("garbage-request-line", b"HELLO\r\n\r\n"),
    ("bad-content-length", raw_request("POST", "/v1/sessions",
                                       [("Content-Type", "application/json"),
                                        ("Content-Length", "abc")], CREATE)),
    ("negative-content-length", raw_request("POST", "/v1/sessions",
                                            [("Content-Type", "application/json"),
                                             ("Content-Length", "-5")], CREATE)),
    ("conflicting-content-lengths", raw_request("POST", "/v1/sessions",
                                                [("Content-Type", "application/json"),
                                                 ("Content-Length", str(len(CREATE))),
                                                 ("Content-Length", "5")], CREATE)),
    ("header-without-colon", b"GET /v1/health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n"),
    ("space-before-colon", b"GET /v1/health HTTP/1.1\r\nHost : x\r\n\r\n"),
])
def test_malformed_requests_are_400_and_closed(umpire, name, request_bytes):
    c = RawConn(umpire.daemon.port)
    try:
        c.send(request_bytes)
        raw_error(c.read_response(), 400, "bad_request")
        assert c.closed_by_peer(), "connection not closed after a malformed request"
    finally:
        c.close()
    healthy(umpire)


def test_keep_alive_two_requests_on_one_connection(umpire):
    c = RawConn(umpire.daemon.port)
    try:
        c.send(raw_request("GET", "/v1/health"))
        r1 = c.read_response()
        assert r1.status == 200 and r1.json()["status"] == "ok", r1
        assert (r1.header("connection") or "").lower() != "close"
        c.send(raw_request("POST", "/v1/sessions",
                           [("Content-Type", "application/json"),
                            ("Content-Length", str(len(CREATE)))], CREATE))
        r2 = c.read_response()
        assert r2.status == 201, r2
        c.send(raw_request("GET", "/v1/rulesets"))
        r3 = c.read_response()
        assert r3.status == 200 and "rulesets" in r3.json(), r3
    finally:
        c.close()


def test_pipelined_requests_answered_in_order(umpire):
    c = RawConn(umpire.daemon.port)
    try:
        c.send(raw_request("GET", "/v1/health")
               + raw_request("GET", "/v1/nope")
               + raw_request("POST", "/v1/sessions",
                             [("Content-Type", "application/json"),
                              ("Content-Length", str(len(CREATE)))], CREATE)
               + raw_request("GET", "/v1/rulesets")
               + raw_request("POST", "/v1/sessions",
                             [("Content-Type", "application/json"),
                              ("Content-Length", str(len(CREATE)))], CREATE))
        r = [c.read_response() for _ in range(5)]
        assert [x.status for x in r] == [200, 404, 201, 200, 201], r
        assert r[0].json()["status"] == "ok"
        assert r[1].json()["error"]["code"] == "route_not_found"
        assert "rulesets" in r[3].json()
        assert r[2].json()["session"]["id"] != r[4].json()["session"]["id"]
    finally:
        c.close()


def test_request_split_across_many_writes(umpire):
    """A request trickled in byte by byte is still parsed."""
    req = raw_request("POST", "/v1/sessions",
                      [("Content-Type", "application/json"),
                       ("Content-Length", str(len(CREATE)))], CREATE)
    c = RawConn(umpire.daemon.port)
    try:
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(0, len(req), 7):
            c.send(req[i:i + 7])
        r = c.read_response()
        assert r.status == 201, r
    finally:
        c.close()


def test_client_vanishing_mid_request_is_harmless(umpire):
    for partial in (b"POST /v1/sessions HTTP/1.1\r\nContent-Le",
                    raw_request("POST", "/v1/sessions",
                                [("Content-Type", "application/json"),
                                 ("Content-Length", "500")], CREATE)):
        for _ in range(10):
            c = RawConn(umpire.daemon.port)
            c.send(partial)
            c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()     # RST
    healthy(umpire)
    expect(umpire.post("/v1/sessions", raw=CREATE), 201)


def test_http10_request_is_answered_and_closed(umpire):
    c = RawConn(umpire.daemon.port)
    try:
        c.send(b"GET /v1/health HTTP/1.0\r\n\r\n")
        r = c.read_response()
        assert r.status == 200 and json.loads(r.body)["status"] == "ok", r
        assert c.closed_by_peer(), "HTTP/1.0 without keep-alive must be closed after the answer"
    finally:
        c.close()


def test_error_responses_have_the_envelope(umpire):
    assert_error(umpire.get("/v1/sessions/x/y/z/w"), 404, "route_not_found")
