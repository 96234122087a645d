"""Independent Python reference for issue 19 (players' entropy), written from the wire spec only:
hmac / hashlib / json of the standard library, no daemon code.

With contributions in force (c = lowercase hex SHA-256 of the JCS of {role: seed}), die n with S
sides is HMAC-SHA256(key = seed bytes, "<sid>:<n>:<c>"), eight big-endian uint32 words, the first
w < 2^32 - (2^32 mod S) gives 1 + w mod S; retries append ":1", ":2", ... With none in force the
message is the contract's "<sid>:<n>" (retries "<sid>:<n>:<k>"). A die uses the contributions of
every entropy_contributed event since creation or since the last dice_seed_revealed, whichever
is later; a reveal clears them.
"""

import hashlib
import hmac
import json

from umpire_client import expect
from umpire_ref import HEX64, die, sides_of_notation

ENTROPY_EVENT = "entropy_contributed"
REVEAL_EVENT = "dice_seed_revealed"
NON_ACTION_TYPES = ("session_created", REVEAL_EVENT, ENTROPY_EVENT)


def jcs_in_force(in_force):
    """RFC 8785 canonical JSON of {role: seed} (printable-ASCII seeds, ASCII roles)."""
    return json.dumps(in_force, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_of(in_force):
    return hashlib.sha256(jcs_in_force(in_force).encode("utf-8")).hexdigest()


def die_c(seed, sid, nonce, sides, c=None):
    """The die with contributions (c: the digest in force) or without (c None)."""
    return die(seed, sid, nonce, sides, c)

def dice_with_context(events):
    """Walks a full log; -> [(seq, nonce, sides, value, c)] for every server/seeded die, c the
    digest in force when it was rolled (None when none), computed here from the seeds of the
    entropy events (not read from their digest). Also checks every entropy event against the
    spec (role = actor, in_force = previous + this, digest = SHA-256(JCS(in_force)))."""
    in_force = {}
    out = []
    for ev in events:
        t = ev["type"]
        if t == "session_created":
            continue
        if t == REVEAL_EVENT:
            in_force = {}
            continue
        if t == ENTROPY_EVENT:
            d = ev["data"]
            assert set(d) == {"role", "seed", "in_force", "digest"}, \
                f"event {ev['seq']}: entropy data members {sorted(d)}"
            assert d["role"] == ev["actor"], f"event {ev['seq']}: role != actor: {ev!r}"
            in_force = dict(in_force)
            in_force[d["role"]] = d["seed"]
            assert d["in_force"] == in_force, \
                f"event {ev['seq']}: in_force {d['in_force']!r}, expected {in_force!r}"
            assert d["digest"] == digest_of(in_force), \
                f"event {ev['seq']}: digest {d['digest']} != sha256(JCS({in_force!r}))"
            continue
        c = digest_of(in_force) if in_force else None
        for entry in ev["data"].get("dice") or []:
            if entry.get("manual"):
                continue
            s = sides_of_notation(entry["notation"])
            for i, v in enumerate(entry["values"]):
                out.append((ev["seq"], entry["nonce"] + i, s, v, c))
    return out


def seed_segments(events):
    """[(last_nonce, seed)] of each dice_seed_revealed in order (server mode)."""
    return [(e["data"]["last_nonce"], e["data"]["seed"]) for e in events
            if e["type"] == REVEAL_EVENT]


def seed_for(nonce, segments):
    lo = 0
    for last, seed in segments:
        if lo < nonce <= last:
            return seed
        lo = last
    return None


def check_dice(events, sid, seeded_seed=None):
    """Recomputes every die whose seed is known; -> (checked, unchecked, dice list)."""
    dice = dice_with_context(events)
    segments = seed_segments(events)
    checked = unchecked = 0
    for seq, nonce, s, v, c in dice:
        seed = seeded_seed if seeded_seed is not None else seed_for(nonce, segments)
        if seed is None:
            unchecked += 1
            continue
        ref = die_c(seed, sid, nonce, s, c)
        assert ref == v, (f"event {seq} nonce {nonce} d{s}: logged {v}, reference with "
                          f"c={c} gives {ref}")
        checked += 1
    return checked, unchecked, dice


# --------------------------------------------------------------------------- requests

def contribute(client, sid, token, seed, expect_status=200, **extra):
    body = {"seed": seed}
    body.update(extra)
    r = client.post(f"/v1/sessions/{sid}/entropy", body, token=token)
    if expect_status is None:
        return r
    if expect_status != 200:
        assert r.status == expect_status, f"entropy {seed!r}: expected {expect_status}, got {r!r}"
        return r
    b = expect(r, 200)
    assert set(b) == {"version", "head", "events", "entropy"}, f"entropy answer: {b!r}"
    assert len(b["events"]) == 1, b
    e = b["events"][0]
    assert set(e) == {"seq", "type", "hash"}, b
    assert e["type"] == ENTROPY_EVENT and e["seq"] == b["version"] and e["hash"] == b["head"], b
    assert set(b["entropy"]) == {"in_force", "digest"}, b
    assert HEX64.match(b["entropy"]["digest"]), b
    assert b["entropy"]["digest"] == digest_of(b["entropy"]["in_force"]), b
    return b


def reveal(client, sid, token, expect_status=200):
    r = client.post(f"/v1/sessions/{sid}/reveal", {}, token=token)
    if expect_status != 200:
        return r
    b = expect(r, 200)
    assert HEX64.match(b["revealed"]["seed"]), b
    return b


def assert_unchanged(client, sid, token, v0, head0=None):
    s = client.session(sid, token)
    assert s["version"] == v0, f"version moved from {v0} to {s['version']}: something was written"
    if head0 is not None:
        assert s["head"] == head0, "head moved: something was written"


# The knight and the monsters, each with a unit: the sessions of the fair-dice tests.
SIDES = ("knight", "monsters")
UNITS = [{"id": "sir-k", "side": "knight"}, {"id": "bat-1", "side": "monsters"}]


def knight_and_monsters(umpire, mode="server", seed=None, **kw):
    """-> (created, sid, referee token, knight token, monsters token)."""
    s = umpire.create_session(sides=SIDES, mode=mode, seed=seed, units=UNITS, **kw)
    t = s["tokens"]
    return s, s["session"]["id"], t["referee"], t["sides"]["knight"], t["sides"]["monsters"]
