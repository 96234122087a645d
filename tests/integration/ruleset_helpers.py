"""Helpers the rules-module suites share: create a session of a ruleset, act, read its units."""


def create_session(umpire, ruleset, title, setup, sides, mode="manual", options=None):
    """POST /v1/sessions; returns (session id, tokens). Fails the test unless 201."""
    body = {"ruleset": ruleset, "title": title, "sides": list(sides),
            "dice": {"mode": mode}, "setup": setup}
    if options is not None:
        body["options"] = options
    r = umpire.post("/v1/sessions", body)
    assert r.status == 201, r
    return r.body["session"]["id"], r.body["tokens"]


def act(umpire, sid, token, body, status=200):
    """POST an action; returns the answer's body. Fails the test on another status."""
    r = umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)
    assert r.status == status, r
    return r.body


def units(umpire, sid, token):
    """The session's units by id, from GET /v1/sessions/{id}."""
    r = umpire.get(f"/v1/sessions/{sid}", token=token)
    assert r.status == 200, r
    return {u["id"]: u for u in r.body["state"]["units"]}
