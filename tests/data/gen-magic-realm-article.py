#!/usr/bin/env python3
"""Writes tests/data/magic-realm-article.json: every table question of the article
(shared/rules-sources/magic-realm-optional-combat.txt) as an odds question and its exact answer,
transcribed from the article (not computed). Edit here, run `python3 gen-magic-realm-article.py`,
commit both files. The unit test (tests/unit/test_magic_realm_article.c) and the HTTP test
(tests/integration/test_magic_realm_article.py) both read the JSON."""
import json
import os
C = []
def case(id, source, claim, action, expect, options=None, slip=None):
    c = {"id": id, "source": source, "claim": claim, "action": action, "expect": expect}
    if options: c["options"] = options
    if slip: c["slip"] = slip
    C.append(c)
def goblins(n, mt): return [{"move_time": mt} for _ in range(n)]
def run(mt, attackers, **kw):
    a = {"type": "run", "move_time": mt, "attackers": attackers}; a.update(kw); return a
def atk(attack, target, hit, **kw):
    a = {"type": "attack", "attack": attack, "target": target, "hit": hit}; a.update(kw); return a
ROUND69 = "rounding: 25/36 = 69.4%, which rounds to 69%, not 70% (the article rounds up every 25/36)"

# ---- Situation 1: The Turkey Shoot (5.1 Stumble) ----
S = "Situation 1"
case("s1-18-goblins", S, "+2 -3 +18 = +17 final DRM: hard to roll 6 or less",
     run(2, goblins(18, 3)), {"drm": 17, "success_max_roll": 0})
case("s1-6-goblins-move-3", S, "+2 -3 +6 = +5: must roll a 1 (3% chance)",
     run(2, goblins(6, 3)), {"drm": 5, "success_max_roll": 1, "percent": 3})
case("s1-6-goblins-move-4", S, "+2 -4 +6 = +4: 2 or less (11% chance)",
     run(2, goblins(6, 4)), {"drm": 4, "success_max_roll": 2, "percent": 11})
case("s1-6-goblins-move-5", S, "+2 -5 +6 = +3: 3 or less (25% chance)",
     run(2, goblins(6, 5)), {"drm": 3, "success_max_roll": 3, "percent": 25})
for n, mt, sure in [(1, 3, True), (2, 3, False), (2, 4, True), (3, 4, False), (3, 5, True), (4, 5, False)]:
    case(f"s1-guaranteed-{n}-at-{mt}", S,
         "only guaranteed of running from a single Goblin at 3, two if their fastest is 4, three if 5",
         run(2, goblins(n, mt)), {"drm": 2 - mt + n, "success_max_roll": 6 if sure else 6 - (2 - mt + n)})

# ---- Situation 2: Squashed Like a Bug ----
S = "Situation 2"
case("s2-move-h4", S, "+4 -4 +1 = +1: rolls 5 or less (70% chance) he runs away",
     run(4, [{"move_time": 4}]), {"drm": 1, "success_max_roll": 5, "percent": 70}, slip=ROUND69)
case("s2-move-h6", S, "Move H6: +6 -4 +1 = +3, roll 3 or less, 25%",
     run(6, [{"move_time": 4}]), {"drm": 3, "success_max_roll": 3, "percent": 25})

# ---- Situation 3: The Bug Bites Back (Fumble table) ----
S = "Situation 3"
TROLL = {"kind": "denizen", "vulnerability": "T", "armored": True, "move_time": 4}
MACE = lambda t: {"kind": "striking", "harm": "H", "time": t, "name": "Mace"}
case("s3-mace-intercept", S, "+3 -4 = -1: harm to T on 4 or less, 44% chance of killing the T Troll",
     atk(MACE(3), TROLL, "intercept"),
     {"drm": -1, "kill_max_roll": 4, "percent": 44, "harms": ["KILL", "KILL", "T", "T", "H", "H"]})
case("s3-mace-undercut", S, "+3 -4 +4 = +3: cannot increase his harm, cannot kill the Troll",
     atk(MACE(3), TROLL, "undercut"),
     {"drm": 3, "kill_max_roll": 0, "harms": ["H", "H", "H", "M", "M", "L"]})
case("s3-mace-fight-h5", S, "Fight H5*: +5 -4 = +1, roll 2 or less, 11%",
     atk(MACE(5), TROLL, "intercept"), {"drm": 1, "kill_max_roll": 2, "percent": 11})
case("s3-mace-fight-h6", S, "Fight H6: +2 DRM, a roll of 1, 3%",
     atk(MACE(6), TROLL, "intercept"), {"drm": 2, "kill_max_roll": 1, "percent": 3})
case("s3-rule-of-thumb", S, "an H4 attack on a H monster with a move time of 4 is guaranteed to kill if it intercepts",
     atk({"kind": "striking", "harm": "H", "time": 4},
         {"kind": "denizen", "vulnerability": "H", "armored": False, "move_time": 4}, "intercept"),
     {"drm": 0, "kill_max_roll": 6})
case("s3-red-side-up", S, "red-side-up Tremendous monsters never roll on the Fumble Table; they kill if they hit",
     atk({"kind": "striking", "harm": "T", "time": 4, "attacker": "denizen", "red_side_up": True},
         {"kind": "character", "vulnerability": "H", "armor": [{"toughness": "H"}], "move_time": 6}, "undercut"),
     {"kill_max_roll": 6, "enumerated": 1})

# ---- Situation 4: The Deadly Dagger ----
S = "Situation 4"
GIANT = {"kind": "denizen", "vulnerability": "T", "armored": False, "move_time": 5}
DAGGER = lambda t: {"kind": "striking", "harm": "L", "sharpness": 1, "time": t, "name": "Dagger"}
case("s4-woods-girl-intercept", S, "Fight L3* Dagger: +3 -5 = -2, 25% (roll 3 or less)",
     atk(DAGGER(3), GIANT, "intercept"), {"drm": -2, "kill_max_roll": 3, "percent": 25})
case("s4-woods-girl-undercut", S, "undercut: +3 -5 +4 = +2, 0%",
     atk(DAGGER(3), GIANT, "undercut"), {"drm": 2, "kill_max_roll": 0})
case("s4-white-knight-intercept", S, "Fight H4** Dagger: +4 -5 = -1, 11% (roll 2 or less)",
     atk(DAGGER(4), GIANT, "intercept"), {"drm": -1, "kill_max_roll": 2, "percent": 11})
case("s4-white-knight-undercut", S, "undercut: +4 -5 +4 = +3, 0%",
     atk(DAGGER(4), GIANT, "undercut"), {"drm": 3, "kill_max_roll": 0})
case("s4-dagger-up-to-t", S, "it can deliver up to T damage to unarmored targets",
     atk(DAGGER(3), GIANT, "intercept"), {"max_harm": "T"})
case("s4-dagger-armored", S, "(H damage to armored targets): a Dagger cannot kill a Tremendous armored monster",
     atk(DAGGER(3), TROLL, "intercept"), {"drm": -1, "max_harm": "H", "kill_max_roll": 0})

# ---- Situation 5: Wings vs. Hooves ----
S = "Situation 5"
def horse(mt, v):
    return {"kind": "character", "vulnerability": "M", "armor": [], "move_time": None,
            "horse": {"move_time": mt, "vulnerability": v}}
def bat(t): return {"kind": "striking", "harm": "M", "time": t, "attacker": "denizen", "name": "Bat"}
for hname, mt, v, bt, i_drm, i_max, i_pct, u_drm, u_max, u_pct, slip in [
        ("pony", 2, "M", 2, 0, 6, None, None, 0, None, None),
        ("pony", 2, "M", 3, 1, 5, 70, None, 0, None, ROUND69),
        ("workhorse", 4, "H", 2, -2, 5, 70, 2, 1, 3, ROUND69),
        ("workhorse", 4, "H", 3, -1, 4, 44, 3, 0, None, None),
        ("warhorse", 4, "T", 2, -2, 3, 25, 2, 0, None, None),
        ("warhorse", 4, "T", 3, -1, 2, 11, 3, 0, None, None)]:
    e = {"drm": i_drm, "kill_max_roll": i_max}
    if i_pct: e["percent"] = i_pct
    case(f"s5-{hname}-bat-m{bt}-intercept", S, f"{v}{mt} {hname} vs M{bt} Bat, intercept",
         atk(bat(bt), horse(mt, v), "intercept"), e, slip=slip)
    e = {"kill_max_roll": u_max}
    if u_drm is None:
        e.update({"enumerated": 1, "harms": ["NONE"] * 6})
    else:
        e["drm"] = u_drm
    if u_pct: e["percent"] = u_pct
    case(f"s5-{hname}-bat-m{bt}-undercut", S,
         f"{v}{mt} {hname} vs M{bt} Bat, undercut" + (": misses" if u_drm is None else ""),
         atk(bat(bt), horse(mt, v), "undercut"), e)

# ---- Situation 6: The Missiles Fly ----
S = "Situation 6"
LIGHT_BOW = {"kind": "missile", "harm": "L", "sharpness": 2, "time": 1, "alerted": True, "name": "Light Bow"}
H4 = {"kind": "denizen", "vulnerability": "H", "armored": False, "move_time": 4}
for hit in ("intercept", "undercut"):
    case(f"s6-std-{hit}", S, "STD: 1 Kill, 2 T, 3 H, 4 M, 5 L, 6 no effect; 3 or less to kill, intercept or undercut alike",
         atk(LIGHT_BOW, H4, hit, table="standard"),
         {"drm": 0, "kill_max_roll": 3, "harms": ["KILL", "T", "H", "M", "L", "NEGLIGIBLE"],
          "outcomes": ["killed"] * 3 + ["no_effect"] * 3})
case("s6-opt-intercept", S, "intercept: +1 -4 = -3: Kill, Kill, T, T, H, H (a guaranteed kill)",
     atk(LIGHT_BOW, H4, "intercept"), {"drm": -3, "kill_max_roll": 6, "harms": ["KILL", "KILL", "T", "T", "H", "H"]})
case("s6-opt-undercut", S, "undercut: +1 -4 +4 = +1: H, H, H, M, M, L (3 or less to kill)",
     atk(LIGHT_BOW, H4, "undercut"), {"drm": 1, "kill_max_roll": 3, "harms": ["H", "H", "H", "M", "M", "L"]})

# ---- Situation 7: Blowing Him Out of the Saddle ----
S = "Situation 7"
ORDER = {"kind": "denizen", "vulnerability": "T", "armored": True, "move_time": 6, "horse": {"move_time": 4}, "aim": "rider"}
BASHKAR = {"kind": "denizen", "vulnerability": "L", "armored": False, "move_time": 4, "horse": {"move_time": 2}, "aim": "rider"}
for who, mt in (("warhorse", 4), ("knight", 6)):
    case(f"s7-std-{who}", S, "STD: both targets are T vulnerability and armored, so with the Light Bow (M basic harm) each attack would require rolling a 1",
         atk(LIGHT_BOW, {"kind": "denizen", "vulnerability": "T", "armored": True, "move_time": mt}, "intercept", table="standard"),
         {"drm": 0, "kill_max_roll": 1})
A = {"horse": "intercept", "rider": "undercut"}; B = {"horse": "undercut", "rider": "intercept"}; CC = {"horse": "undercut", "rider": "undercut"}
case("s7-order-bow-a", S, "(A) +1 -4 and +1 -6 +4 = -4 DRM, roll 3 or less to kill", atk(LIGHT_BOW, ORDER, A), {"drm": -4, "kill_max_roll": 3})
case("s7-order-bow-b", S, "(B) +1 -4 +4 and +1 -6 = -4 DRM, roll 3 or less to kill", atk(LIGHT_BOW, ORDER, B), {"drm": -4, "kill_max_roll": 3})
case("s7-order-bow-c", S, "(C) +1 -4 +4 and +1 -6 +4 = 0 DRM, rider is safe", atk(LIGHT_BOW, ORDER, CC), {"drm": 0, "kill_max_roll": 0})
case("s7-bashkar-bow-a", S, "(A) +1 -2 and +1 -4 +4 = 0 DRM, rider is dead", atk(LIGHT_BOW, BASHKAR, A), {"drm": 0, "kill_max_roll": 6})
case("s7-bashkar-bow-b", S, "(B) +1 -2 +4 and +1 -4 = 0 DRM, rider is dead", atk(LIGHT_BOW, BASHKAR, B), {"drm": 0, "kill_max_roll": 6})
case("s7-bashkar-bow-c", S, "(C) +1 -2 +4 and +1 -4 +4 = +4 DRM, roll 2 or less",
     atk(LIGHT_BOW, BASHKAR, CC), {"drm": 4, "kill_max_roll": 3},
     slip="a leftover of the 2nd-edition table: on the revised table (5.6) roll 3 gives 3+4 = 7, "
          "decrease two levels, H -> L, which kills the L-vulnerable Bashkar; 'roll 2 or less' is "
          "the 2nd-edition answer (7 = decrease three levels)")
case("s7-bashkar-bow-c-second-edition", S, "(C) on the 2nd-edition table: roll 2 or less (where the article's number comes from)",
     atk(LIGHT_BOW, BASHKAR, CC, table="second-edition"), {"drm": 4, "kill_max_roll": 2})
GREAT_SWORD = {"kind": "striking", "harm": "T", "time": 4, "alerted": True, "name": "Great Sword"}
case("s7-great-sword-a", S, "(A) +4 -4 and +4 -6 +4 = +2 DRM, roll 4 or less", atk(GREAT_SWORD, ORDER, A), {"drm": 2, "kill_max_roll": 4})
case("s7-great-sword-b", S, "(B) attack does not undercut, rider is safe", atk(GREAT_SWORD, ORDER, B), {"kill_max_roll": 0, "enumerated": 1, "harms": ["NONE"] * 6})
case("s7-great-sword-c", S, "(C) attack does not undercut, rider is safe", atk(GREAT_SWORD, ORDER, CC), {"kill_max_roll": 0, "enumerated": 1})
THRUSTING = {"kind": "striking", "harm": "M", "time": 3, "alerted": True, "name": "Thrusting Sword"}
case("s7-thrusting-a", S, "(A) +3 -4 and +3 -6 +4 = 0 DRM, roll 1", atk(THRUSTING, ORDER, A), {"drm": 0, "kill_max_roll": 1})
case("s7-thrusting-b", S, "(B) +3 -4 +4 and +3 -6 = 0 DRM, roll 1", atk(THRUSTING, ORDER, B), {"drm": 0, "kill_max_roll": 1})
case("s7-thrusting-c", S, "(C) +3 -4 +4 and +3 -6 +4 = +4 DRM, rider is safe", atk(THRUSTING, ORDER, CC), {"drm": 4, "kill_max_roll": 0})

# ---- Situation 8: Dragonfire ----
S = "Situation 8"
WK = {"kind": "character", "vulnerability": "H", "armor": [{"toughness": "H", "name": "suit of armor"}], "move_time": 4}
def head(kind, harm): return {"kind": kind, "harm": harm, "time": 3, "attacker": "denizen", "name": "Dragon head"}
case("s8-m3-std", S, "Missile Table (basic): 3 (14%) a wound, 2 (8%) wound and damaged, 1 (3%) wound and destroyed; 75% no damage",
     atk(head("missile", "M"), WK, "intercept", table="standard"),
     {"drm": 0, "harms": ["T", "H", "M", "L", "NEGLIGIBLE", "NEGLIGIBLE"],
      "outcomes": ["armor_destroyed", "armor_damaged", "wounded", "no_effect", "no_effect", "no_effect"],
      "outcome_percent": {"wounded": 14, "armor_damaged": 8, "armor_destroyed": 3, "no_effect": 75}})
case("s8-m3-striking-intercept", S, "-1: 5-6 M (wound), 3-4 H (wound, damaged armor), 1-2 T (wound, destroyed armor)",
     atk(head("striking", "M"), WK, "intercept"),
     {"drm": -1, "harms": ["T", "T", "H", "H", "M", "M"],
      "outcomes": ["armor_destroyed", "armor_destroyed", "armor_damaged", "armor_damaged", "wounded", "wounded"]})
case("s8-m3-striking-undercut", S, "+3: 6 no effect, 4-5 L (no wound against armor), 1-3 M (wound)",
     atk(head("striking", "M"), WK, "undercut"),
     {"drm": 3, "harms": ["M", "M", "M", "L", "L", "NEGLIGIBLE"],
      "outcomes": ["wounded", "wounded", "wounded", "no_effect", "no_effect", "no_effect"]})
case("s8-m3-missile-intercept", S, "-1: 6 L blocked, 3-5 M blocked by the H armor, 1-2 H (wound, armor unaffected)",
     atk(head("missile", "M"), WK, "intercept"),
     {"drm": -1, "harms": ["H", "H", "M", "M", "M", "L"],
      "outcomes": ["wounded", "wounded", "no_effect", "no_effect", "no_effect", "no_effect"]})
case("s8-m3-missile-undercut", S, "+3: 4-6 no effect, 2-3 L blocked, 1 M blocked",
     atk(head("missile", "M"), WK, "undercut"),
     {"drm": 3, "harms": ["M", "L", "L", "NEGLIGIBLE", "NEGLIGIBLE", "NEGLIGIBLE"],
      "outcomes": ["no_effect"] * 6})
case("s8-t3-std", S, "Missile Table (basic): 6 L, 5 M wound, 4 H damaged, 3 T destroyed, 1-2 kills (11%)",
     atk(head("missile", "T"), WK, "intercept", table="standard"),
     {"drm": 0, "harms": ["KILL", "KILL", "T", "H", "M", "L"],
      "outcomes": ["killed", "killed", "armor_destroyed", "armor_damaged", "wounded", "no_effect"],
      "kill_max_roll": 2, "percent": 11})
case("s8-t3-striking-intercept", S, "-1: 5-6 T (wound, destroyed armor); 4 or less T+ harm (wound, destroyed armor)",
     atk(head("striking", "T"), WK, "intercept"),
     {"drm": -1, "harms": ["KILL", "KILL", "KILL", "KILL", "T", "T"],
      "outcomes": ["killed", "killed", "killed", "killed", "armor_destroyed", "armor_destroyed"]},
     slip="a sentence contradicted two paragraphs earlier: T+ is harm beyond Tremendous, which the "
          "article defines (Situation 6) as 'automatically killing the target' and which kills the "
          "same armored White Knight in the basic-game line above ('A roll of 1 or 2 kills the White "
          "Knight'); rules-notes: beyond-T is a kill. The module kills (house default "
          "beyond_t_vs_armor: kill); the option armor-absorbs gives the article's reading")
case("s8-t3-striking-intercept-armor-absorbs", S, "the article's reading, as an option: T+ harm (wound, destroyed armor)",
     atk(head("striking", "T"), WK, "intercept"),
     {"drm": -1, "outcomes": ["armor_destroyed"] * 6, "kill_max_roll": 0},
     options={"beyond_t_vs_armor": "armor-absorbs"})
case("s8-t3-striking-undercut", S, "+3: 6 M (wound), 4-5 H (wound, damaged armor), 1-3 T (wound, destroyed armor)",
     atk(head("striking", "T"), WK, "undercut"),
     {"drm": 3, "harms": ["T", "T", "T", "H", "H", "M"],
      "outcomes": ["armor_destroyed"] * 3 + ["armor_damaged"] * 2 + ["wounded"]})
case("s8-t3-missile-intercept", S, "-1: 6 H (wound, armor unaffected), 3-5 T (reduced to H by the armor: a Kill), 1-2 kills; 70% H or better directly",
     atk(head("missile", "T"), WK, "intercept"),
     {"drm": -1, "harms": ["KILL", "KILL", "T", "T", "T", "H"],
      "outcomes": ["killed"] * 5 + ["wounded"], "kill_max_roll": 5, "percent": 70}, slip=ROUND69)
case("s8-t3-missile-undercut", S, "+3: 6 no effect, 5 L blocked, 4 M blocked, 2-3 H (wound), 1 T (reduced to H: a Kill)",
     atk(head("missile", "T"), WK, "undercut"),
     {"drm": 3, "harms": ["T", "H", "H", "M", "L", "L"],
      "outcomes": ["killed", "wounded", "wounded", "no_effect", "no_effect", "no_effect"]})
WK_SHIELD = {"kind": "character", "vulnerability": "H",
             "armor": [{"toughness": "M", "name": "shield"}, {"toughness": "H", "name": "suit of armor"}], "move_time": 4}
case("s8-shield-t3", S, "T3 intercepts and rolls 5 for T harm: through the M shield to H, stopped by the H armor, one wound",
     atk(head("missile", "T"), WK_SHIELD, "intercept"),
     {"drm": -1, "outcomes": ["killed", "killed", "wounded", "wounded", "wounded", "no_effect"]})
case("s8-shield-m3", S, "had this attack been M3, the M shield would have stopped it and no wound would have been suffered",
     atk(head("missile", "M"), WK_SHIELD, "intercept"),
     {"drm": -1, "harms": ["H", "H", "M", "M", "M", "L"],
      "outcomes": ["no_effect", "no_effect", "wounded", "wounded", "wounded", "no_effect"]},
     slip="a sentence contradicted two paragraphs earlier: roll 5 gives M harm, equal to the M "
          "shield; 5.5.1 ('If the harm equals the armor, the target gets one wound') and the "
          "article's own preceding paragraph ('A missile attack equal in strength to the armor "
          "counter is stopped and inflicts one wound') give one wound, not none")

# ---- Situation 9: The Raging Inferno ----
S = "Situation 9"
def fb(t, alerted=False):
    a = {"kind": "missile", "harm": "L", "sharpness": 3, "time": t, "spell": "fiery-blast"}
    if alerted: a["alerted"] = True
    return a
case("s9-std", S, "STD: 6 L, 5 M, 4 H, 3 T, 2 Kill, 1 Kill; a Heavy unarmored monster is killed on 4 or less",
     atk(fb(4), H4, "intercept", table="standard"),
     {"drm": 0, "harms": ["KILL", "KILL", "T", "H", "M", "L"], "kill_max_roll": 4})
case("s9-t4-intercept", S, "intercept, attack time 4: +4 -4 = 0; T4 column 1 Kill, 2-4 T, 5-6 H",
     atk(fb(4), H4, "intercept"), {"drm": 0, "harms": ["KILL", "T", "T", "T", "H", "H"], "kill_max_roll": 6})
case("s9-t3-intercept", S, "intercept, attack time 3: -1; T3 column 1-2 Kill, 3-5 T, 6 H",
     atk(fb(3), H4, "intercept"), {"drm": -1, "harms": ["KILL", "KILL", "T", "T", "T", "H"], "kill_max_roll": 6})
case("s9-h0-intercept", S, "intercept, attack time 0 (alerted: a star lost, basic harm H): -4; H0 column 1-3 Kill, 4-5 T, 6 H",
     atk(fb(0, True), H4, "intercept"), {"drm": -4, "harms": ["KILL", "KILL", "KILL", "T", "T", "H"], "kill_max_roll": 6})
case("s9-t4-undercut", S, "undercut, attack time 4: misses",
     atk(fb(4), H4, "undercut"), {"harms": ["NONE"] * 6, "kill_max_roll": 0, "enumerated": 1})
case("s9-t3-undercut", S, "undercut, attack time 3: +3; 6-5 L, 4 M, 3-2 H, 1 T; killed on 3 or less",
     atk(fb(3), H4, "undercut"), {"drm": 3, "harms": ["T", "H", "H", "M", "L", "L"], "kill_max_roll": 3})
case("s9-h0-undercut", S, "undercut, attack time 0: 0; 6-5 M, 4-2 H, 1 T; killed on 4 or less",
     atk(fb(0, True), H4, "undercut"), {"drm": 0, "harms": ["T", "H", "H", "H", "M", "M"], "kill_max_roll": 4})

# ---- Situation 10: Sharks with Wings ----
S = "Situation 10"
BATS = [{"move_time": 3}, {"move_time": 3}]
case("s10-r1-move-h6", S, "Move H6 (+6 -3 +2 = +5 DRM) roll 1 (3% chance)", run(6, BATS), {"drm": 5, "success_max_roll": 1, "percent": 3})
case("s10-r1-move-h5", S, "Move H5* (+5 -3 +2 = +4 DRM) roll 2 or less (11%)", run(5, BATS), {"drm": 4, "success_max_roll": 2, "percent": 11})
case("s10-r1-move-h4", S, "Move H4** (+4 -3 +2 = +3 DRM) roll 3 or less (25%)", run(4, BATS), {"drm": 3, "success_max_roll": 3, "percent": 25})
case("s10-r3-run-h6", S, "Move H6 to run away (+6 -2 +1 = +5 DRM) on a roll of 1", run(6, [{"move_time": 2}]), {"drm": 5, "success_max_roll": 1})
case("s10-r3-h4-unchanged", S, "had the Bat not changed tactics he would have a 44% chance of success (Move H4**)",
     run(4, [{"move_time": 3}]), {"drm": 2, "success_max_roll": 4, "percent": 44})
case("s10-r3-h4-changed", S, "... instead of 25%", run(4, [{"move_time": 2}]), {"drm": 3, "success_max_roll": 3, "percent": 25})
case("s10-r5-run-h5", S, "Move H5* to run away (+5 -2 +1 = +4 DRM) on a roll of 2 or less", run(5, [{"move_time": 2}]), {"drm": 4, "success_max_roll": 2})
WK6 = {"kind": "character", "vulnerability": "H", "armor": [{"toughness": "H", "name": "suit of armor"}], "move_time": 6}
case("s10-r1-m2-bat-destroys-armor", S, "the M2 Bat lines up and rolls 5 or less on the Fumble Table to destroy his armor",
     atk(bat(2), WK6, "intercept"), {"drm": -4, "outcomes": ["armor_destroyed"] * 5 + ["armor_damaged"]})
case("s10-r1-m3-bat-kills", S, "the M3 Bat then rolls 2 or less on the undercut",
     atk(bat(3), {"kind": "character", "vulnerability": "H", "armor": [{"toughness": "H", "state": "destroyed"}], "move_time": 6}, "undercut"),
     {"drm": 1, "kill_max_roll": 2})
case("s10-r1-bats", S, "Bats: +2 -6 +4 = 0 DRM; 5: M harm, one wound; 3: H harm, one wound, armor damaged",
     atk(bat(2), WK6, "undercut"), {"drm": 0, "harms": ["T", "H", "H", "M", "M", "M"],
                                    "outcomes": ["armor_destroyed", "armor_damaged", "armor_damaged", "wounded", "wounded", "wounded"]})
case("s10-r4-bat-70", S, "the Bat had a 70% chance to kill the White Knight when it lined up in Round 4 (+3 -5 = -2)",
     atk(bat(3), {"kind": "character", "vulnerability": "H", "armor": [], "move_time": 5}, "intercept"),
     {"drm": -2, "kill_max_roll": 5, "percent": 70}, slip=ROUND69)
case("s10-r2-knight", S, "Knight: +6 -3 = +3 DRM, rolls 5: H harm, Bat 1 is killed",
     atk({"kind": "striking", "harm": "T", "time": 6, "name": "Great Sword"},
         {"kind": "denizen", "vulnerability": "H", "armored": False, "move_time": 3}, "intercept"),
     {"drm": 3, "harms": ["T", "T", "T", "H", "H", "M"], "kill_max_roll": 5})
# The rest of the battle's rolls, each at the moment it is made: the Knight's suit of armor is
# damaged after Round 1 and destroyed by Bat 1 in Round 2 (Bat 1, time 2, resolves before Bat 2,
# time 3); Bat 2 fights on its M3/2 side from Round 2 on; the Knight's Great Sword is T harm.
def wk(mt, armor_state): return {"kind": "character", "vulnerability": "H", "move_time": mt,
                                 "armor": [{"toughness": "H", "name": "suit of armor", "state": armor_state}]}
BAT_M32 = {"kind": "denizen", "vulnerability": "H", "armored": False, "move_time": 2}
case("s10-r2-bat-1", S, "Round 2, Bat 1 (Swing) on Move H4** (Dodge): +2 -4 = -2 DRM, rolls 4: H harm, one wound, armor destroyed (it was damaged)",
     atk(bat(2), wk(4, "damaged"), "intercept"),
     {"drm": -2, "drm_terms": [2, -4], "at_roll": {"roll": 4, "adjusted": 2, "harm": "H", "outcome": "armor_destroyed"}})
case("s10-r2-bat-2", S, "Round 2, Bat 2 (Thrust, changed to M3/2): +3 -4 +4 = +3 DRM, rolls 4: L harm, one wound (no armor)",
     atk(bat(3), wk(4, "destroyed"), "undercut"),
     {"drm": 3, "drm_terms": [3, -4, 4], "at_roll": {"roll": 4, "adjusted": 7, "harm": "L", "outcome": "wounded"}})
case("s10-r3-bat", S, "Round 3, Bat (Smash) on Move H4** (Dodge): +3 -4 +4 = +3 DRM, rolls 1: M harm, one wound",
     atk(bat(3), wk(4, "destroyed"), "undercut"),
     {"drm": 3, "drm_terms": [3, -4, 4], "at_roll": {"roll": 1, "adjusted": 4, "harm": "M", "outcome": "wounded"}})
case("s10-r4-bat", S, "Round 4, Bat (Swing) on Move H5* (Dodge): +3 -5 = -2 DRM, rolls 6: M harm, one wound",
     atk(bat(3), wk(5, "destroyed"), "intercept"),
     {"drm": -2, "drm_terms": [3, -5], "at_roll": {"roll": 6, "adjusted": 4, "harm": "M", "outcome": "wounded"}})
case("s10-r4-knight", S, "Round 4, Knight's Fight H5* (Swing) on the Bat's Swing: +5 -2 = +3 DRM, rolls 6: M harm, Bat survives",
     atk({"kind": "striking", "harm": "T", "time": 5, "name": "Great Sword"}, BAT_M32, "intercept"),
     {"drm": 3, "drm_terms": [5, -2], "at_roll": {"roll": 6, "adjusted": 9, "harm": "M", "outcome": "no_effect"}})

# ---- Notes on the 3rd Edition Changes ----
# Not here, because they are not table questions: "66%" (the Crossbowmen avoid lining up) and
# "1 in 3" (the Fiery Blast undercuts horse and rider) are boxes lining up; "30%" (the Crossbowmen
# change tactics) is when a denizen changes tactics; "56%" (they survive the Fiery Blast undercut)
# needs the Crossbowman's vulnerability and H1-side move time, and B1's "4 or less" and "4% or 7%"
# need the Bashkars' attacks, none of which the article gives; "one chance in ten", "8%" and
# "much over 10%" are products of those.
S = "Notes on the 3rd Edition Changes"
case("n3-crossbowman", S, "armored Crossbowmen on their H1 side kill the spellcaster (move 4) on an undercut: roll 5 or less (usually a 70% chance)",
     atk({"kind": "missile", "harm": "H", "time": 1, "attacker": "denizen", "name": "Crossbow"},
         {"kind": "character", "vulnerability": "M", "armor": [], "move_time": 4}, "undercut"),
     {"drm": 1, "kill_max_roll": 5, "percent": 70}, slip=ROUND69)
case("n3-bashkar-b5-survives", S, "if the Fiery Blast undercuts both the rider and his horse there is a 30% chance of the rider surviving (B5: horse 2, rider 4)",
     atk(fb(0, True), BASHKAR, CC), {"drm": 2, "kill_max_roll": 5, "survive_percent": 30},
     slip="rounding: the rider survives on a 6 only, 11/36 = 30.6%, which rounds to 31%")
case("n3-bow-vs-rider-move-5", S, "alerted Bow (speed 1), horse 4: a Move 5 gives the same vulnerability as the horse by itself",
     atk(LIGHT_BOW, {"kind": "character", "vulnerability": "M", "armor": [], "move_time": 5, "horse": {"move_time": 4}, "aim": "rider"},
         {"horse": "intercept", "rider": "undercut"}), {"drm": -3})
case("n3-bow-vs-horse-alone", S, "(the horse by itself: +1 -4)",
     atk(LIGHT_BOW, {"kind": "character", "vulnerability": "M", "armor": [], "move_time": None, "horse": {"move_time": 4}, "aim": "rider"},
         "intercept"), {"drm": -3})
case("n3-bow-vs-rider-move-4", S, "playing even a Move 4 will decrease your vulnerability",
     atk(LIGHT_BOW, {"kind": "character", "vulnerability": "M", "armor": [], "move_time": 4, "horse": {"move_time": 4}, "aim": "rider"},
         {"horse": "intercept", "rider": "undercut"}), {"drm": -2})
case("n3-spell-vs-rider-move-3", S, "alerted Attack spell (speed 0), horse 4: a Move 3 decreases your vulnerability",
     atk(fb(0, True), {"kind": "character", "vulnerability": "M", "armor": [], "move_time": 3, "horse": {"move_time": 4}, "aim": "rider"},
         {"horse": "intercept", "rider": "undercut"}), {"drm": -3})
case("n3-spell-vs-rider-move-4", S, "... and a Move 4 will match that of the horse by itself (0 -4)",
     atk(fb(0, True), {"kind": "character", "vulnerability": "M", "armor": [], "move_time": 4, "horse": {"move_time": 4}, "aim": "rider"},
         {"horse": "intercept", "rider": "undercut"}), {"drm": -4})

# ---- the 3rd-edition results table ----
table = {
 "targets": {
  "Giant Bat": {"kind": "denizen", "vulnerability": "H", "armored": False, "move_time": 3},
  "Heavy Dragon": {"kind": "denizen", "vulnerability": "H", "armored": True, "move_time": 4},
  "Giant": {"kind": "denizen", "vulnerability": "T", "armored": False, "move_time": 5},
  "Tremendous Troll": {"kind": "denizen", "vulnerability": "T", "armored": True, "move_time": 4}},
 "attacks": {
  "Light Bow": {"kind": "missile", "harm": "L", "sharpness": 2, "time": 1, "alerted": True},
  "Medium Bow": {"kind": "missile", "harm": "M", "sharpness": 2, "time": 1, "alerted": True},
  "Stones Fly": {"kind": "missile", "harm": "L", "sharpness": 1, "time": 0, "spell": "stones-fly", "alerted": True},
  "Fiery Blast": {"kind": "missile", "harm": "L", "sharpness": 3, "time": 0, "spell": "fiery-blast", "alerted": True},
  "Lightning Bolt": {"kind": "missile", "harm": "M", "sharpness": 3, "time": 0, "spell": "lightning-bolt", "alerted": True}},
 "cells": {
  "Giant Bat": {"Light Bow": "K / 2", "Medium Bow": "K / 4", "Stones Fly": "4 / -", "Fiery Blast": "K / 3", "Lightning Bolt": "K / 5"},
  "Heavy Dragon": {"Light Bow": "4 / -", "Medium Bow": "K / 3", "Stones Fly": "3 / -", "Fiery Blast": "5 / 1", "Lightning Bolt": "K / 4"},
  "Giant": {"Light Bow": "5 / 1", "Medium Bow": "K / 4", "Stones Fly": "4 / -", "Fiery Blast": "K / 2", "Lightning Bolt": "K / 5"},
  "Tremendous Troll": {"Light Bow": "2 / -", "Medium Bow": "4 / -", "Stones Fly": "2 / -", "Fiery Blast": "3 / -", "Lightning Bolt": "5 / 1"}},
 "how": "each cell 'intercept / undercut': K = kills on every roll, a number n = kills on a roll of n or less, - = cannot kill; revised table with Hamblen's kludge (the defaults)"}

doc = {"about": "Every table question of shared/rules-sources/magic-realm-optional-combat.txt (Situations 1-10, "
                "the Notes on the 3rd Edition and its results table) as an odds question and the exact answer; "
                "the Notes' box-lining-up odds, change of tactics and figures that need native counters the article "
                "does not give (56%, one chance in ten, 8%, 1 in 3, 4% or 7%) are not table questions and are not here. "
                "Read by tests/unit/test_magic_realm_article.c and tests/integration/test_magic_realm_article.py. "
                "expect: drm; kill_max_roll / success_max_roll n (kills / succeeds exactly on rolls 1..n: p = n*n/36); "
                "harms and outcomes for rolls 1..6; percent (the article's rounded figure of p_kill / p_success); "
                "outcome_percent; survive_percent; max_harm; enumerated (1: nothing is rolled); "
                "drm_terms (the values of the answer's drm_terms in order, as the article writes them: +2 -4); "
                "at_roll (one roll the article plays: roll, adjusted, harm, outcome). "
                "slip: where the article contradicts the rules text, the expectation is the rules' answer and this names the slip.",
       "cases": C, "third_edition_table": table}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "magic-realm-article.json"), "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
print(len(C), "cases")
