/* Each unit's strength adjusted individually, every adjustment named.
 *
 * COMBAT UNIT CAPABILITY CHART, Important Note: "In adjusting Combat Strengths for Terrain
 * effects, Combat Unit Capability, and the effects of Demoralization or Panic, each unit's Combat
 * Strength is individually adjusted. Whenever any Combat Strength is halved, any remaining
 * fraction is lost. Defending units may have their Combat Strength(s) reduced to less than 1."
 * (errata.c: da_apply_effect, da_halve.) The note lists the adjustments but does not order them;
 * the module's order (docs/rules/spi-dark-ages.md), each rounded as it is applied:
 * - a melee attacker: its Melee Attack Strength, a short charge, then the terrain of its hex;
 * - a missile unit: its Missile Strength, then the terrain of its hex;
 * - a melee defender: its Melee Defense Strength (front or flank), the terrain of its hex (each
 *   terrain type in turn), the capability chart, halving on a road through road-only terrain,
 *   then demoralization or panic.
 * (Capability applies only to defenders; a demoralized or panicked unit never attacks.)
 *
 * TERRAIN EFFECTS CHART (Clarification): the Defense section adjusts Melee Defense Strengths,
 * the Attack section the Melee and Fire strengths of attackers; the column is Downhill for a
 * defender above its attacker (an attacker above its defender), Uphill the other way, Uphill for
 * both when slope hex meets slope hex; a melee through a water hexside is computed "as if the
 * units were occupying stream hexes", a ford hex is a stream hex for combat; units allowed in a
 * terrain only on roads "always have their Melee Defense Strength(s) halved when attacked while
 * on such a road hex"; "Class V units should have a P designation for their Attack Strength when
 * occupying a woods or swamp hex. Class V units in a woods/road hex, or a swamp/road hex have
 * their Attack Strength halved." */
#include "rules/spi_dark_ages/da.h"

#include <stdio.h>
#include <string.h>

void da_strength_text(da_strength s, char *out, size_t cap) {
    if (s.den == 1)
        snprintf(out, cap, "%ld", s.num);
    else if (s.num > s.den)
        snprintf(out, cap, "%ld %ld/%ld", s.num / s.den, s.num % s.den, s.den);
    else
        snprintf(out, cap, "%ld/%ld", s.num, s.den);
}

json_t *da_strength_json_new(da_strength s) {
    char t[32];
    da_strength_text(s, t, sizeof t);
    return json_string(t);
}

const char *da_slope_column(const da_game *g, hex attacker, hex defender, bool for_defender) {
    unsigned ta = hex_map_terrain(g->map, &da_map_spec, attacker),
             td = hex_map_terrain(g->map, &da_map_spec, defender);
    if ((ta & DA_F(DA_SLOPE)) && (td & DA_F(DA_SLOPE)) &&
        hex_distance(&g->grid, attacker, defender) == 1)
        return "uphill"; /* slope against adjacent slope: Uphill for both */
    int la = hex_map_level(g->map, attacker), ld = hex_map_level(g->map, defender);
    if (la == ld) return "level";
    bool attacker_above = la > ld;
    if (for_defender) return attacker_above ? "uphill" : "downhill";
    return attacker_above ? "downhill" : "uphill";
}

static void term(da_adjusted *a, const char *fmt, const char *x, const char *y) {
    if (a->nterms < DA_ADJ_MAX) snprintf(a->terms[a->nterms++], sizeof a->terms[0], fmt, x, y);
}

/* Applies the effect of a chart section ("attack"/"defense") of each terrain in `names`, column
 * `col`, for the unit's class. false when one is "P". */
static bool terrain_effects(const da_game *g, const da_unit *u, const char *const *names, int n,
                            const char *section, const char *col, bool defender, da_adjusted *a) {
    const char *cls = json_string_value(json_object_get(u->chart, "class"));
    for (int i = 0; i < n; i++) {
        const json_t *t = json_object_get(json_object_get(g->charts, "terrain"), names[i]);
        const char *e = json_string_value(
            json_object_get(json_object_get(json_object_get(t, section), col), cls ? cls : ""));
        if (!e || strcmp(e, "x1") == 0) continue;
        char what[40];
        snprintf(what, sizeof what, "%s %s", names[i], col);
        if (!da_apply_effect(&a->value, e, defender)) {
            term(a, "P %s%s", what, "");
            return false;
        }
        term(a, "%s %s", e, what);
    }
    return true;
}

/* The terrain names a unit in h fights in: stream for a ford or across a water hexside. */
static int combat_terrain(const da_game *g, hex h, bool water_side, const char **names,
                          da_hex_info *info) {
    static const char *const stream[] = {"stream"};
    da_hex_read(g, h, info);
    if (water_side || (info->terrain & DA_F(DA_FORD))) {
        names[0] = stream[0];
        return 1;
    }
    for (int i = 0; i < info->nnames; i++)
        names[i] = info->names[i];
    return info->nnames;
}

static void attack_terrain(const da_game *g, const da_unit *u, hex target, bool water_side,
                           da_adjusted *a) {
    const char *names[HEX_TERRAINS_MAX + 1];
    da_hex_info info;
    int n = combat_terrain(g, u->at, water_side, names, &info);
    const char *col = da_slope_column(g, u->at, target, false);
    /* TEC (Clarification): Class V in woods or swamp: P; on a road through them: halved. */
    if (u->cls == DA_CLASS_V && (info.terrain & (DA_F(DA_WOODS) | DA_F(DA_SWAMP)))) {
        if (!info.road) {
            a->prohibited = true;
            snprintf(a->why, sizeof a->why,
                     "Class V units may not attack from a woods or swamp hex (TEC)");
            term(a, "P Class V in woods/swamp%s%s", "", "");
            return;
        }
        a->value = da_halve(a->value, false);
        term(a, "x1/2 Class V on a woods/swamp road%s%s", "", "");
        /* the road has no other effect; the terrain's own attack effects are replaced by this */
        return;
    }
    if (!terrain_effects(g, u, names, n, "attack", col, false, a)) {
        a->prohibited = true;
        snprintf(a->why, sizeof a->why, "the Terrain Effects Chart marks its attack P in %s",
                 info.nnames ? info.names[0] : "its hex");
    }
}

void da_adjust_melee_attack(const da_game *g, const da_unit *u, hex defender_hex, da_adjusted *a) {
    memset(a, 0, sizeof *a);
    snprintf(a->unit, sizeof a->unit, "%s", u->id);
    a->base = u->cls == DA_MOUNT ? 0 : da_unit_value(u, "melee_attack", 0);
    a->value = da_whole(a->base);
    /* CAVALRY (Correction): minimum straight charges; a short charge halves the Melee Attack
     * Strength (the base rules' penalty, read as halving: a house default), never below 2 for
     * Byzantine Cataphracts (errata), 1 for medium cavalry, 2 for heavy. */
    const char *kind = json_string_value(json_object_get(u->chart, "cavalry"));
    int min = kind ? da_min_charge(kind) : 0;
    if (da_cavalry(u) && min > 0 && u->charge < min) {
        da_strength before = a->value;
        a->value = da_halve(a->value, false);
        long floor = strcmp(kind, "medium") == 0 ? 1 : 2;
        if (a->value.num < floor * a->value.den) {
            long keep = before.num / before.den < floor ? before.num / before.den : floor;
            a->value = da_whole(keep);
        }
        if (a->nterms < DA_ADJ_MAX)
            snprintf(a->terms[a->nterms++], sizeof a->terms[0], "x1/2 short charge %d < %d",
                     u->charge, min);
    }
    bool water = da_water_side(g, u->at, defender_hex);
    attack_terrain(g, u, defender_hex, water, a);
}

void da_adjust_missile(const da_game *g, const da_unit *u, hex target, da_adjusted *a) {
    memset(a, 0, sizeof *a);
    snprintf(a->unit, sizeof a->unit, "%s", u->id);
    a->base = da_unit_value(u, "missile", 0);
    a->value = da_whole(a->base);
    attack_terrain(g, u, target, false, a);
}

void da_adjust_melee_defence(const da_game *g, const da_unit *d, const da_unit *lead, bool flank,
                             bool water_side, da_adjusted *a) {
    memset(a, 0, sizeof *a);
    snprintf(a->unit, sizeof a->unit, "%s", d->id);
    /* FACING: "A unit uses its Melee Defense Strength Flank when it is attacked in Melee combat
     * from any hex not adjacent to its front." Fleets have no flank. */
    flank = flank && d->cls != DA_FLEET;
    a->base = d->cls == DA_MOUNT
                  ? 0
                  : da_unit_value(d, flank ? "melee_defense_flank" : "melee_defense", 0);
    a->value = da_whole(a->base);
    if (flank) term(a, "flank%s%s", "", "");
    const char *names[HEX_TERRAINS_MAX + 1];
    da_hex_info info;
    int n = combat_terrain(g, d->at, water_side, names, &info);
    const char *col = da_slope_column(g, lead->at, d->at, true);
    terrain_effects(g, d, names, n, "defense", col, true, a);
    /* COMBAT UNIT CAPABILITY CHART: the effect on the Melee Defense Strength of the defending
     * type when attacked by the attacking class. */
    const char *lead_class = json_string_value(json_object_get(lead->chart, "class"));
    const char *e = json_string_value(json_object_get(
        json_object_get(json_object_get(g->charts, "capability"), lead_class ? lead_class : ""),
        d->type));
    if (e && strcmp(e, "x1") != 0 && da_apply_effect(&a->value, e, true))
        term(a, "%s capability vs class %s", e, lead_class ? lead_class : "?");
    /* TEC (Clarification): road-only terrain halves the defender on its road hex. */
    if (info.road) {
        const char *cls = json_string_value(json_object_get(d->chart, "class"));
        for (int i = 0; i < info.nnames; i++)
            if (da_terrain_cost(g->charts, info.names[i], cls ? cls : "") == DA_COST_ROAD_ONLY) {
                a->value = da_halve(a->value, true);
                term(a, "x1/2 on a road through %s%s", info.names[i], "");
                break;
            }
    }
    /* DEMORALIZATION AND PANIC: "In Melee combat, both panicked and demoralized units have
     * their appropriate Defense Strength(s) halved (even if this reduces their strength to less
     * than 1)." */
    if (da_disabled(d)) {
        a->value = da_halve(a->value, true);
        term(a, "x1/2 %s%s", d->panicked ? "panicked" : "demoralized", "");
    }
}

json_t *da_adjusted_json_new(const da_adjusted *a) {
    json_t *terms = json_array();
    for (int i = 0; i < a->nterms; i++)
        json_array_append_new(terms, json_string(a->terms[i]));
    return json_pack("{s:s, s:i, s:o, s:o}", "unit", a->unit, "base", a->base, "strength",
                     da_strength_json_new(a->value), "adjustments", terms);
}

void da_adjusted_text(const da_adjusted *a, char *out, size_t cap) {
    char v[32];
    da_strength_text(a->value, v, sizeof v);
    out[0] = '\0';
    rules_say(out, cap, "%s %d", a->unit, a->base);
    for (int i = 0; i < a->nterms; i++)
        rules_say(out, cap, " %s", a->terms[i]);
    if (a->nterms) rules_say(out, cap, " = %s", v);
}
