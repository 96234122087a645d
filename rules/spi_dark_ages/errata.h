/* SPI Dark Ages: the errata's checkable rules as pure functions, which the ruleset's actions
 * (rules/spi_dark_ages/da.h) apply. Each function cites the errata paragraph it implements
 * (shared/rules-sources/spi-dark-ages-errata.txt). */
#ifndef UMPIRE_DARK_AGES_ERRATA_H
#define UMPIRE_DARK_AGES_ERRATA_H

#include <stdbool.h>

/* ---- combat strengths ------------------------------------------------------------------------
 * COMBAT UNIT CAPABILITY CHART, Important Note: "each unit's Combat Strength is individually
 * adjusted. Whenever any Combat Strength is halved, any remaining fraction is lost. Defending
 * units may have their Combat Strength(s) reduced to less than 1. Combat odds are computed on the
 * basis of the totally adjusted Strength, i.e., an Attack Strength of 4 vs. a Defense Strength of
 * 1/2 is treated as an eight to one attack." Strengths are therefore exact fractions. */
typedef struct da_strength {
    long num, den; /* den > 0; 1/2 is {1, 2} */
} da_strength;

da_strength da_whole(long n);
/* Halved: whole strengths lose the fraction (3 -> 1); a defender's strength below 2 halves
 * exactly (1 -> 1/2, the errata's example), an attacker's drops to 0. */
da_strength da_halve(da_strength s, bool defender);
/* Multiplied by a chart effect: "x1", "x2", "x3", "x1/2" (da_halve), "x1/3" (a third, the same
 * way: fractions lost, a defender's below 1 kept exact). false for "P" or an unknown effect. */
bool da_apply_effect(da_strength *s, const char *effect, bool defender);
da_strength da_add(da_strength a, da_strength b);

/* ---- odds ------------------------------------------------------------------------------------
 * The CRT column of attack vs defence totals: the best column whose odds the attack reaches
 * (so the odds round in the defender's favour), from columns "a-d" in increasing odds. -1 when the
 * attack is below the worst column; the last column when beyond the best. A defence of 0: the
 * best column. */
int da_odds_column(da_strength attack, da_strength defence, const char *const *columns, int n);

/* ---- melee die-roll modifiers ------------------------------------------------------------------
 * COMMAND UNITS (C): "In Melee attacks made by units adjacent to, or stacked with a Friendly
 * Command unit, subtract the appropriate number from the die roll. Conversely, the appropriate
 * number is added to a die roll made by Enemy units attacking units which are stacked with, or
 * adjacent to a Friendly Command unit. Command units lose their ability to influence combat in
 * this manner while they are demoralized." Never for missile fire.
 * FEROCITY (B), (C): -1 in every melee attack by the ferocious player, +1 in every melee attack
 * against him. ROMAN (BYZANTINE) VITALITY (A), (B): the same for the Byzantine player. */
typedef struct da_melee_sides {
    int attacker_command_bonus; /* the best bonus of a non-demoralized command unit with or next
                                   to the attackers; 0 when none */
    int defender_command_bonus; /* the same on the defenders' side */
    bool attacker_ferocious, defender_ferocious;
    bool attacker_byzantine, defender_byzantine;
    bool missile; /* missile fire: command units never influence it */
} da_melee_sides;
/* The total to add to the die roll. */
int da_melee_drm(const da_melee_sides *s);

/* ---- demoralization and panic ------------------------------------------------------------------
 */
/* DEMORALIZATION AND PANIC: "A demoralized unit has its Movement Allowance and its Melee Defense
 * Strengths halved (losing any fractions)"; panicked units keep their full Movement Allowance.
 * COMMAND UNITS (A): a demoralized unit moves only if it began the Movement Phase stacked with
 * or adjacent to a Friendly Command unit. Returns the movement points (0: may not move). */
int da_movement_allowance(int ma, bool demoralized, bool panicked, bool near_command);
/* "The effects of demoralization last until the end of the same Phase (in which the unit was
 * demoralized) in the following Game-Turn." */
typedef struct da_when {
    int game_turn, phase; /* phase: the scenario's numbering within a Game-Turn */
} da_when;
/* Whether a unit demoralized at `since` is still demoralized at `now` (within `now`'s phase). */
bool da_still_demoralized(da_when since, da_when now);
/* PANIC: "When the cumulative losses an army suffers during a game reach that army's Panic
 * Level, all units of that army immediately panic"; "Panic may occur only once per army per
 * game." */
bool da_panics(int cumulative_losses, int panic_level, bool panicked_before);
/* The three exemptions: "1) Command units; 2) All combat units stacked with or adjacent to a
 * Command unit 3) Any unit which is more than ten hexes distant from the nearest Enemy unit". */
bool da_panic_exempt(bool is_command, bool with_or_next_to_command, int hexes_to_nearest_enemy);
/* Rally: "A command unit rallies a panicked unit with a die roll of any number except six. A non
 * command unit rallies an adjacent panicked unit by rolling either a one, two, or three." */
bool da_rallies(bool by_command, int die);
/* "Panicked and/or demoralized units which receive a "DD" combat result are eliminated." */
bool da_dd_eliminates(bool demoralized, bool panicked);

/* ---- losses and victory points -----------------------------------------------------------------
 */
/* EXPLANATION OF COMBAT RESULTS: "Command units are eliminated in a "1E" or "2E" combat result
 * only if sufficient combat units are not available to meet the required loss." The number of
 * command units lost when `losses` units must go and `combat_units` can. */
int da_command_losses(int losses, int combat_units);
/* DISMOUNTED CAVALRY: the Victory Points scored for the parts eliminated. */
int da_dismounted_vp(int cavalry_vp, int dismounted_vp, bool dismounted_eliminated,
                     bool mount_eliminated);
/* CAVALRY (Correction): the minimum straight charge: medium cavalry 2 hexes, Byzantine
 * Cataphracts 3 (0: the kind has none the errata states). */
int da_min_charge(const char *cavalry);

#endif
