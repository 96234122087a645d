"""Claims (issue 23, item 3): without a setup table a side's hits, and a magic-realm side's
declared hit, are its word alone. Such an action does not resolve: it becomes the session's
pending claim, and the side it acts against (or the referee) accepts it, when it resolves with
its dice, or disputes it, when nothing is resolved. Nothing else happens while it is pending."""
import copy
import json
from pathlib import Path

from umpire_client import assert_error, expect

from ruleset_helpers import act, create_session, units

REPO = Path(__file__).resolve().parents[2]
HM = json.loads((REPO / "scenarios" / "horse-and-musket-la-haye-sainte.json").read_text())
VM = json.loads((REPO / "scenarios" / "vis-magica-bog-and-cliffs.json").read_text())
MR = json.loads((REPO / "scenarios" / "magic-realm-bats-at-the-crag.json").read_text())
SHOT = {"type": "fire", "unit": "fr-guard", "target": "br-redcoats", "hits": 1}


def hm_in_fire_phase(umpire, mode="manual", options=None):
    if mode == "seeded":   # the scenario's own session: seeded dice
        r = umpire.post("/v1/sessions", HM["session"])
        assert r.status == 201, r
        sid, tok = r.body["session"]["id"], r.body["tokens"]
    else:
        sid, tok = create_session(umpire, "horse-and-musket", "claims", HM["session"]["setup"],
                                  ("french", "british"), mode, options)
    act(umpire, sid, tok["sides"]["french"], {"type": "end_phase"})
    return sid, tok["referee"], tok["sides"]["french"], tok["sides"]["british"]


def post(umpire, sid, token, body):
    return umpire.post(f"/v1/sessions/{sid}/actions", body, token=token)


def state(umpire, sid, token):
    return expect(umpire.get(f"/v1/sessions/{sid}", token=token), 200)["state"]


def test_a_side_s_hits_wait_for_the_other_side(umpire):
    sid, ref, fr, br = hm_in_fire_phase(umpire)
    before = units(umpire, sid, ref)
    # Dice sent with a claim: it rolls none now, says where they go, and writes nothing.
    err = assert_error(post(umpire, sid, fr, dict(SHOT, dice=[4])), 422, "dice_required")
    assert "becomes a claim" in err["message"] and err["details"]["needed"] == []
    out = act(umpire, sid, fr, SHOT)
    claim = out["result"]["claim"]
    assert out["result"]["pending"] is True
    assert (claim["number"], claim["action"], claim["unit"], claim["by"], claim["awaiting"]) == \
        (1, "fire", "fr-guard", "french", "british")
    assert claim["fields"] == {"target": "br-redcoats", "hits": 1}
    assert out["summary"] == ("french claims: fr-guard fires at br-redcoats: 1 hit. Waiting for "
                              "british or the referee to accept or dispute it (claim 1)")
    st = state(umpire, sid, ref)
    assert st["claim"] == claim and units(umpire, sid, ref) == before
    assert st["turn"]["phase"] == "fire"
    version = umpire.session(sid, token=ref)["version"]

    # Nothing else happens while it is pending: not another shot, not the end of the phase,
    # not the referee's move. Nothing is written.
    err = assert_error(post(umpire, sid, fr, dict(SHOT, unit="fr-line")), 409, "claim_pending")
    assert err["details"]["claim"]["number"] == 1
    assert "british or the referee accepts or disputes it first" in err["message"]
    assert_error(post(umpire, sid, fr, {"type": "end_phase"}), 409, "claim_pending")
    assert_error(post(umpire, sid, ref, {"type": "move", "unit": "fr-line", "to": [100, 40]}),
                 409, "claim_pending")
    # The claimant may not accept its own word; the number must be the pending claim's; the
    # fields are checked.
    assert_error(post(umpire, sid, fr, {"type": "accept", "claim": 1, "dice": [4]}), 403,
                 "own_claim")
    err = assert_error(post(umpire, sid, br, {"type": "accept", "claim": 2, "dice": [4]}), 422,
                       "claim_mismatch")
    assert "claim 1 is the one pending, not 2" in err["message"]
    assert_error(post(umpire, sid, br, {"type": "accept", "dice": [4]}), 400, "invalid_field",
                 "claim")
    assert_error(post(umpire, sid, br, {"type": "accept", "claim": "1", "dice": [4]}), 400,
                 "invalid_field", "claim")
    assert_error(post(umpire, sid, br, {"type": "accept", "claim": 1, "hits": 3, "dice": [4]}),
                 400, "invalid_field")
    assert umpire.session(sid, token=ref)["version"] == version

    # The British accept: the shot resolves as claimed, its die rolled now (4 + Picton passes).
    out = act(umpire, sid, br, {"type": "accept", "claim": 1, "dice": [4]})
    assert out["summary"].startswith("british accepts french's claim 1: fr-guard fires at "
                                     "br-redcoats: 1 hit; br-redcoats loses 25%"), out["summary"]
    assert out["result"]["claim"] == {"number": 1, "by": "french", "accepted_by": "british"}
    assert out["result"]["hits"] == 1 and out["result"]["tests"][0]["passed"] is True
    st = state(umpire, sid, ref)
    assert "claim" not in st and st["claims"] == 1
    assert units(umpire, sid, ref)["br-redcoats"]["effectiveness"] == 75
    assert_error(post(umpire, sid, br, {"type": "accept", "claim": 1}), 409, "no_claim")

    # The log holds the claim (no die) and the acceptance (the die); both verify.
    events = umpire.events(sid, token=ref)[0]
    claim_ev, accept_ev = events[-2:]
    assert (claim_ev["type"], claim_ev["actor"], claim_ev["data"]["dice"]) == \
        ("fire", "side:french", [])
    assert accept_ev["type"] == "accept" and accept_ev["actor"] == "side:british"
    assert [d["value"] for d in accept_ev["data"]["dice"]] == [4]
    rep = expect(umpire.get(f"/v1/sessions/{sid}/verify", token=fr), 200)
    assert rep["ok"] is True


def test_a_dispute_resolves_nothing_and_a_claimant_may_withdraw(umpire):
    sid, ref, fr, br = hm_in_fire_phase(umpire)
    before = units(umpire, sid, ref)
    act(umpire, sid, fr, SHOT)
    assert_error(post(umpire, sid, br, {"type": "dispute", "claim": 1, "reason": "x" * 201}),
                 400, "invalid_field", "reason")
    out = act(umpire, sid, br, {"type": "dispute", "claim": 1,
                                "reason": "the redcoats were behind the wall"})
    assert out["summary"] == ("british disputes french's claim 1 (fr-guard fires at br-redcoats: "
                              "1 hit); nothing is resolved: the redcoats were behind the wall")
    assert out["result"] == {"action": "dispute", "claim": 1, "by": "british",
                             "withdrawn": False, "reason": "the redcoats were behind the wall"}
    assert units(umpire, sid, ref) == before and "claim" not in state(umpire, sid, ref)
    # The game goes on: the French claim again, then think better of it.
    act(umpire, sid, fr, dict(SHOT, hits=2))
    out = act(umpire, sid, fr, {"type": "dispute", "claim": 2})
    assert out["summary"] == "french withdraws its claim 2 (fr-guard fires at br-redcoats: 2 hits)"
    assert out["result"]["withdrawn"] is True
    # The referee answers any claim: here, accepts the third.
    act(umpire, sid, fr, SHOT)
    out = act(umpire, sid, ref, {"type": "accept", "claim": 3, "dice": [4]})
    assert out["summary"].startswith("the referee accepts french's claim 3: ")
    assert out["result"]["claim"]["accepted_by"] == "the referee"
    assert units(umpire, sid, ref)["br-redcoats"]["effectiveness"] == 75
    assert expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)["ok"] is True


def test_what_needs_no_acceptance(umpire):
    # The referee's own word; a shot claiming no hits (it can only cost the shooter).
    sid, ref, fr, br = hm_in_fire_phase(umpire)
    out = act(umpire, sid, ref, dict(SHOT, dice=[4]))
    assert "pending" not in out["result"] and out["result"]["hits"] == 1
    out = act(umpire, sid, fr, dict(SHOT, unit="fr-line", hits=0))
    assert "pending" not in out["result"] and out["result"]["hits"] == 0
    # But no hits on the target and hits back on oneself is still the shooter's word.
    out = act(umpire, sid, fr, dict(SHOT, hits=0, hits_back=0))
    assert out["result"]["pending"] is True
    assert out["result"]["claim"]["text"] == \
        "fr-guard fires at br-redcoats: 0 hits, br-redcoats fires back: 0 hits"
    # options.trust_claims (the referee's choice at creation): every side's word stands.
    sid, ref, fr, br = hm_in_fire_phase(umpire, options={"trust_claims": True})
    out = act(umpire, sid, fr, dict(SHOT, dice=[4]))
    assert "pending" not in out["result"] and out["result"]["hits"] == 1
    r = umpire.post("/v1/sessions", dict(HM["session"], options={"trust_claims": "yes"}))
    assert_error(r, 400, "invalid_field", "options.trust_claims")
    # A setup table decides the hits itself: no claim.
    setup = dict(copy.deepcopy(HM["session"]["setup"]), fire_table=[{"hits": "1d6-4"}])
    sid, tok = create_session(umpire, "horse-and-musket", "table", setup, ("french", "british"),
                              "manual")
    act(umpire, sid, tok["sides"]["french"], {"type": "end_phase"})
    out = act(umpire, sid, tok["sides"]["french"], {"type": "fire", "unit": "fr-guard",
                                                    "target": "br-redcoats", "dice": [5, 4]})
    assert "pending" not in out["result"] and out["result"]["hits"] == 1


def test_seeded_dice_are_drawn_at_acceptance(umpire):
    """With the umpire's dice the claim draws none: the acceptance draws the first."""
    sid, ref, fr, br = hm_in_fire_phase(umpire, mode="seeded")
    act(umpire, sid, fr, dict(SHOT, hits=2))
    act(umpire, sid, br, {"type": "accept", "claim": 1})
    events = umpire.events(sid, token=ref)[0]
    assert events[-2]["data"]["dice"] == []
    dice = events[-1]["data"]["dice"]
    assert len(dice) == 1 and dice[0]["purpose"] == "morale"
    assert expect(umpire.get(f"/v1/sessions/{sid}/verify", token=ref), 200)["ok"] is True


def test_vis_magica_melee_and_a_third_side(umpire):
    """A vis-magica melee's hits both ways are the attacker's word; a side the claim does not
    act against cannot answer it."""
    setup = copy.deepcopy(VM["session"]["setup"])
    setup["units"].append({"id": "ghosts", "side": "spirits", "type": "other", "at": [400, 400],
                           "facing": 0, "strength": 2, "movement": 60})
    sid, tok = create_session(umpire, "vis-magica", "claims", setup,
                              ("empire", "horde", "spirits"), "manual", VM["session"]["options"])
    em, ho, sp = (tok["sides"][s] for s in ("empire", "horde", "spirits"))
    for _ in range(2):   # the empire's Movement and Shooting
        act(umpire, sid, em, {"type": "end_phase"})
    act(umpire, sid, tok["referee"], {"type": "move", "unit": "legion", "to": [150, 110]})
    out = act(umpire, sid, em, {"type": "melee", "unit": "legion", "target": "wolves",
                                "hits": 2, "hits_back": 0})
    assert out["result"]["pending"] is True, out
    assert out["result"]["claim"]["text"] == \
        "legion in melee with wolves: 2 hits and 0 hits back"
    err = assert_error(post(umpire, sid, sp, {"type": "accept", "claim": 1}), 403, "forbidden")
    assert "waits for horde or the referee, not spirits" in err["message"]
    out = act(umpire, sid, ho, {"type": "accept", "claim": 1})
    assert out["result"]["hits"] == 2
    assert out["summary"].startswith("horde accepts empire's claim 1: legion in melee with wolves")


def test_magic_realm_a_declared_hit_waits_a_miss_does_not(umpire):
    sess = copy.deepcopy(MR["session"])
    r = umpire.post("/v1/sessions", sess)
    assert r.status == 201, r
    sid, tok = r.body["session"]["id"], r.body["tokens"]
    for a in MR["actions"]:
        if a["type"] == "attack":
            break
        body = dict(a)
        assert post(umpire, sid, tok["sides"][body.pop("as")], body).status == 200
    knight, monsters = tok["sides"]["knight"], tok["sides"]["monsters"]
    shot = {"type": "attack", "unit": "white-knight", "attack": {"name": "Light Bow, F H1"},
            "target": {"unit": "bat-2"}}
    out = act(umpire, sid, knight, dict(shot, hit="miss"))
    assert "pending" not in out["result"]
    out = act(umpire, sid, knight, dict(shot, hit="undercut"))
    assert out["result"]["claim"]["text"] == \
        "white-knight attacks bat-2 with Light Bow, F H1: undercut"
    assert out["result"]["claim"]["awaiting"] == "monsters"
    assert_error(post(umpire, sid, monsters, {"type": "round"}), 409, "claim_pending")
    out = act(umpire, sid, monsters, {"type": "accept", "claim": 1})
    assert out["summary"].startswith("monsters accepts knight's claim 1: ")
    assert expect(umpire.get(f"/v1/sessions/{sid}/verify", token=knight), 200)["ok"] is True
