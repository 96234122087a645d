"""Independent Python reference for what the Umpire contract fixes on the wire.

Nothing here uses daemon code: it is written from shared/api-contract.md and
docs/api.md only (JCS of events, the hash chain, the die function, the generic
ruleset's dice notation).
"""

import hashlib
import hmac
import json
import re
from datetime import datetime, timezone

ZERO64 = "0" * 64
HEX64 = re.compile(r"^[0-9a-f]{64}$")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
RFC3339_UTC = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|\+00:00)$")


# --------------------------------------------------------------------------- JCS

def assert_no_floats(obj, path="$"):
    """Event data holds integers and strings only, never floating-point numbers."""
    if isinstance(obj, float):
        raise AssertionError(f"floating-point number at {path}: {obj!r}")
    if isinstance(obj, dict):
        for k, v in obj.items():
            assert isinstance(k, str), f"non-string key at {path}"
            assert_no_floats(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            assert_no_floats(v, f"{path}[{i}]")


def jcs(obj):
    """RFC 8785 canonical JSON for ints, strings, bools, null, objects, arrays.

    For this data, json.dumps with sorted keys, no white space and no ASCII
    escaping matches RFC 8785 (lowercase \\u00XX for control characters, the
    short escapes for \\b \\f \\n \\r \\t, no escaping of '/' or non-ASCII).
    """
    assert_no_floats(obj)
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def event_hash(prev, event):
    body = {k: event[k] for k in ("seq", "ts", "actor", "type", "data")}
    return hashlib.sha256((prev + "\n" + jcs(body)).encode("utf-8")).hexdigest()


def check_ts(ts):
    m = RFC3339_UTC.match(ts or "")
    assert m, f"ts {ts!r} is not RFC 3339 UTC"
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    # must be a real calendar instant (leap second 60 allowed by RFC 3339)
    datetime(y, mo, d, h, mi, min(s, 59), tzinfo=timezone.utc)
    assert 2000 <= y <= 2200, f"ts {ts!r} has an implausible year"


ACTOR = re.compile(r"^(referee|server|side:[A-Za-z0-9_-]{1,32})$")


def verify_chain(events, head=None):
    """Checks a full event list from seq 1; returns the last hash."""
    assert events, "no events"
    prev = ZERO64
    for i, ev in enumerate(events, 1):
        missing = {"seq", "ts", "actor", "type", "data", "prev", "hash"} - set(ev)
        assert not missing, f"event {i} lacks {sorted(missing)}: {ev!r}"
        assert ev["seq"] == i and type(ev["seq"]) is int, f"event #{i} has seq {ev['seq']!r}"
        assert ev["prev"] == prev, f"event {i}: prev {ev['prev']} != previous hash {prev}"
        check_ts(ev["ts"])
        assert isinstance(ev["actor"], str) and ACTOR.match(ev["actor"]), \
            f"event {i}: bad actor {ev['actor']!r}"
        assert isinstance(ev["type"], str) and ev["type"], f"event {i}: bad type"
        assert isinstance(ev["data"], dict), f"event {i}: data is not an object"
        h = event_hash(prev, ev)
        assert ev["hash"] == h, f"event {i}: hash {ev['hash']} but reference computes {h}"
        prev = h
    if head is not None:
        assert head == prev, f"head {head} != last event hash {prev}"
    return prev


# --------------------------------------------------------------------------- dice

def die(seed, session_id, nonce, sides, c=None):
    """The contract's die: HMAC-SHA256(seed, "<session id>:<n>[:k]"), rejection sampling; with
    players' entropy in force (c: the hex digest of the contributions), "<session id>:<n>:<c>"
    and retries "<session id>:<n>:<c>:<k>"."""
    if isinstance(seed, str):
        seed = bytes.fromhex(seed)
    assert 1 <= sides
    limit = 2 ** 32 - (2 ** 32 % sides)
    base = f"{session_id}:{nonce}" if c is None else f"{session_id}:{nonce}:{c}"
    k = 0
    while True:
        msg = base if k == 0 else f"{base}:{k}"
        mac = hmac.new(seed, msg.encode("utf-8"), hashlib.sha256).digest()
        for i in range(8):
            w = int.from_bytes(mac[4 * i:4 * i + 4], "big")
            if w < limit:
                return 1 + w % sides
        k += 1


def sha256_hex_of_hex(seed_hex):
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


# --------------------------------------------------------------------------- notation

DICE_TERM = re.compile(r"^(\d+)d(\d+)(?:(kh|kl)(\d+))?$")
CONST_TERM = re.compile(r"^\d+$")


def parse_term(term):
    m = DICE_TERM.match(term)
    if m:
        n, s = int(m.group(1)), int(m.group(2))
        keep = (m.group(3), int(m.group(4))) if m.group(3) else None
        return {"kind": "dice", "term": term, "n": n, "sides": s, "keep": keep}
    if CONST_TERM.match(term):
        return {"kind": "const", "term": term, "value": int(term)}
    raise ValueError(f"reference cannot parse term {term!r}")


def parse_expr(expr):
    """'3d6kh2+1d4-1' -> [(1, term3d6kh2), (1, term1d4), (-1, const 1)]"""
    parts = re.split(r"([+-])", expr)
    out = []
    sign = 1
    assert parts[0] != "", "reference: leading sign not supported"
    for i, p in enumerate(parts):
        if i % 2 == 1:
            sign = 1 if p == "+" else -1
        else:
            out.append((sign, parse_term(p)))
    return out


def kept(values, keep):
    if keep is None:
        return list(values)
    mode, k = keep
    ordered = sorted(values, reverse=(mode == "kh"))
    return ordered[:k]


def sides_of_notation(notation):
    t = parse_term(notation)
    assert t["kind"] == "dice", notation
    return t["sides"]


def bounds(expr):
    lo = hi = 0
    for sign, t in parse_expr(expr):
        if t["kind"] == "const":
            a = b = t["value"]
        else:
            cnt = t["keep"][1] if t["keep"] else t["n"]
            cnt = min(cnt, t["n"])
            a, b = cnt, cnt * t["sides"]
        if sign > 0:
            lo, hi = lo + a, hi + b
        else:
            lo, hi = lo - b, hi - a
    return lo, hi


def check_roll(expr, result, dice_entries, purpose="roll", manual=False):
    """Checks a generic roll's result and its logged dice against the notation.

    Returns the list of dice entries (one per dice term, in order).
    """
    terms = parse_expr(expr)
    dice_terms = [(s, t) for s, t in terms if t["kind"] == "dice"]
    assert isinstance(result, dict), result
    assert type(result.get("total")) is int, f"result.total not an int: {result!r}"
    assert isinstance(result.get("terms"), list), f"result.terms not a list: {result!r}"
    assert len(result["terms"]) == len(terms), \
        f"result has {len(result['terms'])} terms, {expr!r} has {len(terms)}"
    assert len(dice_entries) == len(dice_terms), \
        f"{len(dice_entries)} dice entries logged, {expr!r} has {len(dice_terms)} dice terms"
    total = 0
    di = 0
    for (sign, t), rt in zip(terms, result["terms"]):
        assert rt.get("term") == t["term"], f"result term {rt!r} != {t['term']!r}"
        assert rt.get("sign") == sign, f"result term {rt!r}: sign should be {sign}"
        if t["kind"] == "const":
            assert rt.get("value") == t["value"], rt
            total += sign * t["value"]
            continue
        entry = dice_entries[di]
        di += 1
        vals = entry.get("values")
        assert entry.get("notation") == t["term"], f"dice entry {entry!r} != term {t['term']}"
        assert entry.get("purpose") == purpose, f"dice entry {entry!r}: purpose != {purpose!r}"
        assert isinstance(vals, list) and len(vals) == t["n"], \
            f"dice entry {entry!r} should have {t['n']} values"
        for v in vals:
            assert type(v) is int and 1 <= v <= t["sides"], f"die {v!r} outside 1..{t['sides']}"
        k = kept(vals, t["keep"])
        assert entry.get("value") == sum(k), f"dice entry {entry!r}: value != sum of kept {k}"
        assert rt.get("values") == vals, f"result term {rt!r} values != logged {vals}"
        assert rt.get("value") == sum(k), f"result term {rt!r} value != {sum(k)}"
        if "kept" in rt or t["keep"]:
            assert sorted(rt.get("kept") or []) == sorted(k), \
                f"result term {rt!r}: kept should be {k}"
        if manual:
            assert entry.get("manual") is True, f"manual die without manual:true: {entry!r}"
            assert "nonce" not in entry, f"manual die carries a nonce: {entry!r}"
        else:
            assert type(entry.get("nonce")) is int and entry["nonce"] >= 1, \
                f"dice entry without a valid nonce: {entry!r}"
        total += sign * sum(k)
    assert result["total"] == total, f"result.total {result['total']} != recomputed {total}"
    lo, hi = bounds(expr)
    assert lo <= total <= hi, f"total {total} outside [{lo},{hi}] for {expr}"
    return dice_entries


def dice_of_event(ev):
    d = ev["data"].get("dice")
    assert isinstance(d, list), f"event {ev['seq']} has no dice list: {ev['data']!r}"
    return d


def flat_dice(events):
    """[(nonce, sides, value)] for every server/seeded die in the given events, in log order."""
    out = []
    for ev in events:
        if ev["type"] == "session_created":
            continue        # its data.dice describes the mode, it rolls nothing
        for entry in ev["data"].get("dice") or []:
            if entry.get("manual"):
                continue
            s = sides_of_notation(entry["notation"])
            for i, v in enumerate(entry["values"]):
                out.append((entry["nonce"] + i, s, v))
    return out


def check_dice_against_seed(seed_hex, session_id, dice):
    """dice: [(nonce, sides, value)]; every value must equal the reference die."""
    seed = bytes.fromhex(seed_hex)
    for nonce, s, v in dice:
        ref = die(seed, session_id, nonce, s)
        assert ref == v, f"nonce {nonce} d{s}: logged {v}, reference die gives {ref}"


def check_consecutive_nonces(dice, first=1):
    nonces = [n for n, _, _ in dice]
    assert nonces == list(range(first, first + len(nonces))), \
        f"nonces are not consecutive from {first}: {nonces}"


# --------------------------------------------------------------------------- Discord

def discord_escaped(text):
    """A summary as Discord gets it (server/live/discord_text.h, examples/discord-bot.mjs): a
    backslash before each markdown character and before the ':' of "://", so the players' words
    never become a masked link or markup."""
    out = "".join("\\" + ch if ch in "\\*_~`|><#-[]()" else ch for ch in text)
    return out.replace("://", "\\://")
