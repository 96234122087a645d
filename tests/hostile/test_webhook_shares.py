"""Webhooks under a hostile client (issue 22, item 6), against the real daemon:

(a) one client filling its share of webhooks.max_total across many sessions leaves room for a
    referee from another client (the client behind a trusted proxy: X-Forwarded-For), whose
    hooks are stored and called;
(b) a receiver that accepts and never answers (a tarpit) holds at most its host's share of the
    delivery slots while another host's receiver still gets its deliveries, and its attempts get
    less time after each timeout;
(c) a session idle past webhooks.idle_expire_ms: its hooks expire, stop counting towards
    max_total, and the session's next event starts them again if there is room."""

import selectors
import socket
import threading
import time

from hostile_util import Client, wait_until
from umpire_client import assert_error, expect
from webhook_receiver import WebhookReceiver

WAIT = 10.0  # seconds a delivery or a state may take to show up (ASan build)
# Rates of the lead's [limits] well above what a test asks, so only the webhook shares answer.
OPEN_LIMITS = {"trusted_proxies": "127.0.0.1", "create_per_minute": 100000,
               "create_burst": 10000, "actions_per_minute": 100000, "actions_burst": 10000,
               "webhook_changes_per_minute": 100000, "webhook_changes_burst": 10000}


class Tarpit:
    """Listens on host (a loopback address of its own), accepts every connection, reads what
    comes and never answers. Records, per connection, when it was accepted and when the peer
    closed it, and the most connections open at once."""

    def __init__(self, host="127.0.0.2"):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((host, 0))
        self.sock.listen(1024)
        self.sock.setblocking(False)
        self.host, self.port = host, self.sock.getsockname()[1]
        self.lock = threading.Lock()
        self.conns = []        # [accepted_at, closed_at or None]
        self.open_now = 0
        self.most_open = 0
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="tarpit", daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://{self.host}:{self.port}{path}"

    def _run(self):
        sel = selectors.DefaultSelector()
        sel.register(self.sock, selectors.EVENT_READ, None)
        held = []
        while not self.stopping:
            for key, _ in sel.select(0.05):
                if key.data is None:
                    try:
                        conn, _ = self.sock.accept()
                    except BlockingIOError:
                        continue
                    conn.setblocking(False)
                    rec = [time.monotonic(), None]
                    with self.lock:
                        self.conns.append(rec)
                        self.open_now += 1
                        self.most_open = max(self.most_open, self.open_now)
                    held.append(conn)
                    sel.register(conn, selectors.EVENT_READ, rec)
                    continue
                try:
                    data = key.fileobj.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    with self.lock:
                        key.data[1] = time.monotonic()
                        self.open_now -= 1
        for conn in held:
            try:
                conn.close()
            except OSError:
                pass
        sel.close()

    def snapshot(self):
        with self.lock:
            return [list(c) for c in self.conns], self.open_now, self.most_open

    def close(self):
        self.stopping = True
        self.thread.join(5)
        self.sock.close()


def xff(addr):
    return {"X-Forwarded-For": addr}


def new_session(c):
    s = c.create_session(sides=("red", "blue"))
    return s["session"]["id"], s["tokens"]["referee"]


def put_hooks(c, sid, ref, urls, client):
    return c.request("PUT", f"/v1/sessions/{sid}/webhooks", token=ref, headers=xff(client),
                     body={"webhooks": [{"url": u, "format": "event"} for u in urls]})


def get_hooks(c, sid, ref):
    return expect(c.get(f"/v1/sessions/{sid}/webhooks", token=ref), 200)["webhooks"]


def roll(c, sid, ref):
    return c.roll(sid, ref, "1d6").body


def seqs(reqs):
    return [r.json()["seq"] for r in reqs]


# --------------------------------------------------------------------------- (a) client shares

def test_one_client_fills_its_share_and_another_client_still_sets_hooks(hostile):
    share = 24
    d = hostile(webhooks={"allow_hosts": "127.0.0.1", "max_per_client": share,
                          "max_total": 1000, "retry_base_ms": 100},
                limits=OPEN_LIMITS)
    c = Client(d)
    rx = WebhookReceiver()
    try:
        eight = [rx.url(f"/spam{i}") for i in range(8)]
        attacker = "203.0.113.7"
        spam = [new_session(c) for _ in range(6)]
        answers = [put_hooks(c, sid, ref, eight, attacker).status for sid, ref in spam]
        assert answers == [200, 200, 200, 429, 429, 429], answers
        r = put_hooks(c, spam[3][0], spam[3][1], eight, attacker)
        err = assert_error(r, 429, "webhooks_client_full")
        assert err["details"]["limit"] == share and err["details"]["held"] == share, err
        assert err["details"]["asked"] == 8, err
        assert get_hooks(c, *spam[3]) == [], "a refused PUT stored hooks"
        # Within its share a client may still replace its own lists (no more hooks).
        expect(put_hooks(c, *spam[0], eight[:8], attacker), 200)

        # An IPv6 client counts by its /64: another address of the same /64 is the same client.
        v6 = [new_session(c) for _ in range(4)]
        got = [put_hooks(c, sid, ref, eight, f"2001:db8:7:7::{i + 1}").status
               for i, (sid, ref) in enumerate(v6)]
        assert got == [200, 200, 200, 429], got

        # A genuine referee behind the same proxy, from another client: stored and called.
        sid, ref = new_session(c)
        r = put_hooks(c, sid, ref, [rx.url("/referee")], "198.51.100.9")
        assert [h["url"] for h in expect(r, 200)["webhooks"]] == [rx.url("/referee")]
        roll(c, sid, ref)
        got = rx.wait_count(1, path="/referee", timeout=WAIT)
        assert seqs(got) == [2], got

        # The attacker removing one list frees that much of its share, no more.
        expect(put_hooks(c, *spam[1], [], attacker), 200)
        assert put_hooks(c, *spam[3], eight, attacker).status == 200
        assert put_hooks(c, *spam[4], eight[:1], attacker).status == 429
    finally:
        c.close()
        rx.close()


# --------------------------------------------------------------------------- (b) host shares

def test_a_tarpit_holds_only_its_host_share_of_the_delivery_slots(hostile):
    slots_per_host = 16
    tarpit = Tarpit()
    rx = WebhookReceiver()
    d = hostile(webhooks={"allow_hosts": f"127.0.0.1,{tarpit.host}", "max_per_client": 100000,
                          "max_slots_per_host": slots_per_host, "timeout_ms": 60000,
                          "retry_base_ms": 100},
                limits=OPEN_LIMITS)
    c = Client(d)
    try:
        # 33 sessions of 8 hooks to the tarpit, one event each: 264 deliveries, more than the
        # daemon's 256 slots, so without a share they would hold every slot for a minute.
        trapped = [new_session(c) for _ in range(33)]
        for i, (sid, ref) in enumerate(trapped):
            urls = [tarpit.url(f"/t{i}/{j}") for j in range(8)]
            expect(put_hooks(c, sid, ref, urls, "192.0.2.1"), 200)
        for sid, ref in trapped:
            roll(c, sid, ref)
        wait_until(lambda: tarpit.snapshot()[1] >= slots_per_host, WAIT)

        # A referee whose receiver answers: its event arrives while the tarpit holds its share.
        sid, ref = new_session(c)
        expect(put_hooks(c, sid, ref, [rx.url("/good")], "198.51.100.9"), 200)
        roll(c, sid, ref)
        got = rx.wait_count(1, path="/good", timeout=WAIT)
        assert seqs(got) == [2], got
        conns, open_now, most = tarpit.snapshot()
        assert all(closed is None for _, closed in conns), "a tarpit attempt already ended"
        assert open_now == slots_per_host and most == slots_per_host, (open_now, most)
        states = [h["delivery"]["state"] for s, r in trapped for h in get_hooks(c, s, r)]
        assert states.count("sending") == slots_per_host, states
        assert states.count("queued") == 264 - slots_per_host, states
    finally:
        c.close()
        rx.close()
        tarpit.close()


def test_a_host_that_times_out_gets_less_time(hostile):
    timeout_ms = 2000
    tarpit = Tarpit()
    d = hostile(webhooks={"allow_hosts": tarpit.host, "timeout_ms": timeout_ms,
                          "retry_base_ms": 50, "max_attempts": 5},
                limits=OPEN_LIMITS)
    c = Client(d)
    try:
        sid, ref = new_session(c)
        expect(put_hooks(c, sid, ref, [tarpit.url("/slow")], "192.0.2.1"), 200)
        roll(c, sid, ref)
        # Attempts one after the other: the host's time halves with each timeout (2 s, 1 s,
        # 0.5 s, then at least timeout_ms / 8).
        wait_until(lambda: sum(1 for _, e in tarpit.snapshot()[0] if e) >= 4, 3 * WAIT)
        spans = [e - a for a, e in tarpit.snapshot()[0] if e]
        assert spans[0] > 0.8 * timeout_ms / 1000, spans
        assert spans[3] < 0.5 * timeout_ms / 1000, spans
        hook = get_hooks(c, sid, ref)[0]
        assert "timeout" in (hook["delivery"]["last_error"] or "").lower(), hook
    finally:
        c.close()
        tarpit.close()


# --------------------------------------------------------------------------- (c) idle expiry

def test_hooks_of_an_idle_session_expire_and_a_later_event_starts_them_if_there_is_room(
        hostile):
    idle_ms = 3000
    rx = WebhookReceiver()
    d = hostile(webhooks={"allow_hosts": "127.0.0.1", "max_total": 8,
                          "idle_expire_ms": idle_ms, "retry_base_ms": 100},
                limits=OPEN_LIMITS)
    c = Client(d)
    try:
        a, ra = new_session(c)
        b, rb = new_session(c)
        expect(put_hooks(c, a, ra, [rx.url("/a")], "192.0.2.1"), 200)
        roll(c, a, ra)
        rx.wait_count(1, path="/a", timeout=WAIT)
        # max_total is full (1 + 8 > 8) while a's hook lives.
        eight = [rx.url(f"/b{i}") for i in range(8)]
        assert_error(put_hooks(c, b, rb, eight, "198.51.100.9"), 503, "webhooks_full")

        def a_expired():
            return get_hooks(c, a, ra)[0]["delivery"]["state"] == "expired"
        wait_until(a_expired, idle_ms / 1000 + WAIT)
        hook = get_hooks(c, a, ra)[0]
        assert "idle_expire_ms" in hook["delivery"]["last_error"], hook
        assert hook["delivery"]["delivered_seq"] == 2, hook
        session = expect(c.get(f"/v1/sessions/{a}", token=ra), 200)
        assert session["webhooks"] == [hook], session

        # Expired, it no longer counts: b's eight fit. An event on a now finds no room.
        expect(put_hooks(c, b, rb, eight, "198.51.100.9"), 200)
        roll(c, a, ra)
        wait_until(lambda: "max_total" in (get_hooks(c, a, ra)[0]["delivery"]["last_error"]
                                           or ""), WAIT)
        assert get_hooks(c, a, ra)[0]["delivery"]["state"] == "expired"

        # With room again, a's next event starts its hook, from that event on.
        expect(put_hooks(c, b, rb, [], "198.51.100.9"), 200)
        roll(c, a, ra)
        got = rx.wait_count(2, path="/a", timeout=WAIT)
        assert seqs(got) == [2, 4], got
        hook = get_hooks(c, a, ra)[0]
        assert hook["delivery"]["state"] in ("idle", "sending"), hook
        time.sleep(0.2)
        assert seqs(rx.requests_to("/a")) == [2, 4], "an event of the expired time was sent"
    finally:
        c.close()
        rx.close()
