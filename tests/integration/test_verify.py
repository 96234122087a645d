"""GET /v1/sessions/{id}/verify and the offline verifier (umpire-verify).

Tampering is done behind the daemon's back: SIGTERM, edit its database (the SQLite file, or
the PostgreSQL database with UMPIRE_TEST_BACKEND=postgresql), restart, ask /verify. Each
failure must be pinned to the exact first bad seq."""

import json
import os
import re

import pytest

from audit_helpers import (NON_ACTION_TYPES, SEED, assert_report_bad, assert_report_ok,
                           expected_counts, export_jsonl, get_verify, parse_jsonl, run_verifier,
                           tamper)
from umpire_client import assert_error, expect
from umpire_ref import (check_dice_against_seed, die, flat_dice, sha256_hex_of_hex,
                        verify_chain)

UNITS = [{"id": "a1", "side": "alice"}, {"id": "b1", "side": "bob"}]
EXPRS = ["2d6", "1d20", "3d6kh2+1d4-1", "4d6kl3", "1d20", "2d10+3", "1d20", "1d8-1d4"]
MANUAL_DICE = {"2d6": [3, 4], "1d20": [13], "3d6kh2+1d4-1": [2, 5, 6, 3], "4d6kl3": [6, 1, 2, 5],
               "2d10+3": [7, 9], "1d8-1d4": [8, 2]}


def play(umpire, s, exprs=EXPRS, manual=False):
    """Rolls exprs alternately as referee and as alice for a1; -> list of response bodies."""
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    alice = s["tokens"]["sides"]["alice"]
    out = []
    for i, expr in enumerate(exprs):
        tok, extra = (alice, {"unit": "a1"}) if i % 2 else (ref, {})
        if manual:
            extra["dice"] = MANUAL_DICE[expr]
        out.append(umpire.roll(sid, tok, expr, purpose=f"r{i}", **extra).body)
    return out


def reveal(umpire, sid, ref):
    return expect(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=ref), 200)


def new_session(umpire, mode, **kw):
    return umpire.create_session(mode=mode, seed=SEED if mode == "seeded" else None,
                                 units=UNITS, **kw)


def all_events(umpire, sid, ref):
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=page["head"])
    return evs, page


def first_action_seq(evs, expr=None, after=1):
    for ev in evs:
        if ev["seq"] > after and ev["type"] not in NON_ACTION_TYPES and \
                (expr is None or ev["data"]["action"]["expr"] == expr):
            return ev["seq"]
    raise AssertionError(f"no action {expr!r} after seq {after}")


# --------------------------------------------------------------------------- honest logs

def test_verify_seeded_session_ok(umpire):
    s = new_session(umpire, "seeded")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    bodies = play(umpire, s)
    evs, page = all_events(umpire, sid, ref)
    check_dice_against_seed(SEED, sid, flat_dice(evs))
    checked, actions = expected_counts(evs)
    assert checked == len(flat_dice(evs)) and actions == len(EXPRS)
    rep = get_verify(umpire, sid, ref)
    assert_report_ok(rep, events=len(evs), head=bodies[-1]["head"], dice_checked=checked,
                     actions=actions)
    assert rep["events"] == umpire.session(sid, ref)["version"]
    # a side token may verify, and the head the client holds is accepted
    rep2 = get_verify(umpire, sid, s["tokens"]["sides"]["bob"], head=bodies[-1]["head"])
    assert_report_ok(rep2, events=len(evs), head=bodies[-1]["head"])
    # an earlier head the client held is still in the log: fine
    rep3 = get_verify(umpire, sid, ref, head=bodies[2]["head"])
    assert_report_ok(rep3, events=len(evs))


def test_verify_server_session_counts_revealed_dice_only(umpire):
    s = new_session(umpire, "server")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, EXPRS[:3])
    rep = get_verify(umpire, sid, ref)
    evs, _ = all_events(umpire, sid, ref)
    assert_report_ok(rep, events=len(evs), dice_checked=0, actions=3)   # nothing revealed yet
    reveal(umpire, sid, ref)
    play(umpire, s, EXPRS[3:6])
    r2 = reveal(umpire, sid, ref)
    body = play(umpire, s, EXPRS[6:])[-1]          # rolled under a seed still secret
    evs, page = all_events(umpire, sid, ref)
    checked, actions = expected_counts(evs)
    assert checked == r2["revealed"]["last_nonce"], (checked, r2)
    assert 0 < checked < len(flat_dice(evs))
    assert actions == len(EXPRS)
    rep = get_verify(umpire, sid, ref, head=body["head"])
    assert_report_ok(rep, events=len(evs), head=body["head"], dice_checked=checked,
                     actions=actions)
    assert rep["events"] == page["version"] == len(EXPRS) + 3


def test_verify_manual_session_ok(umpire):
    s = new_session(umpire, "manual")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    bodies = play(umpire, s, manual=True)
    evs, _ = all_events(umpire, sid, ref)
    assert_report_ok(get_verify(umpire, sid, ref), events=len(evs), head=bodies[-1]["head"],
                     dice_checked=0, actions=len(EXPRS))


def test_verify_fresh_session(umpire):
    s = new_session(umpire, "seeded")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    assert_report_ok(get_verify(umpire, sid, ref), events=1, head=s["session"]["head"],
                     dice_checked=0, actions=0)


def test_verify_access(umpire):
    s = new_session(umpire, "seeded")
    sid = s["session"]["id"]
    assert_error(umpire.get(f"/v1/sessions/{sid}/verify"), 401, "unauthorized")
    assert_error(umpire.get(f"/v1/sessions/{sid}/verify", token="ab" * 32), 401,
                 "unauthorized")
    assert_error(umpire.get(f"/v1/sessions/{'0' * 32}/verify", token="ab" * 32), 404,
                 "session_not_found")
    pub = new_session(umpire, "seeded", visibility="public")
    assert_report_ok(get_verify(umpire, pub["session"]["id"]), events=1)


def test_verify_writes_nothing(umpire):
    s = new_session(umpire, "seeded")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, EXPRS[:3])
    before = umpire.session(sid, ref)
    get_verify(umpire, sid, ref)
    get_verify(umpire, sid, ref, head="0" * 64)
    assert umpire.session(sid, ref) == before


# --------------------------------------------------------------------------- tampering

@pytest.fixture
def played(umpire):
    """A seeded session with 8 actions: (umpire, session, events, last body)."""
    s = new_session(umpire, "seeded")
    bodies = play(umpire, s)
    evs, _ = all_events(umpire, s["session"]["id"], s["tokens"]["referee"])
    return umpire, s, evs, bodies[-1]


def test_tamper_edited_die_value(played):
    umpire, s, evs, last = played
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    k = 4

    def edit(db):
        ev = db.event(sid, k)
        d = ev["data"]["dice"][0]
        d["values"][0] = d["values"][0] % 3 + 1 if d["values"][0] != 1 else 2
        db.set_data(sid, k, ev["data"])
    tamper(umpire.daemon, edit)
    assert_report_bad(get_verify(umpire, sid, ref), k, head=evs[k - 2]["hash"], events=len(evs))
    assert_report_bad(get_verify(umpire, sid, ref, head=last["head"]), k)


def test_tamper_deleted_middle_row(played):
    umpire, s, evs, last = played
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    k = 5
    tamper(umpire.daemon, lambda db: db.delete(sid, k))
    assert_report_bad(get_verify(umpire, sid, ref), k, head=evs[k - 2]["hash"],
                      events=len(evs) - 1)


def test_tamper_swapped_pair(played):
    umpire, s, evs, last = played
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    k = 3

    def swap(db):
        a, b = db.raw_data(sid, k), db.raw_data(sid, k + 1)
        assert a != b
        db.set_raw_data(sid, k, b)
        db.set_raw_data(sid, k + 1, a)
    tamper(umpire.daemon, swap)
    assert_report_bad(get_verify(umpire, sid, ref), k, head=evs[k - 2]["hash"], events=len(evs))


def test_tamper_truncated_tail_caught_by_client_head(played):
    umpire, s, evs, last = played
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    n = len(evs)

    def truncate(db):
        db.delete(sid, n)
        db.delete(sid, n - 1)
        new_last = db.event(sid, n - 2)
        db.set_session(sid, n - 2, new_last["hash"])
    tamper(umpire.daemon, truncate)
    # the db is self-consistent now: without the client's head, verify may well pass
    plain = get_verify(umpire, sid, ref)
    if plain["ok"]:
        assert_report_ok(plain, events=n - 2, head=evs[n - 3]["hash"])
    # the client still holds the head of seq n: no event has that hash any more
    assert_report_bad(get_verify(umpire, sid, ref, head=last["head"]), n - 2 + 1,
                      head=evs[n - 3]["hash"], events=n - 2)
    # a head nobody ever had
    assert_report_bad(get_verify(umpire, sid, ref, head="ab" * 32), n - 2 + 1)


def test_tamper_session_row_head_disagrees_with_log(played):
    """docs: the session row's own version/head are checked against the log as well."""
    umpire, s, evs, last = played
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    n = len(evs)
    tamper(umpire.daemon, lambda db: db.set_session(sid, n, evs[n - 2]["hash"]))
    rep = get_verify(umpire, sid, ref)
    assert rep["ok"] is False and isinstance(rep["reason"], str) and rep["reason"].strip(), rep


def _forge_die(ev, seed_hex, sid):
    """Changes the single die of a 1d20 roll to another value, consistently everywhere in
    data (values, value, result terms, total, summary); -> (old, new)."""
    data = ev["data"]
    d = data["dice"][0]
    assert d["notation"] == "1d20" and len(d["values"]) == 1, d
    old = d["values"][0]
    new = old % 20 + 1
    assert new != die(seed_hex, sid, d["nonce"], 20) if seed_hex else True
    d["values"], d["value"] = [new], new
    term = data["result"]["terms"][0]
    term["values"], term["value"] = [new], new
    if "kept" in term:
        term["kept"] = [new]
    data["result"]["total"] = new
    data["summary"] = re.sub(rf"\b{old}\b", str(new), data["summary"])
    return old, new


def test_forged_rechained_log_seeded_caught_by_dice(played):
    umpire, s, evs, last = played
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    k = first_action_seq(evs, "1d20", after=3)
    new_head = {}

    def forge(db):
        ev = db.event(sid, k)
        _forge_die(ev, SEED, sid)
        db.set_data(sid, k, ev["data"])
        new_head["h"] = db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    forged, page = umpire.events(sid, ref)
    verify_chain(forged, head=page["head"])          # the chain itself is perfect
    assert page["head"] == new_head["h"] != last["head"]
    assert_report_bad(get_verify(umpire, sid, ref), k, head=evs[k - 2]["hash"], events=len(evs))
    # the client's head is gone as well, but the forged seq is the first bad one
    assert_report_bad(get_verify(umpire, sid, ref, head=last["head"]), k)


def test_forged_rechained_log_manual_total_caught_by_readjudication(umpire):
    s = new_session(umpire, "manual")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, manual=True)
    evs, _ = all_events(umpire, sid, ref)
    k = first_action_seq(evs, "2d6", after=1)

    def forge(db):
        ev = db.event(sid, k)
        ev["data"]["result"]["total"] += 1          # the dice stay as they were
        db.set_data(sid, k, ev["data"])
        db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    forged, page = umpire.events(sid, ref)
    verify_chain(forged, head=page["head"])
    assert_report_bad(get_verify(umpire, sid, ref), k)


def test_forged_rechained_log_manual_dice_and_total_caught_by_readjudication(umpire):
    """Manual dice cannot be recomputed; a consistent edit of dice, result and summary
    still differs from the re-adjudication of the request ... unless everything matches,
    so here the summary keeps the old numbers."""
    s = new_session(umpire, "manual")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, manual=True)
    evs, _ = all_events(umpire, sid, ref)
    k = first_action_seq(evs, "1d20", after=4)

    def forge(db):
        ev = db.event(sid, k)
        data = ev["data"]
        d = data["dice"][0]
        new = d["values"][0] % 20 + 1
        d["values"], d["value"] = [new], new
        data["result"]["terms"][0]["values"] = [new]
        data["result"]["terms"][0]["value"] = new
        data["result"]["total"] = new                # summary untouched: says the old value
        db.set_data(sid, k, data)
        db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    assert_report_bad(get_verify(umpire, sid, ref), k)


def test_forged_rechained_log_manual_summary_caught_by_readjudication(umpire):
    s = new_session(umpire, "manual")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, manual=True)
    evs, _ = all_events(umpire, sid, ref)
    k = first_action_seq(evs, after=5)

    def forge(db):
        ev = db.event(sid, k)
        ev["data"]["summary"] = ev["data"]["summary"].replace("rolled", "rolled a natural")
        assert ev["data"]["summary"] != evs[k - 1]["data"]["summary"]
        db.set_data(sid, k, ev["data"])
        db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    assert_report_bad(get_verify(umpire, sid, ref), k)


def test_forged_rechained_action_of_another_side_caught(played):
    """Unit ownership is checked again: an action by bob's token for alice's unit."""
    umpire, s, evs, last = played
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    k = next(e["seq"] for e in evs if e["actor"] == "side:alice")

    def forge(db):
        ev = db.event(sid, k)
        db.con.execute("UPDATE events SET actor='side:bob' WHERE session_id=? AND seq=?",
                       (sid, k))
        ev["data"]["summary"] = ev["data"]["summary"].replace("alice", "bob")
        db.set_data(sid, k, ev["data"])
        db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    assert_report_bad(get_verify(umpire, sid, ref), k)


@pytest.mark.parametrize("fix_commitment", [False, True])
def test_forged_revealed_seed_caught_at_the_reveal(umpire, fix_commitment):
    s = new_session(umpire, "server")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, EXPRS[:4])
    r = reveal(umpire, sid, ref)
    k = r["version"]
    play(umpire, s, EXPRS[4:6])
    evs, _ = all_events(umpire, sid, ref)
    assert_report_ok(get_verify(umpire, sid, ref), events=len(evs))

    def forge(db):
        ev = db.event(sid, k)
        assert ev["type"] == "dice_seed_revealed"
        seed = ev["data"]["seed"]
        ev["data"]["seed"] = ("0" if seed[0] != "0" else "1") + seed[1:]
        if fix_commitment:   # self-consistent reveal, but not the commitment of event 1
            ev["data"]["commitment"] = sha256_hex_of_hex(ev["data"]["seed"])
        db.set_data(sid, k, ev["data"])
        db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    forged, page = umpire.events(sid, ref)
    verify_chain(forged, head=page["head"])
    assert_report_bad(get_verify(umpire, sid, ref), k)


def test_forged_server_die_caught_after_reveal(umpire):
    s = new_session(umpire, "server")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, EXPRS[:5])
    reveal(umpire, sid, ref)
    evs, _ = all_events(umpire, sid, ref)
    k = first_action_seq(evs, "1d20", after=1)

    def forge(db):
        ev = db.event(sid, k)
        _forge_die(ev, None, sid)
        db.set_data(sid, k, ev["data"])
        db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    assert_report_bad(get_verify(umpire, sid, ref), k)


# --------------------------------------------------------------------------- offline verifier

@pytest.mark.parametrize("mode", ["seeded", "server", "manual"])
def test_export_and_offline_verify_round_trip(umpire, tmp_path, mode):
    s = new_session(umpire, mode)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s, EXPRS[:5], manual=(mode == "manual"))
    if mode == "server":
        reveal(umpire, sid, ref)
        play(umpire, s, EXPRS[5:], manual=False)
    evs, page = all_events(umpire, sid, ref)
    path, raw = export_jsonl(umpire, sid, ref, tmp_path)
    lines = parse_jsonl(raw)
    assert lines == evs, "jsonl lines differ from GET events"
    verify_chain(lines, head=page["head"])

    online = get_verify(umpire, sid, ref)
    rc, rep, out, err = run_verifier(path)
    assert rc == 0, f"umpire-verify exit {rc}: {out}{err}"
    assert rep is not None, f"umpire-verify printed no JSON report: {out!r}"
    for k in ("ok", "events", "head", "first_bad_seq", "reason", "dice_checked",
              "actions_readjudicated"):
        assert rep.get(k) == online[k], f"offline {k}={rep.get(k)!r}, online {online[k]!r}"
    assert_report_ok(rep, events=len(evs), head=page["head"],
                     dice_checked=expected_counts(evs)[0], actions=expected_counts(evs)[1])

    rc, rep, out, err = run_verifier(path, "--head", page["head"])
    assert rc == 0 and rep and rep["ok"] is True, (rc, out, err)
    rc, rep, out, err = run_verifier(path, "--head", evs[1]["hash"])
    assert rc == 0 and rep and rep["ok"] is True, (rc, out, err)


def test_offline_verify_edited_line(umpire, tmp_path):
    s = new_session(umpire, "seeded")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s)
    path, raw = export_jsonl(umpire, sid, ref, tmp_path)
    lines = raw.decode("utf-8").split("\n")
    k = 4
    ev = json.loads(lines[k - 1])
    assert ev["seq"] == k
    v = ev["data"]["dice"][0]["values"][0]
    ev["data"]["dice"][0]["values"][0] = 2 if v == 1 else 1
    lines[k - 1] = json.dumps(ev, separators=(",", ":"))
    bad = tmp_path / "edited.jsonl"
    bad.write_text("\n".join(lines))
    rc, rep, out, err = run_verifier(bad)
    assert rc == 1, f"edited die: exit {rc}, expected 1: {out}{err}"
    assert rep is not None, out
    assert_report_bad(rep, k)


def test_offline_verify_unknown_head_and_truncation(umpire, tmp_path):
    s = new_session(umpire, "seeded")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    bodies = play(umpire, s)
    path, raw = export_jsonl(umpire, sid, ref, tmp_path)
    n = len(EXPRS) + 1
    rc, rep, out, err = run_verifier(path, "--head", "cd" * 32)
    assert rc == 1, f"unknown head: exit {rc}: {out}{err}"
    assert_report_bad(rep, n + 1)
    # a truncated export is caught with the head the client holds
    lines = raw.decode("utf-8").split("\n")[:-1]
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(lines[:-2]) + "\n")
    rc, rep, out, err = run_verifier(short)
    assert rc == 0 and rep["ok"] is True, (rc, out, err)
    rc, rep, out, err = run_verifier(short, "--head", bodies[-1]["head"])
    assert rc == 1, (rc, out, err)
    assert_report_bad(rep, n - 2 + 1)


def test_offline_verify_forged_rechained_export(umpire, tmp_path):
    from umpire_ref import event_hash
    s = new_session(umpire, "seeded")
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    play(umpire, s)
    path, raw = export_jsonl(umpire, sid, ref, tmp_path)
    evs = parse_jsonl(raw)
    k = first_action_seq(evs, "1d20", after=3)
    _forge_die(evs[k - 1], SEED, sid)
    for ev in evs[k - 1:]:
        ev["prev"] = evs[ev["seq"] - 2]["hash"]
        ev["hash"] = event_hash(ev["prev"], ev)
    verify_chain(evs)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(e) + "\n" for e in evs))
    rc, rep, out, err = run_verifier(forged)
    assert rc == 1, (rc, out, err)
    assert_report_bad(rep, k)


@pytest.mark.parametrize("content", [b"", b"not json at all\n", b"{\"seq\": 1}\n",
                                     b"\x00\xff\xfe garbage \n[1,2,3]\n"])
def test_offline_verify_garbage(tmp_path, content):
    p = tmp_path / "garbage.jsonl"
    p.write_bytes(content)
    rc, rep, out, err = run_verifier(p)
    assert rc != 0, f"garbage {content!r}: exit 0: {out}"
    assert rc in (1, 2), f"garbage: exit {rc} (a crash?): {out}{err}"
    if rc == 1:
        assert rep is not None and rep.get("ok") is False, out


def test_offline_verify_usage(tmp_path):
    rc, _, out, err = run_verifier(tmp_path / "does-not-exist.jsonl")
    assert rc == 2, (rc, out, err)
    rc, _, out, err = run_verifier()
    assert rc == 2, (rc, out, err)
    p = tmp_path / "x.jsonl"
    p.write_text("")
    rc, _, out, err = run_verifier(p, "--head")
    assert rc == 2, (rc, out, err)


def test_offline_verifier_exists():
    assert os.path.exists(__import__("audit_helpers").umpire_verify_path()), \
        "build/umpire-verify is not built"
