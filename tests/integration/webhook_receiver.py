"""A local HTTP server standing in for a webhook receiver (Discord, a bot, a log sink).

It records every request (method, path with query, headers, body, arrival time) and answers
from a script: a queue of replies taken in turn, per path or for any path, then a default.

    rx = WebhookReceiver()                 # listening on 127.0.0.1:<free port> (host="::1")
    url = rx.url("/hook?wait=true")
    rx.script(500, 200)                    # the next requests (any path) get 500, then 200
    rx.script(Reply(429, retry_after=1))   # a 429 with Retry-After: 1
    rx.script(HANG, path="/slow")          # accept, read, never answer until rx.release()
    rx.hang_all()                          # every request from now on hangs until release()
    rx.wait_for(lambda reqs: len(reqs) >= 3, timeout=10)
    rx.close()

A hung request is recorded as soon as its body has been read, so a test can see the attempt
in flight. release() lets every request held now answer with its reply's status (200 for HANG)
and turns hang_all off; scripting another HANG (or hang_all) closes the gate again.
"""

import http.server
import json
import socket
import threading
import time
from collections import deque
from urllib.parse import urlsplit

__all__ = ["WebhookReceiver", "Reply", "HANG", "Recorded"]


class Reply:
    """One scripted answer. hang: accept and read the request, then wait for release() before
    answering status. close: read the request, then drop the connection without answering."""

    def __init__(self, status=200, retry_after=None, body=b"", headers=None, hang=False,
                 close=False):
        self.status = status
        self.retry_after = retry_after
        self.body = body if isinstance(body, bytes) else str(body).encode("utf-8")
        self.headers = dict(headers or {})
        self.hang = hang
        self.close = close

    def __repr__(self):
        extra = " hang" if self.hang else " close" if self.close else ""
        ra = f" Retry-After {self.retry_after}" if self.retry_after is not None else ""
        return f"<Reply {self.status}{ra}{extra}>"


HANG = Reply(200, hang=True)


def _as_reply(x):
    if isinstance(x, Reply):
        return x
    if isinstance(x, int):
        return Reply(x)
    raise TypeError(f"a scripted reply is an int status or a Reply, not {x!r}")


class Recorded:
    def __init__(self, method, target, headers, body, t):
        self.method = method
        self.target = target                  # path with query, as on the request line
        self.path = urlsplit(target).path
        self.query = urlsplit(target).query
        self.headers = headers                # {lower-case name: value} (last one wins)
        self.header_list = None               # [(name, value)] as received, set by handler
        self.body = body                      # bytes
        self.t = t                            # time.monotonic() when the body was read
        self.reply = None                     # the Reply it was given (set before answering)
        self.answered = False                 # True once the reply was written

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def header(self, name):
        return self.headers.get(name.lower())

    def __repr__(self):
        return f"<{self.method} {self.target} {self.body[:200]!r}>"


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, receiver, host):
        self.receiver = receiver
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, 0), _Handler)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, and 100-continue handled by the base class
    server_version = "webhook-receiver"
    sys_version = ""

    def log_message(self, fmt, *args):  # quiet
        pass

    def _read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            out = b""
            while True:
                line = self.rfile.readline(65537)
                if not line:
                    raise ConnectionError("EOF in chunked body")
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while True:  # trailers up to the empty line
                        t = self.rfile.readline(65537)
                        if t in (b"\r\n", b"\n", b""):
                            break
                    return out
                out += self.rfile.read(size)
                self.rfile.readline(3)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _handle(self):
        rx = self.server.receiver
        try:
            body = self._read_body()
        except (ConnectionError, ValueError, OSError):
            self.close_connection = True
            return
        rec = Recorded(self.command, self.path,
                       {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
        rec.header_list = list(self.headers.items())
        reply = rx._take(rec)
        rec.reply = reply
        if reply.hang:
            rx._wait_release()
        if reply.close:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if rx._closing.is_set():
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            if reply.retry_after is not None:
                self.send_header("Retry-After", str(reply.retry_after))
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if reply.body:
                self.wfile.write(reply.body)
            self.wfile.flush()
            rec.answered = True
        except OSError:
            self.close_connection = True  # the daemon gave up on us (timeout): fine

    do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _handle


class WebhookReceiver:
    def __init__(self, default=200, host="127.0.0.1"):
        self._lock = threading.Condition()
        self._requests = []
        self._queues = {}            # path or None -> deque of Reply
        self._default = _as_reply(default)
        self._hang_all = False
        self._gate = threading.Event()   # set: held requests may answer
        self._gate.set()
        self._closing = threading.Event()
        self.host = host
        self._server = _Server(self, host)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=f"webhook-receiver:{self.port}", daemon=True)
        self._thread.start()

    # ---- scripting -------------------------------------------------------------------------

    def url(self, path="/hook", host=None):
        """http://HOST:PORT/path; host defaults to the address listened on (IPv6 in brackets)."""
        if not path.startswith("/"):
            path = "/" + path
        host = host or (f"[{self.host}]" if ":" in self.host else self.host)
        return f"http://{host}:{self.port}{path}"

    def script(self, *replies, path=None):
        """Appends replies (ints or Reply) to the queue of path (None: any path)."""
        replies = [_as_reply(r) for r in replies]
        with self._lock:
            q = self._queues.setdefault(path, deque())
            q.extend(replies)
            if any(r.hang for r in replies):
                self._gate.clear()

    def set_default(self, reply):
        with self._lock:
            self._default = _as_reply(reply)

    def hang_all(self):
        """Every request from now on is read, recorded and held until release()."""
        with self._lock:
            self._hang_all = True
            self._gate.clear()

    def release(self):
        with self._lock:
            self._hang_all = False
            self._gate.set()

    def held(self):
        """Requests read and not answered yet (hung, or being answered)."""
        return [r for r in self.requests if not r.answered]

    def _take(self, rec):
        with self._lock:
            reply = None
            for key in (rec.path, rec.target, None):
                q = self._queues.get(key)
                if q:
                    reply = q.popleft()
                    break
            if reply is None:
                reply = self._default
            if self._hang_all and not reply.hang:
                reply = Reply(reply.status, reply.retry_after, reply.body, reply.headers,
                              hang=True)
            self._requests.append(rec)
            self._lock.notify_all()
            return reply

    def _wait_release(self):
        while not self._gate.wait(0.1):
            if self._closing.is_set():
                return

    # ---- inspection ------------------------------------------------------------------------

    @property
    def requests(self):
        with self._lock:
            return list(self._requests)

    def requests_to(self, path):
        return [r for r in self.requests if r.path == path]

    def wait_for(self, predicate, timeout=10.0, what="requests"):
        """Waits until predicate(list of Recorded) is true; returns the list. AssertionError
        with what was received on timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                reqs = list(self._requests)
                if predicate(reqs):
                    return reqs
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"webhook receiver: {what} not seen within {timeout} s; received "
                        f"{len(reqs)}: {reqs[:20]!r}")
                self._lock.wait(min(left, 0.1))

    def wait_count(self, n, path=None, timeout=10.0):
        if path is None:
            return self.wait_for(lambda rs: len(rs) >= n, timeout, f"{n} requests")
        return [r for r in self.wait_for(
            lambda rs: sum(1 for r in rs if r.path == path) >= n, timeout,
            f"{n} requests to {path}") if r.path == path]

    def close(self):
        self._closing.set()
        self._gate.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
