"""A client that pipelines requests for large answers and never reads them, against the real
daemon: its memory stays bounded (write_queue_max_bytes, max_pipelined), the stalled connection
is closed after idle_timeout_ms, and other clients are served all along."""

import socket
import subprocess
import time

from hostile_util import Client, access_lines, tcp_state, wait_until

WRITE_QUEUE = 256 * 1024
IDLE_MS = 1000
ROLLS = 250              # events of ~1.3 KB each (100 dice): one page is ~330 KB > WRITE_QUEUE
PIPELINED = 800          # requests sent (each asks for the whole log: ~260 MB of answers)
RSS_BOUND_KB = 64 * 1024  # growth allowed over the warmed-up daemon (ASan quarantine is 16 MB)
TCP_ESTABLISHED = 1


def tcp_queues(local_port, remote_port):
    """(send_q, recv_q) in bytes of the established loopback socket local_port -> remote_port
    (recv_q: received and not yet read by the application), or None. Asks `ss` (netlink, the
    kernel filters) rather than reading /proc/net/tcp, which lists every TIME_WAIT socket."""
    try:
        out = subprocess.run(
            ["ss", "-tnH", "state", "established",
             f"( sport = :{local_port} and dport = :{remote_port} )"],
            capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2].endswith(f":{local_port}") \
                and parts[3].endswith(f":{remote_port}"):
            return int(parts[1]), int(parts[0])
    return None


def test_never_reading_client_is_bounded_closed_and_others_served(hostile):
    d = hostile(server={"write_queue_max_bytes": WRITE_QUEUE, "max_pipelined": 4,
                        "idle_timeout_ms": IDLE_MS, "header_timeout_ms": 5000},
                storage={"synchronous": "normal"})
    client = Client(d)
    created = client.create_session(visibility="public")
    sid, token = created["session"]["id"], created["tokens"]["referee"]
    for _ in range(ROLLS):
        client.roll(sid, token, "100d6")
    target = f"/v1/sessions/{sid}/events?limit=1000"
    page, times = None, []
    for _ in range(5):  # warm-up: the daemon has built such an answer several times
        t0 = time.perf_counter()
        r = client.get(target)
        times.append(time.perf_counter() - t0)
        assert r.status == 200
        page = len(r.raw)
    page_s = sorted(times)[2]  # median time of one page, alone
    assert page > WRITE_QUEUE, f"one answer is only {page} bytes"
    base_rss = d.rss_kb()
    base_sockets = d.open_sockets()

    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel holds little for us
    s.connect(("127.0.0.1", d.port))
    s.setblocking(False)
    request = (f"GET {target} HTTP/1.1\r\nHost: x\r\nX-Pad: ".encode() + b"p" * 1000 +
               b"\r\n\r\n")
    payload = request * PIPELINED
    sent, peak, served, worst = 0, base_rss, 0, 0.0
    consumed, closed = None, False
    our_port = s.getsockname()[1]
    other = Client(d, timeout=5)
    t_start = time.monotonic()
    t_end = t_start + IDLE_MS / 1000 + 7.0
    try:
        for _ in range(2000):  # bounded: at most ~8 s at >= 10 ms a round
            if time.monotonic() >= t_end:
                break
            try:
                if sent < len(payload):
                    sent += s.send(payload[sent:sent + 65536])
            except BlockingIOError:
                pass
            except OSError:
                pass  # reset by the daemon: seen below through TCP_INFO
            if tcp_state(s) != TCP_ESTABLISHED:
                closed = True
                t_closed = time.monotonic()
                break
            ours, theirs = tcp_queues(our_port, d.port), tcp_queues(d.port, our_port)
            if ours and theirs:
                # Bytes the daemon took from the socket (the kernel buffers on loopback hold
                # tens of MB, so how much we could send proves nothing).
                consumed = sent - ours[0] - theirs[1]
            peak = max(peak, d.rss_kb())
            t0 = time.perf_counter()
            r = other.get("/v1/health")
            worst = max(worst, time.perf_counter() - t0)
            assert r.status == 200
            served += 1
            if served % 10 == 0:
                r = other.get(target)  # a big answer for a reader that reads
                assert r.status == 200 and len(r.raw) == page
            time.sleep(0.01)
        peak = max(peak, d.rss_kb())
        assert closed, "the never-reading connection was not closed"
        assert t_closed - t_start <= IDLE_MS / 1000 + 3.0, \
            f"closed only {t_closed - t_start:.2f} s after the first request (idle_timeout {IDLE_MS} ms)"
        assert consumed is not None
        assert consumed < 64 * len(request) and consumed < sent / 2, \
            f"the daemon read {consumed} of {sent} bytes of requests it could not answer"
        assert wait_until(lambda: d.open_sockets() <= base_sockets, 3), \
            "the daemon still holds the stalled socket"
        assert other.get("/v1/health").status == 200
    finally:
        s.close()
        other.close()
        client.close()
    growth = peak - base_rss
    print(f"\nnever-reader: sent {sent} of {len(payload)} request bytes "
          f"({sent // len(request)} requests), daemon read {consumed} bytes "
          f"(~{consumed / len(request):.1f} requests), answer size {page} bytes; RSS base "
          f"{base_rss} KiB, peak growth {growth} KiB; closed "
          f"{t_closed - t_start:.2f} s after the first request was sent; "
          f"{served} health answers to another client meanwhile, worst {worst * 1000:.1f} ms; "
          f"one page alone takes {page_s * 1000:.1f} ms")
    assert growth < RSS_BOUND_KB, f"RSS grew by {growth} KiB"
    # The work done for the never-reader is bounded: answers go first into the daemon's socket
    # send buffer (the kernel autotunes it up to tcp_wmem's maximum, outside the daemon's RSS),
    # then into its write queue (write_queue_max_bytes), then at most max_pipelined are in
    # flight. Counted from the access log (one line per answer built).
    with open("/proc/sys/net/ipv4/tcp_wmem") as f:
        wmem_max = int(f.read().split()[2])
    max_answers = (wmem_max + WRITE_QUEUE) // page + 1 + 4 + 1
    built = sum(1 for e in access_lines(d) if e.get("remote", "").endswith(f":{our_port}"))
    print(f"never-reader: {built} answers built for it (bound {max_answers})")
    assert 1 <= built <= max_answers, f"{built} answers built for a client that never reads"
    # Others are served all along. The events page is built on the loop thread, so a health
    # request can wait behind the answers built for the never-reader (at most max_answers) and
    # the page another client asked for; measured in the same run (page_s: one page alone).
    bound = (max_answers + 1) * page_s + 0.1
    assert served >= 5 and worst <= bound, \
        f"another client waited {worst * 1000:.0f} ms (bound {bound * 1000:.0f} ms)"
