"""GET /v1/health, routing (404/405) and the ruleset catalogue."""

import re

import pytest

from umpire_client import assert_error, expect


def test_health(umpire):
    r = umpire.get("/v1/health")
    body = expect(r, 200)
    assert body["status"] == "ok"
    assert isinstance(body["version"], str) and re.match(r"^\d+\.\d+\.\d+", body["version"]), body


def test_health_keeps_connection_alive(umpire):
    for _ in range(5):
        expect(umpire.get("/v1/health"), 200)


@pytest.mark.parametrize("path", [
    "/v1/nope",
    "/no-such-file.html",  # "/" is the web client (tests/integration/test_web_static.py)
    "/v2/health",
    "/v1/health/extra",
    "/v1/rulesets/generic/nope",
    "/v1/sessions/0123456789abcdef0123456789abcdef/nope",
])
def test_unknown_route_is_404_route_not_found(umpire, path):
    assert_error(umpire.get(path), 404, "route_not_found")
    expect(umpire.get("/v1/health"), 200)


def _allow(resp):
    allow = resp.header("Allow")
    assert allow, f"405 without an Allow header: {resp!r}"
    return {m.strip().upper() for m in allow.split(",") if m.strip()}


@pytest.mark.parametrize("method,path,allowed", [
    ("POST", "/v1/health", {"GET"}),
    ("DELETE", "/v1/health", {"GET"}),
    ("POST", "/v1/rulesets", {"GET"}),
    ("PUT", "/v1/rulesets/generic", {"GET"}),
    ("GET", "/v1/sessions", {"POST"}),
    ("DELETE", "/v1/sessions", {"POST"}),
])
def test_wrong_method_is_405_with_allow(umpire, method, path, allowed):
    body = b"{}" if method in ("POST", "PUT") else None
    r = umpire.request(method, path, raw=body)
    assert_error(r, 405, "method_not_allowed")
    got = _allow(r)
    assert allowed <= got, f"Allow {got} should list {allowed}"
    assert method not in got, f"Allow {got} lists the refused method {method}"


def test_wrong_method_on_session_routes(umpire):
    s = umpire.create_session()
    sid = s["session"]["id"]
    ref = s["tokens"]["referee"]
    for method, path, allowed in [
        ("DELETE", f"/v1/sessions/{sid}", {"GET"}),
        ("GET", f"/v1/sessions/{sid}/actions", {"POST"}),
        ("PUT", f"/v1/sessions/{sid}/actions", {"POST"}),
        ("GET", f"/v1/sessions/{sid}/reveal", {"POST"}),
        ("POST", f"/v1/sessions/{sid}/events", {"GET"}),
    ]:
        r = umpire.request(method, path, token=ref,
                           raw=b"{}" if method in ("POST", "PUT") else None)
        assert_error(r, 405, "method_not_allowed")
        got = _allow(r)
        assert allowed <= got and method not in got, f"{method} {path}: Allow {got}"
    # nothing was written by any of them
    assert umpire.session(sid, ref)["version"] == 1


def test_rulesets_lists_generic(umpire):
    body = expect(umpire.get("/v1/rulesets"), 200)
    assert isinstance(body.get("rulesets"), list), body
    by_id = {r["id"]: r for r in body["rulesets"]}
    assert "generic" in by_id, body
    g = by_id["generic"]
    assert isinstance(g.get("title"), str) and g["title"], g
    assert isinstance(g.get("actions"), list) and "roll" in g["actions"], g
    assert type(g.get("version")) is int, g


def test_ruleset_generic(umpire):
    body = expect(umpire.get("/v1/rulesets/generic"), 200)
    assert body["id"] == "generic"
    assert isinstance(body.get("title"), str)
    assert type(body.get("version")) is int
    assert isinstance(body.get("description"), str)
    assert isinstance(body.get("options"), list)
    assert isinstance(body.get("sources"), list)
    actions = {a["type"]: a for a in body["actions"]}
    assert "roll" in actions, body
    fields = {f["name"]: f for f in actions["roll"]["fields"]}
    assert "expr" in fields, fields
    assert fields["expr"]["required"] is True
    assert fields["expr"]["type"]
    assert "purpose" in fields and fields["purpose"]["required"] is False, fields


@pytest.mark.parametrize("rs", ["nope", "magic-realm-9"])
def test_unknown_ruleset_is_404(umpire, rs):
    assert_error(umpire.get(f"/v1/rulesets/{rs}"), 404, "ruleset_not_found")
