"""Webhooks: PUT/GET /v1/sessions/{id}/webhooks, delivery of committed events to a local
receiver in both formats (discord, event), retries and giving up, the host allowlist and the
inside-address refusal, the game never waiting on a receiver, auth, validation, restart.

The receiver (webhook_receiver.py) is a threaded HTTP server on 127.0.0.1 that records every
request and answers from a script (statuses in turn, Retry-After, hang until released)."""

import json
import re
import time

import pytest

from umpire_client import Client, Daemon, assert_error, expect
from umpire_ref import discord_escaped
from webhook_receiver import HANG, Reply, WebhookReceiver

SEED = "5eed" * 16
WAIT = 10.0            # seconds: how long a delivery may take to show up (ASan build)
POLL = 0.05
HOOK_KEYS = {"id", "url", "format", "delivery"}
DELIVERY_KEYS = {"state", "delivered_seq", "pending", "attempts", "delivered", "failed",
                 "dropped", "last_status", "last_error", "next_attempt_in_ms"}
EVENT_KEYS = {"seq", "ts", "actor", "type", "data", "prev", "hash"}
NO_PINGS = {"parse": []}  # Discord: parse no @everyone, role or user mentions


# --------------------------------------------------------------------------- config, fixtures

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return json.dumps(str(v))   # a TOML basic string is a JSON string for these values


def webhook_config(extra="", **webhooks):
    """TOML with a [webhooks] table: the tests' defaults (loopback allowed by IP literal, fast
    retries) overridden by webhooks; None leaves a key out (its built-in default)."""
    vals = {"allow_hosts": "127.0.0.1", "retry_base_ms": 100, "timeout_ms": 2000}
    vals.update(webhooks)
    lines = ["[webhooks]"] + [f"{k} = {toml_value(v)}" for k, v in vals.items() if v is not None]
    return "\n".join(lines) + "\n" + extra


@pytest.fixture
def daemon_factory():
    """make(config_text=None, **webhook_keys) -> a started Daemon with that config (by default
    webhook_config(**webhook_keys)). Teardown: the conftest's checks on each (SIGTERM exit 0,
    no sanitizer report, no 5xx answered)."""
    made = []

    def make(config_text=None, **webhooks):
        d = Daemon(config=config_text if config_text is not None else webhook_config(**webhooks))
        made.append(d)
        d.start()
        return d

    yield make
    problems = []
    for d in made:
        try:
            found = d.stop_problems()
            if found:
                problems.append("; ".join(found) + "\n" + d.stderr_text()[-4000:])
        except AssertionError as e:
            problems.append(str(e))
        finally:
            d.cleanup()
    assert not problems, "; ".join(problems)


@pytest.fixture
def rx():
    r = WebhookReceiver()
    try:
        yield r
    finally:
        r.close()


@pytest.fixture
def client_factory():
    clients = []

    def make(d):
        c = Client(d)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def start(daemon_factory, client_factory, **webhooks):
    d = daemon_factory(**webhooks)
    return d, client_factory(d)


# --------------------------------------------------------------------------- helpers

def new_session(c, **kw):
    s = c.create_session(sides=("red", "blue"), mode="seeded", seed=SEED,
                         units=[{"id": "r", "side": "red"}, {"id": "b", "side": "blue"}], **kw)
    return s["session"]["id"], s["tokens"]["referee"], s


def hooks_path(sid):
    return f"/v1/sessions/{sid}/webhooks"


def put_hooks(c, sid, token, hooks, raw=None):
    body = None if raw is not None else {"webhooks": hooks}
    return c.request("PUT", hooks_path(sid), body=body, raw=raw, token=token)


def set_hooks(c, sid, ref, *pairs):
    """PUT [(url, format), ...]; asserts 200 and the answer's shape; returns the list."""
    r = put_hooks(c, sid, ref, [{"url": u, "format": f} for u, f in pairs])
    body = expect(r, 200)
    assert set(body) == {"webhooks"}, f"PUT webhooks answer: {r!r}"
    hooks = body["webhooks"]
    assert [(h["url"], h["format"]) for h in hooks] == list(pairs), f"PUT answer: {r!r}"
    for h in hooks:
        check_hook_shape(h)
    return hooks


def get_hooks(c, sid, ref):
    r = c.get(hooks_path(sid), token=ref)
    body = expect(r, 200)
    assert set(body) == {"webhooks"}, f"GET webhooks answer: {r!r}"
    for h in body["webhooks"]:
        check_hook_shape(h)
    return body["webhooks"]


def check_hook_shape(h):
    assert isinstance(h, dict) and HOOK_KEYS <= set(h), f"webhook object: {h!r}"
    assert isinstance(h["id"], int) and not isinstance(h["id"], bool), f"id: {h!r}"
    assert h["format"] in ("discord", "event"), h
    d = h["delivery"]
    assert isinstance(d, dict) and DELIVERY_KEYS <= set(d), f"delivery object: {h!r}"
    assert d["state"] in ("idle", "sending", "waiting_retry"), h
    for k in ("delivered_seq", "pending", "attempts", "delivered", "failed", "dropped"):
        assert isinstance(d[k], int) and not isinstance(d[k], bool) and d[k] >= 0, f"{k}: {h!r}"
    assert d["last_status"] is None or isinstance(d["last_status"], int), h
    assert d["last_error"] is None or isinstance(d["last_error"], str), h
    assert d["next_attempt_in_ms"] is None or (isinstance(d["next_attempt_in_ms"], int)
                                               and d["next_attempt_in_ms"] >= 0), h
    if d["state"] == "waiting_retry":
        assert d["next_attempt_in_ms"] is not None, f"waiting_retry without next_attempt: {h!r}"
    else:
        assert d["next_attempt_in_ms"] is None, f"next_attempt_in_ms outside waiting_retry: {h!r}"


def wait_hooks(c, sid, ref, pred, timeout=WAIT, what="webhook state"):
    deadline = time.monotonic() + timeout
    hooks = None
    while True:
        hooks = get_hooks(c, sid, ref)
        if pred(hooks):
            return hooks
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout} s: {hooks!r}")
        time.sleep(POLL)


def settled(n_delivered, version, **more):
    """Predicate: every hook idle, nothing pending, delivered_seq == version, delivered ==
    n_delivered (and any other delivery field given)."""
    def pred(hooks):
        for h in hooks:
            d = h["delivery"]
            if (d["state"], d["pending"], d["delivered_seq"], d["delivered"]) != \
                    ("idle", 0, version, n_delivered):
                return False
            if any(d[k] != v for k, v in more.items()):
                return False
        return True
    return pred


def fresh_delivery(d, version):
    """The delivery state of a hook just set (or just restarted) on a session at version."""
    assert d["state"] == "idle", d
    assert d["delivered_seq"] == version, d
    assert (d["pending"], d["attempts"], d["delivered"], d["failed"], d["dropped"]) == \
        (0, 0, 0, 0, 0), d
    assert d["last_status"] is None and d["last_error"] is None, d
    assert d["next_attempt_in_ms"] is None, d


def roll(c, sid, tok, expr="2d6"):
    return c.roll(sid, tok, expr).body


def daemon_version(c):
    return expect(c.get("/v1/health"), 200)["version"]


def seqs_of(reqs):
    return [r.json()["seq"] for r in reqs]


def version_head(c, sid, ref):
    s = c.session(sid, ref)
    return s["version"], s["head"]


# --------------------------------------------------------------------------- 1. delivery

def test_delivery_in_both_formats(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    hooks = set_hooks(c, sid, ref, (rx.url("/discord?wait=true"), "discord"),
                      (rx.url("/event"), "event"))
    assert len({h["id"] for h in hooks}) == 2, f"hook ids not distinct: {hooks!r}"
    for h in hooks:
        fresh_delivery(h["delivery"], 1)
    assert get_hooks(c, sid, ref) == hooks

    answers = [roll(c, sid, ref) for _ in range(3)]
    version = answers[-1]["version"]
    assert version == 4
    disc = rx.wait_count(3, path="/discord")
    evr = rx.wait_count(3, path="/event")
    time.sleep(0.3)   # anything more would be a duplicate
    assert len(rx.requests_to("/discord")) == 3 and len(rx.requests_to("/event")) == 3, \
        rx.requests
    ua = f"umpired/{daemon_version(c)}"
    for r in disc + evr:
        assert r.method == "POST", r
        ct = (r.header("content-type") or "").lower()
        assert ct.split(";")[0].strip() == "application/json", f"Content-Type {ct!r}"
        assert r.header("user-agent") == ua, f"User-Agent {r.header('user-agent')!r}, want {ua!r}"
    assert all(r.target == "/discord?wait=true" for r in disc), \
        f"the URL's path and query are not sent as given: {[r.target for r in disc]}"

    # discord: exactly {"content": summary, escaped} with no mention parsed (player text must not ping
    # @everyone), in the order the actions were answered
    assert [r.json() for r in disc] == [{"content": discord_escaped(a["summary"]),
                                         "allowed_mentions": NO_PINGS}
                                        for a in answers]

    # event: the events exactly as GET /events gives them, seqs contiguous
    events, _ = c.events(sid, ref)
    got = [r.json() for r in evr]
    for e in got:
        assert set(e) == EVENT_KEYS, f"event body keys {sorted(e)}"
    assert [e["seq"] for e in got] == [2, 3, 4]
    assert got == events[1:4]
    assert [e["data"]["summary"] for e in got] == [a["summary"] for a in answers]
    assert [e["hash"] for e in got] == [a["events"][-1]["hash"] for a in answers]

    hooks = wait_hooks(c, sid, ref, settled(3, version), what="delivered=3, pending=0")
    for h in hooks:
        dd = h["delivery"]
        assert (dd["failed"], dd["dropped"], dd["last_status"], dd["last_error"]) == \
            (0, 0, 200, None), h


def test_get_session_without_hooks_carries_an_empty_list(daemon_factory, client_factory, rx):
    """The referee's GET session carries "webhooks" whatever other sessions do: [] when the
    session has none, both when no session of the daemon has any and when another has."""
    d, c = start(daemon_factory, client_factory)
    sid, ref, s = new_session(c)
    alone = expect(c.get(f"/v1/sessions/{sid}", token=ref), 200).get("webhooks", "absent")
    sid2, ref2, _ = new_session(c)
    set_hooks(c, sid2, ref2, (rx.url("/x"), "event"))
    beside = expect(c.get(f"/v1/sessions/{sid}", token=ref), 200).get("webhooks", "absent")
    assert (alone, beside) == ([], []), \
        f"referee's GET session of a session without hooks: webhooks {alone!r} when no session " \
        f"has any, {beside!r} when another session has some; want [] both times"


def test_get_session_carries_webhooks_for_the_referee_only(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, s = new_session(c, visibility="public")
    set_hooks(c, sid, ref, (rx.url("/a"), "event"))
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(1, 2))
    r = expect(c.get(f"/v1/sessions/{sid}", token=ref), 200)
    assert "webhooks" in r, f"referee's GET session has no webhooks: {sorted(r)}"
    assert "webhooks" not in r["session"], "webhooks inside session as well as beside it"
    assert r["webhooks"] == get_hooks(c, sid, ref)
    side = s["tokens"]["sides"]["red"]
    for tok in (side, None):     # a side's token; a public reader without a token
        r = expect(c.get(f"/v1/sessions/{sid}", token=tok), 200)
        assert "webhooks" not in r and "webhooks" not in r["session"], \
            f"GET session with {'a side token' if tok else 'no token'} shows the webhook URLs"


def test_discord_content_shows_players_text_as_typed(daemon_factory, client_factory, rx):
    """A side's roll purpose that is Discord markdown (a masked link) arrives escaped: Discord
    shows the words, not a clickable link."""
    d, c = start(daemon_factory, client_factory)
    s = c.create_session(sides=("red", "blue"), mode="server", units=[{"id": "r1", "side": "red"}])
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    set_hooks(c, sid, ref, (rx.url("/d"), "discord"))
    purpose = "[Claim prize](https://evil.example/x)"  # at most 40 bytes
    c.roll(sid, s["tokens"]["sides"]["red"], "1d6", unit="r1", purpose=purpose)
    content = rx.wait_count(1, path="/d")[0].json()["content"]
    assert "\\[Claim prize\\]\\(https\\://evil.example/x\\)" in content, content
    assert "[Claim prize](" not in content and "https://" not in content, content


def test_discord_content_for_an_event_without_summary(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    s = c.create_session(sides=("red", "blue"), mode="server")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    roll(c, sid, ref)  # a reveal needs a die rolled under the seed; the hooks start after it
    set_hooks(c, sid, ref, (rx.url("/d"), "discord"), (rx.url("/e"), "event"))
    r = c.post(f"/v1/sessions/{sid}/reveal", token=s["tokens"]["sides"]["red"])
    expect(r, 200)
    ev = rx.wait_count(1, path="/e")[0].json()
    assert ev["type"] == "dice_seed_revealed" and "summary" not in ev["data"], ev
    body = rx.wait_count(1, path="/d")[0].json()
    assert set(body) == {"content", "allowed_mentions"}, body
    assert body["allowed_mentions"] == NO_PINGS
    content = body["content"]
    assert isinstance(content, str) and content.strip(), f"empty discord content: {body!r}"
    assert len(content) <= 2000 and "\n" not in content.strip(), f"not a short line: {body!r}"
    assert content.startswith("The dice seed was revealed"), content  # by a side, not "the referee"
    wait_hooks(c, sid, ref, settled(1, 3))


def test_replacing_the_list_starts_from_the_current_version(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/a"), "event"))
    roll(c, sid, ref)
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(2, 3))
    assert seqs_of(rx.requests_to("/a")) == [2, 3]

    hooks = set_hooks(c, sid, ref, (rx.url("/a"), "event"), (rx.url("/b"), "discord"))
    for h in hooks:
        fresh_delivery(h["delivery"], 3)
    time.sleep(0.3)
    assert len(rx.requests) == 2, f"events before the PUT were sent again: {rx.requests!r}"
    roll(c, sid, ref)
    rx.wait_count(1, path="/b")
    wait_hooks(c, sid, ref, settled(1, 4))
    assert seqs_of(rx.requests_to("/a")) == [2, 3, 4]

    r = put_hooks(c, sid, ref, [])
    assert expect(r, 200) == {"webhooks": []}
    assert get_hooks(c, sid, ref) == []
    roll(c, sid, ref)
    time.sleep(0.5)
    assert len(rx.requests) == 4, f"a removed hook was still called: {rx.requests!r}"


# --------------------------------------------------------------------------- 2. retries

def test_retry_after_500_then_delivered(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    rx.script(500, 200)
    a = roll(c, sid, ref)
    reqs = rx.wait_count(2, path="/h")
    assert reqs[0].body == reqs[1].body, "the retry sent another body"
    assert seqs_of(reqs) == [2, 2]
    gap = reqs[1].t - reqs[0].t
    assert gap >= 0.09, f"retried {gap * 1000:.0f} ms after a 500; retry_base_ms is 100"
    hooks = wait_hooks(c, sid, ref, settled(1, a["version"]))
    dd = hooks[0]["delivery"]
    assert (dd["failed"], dd["last_status"]) == (0, 200), hooks
    time.sleep(0.3)
    assert len(rx.requests) == 2, rx.requests


def test_other_4xx_is_given_up_at_once(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    rx.script(404)
    roll(c, sid, ref)
    rx.wait_count(1)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["failed"] == 1,
                       what="failed=1 after a 404")
    dd = hooks[0]["delivery"]
    assert (dd["delivered"], dd["last_status"], dd["delivered_seq"], dd["pending"]) == \
        (0, 404, 2, 0), hooks
    time.sleep(0.4)   # four retry_base_ms: a retry would have come
    assert len(rx.requests) == 1, f"a 404 was retried: {rx.requests!r}"
    roll(c, sid, ref)
    hooks = wait_hooks(c, sid, ref, settled(1, 3, failed=1, last_status=200))
    assert seqs_of(rx.requests) == [2, 3]


def test_gives_up_after_max_attempts_with_backoff(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory, max_attempts=3)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    rx.script(503, 502, 500)
    roll(c, sid, ref)
    reqs = rx.wait_count(3)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["failed"] == 1,
                       what="failed=1 after max_attempts")
    dd = hooks[0]["delivery"]
    assert (dd["delivered"], dd["delivered_seq"], dd["last_status"]) == (0, 2, 500), hooks
    assert seqs_of(reqs) == [2, 2, 2]
    g1, g2 = reqs[1].t - reqs[0].t, reqs[2].t - reqs[1].t
    assert g1 >= 0.09 and g2 >= 0.19, \
        f"backoff {g1 * 1000:.0f} ms, {g2 * 1000:.0f} ms; want >= 100, 200 (retry_base_ms 100)"
    time.sleep(0.5)
    assert len(rx.requests) == 3, f"more than max_attempts=3 attempts: {rx.requests!r}"
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(1, 3, failed=1, last_status=200))
    assert seqs_of(rx.requests) == [2, 2, 2, 3]


def test_429_retry_after_is_honoured(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "discord"))
    rx.script(Reply(429, retry_after=1), 200)
    roll(c, sid, ref)
    rx.wait_count(1)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["state"] == "waiting_retry",
                       timeout=0.9, what="waiting_retry after a 429")
    dd = hooks[0]["delivery"]
    assert dd["last_status"] == 429 and dd["attempts"] == 1, hooks
    assert 500 <= dd["next_attempt_in_ms"] <= 1000, \
        f"Retry-After: 1 with retry_base_ms 100 should wait ~1000 ms: {hooks!r}"
    reqs = rx.wait_count(2)
    gap = reqs[1].t - reqs[0].t
    assert gap >= 0.95, f"retried {gap * 1000:.0f} ms after a 429 with Retry-After: 1"
    wait_hooks(c, sid, ref, settled(1, 2, last_status=200, failed=0))


def test_timeout_is_retried(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory, timeout_ms=1000)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    rx.script(HANG, 200)
    roll(c, sid, ref)
    reqs = rx.wait_count(2, timeout=WAIT)
    try:
        gap = reqs[1].t - reqs[0].t
        assert gap >= 0.95, f"a hung attempt was retried after {gap * 1000:.0f} ms " \
                            f"(timeout_ms 1000)"
        assert seqs_of(reqs) == [2, 2]
        hooks = wait_hooks(c, sid, ref, settled(1, 2, last_status=200, failed=0))
    finally:
        rx.release()
    assert hooks[0]["delivery"]["delivered"] == 1


def test_connection_error_waits_for_retry(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory, retry_base_ms=5000)
    sid, ref, _ = new_session(c)
    dead = WebhookReceiver()
    dead_url = dead.url("/gone")
    dead.close()         # nothing listens on that port now: connection refused
    set_hooks(c, sid, ref, (dead_url, "event"))
    roll(c, sid, ref)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["state"] == "waiting_retry",
                       what="waiting_retry after a refused connection")
    dd = hooks[0]["delivery"]
    assert dd["last_status"] is None, f"no HTTP status on a refused connection: {hooks!r}"
    assert dd["last_error"], f"last_error empty after a refused connection: {hooks!r}"
    assert dd["attempts"] == 1 and dd["pending"] == 1 and dd["delivered_seq"] == 1, hooks
    assert 3000 <= dd["next_attempt_in_ms"] <= 5000, hooks

    # the referee points the hook at a live receiver: it starts at the current version
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(1, 3, failed=0))
    assert seqs_of(rx.requests) == [3]


def test_queue_max_drops_the_oldest(daemon_factory, client_factory, rx):
    qmax = 5
    d, c = start(daemon_factory, client_factory, queue_max=qmax, timeout_ms=30000)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    rx.hang_all()
    try:
        for _ in range(20):
            roll(c, sid, ref)
        rx.wait_count(1)
    finally:
        rx.release()
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["delivered_seq"] == 21
                       and hs[0]["delivery"]["state"] == "idle", what="caught up to seq 21")
    dd = hooks[0]["delivery"]
    got = seqs_of(rx.requests)
    assert got == sorted(set(got)), f"out of order or repeated: {got}"
    assert got[0] == 2 and got[-1] == 21, got
    assert got[1:] == list(range(22 - len(got[1:]), 22)), \
        f"after the held event, not the newest contiguous run: {got}"
    assert len(got) <= qmax + 1, f"queue_max {qmax}, yet {len(got)} events sent: {got}"
    assert dd["pending"] == 0 and dd["failed"] == 0, hooks
    assert dd["delivered"] == len(got), hooks
    assert dd["dropped"] == 20 - len(got), f"dropped + delivered != 20: {hooks!r}"


# --------------------------------------------------------------------------- 3. allowlist

def test_host_not_allowed_is_refused_and_nothing_stored(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    for url in ("http://example.com/hook", "http://127.0.0.2:9/hook",
                f"http://localhost:{rx.port}/hook", "http://[::1]:9/hook",
                "http://127.0.0.1.nip.io/hook", "https://discord.com/api/webhooks/1/x"):
        r = put_hooks(c, sid, ref, [{"url": url, "format": "discord"}])
        assert_error(r, 422, "webhook_host_not_allowed")
        assert get_hooks(c, sid, ref) == [], f"{url}: stored although refused"
    keep = set_hooks(c, sid, ref, (rx.url("/ok"), "discord"))
    # URLs whose host is not 127.0.0.1 although "127.0.0.1" appears in them
    for url in ("http://example.com#@127.0.0.1/x", "http://example.com?@127.0.0.1/x",
                "http://127.0.0.1.example.com/x", "http://example.com/127.0.0.1",
                "http://example.com\\@127.0.0.1/x"):
        r = put_hooks(c, sid, ref, [{"url": url, "format": "discord"}])
        assert r.status in (400, 422), f"{url}: {r!r}"
        assert_error(r, r.status, "invalid_field" if r.status == 400 else
                     "webhook_host_not_allowed", field="webhooks[0].url")
        assert get_hooks(c, sid, ref) == keep, f"{url}: stored although refused"
    r = put_hooks(c, sid, ref, [{"url": rx.url("/ok2"), "format": "event"},
                                {"url": "http://example.com/x", "format": "event"}])
    err = assert_error(r, 422, "webhook_host_not_allowed")
    assert err["details"].get("field") == "webhooks[1].url", r
    assert get_hooks(c, sid, ref) == keep, "a refused PUT changed the list"


def test_default_allowlist_is_discord(daemon_factory, client_factory):
    d = daemon_factory(config_text="")      # no [webhooks] table: the built-in defaults
    c = client_factory(d)
    sid, ref, _ = new_session(c)
    for url in ("https://discord.com/api/webhooks/1/abc", "https://canary.discord.com/api/x",
                "https://discordapp.com/api/webhooks/2/def", "https://a.b.discordapp.com/x",
                "https://DISCORD.com/api/webhooks/3/ghi"):
        r = put_hooks(c, sid, ref, [{"url": url, "format": "discord"}])
        assert expect(r, 200)["webhooks"][0]["url"] == url, r
    for url in ("http://127.0.0.1:8080/x", "https://example.com/x", "https://notdiscord.com/x",
                "https://discord.com.evil.net/x", "https://evildiscord.com/x",
                "https://discord.co/x"):
        r = put_hooks(c, sid, ref, [{"url": url, "format": "discord"}])
        assert_error(r, 422, "webhook_host_not_allowed")
    r = put_hooks(c, sid, ref, [])
    assert expect(r, 200) == {"webhooks": []}


def test_wildcard_allow_hosts(daemon_factory, client_factory):
    d, c = start(daemon_factory, client_factory, allow_hosts="hooks.example.org, *.example.net")
    sid, ref, _ = new_session(c)
    for url in ("https://hooks.example.org/x", "https://a.example.net/x",
                "https://a.b.example.net/x"):
        expect(put_hooks(c, sid, ref, [{"url": url, "format": "event"}]), 200)
    for url in ("https://example.org/x", "https://other.example.org/x",
                "https://example.net/x", "https://aexample.net/x", "https://127.0.0.1/x"):
        r = put_hooks(c, sid, ref, [{"url": url, "format": "event"}])
        assert_error(r, 422, "webhook_host_not_allowed")
    expect(put_hooks(c, sid, ref, []), 200)


@pytest.mark.parametrize("allow_private", [False, True])
def test_localhost_name_and_inside_addresses(daemon_factory, client_factory, rx, allow_private):
    """allow_hosts names localhost (a name, not an IP literal): the PUT is accepted; with
    allow_private_addresses false the connection to 127.0.0.1/::1 is refused, nothing reaches
    the receiver and last_error says why; with true (the control) it is delivered."""
    d, c = start(daemon_factory, client_factory, allow_hosts="localhost",
                 allow_private_addresses=allow_private, max_attempts=2)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h", host="localhost"), "event"))
    roll(c, sid, ref)
    if allow_private:
        wait_hooks(c, sid, ref, settled(1, 2, failed=0))
        assert seqs_of(rx.requests) == [2]
        return
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["failed"] == 1,
                       what="failed=1 for a refused inside address")
    dd = hooks[0]["delivery"]
    assert dd["delivered"] == 0 and dd["last_status"] is None, hooks
    err = dd["last_error"] or ""
    assert re.search(r"address", err, re.I) and re.search(r"allow|private|inside|refus", err,
                                                          re.I), \
        f"last_error does not say the address is not allowed: {err!r}"
    time.sleep(0.3)
    assert rx.requests == [], f"a refused address was reached: {rx.requests!r}"


def test_an_ipv6_literal_listed_is_allowed(daemon_factory, client_factory):
    try:
        rx6 = WebhookReceiver(host="::1")
    except OSError as e:
        pytest.skip(f"no IPv6 loopback here: {e}")
    try:
        d, c = start(daemon_factory, client_factory, allow_hosts="::1")
        sid, ref, _ = new_session(c)
        url = rx6.url("/six")
        assert url.startswith("http://[::1]:")
        set_hooks(c, sid, ref, (url, "event"))
        assert_error(put_hooks(c, sid, ref, [{"url": f"http://127.0.0.1:{rx6.port}/x",
                                              "format": "event"}]),
                     422, "webhook_host_not_allowed")
        roll(c, sid, ref)
        wait_hooks(c, sid, ref, settled(1, 2, failed=0))
        assert seqs_of(rx6.requests) == [2]
    finally:
        rx6.close()


# --------------------------------------------------------------------------- 4. no slowdown

def test_a_hanging_receiver_never_slows_the_game(daemon_factory, client_factory, rx):
    timeout_ms = 30000
    d, c = start(daemon_factory, client_factory, timeout_ms=timeout_ms)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/slow"), "event"), )
    rx.hang_all()
    try:
        t0 = time.monotonic()
        answers = [c.roll(sid, ref, "2d6") for _ in range(30)]
        elapsed = time.monotonic() - t0
        assert all(a.status == 200 for a in answers)
        assert elapsed < 10.0, \
            f"30 actions took {elapsed:.1f} s while a webhook hung (timeout {timeout_ms} ms)"
        rx.wait_count(1)
        hooks = get_hooks(c, sid, ref)
        dd = hooks[0]["delivery"]
        assert dd["state"] == "sending" and dd["pending"] >= 29 and dd["delivered"] == 0, hooks
        assert dd["attempts"] == 1, hooks
        assert len(rx.requests) == 1, f"more than one request in flight: {rx.requests!r}"
        # the rest of the API answers too
        expect(c.get(f"/v1/sessions/{sid}/events?after=0&limit=5", token=ref), 200)
    finally:
        rx.release()
    wait_hooks(c, sid, ref, settled(30, 31, failed=0, dropped=0), what="caught up")
    assert seqs_of(rx.requests) == list(range(2, 32))


def test_sigterm_while_a_delivery_hangs(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory, timeout_ms=60000)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/slow"), "event"))
    rx.hang_all()
    roll(c, sid, ref)
    rx.wait_count(1)
    c.close()
    rc = d.stop()      # raises if not within the harness's STOP_TIMEOUT
    assert rc == 0, f"exit code {rc} on SIGTERM with a delivery in flight"
    assert d.last_stop_seconds < 11.0, \
        f"SIGTERM took {d.last_stop_seconds:.1f} s with a hung webhook (shutdown_timeout_ms 10 s)"


# --------------------------------------------------------------------------- 5. auth, validation

def test_auth(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, s = new_session(c, visibility="public")
    side = s["tokens"]["sides"]["red"]
    other_sid, other_ref, _ = new_session(c)
    hooks = [{"url": rx.url("/h"), "format": "event"}]
    assert_error(put_hooks(c, sid, side, hooks), 403, "forbidden")
    assert_error(put_hooks(c, sid, None, hooks), 401, "unauthorized")
    assert_error(put_hooks(c, sid, other_ref, hooks), 401, "unauthorized")
    assert_error(c.get(hooks_path(sid), token=side), 403, "forbidden")
    assert_error(c.get(hooks_path(sid), token=None), 401, "unauthorized")   # public session
    assert_error(c.get(hooks_path(sid), token=other_ref), 401, "unauthorized")
    missing = "0" * 32
    assert_error(put_hooks(c, missing, ref, hooks), 404, "session_not_found")
    assert_error(c.get(hooks_path(missing), token=ref), 404, "session_not_found")
    assert get_hooks(c, sid, ref) == []
    assert get_hooks(c, other_sid, other_ref) == []


def test_validation(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    keep = set_hooks(c, sid, ref, (rx.url("/keep"), "discord"))
    base = f"http://127.0.0.1:{rx.port}/"
    ok = {"url": base + "x", "format": "event"}

    cases = [
        ({}, "webhooks"),
        ({"webhooks": "x"}, "webhooks"),
        ({"webhooks": {"url": base}}, "webhooks"),
        ({"webhooks": [ok] * 9}, "webhooks"),
        ({"webhooks": [5]}, "webhooks[0]"),
        ({"webhooks": [{"format": "event"}]}, "webhooks[0].url"),
        ({"webhooks": [{"url": 7, "format": "event"}]}, "webhooks[0].url"),
        ({"webhooks": [{"url": "", "format": "event"}]}, "webhooks[0].url"),
        ({"webhooks": [{"url": f"ftp://127.0.0.1:{rx.port}/x", "format": "event"}]},
         "webhooks[0].url"),
        ({"webhooks": [{"url": f"127.0.0.1:{rx.port}/x", "format": "event"}]},
         "webhooks[0].url"),
        ({"webhooks": [{"url": "http:///x", "format": "event"}]}, "webhooks[0].url"),
        ({"webhooks": [{"url": f"http://u:p@127.0.0.1:{rx.port}/x", "format": "event"}]},
         "webhooks[0].url"),
        ({"webhooks": [{"url": f"http://u@127.0.0.1:{rx.port}/x", "format": "event"}]},
         "webhooks[0].url"),
        ({"webhooks": [{"url": base + "a" * (2049 - len(base)), "format": "event"}]},
         "webhooks[0].url"),
        ({"webhooks": [{"url": "http://127.0.0.1:99999/x", "format": "event"}]},
         "webhooks[0].url"),
        ({"webhooks": [{"url": f"http://127.0.0.1:{rx.port}/a b", "format": "event"}]},
         "webhooks[0].url"),
        ({"webhooks": [{"url": base + "x", "format": "xml"}]}, "webhooks[0].format"),
        ({"webhooks": [{"url": base + "x", "format": 3}]}, "webhooks[0].format"),
        ({"webhooks": [ok, {"url": "gopher://127.0.0.1/", "format": "event"}]},
         "webhooks[1].url"),
        ({"webhooks": [ok, ok, {"url": base + "x", "format": "Discord"}]},
         "webhooks[2].format"),
    ]
    wrong = []
    for body, field in cases:
        r = c.request("PUT", hooks_path(sid), body=body, token=ref)
        try:
            assert_error(r, 400, "invalid_field", field=field)
        except AssertionError:
            wrong.append(f"{json.dumps(body)[:160]} -> {r!r} (want 400 invalid_field {field})")
    assert not wrong, "bad PUT bodies not answered as they should:\n" + "\n".join(wrong)
    assert get_hooks(c, sid, ref) == keep, "a refused PUT changed the list"
    r = c.request("PUT", hooks_path(sid), raw='{"webhooks": [', token=ref)
    assert_error(r, 400, "invalid_json")
    r = c.request("PUT", hooks_path(sid), raw='{"webhooks": []}', token=ref, content_type=None)
    assert_error(r, 415, "unsupported_media_type")
    r = c.request("POST", hooks_path(sid), body={"webhooks": []}, token=ref)
    assert_error(r, 405, "method_not_allowed")
    allow = {m.strip() for m in (r.header("Allow") or "").split(",")}
    assert {"GET", "PUT"} <= allow, f"Allow: {r.header('Allow')!r}"
    assert get_hooks(c, sid, ref) == keep, "a refused PUT changed the list"

    # the limits themselves are accepted: 8 hooks, a 2048-byte URL, https
    eight = [{"url": base + str(i), "format": ("discord", "event")[i % 2]} for i in range(8)]
    got = expect(put_hooks(c, sid, ref, eight), 200)["webhooks"]
    assert [(h["url"], h["format"]) for h in got] == [(h["url"], h["format"]) for h in eight]
    assert len({h["id"] for h in got}) == 8
    long_url = base + "a" * (2048 - len(base))
    assert len(long_url.encode()) == 2048
    got = expect(put_hooks(c, sid, ref, [{"url": long_url, "format": "event"},
                                         {"url": f"https://127.0.0.1:{rx.port}/s",
                                          "format": "discord"}]), 200)["webhooks"]
    assert [h["url"] for h in got] == [long_url, f"https://127.0.0.1:{rx.port}/s"]
    assert get_hooks(c, sid, ref) == got


def test_put_is_not_an_event(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    roll(c, sid, ref)
    before = version_head(c, sid, ref)
    events_before, _ = c.events(sid, ref)
    set_hooks(c, sid, ref, (rx.url("/a"), "event"))
    set_hooks(c, sid, ref, (rx.url("/b"), "discord"), (rx.url("/c"), "event"))
    expect(put_hooks(c, sid, ref, []), 200)
    assert version_head(c, sid, ref) == before, "setting webhooks changed version/head"
    events_after, page = c.events(sid, ref)
    assert events_after == events_before
    assert (page["version"], page["head"]) == before
    r = expect(c.get(f"/v1/sessions/{sid}/verify", token=ref), 200)
    assert r["ok"] is True and r["head"] == before[1], r
    # the next action still expects the version before the PUTs
    r = c.roll(sid, ref, "1d6", expect_version=before[0])
    assert r.body["version"] == before[0] + 1


def test_the_list_survives_a_restart(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/d"), "discord"), (rx.url("/e"), "event"))
    roll(c, sid, ref)
    roll(c, sid, ref)
    before = wait_hooks(c, sid, ref, settled(2, 3))
    d.restart()
    after = get_hooks(c, sid, ref)
    assert [(h["url"], h["format"]) for h in after] == [(h["url"], h["format"]) for h in before]
    for h in after:
        fresh_delivery(h["delivery"], 3)
    time.sleep(0.3)
    assert len(rx.requests) == 4, f"events sent again after the restart: {rx.requests!r}"
    a = roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(1, 4, failed=0))
    assert seqs_of(rx.requests_to("/e")) == [2, 3, 4]
    assert rx.requests_to("/d")[-1].json() == {"content": discord_escaped(a["summary"]),
                                                "allowed_mentions": NO_PINGS}
    # and an empty list stays empty across a restart
    expect(put_hooks(c, sid, ref, []), 200)
    d.restart()
    assert get_hooks(c, sid, ref) == []


# --------------------------------------------------------------------------- more delivery

def test_2xx_other_than_200_is_delivered_and_closed_connections_retried(
        daemon_factory, client_factory, rx):
    """Discord answers 204 No Content; a receiver that drops the connection unanswered is a
    connection error, retried."""
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "discord"))
    rx.script(204)
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(1, 2, last_status=204, failed=0))
    rx.script(Reply(close=True), 200)
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(2, 3, last_status=200, failed=0))
    reqs = rx.requests
    assert [r.body for r in reqs[1:]] == [reqs[1].body] * 2 and len(reqs) == 3, reqs


def test_a_redirect_is_not_followed(daemon_factory, client_factory, rx):
    """A receiver answering 307 to a host the operator did not allow (localhost, while the
    allowlist names 127.0.0.1 only) must not get the daemon to call it."""
    d, c = start(daemon_factory, client_factory, max_attempts=2)
    sid, ref, _ = new_session(c)
    with WebhookReceiver() as inside:
        target = inside.url("/inside", host="localhost")
        rx.set_default(Reply(307, headers={"Location": target}))
        set_hooks(c, sid, ref, (rx.url("/h"), "event"))
        roll(c, sid, ref)
        rx.wait_count(1)
        wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["last_status"] == 307
                   and hs[0]["delivery"]["state"] != "sending", what="last_status 307")
        time.sleep(0.5)
        assert inside.requests == [], f"a redirect was followed: {inside.requests!r}"


def test_retry_after_and_backoff_are_capped_at_60_s(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory, retry_base_ms=60000)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/a"), "event"))
    rx.script(Reply(429, retry_after=3600), path="/a")
    roll(c, sid, ref)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["state"] == "waiting_retry",
                       what="waiting_retry after a 429")
    n = hooks[0]["delivery"]["next_attempt_in_ms"]
    assert 50000 <= n <= 60000, f"Retry-After 3600 / retry_base_ms 60000 not capped at 60 s: {n}"
    set_hooks(c, sid, ref, (rx.url("/b"), "event"))
    rx.script(500, path="/b")
    roll(c, sid, ref)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["state"] == "waiting_retry",
                       what="waiting_retry after a 500")
    n = hooks[0]["delivery"]["next_attempt_in_ms"]
    assert 50000 <= n <= 60000, f"backoff with retry_base_ms 60000 not capped at 60 s: {n}"
    # a Retry-After shorter than the backoff: the backoff wins
    set_hooks(c, sid, ref, (rx.url("/c"), "event"))
    rx.script(Reply(429, retry_after=1), path="/c")
    roll(c, sid, ref)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["state"] == "waiting_retry",
                       what="waiting_retry after a 429")
    n = hooks[0]["delivery"]["next_attempt_in_ms"]
    assert 50000 <= n <= 60000, f"Retry-After 1 beat a 60 s backoff: next attempt in {n} ms"
    expect(put_hooks(c, sid, ref, []), 200)


def test_hooks_are_independent(daemon_factory, client_factory, rx):
    """A hook whose receiver hangs does not hold back another hook, nor another session's."""
    d, c = start(daemon_factory, client_factory, timeout_ms=30000)
    sid, ref, _ = new_session(c)
    sid2, ref2, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/slow"), "event"), (rx.url("/fast"), "event"))
    set_hooks(c, sid2, ref2, (rx.url("/other"), "event"))
    rx.script(HANG, path="/slow")
    try:
        for _ in range(3):
            roll(c, sid, ref)
            roll(c, sid2, ref2)
        fast = rx.wait_count(3, path="/fast")
        other = rx.wait_count(3, path="/other")
        assert [r.json() for r in fast] == c.events(sid, ref)[0][1:4]
        assert [r.json() for r in other] == c.events(sid2, ref2)[0][1:4]
        hooks = get_hooks(c, sid, ref)
        assert hooks[0]["delivery"]["state"] == "sending", hooks
        assert len(rx.requests_to("/slow")) == 1
    finally:
        rx.release()
    wait_hooks(c, sid, ref, settled(3, 4))
    assert seqs_of(rx.requests_to("/slow")) == [2, 3, 4]


def test_concurrent_actions_are_delivered_once_in_order(daemon_factory, client_factory, rx):
    import threading
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/e"), "event"), (rx.url("/d"), "discord"))
    errors = []

    def worker():
        cc = Client(d)
        try:
            for _ in range(10):
                r = cc.roll(sid, ref, "1d20", expect=None)
                if r.status != 200:
                    errors.append(r)
        except Exception as e:   # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            cc.close()

    threads = [threading.Thread(target=worker) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors[:3]
    wait_hooks(c, sid, ref, settled(50, 51, failed=0, dropped=0), timeout=20)
    events, _ = c.events(sid, ref)
    assert [r.json() for r in rx.requests_to("/e")] == events[1:]
    assert [r.json()["content"] for r in rx.requests_to("/d")] == \
        [discord_escaped(e["data"]["summary"]) for e in events[1:]]


def test_replays_and_refused_actions_send_nothing(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    key = {"Idempotency-Key": "once"}
    a = c.roll(sid, ref, "2d6", headers=key).body
    b = c.roll(sid, ref, "2d6", headers=key)
    assert b.header("Idempotent-Replay") == "true" and b.body == a
    c.roll(sid, ref, "2d", expect=422)                    # invalid_notation
    c.roll(sid, ref, "2d6", expect=409, expect_version=1)  # version_conflict
    wait_hooks(c, sid, ref, settled(1, 2))
    time.sleep(0.3)
    assert seqs_of(rx.requests) == [2]


def test_replacing_the_list_while_a_delivery_hangs(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory, timeout_ms=30000)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/slow"), "event"))
    rx.hang_all()
    try:
        roll(c, sid, ref)
        rx.wait_count(1)
        assert get_hooks(c, sid, ref)[0]["delivery"]["state"] == "sending"
        expect(put_hooks(c, sid, ref, []), 200)
        assert get_hooks(c, sid, ref) == []
        hooks = set_hooks(c, sid, ref, (rx.url("/slow"), "event"))
        fresh_delivery(hooks[0]["delivery"], 2)
    finally:
        rx.release()
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(1, 3, failed=0))
    assert seqs_of(rx.requests) == [2, 3]


def test_a_receiver_speaking_garbage_is_retried(daemon_factory, client_factory, rx):
    import socket
    import threading
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port = srv.getsockname()[1]
    seen = []

    def serve():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            try:
                conn.settimeout(2)
                seen.append(conn.recv(65536))
                conn.sendall(b"HTTP/1.1 2oo OK\r\nContent-Length: -5\r\n\x00\x01\r\n\r\n" +
                             b"\xff" * 100)
            except OSError:
                pass
            finally:
                conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        d, c = start(daemon_factory, client_factory, max_attempts=2)
        sid, ref, _ = new_session(c)
        set_hooks(c, sid, ref, (f"http://127.0.0.1:{port}/g", "event"))
        roll(c, sid, ref)
        hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["failed"] == 1,
                           what="failed=1 after two garbage answers")
        dd = hooks[0]["delivery"]
        assert dd["delivered"] == 0 and dd["last_error"], hooks
        assert len(seen) == 2, f"attempts: {len(seen)}"
        set_hooks(c, sid, ref, (rx.url("/ok"), "event"))
        roll(c, sid, ref)
        wait_hooks(c, sid, ref, settled(1, 3))
    finally:
        srv.close()


def test_a_large_answer_body_is_fine(daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    rx.script(Reply(200, body=b"x" * (8 << 20)))
    roll(c, sid, ref)
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(2, 3, failed=0), timeout=20)


def test_restart_with_a_backlog_resumes_at_the_version_at_start_up(
        daemon_factory, client_factory, rx):
    d, c = start(daemon_factory, client_factory, timeout_ms=30000)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    rx.hang_all()
    try:
        for _ in range(3):
            roll(c, sid, ref)
        rx.wait_count(1)
        d.restart()
    finally:
        rx.release()
    hooks = get_hooks(c, sid, ref)
    assert len(hooks) == 1
    fresh_delivery(hooks[0]["delivery"], 4)
    roll(c, sid, ref)
    wait_hooks(c, sid, ref, settled(1, 5))
    assert seqs_of(rx.requests) == [2, 5], [r.target for r in rx.requests]


@pytest.mark.parametrize("line,key", [
    ("max_attempts = 0", "max_attempts"),
    ("timeout_ms = 0", "timeout_ms"),
    ("queue_max = 0", "queue_max"),
    ("retry_base_ms = -1", "retry_base_ms"),
    ('allow_private_addresses = "yes"', "allow_private_addresses"),
    ("allow_hosts = 5", "allow_hosts"),
    ("allow_host = \"x\"", "allow_host"),
])
def test_bad_webhooks_config_is_refused_at_start(line, key):
    d = Daemon(config=f"[webhooks]\n{line}\n")
    try:
        with pytest.raises(RuntimeError):
            d.start()
        assert not d.alive()
        err = d.stderr_text()
        assert key in err, f"start-up error does not name {key}: {err[-1500:]}"
        assert not d.sanitizer_findings(), err[-3000:]
    finally:
        d.cleanup()


def test_hanging_receivers_do_not_starve_other_sessions(daemon_factory, client_factory, rx):
    """72 hooks (9 sessions of 8) whose receiver hangs must not hold back the webhook of a
    tenth session, to another host: each hook has its own request in flight, and the hanging
    host holds at most its share of the slots (webhooks.max_slots_per_host, 64 by default;
    tests/hostile/test_webhook_shares.py has more hooks than slots)."""
    d, c = start(daemon_factory, client_factory, timeout_ms=30000,
                 allow_hosts="127.0.0.1,127.0.0.2")
    with WebhookReceiver(host="127.0.0.2") as slow:
        slow.hang_all()
        try:
            for i in range(9):
                sid, ref, _ = new_session(c)
                hooks = [{"url": slow.url(f"/s{i}/{j}"), "format": "event"} for j in range(8)]
                expect(put_hooks(c, sid, ref, hooks), 200)
                roll(c, sid, ref)
            slow.wait_count(8)
            sid, ref, _ = new_session(c)
            set_hooks(c, sid, ref, (rx.url("/fast"), "event"))
            roll(c, sid, ref)
            rx.wait_count(1, timeout=WAIT)
            wait_hooks(c, sid, ref, settled(1, 2))
        finally:
            slow.release()


# --------------------------------------------------------------------------- review regressions

def test_huge_retry_after_is_clamped(daemon_factory, client_factory, rx):
    """A Retry-After past any integer is clamped before arithmetic (it once overflowed a signed
    multiplication, which UBSan reports and the sanitizer build dies of); the wait stays within
    the 60 s cap."""
    rx.set_default(Reply(status=429, retry_after="99999999999999999999"))
    d, c = start(daemon_factory, client_factory)
    sid, ref, _ = new_session(c)
    set_hooks(c, sid, ref, (rx.url("/h"), "event"))
    roll(c, sid, ref)
    hooks = wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["state"] == "waiting_retry")
    assert 0 <= hooks[0]["delivery"]["next_attempt_in_ms"] <= 60000, hooks
    assert hooks[0]["delivery"]["last_status"] == 429
    assert d.alive()


def test_dropping_events_resets_attempts(daemon_factory, client_factory):
    """When queue_max skips events while a hook waits to retry, the event it moves on to gets
    all of its attempts (it once inherited the skipped event's count)."""
    with WebhookReceiver(default=500) as rx:
        d, c = start(daemon_factory, client_factory, queue_max=2, max_attempts=3,
                     retry_base_ms=600)
        sid, ref, _ = new_session(c)
        set_hooks(c, sid, ref, (rx.url("/h"), "event"))
        roll(c, sid, ref)                      # event 2: attempt 1 fails, waits 0.6 s
        rx.wait_count(1)
        for _ in range(4):                     # events 3..6 while it waits: 2..4 are dropped
            roll(c, sid, ref)
        wait_hooks(c, sid, ref, lambda hs: hs[0]["delivery"]["failed"] >= 1, timeout=20,
                   what="the first kept event given up")
        seqs = [r.json()["seq"] for r in rx.requests_to("/h")]
        first_kept = seqs[1]
        assert first_kept == 5, seqs           # 2 was tried, then 3 and 4 were dropped
        assert seqs.count(first_kept) == 3, seqs  # max_attempts for it, not what 2 left over


SLOW_DNS_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <string.h>
#include <unistd.h>
typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res) {
    gai_fn real = (gai_fn)dlsym(RTLD_NEXT, "getaddrinfo");
    if (node && strstr(node, "slow.test")) {
        sleep(3);
        return real("127.0.0.1", service, hints, res);
    }
    return real(node, service, hints, res);
}
"""


def test_a_slow_name_lookup_never_blocks_the_loop(daemon_factory, client_factory, rx, tmp_path):
    """curl resolves names in a thread; ending a transfer whose lookup still runs (a timeout,
    a replaced list) once waited for that thread on the loop thread, freezing every client for
    the lookup's duration. With CURLOPT_QUICK_EXIT it does not wait. getaddrinfo is made slow
    (3 s for slow.test) with an LD_PRELOAD shim."""
    import os
    import shutil
    import subprocess
    if not shutil.which("cc"):
        pytest.skip("no C compiler for the DNS shim")
    src, so = tmp_path / "slowdns.c", tmp_path / "slowdns.so"
    src.write_text(SLOW_DNS_SHIM)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(src), "-ldl"], check=True)
    old = {k: os.environ.get(k) for k in ("LD_PRELOAD", "ASAN_OPTIONS")}
    os.environ["LD_PRELOAD"] = str(so)
    os.environ["ASAN_OPTIONS"] = (old["ASAN_OPTIONS"] + ":" if old["ASAN_OPTIONS"] else "") + \
        "verify_asan_link_order=0"
    try:
        d, c = start(daemon_factory, client_factory, allow_hosts="slow.test",
                     allow_private_addresses=True, timeout_ms=1000, max_attempts=1)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    sid, ref, _ = new_session(c)
    port = rx.url().split(":")[2].split("/")[0]
    set_hooks(c, sid, ref, (f"http://slow.test:{port}/h", "event"))
    roll(c, sid, ref)                      # the delivery starts resolving slow.test
    time.sleep(0.2)
    t0 = time.monotonic()
    expect(put_hooks(c, sid, ref, []), 200)  # removes the hook mid-lookup
    replace_s = time.monotonic() - t0
    set_hooks(c, sid, ref, (f"http://slow.test:{port}/h", "event"))
    roll(c, sid, ref)
    time.sleep(1.3)                        # timeout_ms passes while the lookup runs
    t0 = time.monotonic()
    expect(c.get("/v1/health"), 200)
    health_s = time.monotonic() - t0
    # Both were 3-5 s when the loop waited for the resolver; well under a second now.
    assert replace_s < 1.5 and health_s < 1.5, (replace_s, health_s)


def test_max_total_bounds_hooks_over_all_sessions(daemon_factory, client_factory, rx):
    """Anyone may create sessions, so the total number of hooks has a bound: a PUT that would
    pass webhooks.max_total gets 503 webhooks_full and stores nothing; replacing a session's
    own hooks counts them only once."""
    d, c = start(daemon_factory, client_factory, max_total=10)
    s1, r1, _ = new_session(c)
    s2, r2, _ = new_session(c)
    set_hooks(c, s1, r1, *[(rx.url(f"/a{i}"), "event") for i in range(8)])
    r = put_hooks(c, s2, r2, [{"url": rx.url(f"/b{i}"), "format": "event"} for i in range(3)])
    err = assert_error(r, 503, "webhooks_full")
    assert err["details"]["limit"] == 10
    assert get_hooks(c, s2, r2) == []
    # A capacity answer, expected here: not the "bad input got a 5xx" the teardown refuses.
    d.responses.remove(("PUT", hooks_path(s2), 503))
    set_hooks(c, s2, r2, *[(rx.url(f"/b{i}"), "event") for i in range(2)])   # 8 + 2 = 10
    set_hooks(c, s1, r1, *[(rx.url(f"/a{i}"), "event") for i in range(8)])   # replaces its 8
    expect(put_hooks(c, s1, r1, []), 200)
    set_hooks(c, s2, r2, *[(rx.url(f"/b{i}"), "event") for i in range(8)])
