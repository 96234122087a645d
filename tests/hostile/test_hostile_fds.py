"""File-descriptor exhaustion against the real daemon: started with RLIMIT_NOFILE 256, flooded
with more connections than it has descriptors. While it cannot accept it must not spin (the
listener stays readable: a loop that keeps retrying accept burns a CPU), connections it already
holds are still served, and once the flood is gone it serves new clients normally again."""

import resource
import socket
import time

from hostile_util import Client, wait_until

NOFILE = 256
FLOOD = 400              # > NOFILE: the daemon cannot accept them all
MEASURE_S = 3.0
CPU_BOUND_S = 0.3        # CPU time (utime + stime, all threads) allowed over MEASURE_S


def low_fd_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))


def health_ok(port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
    except OSError:
        return False
    try:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        for _ in range(100):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data.startswith(b"HTTP/1.1 200 ")
    except OSError:
        return False
    finally:
        s.close()


def test_out_of_descriptors_no_busy_loop_and_recovers(hostile):
    d = hostile(server={"max_connections": 4096, "header_timeout_ms": 60000,
                        "max_connections_per_client": 1048576,  # the flood is many clients
                        "idle_timeout_ms": 60000},
                storage={"synchronous": "normal"}, preexec_fn=low_fd_limit)
    with open(f"/proc/{d.proc.pid}/limits") as f:
        assert any(l.startswith("Max open files") and f" {NOFILE} " in l for l in f), \
            "RLIMIT_NOFILE was not applied to the daemon"
    held = Client(d)  # a keep-alive connection opened before the flood
    created = held.create_session()
    sid, token = created["session"]["id"], created["tokens"]["referee"]
    held.roll(sid, token, "1d6")

    flood = []
    try:
        for _ in range(FLOOD):  # the kernel completes these handshakes (backlog) on its own
            flood.append(socket.create_connection(("127.0.0.1", d.port), timeout=5))
        assert wait_until(lambda: "accept failed" in d.stderr_text(), 5), \
            "the daemon never ran out of descriptors"
        assert "Too many open files" in d.stderr_text()
        time.sleep(0.3)  # let the accept bursts settle
        cpu0, t0 = d.cpu_seconds(), time.monotonic()
        time.sleep(MEASURE_S)
        cpu = d.cpu_seconds() - cpu0
        wall = time.monotonic() - t0
        sockets = d.open_sockets()
        print(f"\nEMFILE: daemon holds {sockets} sockets (limit {NOFILE}); used {cpu:.3f} s of "
              f"CPU over {wall:.2f} s while out of descriptors")
        assert cpu < CPU_BOUND_S, f"the daemon used {cpu:.2f} s of CPU in {wall:.1f} s " \
                                  f"while out of descriptors (busy loop?)"
        # The connection it already holds is served (the loop is alive, not stuck).
        assert held.get("/v1/health").status == 200
        # A write still commits: SQLite's files were open before the flood.
        r = held.roll(sid, token, "4d6", expect=None)
        assert r.status == 200, f"roll while out of descriptors: {r!r}"
    finally:
        for s in flood:
            s.close()
    # Flood gone: the daemon accepts (and closes) the backlog, then serves new clients.
    assert wait_until(lambda: health_ok(d.port), 15, step=0.2), \
        "the daemon does not serve again after the descriptor flood"
    r = held.roll(sid, token, "2d6")
    assert r.status == 200
    c = Client(d)
    try:
        assert c.get("/v1/health").status == 200
        assert c.roll(sid, token, "3d6").status == 200
    finally:
        c.close()
        held.close()
