"""Webhook mentions (issue 23, item 4): the referee maps each side to a Discord user or role id
on a discord webhook, and the post of an event that calls a side to the table (its turn begins,
a claim waits for it) mentions exactly that id, allowed_mentions limited to it. Played on the
horse-and-musket scenario against a local receiver."""

import json
from pathlib import Path

import pytest

from umpire_client import Client, Daemon, assert_error, expect
from webhook_receiver import WebhookReceiver

REPO = Path(__file__).resolve().parents[2]
HM = json.loads((REPO / "scenarios" / "horse-and-musket-la-haye-sainte.json").read_text())
FRENCH = "111111111111111111"      # a user id
BRITISH = "22222222222222222222"   # a role id
MENTIONS = {"french": {"user": FRENCH}, "british": {"role": BRITISH}}
CONFIG = "[webhooks]\nallow_hosts = \"127.0.0.1\"\nretry_base_ms = 100\ntimeout_ms = 2000\n"


@pytest.fixture
def setup():
    d = Daemon(config=CONFIG)
    rx = WebhookReceiver()
    d.start()
    c = Client(d)
    try:
        yield d, c, rx
    finally:
        c.close()
        rx.close()
        problems = d.stop_problems()
        d.cleanup()
        assert not problems, problems


def session(c):
    r = c.post("/v1/sessions", HM["session"])
    body = expect(r, 201)
    return body["session"]["id"], body["tokens"]


def put(c, sid, token, hooks):
    return c.request("PUT", f"/v1/sessions/{sid}/webhooks", body={"webhooks": hooks}, token=token)


def act(c, sid, token, body):
    return expect(c.post(f"/v1/sessions/{sid}/actions", body, token=token), 200)


def test_a_side_called_to_the_table_is_mentioned(setup):
    d, c, rx = setup
    sid, tok = session(c)
    ref, fr, br = tok["referee"], tok["sides"]["french"], tok["sides"]["british"]
    hooks = expect(put(c, sid, ref, [{"url": rx.url("/d"), "format": "discord",
                                      "mentions": MENTIONS}]), 200)["webhooks"]
    assert hooks[0]["mentions"] == MENTIONS
    got = expect(c.get(f"/v1/sessions/{sid}/webhooks", token=ref), 200)["webhooks"]
    assert got[0]["mentions"] == MENTIONS

    posts = []

    def next_post():
        posts.append(rx.wait_count(len(posts) + 1, path="/d")[-1].json())
        return posts[-1]

    # The French end their Movement: their own Fire phase begins; they are at the table.
    act(c, sid, fr, {"type": "end_phase"})
    body = next_post()
    assert "<@" not in body["content"] and body["allowed_mentions"] == {"parse": []}, body
    # The French fire without a table: a claim that waits for the British, whose role is pinged.
    act(c, sid, fr, {"type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": 1})
    body = next_post()
    assert body["content"].endswith(
        f"\n<@&{BRITISH}> british: french's claim 1 waits for you: accept or dispute it"), body
    assert body["allowed_mentions"] == {"parse": [], "roles": [BRITISH]}, body
    # The British accept: no one is called by that.
    act(c, sid, br, {"type": "accept", "claim": 1})
    body = next_post()
    assert "<@" not in body["content"] and body["allowed_mentions"] == {"parse": []}, body
    # The French end Fire and Melee: the British turn begins, the British are called.
    act(c, sid, fr, {"type": "end_phase"})
    next_post()
    act(c, sid, fr, {"type": "end_phase"})
    body = next_post()
    assert body["content"].endswith(f"\n<@&{BRITISH}> british: your turn: Movement, turn 1"), body
    assert body["allowed_mentions"] == {"parse": [], "roles": [BRITISH]}
    # The referee ends the British Movement: the British are called again (the referee acted).
    act(c, sid, ref, {"type": "end_phase"})
    body = next_post()
    assert body["content"].endswith(f"\n<@&{BRITISH}> british: your turn: Fire, turn 1"), body
    # The British fire: a claim for the French, a user.
    act(c, sid, br, {"type": "fire", "unit": "br-battery", "target": "fr-guard", "hits": 1})
    body = next_post()
    assert body["content"].endswith(
        f"\n<@{FRENCH}> french: british's claim 2 waits for you: accept or dispute it"), body
    assert body["allowed_mentions"] == {"parse": [], "users": [FRENCH]}, body
    for b in posts:
        assert len(b["content"]) <= 2000

    # The list, mentions included, survives a restart.
    d.restart()
    c.close()
    c2 = Client(d)
    try:
        got = expect(c2.get(f"/v1/sessions/{sid}/webhooks", token=ref), 200)["webhooks"]
        assert got[0]["mentions"] == MENTIONS
    finally:
        c2.close()


def test_mentions_are_checked_and_nothing_is_stored_when_bad(setup):
    d, c, rx = setup
    sid, tok = session(c)
    ref = tok["referee"]
    url = rx.url("/d")
    expect(put(c, sid, ref, [{"url": url, "format": "discord"}]), 200)
    bad = [
        ({"url": url, "format": "event", "mentions": MENTIONS}, "webhooks[0].mentions"),
        ({"url": url, "mentions": {"french": {"user": "12ab"}}}, "webhooks[0].mentions.french"),
        ({"url": url, "mentions": {"french": {"user": "@everyone"}}}, "webhooks[0].mentions.french"),
        ({"url": url, "mentions": {"french": {"user": "1" * 21}}}, "webhooks[0].mentions.french"),
        ({"url": url, "mentions": {"french": {"user": FRENCH, "role": BRITISH}}},
         "webhooks[0].mentions.french"),
        ({"url": url, "mentions": {"french": FRENCH}}, "webhooks[0].mentions.french"),
        ({"url": url, "mentions": {f"s{i}": {"user": FRENCH} for i in range(9)}},
         "webhooks[0].mentions"),
        ({"url": url, "mentions": ["french"]}, "webhooks[0].mentions"),
    ]
    for hook, field in bad:
        assert_error(put(c, sid, ref, [hook]), 400, "invalid_field", field)
    err = assert_error(put(c, sid, ref, [{"url": url, "mentions": {"prussians": {"user": FRENCH}}}]),
                       422, "unknown_side")
    assert err["details"]["side"] == "prussians" and err["details"]["sides"] == ["french", "british"]
    got = expect(c.get(f"/v1/sessions/{sid}/webhooks", token=ref), 200)["webhooks"]
    assert len(got) == 1 and "mentions" not in got[0], got
    # A side's token may not set them.
    assert_error(put(c, sid, tok["sides"]["french"], [{"url": url, "mentions": MENTIONS}]), 403)
