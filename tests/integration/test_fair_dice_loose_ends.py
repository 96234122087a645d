"""Issue 19, loose ends: idempotency keys per caller, the database's file modes, manual dice by
the referee only, and umpire-verify's refusal of unknown members and NULs."""

import json
import os
import stat

import pytest

from audit_helpers import finish_daemon, http_get_stream, run_verifier
from entropy_ref import SIDES, UNITS, knight_and_monsters
from umpire_client import ON_POSTGRESQL, Client, Daemon, assert_error, expect
from umpire_ref import ZERO64, event_hash, verify_chain

SEED = "5eed" * 16


def version(umpire, sid, tok):
    return umpire.session(sid, tok)["version"]


def act(umpire, sid, tok, body, key=None):
    headers = {"Idempotency-Key": key} if key is not None else None
    return umpire.post(f"/v1/sessions/{sid}/actions", body, token=tok, headers=headers)


def is_replay(r):
    return (r.header("Idempotent-Replay") or "").strip().lower() == "true"


# --------------------------------------------------------------------------- idempotency

@pytest.fixture
def two_sides(umpire):
    return (umpire,) + knight_and_monsters(umpire)[1:]


def test_same_key_two_sides_each_acts(two_sides):
    umpire, sid, ref, kn, mo = two_sides
    key = "knight-roll-1"
    kbody = {"type": "roll", "unit": "sir-k", "expr": "2d6+1"}
    mbody = {"type": "roll", "unit": "bat-1", "expr": "2d6+1"}
    a = act(umpire, sid, kn, kbody, key)
    b = act(umpire, sid, mo, mbody, key)
    expect(a, 200)
    expect(b, 200)      # never 422 idempotency_key_reused because of the knight's use
    assert not is_replay(a) and not is_replay(b), (a.headers, b.headers)
    assert (a.body["version"], b.body["version"]) == (2, 3)
    assert a.body["head"] != b.body["head"] and a.raw != b.raw
    assert a.body["summary"].startswith("knight ") and b.body["summary"].startswith("monsters "), \
        (a.body["summary"], b.body["summary"])
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=page["head"])
    assert [(e["actor"], e["data"]["action"]["unit"]) for e in evs[1:]] == \
        [("side:knight", "sir-k"), ("side:monsters", "bat-1")]
    # each caller replaying gets its own stored answer
    for _ in range(2):
        ra = act(umpire, sid, kn, kbody, key)
        rb = act(umpire, sid, mo, mbody, key)
        assert ra.status == 200 and ra.raw == a.raw and is_replay(ra), ra
        assert rb.status == 200 and rb.raw == b.raw and is_replay(rb), rb
    assert version(umpire, sid, ref) == 3
    # the scoped keys are stored: the same after a restart
    umpire.daemon.restart()
    ra = act(umpire, sid, kn, kbody, key)
    rb = act(umpire, sid, mo, mbody, key)
    assert ra.raw == a.raw and is_replay(ra) and rb.raw == b.raw and is_replay(rb)
    # within one caller the key still binds its body
    r = act(umpire, sid, kn, {"type": "roll", "unit": "sir-k", "expr": "1d4"}, key)
    assert_error(r, 422, "idempotency_key_reused")
    assert version(umpire, sid, ref) == 3


def test_squatted_key_does_not_block_or_replay(two_sides):
    """The issue's attack: the monsters use the knight's key first."""
    umpire, sid, ref, kn, mo = two_sides
    key = "knight-roll-7"
    squat = act(umpire, sid, mo, {"type": "roll", "unit": "bat-1", "expr": "1d20"}, key)
    expect(squat, 200)
    real = act(umpire, sid, kn, {"type": "roll", "unit": "sir-k", "expr": "1d20"}, key)
    expect(real, 200)
    assert not is_replay(real) and real.body["version"] == 3
    assert real.body["summary"].startswith("knight "), real.body


@pytest.mark.parametrize("first,second", [("ref", "kn"), ("kn", "ref"), ("kn", "mo")])
def test_same_key_same_body_two_callers_are_two_actions(two_sides, first, second):
    """An identical body from two tokens: the second runs its own action, it is not handed the
    first caller's answer."""
    umpire, sid, ref, kn, mo = two_sides
    toks = {"ref": ref, "kn": kn, "mo": mo}
    who = {"ref": "referee", "kn": "knight", "mo": "monsters"}
    body = {"type": "roll", "expr": "1d1000"}
    a = act(umpire, sid, toks[first], body, "same")
    b = act(umpire, sid, toks[second], body, "same")
    expect(a, 200)
    expect(b, 200)
    assert not is_replay(b), "the second caller was handed the first caller's answer"
    assert (a.body["version"], b.body["version"]) == (2, 3), (a.body, b.body)
    assert b.body["summary"].startswith(who[second] + " "), b.body["summary"]
    again = act(umpire, sid, toks[second], body, "same")
    assert again.raw == b.raw and is_replay(again)
    again = act(umpire, sid, toks[first], body, "same")
    assert again.raw == a.raw and is_replay(again)
    assert version(umpire, sid, ref) == 3


# --------------------------------------------------------------------------- file modes

@pytest.mark.skipif(ON_POSTGRESQL, reason="the SQLite file's modes")
def test_database_file_0600_and_created_directory_0700():
    d = Daemon()
    top = os.path.join(d.workdir, "fresh")
    inner = os.path.join(top, "data")
    assert not os.path.exists(top)
    d.db = os.path.join(inner, "umpire.db")
    old = os.umask(0)               # the daemon must not rely on the caller's umask
    try:
        d.start()
    finally:
        os.umask(old)
    try:
        c = Client(d)
        s = c.create_session(sides=SIDES)          # something written
        c.roll(s["session"]["id"], s["tokens"]["referee"], "1d6")
        c.close()
        for path in (top, inner):
            mode = stat.S_IMODE(os.stat(path).st_mode)
            assert mode == 0o700, f"{path}: directory mode {oct(mode)}, expected 0o700"
        mode = stat.S_IMODE(os.stat(d.db).st_mode)
        assert mode == 0o600, f"database file mode {oct(mode)}, expected 0o600"
        for suffix in ("-wal", "-shm", "-journal"):
            p = d.db + suffix
            if os.path.exists(p):
                m = stat.S_IMODE(os.stat(p).st_mode)
                assert m & 0o077 == 0, f"{p}: mode {oct(m)} readable by others"
    finally:
        finish_daemon(d)


# --------------------------------------------------------------------------- manual_by referee

def create(umpire, dice):
    return umpire.post("/v1/sessions", {"ruleset": "generic", "sides": list(SIDES),
                                        "dice": dice, "setup": {"units": UNITS}})


@pytest.fixture
def referee_dice(umpire):
    r = create(umpire, {"mode": "manual", "manual_by": "referee"})
    s = expect(r, 201)
    t = s["tokens"]
    return umpire, s, s["session"]["id"], t["referee"], t["sides"]["knight"], \
        t["sides"]["monsters"]


def test_manual_by_referee_recorded(referee_dice):
    umpire, s, sid, ref, kn, mo = referee_dice
    evs, _ = umpire.events(sid, ref)
    assert evs[0]["data"]["dice"]["mode"] == "manual"
    assert evs[0]["data"]["dice"]["manual_by"] == "referee", evs[0]["data"]["dice"]
    assert umpire.session(sid, kn)["dice"]["manual_by"] == "referee"


@pytest.mark.parametrize("dice", [[3, 4], [6, 6], [1], [9, 9, 9], []])
def test_manual_by_referee_side_typing_dice_is_403(referee_dice, dice):
    umpire, s, sid, ref, kn, mo = referee_dice
    for tok, unit in ((kn, "sir-k"), (mo, "bat-1"), (mo, "sir-k")):
        r = umpire.roll(sid, tok, "2d6", expect=None, unit=unit, dice=dice)
        assert_error(r, 403, "forbidden")
    r = umpire.roll(sid, kn, "2d6", expect=None, dice=dice)        # no unit
    assert_error(r, 403, "forbidden")
    assert version(umpire, sid, ref) == 1


def test_manual_by_referee_side_without_dice_is_dice_required(referee_dice):
    umpire, s, sid, ref, kn, mo = referee_dice
    r = umpire.roll(sid, kn, "2d6+1d4", expect=None, unit="sir-k")
    err = assert_error(r, 422, "dice_required")
    needed = err["details"].get("needed")
    assert [{"purpose": n.get("purpose"), "notation": n.get("notation")} for n in needed] == \
        [{"purpose": "roll", "notation": "2d6"}, {"purpose": "roll", "notation": "1d4"}], err
    assert version(umpire, sid, ref) == 1


def test_manual_by_referee_referee_types_dice(referee_dice):
    umpire, s, sid, ref, kn, mo = referee_dice
    b = umpire.roll(sid, ref, "2d6+1", unit="sir-k", dice=[3, 5]).body
    assert b["result"]["total"] == 9 and b["version"] == 2
    b = umpire.roll(sid, ref, "1d20", dice=[17]).body
    assert b["result"]["total"] == 17
    err = assert_error(umpire.roll(sid, ref, "1d20", expect=None), 422, "dice_required")
    assert err["details"]["needed"][0]["notation"] == "1d20"
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=page["head"])
    assert evs[1]["actor"] == "referee" and evs[1]["data"]["dice"][0]["values"] == [3, 5]
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify?head={page['head']}", token=kn), 200)
    assert rep["ok"] is True and rep["actions_readjudicated"] == 2, rep
    assert (rep["dice_checked"], rep["dice_unchecked"], rep["head_checked"]) == (0, 0, True), rep


def test_manual_by_anyone_explicit(umpire):
    s = expect(create(umpire, {"mode": "manual", "manual_by": "anyone"}), 201)
    sid, kn = s["session"]["id"], s["tokens"]["sides"]["knight"]
    b = umpire.roll(sid, kn, "2d6", unit="sir-k", dice=[2, 2]).body
    assert b["result"]["total"] == 4


@pytest.mark.parametrize("dice", [
    {"mode": "server", "manual_by": "referee"},
    {"mode": "seeded", "seed": SEED, "manual_by": "referee"},
    {"manual_by": "referee"},                              # the default mode is server
    {"mode": "manual", "manual_by": "knight"},
    {"mode": "manual", "manual_by": "side:knight"},
    {"mode": "manual", "manual_by": "Referee"},
    {"mode": "manual", "manual_by": ""},
    {"mode": "manual", "manual_by": ["referee"]},
    {"mode": "manual", "manual_by": 1},
])
def test_manual_by_bad_is_400(umpire, dice):
    r = create(umpire, dice)
    assert_error(r, 400, "invalid_field", {"dice.manual_by", "dice"})


# --------------------------------------------------------------------------- umpire-verify

def exported(umpire, tmp_path):
    """A seeded session with a few rolls, exported; -> (events, path)."""
    s = umpire.create_session(sides=SIDES, mode="seeded", seed=SEED, units=UNITS,
                              title="Bats at the Crag")
    sid, ref, kn = s["session"]["id"], s["tokens"]["referee"], s["tokens"]["sides"]["knight"]
    umpire.roll(sid, kn, "2d6+1", unit="sir-k")
    umpire.roll(sid, ref, "1d20")
    umpire.roll(sid, s["tokens"]["sides"]["monsters"], "3d6", unit="bat-1")
    status, _, raw = http_get_stream(umpire.daemon.port, f"/v1/sessions/{sid}/log?format=jsonl",
                                     headers={"Authorization": f"Bearer {ref}"})
    assert status == 200
    path = tmp_path / "log.jsonl"
    path.write_bytes(raw)
    evs = [json.loads(x) for x in raw.decode().split("\n")[:-1]]
    verify_chain(evs)
    rc, rep, out, err = run_verifier(path)
    assert rc == 0 and rep["ok"] is True, (rc, out, err)
    return evs, path


def write(tmp_path, evs, name="forged.jsonl"):
    p = tmp_path / name
    # json.dumps writes a NUL as the escape \u0000, as the brief asks
    p.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in evs))
    return p


def rechain(evs, from_seq):
    prev = ZERO64 if from_seq == 1 else evs[from_seq - 2]["hash"]
    for ev in evs[from_seq - 1:]:
        ev["prev"] = prev
        ev["hash"] = event_hash(prev, ev)
        prev = ev["hash"]
    return prev


def refused(tmp_path, evs, seq, what):
    p = write(tmp_path, evs)
    rc, rep, out, err = run_verifier(p)
    assert rc == 1, f"{what}: umpire-verify exit {rc}, expected 1: {out}{err}"
    assert rep is not None and rep["ok"] is False, f"{what}: {out}"
    assert rep["first_bad_seq"] == seq, f"{what}: first_bad_seq {rep['first_bad_seq']}: {rep!r}"
    assert isinstance(rep["reason"], str) and rep["reason"].strip(), rep


@pytest.mark.parametrize("member,value", [("extra", 1), ("comment", "hello"), ("Seq", 3),
                                          ("data2", {}), ("", None)])
def test_verify_refuses_unknown_member(umpire, tmp_path, member, value):
    evs, _ = exported(umpire, tmp_path)
    k = 3
    evs[k - 1][member] = value              # not hashed: the chain is intact
    verify_chain(evs)
    refused(tmp_path, evs, k, f"unknown member {member!r}")


FIELD_NUL = [
    ("actor", lambda ev: ev.__setitem__("actor", ev["actor"] + "\x00side:monsters")),
    ("actor-prefix", lambda ev: ev.__setitem__("actor", "referee\x00" + ev["actor"])),
    ("type", lambda ev: ev.__setitem__("type", ev["type"] + "\x00")),
    ("ts", lambda ev: ev.__setitem__("ts", ev["ts"] + "\x00later")),
    ("data-summary", lambda ev: ev["data"].__setitem__("summary",
                                                       ev["data"]["summary"] + "\x00 (forged)")),
    ("data-action-expr", lambda ev: ev["data"]["action"].__setitem__(
        "expr", ev["data"]["action"]["expr"] + "\x00+10")),
    ("data-key", lambda ev: ev["data"]["result"].__setitem__("note\x00", "x")),
]


@pytest.mark.parametrize("rehash", [True, False], ids=["rehashed", "genuine-hash"])
@pytest.mark.parametrize("name,forge", FIELD_NUL, ids=[f[0] for f in FIELD_NUL])
def test_verify_refuses_nul_in_event_strings(umpire, tmp_path, name, forge, rehash):
    """rehashed: the chain recomputed over the forged content (the NUL included), so only the
    NUL check can catch it; genuine-hash: the hash kept, which a verifier hashing only up to
    the NUL would accept."""
    evs, _ = exported(umpire, tmp_path)
    k = 3                                  # the referee's 1d20
    assert evs[k - 1]["type"] == "roll"
    forge(evs[k - 1])
    if rehash:
        rechain(evs, k)
        if name.startswith("data"):
            verify_chain(evs)            # a perfect chain (actor/ts forms aside)
    refused(tmp_path, evs, k, f"NUL in {name}")


@pytest.mark.parametrize("rehash", [True, False], ids=["rehashed", "genuine-hash"])
def test_verify_refuses_nul_in_title(umpire, tmp_path, rehash):
    """A data string nothing re-adjudicates (session_created's title): only the NUL check."""
    evs, _ = exported(umpire, tmp_path)
    evs[0]["data"]["title"] += "\x00 and the Dragon"
    if rehash:
        rechain(evs, 1)
        verify_chain(evs)
    refused(tmp_path, evs, 1, "NUL in the title")


def test_verify_refuses_raw_nul_escape_in_text(umpire, tmp_path):
    """The escape written by hand in the line's text (not by json.dumps)."""
    evs, path = exported(umpire, tmp_path)
    lines = path.read_text().split("\n")
    line = lines[2]
    assert '"actor":"referee"' in line, line
    lines[2] = line.replace('"actor":"referee"', '"actor":"referee\\u0000x"')
    p = tmp_path / "hand.jsonl"
    p.write_text("\n".join(lines))
    rc, rep, out, err = run_verifier(p)
    assert rc == 1 and rep is not None and rep["ok"] is False, (rc, out, err)
    assert rep["first_bad_seq"] == 3, rep


# --------------------------------------------------------------------------- export / import

def test_export_import_keeps_fair_dice_state(umpire, tmp_path):
    """`umpired export` / `umpired import` (docs/deploy.md) carry the new state: the
    contributions in force and who may change them, manual_by, and the scoped idempotency keys;
    the import's audit accepts entropy events."""
    import subprocess
    from entropy_ref import check_dice, contribute, digest_of, reveal
    from umpire_client import new_db_arg, pg_server, umpired_path

    a = umpire.create_session(sides=SIDES, units=UNITS)
    sid, ref = a["session"]["id"], a["tokens"]["referee"]
    kn, mo = a["tokens"]["sides"]["knight"], a["tokens"]["sides"]["monsters"]
    umpire.roll(sid, ref, "1d1000")
    contribute(umpire, sid, kn, "owls at midnight")
    ka = act(umpire, sid, kn, {"type": "roll", "unit": "sir-k", "expr": "1d20"}, "shared")
    ma = act(umpire, sid, mo, {"type": "roll", "unit": "bat-1", "expr": "1d20"}, "shared")
    expect(ka, 200)
    expect(ma, 200)
    contribute(umpire, sid, mo, "bats 4 ever")           # pending: no die since
    inf = {"side:knight": "owls at midnight", "side:monsters": "bats 4 ever"}
    b = expect(create(umpire, {"mode": "manual", "manual_by": "referee"}), 201)
    bsid = b["session"]["id"]
    v_a = version(umpire, sid, ref)

    d = umpire.daemon
    assert d.stop() == 0
    dump = tmp_path / "dump.jsonl"
    env = dict(os.environ)
    p = subprocess.run([umpired_path(), "export", "--db", d.db, "--file", str(dump)],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    old_db = d.db
    d.db = new_db_arg(str(tmp_path))
    p = subprocess.run([umpired_path(), "import", "--db", d.db, "--file", str(dump)],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, f"import refused the log with entropy events:\n{p.stdout}{p.stderr}"
    if ON_POSTGRESQL:
        pg_server().drop_database(old_db)
    d.start()

    assert version(umpire, sid, ref) == v_a
    assert umpire.session(sid, ref)["dice"]["entropy"] == {"in_force": inf,
                                                           "digest": digest_of(inf)}
    assert_error(contribute(umpire, sid, mo, "again", expect_status=None), 409,
                 "entropy_pending")
    ra = act(umpire, sid, kn, {"type": "roll", "unit": "sir-k", "expr": "1d20"}, "shared")
    rb = act(umpire, sid, mo, {"type": "roll", "unit": "bat-1", "expr": "1d20"}, "shared")
    assert ra.raw == ka.raw and is_replay(ra) and rb.raw == ma.raw and is_replay(rb)
    umpire.roll(sid, ref, "3d6")
    r = reveal(umpire, sid, kn)
    evs, page = umpire.events(sid, ref)
    verify_chain(evs, head=r["head"])
    checked, unchecked, dice = check_dice(evs, sid)
    assert checked == len(dice) == 6 and unchecked == 0
    assert dice[-1][4] == digest_of(inf)

    assert umpire.session(bsid, b["tokens"]["referee"])["dice"]["manual_by"] == "referee"
    r = umpire.roll(bsid, b["tokens"]["sides"]["knight"], "1d6", expect=None, unit="sir-k",
                    dice=[4])
    assert_error(r, 403, "forbidden")
