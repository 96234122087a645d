"""Webhooks with several nodes on one database: one node at a time sends them (the holder of
the delivery lock, server/store/pg_listen.h), whichever node committed the events, so a receiver
gets each event once and in order; lists set through any node reach every node; when the
sending node dies another takes over."""

import signal
import time

from scaleout_util import Client
from webhook_receiver import WebhookReceiver

CONFIG = """[webhooks]
allow_hosts = "127.0.0.1"
retry_base_ms = 100
timeout_ms = 2000
"""


def roll(node, sid, ref):
    c = Client(node)
    try:
        return c.roll(sid, ref, "1d6", unit="u1").body["version"]
    finally:
        c.close()


def put_hook(node, sid, ref, url):
    c = Client(node)
    try:
        r = c.request("PUT", f"/v1/sessions/{sid}/webhooks", token=ref,
                      body={"webhooks": [{"url": url, "format": "event"}]})
        assert r.status == 200, r
    finally:
        c.close()


def hook_state(node, sid, ref):
    c = Client(node)
    try:
        r = c.get(f"/v1/sessions/{sid}/webhooks", token=ref)
        assert r.status == 200, r
        return r.body["webhooks"][0]["delivery"]["state"]
    finally:
        c.close()


def seqs(rx):
    return [r.json()["seq"] for r in rx.requests]


def wait_state(node, sid, ref, want, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if hook_state(node, sid, ref) == want:
            return
        time.sleep(0.05)
    raise AssertionError(f"{node.name}: state is {hook_state(node, sid, ref)}, not {want}")


def test_one_node_sends_each_event_once_whichever_node_committed_it(cluster):
    a = cluster.node("a", config=CONFIG)
    time.sleep(1.5)  # a holds the delivery lock before b starts
    b = cluster.node("b", config=CONFIG)
    rx = WebhookReceiver()
    try:
        c = Client(a)
        created = c.create_session(units=[{"id": "u1", "side": "alice"}])
        c.close()
        sid, ref = created["session"]["id"], created["tokens"]["referee"]
        # Set through the node that does not send: the sending node learns it by NOTIFY.
        put_hook(b, sid, ref, rx.url("/hook"))
        wait_state(b, sid, ref, "standby")
        deadline = time.monotonic() + 10
        while Client(a).get(f"/v1/sessions/{sid}/webhooks", token=ref).body["webhooks"] == []:
            assert time.monotonic() < deadline, "node a never learnt the list set on b"
            time.sleep(0.05)
        versions = [roll(a if i % 2 else b, sid, ref) for i in range(10)]
        rx.wait_for(lambda reqs: len(reqs) >= 10, timeout=15)
        time.sleep(0.5)  # a duplicate would arrive by now
        got = seqs(rx)
        print(f"\nreceived seqs {got} for versions {versions}")
        assert got == versions == list(range(2, 12))
        assert hook_state(b, sid, ref) == "standby"
        assert hook_state(a, sid, ref) == "idle"
    finally:
        rx.close()


def test_another_node_takes_over_when_the_sending_node_dies(cluster):
    a = cluster.node("a", config=CONFIG)
    time.sleep(1.5)
    b = cluster.node("b", config=CONFIG)
    rx = WebhookReceiver()
    try:
        c = Client(b)
        created = c.create_session(units=[{"id": "u1", "side": "alice"}])
        c.close()
        sid, ref = created["session"]["id"], created["tokens"]["referee"]
        put_hook(a, sid, ref, rx.url("/hook"))
        before = [roll(b, sid, ref) for _ in range(3)]
        rx.wait_for(lambda reqs: len(reqs) >= 3, timeout=15)
        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait(10)
        t0 = time.monotonic()
        wait_state(b, sid, ref, "idle", timeout=15)  # b holds the lock now
        took = time.monotonic() - t0
        after = [roll(b, sid, ref) for _ in range(3)]
        rx.wait_for(lambda reqs: len(reqs) >= 6, timeout=15)
        time.sleep(0.5)
        got = seqs(rx)
        print(f"\ntake-over after the sending node's death: {took:.2f} s; received {got}")
        assert got == before + after
    finally:
        rx.close()
