"""Streaming answers (http_stream_*) through tests/http/http_harness.c: /stream, /sse, /firehose.

Same rules as test_http_layer.py (whose harness fixture and client this file reuses): raw
loopback sockets, bounded time, and every harness is stopped with SIGTERM at teardown and must
exit 0 with a stderr free of sanitizer reports.
"""

import os
import signal
import socket
import struct
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_http_layer as base  # noqa: E402

start = base.start  # the fixture
wait_until = base.wait_until

FIREHOSE_CHUNK = 64 * 1024
WQ_MAX = 262144  # the default write_queue_max_bytes below
# what a stream may hold: the bound plus the one chunk that crossed it (with its framing)
STREAM_BOUND = WQ_MAX + FIREHOSE_CHUNK + 16
# header_timeout_ms idle_timeout_ms max_body max_header max_pipelined max_connections wq_max
SHORT_IDLE = (1000, 300, 1024, 4096, 4, 64, 262144)


class StreamClient(base.Client):
    """Adds a strict reader of chunked bodies: every chunk exactly as framed on the wire."""

    def _need(self, n):
        while len(self.buf) < n:
            self._fill()

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_chunk(self):
        """The next chunk's data; b"" for the zero chunk (which must end the body cleanly)."""
        size_line = self._line()
        assert size_line and all(c in b"0123456789abcdef" for c in size_line), size_line
        size = int(size_line, 16)
        if size == 0:
            assert self._line() == b"", "trailers or garbage after the zero chunk"
            return b""
        self._need(size + 2)
        data, crlf, self.buf = self.buf[:size], self.buf[size:size + 2], self.buf[size + 2:]
        assert crlf == b"\r\n", f"chunk not followed by CRLF: {crlf!r}"
        return data

    def read_chunks(self, limit=30.0):
        chunks, deadline = [], time.monotonic() + limit
        while True:
            data = self.read_chunk()
            if not data:
                return chunks
            chunks.append(data)
            assert time.monotonic() < deadline, "the stream does not end"

    def read_stream_head(self):
        status, headers = self.read_head()
        assert status == 200
        assert headers["transfer-encoding"] == "chunked"
        assert "content-length" not in headers
        return headers


def stream_client(h, timeout=base.IO_TIMEOUT):
    return StreamClient(h.port, timeout)


stats = base.stats_of


def active_streams(h):
    return stats(h)["streams"]


def expected_chunk(k, size):
    return bytes([ord("a") + k % 26]) * size


# ---- framing, keep-alive, order -------------------------------------------------------------

def test_stream_is_chunked_and_decodes_to_the_written_bytes(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /stream?chunks=5&bytes=1000&interval_ms=20 HTTP/1.1\r\nHost: t\r\n\r\n")
    headers = c.read_stream_head()
    assert headers["connection"] == "keep-alive"
    assert headers["content-type"] == "application/octet-stream"
    assert headers["cache-control"] == "no-store"
    assert "date" in headers
    chunks = c.read_chunks()
    assert chunks == [expected_chunk(k, 1000) for k in range(5)]  # one write = one chunk
    assert c.buf == b""
    # keep-alive: the same connection serves the next request
    r = c.get("/echo?after")
    assert r.status == 200 and r.json()["query"] == "after"
    # an empty stream is just the zero chunk; odd sizes are framed in hex
    c.send(b"GET /stream?chunks=0 HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    assert c.read_chunks() == []
    c.send(b"GET /stream?chunks=2&bytes=4095 HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    assert c.read_chunks() == [expected_chunk(0, 4095), expected_chunk(1, 4095)]
    assert c.get("/echo").status == 200
    assert wait_until(lambda: active_streams(h) == 0, 2)


def test_stream_access_log_line_counts_body_bytes(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /stream?chunks=3&bytes=700&interval_ms=100 HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    assert len(c.read_chunks()) == 3
    assert wait_until(lambda: any(l["path"] == "/stream" for l in h.access_lines()), 2)
    line = [l for l in h.access_lines() if l["path"] == "/stream"][0]
    assert (line["method"], line["status"], line["bytes"]) == ("GET", 200, 2100)
    assert line["us"] >= 200000  # logged when the stream ended, not when it started
    assert line["remote"] == f"127.0.0.1:{c.sock.getsockname()[1]}"


def test_pipelined_request_behind_a_stream_is_answered_after_it(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /stream?chunks=4&bytes=10&interval_ms=100 HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /echo?second HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    # the strict reader fails if the echo answer were written between the chunks
    assert c.read_chunks() == [expected_chunk(k, 10) for k in range(4)]
    r = c.read_response()
    assert r.status == 200 and r.json()["query"] == "second"
    assert r.headers["connection"] == "keep-alive"


def test_stream_behind_a_slow_answer_waits_its_turn(start):
    h = start()
    c = stream_client(h)
    # the stream starts (and here even ends) while the first answer is still pending
    c.send(b"GET /delay?ms=300 HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /stream?chunks=3&bytes=50 HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /echo?third HTTP/1.1\r\nHost: t\r\n\r\n")
    assert c.read_response().json() == {"delayed_ms": 300}
    c.read_stream_head()
    assert c.read_chunks() == [expected_chunk(k, 50) for k in range(3)]
    assert c.read_response().json()["query"] == "third"


def test_connection_close_request_stream_closes_after_zero_chunk(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /stream?chunks=2&bytes=5 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    headers = c.read_stream_head()
    assert headers["connection"] == "close"
    assert c.read_chunks() == [expected_chunk(0, 5), expected_chunk(1, 5)]
    assert c.wait_closed()
    assert c.buf == b""


def test_http10_stream_has_no_length_and_ends_with_close(start):
    h = start()
    for extra in (b"", b"Connection: keep-alive\r\n"):
        c = stream_client(h)
        c.send(b"GET /stream?chunks=3&bytes=7&interval_ms=20 HTTP/1.0\r\n" + extra + b"\r\n")
        status, headers = c.read_head()
        assert status == 200
        assert headers["connection"] == "close"
        assert "transfer-encoding" not in headers and "content-length" not in headers
        c.sock.settimeout(3)
        body, deadline = c.buf, time.monotonic() + 5
        while time.monotonic() < deadline:
            data = c.sock.recv(65536)
            if not data:
                break
            body += data
        assert body == b"aaaaaaabbbbbbbccccccc"  # raw bytes, no chunk framing, then the close
        c.close()
    assert wait_until(lambda: active_streams(h) == 0, 2)


def test_head_request_to_a_stream_gets_the_head_only(start):
    h = start()
    c = stream_client(h)
    c.send(b"HEAD /stream?chunks=3&bytes=10 HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    r = c.get("/echo?next")  # no stray chunk before this answer
    assert r.status == 200 and r.json()["query"] == "next"
    assert c.buf == b""


def test_silent_stream_outlives_the_idle_timeout(start):
    # idle 300 ms; the stream is silent for 700 ms between chunks (like SSE between heartbeats)
    h = start(*SHORT_IDLE)
    c = stream_client(h)
    t0 = time.monotonic()
    c.send(b"GET /stream?chunks=3&bytes=8&interval_ms=700 HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    assert c.read_chunks() == [expected_chunk(k, 8) for k in range(3)]
    assert time.monotonic() - t0 >= 1.3
    assert c.get("/echo").status == 200


def test_stream_within_its_bound_survives_a_reader_pausing_past_the_idle_timeout(start):
    # write queue 32 MiB, idle 300 ms. 8 MiB at once is more than the kernel buffers hold, so
    # libuv's queue stays non-empty (but within the bound) while the reader pauses for 1 s: a
    # stream within its bound is not cut off for that; only one over it without progress is.
    h = start(1000, 300, 1024, 4096, 4, 64, 32 * 1024 * 1024)
    c = stream_client(h)
    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    mib = 1024 * 1024
    c.send(f"GET /stream?chunks=16&bytes={mib}&burst=8&interval_ms=1500 HTTP/1.1\r\n"
           f"Host: t\r\n\r\n".encode())
    time.sleep(1.0)
    c.read_stream_head()
    chunks = c.read_chunks()
    assert [len(x) for x in chunks] == [mib] * 16
    assert all(x == expected_chunk(k, mib) for k, x in enumerate(chunks))
    assert stats(h)["streams_closed"] == 0
    assert c.get("/echo").status == 200


def test_sse_events_arrive_as_they_are_written(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /sse HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n")
    headers = c.read_stream_head()
    assert headers["content-type"] == "text/event-stream"
    t0 = time.monotonic()
    events = [c.read_chunk() for _ in range(5)]
    assert events == [f"data: tick {i}\n\n".encode() for i in range(5)]
    assert 0.15 <= time.monotonic() - t0 <= 2.0  # one every 50 ms, not all at the end
    assert active_streams(h) == 1
    c.close()
    assert wait_until(lambda: active_streams(h) == 0, 3)


# ---- clients that leave, never read, or read slowly -----------------------------------------

@pytest.mark.parametrize("target", ["/sse", "/stream?chunks=100000&bytes=100&interval_ms=5",
                                    "/firehose", "/sse?close_delay_ms=200"])
def test_client_disconnect_mid_stream_ends_the_stream(start, target):
    h = start()
    c = stream_client(h)
    c.send(f"GET {target} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    c.read_stream_head()
    c.read_chunk()
    assert active_streams(h) == 1
    c.close()  # with unread data pending: a reset
    assert wait_until(lambda: active_streams(h) == 0, 3), stats(h)
    st = stats(h)
    assert st["streams_closed"] == 1 and st["streams_started"] == 1
    assert wait_until(lambda: h.connections() == 0, 3)
    r = h.client().get("/echo")  # still healthy
    assert r.status == 200


@pytest.mark.parametrize("how", ["fin", "reset"])
@pytest.mark.parametrize("target", ["/stream?chunks=3&bytes=1000", "/sse"])
def test_client_leaves_while_a_stream_waits_behind_a_slow_answer(start, target, how):
    # The stream has buffered chunks (and, for /stream, has already ended) but is not at the
    # head of the queue when the client goes: nothing may leak (checked at teardown).
    h = start()
    c = stream_client(h)
    c.send(f"GET /delay?ms=300 HTTP/1.1\r\nHost: t\r\n\r\nGET {target} HTTP/1.1\r\n"
           f"Host: t\r\n\r\n".encode())
    time.sleep(0.15)
    if how == "reset":
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()
    assert wait_until(lambda: active_streams(h) == 0, 3)
    time.sleep(0.3)  # the delayed answer arrives for a client that is gone
    assert wait_until(lambda: h.connections() == 0, 3)
    assert h.client().get("/echo").status == 200


def test_client_that_half_closes_still_gets_the_whole_stream(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /stream?chunks=4&bytes=3&interval_ms=50 HTTP/1.1\r\nHost: t\r\n\r\n")
    c.sock.shutdown(socket.SHUT_WR)
    c.read_stream_head()
    assert c.read_chunks() == [expected_chunk(k, 3) for k in range(4)]
    assert c.wait_closed()
    assert wait_until(lambda: active_streams(h) == 0, 2)
    assert stats(h)["streams_closed"] == 0  # it ended; nobody was told it closed


def test_never_reading_firehose_client_is_cut_off_and_memory_bounded(start):
    h = start()  # idle 1000 ms, write queue 256 KiB
    base_rss = h.rss_kb()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.connect(("127.0.0.1", h.port))
    s.sendall(b"GET /firehose HTTP/1.1\r\nHost: t\r\n\r\n")
    t0 = time.monotonic()
    peak = base_rss
    cut = None
    while time.monotonic() - t0 < 6:
        peak = max(peak, h.rss_kb())
        if active_streams(h) == 0:
            cut = time.monotonic() - t0
            break
        time.sleep(0.05)
    assert cut is not None, "the stalled stream was never cut off"
    assert 0.8 <= cut <= 4.0, f"cut off after {cut:.2f} s (idle timeout 1 s)"
    st = stats(h)
    assert st["streams_closed"] == 1
    assert WQ_MAX < st["max_pending"] <= STREAM_BOUND, st
    assert wait_until(lambda: h.connections() == 0, 3)
    peak = max(peak, h.rss_kb())
    assert peak - base_rss < 32 * 1024, f"RSS grew by {peak - base_rss} KiB"
    s.close()
    assert h.client().get("/echo").status == 200


def test_slow_firehose_reader_is_bounded_paced_and_not_cut_off(start):
    h = start(*SHORT_IDLE)  # idle 300 ms: a stall that long would be cut off
    c = stream_client(h)
    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    c.send(b"GET /firehose HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    base_rss = h.rss_kb()
    peak, k, t0 = base_rss, 0, time.monotonic()
    while time.monotonic() - t0 < 2.0:
        data = c.read_chunk()
        assert data == bytes([ord("A") + k % 26]) * FIREHOSE_CHUNK, f"chunk {k} is wrong"
        k += 1
        time.sleep(0.02)  # about 3 MiB/s, far slower than the firehose
        if k % 10 == 0:
            peak = max(peak, h.rss_kb())
    assert k >= 20
    assert peak - base_rss < 32 * 1024, f"RSS grew by {peak - base_rss} KiB"
    st = stats(h)
    assert st["streams"] == 1 and st["streams_closed"] == 0, st  # still going
    assert st["drains"] >= 1  # paused on 1, resumed by on_drain
    assert WQ_MAX < st["max_pending"] <= STREAM_BOUND, st
    c.close()
    assert wait_until(lambda: active_streams(h) == 0, 3)


def test_max_pipelined_behind_a_stream_is_still_bounded(start):
    h = start()  # max_pipelined 4
    c = stream_client(h)
    c.send(b"GET /stream?chunks=3&bytes=2&interval_ms=150 HTTP/1.1\r\nHost: t\r\n\r\n" +
           b"".join(f"GET /echo?i={i} HTTP/1.1\r\nHost: t\r\n\r\n".encode() for i in range(10)))
    c.read_stream_head()
    assert len(c.read_chunks()) == 3
    for i in range(10):
        assert c.read_response().json()["query"] == f"i={i}"


# ---- shutdown -------------------------------------------------------------------------------

def test_sigterm_ends_an_open_sse_stream_cleanly_and_exits_0(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /sse HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    assert c.read_chunk() == b"data: tick 0\n\n"
    t0 = time.monotonic()
    h.proc.send_signal(signal.SIGTERM)
    while True:
        data = c.read_chunk()  # EOFError here: closed without the zero chunk
        if not data:
            break
        assert data.startswith(b"data: tick ")
        assert time.monotonic() - t0 < 3, "the stream goes on after SIGTERM"
    assert c.wait_closed()
    assert c.buf == b""
    assert h.proc.wait(timeout=5) == 0
    assert time.monotonic() - t0 < 2


def test_sigterm_waits_for_a_stream_its_handler_ends_later(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /sse?close_delay_ms=400 HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /echo?behind HTTP/1.1\r\nHost: t\r\n\r\n")
    c.read_stream_head()
    c.read_chunk()
    t0 = time.monotonic()
    h.proc.send_signal(signal.SIGTERM)
    while c.read_chunk():
        assert time.monotonic() - t0 < 3, "the stream goes on after SIGTERM"
    assert time.monotonic() - t0 >= 0.3  # the handler ended it 400 ms after on_close
    r = c.read_response()  # parsed before the shutdown: still answered, then the close
    assert r.json()["query"] == "behind" and r.headers["connection"] == "close"
    assert c.wait_closed()
    assert h.proc.wait(timeout=5) == 0


def test_sigterm_with_a_stalled_firehose_exits_0(start):
    h = start()  # idle 1000 ms
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.connect(("127.0.0.1", h.port))
    s.sendall(b"GET /firehose HTTP/1.1\r\nHost: t\r\n\r\n")
    assert wait_until(lambda: stats(h)["drains"] == 0 and active_streams(h) == 1, 1)
    time.sleep(0.3)  # stalled by now, not yet over the idle timeout
    h.proc.send_signal(signal.SIGTERM)
    # the zero chunk cannot be delivered to a reader that does not read: the connection is
    # dropped after the idle timeout without progress, and then the process is done
    assert h.proc.wait(timeout=5) == 0
    s.close()


def test_stream_requested_during_shutdown_gets_503(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /delay?ms=500 HTTP/1.1\r\nHost: t\r\n\r\n")
    time.sleep(0.1)
    h.proc.send_signal(signal.SIGTERM)
    time.sleep(0.1)
    c.send(b"GET /sse HTTP/1.1\r\nHost: t\r\n\r\n")
    assert c.read_response().json() == {"delayed_ms": 500}
    base.assert_layer_error(c.read_response(), 503, "shutting_down")
    assert c.wait_closed()
    assert h.proc.wait(timeout=5) == 0


# ---- shared chunks (one event's bytes written to many streams) ------------------------------

def _mixed_expected(rounds, size):
    out = []
    for k in range(rounds):
        out.append(bytes([ord("A") + k % 26]) * size)
        out.append(f"{k}\n".encode())
    return out


def test_shared_and_copied_chunks_interleave_exactly_on_several_streams(start):
    """Shared chunks (the same bytes for every stream) and copied writes, written faster than
    the clients read so that both kinds pile up in each stream's blocks: every stream decodes
    to exactly what was written, in order, chunk by chunk."""
    h = start()
    rounds, size = 400, 3000
    clients = []
    for _ in range(3):
        c = stream_client(h, timeout=10)
        c.sock.close()  # a socket that reads slowly, opened by hand
        c.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        # Ethernet-sized segments: with loopback's 64 KiB ones a 4 KiB window reopens only
        # after zero-window probes back off for seconds (the kernel's stall, not the server's).
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1460)
        c.sock.settimeout(10)
        c.sock.connect(("127.0.0.1", h.port))
        c.send(f"GET /mixed?rounds={rounds}&bytes={size} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
        clients.append(c)
    time.sleep(0.3)  # the server writes everything while nobody reads
    for c in clients:
        c.read_stream_head()
        assert c.read_chunks() == _mixed_expected(rounds, size)
        assert c.get("/echo?after").json()["query"] == "after"  # keep-alive, clean framing


def test_shared_chunks_on_an_http10_stream_carry_no_framing(start):
    h = start()
    c = stream_client(h)
    c.send(b"GET /mixed?rounds=30&bytes=100 HTTP/1.0\r\nHost: t\r\n\r\n")
    status, headers = c.read_head()
    assert status == 200 and "transfer-encoding" not in headers
    with pytest.raises(EOFError):  # HTTP/1.0: the end of the body is the close
        while True:
            c._fill()
    assert c.buf == b"".join(_mixed_expected(30, 100))
