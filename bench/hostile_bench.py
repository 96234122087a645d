#!/usr/bin/env python3
"""make hostile-bench: ordinary traffic with and without each attack of issue 22, side by side.

For each attack, a fresh release daemon (default configuration, except that 127.0.0.1 is a
trusted proxy and the action rate is lifted, so that the ordinary client may act flat out, and so
that the attacker and the ordinary client are two clients on one machine: the
attacker's requests carry X-Forwarded-For 198.51.100.x, the ordinary client 203.0.113.1) is
measured twice for SECONDS: the ordinary client alone, then with the attack running. The
ordinary client acts on its own session (a generic 2d6 roll, then GET of the session), one
request at a time on a keep-alive connection; its throughput and p50/p99 go in the table. The
attack's own outcome (how many of its requests the daemon refused) is shown beside it.

    UMPIRED=build/umpired python3 bench/hostile_bench.py [SECONDS]

UMPIRE_LEGACY=1 runs a daemon from before the [limits] table (it would refuse the table): the
same attacks against it show what the bounds changed.
"""

import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

UMPIRED = os.environ.get("UMPIRED", "build/umpired")
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
LEGACY = os.environ.get("UMPIRE_LEGACY") == "1"
ORDINARY = {"X-Forwarded-For": "203.0.113.1"}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Daemon:
    def __init__(self, extra_config=""):
        self.dir = tempfile.mkdtemp(prefix="umpire-hb-")
        self.port = free_port()
        with open(f"{self.dir}/umpire.toml", "w") as f:
            f.write(f"[server]\nlisten = \"127.0.0.1:{self.port}\"\n"
                    f"[storage]\ndb = \"{self.dir}/umpire.db\"\n"
                    "[log]\naccess_log = false\n"
                    + ("" if LEGACY else
                       # The ordinary client acts (and verifies) as fast as it can: its own
                       # rates are lifted so that what is measured is the attack's effect.
                       "[limits]\ntrusted_proxies = \"127.0.0.1\"\n"
                       "actions_per_minute = 100000000\nactions_burst = 1000000\n"
                       "verify_per_minute = 1000000\nverify_burst = 1000000\n")
                    + extra_config)
        self.log = open(f"{self.dir}/umpired.log", "wb")
        self.proc = subprocess.Popen([UMPIRED, "--config", f"{self.dir}/umpire.toml"],
                                     stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if call(self.port, "GET", "/v1/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("umpired did not start")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:  # still busy with an attack's work: say so, then end it
            print("  (umpired did not stop within 15 s of SIGTERM: killed)")
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def call(port, method, path, body=None, headers=None, conn=None, timeout=30):
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        raw = r.read()
        return r.status, (json.loads(raw) if raw and raw[:1] == b"{" else None)
    finally:
        if own:
            conn.close()


def ordinary_session(port):
    """The ordinary client's session, and a second small one (two rolls) it verifies now and
    then: verify's latency is what odds must not starve."""
    out = []
    for rolls in (0, 2):
        status, made = call(port, "POST", "/v1/sessions",
                            {"ruleset": "generic", "sides": ["a", "b"]}, ORDINARY)
        assert status == 201, (status, made)
        sid, tok = made["session"]["id"], made["tokens"]["referee"]
        for _ in range(rolls):
            call(port, "POST", f"/v1/sessions/{sid}/actions", {"type": "roll", "expr": "2d6"},
                 {**ORDINARY, "Authorization": f"Bearer {tok}"})
        out.append((sid, tok))
    return out


def ordinary(port, session, seconds):
    """-> (answered requests/s, p50 ms, p99 ms, failures, worst verify ms) of the ordinary
    client on its session: a failure is any answer but 200, or no answer (a refused or dropped
    connection)."""
    (sid, tok), (vsid, vtok) = session
    h = {**ORDINARY, "Authorization": f"Bearer {tok}"}
    vh = {**ORDINARY, "Authorization": f"Bearer {vtok}"}
    conn = None
    lat, fails, ok, vlat = [], {}, 0, []
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        if n % 50 == 0:  # a verify of the small session, timed apart
            t0 = time.monotonic()
            try:
                st, _ = call(port, "GET", f"/v1/sessions/{vsid}/verify", None, vh, timeout=60)
            except (OSError, http.client.HTTPException):
                st = 0
            vlat.append(time.monotonic() - t0 if st == 200 else float("inf"))
        for method, path, body in (("POST", f"/v1/sessions/{sid}/actions",
                                    {"type": "roll", "expr": "2d6"}),
                                   ("GET", f"/v1/sessions/{sid}", None)):
            t0 = time.monotonic()
            try:
                conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                st, _ = call(port, method, path, body, h, conn)
            except (OSError, http.client.HTTPException):
                st = 0
                conn.close()
                conn = None
                time.sleep(0.01)
            lat.append(time.monotonic() - t0)
            if st == 200:
                ok += 1
            else:
                fails[st] = fails.get(st, 0) + 1
                if conn is not None and st in (429, 503):
                    conn.close()  # answered with Connection: close
                    conn = None
    if conn:
        conn.close()
    lat.sort()
    return (ok / seconds, lat[len(lat) // 2] * 1000,
            lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000, fails,
            max(vlat) * 1000 if vlat else float("nan"))


# ---- attacks: each runs until stop is set and returns a one-line outcome ------------------

def attack_create_flood(port, stop):
    codes = {}
    while not stop.is_set():
        st, _ = call(port, "POST", "/v1/sessions", {"ruleset": "generic", "sides": ["x", "y"]},
                     {"X-Forwarded-For": "198.51.100.1"})
        codes[st] = codes.get(st, 0) + 1
    return f"creations answered {codes}"


def attack_stream_hog(port, stop):
    """1,024 never-reading SSE streams from many addresses (the issue's slot hog)."""
    st, made = call(port, "POST", "/v1/sessions",
                    {"ruleset": "generic", "sides": ["x", "y"], "visibility": "public"},
                    {"X-Forwarded-For": "198.51.100.1"})
    sid = made["session"]["id"]
    socks, codes = [], {}
    for i in range(1024):
        if stop.is_set():
            break
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            codes["connect failed"] = codes.get("connect failed", 0) + 1
            continue
        s.sendall(f"GET /v1/sessions/{sid}/events HTTP/1.1\r\nHost: x\r\nAccept: "
                  f"text/event-stream\r\nX-Forwarded-For: 198.51.{100 + i // 250}.{i % 250}"
                  "\r\n\r\n".encode())
        try:
            head = s.recv(64)
            code = head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.1") else "closed"
        except OSError:
            code = "no answer"
        codes[code] = codes.get(code, 0) + 1
        socks.append(s)
    stop.wait()
    for s in socks:
        s.close()
    return f"1,024 stream requests answered {codes}"


def attack_trickle(port, stop):
    """60 connections each sending a body one byte every 2 s."""
    socks = []
    for _ in range(60):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"X-Forwarded-For: 198.51.100.9\r\nContent-Length: 100000\r\n\r\n")
        socks.append(s)
    sent = 0
    while not stop.wait(2):
        for s in socks:
            try:
                s.sendall(b" ")
                sent += 1
            except OSError:
                pass
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            closed += s.recv(64).startswith(b"HTTP/1.1 408")
        except OSError:
            pass
        s.close()
    return f"60 trickling bodies, {closed} answered 408"


def attack_odds_flood(port, stop):
    """16 pipelined heavy odds requests on one connection, again and again."""
    codes = {}
    body = json.dumps({"type": "roll", "expr": "3d100"}).encode()
    req = (b"POST /v1/rulesets/generic/odds HTTP/1.1\r\nHost: x\r\nContent-Type: "
           b"application/json\r\nX-Forwarded-For: 198.51.100.3\r\nContent-Length: "
           + str(len(body)).encode() + b"\r\n\r\n" + body)
    while not stop.is_set():
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        s.sendall(req * 16)
        data = b""
        s.settimeout(60)
        while data.count(b"HTTP/1.1 ") < 16 and not stop.is_set():
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        for part in data.split(b"HTTP/1.1 ")[1:]:
            code = part[:3].decode()
            codes[code] = codes.get(code, 0) + 1
        s.close()
    return f"odds answered {codes}"


ATTACKS = [
    ("session creation flood", attack_create_flood),
    ("1,024 never-reading SSE streams", attack_stream_hog),
    ("60 trickled bodies", attack_trickle),
    ("16 pipelined heavy odds", attack_odds_flood),
]


def main():
    print(f"hostile bench: {UMPIRED}, {SECONDS:g} s per measurement, {os.cpu_count()} cores")
    print("ordinary client: a 2d6 roll and a GET of its session, one at a time; req/s counts 200s; "
          "verify: the slowest verify of a small session, one every 50 rounds")
    print(f"{'attack':34} {'alone req/s':>11} {'p50':>7} {'p99':>8} {'verify':>8}   "
          f"{'attacked req/s':>14} {'p50':>7} {'p99':>8} {'verify':>9} {'fails':>5}  "
          "attack outcome")
    for name, attack in ATTACKS:
        d = Daemon()
        try:
            session = ordinary_session(d.port)
            base = ordinary(d.port, session, SECONDS)
            stop = threading.Event()
            outcome = []
            t = threading.Thread(target=lambda: outcome.append(attack(d.port, stop)))
            t.start()
            time.sleep(1.0)  # let the attack take hold
            under = ordinary(d.port, session, SECONDS)
            stop.set()
            t.join(60)
            print(f"{name:34} {base[0]:11.0f} {base[1]:6.1f}ms {base[2]:7.1f}ms "
                  f"{base[4]:6.1f}ms   {under[0]:14.0f} {under[1]:6.1f}ms {under[2]:7.1f}ms "
                  f"{under[4]:7.1f}ms {sum(under[3].values()):5d}  "
                  f"{outcome[0] if outcome else '(attack did not finish)'}"
                  + (f"; ordinary client's failures by status {under[3]}" if under[3] else ""))
        finally:
            d.stop()


if __name__ == "__main__":
    main()
