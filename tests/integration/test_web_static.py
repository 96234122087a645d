"""The web client's files and the example scenarios, served from what the daemon carries
(scripts/embed-files): GET /, static files with their types and security headers, ETag
revalidation, no path outside the table, and /v1/scenarios listing every scenario file."""

import json
from pathlib import Path

from umpire_client import REPO_ROOT, raw_request  # noqa: F401

WEB = REPO_ROOT / "web"
SCENARIOS = REPO_ROOT / "scenarios"


def web_files():
    return sorted(p for p in WEB.rglob("*")
                  if p.is_file() and not any(part.startswith(".") for part in p.parts)
                  and "node_modules" not in p.parts)


def test_index_is_served_at_root_with_security_headers(umpire):
    r = umpire.get("/")
    assert r.status == 200, r
    assert r.header("Content-Type") == "text/html; charset=utf-8"
    assert r.raw == (WEB / "index.html").read_bytes()
    csp = r.header("Content-Security-Policy")
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert r.header("X-Content-Type-Options") == "nosniff"
    assert r.header("Referrer-Policy") == "no-referrer"
    assert r.header("ETag")


def test_every_web_file_is_served_byte_for_byte(umpire):
    files = web_files()
    assert files, "web/ holds the client"
    types = {".html": "text/html", ".js": "text/javascript", ".css": "text/css",
             ".svg": "image/svg+xml", ".json": "application/json"}
    for p in files:
        rel = "/" + p.relative_to(WEB).as_posix()
        r = umpire.get(rel)
        assert r.status == 200, (rel, r)
        assert r.raw == p.read_bytes(), rel
        want = types.get(p.suffix)
        if want:
            assert r.header("Content-Type").startswith(want), (rel, r.header("Content-Type"))


def test_etag_revalidation_and_head(umpire):
    r = umpire.get("/index.html")
    etag = r.header("ETag")
    assert etag and etag.startswith('"')
    again = umpire.get("/index.html", headers={"If-None-Match": etag})
    assert again.status == 304 and again.raw == b""
    other = umpire.get("/index.html", headers={"If-None-Match": '"0000000000000000"'})
    assert other.status == 200
    head = umpire.request("HEAD", "/index.html")
    assert head.status == 200 and head.raw == b""
    assert int(head.header("Content-Length")) == (WEB / "index.html").stat().st_size


def test_nothing_outside_the_table(umpire, daemon):
    for path in ["/nope.html", "/../Makefile", "/%2e%2e/Makefile", "/web/index.html",
                 "//etc/passwd", "/index.html/", "/.gitignore"]:
        r = umpire.get(path)
        assert r.status in (400, 404), (path, r)
    r = umpire.post("/index.html", {"x": 1})
    assert r.status == 405 and r.header("Allow") == "GET, HEAD"
    # /v1 paths are never files: the API's own 404 answers
    r = umpire.get("/v1/nope")
    assert r.status == 404 and r.body["error"]["code"] == "route_not_found"


def test_scenarios_list_every_file(umpire):
    r = umpire.get("/v1/scenarios")
    assert r.status == 200
    listed = r.body["scenarios"]
    files = sorted(SCENARIOS.glob("*.json"))
    assert [s["id"] for s in listed] == [p.stem for p in files]
    for s, p in zip(listed, files):
        doc = json.loads(p.read_text())
        assert s["ruleset"] == doc["session"]["ruleset"]
        assert s["title"] == doc["session"]["title"]
    # one per registered ruleset at least
    rulesets = {rs["id"] for rs in umpire.get("/v1/rulesets").body["rulesets"]}
    assert rulesets <= {s["ruleset"] for s in listed}


def test_each_scenario_creates_a_session(umpire):
    for s in umpire.get("/v1/scenarios").body["scenarios"]:
        r = umpire.get(f"/v1/scenarios/{s['id']}")
        assert r.status == 200
        assert r.raw == (SCENARIOS / f"{s['id']}.json").read_bytes()
        created = umpire.post("/v1/sessions", r.body["session"])
        assert created.status == 201, (s["id"], created)
    r = umpire.get("/v1/scenarios/no-such-scenario")
    assert r.status == 404 and r.body["error"]["code"] == "scenario_not_found"
