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


def claim_accepted(umpire, sid, token, body, accepter):
    """A side's action whose facts are its word (hits without a setup table, a declared hit):
    it answers a pending claim and writes no die; the other side's (or the referee's) accept,
    carrying the action's dice, resolves it. Returns the accept's answer."""
    body = dict(body)
    dice = body.pop("dice", None)
    pending = act(umpire, sid, token, body)
    claim = pending["result"]["claim"]
    assert pending["result"]["pending"] is True and claim["action"] == body["type"], pending
    seq = pending["events"][0]["seq"]
    r = umpire.get(f"/v1/sessions/{sid}/events?after={seq - 1}&limit=1", token=token)
    assert r.status == 200, r
    [ev] = r.body["events"]
    assert ev["type"] == body["type"] and ev["data"]["dice"] == [], ev
    assert "claims:" in pending["summary"] and "to accept or dispute it" in pending["summary"]
    answer = {"type": "accept", "claim": claim["number"]}
    if dice is not None:
        answer["dice"] = dice
    out = act(umpire, sid, accepter, answer)
    assert out["result"]["claim"]["number"] == claim["number"], out
    assert " accepts " in out["summary"], out
    return out


def units(umpire, sid, token):
    """The session's units by id, from GET /v1/sessions/{id}."""
    r = umpire.get(f"/v1/sessions/{sid}", token=token)
    assert r.status == 200, r
    return {u["id"]: u for u in r.body["state"]["units"]}
