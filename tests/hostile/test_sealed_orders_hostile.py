"""Sealed orders as a hostile side would use them (issue 24, item 1; issue 22's bounds): the
orders routes share the actions' rate per client, a seal holds one private row per side however
often it is replaced, the session's event bound refuses a seal before anything is written, and
a body over the bounds is refused unread. Ordinary traffic on another session, from another
client, gets through throughout."""

import json
import sqlite3

from hostile_util import wait_until
from test_client_limits import PROXIED, request, xff
from umpire_client import REPO_ROOT

BATS = json.loads((REPO_ROOT / "scenarios" / "magic-realm-bats-at-the-crag.json").read_text())
PLAY = {"type": "play", "unit": "bat-1", "box": "thrust", "target": "white-knight"}
ATTACKER, ORDINARY = "198.51.100.7", "203.0.113.9"


def sealed_session(port, source_hop):
    body = json.loads(json.dumps(BATS["session"]))
    body["setup"]["turn"] = {"sealed": True}
    status, _, made = request(port, "POST", "/v1/sessions", body, xff(source_hop))
    assert status == 201, made
    return made["session"]["id"], made["tokens"]


def seal(port, sid, token, orders, hop):
    return request(port, "PUT", f"/v1/sessions/{sid}/orders/plays", {"orders": orders},
                   {"Authorization": f"Bearer {token}", **xff(hop)})


def rows(d, sid):
    db = sqlite3.connect(d.db)
    try:
        return db.execute("SELECT count(*) FROM sealed_orders WHERE session_id = ?",
                          (sid,)).fetchone()[0]
    finally:
        db.close()


def test_a_flood_of_seals_is_rate_limited_and_holds_one_row(hostile):
    d = hostile(limits={**PROXIED, "actions_per_minute": 600, "actions_burst": 8})
    sid, tok = sealed_session(d.port, ATTACKER)
    monsters = tok["sides"]["monsters"]
    other, otok = sealed_session(d.port, ORDINARY)
    flood = [seal(d.port, sid, monsters, [PLAY] * 32, ATTACKER)[0] for _ in range(12)]
    assert flood[:8] == [200] * 8 and 429 in flood[8:], flood
    # However often it was replaced, the seal is one private row; the chain has one event each.
    assert rows(d, sid) == 1
    _, _, s = request(d.port, "GET", f"/v1/sessions/{sid}",
                      headers={"Authorization": f"Bearer {tok['referee']}"})
    assert s["session"]["version"] == 1 + flood.count(200)
    # Another client, on another session, seals and is answered throughout.
    status, _, a = seal(d.port, other, otok["sides"]["knight"], [], ORDINARY)
    assert status == 200 and a["revealed"] is False
    # The attacker's bucket refills: 600 a minute.
    assert wait_until(lambda: seal(d.port, sid, monsters, [PLAY], ATTACKER)[0] == 200, 5, step=0.2)


def test_the_event_bound_refuses_a_seal_before_writing(hostile):
    d = hostile(limits={**PROXIED, "max_events_per_session": 4})
    sid, tok = sealed_session(d.port, ATTACKER)
    monsters = tok["sides"]["monsters"]
    got = [seal(d.port, sid, monsters, [PLAY], ATTACKER) for _ in range(5)]
    assert [g[0] for g in got[:3]] == [200, 200, 200]
    status, _, body = got[3]
    assert status == 422 and body["error"]["code"] == "session_full", body
    _, _, s = request(d.port, "GET", f"/v1/sessions/{sid}",
                      headers={"Authorization": f"Bearer {tok['referee']}"})
    assert s["session"]["version"] == 4 and rows(d, sid) == 1
    other, otok = sealed_session(d.port, ORDINARY)
    assert seal(d.port, other, otok["sides"]["knight"], [], ORDINARY)[0] == 200


def test_oversized_orders_are_refused_unread(hostile):
    d = hostile(limits=PROXIED, server={"max_body_bytes": 16384})
    sid, tok = sealed_session(d.port, ATTACKER)
    monsters = tok["sides"]["monsters"]
    status, _, body = seal(d.port, sid, monsters, [PLAY] * 33, ATTACKER)
    assert status == 400 and body["error"]["code"] == "invalid_field", body
    padded = [dict(PLAY, target="x" * 20000)]
    status, _, body = seal(d.port, sid, monsters, padded, ATTACKER)
    assert status == 413, body
    assert rows(d, sid) == 0
    _, _, s = request(d.port, "GET", f"/v1/sessions/{sid}",
                      headers={"Authorization": f"Bearer {tok['referee']}"})
    assert s["session"]["version"] == 1
