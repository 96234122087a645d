"""Moving a SQLite database to PostgreSQL with `umpired export` / `umpired import`
(docs/deploy.md section 4), then serving it from two nodes.

On SQLite: every example scenario (each ruleset), a generic session in server dice mode with a
reveal, more dice after it, an Idempotency-Key and a webhook, and a generic manual-mode one.
After the move every session has the same version, head, events and state, GET /verify is ok
(with the old head), tokens and the idempotency key still work, the unrevealed server seed came
along (a reveal on PostgreSQL opens the old commitment), and a new action continues the chain.

Refused imports write nothing: a cut-off file (no end line; cut mid-line), an event whose data
was altered, a session rewritten consistently (hashes and head recomputed: only the
re-adjudication can tell), and the same file imported a second time."""

import glob
import hashlib
import json
import os
import re
import time

from scaleout_util import (REPO_ROOT, Client, check_log, event_hash, free_port, jcs, run_cli,
                           verify_ok)

WEBHOOK_CONFIG = """[webhooks]
allow_hosts = "127.0.0.1"
max_attempts = 1
retry_base_ms = 100
timeout_ms = 1000
"""
SCENARIOS = sorted(glob.glob(str(REPO_ROOT / "scenarios" / "*.json")))
DATA_TABLES = ("sessions", "tokens", "events", "idempotency", "webhooks")


def play_scenario(client, path):
    with open(path) as f:
        sc = json.load(f)
    r = client.post("/v1/sessions", sc["session"])
    assert r.status == 201, f"{os.path.basename(path)}: {r!r}"
    sid, tokens = r.body["session"]["id"], r.body["tokens"]
    for i, action in enumerate(sc["actions"]):
        body = dict(action)
        who = body.pop("as")
        tok = tokens["referee"] if who == "referee" else tokens["sides"][who]
        a = client.post(f"/v1/sessions/{sid}/actions", body, token=tok)
        assert a.status == 200, f"action {i} of {os.path.basename(path)}: {a!r}"
    return {"sid": sid, "tokens": tokens, "ruleset": sc["session"]["ruleset"],
            "name": os.path.basename(path), "mode": sc["session"].get("dice", {}).get("mode")}


def snapshot(client, sess):
    sid, ref = sess["sid"], sess["tokens"]["referee"]
    evs, page = check_log(client, sid, ref, limit=25)
    r = client.get(f"/v1/sessions/{sid}", token=ref)
    assert r.status == 200, r
    rep = verify_ok(client, sid, ref, events=len(evs), head=page["head"])
    return {"version": page["version"], "head": page["head"], "events": evs,
            "session": r.body["session"], "state": r.body["state"],
            "verify": {k: rep[k] for k in ("events", "head", "dice_checked",
                                           "actions_readjudicated")}}


def parse_dump(text):
    lines = text.split("\n")
    assert lines[-1] == "", "the export does not end with a newline"
    lines = lines[:-1]
    head, end = json.loads(lines[0]), json.loads(lines[-1])
    assert head.get("umpire_export") == 1 and isinstance(head.get("tables"), list), lines[0]
    assert end.get("end") is True and end.get("rows") == len(lines) - 2, \
        f"end line {lines[-1]} but {len(lines) - 2} row lines"
    rows = [json.loads(x) for x in lines[1:-1]]
    for r in rows:
        assert r["table"] in head["tables"], r
    return head, rows


def dump_text(head, rows):
    lines = [json.dumps(head, separators=(",", ":"))]
    lines += [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in rows]
    lines.append(json.dumps({"end": True, "rows": len(rows)}, separators=(",", ":")))
    return "\n".join(lines) + "\n"


def rehash_session(rows, sid, from_seq):
    """Recomputes prev/hash of sid's events from from_seq on and the sessions row's head, as
    someone rewriting history carefully would."""
    evs = sorted((r["row"] for r in rows if r["table"] == "events"
                  and r["row"]["session_id"] == sid), key=lambda e: int(e["seq"]))
    prev = evs[from_seq - 2]["hash"]
    for e in evs[from_seq - 1:]:
        e["prev"] = prev
        e["hash"] = prev = event_hash(prev, {"seq": int(e["seq"]), "ts": e["ts"], "actor": e["actor"],
                                             "type": e["type"], "data": json.loads(e["data"])})
    for r in rows:
        if r["table"] == "sessions" and r["row"]["id"] == sid:
            r["row"]["head"] = prev
    return prev


def event_row(rows, sid, seq):
    for r in rows:
        if r["table"] == "events" and r["row"]["session_id"] == sid and int(r["row"]["seq"]) == seq:
            return r["row"]
    raise AssertionError(f"no event {sid}/{seq} in the export")


def data_counts(cluster, db):
    tables = [r[0] for r in cluster.sql("SELECT table_name FROM information_schema.tables "
                                        "WHERE table_schema = 'public'", db=db)]
    return {t: cluster.sql(f'SELECT count(*) FROM "{t}"', db=db)[0][0]
            for t in DATA_TABLES if t in tables}


def refused_import(cluster, db, path, what, must_name=None):
    p = run_cli("import", "--db", db, "--file", path)
    assert p.returncode == 1, f"import of {what}: exit {p.returncode}, want 1\n" \
                              f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}"
    assert p.stderr.strip(), f"import of {what}: exit 1 without a message on stderr"
    if must_name:
        assert must_name in p.stderr, \
            f"import of {what}: the message does not name session {must_name}: {p.stderr!r}"
    counts = data_counts(cluster, db)
    assert not any(counts.values()), f"the refused import of {what} left rows behind: {counts}"
    return p.stderr.strip().splitlines()[-1]


def test_sqlite_to_postgresql(cluster):
    work = cluster.tmpdir()
    sqlite_db = os.path.join(work, "umpire.db")
    hook_url = f"http://127.0.0.1:{free_port()}/hook"    # nothing listens: deliveries fail
    s_node = cluster.node("sqlite", db=sqlite_db, config=WEBHOOK_CONFIG)
    c = Client(s_node)
    sessions = [play_scenario(c, p) for p in SCENARIOS]
    assert len({s["ruleset"] for s in sessions}) >= 2

    # generic, server dice: rolls, a reveal, more rolls (an unrevealed seed), a key, a webhook
    s = c.create_session(sides=("red", "blue"), mode="server",
                         units=[{"id": "r1", "side": "red"}, {"id": "b1", "side": "blue"}])
    srv = {"sid": s["session"]["id"], "tokens": s["tokens"], "ruleset": "generic",
           "name": "generic-server", "mode": "server"}
    sid, ref = srv["sid"], srv["tokens"]["referee"]
    for expr in ("2d6", "3d6kh2+1", "1d20"):
        c.roll(sid, ref, expr)
    r = c.post(f"/v1/sessions/{sid}/reveal", {}, token=ref)
    assert r.status == 200, r
    c.roll(sid, s["tokens"]["sides"]["red"], "1d8", unit="r1")
    idem = c.post(f"/v1/sessions/{sid}/actions", {"type": "roll", "expr": "4d6kl3"}, token=ref,
                  headers={"Idempotency-Key": "before-the-move"})
    assert idem.status == 200, idem
    r = c.request("PUT", f"/v1/sessions/{sid}/webhooks", token=ref,
                  body={"webhooks": [{"url": hook_url, "format": "event"}]})
    assert r.status == 200, r
    c.roll(sid, ref, "1d6")
    sessions.append(srv)
    # generic, manual dice
    s = c.create_session(sides=("x",), mode="manual")
    man = {"sid": s["session"]["id"], "tokens": s["tokens"], "ruleset": "generic",
           "name": "generic-manual", "mode": "manual"}
    c.roll(man["sid"], man["tokens"]["referee"], "2d6", dice=[6, 1])
    sessions.append(man)

    before = {x["sid"]: snapshot(c, x) for x in sessions}
    c.close()
    rc = s_node.stop()
    assert rc == 0, f"SQLite node: exit {rc} on SIGTERM\n{s_node.log_tail()}"

    # ---- export ------------------------------------------------------------------------
    dump = os.path.join(work, "dump.jsonl")
    t0 = time.monotonic()
    p = run_cli("export", "--db", sqlite_db, "--file", dump)
    t_export = time.monotonic() - t0
    assert p.returncode == 0, f"export: exit {p.returncode}\n{p.stderr}"
    with open(dump, encoding="utf-8") as f:
        text = f.read()
    head, rows = parse_dump(text)
    n_events = sum(b["version"] for b in before.values())
    by_table = {t: sum(1 for r in rows if r["table"] == t) for t in head["tables"]}
    assert by_table.get("sessions") == len(sessions) and by_table.get("events") == n_events, \
        f"export rows per table {by_table}, want {len(sessions)} sessions, {n_events} events"

    # ---- refused imports write nothing (all into the database the good import uses) -----
    target = cluster.new_db()
    lines = text.split("\n")
    bad = {}
    path = os.path.join(work, "no-end.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:-2]) + "\n")                  # the end line is gone
    bad["no end line"] = refused_import(cluster, target, path, "a file without its end line")
    path = os.path.join(work, "cut.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:len(text) // 2])                         # cut in the middle of a line
    bad["cut mid-line"] = refused_import(cluster, target, path, "a file cut in the middle")

    duel = next(x for x in sessions if x["name"] == "generic-duel.json")
    h2, rows2 = parse_dump(text)
    ev = event_row(rows2, duel["sid"], 3)
    data = json.loads(ev["data"])
    data["result"]["total"] += 1
    ev["data"] = jcs(data)
    path = os.path.join(work, "altered.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dump_text(h2, rows2))
    bad["event data altered"] = refused_import(cluster, target, path, "an altered event",
                                               must_name=duel["sid"])

    h3, rows3 = parse_dump(text)
    # sanity of the rewrite tool: recomputing an untouched chain gives the same hashes
    assert rehash_session(rows3, srv["sid"], 2) == before[srv["sid"]]["head"]
    ev = event_row(rows3, srv["sid"], 3)
    data = json.loads(ev["data"])
    data["result"]["total"] += 1
    ev["data"] = jcs(data)
    new_head = rehash_session(rows3, srv["sid"], 3)
    assert new_head != before[srv["sid"]]["head"]
    path = os.path.join(work, "rewritten.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dump_text(h3, rows3))
    bad["history rewritten, hashes recomputed"] = refused_import(
        cluster, target, path, "a consistently rewritten session (only re-adjudication "
        "catches it)", must_name=srv["sid"])

    # ---- the import ----------------------------------------------------------------------
    t0 = time.monotonic()
    p = run_cli("import", "--db", target, "--file", dump)
    t_import = time.monotonic() - t0
    assert p.returncode == 0, f"import: exit {p.returncode}\nstdout: {p.stdout}\n" \
                              f"stderr: {p.stderr}"
    reported = dict()
    for m in re.finditer(r"^session ([0-9a-f]{32}): version (\d+), head ([0-9a-f]{64}) verified$",
                         p.stdout, re.M):
        reported[m.group(1)] = (int(m.group(2)), m.group(3))
    want = {sid: (b["version"], b["head"]) for sid, b in before.items()}
    assert reported == want, f"import's report {reported}\nwant {want}\nstdout: {p.stdout}"
    counts = data_counts(cluster, target)
    assert counts == {t: by_table.get(t, 0) for t in counts}, \
        f"rows in PostgreSQL {counts}, in the export {by_table}"

    # the same file again: refused, nothing changes
    snap = os.path.join(work, "pg-before.jsonl")
    assert run_cli("export", "--db", target, "--file", snap).returncode == 0
    p2 = run_cli("import", "--db", target, "--file", dump)
    assert p2.returncode == 1 and p2.stderr.strip(), \
        f"a second import of the same file: exit {p2.returncode}\n{p2.stdout}\n{p2.stderr}"
    bad["the same file twice"] = p2.stderr.strip().splitlines()[-1]
    snap2 = os.path.join(work, "pg-after.jsonl")
    assert run_cli("export", "--db", target, "--file", snap2).returncode == 0
    with open(snap, encoding="utf-8") as f1, open(snap2, encoding="utf-8") as f2:
        assert f1.read() == f2.read(), "the refused second import changed the database"

    # ---- two nodes on PostgreSQL serve everything as it was --------------------------------
    p1 = cluster.node("pg1", db=target, config=WEBHOOK_CONFIG)
    p2n = cluster.node("pg2", db=target, config=WEBHOOK_CONFIG)
    c1, c2 = Client(p1), Client(p2n)
    for x in sessions:
        sid, ref, b = x["sid"], x["tokens"]["referee"], before[x["sid"]]
        r = c1.get(f"/v1/sessions/{sid}", token=ref)
        assert r.status == 200, f"{x['name']}: GET session on PostgreSQL: {r!r}"
        assert r.body["session"] == b["session"], \
            f"{x['name']}: session differs:\n{r.body['session']}\n{b['session']}"
        assert r.body["state"] == b["state"], f"{x['name']}: state differs after the move"
        evs, page = check_log(c2, sid, ref, limit=25)
        assert evs == b["events"], f"{x['name']}: the events differ after the move"
        for cl in (c1, c2):
            rep = verify_ok(cl, sid, ref, events=b["version"], head=b["head"])
            got = {k: rep[k] for k in b["verify"]}
            assert got == b["verify"], f"{x['name']}: verify on PostgreSQL {got}, " \
                                       f"on SQLite {b['verify']}"
        for side, tok in x["tokens"]["sides"].items():
            r = c2.get(f"/v1/sessions/{sid}", token=tok)
            assert r.status == 200, f"{x['name']}: side {side}'s token refused: {r!r}"
        r = c1.get(f"/v1/sessions/{sid}", token="ab" * 32)
        assert r.status == 401, f"{x['name']}: an unknown token got {r!r}"

    # new actions continue the chains (generic sessions), through either node
    for x, cl, tok, extra in (
            (duel, c2, duel["tokens"]["sides"]["red"], {"unit": "red-knight"}),
            (srv, c1, srv["tokens"]["referee"], {}),
            (man, c2, man["tokens"]["referee"], {"dice": [4]})):
        b = before[x["sid"]]
        expr = "1d6"
        ans = cl.roll(x["sid"], tok, expr, **extra).body
        assert ans["version"] == b["version"] + 1, f"{x['name']}: {ans}"
        evs, page = check_log(c1 if cl is c2 else c2, x["sid"], x["tokens"]["referee"])
        assert evs[-1]["prev"] == b["head"] and evs[-1]["hash"] == ans["head"], \
            f"{x['name']}: the new event's prev {evs[-1]['prev']} is not the old head {b['head']}"
        verify_ok(cl, x["sid"], x["tokens"]["referee"], events=len(evs), head=ans["head"])

    # the idempotency key moved: the same answer, byte for byte, and nothing appended
    sid, ref = srv["sid"], srv["tokens"]["referee"]
    v = c2.session(sid, ref)["version"]
    r = c2.post(f"/v1/sessions/{sid}/actions", {"type": "roll", "expr": "4d6kl3"}, token=ref,
                headers={"Idempotency-Key": "before-the-move"})
    assert r.status == 200 and r.raw == idem.raw, f"the key's replay after the move: {r!r}"
    assert (r.header("Idempotent-Replay") or "").lower() == "true", dict(r.headers)
    assert c1.session(sid, ref)["version"] == v
    # the unrevealed server seed moved: a reveal opens the commitment made on SQLite
    commitment = before[sid]["session"]["dice"]["commitment"]
    r = c1.post(f"/v1/sessions/{sid}/reveal", {}, token=ref)
    assert r.status == 200, r
    rev = r.body["revealed"]
    assert rev["commitment"] == commitment, f"revealed {rev}, SQLite's commitment {commitment}"
    assert hashlib.sha256(bytes.fromhex(rev["seed"])).hexdigest() == commitment
    evs, page = check_log(c2, sid, ref)
    rep = verify_ok(c2, sid, ref, events=len(evs), head=page["head"])
    n_dice = sum(len(d["values"]) for e in evs for d in (e["data"].get("dice") or [])
                 if isinstance(d, dict) and "values" in d)
    assert rep["dice_checked"] == n_dice, f"{rep}: {n_dice} dice in the log, all revealed"
    # the webhook list moved
    r = c1.get(f"/v1/sessions/{sid}/webhooks", token=ref)
    assert r.status == 200, r
    assert [(h["url"], h["format"]) for h in r.body["webhooks"]] == [(hook_url, "event")], r
    c1.close()
    c2.close()

    print(f"\nSQLite -> PostgreSQL: {len(sessions)} sessions "
          f"({', '.join(sorted({x['ruleset'] for x in sessions}))}), {n_events} events, "
          f"{len(rows)} rows exported in {t_export * 1000:.0f} ms, imported and verified in "
          f"{t_import * 1000:.0f} ms; refused imports: "
          + "; ".join(f"{k}: {v!r}" for k, v in bad.items()))
