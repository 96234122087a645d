"""Issue 19: players' entropy (client seeds), recomputed independently of the C code.

Every die is recomputed here with hmac/hashlib from the spec's formula and the contributions in
force when it was rolled; GET /verify, umpire-verify and the README's Python audit script are
checked against the same reference (entropy_ref.py)."""

import hashlib
import json
import os
import re
import subprocess

import pytest

from audit_helpers import export_jsonl, get_verify, parse_jsonl, run_verifier, tamper
from entropy_ref import (ENTROPY_EVENT, NON_ACTION_TYPES, REVEAL_EVENT, check_dice, contribute,
                         dice_with_context, die_c, digest_of, knight_and_monsters, reveal)
from umpire_client import REPO_ROOT, assert_error
from umpire_ref import (check_consecutive_nonces, event_hash, flat_dice,
                        sha256_hex_of_hex, verify_chain)

SEED = "c0ffee" * 10 + "abcd"          # 64 hex digits, public in seeded mode
KNIGHT_SEED = "knight: fortune favours the bold"
MONSTER_SEED = "bats! {\"not\": json} \\ ~"   # printable ASCII with quotes and backslash
REF_SEED = " referee's own ~ seed "          # leading/trailing spaces are printable too
KNIGHT_SEED2 = "K" * 64                       # the longest allowed


def new_session(umpire, mode="server", seed=None):
    return knight_and_monsters(umpire, mode, seed)


def roll(umpire, sid, tok, expr, unit=None):
    extra = {"unit": unit} if unit else {}
    return umpire.roll(sid, tok, expr, **extra).body


def all_events(umpire, sid, tok):
    evs, page = umpire.events(sid, tok)
    verify_chain(evs, head=page["head"])
    return evs, page


def roll_events(evs):
    return [e for e in evs if e["type"] not in NON_ACTION_TYPES]


def dice_count(evs):
    return len(flat_dice([e for e in evs if e["type"] != ENTROPY_EVENT]))


def session_entropy(umpire, sid, tok):
    return umpire.session(sid, tok)["dice"].get("entropy")


# --------------------------------------------------------------------------- JCS and digest

def test_digest_reference_is_the_literal_jcs():
    """The reference itself: the digest is SHA-256 of the literal canonical bytes."""
    inf = {"side:monsters": MONSTER_SEED, "referee": REF_SEED, "side:knight": KNIGHT_SEED}
    literal = ('{"referee":' + json.dumps(REF_SEED) + ',"side:knight":' + json.dumps(KNIGHT_SEED)
               + ',"side:monsters":' + json.dumps(MONSTER_SEED) + '}')
    assert '\\"not\\"' in literal and "\\\\" in literal
    assert digest_of(inf) == hashlib.sha256(literal.encode()).hexdigest()


# --------------------------------------------------------------------------- server mode

def play_with_contributions(umpire):
    """The scenario of the issue: two sides and the referee contribute, dice are rolled, a side
    reveals, more dice (plain again), a new contribution, more dice, a second reveal.
    -> dict of what happened."""
    s, sid, ref, kn, mo = new_session(umpire)
    c0 = s["dice"]["commitment"]
    out = {"s": s, "sid": sid, "ref": ref, "kn": kn, "mo": mo}

    # before any contribution: the plain formula
    roll(umpire, sid, ref, "1d1000+3d6")
    assert session_entropy(umpire, sid, ref) is None, "entropy shown before any contribution"

    b1 = contribute(umpire, sid, kn, KNIGHT_SEED)
    assert b1["entropy"]["in_force"] == {"side:knight": KNIGHT_SEED}, b1
    b2 = contribute(umpire, sid, mo, MONSTER_SEED)
    assert b2["entropy"]["in_force"] == {"side:knight": KNIGHT_SEED,
                                         "side:monsters": MONSTER_SEED}, b2
    b3 = contribute(umpire, sid, ref, REF_SEED)
    inf3 = {"referee": REF_SEED, "side:knight": KNIGHT_SEED, "side:monsters": MONSTER_SEED}
    assert b3["entropy"] == {"in_force": inf3, "digest": digest_of(inf3)}, b3
    assert (b1["version"], b2["version"], b3["version"]) == (3, 4, 5)
    for tok in (ref, kn, mo):
        assert session_entropy(umpire, sid, tok) == b3["entropy"], "GET session dice.entropy"

    roll(umpire, sid, kn, "3d6", unit="sir-k")
    roll(umpire, sid, mo, "2d20", unit="bat-1")
    roll(umpire, sid, ref, "1d1000")
    # a role replaces its own contribution once a die was rolled
    b4 = contribute(umpire, sid, kn, KNIGHT_SEED2)
    inf4 = dict(inf3, **{"side:knight": KNIGHT_SEED2})
    assert b4["entropy"] == {"in_force": inf4, "digest": digest_of(inf4)}, b4
    roll(umpire, sid, kn, "4d6kh3", unit="sir-k")
    roll(umpire, sid, ref, "1d1000+1d100")

    r1 = reveal(umpire, sid, mo)                       # a side reveals
    assert r1["revealed"]["commitment"] == c0
    assert sha256_hex_of_hex(r1["revealed"]["seed"]) == c0
    assert session_entropy(umpire, sid, ref) is None, "a reveal must clear the contributions"
    out["r1"] = r1

    # after the reveal: the plain formula again, until someone contributes
    roll(umpire, sid, ref, "1d1000+2d6")
    roll(umpire, sid, kn, "3d6", unit="sir-k")
    b5 = contribute(umpire, sid, ref, "after the reveal")
    assert b5["entropy"]["in_force"] == {"referee": "after the reveal"}, \
        f"contributions before the reveal still in force: {b5!r}"
    roll(umpire, sid, mo, "1d1000+2d8", unit="bat-1")
    r2 = reveal(umpire, sid, kn)
    assert sha256_hex_of_hex(r2["revealed"]["seed"]) == r1["dice"]["commitment"]
    out["r2"] = r2
    out["digests"] = {"three": digest_of(inf3), "four": digest_of(inf4),
                      "ref_only": digest_of({"referee": "after the reveal"})}
    return out


def test_contributions_recompute_every_die(umpire):
    p = play_with_contributions(umpire)
    sid, ref = p["sid"], p["ref"]
    evs, page = all_events(umpire, sid, ref)
    assert page["head"] == p["r2"]["head"]
    seed1, seed2 = p["r1"]["revealed"]["seed"], p["r2"]["revealed"]["seed"]

    # the entropy events, as the spec writes them
    ent = [e for e in evs if e["type"] == ENTROPY_EVENT]
    assert [e["actor"] for e in ent] == ["side:knight", "side:monsters", "referee",
                                         "side:knight", "referee"], ent
    for e in ent:
        assert e["data"]["role"] == e["actor"] and e["data"]["seed"] == e["data"]["in_force"][
            e["actor"]], e
        assert e["data"]["digest"] == digest_of(e["data"]["in_force"]), e
    assert ent[2]["data"]["digest"] == p["digests"]["three"]
    assert ent[3]["data"]["digest"] == p["digests"]["four"]
    assert ent[4]["data"]["digest"] == p["digests"]["ref_only"]
    revs = [e for e in evs if e["type"] == REVEAL_EVENT]
    assert [e["actor"] for e in revs] == ["side:monsters", "side:knight"], revs

    # every die, with the contributions in force when it was rolled
    dice = dice_with_context(evs)
    check_consecutive_nonces([(n, s, v) for _, n, s, v, _ in dice], first=1)
    last1 = p["r1"]["revealed"]["last_nonce"]
    assert p["r2"]["revealed"]["last_nonce"] == len(dice)
    seq_r1 = revs[0]["seq"]
    expected_c = []
    for seq, n, s, v, c in dice:
        seed = seed1 if n <= last1 else seed2
        assert (seq < seq_r1) == (n <= last1), "a die before the reveal has a later nonce"
        assert die_c(seed, sid, n, s, c) == v, f"seq {seq} nonce {n} d{s} c={c}: logged {v}"
        expected_c.append(c)
    # which formula each die used, spelled out: plain / 3 roles / knight's second seed /
    # plain after the reveal / the referee's new one
    by_seq = {}
    for (seq, _, _, _, _), c in zip(dice, expected_c):
        by_seq.setdefault(seq, set()).add(c)
    rolls = roll_events(evs)
    d = p["digests"]
    assert [by_seq[e["seq"]] for e in rolls] == [
        {None}, {d["three"]}, {d["three"]}, {d["three"]}, {d["four"]}, {d["four"]},
        {None}, {None}, {d["ref_only"]}], by_seq
    # the formula matters: the plain formula does not give the contributed dice
    contributed = [(n, s, v, seed1 if n <= last1 else seed2) for _, n, s, v, c in dice if c]
    assert any(die_c(sd, sid, n, s) != v for n, s, v, sd in contributed), \
        "the contributed dice equal the plain formula's: the digest is not mixed in"
    # nor does the digest of another moment
    assert any(die_c(sd, sid, n, s, d["ref_only"]) != v for n, s, v, sd in contributed
               if n <= last1)
    checked, unchecked, _ = check_dice(evs, sid)
    assert (checked, unchecked) == (len(dice), 0)


def test_plain_formula_before_any_contribution(umpire):
    s, sid, ref, kn, mo = new_session(umpire)
    roll(umpire, sid, ref, "1d1000+5d6")
    roll(umpire, sid, kn, "2d20", unit="sir-k")
    r = reveal(umpire, sid, kn)
    evs, _ = all_events(umpire, sid, ref)
    assert not [e for e in evs if e["type"] == ENTROPY_EVENT]
    for _, n, sd, v, c in dice_with_context(evs):
        assert c is None
        assert die_c(r["revealed"]["seed"], sid, n, sd) == v


def test_contribution_takes_effect_from_the_next_die_only(umpire):
    """A contribution changes no die already rolled and the next die uses it."""
    s, sid, ref, kn, mo = new_session(umpire)
    first = roll(umpire, sid, ref, "1d1000")
    contribute(umpire, sid, mo, "m")
    second = roll(umpire, sid, ref, "1d1000")
    r = reveal(umpire, sid, ref)
    seed = r["revealed"]["seed"]
    c = digest_of({"side:monsters": "m"})
    assert first["result"]["total"] == die_c(seed, sid, 1, 1000)
    assert second["result"]["total"] == die_c(seed, sid, 2, 1000, c)
    assert die_c(seed, sid, 2, 1000, c) != die_c(seed, sid, 2, 1000) or \
        die_c(seed, sid, 1, 1000, c) != die_c(seed, sid, 1, 1000)


def test_session_created_and_entropy_event_shapes(umpire):
    s, sid, ref, kn, mo = new_session(umpire)
    b = contribute(umpire, sid, mo, MONSTER_SEED)
    evs, _ = all_events(umpire, sid, ref)
    e = evs[-1]
    assert e["seq"] == b["version"] and e["hash"] == b["head"]
    assert e["type"] == ENTROPY_EVENT and e["actor"] == "side:monsters"
    assert e["data"] == {"role": "side:monsters", "seed": MONSTER_SEED,
                         "in_force": {"side:monsters": MONSTER_SEED},
                         "digest": digest_of({"side:monsters": MONSTER_SEED})}
    # expect_version: honoured like an action's
    r = contribute(umpire, sid, kn, "k", expect_status=None, expect_version=1)
    err = assert_error(r, 409, "version_conflict")
    assert umpire.session(sid, ref)["version"] == 2, err
    b2 = contribute(umpire, sid, kn, "k", expect_version=2)
    assert b2["version"] == 3


def test_contributions_and_pending_survive_restart(umpire):
    """The contributions in force and the once-between-dice limit are state of the session,
    not of one process: after a clean restart and after kill -9."""
    s, sid, ref, kn, mo = new_session(umpire)
    roll(umpire, sid, ref, "1d1000")
    contribute(umpire, sid, kn, KNIGHT_SEED)
    umpire.daemon.restart()
    assert_error(contribute(umpire, sid, kn, "again", expect_status=None), 409,
                 "entropy_pending")
    contribute(umpire, sid, mo, MONSTER_SEED)
    inf = {"side:knight": KNIGHT_SEED, "side:monsters": MONSTER_SEED}
    umpire.daemon.crash_restart()
    assert session_entropy(umpire, sid, ref) == {"in_force": inf, "digest": digest_of(inf)}
    assert_error(contribute(umpire, sid, mo, "again", expect_status=None), 409,
                 "entropy_pending")
    roll(umpire, sid, kn, "1d1000+2d6", unit="sir-k")
    umpire.daemon.restart()
    r = reveal(umpire, sid, mo)
    evs, _ = all_events(umpire, sid, ref)
    dice = dice_with_context(evs)
    assert [c for *_, c in dice] == [None] + [digest_of(inf)] * 3
    for _, n, sd, v, c in dice:
        assert die_c(r["revealed"]["seed"], sid, n, sd, c) == v
    umpire.daemon.restart()
    assert session_entropy(umpire, sid, ref) is None, "the reveal's clearing did not persist"
    roll(umpire, sid, ref, "1d1000")
    r2 = reveal(umpire, sid, ref)
    evs, _ = all_events(umpire, sid, ref)
    last = evs[-2]["data"]["dice"][0]
    assert last["values"] == [die_c(r2["revealed"]["seed"], sid, last["nonce"], 1000)]


def test_concurrent_rolls_and_contributions_follow_log_order(umpire):
    """Rolls and contributions from several connections at once: every die recomputes with
    the contributions before it in the log (the order the writer committed)."""
    import http.client
    import threading
    import time
    s, sid, ref, kn, mo = new_session(umpire)
    port = umpire.daemon.port
    statuses = []
    lock = threading.Lock()

    def worker(tok, unit, n, contrib):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            for i in range(n):
                if contrib == "reveal":
                    time.sleep(0.01)             # spread the reveals over the run
                    path, body = f"/v1/sessions/{sid}/reveal", {}
                elif contrib and i % 2 == 0:
                    path, body = f"/v1/sessions/{sid}/entropy", {"seed": f"{contrib} {i}"}
                else:
                    body = {"type": "roll", "expr": "1d1000+1d6"}
                    if unit:
                        body["unit"] = unit
                    path = f"/v1/sessions/{sid}/actions"
                c.request("POST", path, body=json.dumps(body),
                          headers={"Authorization": f"Bearer {tok}",
                                   "Content-Type": "application/json"})
                r = c.getresponse()
                data = r.read()
                with lock:
                    statuses.append((r.status, path, data[:200]))
        finally:
            c.close()

    threads = [threading.Thread(target=worker, args=a) for a in (
        (kn, "sir-k", 30, "knight"), (mo, "bat-1", 30, "monsters"), (ref, None, 30, "referee"),
        (ref, None, 30, None), (kn, "sir-k", 30, None), (mo, None, 10, "reveal"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(50)
    for st, path, _ in statuses:
        umpire.daemon.responses.append(("POST", path, st))
    assert len(statuses) == 160
    bad = [x for x in statuses if x[0] != 200 and not (
        x[0] == 409 and (b"entropy_pending" in x[2] or b"nothing_to_reveal" in x[2]))]
    assert not bad, bad[:5]
    umpire.roll(sid, ref, "1d1000")
    r = reveal(umpire, sid, kn)
    evs, _ = all_events(umpire, sid, ref)
    ent = [e for e in evs if e["type"] == ENTROPY_EVENT]
    assert ent, "no contribution was accepted"
    revs = [e for e in evs if e["type"] == REVEAL_EVENT]
    assert len(revs) >= 2, "no reveal went through during the run"
    checked, unchecked, dice = check_dice(evs, sid)
    assert checked == r["revealed"]["last_nonce"] == len(dice) and unchecked == 0
    assert len({c for *_, c in dice}) > 2, "too few distinct digests to mean anything"
    rep = get_verify(umpire, sid, ref, head=r["head"])
    assert rep["ok"] is True and rep["dice_checked"] == len(dice), rep
    assert rep["dice_unchecked"] == 0 and rep["head_checked"] is True, rep


def test_digest_key_order_with_mixed_side_names(umpire):
    """JCS sorts the roles by code unit: uppercase, '-', '_' and digits in side names."""
    sides = ("a-b", "Zed_1", "_x", "A", "a_b", "9lives")
    s = umpire.create_session(sides=sides)
    sid, ref = s["session"]["id"], s["tokens"]["referee"]
    roll(umpire, sid, ref, "1d6")
    inf = {}
    for i, name in enumerate(sides):
        b = contribute(umpire, sid, s["tokens"]["sides"][name], f"{name}/{i}\\")
        inf[f"side:{name}"] = f"{name}/{i}\\"
        assert b["entropy"] == {"in_force": inf, "digest": digest_of(inf)}, b
    contribute(umpire, sid, ref, "/")
    inf["referee"] = "/"
    literal = "{" + ",".join(f"{json.dumps(k)}:{json.dumps(inf[k])}" for k in sorted(inf)) + "}"
    assert literal.index('"side:9lives"') < literal.index('"side:A"') < \
        literal.index('"side:Zed_1"') < literal.index('"side:_x"') < literal.index('"side:a-b"')
    c = hashlib.sha256(literal.encode()).hexdigest()
    assert umpire.session(sid, ref)["dice"]["entropy"]["digest"] == c
    roll(umpire, sid, ref, "4d1000")
    r = reveal(umpire, sid, s["tokens"]["sides"]["_x"])
    evs, _ = all_events(umpire, sid, ref)
    vals = evs[-2]["data"]["dice"][0]["values"]
    assert vals == [die_c(r["revealed"]["seed"], sid, n, 1000, c) for n in (2, 3, 4, 5)]


# --------------------------------------------------------------------------- seeded mode

def test_seeded_mode_contributions_recompute_from_public_seed(umpire):
    s, sid, ref, kn, mo = new_session(umpire, mode="seeded", seed=SEED)
    roll(umpire, sid, ref, "1d1000+2d6")
    contribute(umpire, sid, kn, KNIGHT_SEED)
    contribute(umpire, sid, mo, MONSTER_SEED)
    roll(umpire, sid, kn, "3d6+1d1000", unit="sir-k")
    roll(umpire, sid, mo, "2d20", unit="bat-1")
    contribute(umpire, sid, mo, "second")
    roll(umpire, sid, ref, "1d1000+4d8")
    # no reveal in seeded mode; the contributions stay in force
    assert_error(umpire.post(f"/v1/sessions/{sid}/reveal", {}, token=kn), 409, "not_applicable")
    inf = {"side:knight": KNIGHT_SEED, "side:monsters": "second"}
    assert session_entropy(umpire, sid, kn) == {"in_force": inf, "digest": digest_of(inf)}

    evs, page = all_events(umpire, sid, ref)
    dice = dice_with_context(evs)
    cs = [c for _, _, _, _, c in dice]
    assert cs[0] is None and cs[-1] == digest_of(inf)
    assert digest_of({"side:knight": KNIGHT_SEED, "side:monsters": MONSTER_SEED}) in cs
    for seq, n, sd, v, c in dice:
        assert die_c(SEED, sid, n, sd, c) == v, f"seq {seq} nonce {n}: logged {v}, c={c}"
    assert any(die_c(SEED, sid, n, sd) != v for _, n, sd, v, c in dice if c)
    rep = get_verify(umpire, sid, ref, head=page["head"])
    assert rep["ok"] is True, rep
    assert rep["dice_checked"] == len(dice) and rep["dice_unchecked"] == 0, rep
    assert rep["head_checked"] is True, rep


# --------------------------------------------------------------------------- GET /verify

NO_HEAD = re.compile(r"\bno head\b", re.I)


def no_head_notes(rep):
    return [n for n in rep["notes"] if NO_HEAD.search(n)]


def check_new_members(rep):
    assert type(rep.get("dice_unchecked")) is int and rep["dice_unchecked"] >= 0, rep
    assert type(rep.get("head_checked")) is bool, rep
    assert isinstance(rep.get("notes"), list) and all(
        isinstance(n, str) and n.strip() for n in rep["notes"]), rep


def played_with_unrevealed_tail(umpire):
    """Contributions, dice, a reveal, then more dice (and a contribution) not yet revealed."""
    s, sid, ref, kn, mo = new_session(umpire)
    roll(umpire, sid, ref, "2d6")
    contribute(umpire, sid, kn, KNIGHT_SEED)
    contribute(umpire, sid, mo, MONSTER_SEED)
    roll(umpire, sid, kn, "3d6", unit="sir-k")
    roll(umpire, sid, mo, "1d20+1d4", unit="bat-1")
    r = reveal(umpire, sid, mo)
    contribute(umpire, sid, kn, "after")
    roll(umpire, sid, ref, "4d6")
    last = roll(umpire, sid, kn, "1d8", unit="sir-k")
    evs, page = all_events(umpire, sid, ref)
    assert page["head"] == last["head"]
    before = sum(1 for _, n, _, _, _ in dice_with_context(evs)
                 if n <= r["revealed"]["last_nonce"])
    assert before == 2 + 3 + 2 and r["revealed"]["last_nonce"] == 7
    return s, sid, ref, kn, mo, evs, page, before, 4 + 1


def test_verify_counts_checked_and_unchecked(umpire):
    s, sid, ref, kn, mo, evs, page, before, after = played_with_unrevealed_tail(umpire)
    checked, unchecked, _ = check_dice(evs, sid)
    assert (checked, unchecked) == (before, after)

    plain = get_verify(umpire, sid, kn)
    check_new_members(plain)
    assert plain["ok"] is True and plain["first_bad_seq"] is None, plain
    assert plain["events"] == len(evs) and plain["head"] == page["head"], plain
    assert plain["dice_checked"] == before, plain
    assert plain["dice_unchecked"] == after, plain
    assert plain["actions_readjudicated"] == len(roll_events(evs)), plain
    assert plain["head_checked"] is False, plain
    assert no_head_notes(plain), f"no note says that no head was given: {plain['notes']!r}"
    assert any(str(after) in n and "reveal" in n.lower() for n in plain["notes"]), \
        f"no note counts the {after} dice not yet checkable: {plain['notes']!r}"

    withh = get_verify(umpire, sid, mo, head=page["head"])
    check_new_members(withh)
    assert withh["ok"] is True, withh
    assert (withh["dice_checked"], withh["dice_unchecked"]) == (before, after), withh
    assert withh["head_checked"] is True, withh
    assert not no_head_notes(withh), withh["notes"]
    assert any(str(after) in n for n in withh["notes"]), withh["notes"]

    # an earlier head the client held is found too
    older = get_verify(umpire, sid, ref, head=evs[3]["hash"])
    assert older["ok"] is True and older["head_checked"] is True, older
    # a head nobody had: not found
    bad = get_verify(umpire, sid, ref, head="ab" * 32)
    check_new_members(bad)
    assert bad["ok"] is False and bad["head_checked"] is False, bad

    # after a last reveal everything is checkable, and no note about unchecked dice
    r = reveal(umpire, sid, ref)
    done = get_verify(umpire, sid, ref, head=r["head"])
    check_new_members(done)
    assert done["ok"] is True, done
    assert (done["dice_checked"], done["dice_unchecked"]) == (before + after, 0), done
    assert not any("not yet revealed" in n for n in done["notes"]), done["notes"]


# --------------------------------------------------------------------------- umpire-verify

def write_jsonl(path, evs):
    path.write_text("".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n"
                            for e in evs))
    return path


def rechain(evs, from_seq):
    for ev in evs:
        if ev["seq"] >= from_seq:
            ev["prev"] = evs[ev["seq"] - 2]["hash"] if ev["seq"] > 1 else "0" * 64
            ev["hash"] = event_hash(ev["prev"], ev)
    verify_chain(evs)
    return evs[-1]["hash"]


def test_umpire_verify_counts_match_online(umpire, tmp_path):
    s, sid, ref, kn, mo, evs, page, before, after = played_with_unrevealed_tail(umpire)
    path, raw = export_jsonl(umpire, sid, kn, tmp_path)
    assert parse_jsonl(raw) == evs
    online = get_verify(umpire, sid, ref, head=page["head"])
    rc, rep, out, err = run_verifier(path, "--head", page["head"])
    assert rc == 0, f"umpire-verify exit {rc}: {out}{err}"
    assert rep is not None, out
    check_new_members(rep)
    for k in ("ok", "events", "head", "first_bad_seq", "reason", "dice_checked",
              "dice_unchecked", "head_checked", "actions_readjudicated"):
        assert rep[k] == online[k], f"offline {k}={rep[k]!r}, online {online[k]!r}"
    assert (rep["dice_checked"], rep["dice_unchecked"], rep["head_checked"]) == \
        (before, after, True), rep
    assert not no_head_notes(rep), rep["notes"]

    rc, rep, out, err = run_verifier(path)
    assert rc == 0 and rep and rep["ok"] is True, (rc, out, err)
    check_new_members(rep)
    assert rep["head_checked"] is False and no_head_notes(rep), rep
    assert (rep["dice_checked"], rep["dice_unchecked"]) == (before, after), rep
    assert any(str(after) in n and "reveal" in n.lower() for n in rep["notes"]), rep["notes"]

    rc, rep, out, err = run_verifier(path, "--head", "cd" * 32)     # a head nobody had
    assert rc == 1 and rep and rep["ok"] is False, (rc, out, err)
    assert rep["head_checked"] is False, rep


def revealed_log(umpire, tmp_path):
    """Two sides contribute, dice, a reveal by a side, then dice and a contribution and a second
    reveal: every die checkable. -> (sid, events, path)."""
    p = play_with_contributions(umpire)
    path, raw = export_jsonl(umpire, p["sid"], p["ref"], tmp_path)
    evs = parse_jsonl(raw)
    verify_chain(evs, head=p["r2"]["head"])
    rc, rep, out, err = run_verifier(path, "--head", p["r2"]["head"])
    assert rc == 0 and rep["ok"] is True, (rc, out, err)
    assert rep["dice_checked"] == dice_count(evs) and rep["dice_unchecked"] == 0, rep
    return p["sid"], evs, path


def _other(seed):
    return ("X" if seed[0] != "X" else "Y") + seed[1:]


def forge_seed_keep_digest(evs, k):
    d = evs[k - 1]["data"]
    d["seed"] = _other(d["seed"])
    d["in_force"][d["role"]] = d["seed"]
    return k                     # only the digest check can catch it


def forge_seed_and_digest(evs, k):
    d = evs[k - 1]["data"]
    d["seed"] = _other(d["seed"])
    d["in_force"][d["role"]] = d["seed"]
    d["digest"] = digest_of(d["in_force"])
    # self-consistent: the first die after it, rolled with the genuine digest, gives it away
    return next(e["seq"] for e in evs[k:] if e["type"] not in NON_ACTION_TYPES)


def forge_drop_earlier_contribution(evs, k):
    d = evs[k - 1]["data"]
    others = [r for r in d["in_force"] if r != d["role"]]
    assert others
    del d["in_force"][others[0]]
    d["digest"] = digest_of(d["in_force"])
    return k


def forge_carry_over_reveal(evs, k):
    """A contribution after a reveal claiming the contributions from before it are still in
    force (digest recomputed to match)."""
    d = evs[k - 1]["data"]
    assert any(e["type"] == REVEAL_EVENT for e in evs[:k - 1])
    d["in_force"]["side:monsters"] = MONSTER_SEED
    d["digest"] = digest_of(d["in_force"])
    return k


def forge_actor(evs, k):
    ev = evs[k - 1]
    ev["actor"] = "side:monsters" if ev["actor"] != "side:monsters" else "side:knight"
    return k


def forge_twice_between_dice(evs, k):
    """The contribution right after another one, made by the same role: the server answers
    409 entropy_pending to that (once between two dice), so no genuine log holds it."""
    ev, prev = evs[k - 1], evs[k - 2]
    assert prev["type"] == ENTROPY_EVENT
    d = ev["data"]
    ev["actor"] = d["role"] = prev["data"]["role"]
    d["seed"] = "a second try"
    d["in_force"] = dict(prev["data"]["in_force"], **{d["role"]: d["seed"]})
    d["digest"] = digest_of(d["in_force"])
    return k


@pytest.mark.parametrize("forge,which", [
    (forge_twice_between_dice, 1),
    (forge_seed_keep_digest, 2), (forge_seed_keep_digest, 4),
    # the knight's second seed: the last contribution before the first reveal, so the dice
    # rolled after it are the first thing the forgery contradicts
    (forge_seed_and_digest, 3),
    (forge_drop_earlier_contribution, 2), (forge_drop_earlier_contribution, 3),
    (forge_carry_over_reveal, 4), (forge_actor, 2), (forge_actor, 0)])
def test_umpire_verify_tampered_entropy_event(umpire, tmp_path, forge, which):
    sid, evs, path = revealed_log(umpire, tmp_path)
    # which: the index of the contribution forged (2: the referee's, two before it)
    k = [e["seq"] for e in evs if e["type"] == ENTROPY_EVENT][which]
    bad_seq = forge(evs, k)
    head = rechain(evs, k)                              # the chain itself is perfect again
    with pytest.raises(AssertionError):                 # and the reference catches it
        check_dice(evs, sid)
    forged = write_jsonl(tmp_path / "forged.jsonl", evs)
    rc, rep, out, err = run_verifier(forged, "--head", head)
    assert rc == 1, f"forged entropy event ({forge.__name__}): exit {rc}: {out}{err}"
    assert rep is not None and rep["ok"] is False, out
    assert rep["first_bad_seq"] == bad_seq, \
        f"{forge.__name__}: first_bad_seq {rep['first_bad_seq']}, expected {bad_seq}: {rep!r}"
    assert isinstance(rep["reason"], str) and rep["reason"].strip(), rep


def test_get_verify_tampered_entropy_digest(umpire):
    """The same forgery behind the daemon's back (the database), caught by GET /verify."""
    p = play_with_contributions(umpire)
    sid, ref = p["sid"], p["ref"]
    evs, _ = all_events(umpire, sid, ref)
    k = [e["seq"] for e in evs if e["type"] == ENTROPY_EVENT][1]

    def forge(db):
        ev = db.event(sid, k)
        forge_seed_keep_digest([None] * (k - 1) + [ev], k)
        db.set_data(sid, k, ev["data"])
        db.rechain(sid, k)
    tamper(umpire.daemon, forge)
    forged, page = umpire.events(sid, ref)
    verify_chain(forged, head=page["head"])
    rep = get_verify(umpire, sid, ref)
    assert rep["ok"] is False and rep["first_bad_seq"] == k, rep


@pytest.mark.parametrize("column,value", [
    ("entropy", None),                          # the contributions in force dropped
    ("entropy", '{"side:knight":{"nonce":9,"seed":"mine"}}'),
    ("next_nonce", 3),                          # a nonce about to be used again
])
def test_get_verify_compares_the_stored_dice_state(umpire, column, value):
    """The session row beside its log: a row whose next nonce or entropy in force is not the
    one the log leaves would roll later dice that nobody can check until a reveal."""
    p = play_with_contributions(umpire)
    sid, ref, kn = p["sid"], p["ref"], p["kn"]
    contribute(umpire, sid, kn, "in force at the end")
    assert get_verify(umpire, sid, ref)["ok"] is True

    def edit(db):
        db.con.execute(f"UPDATE sessions SET {column}=? WHERE id=?", (value, sid))
    tamper(umpire.daemon, edit)
    rep = get_verify(umpire, sid, ref)
    assert rep["ok"] is False, rep
    assert ("nonce" if column == "next_nonce" else "entropy") in rep["reason"], rep


def test_umpire_verify_sides_that_are_not_names(umpire, tmp_path):
    """A forged event 1 listing a side that is not a string, and a contribution by a side the
    log never named: refused, never a crash."""
    sid, evs, path = revealed_log(umpire, tmp_path)
    evs[0]["data"]["sides"] = [7] + evs[0]["data"]["sides"]
    k = next(e["seq"] for e in evs if e["type"] == ENTROPY_EVENT)
    evs[k - 1]["actor"] = evs[k - 1]["data"]["role"] = "side:zzz"
    head = rechain(evs, 1)
    forged = write_jsonl(tmp_path / "forged.jsonl", evs)
    rc, rep, out, err = run_verifier(forged, "--head", head)
    assert rc == 1 and rep is not None and rep["ok"] is False, (rc, out, err)
    assert rep["first_bad_seq"] == 1, rep


# --------------------------------------------------------------------------- README's script

README_DIE_LINE = re.compile(r"^event (\d+) (\S+): (\S+) \[([\d, ]*)\] (ok|WRONG.*)$")
README_TOTAL = re.compile(r"(\d+) dice checked, (\d+) problems;\s*(\d+) not checkable yet")


def readme_python_block():
    """The README's ```sh block that runs `python3 -` (its audit script)."""
    text = (REPO_ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if "python3 -" in b]
    assert len(blocks) == 1, f"README.md has {len(blocks)} ```sh blocks with `python3 -`"
    block = blocks[0]
    assert "import" in block and "hmac" in block, block
    return block


def run_readme_script(tmp_path, jsonl_bytes, env_extra=None):
    """Runs the README's block as a reader would, in a directory holding game.jsonl (the
    walk-through's export). -> (exit code, stdout, stderr)."""
    work = tmp_path / "readme"
    work.mkdir(exist_ok=True)
    (work / "game.jsonl").write_bytes(jsonl_bytes)
    env = dict(os.environ, PATH="/usr/bin:/bin", **(env_extra or {}))
    env.pop("PYTHONPATH", None)
    p = subprocess.run(["bash", "-e", "-c", readme_python_block()], cwd=work, env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def readme_report(out):
    """-> ([(seq, purpose, notation, values, verdict)], (checked, problems, unchecked), text)"""
    lines = []
    total = None
    for line in out.splitlines():
        m = README_DIE_LINE.match(line.strip())
        if m:
            vals = [int(x) for x in m.group(4).replace(" ", "").split(",") if x]
            lines.append((int(m.group(1)), m.group(2), m.group(3), vals, m.group(5)))
        m = README_TOTAL.search(line)
        if m:
            total = tuple(int(x) for x in m.groups())
    assert total is not None, f"the README script printed no total line:\n{out}"
    return lines, total


def expected_readme_lines(evs, checkable_up_to):
    """The dice entries the script must confirm: (seq, purpose, notation, values, 'ok')."""
    out = []
    for e in evs:
        if e["type"] in NON_ACTION_TYPES:
            continue
        for entry in e["data"].get("dice") or []:
            if entry["nonce"] + len(entry["values"]) - 1 <= checkable_up_to:
                out.append((e["seq"], entry["purpose"], entry["notation"], entry["values"],
                            "ok"))
    return out


def test_readme_says_which_nonce_each_value_came_from():
    """The README's recipe: value i of a dice entry came from nonce + i (read as "compare each
    nonce with values", it checked only the first die of each entry)."""
    text = (REPO_ROOT / "README.md").read_text()
    recipe = text[text.index("**4. Recompute the dice yourself.**"):]
    recipe = recipe[:recipe.index("**5.")]
    assert "value `i` of its `values`" in recipe and "nonce `nonce + i`" in recipe, recipe


def test_readme_python_audit_script(umpire, tmp_path):
    """The README's audit script (standard library only) on the walk-through's session with both
    sides' contributions and a reveal by a side: every logged die confirmed, none wrong."""
    s, sid, ref, kn, mo = new_session(umpire)
    contribute(umpire, sid, kn, "owls at midnight")
    contribute(umpire, sid, mo, "bats 4 ever")
    umpire.roll(sid, kn, "2d6+1", unit="sir-k", expect_version=3,
                headers={"Idempotency-Key": "knight-roll-1"})
    roll(umpire, sid, mo, "1d1000+1d20", unit="bat-1")
    contribute(umpire, sid, ref, REF_SEED)
    roll(umpire, sid, ref, "3d6+1d1000")
    r1 = reveal(umpire, sid, mo)
    roll(umpire, sid, kn, "1d1000", unit="sir-k")          # plain again, under the new seed
    contribute(umpire, sid, kn, "second phrase")
    roll(umpire, sid, ref, "2d8+1d1000")
    r2 = reveal(umpire, sid, kn)
    roll(umpire, sid, mo, "4d6", unit="bat-1")              # not checkable yet
    evs, page = all_events(umpire, sid, ref)
    checked, unchecked, dice = check_dice(evs, sid)
    assert (checked, unchecked) == (len(dice) - 4, 4)
    seeds = {n: (r1 if n <= r1["revealed"]["last_nonce"] else r2)["revealed"]["seed"]
             for _, n, _, _, _ in dice if n <= r2["revealed"]["last_nonce"]}
    # the contributions matter for these dice: the plain formula would not give them
    assert any(c and die_c(seeds[n], sid, n, sd) != v for _, n, sd, v, c in dice if n in seeds)

    _, raw = export_jsonl(umpire, sid, kn, tmp_path, "export.jsonl")
    rc, out, err = run_readme_script(tmp_path, raw)
    assert rc == 0, f"README script exit {rc}:\n{out}\n{err}"
    lines, total = readme_report(out)
    assert total == (checked, 0, unchecked), f"README script total {total}:\n{out}"
    want = expected_readme_lines(evs, r2["revealed"]["last_nonce"])
    assert sorted(lines) == sorted(want), \
        f"README script lines differ from the logged dice:\n{out}\nexpected {want}"
    assert len(re.findall(r"commitment ok: True", out)) == 2, out
    assert "WRONG" not in out, out

    # the script is a real check: one die changed in the export -> WRONG and exit 1
    forged = [json.loads(x) for x in raw.decode().split("\n")[:-1]]
    k = next(e["seq"] for e in forged if e["type"] == "roll" and
             e["data"]["dice"][0]["notation"] == "1d1000")
    entry = forged[k - 1]["data"]["dice"][0]
    entry["values"] = [entry["values"][0] % 1000 + 1]
    rc, out, err = run_readme_script(
        tmp_path, "".join(json.dumps(e) + "\n" for e in forged).encode())
    assert rc == 1, f"README script accepted a changed die (exit {rc}):\n{out}\n{err}"
    assert re.search(rf"^event {k} .*WRONG", out, re.M), out


def test_readme_python_audit_script_seeded(umpire, tmp_path):
    s, sid, ref, kn, mo = new_session(umpire, mode="seeded", seed=SEED)
    roll(umpire, sid, ref, "1d1000")
    contribute(umpire, sid, kn, KNIGHT_SEED)
    contribute(umpire, sid, mo, MONSTER_SEED)
    roll(umpire, sid, kn, "3d6+1d1000", unit="sir-k")
    evs, _ = all_events(umpire, sid, ref)
    checked, unchecked, dice = check_dice(evs, sid, seeded_seed=SEED)
    assert unchecked == 0 and checked == 5
    _, raw = export_jsonl(umpire, sid, ref, tmp_path)
    rc, out, err = run_readme_script(tmp_path, raw)
    assert rc == 0, f"README script exit {rc}:\n{out}\n{err}"
    lines, total = readme_report(out)
    assert total == (5, 0, 0), out
    assert sorted(lines) == sorted(expected_readme_lines(evs, 10 ** 9)), out
