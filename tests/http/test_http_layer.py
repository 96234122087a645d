"""Tests of the HTTP/1.1 layer (server/http/http_server.c) through tests/http/http_harness.c.

Raw loopback sockets only. The harness binary comes from $HTTP_HARNESS (default
build/tests/http_harness, relative to the repository root). Every test starts its own harness
with short timeouts and, at teardown, stops it with SIGTERM and requires exit status 0 and a
stderr free of sanitizer reports.
"""

import json
import os
import random
import resource
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(os.environ.get("HTTP_HARNESS", "build/tests/http_harness"))
if not HARNESS.is_absolute():
    HARNESS = ROOT / HARNESS

JSON_TYPE = "application/json; charset=utf-8"
IO_TIMEOUT = 5.0

# header_timeout_ms idle_timeout_ms max_body max_header max_pipelined max_connections wq_max
DEFAULT_ARGS = (1000, 1000, 1024, 4096, 4, 64, 262144)
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:", "HARNESS CHECK FAILED")


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)


class Client:
    """A raw connection with a buffered HTTP/1.1 response reader."""

    def __init__(self, port, timeout=IO_TIMEOUT):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def get(self, target, extra=""):
        self.send(f"GET {target} HTTP/1.1\r\nHost: t\r\n{extra}\r\n".encode())
        return self.read_response()

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("connection closed")
        self.buf += chunk

    def read_head(self):
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        version, status, _reason = lines[0].split(" ", 2)
        assert version == "HTTP/1.1"
        headers = {}
        for line in lines[1:]:
            name, value = line.split(":", 1)
            assert name.lower() not in headers, f"duplicate header {name}"
            headers[name.lower()] = value.strip()
        return int(status), headers

    def read_response(self, head_request=False):
        status, headers = self.read_head()
        length = int(headers.get("content-length", "0"))
        if head_request:
            return Response(status, headers, b"")
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        return Response(status, headers, body)

    def wait_closed(self, timeout=3.0):
        """True once the server closed (EOF or reset) within timeout; discards data."""
        self.sock.settimeout(timeout)
        try:
            while self.sock.recv(65536):
                pass
            return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()


class Harness:
    def __init__(self, tmp_path, args, preexec_fn=None):
        self.portfile = tmp_path / "port"
        self.errpath = tmp_path / "harness.stderr"
        self.errfile = open(self.errpath, "wb")
        cmd = [str(HARNESS), str(self.portfile)] + [str(a) for a in args]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.errfile, preexec_fn=preexec_fn)
        deadline = time.monotonic() + 15
        while not self.portfile.exists():
            assert self.proc.poll() is None, f"harness exited: {self.stderr()}"
            assert time.monotonic() < deadline, "harness did not write its port"
            time.sleep(0.02)
        self.port = int(self.portfile.read_text())

    def client(self, timeout=IO_TIMEOUT):
        return Client(self.port, timeout)

    def stderr(self):
        self.errfile.flush()
        return self.errpath.read_text(errors="replace")

    def access_lines(self):
        lines = []
        for line in self.stderr().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("msg") == "access":
                lines.append(entry)
        return lines

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def connections(self):
        c = self.client()
        try:
            return c.get("/stats").json()["connections"] - 1
        finally:
            c.close()

    def terminate(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("harness did not exit after SIGTERM")


@pytest.fixture
def start(tmp_path):
    started = []

    def _start(*args, preexec_fn=None):
        workdir = tmp_path / f"h{len(started)}"
        workdir.mkdir()
        h = Harness(workdir, args or DEFAULT_ARGS, preexec_fn)
        started.append(h)
        return h

    yield _start
    for h in started:
        rc = h.terminate()
        err = h.stderr()
        h.errfile.close()
        assert rc == 0, f"harness exit status {rc}:\n{err[-4000:]}"
        for mark in SANITIZER_MARKS:
            assert mark not in err, err[-8000:]


def assert_layer_error(resp, status, code):
    assert resp.status == status
    assert resp.headers["connection"] == "close"
    assert resp.headers["content-type"] == JSON_TYPE
    assert int(resp.headers["content-length"]) == len(resp.body)
    err = resp.json()["error"]
    assert err["code"] == code
    assert isinstance(err["message"], str) and err["message"]
    assert err["details"] == {}


def wait_until(pred, timeout, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


# ---- keep-alive and pipelining --------------------------------------------------------------

def test_keep_alive_serves_several_requests(start):
    h = start()
    c = h.client()
    for i in range(5):
        r = c.get(f"/echo?i={i}")
        assert r.status == 200
        assert r.headers["connection"] == "keep-alive"
        assert r.headers["content-type"] == JSON_TYPE
        assert r.headers["cache-control"] == "no-store"
        assert "date" in r.headers
        assert r.json() == {"method": "GET", "path": "/echo", "query": f"i={i}",
                            "body_length": 0, "header_count": 1}
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
    assert c.read_response().json()["body_length"] == 5
    r = c.get("/echo", "Connection: close\r\n")
    assert r.status == 200 and r.headers["connection"] == "close"
    assert c.wait_closed()


def test_http10_closes_unless_keep_alive(start):
    h = start()
    c = h.client()
    c.send(b"GET /echo HTTP/1.0\r\n\r\n")
    r = c.read_response()
    assert r.status == 200 and r.headers["connection"] == "close"
    assert c.wait_closed()
    c = h.client()
    for _ in range(2):
        c.send(b"GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        r = c.read_response()
        assert r.status == 200 and r.headers["connection"] == "keep-alive"
    c.close()


def test_pipelined_answers_are_written_in_request_order(start):
    h = start()
    c = h.client()
    t0 = time.monotonic()
    c.send(b"GET /delay?ms=300 HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /delay?ms=0 HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /echo?third HTTP/1.1\r\nHost: t\r\n\r\n")
    first = c.read_response()
    assert time.monotonic() - t0 >= 0.25
    assert first.json() == {"delayed_ms": 300}
    assert c.read_response().json() == {"delayed_ms": 0}
    assert c.read_response().json()["query"] == "third"
    assert c.get("/echo").status == 200


def test_in_flight_requests_per_connection_are_bounded(start):
    h = start()  # max_pipelined 4
    c = h.client()
    t0 = time.monotonic()
    c.send(b"GET /delay?ms=100 HTTP/1.1\r\nHost: t\r\n\r\n" * 12)
    for _ in range(12):
        assert c.read_response().json() == {"delayed_ms": 100}
    # 12 requests, at most 4 at a time: at least 3 rounds of 100 ms.
    assert time.monotonic() - t0 >= 0.28


def test_head_request_gets_length_but_no_body(start):
    h = start()
    c = h.client()
    c.send(b"HEAD /big?bytes=100 HTTP/1.1\r\nHost: t\r\n\r\n")
    r = c.read_response(head_request=True)
    assert r.status == 200 and r.headers["content-length"] == "100"
    assert c.get("/echo").status == 200  # no stray body bytes before this answer
    assert c.buf == b""


def test_expect_100_continue(start):
    h = start()
    c = h.client()
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
    status, _ = c.read_head()
    assert status == 100
    c.send(b"hello")
    assert c.read_response().json()["body_length"] == 5


def test_unknown_route_is_404_envelope(start):
    h = start()
    r = h.client().get("/nope")
    assert r.status == 404 and r.headers["connection"] == "keep-alive"
    assert r.json()["error"]["code"] == "not_found"


def test_chunked_body_within_limit(start):
    h = start()
    c = h.client()
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"64\r\n" + b"a" * 100 + b"\r\n64;ext=1\r\n" + b"b" * 100 + b"\r\n0\r\nX-T: 1\r\n\r\n")
    r = c.read_response()
    assert r.status == 200 and r.json()["body_length"] == 200
    assert c.get("/echo").status == 200


# ---- limits ---------------------------------------------------------------------------------

def test_431_header_too_large(start):
    h = start()  # max_header 4096
    c = h.client()
    c.send(b"GET /echo HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 8000 + b"\r\n\r\n")
    assert_layer_error(c.read_response(), 431, "headers_too_large")
    assert c.wait_closed()


def test_431_too_many_headers(start):
    h = start()
    c = h.client()
    fields = "".join(f"X-{i}: v\r\n" for i in range(99))
    c.send(f"GET /echo HTTP/1.1\r\nHost: t\r\n{fields}\r\n".encode())
    r = c.read_response()
    assert r.status == 200 and r.json()["header_count"] == 100
    fields = "".join(f"X-{i}: v\r\n" for i in range(100))
    c.send(f"GET /echo HTTP/1.1\r\nHost: t\r\n{fields}\r\n".encode())
    assert_layer_error(c.read_response(), 431, "headers_too_large")
    assert c.wait_closed()


def test_413_from_content_length_before_any_body_byte(start):
    h = start()  # max_body 1024
    c = h.client()
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
    # No body byte is ever sent: the answer must come from the head alone.
    assert_layer_error(c.read_response(), 413, "body_too_large")
    assert c.wait_closed()


def test_413_chunked_body_over_limit(start):
    h = start()
    c = h.client()
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
    try:
        for _ in range(3):
            c.send(b"200\r\n" + b"z" * 512 + b"\r\n")
            time.sleep(0.05)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert_layer_error(c.read_response(), 413, "body_too_large")
    assert c.wait_closed()


def test_408_when_head_is_not_complete_in_time(start):
    h = start()  # header_timeout 1000
    c = h.client()
    t0 = time.monotonic()
    c.send(b"GET /echo HTTP/1.1\r\nHost: t\r\n")
    time.sleep(0.4)
    c.send(b"X-Slow: 1\r\n")  # trickling bytes does not extend the deadline
    r = c.read_response()
    elapsed = time.monotonic() - t0
    assert_layer_error(r, 408, "request_timeout")
    assert 0.8 <= elapsed <= 3.0
    assert c.wait_closed()


def test_408_for_a_connection_that_sends_nothing(start):
    h = start()
    c = h.client()
    t0 = time.monotonic()
    assert_layer_error(c.read_response(), 408, "request_timeout")
    assert 0.8 <= time.monotonic() - t0 <= 3.0


def test_408_when_body_stalls(start):
    h = start()  # idle_timeout 1000 bounds a stalled body
    c = h.client()
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabcde")
    assert_layer_error(c.read_response(), 408, "request_timeout")
    assert c.wait_closed()


def test_idle_keep_alive_connection_is_closed(start):
    h = start()  # idle_timeout 1000
    c = h.client()
    assert c.get("/echo").status == 200
    time.sleep(0.5)
    assert c.get("/echo").status == 200  # not idle long enough yet
    t0 = time.monotonic()
    assert c.wait_closed(timeout=4)
    assert 0.8 <= time.monotonic() - t0 <= 1.8
    assert wait_until(lambda: h.connections() == 0, 3)


# ---- smuggling and malformed input ----------------------------------------------------------

BAD_REQUESTS = {
    "cl_and_te": b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "te_and_cl": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
                 b"Content-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "duplicate_cl_same": b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n"
                         b"Content-Length: 3\r\n\r\nabc",
    "duplicate_cl_different": b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n"
                              b"Content-Length: 4\r\n\r\nabcd",
    "cl_list": b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3, 3\r\n\r\nabc",
    "cl_negative": b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n",
    "te_gzip_only": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\nabc",
    "te_chunked_twice": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
                        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "obs_fold_space": b"GET /echo HTTP/1.1\r\nHost: t\r\nX-A: b\r\n c\r\n\r\n",
    "obs_fold_tab": b"GET /echo HTTP/1.1\r\nHost: t\r\nX-A: b\r\n\tc\r\n\r\n",
    "obs_fold_first_line": b"GET /echo HTTP/1.1\r\n Host: t\r\n\r\n",
    "obs_fold_in_trailer": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                           b"0\r\nX-T: a\r\n b\r\n\r\n",
    "bare_lf_everywhere": b"GET /echo HTTP/1.1\nHost: t\n\n",
    "bare_lf_request_line": b"GET /echo HTTP/1.1\nHost: t\r\n\r\n",
    "bare_lf_header_line": b"GET /echo HTTP/1.1\r\nHost: t\nX-A: b\r\n\r\n",
    "bare_lf_end_of_head": b"GET /echo HTTP/1.1\r\nHost: t\r\n\n",
    "bare_lf_before_request": b"\nGET /echo HTTP/1.1\r\nHost: t\r\n\r\n",
    "bare_lf_end_of_trailers": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked"
                               b"\r\n\r\n0\r\n\n",
    "bare_lf_after_chunk": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                           b"3\r\nabc\n0\r\n\r\n",
    "bare_cr_in_head": b"GET /echo HTTP/1.1\r\nHost: t\rX-A: b\r\n\r\n",
    "bare_cr_request_line": b"GET /echo HTTP/1.1\rHost: t\r\n\r\n",
    "space_before_colon": b"GET /echo HTTP/1.1\r\nHost : t\r\n\r\n",
    "space_in_field_name": b"GET /echo HTTP/1.1\r\nHost: t\r\nX Y: z\r\n\r\n",
    "empty_field_name": b"GET /echo HTTP/1.1\r\nHost: t\r\n: z\r\n\r\n",
    "nul_in_value": b"GET /echo HTTP/1.1\r\nHost: t\r\nX-A: a\x00b\r\n\r\n",
    "ctl_in_value": b"GET /echo HTTP/1.1\r\nHost: t\r\nX-A: a\x01b\r\n\r\n",
    "tab_in_target": b"GET /ec\tho HTTP/1.1\r\nHost: t\r\n\r\n",
    "non_ascii_target": b"GET /\xc3\xa9 HTTP/1.1\r\nHost: t\r\n\r\n",
    "no_version": b"GET /echo\r\n\r\n",
    "http_2_0": b"GET /echo HTTP/2.0\r\nHost: t\r\n\r\n",
    "http_1_2": b"GET /echo HTTP/1.2\r\nHost: t\r\n\r\n",
    "lowercase_method": b"get /echo HTTP/1.1\r\nHost: t\r\n\r\n",
    "bad_chunk_size": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                      b"zz\r\n",
    "binary_garbage": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(64)),
    # RFC 9112 7.1: chunk-data is followed by exactly CRLF (llhttp's loose build skips any two
    # bytes there, so "ZZ" was read as the CRLF and the next chunk framed from "0")
    "chunk_data_then_zz": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                          b"1c\r\n" + b"a" * 28 + b"ZZ0\r\n\r\n",
    "chunk_data_then_cr_x": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked"
                            b"\r\n\r\n3\r\nabc\rX0\r\n\r\n",
    "chunk_data_then_lf_cr": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked"
                             b"\r\n\r\n3\r\nabc\n\r0\r\n\r\n",
    "second_chunk_then_zz": b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked"
                            b"\r\n\r\n3\r\nabc\r\n2\r\nde;x0\r\n\r\n",
    # RFC 9112 3.2: exactly one Host in HTTP/1.1; one Authorization
    "no_host": b"GET /echo HTTP/1.1\r\nX-A: b\r\n\r\n",
    "two_hosts": b"GET /echo HTTP/1.1\r\nHost: t\r\nHost: u\r\n\r\n",
    "two_hosts_10": b"GET /echo HTTP/1.0\r\nHost: t\r\nhost: t\r\n\r\n",
    "two_authorizations": b"GET /echo HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer a\r\n"
                          b"authorization: Bearer b\r\n\r\n",
}


@pytest.mark.parametrize("name", sorted(BAD_REQUESTS))
def test_malformed_or_ambiguous_request_is_400_and_close(start, name):
    h = start()
    c = h.client()
    c.send(BAD_REQUESTS[name])
    assert_layer_error(c.read_response(), 400, "bad_request")
    assert c.wait_closed()


def test_chunk_crlf_checked_across_reads(start):
    """The CRLF after a chunk's data, sent a byte at a time (it then straddles reads): a good
    body is read whole, a wrong byte there is a 400."""
    h = start()
    good = (b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n")
    c = h.client()
    for i in range(len(good)):
        c.send(good[i:i + 1])
        time.sleep(0.002)
    r = c.read_response()
    assert r.status == 200 and r.json()["body_length"] == 7
    c = h.client()
    bad = good.replace(b"abc\r\n4", b"abc\rZ4")
    for i in range(len(bad)):
        c.send(bad[i:i + 1])
        time.sleep(0.002)
    assert_layer_error(c.read_response(), 400, "bad_request")
    assert c.wait_closed()


def test_http10_without_host_is_served(start):
    h = start()
    c = h.client()
    c.send(b"GET /echo HTTP/1.0\r\n\r\n")
    assert c.read_response().status == 200


def test_400_after_a_good_request_on_the_same_connection(start):
    h = start()
    c = h.client()
    c.send(b"GET /echo HTTP/1.1\r\nHost: t\r\n\r\n"
           b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx"
           b"GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
    first = c.read_response()
    assert first.status == 200 and first.headers["connection"] == "keep-alive"
    assert_layer_error(c.read_response(), 400, "bad_request")
    assert c.wait_closed()  # the request smuggled after it is never answered


def test_garbage_does_not_hurt_the_next_client(start):
    h = start()
    c = h.client()
    c.send(b"\x00\xff\xfe garbage \r\n\r\n")
    assert_layer_error(c.read_response(), 400, "bad_request")
    assert c.wait_closed()
    assert h.client().get("/echo").status == 200


def test_fuzzed_requests_never_crash_the_server(start):
    h = start()
    rng = random.Random(1234)
    base = (b"POST /echo?x=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n"
            b"Transfer-Encoding: chunked\r\nX-A: b\r\n\r\n4\r\nabcd\r\n0\r\n\r\n")
    alphabet = b"\r\n :\t\x00\xffGETPOST/0123456789abcdefHTTP/1.1chunkedContent-Length"
    clients = []
    for i in range(60):
        data = bytearray(base if i % 3 else base.replace(b"Transfer-Encoding: chunked\r\n", b""))
        for _ in range(rng.randint(1, 6)):
            pos = rng.randrange(len(data))
            op = rng.randrange(3)
            if op == 0:
                data[pos] = rng.choice(alphabet)
            elif op == 1:
                del data[pos]
            else:
                data[pos:pos] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
        if i % 10 == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 3000)))
        c = h.client()
        try:
            c.send(bytes(data))
            c.sock.shutdown(socket.SHUT_WR)  # EOF ends requests that wait for more bytes
        except OSError:
            pass
        clients.append(c)
    for c in clients:
        assert c.wait_closed(timeout=5)
        c.close()
    assert h.proc.poll() is None
    assert h.client().get("/echo").status == 200


# ---- connections, memory, descriptors -------------------------------------------------------

def test_max_connections_is_enforced(start):
    h = start(1000, 5000, 1024, 4096, 4, 3, 262144)
    held = [h.client() for _ in range(3)]
    for c in held:
        assert c.get("/echo").status == 200
    for _ in range(5):
        extra = h.client()
        try:
            extra.send(b"GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
            r = extra.read_response()
            assert_layer_error(r, 503, "too_many_connections")
        except (EOFError, ConnectionResetError, BrokenPipeError):
            pass  # accepted and closed at once is fine too
        assert extra.wait_closed()
        extra.close()
    for c in held:
        assert c.get("/echo").status == 200  # the held connections are untouched
    warnings = [l for l in h.stderr().splitlines() if "max_connections" in l]
    assert 1 <= len(warnings) <= 2  # at most once a second
    held.pop().close()

    def served():
        c = h.client()
        try:
            c.send(b"GET /stats HTTP/1.1\r\nHost: t\r\n\r\n")
            return c.read_response().status == 200
        except (EOFError, OSError):
            return False
        finally:
            c.close()

    assert wait_until(served, 3)


def test_client_that_never_reads_is_bounded_and_closed(start):
    h = start()  # max_pipelined 4, write queue 256 KiB, idle 1000 ms
    assert h.client().get("/big?bytes=1048576").status == 200
    base = h.rss_kb()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
    s.connect(("127.0.0.1", h.port))
    s.setblocking(False)
    # 600 requests (1.2 MiB, more than the kernel buffers hold) asking for 600 MiB of answers.
    request = b"GET /big?bytes=1048576 HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"p" * 2000 + b"\r\n\r\n"
    payload = request * 600
    sent, peak = 0, base
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            if sent < len(payload):
                sent += s.send(payload[sent:sent + 65536])
        except BlockingIOError:
            pass
        except OSError:
            break
        peak = max(peak, h.rss_kb())
        time.sleep(0.01)
    assert sent < len(payload)  # the server stopped reading
    assert peak - base < 96 * 1024, f"RSS grew by {peak - base} KiB"
    assert wait_until(lambda: h.connections() == 0, 6), "stalled connection not closed"
    peak = max(peak, h.rss_kb())
    assert peak - base < 96 * 1024
    s.close()
    assert h.client().get("/echo").status == 200


def test_out_of_descriptors_pauses_accepting_without_spinning(start):
    def low_fd_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))

    h = start(5000, 5000, 1024, 4096, 4, 1000, 262144, preexec_fn=low_fd_limit)
    clients = [socket.create_connection(("127.0.0.1", h.port), timeout=5) for _ in range(60)]
    assert wait_until(lambda: "pausing accepts" in h.stderr(), 3)
    cpu0, t0 = h.cpu_seconds(), time.monotonic()
    time.sleep(1.0)
    busy = (h.cpu_seconds() - cpu0) / (time.monotonic() - t0)
    assert busy < 0.3, f"harness used {busy:.0%} of a CPU while out of descriptors"
    for s in clients:
        s.close()

    def served():
        try:
            c = h.client(timeout=1)
            try:
                return c.get("/echo").status == 200
            finally:
                c.close()
        except (EOFError, OSError):
            return False

    assert wait_until(served, 8, step=0.2)


# ---- shutdown -------------------------------------------------------------------------------

def test_sigterm_finishes_the_in_flight_request_then_exits_0(start):
    h = start()
    c = h.client()
    c.send(b"GET /delay?ms=700 HTTP/1.1\r\nHost: t\r\n\r\n")
    time.sleep(0.2)
    h.proc.send_signal(signal.SIGTERM)
    time.sleep(0.1)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", h.port), timeout=1)
    r = c.read_response()
    assert r.status == 200 and r.json() == {"delayed_ms": 700}
    assert r.headers["connection"] == "close"
    assert c.wait_closed()
    assert h.proc.wait(timeout=5) == 0


def test_sigterm_answers_new_requests_503_on_busy_connections(start):
    h = start()
    c = h.client()
    c.send(b"GET /delay?ms=600 HTTP/1.1\r\nHost: t\r\n\r\n")
    time.sleep(0.1)
    h.proc.send_signal(signal.SIGTERM)
    time.sleep(0.1)
    c.send(b"GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
    first = c.read_response()
    assert first.status == 200 and first.json() == {"delayed_ms": 600}
    assert_layer_error(c.read_response(), 503, "shutting_down")
    assert c.wait_closed()
    assert h.proc.wait(timeout=5) == 0


def test_sigterm_closes_idle_connections_at_once(start):
    h = start(1000, 30000, 1024, 4096, 4, 64, 262144)
    c = h.client()
    assert c.get("/echo").status == 200
    t0 = time.monotonic()
    h.proc.send_signal(signal.SIGTERM)
    assert c.wait_closed(timeout=3)
    assert h.proc.wait(timeout=5) == 0
    assert time.monotonic() - t0 < 2


# ---- access log -----------------------------------------------------------------------------

def test_access_log_has_one_line_per_answer_including_layer_errors(start):
    h = start()
    c = h.client()
    assert c.get("/echo?q=1").status == 200
    assert c.get("/missing").status == 404
    c.send(b"GET /x HTTP/1.1\r\nHost : t\r\n\r\n")
    assert c.read_response().status == 400
    port = c.sock.getsockname()[1]
    c.close()
    assert wait_until(lambda: len(h.access_lines()) >= 3, 2)
    lines = h.access_lines()
    assert [(l["method"], l["path"], l["status"]) for l in lines] == [
        ("GET", "/echo", 200), ("GET", "/missing", 404), ("-", "-", 400)]
    assert all(l["remote"] == f"127.0.0.1:{port}" for l in lines)
    assert lines[0]["bytes"] > 0 and isinstance(lines[0]["us"], int)


# ---- more connection life cycles ------------------------------------------------------------

def test_many_pipelined_requests_are_all_answered_in_order(start):
    h = start()
    c = h.client()
    n = 1000
    c.send(b"".join(f"GET /echo?i={i} HTTP/1.1\r\nHost: t\r\n\r\n".encode() for i in range(n)))
    for i in range(n):
        r = c.read_response()
        assert r.status == 200 and r.json()["query"] == f"i={i}"


def test_requests_after_connection_close_are_not_answered(start):
    h = start()
    c = h.client()
    c.send(b"GET /echo?a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
           b"GET /echo?b HTTP/1.1\r\nHost: t\r\n\r\n")
    r = c.read_response()
    assert r.json()["query"] == "a" and r.headers["connection"] == "close"
    assert c.wait_closed()
    assert c.buf == b""


def test_half_closed_client_still_gets_its_answers(start):
    h = start()
    c = h.client()
    c.send(b"GET /delay?ms=200 HTTP/1.1\r\nHost: t\r\n\r\nGET /echo HTTP/1.1\r\nHost: t\r\n\r\n")
    c.sock.shutdown(socket.SHUT_WR)
    first = c.read_response()
    assert first.json() == {"delayed_ms": 200} and first.headers["connection"] == "keep-alive"
    second = c.read_response()
    assert second.status == 200 and second.headers["connection"] == "close"
    assert c.wait_closed()


def test_client_gone_before_the_answer_is_dropped_cleanly(start):
    h = start()
    for _ in range(5):
        c = h.client()
        c.send(b"GET /delay?ms=300 HTTP/1.1\r\nHost: t\r\n\r\n")
        c.close()
    assert wait_until(lambda: h.connections() == 0, 2)
    time.sleep(0.4)  # the answers arrive for requests whose clients are gone
    assert h.client().get("/echo").status == 200


def test_sigterm_waits_for_answers_to_departed_clients(start):
    h = start()
    c = h.client()
    c.send(b"GET /delay?ms=500 HTTP/1.1\r\nHost: t\r\n\r\n")
    c.close()
    time.sleep(0.1)
    t0 = time.monotonic()
    h.proc.send_signal(signal.SIGTERM)
    assert h.proc.wait(timeout=5) == 0
    assert time.monotonic() - t0 >= 0.25  # done only after the handler answered


def test_slow_reader_is_not_cut_off(start):
    # idle 300 ms: a writer that makes no progress for that long is closed, a slow reader is not.
    # 12 MiB is well over what the kernel buffers on loopback, so the server's write stays
    # pending for seconds.
    h = start(1000, 300, 1024, 4096, 4, 64, 262144)
    c = h.client()
    size = 12 * 1024 * 1024
    c.send(f"GET /big?bytes={size} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    status, headers = c.read_head()
    assert status == 200 and int(headers["content-length"]) == size
    got, t0 = len(c.buf), time.monotonic()
    while got < size:
        chunk = c.sock.recv(min(65536, size - got))
        assert chunk, f"closed after {got} bytes"
        got += len(chunk)
        time.sleep(0.015)
    assert time.monotonic() - t0 > 1.0  # much slower than the idle timeout
    c.buf = b""
    assert c.get("/echo").status == 200


# ---- answers counted before they are produced (issue 22, item 5) ----------------------------

def _never_reading_socket(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    return s


def stats_of(h):
    """The harness's /stats, on a connection of its own."""
    c = h.client()
    try:
        return c.get("/stats").json()
    finally:
        c.close()


def test_answers_in_flight_are_counted_before_they_are_produced(start):
    """Requests whose 1 MiB answers are produced later (after 200 ms), pipelined by a client
    that does not read. Before, all max_pipelined requests were taken at once and their answers
    held together (8 x 1 MiB). Now each request in flight is counted as the biggest answer its
    connection has produced (at least its share of the bound), so once the client has asked for
    one big answer, the next is taken only when the bound has room for another."""
    wq = 262144
    h = start(1000, 5000, 1024, 4096, 8, 64, wq)  # max_pipelined 8: a share of 32 KiB each
    s = _never_reading_socket(h.port)
    try:
        s.settimeout(5)
        s.sendall(b"GET /delay?ms=10&bytes=1048576 HTTP/1.1\r\nHost: t\r\n\r\n")
        got = b""
        while len(got) < 1048576:  # read the first answer: it is what the client asks for
            got += s.recv(1 << 20)
        s.sendall(b"GET /delay?ms=200&bytes=1048576 HTTP/1.1\r\nHost: t\r\n\r\n" * 8)
        time.sleep(1.0)  # long enough for every answer taken to have been produced
        st = stats_of(h)
        # One answer (and its head) fills the connection's bound: nothing more was taken.
        assert st["peak_connection"] <= 1048576 + 4096 + wq, st
        assert st["held"] > 0, st  # the second answer is there (what the kernel left of it)
    finally:
        s.close()
    # What is left is the /stats request's own share (32 KiB).
    assert wait_until(lambda: stats_of(h)["held"] <= wq // 8, 5), "a closed connection holds"
    # Ordinary pipelining of small answers still takes max_pipelined at once.
    c = h.client()
    c.send(b"GET /delay?ms=300 HTTP/1.1\r\nHost: t\r\n\r\n" * 8)
    t0 = time.monotonic()
    for _ in range(8):
        assert c.read_response().json() == {"delayed_ms": 300}
    assert time.monotonic() - t0 < 8 * 0.3  # not one after another


def test_the_write_budget_is_shared_by_every_connection(start):
    """Twelve clients that have each read one big answer pipeline more of them and stop
    reading. Together they may hold the server's write budget (2 MiB here) and not much more,
    whatever each connection's own bound (4 MiB); a new client is still served."""
    budget = 2 * 1048576
    # max_pipelined 16: a share of 256 KiB per request in flight, the size of each answer.
    h = start(1000, 10000, 1024, 4096, 16, 64, 4 * 1048576, budget)
    socks = [_never_reading_socket(h.port) for _ in range(12)]
    try:
        for s in socks:  # each reads one big answer: the connection knows what it asks for
            s.settimeout(5)
            s.sendall(b"GET /delay?ms=1&bytes=262144 HTTP/1.1\r\nHost: t\r\n\r\n")
            got = b""
            while len(got) < 262144:
                got += s.recv(1 << 20)
        for s in socks:
            s.sendall(b"GET /delay?ms=100&bytes=262144 HTTP/1.1\r\nHost: t\r\n\r\n" * 8)
        time.sleep(1.5)
        st = stats_of(h)
        # Within the budget plus what connections holding nothing may each take (one request,
        # counted as one answer of 256 KiB): 12 such at most. Without the budget: 12 x 8.
        assert st["peak_total"] <= budget + 12 * (262144 + 4096), st
        assert st["peak_total"] >= budget // 2, st
        c = h.client()
        assert c.get("/echo?ordinary").json()["query"] == "ordinary"
        assert c.get("/delay?ms=10").json() == {"delayed_ms": 10}
    finally:
        for s in socks:
            s.close()
    assert wait_until(lambda: stats_of(h)["held"] <= 4 * 1048576 // 16, 5)  # /stats' own
