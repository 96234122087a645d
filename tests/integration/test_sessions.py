"""POST /v1/sessions, GET /v1/sessions/{id}, GET /v1/sessions/{id}/events."""

import pytest

from umpire_client import assert_error, expect, random_hex
from umpire_ref import (HEX32, HEX64, ZERO64, check_ts, sha256_hex_of_hex,
                        verify_chain)

SEED = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
UNITS = [{"id": "a1", "side": "alice"}, {"id": "b1", "side": "bob"}]


def dice_info(data):
    """The dice part of session_created data: {"mode", "commitment", ["seed"]}."""
    d = data.get("dice")
    assert isinstance(d, dict), f"session_created data has no dice object: {data!r}"
    return d


# --------------------------------------------------------------------------- create

def test_create_session_response_shape(umpire):
    r = umpire.post("/v1/sessions", {"ruleset": "generic", "title": "Bats at the Crag",
                                     "sides": ["alice", "bob"], "visibility": "private",
                                     "dice": {"mode": "server"}, "options": {},
                                     "setup": {"units": UNITS}})
    body = expect(r, 201)
    assert set(body) == {"session", "tokens", "dice"}, body
    s = body["session"]
    assert set(s) == {"id", "ruleset", "version", "head"}, s
    assert HEX32.match(s["id"]), s
    assert s["ruleset"] == "generic"
    assert s["version"] == 1 and type(s["version"]) is int
    assert HEX64.match(s["head"]), s
    t = body["tokens"]
    assert set(t) == {"referee", "sides"}, t
    assert set(t["sides"]) == {"alice", "bob"}, t
    all_tokens = [t["referee"], *t["sides"].values()]
    for tok in all_tokens:
        assert HEX64.match(tok), f"token {tok!r} is not 64 lowercase hex"
    assert len(set(all_tokens)) == 3, "tokens are not distinct"
    assert body["dice"]["mode"] == "server"
    assert set(body["dice"]) == {"mode", "commitment"}, body["dice"]
    assert HEX64.match(body["dice"]["commitment"])


def test_create_sessions_get_distinct_ids_and_tokens(umpire):
    a = umpire.create_session()
    b = umpire.create_session()
    assert a["session"]["id"] != b["session"]["id"]
    assert a["tokens"]["referee"] != b["tokens"]["referee"]
    assert a["dice"]["commitment"] != b["dice"]["commitment"]


def test_create_seeded_commitment_is_sha256_of_seed(umpire):
    body = umpire.create_session(mode="seeded", seed=SEED)
    assert body["dice"] == {"mode": "seeded", "commitment": sha256_hex_of_hex(SEED)}


def test_create_manual_has_no_commitment(umpire):
    body = umpire.create_session(mode="manual")
    assert body["dice"]["mode"] == "manual"
    assert body["dice"].get("commitment") is None, body


def test_create_defaults(umpire):
    r = umpire.post("/v1/sessions", {"ruleset": "generic", "sides": ["solo"]})
    body = expect(r, 201)
    assert body["dice"]["mode"] == "server" and HEX64.match(body["dice"]["commitment"])
    sid = body["session"]["id"]
    # default visibility is private
    assert_error(umpire.get(f"/v1/sessions/{sid}"), 401, "unauthorized")
    s = umpire.session(sid, body["tokens"]["referee"])
    assert s["visibility"] == "private"
    assert s["title"] == ""


def test_create_boundaries_accepted(umpire):
    sides = [f"s{i:02d}" for i in range(15)] + ["A-b_9" + "x" * 27]   # 16 sides, one of 32 chars
    body = umpire.create_session(sides=sides, title="é" * 100)        # 200 bytes
    assert set(body["tokens"]["sides"]) == set(sides)


BASE = {"ruleset": "generic", "sides": ["alice", "bob"]}


def with_(**kw):
    b = dict(BASE)
    for k, v in kw.items():
        if v is DROP:
            b.pop(k, None)
        else:
            b[k] = v
    return b


DROP = object()

INVALID_CREATES = [
    # (id, body, status, code, details.field)
    ("missing-ruleset", with_(ruleset=DROP), 400, "invalid_field", "ruleset"),
    ("ruleset-not-string", with_(ruleset=5), 400, "invalid_field", "ruleset"),
    ("missing-sides", with_(sides=DROP), 400, "invalid_field", "sides"),
    ("sides-not-list", with_(sides="alice"), 400, "invalid_field", "sides"),
    ("sides-object", with_(sides={"alice": 1}), 400, "invalid_field", "sides"),
    ("sides-empty", with_(sides=[]), 400, "invalid_field", "sides"),
    ("sides-17", with_(sides=[f"s{i}" for i in range(17)]), 400, "invalid_field", "sides"),
    ("sides-duplicate", with_(sides=["alice", "alice"]), 400, "invalid_field",
     {"sides", "sides[1]"}),
    ("side-bad-name", with_(sides=["alice", "bad name!"]), 400, "invalid_field", "sides[1]"),
    ("side-empty-name", with_(sides=[""]), 400, "invalid_field", "sides[0]"),
    ("side-33-chars", with_(sides=["x" * 33]), 400, "invalid_field", "sides[0]"),
    ("side-slash", with_(sides=["alice", "a/b"]), 400, "invalid_field", "sides[1]"),
    ("side-not-string", with_(sides=["alice", 7]), 400, "invalid_field", "sides[1]"),
    ("bad-visibility", with_(visibility="secret"), 400, "invalid_field", "visibility"),
    ("visibility-not-string", with_(visibility=True), 400, "invalid_field", "visibility"),
    ("title-not-string", with_(title=12), 400, "invalid_field", "title"),
    ("title-201-bytes", with_(title="x" * 201), 400, "invalid_field", "title"),
    ("title-202-bytes-101-chars", with_(title="é" * 101), 400, "invalid_field", "title"),
    ("dice-not-object", with_(dice="server"), 400, "invalid_field", "dice"),
    ("bad-dice-mode", with_(dice={"mode": "quantum"}), 400, "invalid_field", "dice.mode"),
    ("seeded-without-seed", with_(dice={"mode": "seeded"}), 400, "invalid_field", "dice.seed"),
    ("seed-not-hex", with_(dice={"mode": "seeded", "seed": "zz" * 32}), 400,
     "invalid_field", "dice.seed"),
    ("seed-too-short", with_(dice={"mode": "seeded", "seed": "ab" * 31}), 400,
     "invalid_field", "dice.seed"),
    ("seed-too-long", with_(dice={"mode": "seeded", "seed": "ab" * 33}), 400,
     "invalid_field", "dice.seed"),
    ("seed-not-string", with_(dice={"mode": "seeded", "seed": 12345}), 400,
     "invalid_field", "dice.seed"),
    ("options-not-object", with_(options=[]), 400, "invalid_field", "options"),
    ("setup-not-object", with_(setup="x"), 400, "invalid_field", "setup"),
    ("units-not-list", with_(setup={"units": {"id": "a1"}}), 400, "invalid_field",
     "setup.units"),
    ("unit-not-object", with_(setup={"units": ["a1"]}), 400, "invalid_field",
     "setup.units[0]"),
    ("unit-without-id", with_(setup={"units": [{"side": "alice"}]}), 400, "invalid_field",
     "setup.units[0].id"),
    ("unit-id-not-string", with_(setup={"units": [{"id": 1, "side": "alice"}]}), 400,
     "invalid_field", "setup.units[0].id"),
    ("unit-without-side", with_(setup={"units": [{"id": "a1", "side": "alice"},
                                                 {"id": "b1"}]}), 400, "invalid_field",
     "setup.units[1].side"),
    ("unit-unknown-side", with_(setup={"units": [{"id": "a1", "side": "alice"},
                                                 {"id": "c1", "side": "carol"}]}),
     422, "invalid_setup", None),
    ("unit-duplicate-id", with_(setup={"units": [{"id": "a1", "side": "alice"},
                                                 {"id": "a1", "side": "bob"}]}),
     422, "invalid_setup", None),
    ("unknown-ruleset", with_(ruleset="no-such-ruleset"), 404, "ruleset_not_found", None),
]


@pytest.mark.parametrize("body,status,code,field",
                         [c[1:] for c in INVALID_CREATES], ids=[c[0] for c in INVALID_CREATES])
def test_create_invalid(umpire, body, status, code, field):
    err = assert_error(umpire.post("/v1/sessions", body), status, code, field)
    if code == "invalid_field":
        assert "expected" in err["details"], f"invalid_field without details.expected: {err}"
    if code == "invalid_setup" and "field" in err["details"]:
        assert err["details"]["field"].startswith("setup.units[1]"), err
    # the daemon is still fine and still creates sessions
    expect(umpire.get("/v1/health"), 200)
    assert umpire.create_session()["session"]["version"] == 1


RAW_INVALID = [
    ("truncated", b'{"ruleset": "generic", "sides": ["a"]'),
    ("trailing-comma", b'{"ruleset": "generic", "sides": ["a"],}'),
    ("trailing-garbage", b'{"ruleset": "generic", "sides": ["a"]} x'),
    ("two-documents", b'{"ruleset": "generic", "sides": ["a"]}{}'),
    ("empty-body", b""),
    ("single-quotes", b"{'ruleset': 'generic', 'sides': ['a']}"),
    ("nan", b'{"ruleset": "generic", "sides": ["a"], "options": {"x": NaN}}'),
    ("bad-escape", b'{"ruleset": "generic", "sides": ["a"], "title": "\\q"}'),
    ("control-char-in-string", b'{"ruleset": "generic", "sides": ["a"], "title": "a\x01b"}'),
    ("invalid-utf8", b'{"ruleset": "generic", "sides": ["a"], "title": "\xff\xfe"}'),
    ("overlong-utf8", b'{"ruleset": "generic", "sides": ["a"], "title": "\xc0\xaf"}'),
    ("duplicate-key", b'{"ruleset": "generic", "sides": ["a"], "ruleset": "generic"}'),
    ("duplicate-nested-key",
     b'{"ruleset": "generic", "sides": ["a"], "options": {"k": 1, "k": 2}}'),
    ("nesting-66", b'{"ruleset": "generic", "sides": ["a"], "options": {"x": '
     + b"[" * 64 + b"]" * 64 + b"}}"),
    ("nesting-100000", b"[" * 100000 + b"]" * 100000),
    ("nesting-unclosed-100000", b'{"a":' * 100000),
]


@pytest.mark.parametrize("raw", [c[1] for c in RAW_INVALID], ids=[c[0] for c in RAW_INVALID])
def test_create_malformed_json_is_400_invalid_json(umpire, raw):
    err = assert_error(umpire.post("/v1/sessions", raw=raw), 400, "invalid_json")
    assert type(err["details"].get("position")) is int, f"no details.position: {err}"
    assert 0 <= err["details"]["position"] <= len(raw), err
    expect(umpire.get("/v1/health"), 200)


_VIS_AT = b'{"ruleset": "generic", "sides": ["a"], "title": "t", "visibility": @}'
_DUP = b'{"ruleset": "generic", "sides": ["a"], "ruleset": "generic"}'
JSON_POSITIONS = [
    # docs/api.md: the 0-based byte offset where parsing failed -- the last byte of the
    # offending token, or the body's length if it ended too soon
    ("bad-token", b'{"ruleset": x}', 12),
    ("bad-token-later", _VIS_AT, _VIS_AT.index(b"@")),
    ("bad-literal", b'{"ruleset": trux}', 15),
    ("truncated", b'{"ruleset": "generic", "sides": ["a"]', 37),
    ("empty", b"", 0),
    ("trailing-comma", b'{"ruleset": "generic", "sides": ["a"],}', 38),
    ("trailing-garbage", b'{"ruleset": "generic", "sides": ["a"]} x', 39),
    ("duplicate-key", _DUP, _DUP.rindex(b'"ruleset"') + len(b'"ruleset"') - 1),
    ("nesting-65-arrays", b"[" * 100000 + b"]" * 100000, 64),
    ("nesting-65-objects", b'{"a":' * 70, 64 * 5),
]


@pytest.mark.parametrize("raw,position", [c[1:] for c in JSON_POSITIONS],
                         ids=[c[0] for c in JSON_POSITIONS])
def test_invalid_json_position(umpire, raw, position):
    err = assert_error(umpire.post("/v1/sessions", raw=raw), 400, "invalid_json")
    assert err["details"].get("position") == position, err


@pytest.mark.parametrize("raw", [b'["generic"]', b'"generic"', b"42", b"null"])
def test_create_body_not_an_object_is_400(umpire, raw):
    assert_error(umpire.post("/v1/sessions", raw=raw), 400, {"invalid_json", "invalid_field"})


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded",
                                   "application/xml", None])
def test_create_wrong_content_type_is_415(umpire, ctype):
    raw = b'{"ruleset": "generic", "sides": ["a"]}'
    r = umpire.post("/v1/sessions", raw=raw, content_type=ctype)
    assert_error(r, 415, "unsupported_media_type")


@pytest.mark.parametrize("ctype", ["application/json", "application/json; charset=utf-8",
                                   "application/json;charset=UTF-8"])
def test_create_json_content_types_accepted(umpire, ctype):
    raw = b'{"ruleset": "generic", "sides": ["a"]}'
    expect(umpire.post("/v1/sessions", raw=raw, content_type=ctype), 201)


def test_failed_creates_write_nothing(umpire):
    d = umpire.daemon
    ok = umpire.create_session()
    before = d.db_row_counts()
    for _, body, _, _, _ in INVALID_CREATES:
        r = umpire.post("/v1/sessions", body)
        assert 400 <= r.status < 500, r
    for _, raw in RAW_INVALID:
        r = umpire.post("/v1/sessions", raw=raw)
        assert 400 <= r.status < 500, r
    r = umpire.post("/v1/sessions", raw=b'{"ruleset":"generic","sides":["a"]}',
                    content_type="text/plain")
    assert 400 <= r.status < 500, r
    after = d.db_row_counts()
    if before is not None and after is not None:
        assert before == after, f"failed creates changed the database: {before} -> {after}"
    # the earlier session is untouched and the daemon still works
    s = umpire.session(ok["session"]["id"], ok["tokens"]["referee"])
    assert s["version"] == 1 and s["head"] == ok["session"]["head"]
    assert umpire.create_session()["session"]["version"] == 1


# --------------------------------------------------------------------------- GET session

def test_get_session_shape(umpire):
    c = umpire.create_session(units=UNITS, title="T", mode="seeded", seed=SEED)
    sid = c["session"]["id"]
    body = expect(umpire.get(f"/v1/sessions/{sid}", token=c["tokens"]["referee"]), 200)
    s = body["session"]
    assert "state" in body
    for k in ("id", "ruleset", "ruleset_version", "title", "sides", "visibility",
              "version", "head", "created_at", "dice"):
        assert k in s, f"GET session lacks session.{k}: {body!r}"
    assert s["id"] == sid and s["ruleset"] == "generic" and s["title"] == "T"
    assert s["sides"] == ["alice", "bob"] and s["visibility"] == "private"
    assert s["version"] == 1 and s["head"] == c["session"]["head"]
    assert type(s["ruleset_version"]) is int
    check_ts(s["created_at"])
    assert s["dice"]["mode"] == "seeded"
    assert s["dice"]["commitment"] == c["dice"]["commitment"]
    assert s["dice"]["next_nonce"] == 1


def test_get_private_session_token_rules(umpire):
    a = umpire.create_session()
    b = umpire.create_session()
    sid = a["session"]["id"]
    path = f"/v1/sessions/{sid}"
    assert_error(umpire.get(path), 401, "unauthorized")
    assert_error(umpire.get(path, token=random_hex(32)), 401, "unauthorized")
    assert_error(umpire.get(path, token=b["tokens"]["referee"]), 401, "unauthorized")
    assert_error(umpire.get(path, token=b["tokens"]["sides"]["alice"]), 401, "unauthorized")
    assert_error(umpire.get(path, headers={"Authorization": f"Basic {a['tokens']['referee']}"}),
                 401, "unauthorized")
    assert_error(umpire.get(path, headers={"Authorization": "Bearer"}), 401, "unauthorized")
    for tok in [a["tokens"]["referee"], *a["tokens"]["sides"].values()]:
        assert expect(umpire.get(path, token=tok), 200)["session"]["id"] == sid


def test_get_public_session_without_token(umpire):
    c = umpire.create_session(visibility="public")
    sid = c["session"]["id"]
    body = expect(umpire.get(f"/v1/sessions/{sid}"), 200)
    assert body["session"]["visibility"] == "public"
    evs = expect(umpire.get(f"/v1/sessions/{sid}/events"), 200)
    assert evs["events"][0]["type"] == "session_created"


@pytest.mark.parametrize("suffix", ["", "/events"])
def test_unknown_session_is_404(umpire, suffix):
    c = umpire.create_session()
    path = f"/v1/sessions/{random_hex(16)}{suffix}"
    assert_error(umpire.get(path), 404, "session_not_found")
    assert_error(umpire.get(path, token=c["tokens"]["referee"]), 404, "session_not_found")


def test_private_events_need_a_token(umpire):
    a = umpire.create_session()
    b = umpire.create_session()
    path = f"/v1/sessions/{a['session']['id']}/events"
    assert_error(umpire.get(path), 401, "unauthorized")
    assert_error(umpire.get(path, token=random_hex(32)), 401, "unauthorized")
    assert_error(umpire.get(path, token=b["tokens"]["referee"]), 401, "unauthorized")
    expect(umpire.get(path, token=a["tokens"]["sides"]["bob"]), 200)


# --------------------------------------------------------------------------- events

def test_event1_session_created_seeded(umpire):
    title = 'Fledermäuse "am" Felsen ⚔\n\ttab/slash\\'
    c = umpire.create_session(units=UNITS, title=title, mode="seeded", seed=SEED,
                              options={})
    sid, ref = c["session"]["id"], c["tokens"]["referee"]
    evs, page = umpire.events(sid, ref)
    assert len(evs) == 1
    ev = evs[0]
    assert ev["seq"] == 1 and ev["type"] == "session_created" and ev["actor"] == "server"
    assert ev["prev"] == ZERO64
    assert ev["hash"] == c["session"]["head"]
    data = ev["data"]
    assert data["ruleset"] == "generic"
    assert data["title"] == title
    assert data["sides"] == ["alice", "bob"]
    assert data["options"] == {}
    assert data["setup"]["units"] == UNITS
    d = dice_info(data)
    assert d["mode"] == "seeded"
    assert d["commitment"] == sha256_hex_of_hex(SEED)
    assert d["seed"] == SEED
    verify_chain(evs, head=c["session"]["head"])


def test_event1_session_created_server_has_commitment(umpire):
    c = umpire.create_session(units=UNITS, title="srv")
    evs, _ = umpire.events(c["session"]["id"], c["tokens"]["referee"])
    data = evs[0]["data"]
    assert data["title"] == "srv" and data["setup"]["units"] == UNITS
    d = dice_info(data)
    assert d["mode"] == "server"
    assert d["commitment"] == c["dice"]["commitment"]
    assert "seed" not in d, f"server mode must never log the seed at creation: {data!r}"
    verify_chain(evs, head=c["session"]["head"])


def test_event1_session_created_manual(umpire):
    c = umpire.create_session(mode="manual")
    evs, _ = umpire.events(c["session"]["id"], c["tokens"]["referee"])
    d = dice_info(evs[0]["data"])
    assert d["mode"] == "manual"
    assert "seed" not in d
    verify_chain(evs, head=c["session"]["head"])


def test_events_paging(umpire):
    c = umpire.create_session(mode="seeded", seed=SEED)
    sid, ref = c["session"]["id"], c["tokens"]["referee"]
    heads = [c["session"]["head"]]
    for _ in range(5):
        heads.append(umpire.roll(sid, ref, "1d6").body["head"])
    base = f"/v1/sessions/{sid}/events"
    p = expect(umpire.get(f"{base}?after=0&limit=2", token=ref), 200)
    assert [e["seq"] for e in p["events"]] == [1, 2]
    assert p["next_after"] == 2 and p["version"] == 6 and p["head"] == heads[-1]
    p = expect(umpire.get(f"{base}?after=2&limit=2", token=ref), 200)
    assert [e["seq"] for e in p["events"]] == [3, 4] and p["next_after"] == 4
    p = expect(umpire.get(f"{base}?after=4&limit=100", token=ref), 200)
    assert [e["seq"] for e in p["events"]] == [5, 6] and p["next_after"] == 6
    p = expect(umpire.get(f"{base}?after=6", token=ref), 200)
    assert p["events"] == [] and p["next_after"] == 6 and p["version"] == 6
    p = expect(umpire.get(f"{base}?after=100", token=ref), 200)
    assert p["events"] == [] and p["next_after"] == 100
    p = expect(umpire.get(base, token=ref), 200)      # defaults: after=0, limit=100
    assert [e["seq"] for e in p["events"]] == [1, 2, 3, 4, 5, 6]
    assert [e["hash"] for e in p["events"]] == heads
    verify_chain(p["events"], head=p["head"])
    p = expect(umpire.get(f"{base}?limit=1000", token=ref), 200)
    assert len(p["events"]) == 6
    p = expect(umpire.get(f"{base}?limit=1&after=3", token=ref), 200)
    assert [e["seq"] for e in p["events"]] == [4]


@pytest.mark.parametrize("query,field", [
    ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=abc", "limit"),
    ("limit=-1", "limit"), ("after=abc", "after"), ("after=-1", "after"),
])
def test_events_bad_query(umpire, query, field):
    c = umpire.create_session()
    r = umpire.get(f"/v1/sessions/{c['session']['id']}/events?{query}",
                   token=c["tokens"]["referee"])
    assert_error(r, 400, "invalid_field", field)


def test_event_timestamps_and_chain(umpire):
    c = umpire.create_session(units=UNITS)
    sid, ref = c["session"]["id"], c["tokens"]["referee"]
    for expr in ["1d6", "2d6+1", "3d6kh2+1d4-1"]:
        umpire.roll(sid, ref, expr)
    umpire.roll(sid, c["tokens"]["sides"]["alice"], "1d20", unit="a1")
    evs, page = umpire.events(sid, ref)
    assert len(evs) == 5
    verify_chain(evs, head=page["head"])
    s = umpire.session(sid, ref)
    assert s["version"] == 5 and s["head"] == evs[-1]["hash"]
    ts = [e["ts"] for e in evs]
    assert ts == sorted(ts), f"timestamps go backwards: {ts}"


@pytest.mark.parametrize("title", [
    "ctl \x01\x08\x0c\x1f del \x7f end",
    "emoji \U0001F600 and \u2028 \u2029 and \ufeff bom",
    "quote \" backslash \\ slash / <script>",
    "nul \x00 inside",
])
def test_titles_survive_jcs_and_the_chain(umpire, title):
    """Control characters, non-BMP characters and NUL either round-trip exactly into event 1
    (whose hash the reference recomputes with RFC 8785 escaping) or are refused as a field."""
    r = umpire.post("/v1/sessions", {"ruleset": "generic", "sides": ["a"], "title": title})
    if r.status == 400:
        assert_error(r, 400, "invalid_field", "title")
        return
    c = expect(r, 201)
    evs, page = umpire.events(c["session"]["id"], c["tokens"]["referee"])
    assert evs[0]["data"]["title"] == title
    verify_chain(evs, head=c["session"]["head"])
    assert umpire.session(c["session"]["id"], c["tokens"]["referee"])["title"] == title
