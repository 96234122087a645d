#!/usr/bin/env python3
"""Helpers for bench/run.sh (standard library only; loopback only).

  bench.py setup PORT DIR          sessions + wrk Lua scripts; writes DIR/targets.tsv, DIR/odds.json
  bench.py rss PID                 prints "VmRSS VmHWM" in KiB
  bench.py idle PORT PID N         opens N idle keep-alive connections; prints RSS delta KiB/conn
  bench.py sessions PORT PID N     creates N sessions, reads each; prints RSS delta KiB/session
  bench.py odds PORT DIR REPS      enumerations/s per ruleset (median of REPS)
  bench.py fsyncs FILE             prints "wal other total" from the fsync_count.so counter file
  bench.py threads PID             CPU ticks of PID's threads, summed by thread name
  bench.py per_action A B N        CPU us per action by thread, from two `threads` outputs
                                   (concatenated outputs of several daemons are summed)
  bench.py setup_roll PORT DIR NAME  one generic session (server dice) + DIR/NAME.lua posting a
                                   roll as its referee; prints "SESSION_ID REFEREE_TOKEN"
  bench.py verify PORT SID TOKEN   GET /v1/sessions/SID/verify; prints "ok EVENTS",
                                   "bad EVENTS REASON" or "error STATUS BODY"
"""
import glob
import http.client
import json
import os
import socket
import statistics
import struct
import sys
import time

HOST = "127.0.0.1"


def call(port, method, path, body=None, token=None, conn=None):
    own = conn is None
    if own:
        conn = http.client.HTTPConnection(HOST, port, timeout=60)
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    raw = resp.read()
    if own:
        conn.close()
    if resp.status // 100 != 2:
        raise SystemExit(f"bench.py: {method} {path} -> {resp.status}: {raw[:300]!r}")
    return json.loads(raw) if raw else None


def lua_str(s):
    level = "=" * 3
    assert f"]{level}]" not in s
    return f"[{level}[{s}]{level}]"


def write_lua(path, method, body, token):
    with open(path, "w") as f:
        f.write(f'wrk.method = "{method}"\n')
        if body is not None:
            f.write(f"wrk.body = {lua_str(json.dumps(body, separators=(',', ':')))}\n")
            f.write('wrk.headers["Content-Type"] = "application/json"\n')
        if token:
            f.write(f'wrk.headers["Authorization"] = "Bearer {token}"\n')


def token_for(created, who):
    if who in (None, "referee"):
        return created["tokens"]["referee"]
    return created["tokens"]["sides"][who]


def setup(port, d):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    rulesets = [r["id"] for r in call(port, "GET", "/v1/rulesets")["rulesets"]]
    targets = []  # (name, lua or "-", path)
    odds = []  # {ruleset, path, body, token}

    # The session read: generic, 4 units on 2 sides, 12 events (session_created + 11 rolls).
    units = [{"id": f"u{i}", "side": "a" if i % 2 else "b"} for i in range(4)]
    s = call(port, "POST", "/v1/sessions", {
        "ruleset": "generic", "title": "bench read", "sides": ["a", "b"],
        "setup": {"units": units}})
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    for i in range(11):
        call(port, "POST", f"/v1/sessions/{sid}/actions",
             {"type": "roll", "unit": units[i % 4]["id"], "expr": "2d6+1"}, ref)
    write_lua(os.path.join(d, "get_session.lua"), "GET", None, ref)

    # The durable generic roll, on its own session (as bench/core.sh did).
    s = call(port, "POST", "/v1/sessions", {
        "ruleset": "generic", "title": "bench roll", "sides": ["a", "b"],
        "dice": {"mode": "server"}})
    rsid, rref = s["session"]["id"], s["tokens"]["referee"]
    write_lua(os.path.join(d, "roll.lua"), "POST", {"type": "roll", "expr": "2d6+1"}, rref)

    # The same roll with both sides' entropy in force: each die's message carries the digest
    # of the contributions (64 more bytes under the HMAC), side by side with the plain roll.
    s = call(port, "POST", "/v1/sessions", {
        "ruleset": "generic", "title": "bench roll entropy", "sides": ["a", "b"],
        "dice": {"mode": "server"}})
    esid, eref = s["session"]["id"], s["tokens"]["referee"]
    for side in ("a", "b"):
        call(port, "POST", f"/v1/sessions/{esid}/entropy", {"seed": f"bench side {side}"},
             s["tokens"]["sides"][side])
    write_lua(os.path.join(d, "roll_entropy.lua"), "POST", {"type": "roll", "expr": "2d6+1"},
              eref)

    targets.append(("GET /v1/health", "-", "/v1/health"))
    targets.append(("GET /v1/sessions/{id}", "get_session.lua", f"/v1/sessions/{sid}"))
    targets.append(("POST generic roll (durable)", "roll.lua", f"/v1/sessions/{rsid}/actions"))
    targets.append(("POST generic roll + entropy (durable)", "roll_entropy.lua",
                    f"/v1/sessions/{esid}/actions"))
    odds.append({"ruleset": "generic", "path": "/v1/rulesets/generic/odds",
                 "body": {"type": "roll", "expr": "6d6"}, "token": None})

    notes = []
    for rs in rulesets:
        if rs == "generic":
            continue
        files = sorted(glob.glob(os.path.join(root, "scenarios", f"{rs}*.json")))
        if not files:
            notes.append(f"ruleset {rs}: no scenarios/{rs}*.json, no durable or odds figure")
            continue
        sc = json.load(open(files[0]))
        created = call(port, "POST", "/v1/sessions", sc["session"])
        ssid = created["session"]["id"]
        action = dict(sc["actions"][0])
        tok = token_for(created, action.pop("as", None))
        lua = f"action_{rs}.lua"
        write_lua(os.path.join(d, lua), "POST", action, tok)
        targets.append((f"POST {rs} {action['type']} (durable)", lua,
                        f"/v1/sessions/{ssid}/actions"))
        odds.append({"ruleset": rs, "path": f"/v1/sessions/{ssid}/odds", "body": action,
                     "token": tok})

    with open(os.path.join(d, "targets.tsv"), "w") as f:
        for t in targets:
            f.write("\t".join(t) + "\n")
    with open(os.path.join(d, "odds.json"), "w") as f:
        json.dump(odds, f)
    with open(os.path.join(d, "notes.txt"), "w") as f:
        f.write("".join(n + "\n" for n in notes))


def setup_roll(port, d, name):
    """The generic roll on a session of its own, as the durable roll row (for the PostgreSQL
    rows: created through one node, its token works on every node of the database)."""
    s = call(port, "POST", "/v1/sessions", {
        "ruleset": "generic", "title": f"bench {name}", "sides": ["a", "b"],
        "dice": {"mode": "server"}})
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    write_lua(os.path.join(d, f"{name}.lua"), "POST", {"type": "roll", "expr": "2d6+1"}, ref)
    print(sid, ref)


def verify(port, sid, token):
    conn = http.client.HTTPConnection(HOST, port, timeout=300)
    try:
        conn.request("GET", f"/v1/sessions/{sid}/verify",
                     headers={"Authorization": "Bearer " + token})
        resp = conn.getresponse()
        raw = resp.read()
    except OSError as e:
        print("error", "-", str(e).replace("\n", " ")[:200])
        return
    finally:
        conn.close()
    if resp.status != 200:
        print("error", resp.status, raw[:200].decode("utf-8", "replace").replace("\n", " "))
        return
    r = json.loads(raw)
    if r.get("ok") is True:
        print("ok", r["events"])
    else:
        print("bad", r.get("events"), f"first bad seq {r.get('first_bad_seq')}: {r.get('reason')}")


def rss(pid):
    vals = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                vals[k] = int(v.split()[0])
    return vals["VmRSS"], vals["VmHWM"]


def settle_rss(pid):
    time.sleep(0.5)
    return rss(pid)[0]


def idle(port, pid, n):
    before = settle_rss(pid)
    socks = []
    req = f"GET /v1/health HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
    try:
        for _ in range(n):
            s = socket.create_connection((HOST, port), timeout=10)
            s.sendall(req)
            socks.append(s)
        for s in socks:  # one answered request each: a real, parsed keep-alive connection
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    raise SystemExit("bench.py idle: connection closed by the daemon")
                data += chunk
            if not data.startswith(b"HTTP/1.1 200"):
                raise SystemExit(f"bench.py idle: {data[:80]!r}")
        after = settle_rss(pid)
    finally:
        for s in socks:
            s.close()
    print(f"{(after - before) / n:.2f} {before} {after}")


def sessions(port, pid, n):
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    before = settle_rss(pid)
    made = []
    for i in range(n):
        s = call(port, "POST", "/v1/sessions", {
            "ruleset": "generic", "title": f"mem {i}", "sides": ["a", "b"],
            "setup": {"units": [{"id": "x", "side": "a"}, {"id": "y", "side": "b"}]}},
            conn=conn)
        made.append((s["session"]["id"], s["tokens"]["referee"]))
    for sid, ref in made:
        call(port, "GET", f"/v1/sessions/{sid}", token=ref, conn=conn)
    after = settle_rss(pid)
    # Then one action each: the writer loads each session row into its cache
    # (server/store/session_cache.c, if present) as it writes; GETs never go through that cache.
    for sid, ref in made:
        call(port, "POST", f"/v1/sessions/{sid}/actions", {"type": "roll", "expr": "1d6"},
             ref, conn=conn)
    acted = settle_rss(pid)
    conn.close()
    print(f"{(after - before) / n:.2f} {before} {after} {(acted - after) / n:.2f} {acted}")


def odds(port, d, reps):
    plan = json.load(open(os.path.join(d, "odds.json")))
    conn = http.client.HTTPConnection(HOST, port, timeout=120)
    for o in plan:
        rates, enumerated = [], 0
        call(port, "POST", o["path"], o["body"], o["token"], conn=conn)  # warm-up
        for _ in range(reps):
            t0 = time.perf_counter()
            r = call(port, "POST", o["path"], o["body"], o["token"], conn=conn)
            dt = time.perf_counter() - t0
            enumerated = r["enumerated"]
            rates.append(enumerated / dt)
        body = json.dumps(o["body"], separators=(",", ":"))
        print(f"{o['ruleset']}\t{body}\t{enumerated}\t{statistics.median(rates):.0f}\t"
              f"{enumerated / statistics.median(rates) * 1000:.1f}")
    conn.close()


def threads(pid):
    """CPU ticks (user + system) of each thread of pid, summed by thread name: "name ticks"."""
    ticks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended meanwhile
        ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])  # utime, stime
    for name in sorted(ticks):
        print(name, ticks[name])


def per_action(before, after, actions):
    """CPU microseconds per action of each thread, from two `threads` outputs."""
    hz = os.sysconf("SC_CLK_TCK")
    def parse(text):  # several daemons' outputs concatenated: summed by thread name
        ticks = {}
        for line in text.splitlines():
            if line.strip():
                name, t = line.split()
                ticks[name] = ticks.get(name, 0) + int(t)
        return ticks
    a, b = parse(before), parse(after)
    names = {"umpired": "loop", "umpire-writer": "writer", "umpire-ckpt": "checkpoint",
             "umpire-reader": "readers", "umpire-listen": "listener"}
    parts = []
    order = list(names) + sorted(set(b) - set(names))
    for name in (n for n in order if n in b):
        us = (int(b[name]) - int(a.get(name, 0))) * 1e6 / hz / max(int(actions), 1)
        parts.append(f"{names.get(name, name)} {us:.1f}")
    print(", ".join(parts))


def fsyncs(path):
    try:
        with open(path, "rb") as f:
            data = f.read(24)
        print(*struct.unpack("<3Q", data))
    except (OSError, struct.error):
        print("- - -")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "setup":
        setup(int(args[0]), args[1])
    elif cmd == "rss":
        print(*rss(int(args[0])))
    elif cmd == "idle":
        idle(int(args[0]), int(args[1]), int(args[2]))
    elif cmd == "sessions":
        sessions(int(args[0]), int(args[1]), int(args[2]))
    elif cmd == "odds":
        odds(int(args[0]), args[1], int(args[2]))
    elif cmd == "fsyncs":
        fsyncs(args[0])
    elif cmd == "threads":
        threads(int(args[0]))
    elif cmd == "setup_roll":
        setup_roll(int(args[0]), args[1], args[2])
    elif cmd == "verify":
        verify(int(args[0]), args[1], args[2])
    elif cmd == "per_action":
        per_action(open(args[0]).read(), open(args[1]).read(), args[2])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
