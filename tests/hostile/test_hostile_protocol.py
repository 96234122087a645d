"""Hostile clients against the real daemon: request smuggling corpus, header/body bounds,
max_connections and the header deadline. Raw loopback sockets only.

Each malformed or ambiguous request must get exactly one answer (400, or 413/431 where the
request is merely too big), carry `Connection: close`, and the connection must then be closed
by the daemon (recv returns b"" or a reset). Every request smuggles a complete second request
(`GET /v1/sessions ...`) in its body or after its head: only one answer may ever arrive.
"""

import json
import socket
import time

import pytest

from hostile_util import HostileDaemon, finish, parse_head

IO_TIMEOUT = 5.0
SMUGGLED = b"GET /v1/sessions HTTP/1.1\r\nHost: x\r\n\r\n"
CT = b"Content-Type: application/json\r\n"
SL = len(SMUGGLED)


def _post(headers, body=SMUGGLED, target=b"/v1/sessions"):
    return b"POST " + target + b" HTTP/1.1\r\nHost: x\r\n" + CT + headers + b"\r\n" + body


# name -> (request bytes, allowed statuses)
CORPUS = {
    "cl_and_te": (_post(b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % (SL + 5),
                        b"0\r\n\r\n" + SMUGGLED), {400}),
    "te_and_cl": (_post(b"Transfer-Encoding: chunked\r\nContent-Length: %d\r\n" % (SL + 5),
                        b"0\r\n\r\n" + SMUGGLED), {400}),
    "cl_and_te_zero_cl": (_post(b"Content-Length: 0\r\nTransfer-Encoding: chunked\r\n",
                                b"%x\r\n" % SL + SMUGGLED + b"\r\n0\r\n\r\n"), {400}),
    "duplicate_cl_same": (_post(b"Content-Length: %d\r\nContent-Length: %d\r\n" % (SL, SL)),
                          {400}),
    "duplicate_cl_different": (_post(b"Content-Length: 0\r\nContent-Length: %d\r\n" % SL), {400}),
    "cl_list": (_post(b"Content-Length: %d, %d\r\n" % (SL, SL)), {400}),
    "te_chunked_then_identity": (_post(b"Transfer-Encoding: chunked, identity\r\n",
                                       b"0\r\n\r\n" + SMUGGLED), {400}),
    "te_chunked_not_last_two_lines": (_post(b"Transfer-Encoding: chunked\r\n"
                                            b"Transfer-Encoding: identity\r\n",
                                            b"0\r\n\r\n" + SMUGGLED), {400}),
    "te_xchunked": (_post(b"Transfer-Encoding: xchunked\r\n", b"0\r\n\r\n" + SMUGGLED), {400}),
    "te_space_before_colon": (_post(b"Transfer-Encoding : chunked\r\nContent-Length: %d\r\n"
                                    % (SL + 5), b"0\r\n\r\n" + SMUGGLED), {400}),
    "obs_fold": (_post(b"Content-Length: 2\r\nX-A: b\r\n c\r\n", b"{}" + SMUGGLED), {400}),
    "obs_fold_te": (_post(b"Transfer-Encoding:\r\n chunked\r\n", b"0\r\n\r\n" + SMUGGLED),
                    {400}),
    "bare_cr": (b"GET /v1/health HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n" + SMUGGLED, {400}),
    "bare_lf": (b"GET /v1/health HTTP/1.1\nHost: x\n\n" + SMUGGLED, {400}),
    "bare_lf_header": (b"GET /v1/health HTTP/1.1\r\nHost: x\nX-A: b\r\n\r\n" + SMUGGLED, {400}),
    "space_before_colon": (b"GET /v1/health HTTP/1.1\r\nHost : x\r\n\r\n" + SMUGGLED, {400}),
    "invalid_chunk_size": (_post(b"Transfer-Encoding: chunked\r\n", b"zz\r\n" + SMUGGLED), {400}),
    "chunk_size_overflow": (_post(b"Transfer-Encoding: chunked\r\n",
                                  b"10000000000000000\r\n" + SMUGGLED), {400}),
    "chunk_size_negative": (_post(b"Transfer-Encoding: chunked\r\n", b"-1\r\n" + SMUGGLED),
                            {400}),
    "absurd_cl_overflow": (_post(b"Content-Length: 99999999999999999999999999\r\n"), {400}),
    "absurd_cl_huge": (_post(b"Content-Length: 1000000000000000\r\n"), {413}),
    "negative_cl": (_post(b"Content-Length: -%d\r\n" % SL), {400}),
    "plus_cl": (_post(b"Content-Length: +%d\r\n" % SL), {400}),
    "http2_preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SMUGGLED, {400}),
    "non_ascii_target": (b"GET /v1/h\xc3\xa9alth HTTP/1.1\r\nHost: x\r\n\r\n" + SMUGGLED, {400}),
    "nul_in_header": (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n" + SMUGGLED,
                      {400}),
    "space_in_target": (b"GET /v1/health " + SMUGGLED[:-4] + b"\r\n\r\n", {400}),
}


def read_one_answer_then_eof(sock, timeout=IO_TIMEOUT):
    """Reads the first answer; then everything until EOF/reset. -> (status, headers, body,
    trailing bytes after the first answer, closed?)."""
    sock.settimeout(timeout)
    buf = b""
    deadline = time.monotonic() + timeout
    parsed = None
    closed = False
    while time.monotonic() < deadline:
        parsed = parse_head(buf)
        if parsed:
            status, headers, rest = parsed
            n = int(headers.get("content-length", "0"))
            if len(rest) >= n:
                break
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            closed = True
            break
        except socket.timeout:
            break
        if not chunk:
            closed = True
            break
        buf += chunk
    parsed = parse_head(buf)
    assert parsed, f"no complete answer; got {buf[:300]!r}"
    status, headers, rest = parsed
    n = int(headers.get("content-length", "0"))
    body, trailing = rest[:n], rest[n:]
    while not closed and time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            closed = True
            break
        except socket.timeout:
            break
        if not chunk:
            closed = True
            break
        trailing += chunk
    return status, headers, body, trailing, closed


def send_tolerant(sock, data):
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


@pytest.fixture(scope="module")
def corpus_daemon():
    d = HostileDaemon(server={"header_timeout_ms": 3000, "idle_timeout_ms": 3000})
    d.start()
    try:
        yield d
        problems = finish(d)
        assert not problems, "; ".join(problems) + "\n" + d.stderr_text()[-4000:]
    finally:
        d.cleanup()


def error_code(body):
    return json.loads(body)["error"]["code"]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_smuggling_corpus_one_answer_then_close(corpus_daemon, name):
    data, allowed = CORPUS[name]
    s = socket.create_connection(("127.0.0.1", corpus_daemon.port), timeout=IO_TIMEOUT)
    try:
        send_tolerant(s, data)
        status, headers, body, trailing, closed = read_one_answer_then_eof(s)
        assert status in allowed, f"{name}: expected {sorted(allowed)}, got {status} {body!r}"
        expected_code = {400: "bad_request", 413: "body_too_large",
                         431: "headers_too_large"}[status]
        assert error_code(body) == expected_code, body
        assert headers.get("connection", "").lower() == "close", headers
        assert closed, f"{name}: connection not closed after the {status}"
        assert b"HTTP/1." not in trailing, \
            f"{name}: a second answer arrived (smuggled request served): {trailing[:300]!r}"
    finally:
        s.close()
    # The daemon is unharmed and created nothing from the smuggled bodies.
    c = socket.create_connection(("127.0.0.1", corpus_daemon.port), timeout=IO_TIMEOUT)
    try:
        c.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, _h, _b, _t, _c = read_one_answer_then_eof(c)
        assert status == 200
    finally:
        c.close()


def test_smuggled_request_after_valid_one_with_bad_framing(hostile):
    """A good request, then an ambiguous one that hides a third: exactly two answers."""
    d = hostile()
    s = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
    try:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n" +
                  _post(b"Content-Length: %d\r\nContent-Length: 0\r\n" % SL))
        s.settimeout(IO_TIMEOUT)
        buf = b""
        deadline = time.monotonic() + IO_TIMEOUT
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                break
            if not chunk:
                break
            buf += chunk
        statuses = []
        rest = buf
        for _ in range(10):
            p = parse_head(rest)
            if not p:
                break
            statuses.append(p[0])
            rest = p[2][int(p[1].get("content-length", "0")):]
        assert statuses == [200, 400] and rest == b"", buf[:1000]
    finally:
        s.close()


# ---- bounds ----------------------------------------------------------------------------------

def test_16k_headers_get_431_and_close(hostile):
    d = hostile()  # max_header_bytes default 16384
    s = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
    try:
        req = (b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" +
               b"".join(b"X-Pad-%d: %s\r\n" % (i, b"p" * 1000) for i in range(17)) + b"\r\n")
        assert len(req) > 16384
        send_tolerant(s, req)
        status, headers, body, trailing, closed = read_one_answer_then_eof(s)
        assert status == 431 and error_code(body) == "headers_too_large", body
        assert headers.get("connection") == "close"
        assert closed and b"HTTP/1." not in trailing
    finally:
        s.close()
    # Just under the limit is fine.
    s = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
    try:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"p" * 15000 + b"\r\n\r\n")
        status, _h, _b, _t, _c = read_one_answer_then_eof(s, timeout=2)
        assert status == 200
    finally:
        s.close()


def test_body_over_1mib_by_content_length_is_413_before_the_body(hostile):
    d = hostile()  # max_body_bytes default 1048576
    s = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
    try:
        s.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + CT +
                  b"Content-Length: %d\r\n\r\n" % (1048576 + 1))
        # Not one body byte sent: the answer must come anyway.
        status, headers, body, _trailing, closed = read_one_answer_then_eof(s)
        assert status == 413 and error_code(body) == "body_too_large", body
        assert headers.get("connection") == "close"
        assert closed
    finally:
        s.close()
    # Exactly at the limit: not 413 (the body is read; it is not JSON -> 400 invalid_json).
    s = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
    try:
        send_tolerant(s, b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\n" + CT +
                      b"Content-Length: 1048576\r\n\r\n" + b"x" * 1048576)
        status, _h, body, _t, _c = read_one_answer_then_eof(s)
        assert status != 413, body
    finally:
        s.close()


def _served(port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
    except OSError:
        return False
    try:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, _h, _b, _t, _c = read_one_answer_then_eof(s, timeout=2)
        return status == 200
    except (OSError, AssertionError):
        return False
    finally:
        s.close()


def test_max_connections_503_then_close(hostile):
    d = hostile(server={"max_connections": 8, "header_timeout_ms": 5000,
                        "idle_timeout_ms": 20000})
    held = []
    try:
        deadline = time.monotonic() + 10
        while len(held) < 8 and time.monotonic() < deadline:
            s = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            status, headers, body = _read_keepalive(s)
            if status == 200:
                held.append(s)
            else:  # a health-check connection of start-up still closing
                s.close()
                time.sleep(0.1)
        assert len(held) == 8
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
            try:
                send_tolerant(s, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
                status, headers, body, trailing, closed = read_one_answer_then_eof(s)
                assert status == 503 and error_code(body) == "too_many_connections", body
                assert closed and b"HTTP/1." not in trailing
            finally:
                s.close()
        for s in held:  # the held connections are untouched
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _read_keepalive(s)[0] == 200
        held.pop().close()
        deadline = time.monotonic() + 3
        ok = False
        while time.monotonic() < deadline and not ok:
            ok = _served(d.port)
            if not ok:
                time.sleep(0.1)
        assert ok, "a slot freed by a closed connection was not reused"
    finally:
        for s in held:
            s.close()


def _read_keepalive(s):
    s.settimeout(IO_TIMEOUT)
    buf = b""
    deadline = time.monotonic() + IO_TIMEOUT
    while time.monotonic() < deadline:
        p = parse_head(buf)
        if p and len(p[2]) >= int(p[1].get("content-length", "0")):
            return p[0], p[1], p[2]
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    p = parse_head(buf)
    assert p, f"no answer: {buf!r}"
    return p[0], p[1], p[2]


def test_header_deadline_408_and_close(hostile):
    d = hostile(server={"header_timeout_ms": 1000})
    partial = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
    silent = socket.create_connection(("127.0.0.1", d.port), timeout=IO_TIMEOUT)
    t0 = time.monotonic()
    try:
        partial.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow")
        for s in (partial, silent):
            status, headers, body, trailing, closed = read_one_answer_then_eof(s)
            elapsed = time.monotonic() - t0
            assert status == 408 and error_code(body) == "request_timeout", body
            assert headers.get("connection") == "close"
            assert closed and b"HTTP/1." not in trailing
            assert 0.9 <= elapsed <= 3.0, f"408 after {elapsed:.2f} s (header_timeout 1 s)"
    finally:
        partial.close()
        silent.close()
    assert _served(d.port)
