"""Every example scenario in scenarios/ plays through the real daemon and its log verifies."""
import glob
import json
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = sorted(glob.glob(os.path.join(REPO, "scenarios", "*.json")))


@pytest.mark.parametrize("path", SCENARIOS, ids=[os.path.basename(p) for p in SCENARIOS])
def test_scenario_plays_and_verifies(umpire, path):
    with open(path) as f:
        scenario = json.load(f)
    r = umpire.post("/v1/sessions", scenario["session"])
    assert r.status == 201, r
    sid = r.body["session"]["id"]
    tokens = r.body["tokens"]
    for i, action in enumerate(scenario["actions"]):
        body = dict(action)
        who = body.pop("as")
        token = tokens["referee"] if who == "referee" else tokens["sides"][who]
        r = umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)
        assert r.status == 200, f"action {i} of {path}: {r!r}"
        assert r.body["summary"]
    r = umpire.get(f"/v1/sessions/{sid}/verify", token=tokens["referee"])
    assert r.status == 200
    assert r.body["ok"] is True, r.body
    assert r.body["actions_readjudicated"] == len(scenario["actions"])


def test_there_is_a_scenario_for_every_ruleset(umpire):
    r = umpire.get("/v1/rulesets")
    played = set()
    for path in SCENARIOS:
        with open(path) as f:
            played.add(json.load(f)["session"]["ruleset"])
    missing = {rs["id"] for rs in r.body["rulesets"]} - played
    assert not missing, f"rulesets without a scenario in scenarios/: {missing}"
