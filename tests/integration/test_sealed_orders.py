"""magic-realm's sealed orders (issue 24, item 1): with `setup.turn.sealed` a side's plays of a
round are sealed (PUT /v1/sessions/{id}/orders/plays: a salted SHA-256 commitment in the chain,
never the orders), revealed and resolved together when the last acting side seals or the referee
closes the step; the reveal is checked against each side's commitment by /verify and by the
offline verifier. Bats at the Crag with seeded dice (every die can be recomputed)."""
import hashlib
import json
from pathlib import Path

from audit_helpers import SSEClient, export_jsonl, get_verify, parse_jsonl, run_verifier, tamper
from umpire_client import assert_error, expect
from umpire_ref import HEX64, die, event_hash, jcs, verify_chain

REPO = Path(__file__).resolve().parents[2]
BATS = json.loads((REPO / "scenarios" / "magic-realm-bats-at-the-crag.json").read_text())
SEED = BATS["session"]["dice"]["seed"]

# Distinctive choices: neither "duck" nor "smash" appears in the setup, so before the reveal
# they must be nowhere a reader can see.
KNIGHT = [{"type": "play", "unit": "white-knight", "maneuver": {"name": "Move H4**", "box": "duck"},
           "attacks": [{"name": "Great Sword, F H5*", "box": "thrust", "target": "bat-2"}]}]
KNIGHT_AGAIN = [{"type": "play", "unit": "white-knight",
                 "maneuver": {"name": "Move H6", "box": "dodge"},
                 "attacks": [{"name": "Great Sword, F H6", "box": "swing", "target": "bat-1"}]}]
MONSTERS = [{"type": "play", "unit": "bat-1", "box": "swing", "target": "white-knight"},
            {"type": "play", "unit": "bat-2", "box": "smash", "target": "white-knight"}]
SECRETS = ("duck", "smash")
SEALED_KEYS = {"commitment", "side", "step", "turn"}


def create(umpire, sealed=True, turn=None, sides=None):
    body = json.loads(json.dumps(BATS["session"]))
    if sealed:
        body["setup"]["turn"] = dict(turn or {}, sealed=True)
    if sides is not None:
        body["sides"] = sides
    r = umpire.post("/v1/sessions", body)
    assert r.status == 201, r
    return r.body["session"]["id"], r.body["tokens"]


def seal(umpire, sid, token, orders, step="plays", **extra):
    body = dict(extra, orders=orders)
    return umpire.request("PUT", f"/v1/sessions/{sid}/orders/{step}", body=body, token=token)


def close(umpire, sid, token, body=None):
    return umpire.post(f"/v1/sessions/{sid}/orders/plays/close", {} if body is None else body,
                       token=token)


def commitment(salt, orders):
    """SHA-256 of the 32 salt bytes then the canonical JSON of the orders as recorded."""
    return hashlib.sha256(bytes.fromhex(salt) + jcs(orders).encode("utf-8")).hexdigest()


def sealed_ok(umpire, sid, token, orders, **extra):
    """A seal that must be taken: its answer, checked against the contract."""
    ans = expect(seal(umpire, sid, token, orders, **extra), 200)
    assert HEX64.match(ans["salt"]), ans
    assert HEX64.match(ans["commitment"]), ans
    assert ans["step"] == "plays"
    assert [(o["type"], o["unit"]) for o in ans["orders"]] == \
        [(o["type"], o["unit"]) for o in orders], ans
    assert ans["commitment"] == commitment(ans["salt"], ans["orders"])
    assert ans["events"][0]["type"] == "orders_sealed", ans
    assert ans["head"] == ans["events"][-1]["hash"]
    assert ans["version"] == ans["events"][-1]["seq"]
    assert isinstance(ans["revealed"], bool)
    if ans["revealed"]:
        assert [e["type"] for e in ans["events"]] == ["orders_sealed", "orders_revealed"], ans
        assert isinstance(ans["result"], dict) and ans["summary"], ans
    else:
        assert len(ans["events"]) == 1 and "result" not in ans and "summary" not in ans, ans
    return ans


def session(umpire, sid, token=None):
    r = umpire.get(f"/v1/sessions/{sid}", token=token)
    assert r.status == 200, r
    return r.body


def events(umpire, sid, token):
    evs, page = umpire.events(sid, token=token)
    verify_chain(evs, head=page["head"])
    return evs


def of_type(evs, kind):
    return [e for e in evs if e["type"] == kind]


def keys_in(value):
    """Every member name anywhere in a JSON value."""
    if isinstance(value, dict):
        out = set(value)
        for v in value.values():
            out |= keys_in(v)
        return out
    if isinstance(value, list):
        out = set()
        for v in value:
            out |= keys_in(v)
        return out
    return set()


def assert_orders_hidden(evs, where):
    """No play choice in any event after the creation (its setup names the kit)."""
    for ev in evs:
        if ev["type"] == "session_created":
            continue
        assert not keys_in(ev["data"]) & {"maneuver", "attacks", "box", "orders", "salt"}, \
            f"{where}: event {ev['seq']} {ev['type']} shows sealed orders: {ev['data']!r}"


def sealed_data(ev):
    """An orders_sealed event's data without its summary (the campaign log's line, which may
    ride along but says nothing of the orders): commitment, side, step, turn."""
    data = dict(ev["data"])
    summary = data.pop("summary", "")
    assert isinstance(summary, str) and not any(w in summary for w in SECRETS), ev
    assert "salt" not in summary, ev
    return data


def check_revealed(reveal, seals):
    """reveal: the orders_revealed event; seals: {side: latest seal answer}. Each side's salt and
    actions are its latest commitment's."""
    data = reveal["data"]
    assert set(data) == {"action", "dice", "result", "ruleset_version", "summary"}, data
    action = data["action"]
    assert action["type"] == "orders_revealed" and action["step"] == "plays", action
    by_side = {o["side"]: o for o in action["orders"]}
    assert len(by_side) == len(action["orders"]), action
    for side, ans in seals.items():
        got = by_side[side]
        assert got["salt"] == ans["salt"], (side, got)
        assert got["actions"] == ans["orders"], (side, got)
        assert commitment(got["salt"], got["actions"]) == ans["commitment"], side
    return action


def test_without_sealed_plays_stay_open(umpire):
    sid, tok = create(umpire, sealed=False)
    play = dict(BATS["actions"][1])
    play.pop("as")
    r = umpire.post(f"/v1/sessions/{sid}/actions", play, token=tok["sides"]["knight"])
    assert r.status == 200, r
    assert_error(seal(umpire, sid, tok["sides"]["knight"], KNIGHT), 409, "no_sealed_step")
    assert_error(close(umpire, sid, tok["referee"]), 409, "no_sealed_step")
    assert umpire.session(sid, token=tok["referee"])["version"] == 2
    assert not of_type(events(umpire, sid, tok["referee"]), "orders_sealed")


def test_sealed_plays_refuse_open_actions(umpire):
    """setup.turn carries order beside sealed; play, run and end_phase, the referee's too: 409
    orders_sealed before any die, nothing written."""
    sid, tok = create(umpire, turn={"order": ["monsters", "knight"]})
    st = session(umpire, sid, tok["referee"])
    assert st["state"]["turn"]["order"] == ["monsters", "knight"]
    assert st["state"]["turn"]["phase"] == "plays" and st["state"]["turn"]["number"] == 1
    run = dict(BATS["actions"][0])
    run.pop("as")
    knight, monsters, ref = tok["sides"]["knight"], tok["sides"]["monsters"], tok["referee"]
    tries = [(knight, KNIGHT[0]), (knight, run), (knight, {"type": "end_phase"}),
             (monsters, MONSTERS[1]), (monsters, {"type": "end_phase"}),
             (ref, KNIGHT[0]), (ref, run), (ref, {"type": "end_phase"})]
    for token, body in tries:
        r = umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)
        assert_error(r, 409, "orders_sealed")
    st = session(umpire, sid, ref)
    assert st["session"]["version"] == 1 and st["session"]["dice"]["next_nonce"] == 1
    assert "plays" not in st["state"]


def test_a_seal_writes_a_commitment_and_nothing_else(umpire):
    sid, tok = create(umpire)
    ref = tok["referee"]
    ans = sealed_ok(umpire, sid, tok["sides"]["knight"], KNIGHT)
    assert ans["revealed"] is False and ans["version"] == 2
    assert ans["orders"][0]["maneuver"]["name"] == "Move H4**"
    evs = events(umpire, sid, ref)
    assert [e["type"] for e in evs] == ["session_created", "orders_sealed"]
    ev = evs[1]
    assert ev["actor"] == "side:knight" and ev["hash"] == ans["head"]
    assert sealed_data(ev) == {"commitment": ans["commitment"], "side": "knight",
                               "step": "plays", "turn": 1}
    assert ans["events"] == [{"hash": ev["hash"], "seq": 2, "type": "orders_sealed"}]
    st = session(umpire, sid, ref)
    assert st["state"]["turn"]["done"] == ["knight"]
    assert st["state"]["turn"]["phase"] == "plays" and st["state"]["turn"]["number"] == 1
    assert st["session"]["dice"]["next_nonce"] == 1          # no die before the reveal
    assert "plays" not in st["state"]


def test_nobody_reads_sealed_orders_before_the_reveal(umpire, tmp_path):
    sid, tok = create(umpire)
    ref, knight, monsters = tok["referee"], tok["sides"]["knight"], tok["sides"]["monsters"]
    port = umpire.daemon.port
    streams = [SSEClient(port, f"/v1/sessions/{sid}/events?after=0", token=t)
               for t in (ref, monsters)]
    try:
        for s in streams:
            assert s.status == 200, s.body_prefix
        ans = sealed_ok(umpire, sid, knight, KNIGHT)
        salt = ans["salt"]
        raws = []
        for who, t in (("referee", ref), ("knight", knight), ("monsters", monsters),
                       ("anonymous", None)):
            r = umpire.get(f"/v1/sessions/{sid}", token=t)
            assert r.status == 200, (who, r)
            assert "plays" not in r.body["state"], who
            assert r.body["state"]["turn"]["done"] == ["knight"], who
            raws.append((f"GET session as {who}", r.raw))
            r = umpire.get(f"/v1/sessions/{sid}/events", token=t)
            assert r.status == 200, (who, r)
            assert [e["type"] for e in r.body["events"]] == ["session_created", "orders_sealed"]
            assert_orders_hidden(r.body["events"], f"events as {who}")
            raws.append((f"GET events as {who}", r.raw))
        _, jsonl = export_jsonl(umpire, sid, ref, tmp_path)
        lines = parse_jsonl(jsonl)
        assert [e["type"] for e in lines] == ["session_created", "orders_sealed"]
        assert_orders_hidden(lines, "jsonl log")
        raws.append(("jsonl log", jsonl))
        for fmt in ("markdown", "html"):
            r = umpire.get(f"/v1/sessions/{sid}/log?format={fmt}", token=ref)
            assert r.status == 200, r
            raws.append((f"{fmt} log", r.raw))
        for s in streams:
            msgs = s.wait_seq(2, 10.0)
            assert [m.get("event") for m in msgs] == ["session_created", "orders_sealed"], msgs
            sse = s.events()
            assert sse == lines
            raws.append(("SSE", "\n".join(m["raw_data"] for m in msgs).encode("utf-8")))
        for where, raw in raws:
            text = raw.decode("utf-8")
            assert salt not in text, f"{where} shows the salt"
            for word in SECRETS:
                assert word not in text, f"{where} shows the sealed choice {word!r}"
    finally:
        for s in streams:
            s.close()


def test_refused_orders_name_the_item_and_write_nothing(umpire):
    sid, tok = create(umpire)
    knight = tok["sides"]["knight"]
    bad = dict(KNIGHT[0], attacks=[{"name": "Broadsword, F M4**", "box": "swing",
                                    "target": "bat-1"}])
    err = assert_error(seal(umpire, sid, knight, [KNIGHT_AGAIN[0], bad]), 422, "invalid_orders")
    assert err["details"]["index"] == 1, err
    inner = err["details"]["error"]
    assert inner["code"] == "not_in_kit", err
    assert "Great Sword, F H6" in inner["details"]["attacks"], err
    err = assert_error(seal(umpire, sid, knight, [bad]), 422, "invalid_orders")
    assert err["details"]["index"] == 0 and err["details"]["error"]["code"] == "not_in_kit"
    bad_maneuver = dict(KNIGHT[0], maneuver={"name": "Move L2", "box": "duck"})
    err = assert_error(seal(umpire, sid, knight, [bad_maneuver]), 422, "invalid_orders")
    assert err["details"]["index"] == 0 and err["details"]["error"]["code"] == "not_in_kit"
    st = session(umpire, sid, tok["referee"])
    assert st["session"]["version"] == 1
    assert not st["state"]["turn"].get("done")


def test_malformed_orders_are_invalid_fields(umpire):
    sid, tok = create(umpire)
    monsters = tok["sides"]["monsters"]
    for orders in ("play", {"type": "play"}, 7, None, [MONSTERS[0]] * 33, [MONSTERS[0], 5],
                   ["play"], [[MONSTERS[0]]]):
        err = assert_error(seal(umpire, sid, monsters, orders), 400, "invalid_field")
        assert err["details"]["field"].startswith("orders"), (orders, err)
    r = umpire.request("PUT", f"/v1/sessions/{sid}/orders/plays", body={}, token=monsters)
    assert_error(r, 400, "invalid_field", "orders")
    assert umpire.session(sid, token=tok["referee"])["version"] == 1
    # 32 is the most: the same play 32 times is taken (each replaces the one before)
    ans = sealed_ok(umpire, sid, monsters, [MONSTERS[0]] * 32)
    assert len(ans["orders"]) == 32


def test_who_may_seal_which_step(umpire):
    sid, tok = create(umpire, sides=["knight", "monsters", "onlooker"])
    ref, knight = tok["referee"], tok["sides"]["knight"]
    assert_error(seal(umpire, sid, ref, KNIGHT), 403, "forbidden")
    assert_error(seal(umpire, sid, knight, KNIGHT, step="resolution"), 409, "wrong_step")
    # the onlooker has no unit in this fight: it has nothing to seal
    err = assert_error(seal(umpire, sid, tok["sides"]["onlooker"], []), 409, "not_your_turn")
    assert "onlooker" not in err["details"].get("acting", [])
    err = assert_error(seal(umpire, sid, knight, KNIGHT, expect_version=5), 409,
                       "version_conflict")
    assert err["details"]["actual"] == 1, err
    assert umpire.session(sid, token=ref)["version"] == 1
    ans = sealed_ok(umpire, sid, knight, KNIGHT, expect_version=1)
    assert ans["version"] == 2
    # the onlooker does not hold up the reveal: the two sides in the fight complete it
    done = sealed_ok(umpire, sid, tok["sides"]["monsters"], MONSTERS)
    assert done["revealed"] is True


def test_the_last_seal_reveals_and_resolves_the_round(umpire):
    sid, tok = create(umpire)
    ref = tok["referee"]
    first = sealed_ok(umpire, sid, tok["sides"]["knight"], KNIGHT)
    assert first["revealed"] is False
    last = sealed_ok(umpire, sid, tok["sides"]["monsters"], MONSTERS)
    assert last["revealed"] is True and last["version"] == 4
    evs = events(umpire, sid, ref)
    assert [e["type"] for e in evs] == ["session_created", "orders_sealed", "orders_sealed",
                                        "orders_revealed"]
    assert evs[2]["actor"] == "side:monsters"
    assert sealed_data(evs[2]) == {"commitment": last["commitment"], "side": "monsters",
                                   "step": "plays", "turn": 1}
    reveal = evs[3]
    assert reveal["actor"] == "side:monsters"
    assert [{"hash": e["hash"], "seq": e["seq"], "type": e["type"]} for e in evs[2:]] == \
        last["events"]
    action = check_revealed(reveal, {"knight": first, "monsters": last})
    assert action["turn"] == 1
    assert {o["side"] for o in action["orders"]} == {"knight", "monsters"}
    assert reveal["data"]["result"] == last["result"]
    assert reveal["data"]["summary"] == last["summary"]
    # the plays were applied and their round resolved: the dice roll only now, from the seed
    dice = reveal["data"]["dice"]
    assert dice, reveal["data"]
    nonce = 1
    for d in dice:
        assert d["nonce"] == nonce, d
        assert d["values"] == [die(SEED, sid, nonce + i, 6) for i in range(len(d["values"]))]
        nonce += len(d["values"])
    result = json.dumps(reveal["data"]["result"])
    assert "smash" in result and "bat-2" in result      # bat-2's sealed smash was played
    st = session(umpire, sid, ref)
    assert st["session"]["dice"]["next_nonce"] == nonce
    turn = st["state"]["turn"]
    assert turn["number"] == 2 and turn["phase"] == "plays", turn
    assert not turn.get("done"), turn
    assert "plays" not in st["state"]
    rep = get_verify(umpire, sid, ref)
    assert rep["ok"] is True and rep["events"] == 4, rep


def test_a_side_may_seal_again_before_the_reveal(umpire):
    sid, tok = create(umpire)
    ref, knight = tok["referee"], tok["sides"]["knight"]
    a = sealed_ok(umpire, sid, knight, KNIGHT)
    b = sealed_ok(umpire, sid, knight, KNIGHT_AGAIN)
    assert a["salt"] != b["salt"] and a["commitment"] != b["commitment"]
    assert b["revealed"] is False and b["version"] == 3
    assert session(umpire, sid, ref)["state"]["turn"]["done"] == ["knight"]
    evs = events(umpire, sid, ref)
    assert [e["data"]["commitment"] for e in of_type(evs, "orders_sealed")] == \
        [a["commitment"], b["commitment"]]
    # the monsters make no plays: an empty list is sealed too, and completes the step
    m = sealed_ok(umpire, sid, tok["sides"]["monsters"], [])
    assert m["orders"] == [] and m["revealed"] is True
    reveal = of_type(events(umpire, sid, ref), "orders_revealed")
    assert len(reveal) == 1
    action = check_revealed(reveal[0], {"knight": b, "monsters": m})
    got = next(o for o in action["orders"] if o["side"] == "knight")
    assert commitment(got["salt"], got["actions"]) != a["commitment"]
    assert "duck" not in json.dumps(action)                  # the replaced orders stay unsaid
    assert get_verify(umpire, sid, ref)["ok"] is True


def test_the_referee_closes_the_step(umpire):
    """The knight seals a dodge and no attack, the monsters nothing: the referee's close reveals
    the knight's play, the Bats make none, and the round (nobody attacks) ends."""
    sid, tok = create(umpire)
    ref = tok["referee"]
    k = sealed_ok(umpire, sid, tok["sides"]["knight"], [dict(KNIGHT[0], attacks=[])])
    assert_error(close(umpire, sid, tok["sides"]["monsters"]), 403, "forbidden")
    assert_error(close(umpire, sid, tok["sides"]["knight"]), 403, "forbidden")
    assert_error(close(umpire, sid, ref, {"expect_version": 1}), 409, "version_conflict")
    assert umpire.session(sid, token=ref)["version"] == 2
    ans = expect(close(umpire, sid, ref, {"expect_version": 2}), 200)
    assert ans["version"] == 3 and ans["events"][-1]["type"] == "orders_revealed", ans
    assert ans["result"] and ans["summary"]
    evs = events(umpire, sid, ref)
    reveal = evs[-1]
    assert reveal["type"] == "orders_revealed" and reveal["actor"] == "referee"
    action = check_revealed(reveal, {"knight": k})
    # the monsters sealed nothing: they make no plays
    for o in action["orders"]:
        if o["side"] == "monsters":
            assert not o.get("actions") and "salt" not in o, o
    assert "smash" not in json.dumps(reveal["data"])
    turn = session(umpire, sid, ref)["state"]["turn"]
    assert turn["number"] == 2 and turn["phase"] == "plays" and not turn.get("done"), turn
    assert get_verify(umpire, sid, ref)["ok"] is True


def test_after_the_reveal_the_next_round_is_sealed_afresh(umpire):
    sid, tok = create(umpire)
    ref, knight = tok["referee"], tok["sides"]["knight"]
    sealed_ok(umpire, sid, knight, KNIGHT)
    sealed_ok(umpire, sid, tok["sides"]["monsters"], MONSTERS)
    before = events(umpire, sid, ref)
    old = of_type(before, "orders_sealed")
    # round 2's plays are sealed too
    assert_error(umpire.post(f"/v1/sessions/{sid}/actions", KNIGHT_AGAIN[0], token=knight), 409,
                 "orders_sealed")
    again = sealed_ok(umpire, sid, knight, KNIGHT_AGAIN)
    assert again["revealed"] is False
    after = events(umpire, sid, ref)
    assert after[:len(before)] == before                      # the old seals stand as they were
    new = after[len(before):]
    assert [e["type"] for e in new] == ["orders_sealed"]
    assert sealed_data(new[0]) == {"commitment": again["commitment"], "side": "knight",
                                   "step": "plays", "turn": 2}
    assert [e["data"]["turn"] for e in old] == [1, 1]
    assert session(umpire, sid, ref)["state"]["turn"]["done"] == ["knight"]
    assert get_verify(umpire, sid, ref)["ok"] is True


def played(umpire):
    sid, tok = create(umpire)
    sealed_ok(umpire, sid, tok["sides"]["knight"], KNIGHT)
    sealed_ok(umpire, sid, tok["sides"]["monsters"], MONSTERS)
    return sid, tok


def forge_salt(data):
    """A revealed salt with its first hex digit changed: it no longer opens the commitment."""
    o = data["action"]["orders"][0]
    o["salt"] = ("1" if o["salt"][0] == "0" else "0") + o["salt"][1:]
    return data


def test_offline_verifier_checks_the_reveal_against_the_commitments(umpire, tmp_path):
    sid, tok = played(umpire)
    path, raw = export_jsonl(umpire, sid, tok["referee"], tmp_path)
    rc, rep, out, err = run_verifier(path)
    assert rc == 0 and rep and rep["ok"] is True, (rc, out, err)
    evs = parse_jsonl(raw)
    k = next(e["seq"] for e in evs if e["type"] == "orders_revealed")
    forge_salt(evs[k - 1]["data"])
    for ev in evs[k - 1:]:
        ev["prev"] = evs[ev["seq"] - 2]["hash"]
        ev["hash"] = event_hash(ev["prev"], ev)
    verify_chain(evs)                                         # well chained, yet forged
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(e) + "\n" for e in evs))
    rc, rep, out, err = run_verifier(forged)
    assert rc == 1, (rc, out, err)
    assert rep is not None and rep["ok"] is False and rep["first_bad_seq"] == k, out
    assert "commitment" in rep["reason"], rep


def test_verify_catches_a_forged_salt_in_the_database(umpire):
    sid, tok = played(umpire)
    ref = tok["referee"]
    assert get_verify(umpire, sid, ref)["ok"] is True

    def forge(db):
        ev = next(e for e in db.events(sid) if e["type"] == "orders_revealed")
        db.set_data(sid, ev["seq"], forge_salt(ev["data"]))
        db.rechain(sid, ev["seq"])
        return ev["seq"]

    k = tamper(umpire.daemon, forge)
    rep = get_verify(umpire, sid, ref)
    assert rep["ok"] is False and rep["first_bad_seq"] == k, rep
    assert "commitment" in rep["reason"], rep


def test_verify_takes_only_the_latest_commitment(umpire, tmp_path):
    """The monsters seal the same plays twice (two salts): a reveal forged to open their first
    commitment instead of the last resolves the same, yet it is not what they sealed last."""
    sid, tok = create(umpire)
    monsters = tok["sides"]["monsters"]
    first = sealed_ok(umpire, sid, monsters, MONSTERS)
    last = sealed_ok(umpire, sid, monsters, MONSTERS)
    assert first["orders"] == last["orders"] and first["salt"] != last["salt"]
    sealed_ok(umpire, sid, tok["sides"]["knight"], KNIGHT)
    _, raw = export_jsonl(umpire, sid, tok["referee"], tmp_path)
    evs = parse_jsonl(raw)
    k = next(e["seq"] for e in evs if e["type"] == "orders_revealed")
    o = next(o for o in evs[k - 1]["data"]["action"]["orders"] if o["side"] == "monsters")
    assert o["salt"] == last["salt"]
    o["salt"] = first["salt"]
    assert commitment(o["salt"], o["actions"]) == first["commitment"]
    for ev in evs[k - 1:]:
        ev["prev"] = evs[ev["seq"] - 2]["hash"]
        ev["hash"] = event_hash(ev["prev"], ev)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(e) + "\n" for e in evs))
    rc, rep, out, err = run_verifier(forged)
    assert rc == 1, (rc, out, err)
    assert rep["ok"] is False and rep["first_bad_seq"] == k, rep
    assert "commitment" in rep["reason"], rep


def test_sealed_orders_survive_a_crash(umpire):
    """The orders are kept (unread) with the commitment: after kill -9 and a restart the
    remaining seal still reveals them, and they open the commitment logged before the crash."""
    sid, tok = create(umpire)
    ref = tok["referee"]
    k = sealed_ok(umpire, sid, tok["sides"]["knight"], KNIGHT)
    umpire.daemon.crash_restart()
    st = session(umpire, sid, ref)
    assert st["session"]["version"] == 2 and st["state"]["turn"]["done"] == ["knight"]
    assert k["salt"] not in json.dumps(st)
    m = sealed_ok(umpire, sid, tok["sides"]["monsters"], MONSTERS)
    assert m["revealed"] is True
    reveal = of_type(events(umpire, sid, ref), "orders_revealed")[0]
    check_revealed(reveal, {"knight": k, "monsters": m})
    assert session(umpire, sid, ref)["state"]["turn"]["number"] == 2
    assert get_verify(umpire, sid, ref)["ok"] is True


def test_sealed_setup_needs_the_servers_dice(umpire):
    """The reveal rolls the dice itself: a sealed session in manual mode is refused at creation;
    "sealed": false plays in the open."""
    body = json.loads(json.dumps(BATS["session"]))
    body["dice"] = {"mode": "manual"}
    body["setup"]["turn"] = {"sealed": True}
    assert_error(umpire.post("/v1/sessions", body), 422, "invalid_setup")
    body["setup"]["turn"] = {"sealed": False}
    r = umpire.post("/v1/sessions", body)
    assert r.status == 201, r
    sid, tok = r.body["session"]["id"], r.body["tokens"]
    r = umpire.post(f"/v1/sessions/{sid}/actions", MONSTERS[1], token=tok["sides"]["monsters"])
    assert r.status == 200, r
    assert_error(seal(umpire, sid, tok["sides"]["knight"], KNIGHT), 409, "no_sealed_step")
