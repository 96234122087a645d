"""The Optional Combat article's table questions through the real daemon's odds endpoint: the
DRMs, roll-by-roll harms and percentages of Situations 1-10, every cell of the 3rd-edition
results table (4 targets x 5 attacks x intercept/undercut), and of the Notes on the 3rd Edition
the Crossbowmen's undercut, the Bashkar rider's 30% and the horse-and-rider examples (A) and (B)
(the Notes' other figures need counter values or box odds the article does not give; see
test_magic_realm_article.c). Every answer with a DRM names its terms. The claims are data,
transcribed from the article in tests/data/gen-magic-realm-article.py (the unit test
test_magic_realm_article.c reads the same file). Where the article contradicts the rules text,
the case carries a `slip` naming it and expects the rules' answer."""

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from umpire_client import Client, Daemon, expect

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" /
                   "magic-realm-article.json").read_text())
LEVELS = ["NEGLIGIBLE", "L", "M", "H", "T", "KILL"]


@pytest.fixture(scope="module")
def mr():
    """One daemon for the module (each case is one odds request), with the daemon fixture's
    checks at the end: clean exit, no sanitizer report, no 5xx."""
    d = Daemon()
    d.start()
    c = Client(d)
    try:
        yield c
    finally:
        c.close()
        rc = d.stop() if d.alive() else None
        problems = []
        if rc not in (None, 0):
            problems.append(f"exit code {rc}")
        if d.sanitizer_findings():
            problems.append(f"sanitizer report: {d.sanitizer_findings()}")
        if any(r[2] >= 500 for r in d.responses):
            problems.append("a 5xx answer")
        d.cleanup()
        assert not problems, problems


def odds(client, action, options=None):
    body = dict(action)
    if options:
        body["options"] = options
    answer = expect(client.post("/v1/rulesets/magic-realm/odds", body), 200)
    assert answer["exact"] is True and answer["of"] == answer["enumerated"], answer
    rolls = answer["rolls"]
    assert [r["roll"] for r in rolls] == [1, 2, 3, 4, 5, 6]
    for r in rolls:  # the higher of two dice: p(r) = (2r - 1)/36
        assert abs(r["p"] - (2 * r["roll"] - 1) / 36) < 1e-12, r
    return answer


def exact(answer, outcome):
    """Fraction of the combinations whose outcome is `outcome`, from count/of (exact)."""
    n = sum(o["count"] for o in answer["outcomes"] if o["result"]["outcome"] == outcome)
    return Fraction(n, answer["of"])


def rounded_percent(p):
    return math.floor(float(p) * 100 + 0.5)


def check(answer, e, slip):
    run = "p_success" in answer
    good = "completed" if run else "killed"
    p_good = answer["p_success"] if run else answer["p_kill"]
    if "drm" in e:
        assert answer["drm"] == e["drm"], f"DRM {answer.get('drm')} != {e['drm']}"
    n = e.get("success_max_roll", e.get("kill_max_roll"))
    if n is not None:
        want = Fraction(n * n, 36)
        assert exact(answer, good) == want, f"{good}: {exact(answer, good)} != {want}"
        assert abs(p_good - float(want)) < 1e-12
        for r in answer["rolls"]:
            assert (r["outcome"] == good) == (r["roll"] <= n), r
    if "harms" in e:
        assert [r["harm"] for r in answer["rolls"]] == e["harms"]
    if "outcomes" in e:
        assert [r["outcome"] for r in answer["rolls"]] == e["outcomes"]
    if "percent" in e and not slip:
        assert rounded_percent(p_good) == e["percent"], (p_good, e["percent"])
    for outcome, pct in e.get("outcome_percent", {}).items():
        assert rounded_percent(exact(answer, outcome)) == pct, (outcome, pct)
    if "survive_percent" in e and not slip:
        assert rounded_percent(1 - p_good) == e["survive_percent"]
    if "max_harm" in e:
        assert max(LEVELS.index(r["harm"]) for r in answer["rolls"]) == LEVELS.index(e["max_harm"])
    if "enumerated" in e:
        assert answer["enumerated"] == e["enumerated"]
    if slip and "percent" in e and "rounding" in slip:
        # the slip is real: the article's figure is not the exact value rounded
        assert rounded_percent(p_good) != e["percent"]
    if "drm_terms" in e:
        assert [t["value"] for t in answer["drm_terms"]] == e["drm_terms"], answer["drm_terms"]
    if "at_roll" in e:
        at = e["at_roll"]
        r = answer["rolls"][at["roll"] - 1]
        assert (r["adjusted"], r["harm"], r["outcome"]) == \
            (at["adjusted"], at["harm"], at["outcome"]), r


def check_drm_terms(action, answer):
    """Every answer with a DRM names its terms as the action's result does: they add up to the
    DRM (the basic game's table takes none), and each rolled outcome's summary says them first."""
    if "drm" not in answer:
        assert "drm_terms" not in answer
        return
    terms = answer["drm_terms"]
    assert sum(t["value"] for t in terms) == answer["drm"]
    if action.get("table") == "standard":
        want = "no DRM (the basic game's Missile Table); roll "
    else:
        named = ", ".join(f"{t['term']} {t['value']:+d}" for t in terms) or "none"
        want = f"DRM {answer['drm']:+d} ({named}); roll "
    for o in answer["outcomes"]:
        if "roll" in o["result"]:
            assert o["result"]["drm_terms"] == terms
            assert o["summary"].startswith(want), (o["summary"], want)


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["id"] for c in DATA["cases"]])
def test_article_claim(mr, case):
    answer = odds(mr, case["action"], case.get("options"))
    check(answer, case["expect"], case.get("slip"))
    check_drm_terms(case["action"], answer)


def table_cells():
    t = DATA["third_edition_table"]
    for target, row in t["cells"].items():
        for attack, cell in row.items():
            intercept, undercut = [s.strip() for s in cell.split("/")]
            for hit, want in (("intercept", intercept), ("undercut", undercut)):
                n = 6 if want == "K" else 0 if want == "-" else int(want)
                yield pytest.param(t["targets"][target], t["attacks"][attack], hit, n,
                                   id=f"{target}-{attack}-{hit}".replace(" ", "_"))


@pytest.mark.parametrize("target,attack,hit,n", list(table_cells()))
def test_third_edition_results_table(mr, target, attack, hit, n):
    answer = odds(mr, {"type": "attack", "attack": attack, "target": target, "hit": hit})
    assert exact(answer, "killed") == Fraction(n * n, 36)
    for r in answer["rolls"]:
        assert (r["outcome"] == "killed") == (r["roll"] <= n), r


def test_the_table_has_every_cell():
    cells = DATA["third_edition_table"]["cells"]
    assert len(cells) == 4 and all(len(row) == 5 for row in cells.values())
    assert len(list(table_cells())) == 40


def test_light_bow_against_giant_bat_answer_shape(mr):
    """The contract's example, field by field."""
    answer = odds(mr, {"type": "attack", "table": "revised",
                       "attack": {"kind": "missile", "harm": "L", "sharpness": 2, "time": 1,
                                  "spell": None, "alerted": True},
                       "target": {"kind": "denizen", "vulnerability": "H", "armored": False,
                                  "move_time": 3},
                       "hit": "intercept"})
    assert answer["p_kill"] == 1.0
    assert [r["adjusted"] for r in answer["rolls"]] == [-1, 0, 1, 2, 3, 4]
    assert [r["harm"] for r in answer["rolls"]] == ["KILL", "T", "T", "H", "H", "H"]
    assert set(answer["rolls"][0]) == {"roll", "p", "adjusted", "harm", "outcome"}
