/* The `fire` action: missile fire at a hex, offensive (the phasing side's Fire Phase, by a unit
 * allocated to fire there) or defensive (the Defensive Fire Phase, by the other side, only at
 * units allocated to attack the firer: COMBAT General Rule).
 *
 * COMBAT (D): "Missile units may only fire over a unit which is on lower terrain than the missile
 * unit. A missile unit in a hilltop hex when firing downhill (into a slope or level terrain hex)
 * has its range allowance increased by one. In addition, a missile unit on a hilltop hex may fire
 * over any type of hex located on level terrain, and may fire over any unit in a slope or level
 * terrain hex. Missile units on hilltop hexes may never fire over wooded slope hexes."
 * DEMORALIZATION AND PANIC: "the Fire Protection Strength is assigned according to the terrain of
 * the target hex rather than according to the strength of the defending units"; TEC: at most 4
 * but the Keep (charts.c: da_hex_fps). COMMAND UNITS (C): never any die roll modifier in missile
 * combat. EXPLANATION OF COMBAT RESULTS: command units stacked with others are never affected.
 * COMBAT (L): "No unit may participate in more than one missile and one melee attack per Player
 * Turn": a unit fires once a Player-Turn, and the units a fire is aimed at (every unit of the
 * target hex; in Defensive Fire those allocated against the firer) are participants too, so a
 * unit fired at is not fired at again in that Player-Turn. Firing and being fired at are counted
 * apart (house reading: a unit struck by Defensive Fire still fires in the Fire Phase, and a
 * Defensive Fire does not shield its firer from it).
 * The odds are the firer's adjusted Missile Strength against the target hex's Fire Protection
 * Strength on the CRT (the charts' data). House defaults (docs/rules/spi-dark-ages.md): a hex of
 * terrain marked blocks_fire, or on a higher level than both firer and target, blocks the line;
 * a line along a hexside is blocked only when both hexes beside it block. */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"

#include <stdio.h>
#include <string.h>

int da_fire_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"target", NULL};
    da_fire_action *a = out;
    if (json_in_only_keys(fields, "", keys, err) != 0) return -1;
    return da_read_hex(fields, "", "target", &a->target, err);
}

json_t *da_fire_encode(const void *action) {
    const da_fire_action *a = action;
    char t[HEX_NAME_MAX];
    hex_format(a->target, t);
    return json_pack("{s:s}", "target", t);
}

static bool any_unit(da_game *g, hex h) {
    da_unit *st[1];
    return da_stack(g, h, true, st, 1) > 0;
}

/* Why hex h on the line blocks fire from `from` (a hilltop or not) to `to`, or NULL. */
static const char *blocks(da_game *g, hex from, bool hilltop, hex to, hex h, char *why,
                          size_t cap) {
    da_hex_info info;
    da_hex_read(g, h, &info);
    int lf = hex_map_level(g->map, from), lt = hex_map_level(g->map, to);
    bool slope = info.terrain & DA_F(DA_SLOPE), woods = info.terrain & DA_F(DA_WOODS);
    char name[HEX_NAME_MAX];
    hex_format(h, name);
    if (hilltop && slope && woods) {
        snprintf(why, cap, "wooded slope hex %s (never fired over from a hilltop, COMBAT (D))",
                 name);
        return why;
    }
    bool level_terrain = !slope && info.level < lf;
    if (info.level > lf && info.level > lt) {
        snprintf(why, cap, "hex %s stands higher than firer and target (house default)", name);
        return why;
    }
    for (int i = 0; i < info.nnames; i++) {
        const json_t *t = json_object_get(json_object_get(g->charts, "terrain"), info.names[i]);
        if (json_is_true(json_object_get(t, "blocks_fire")) && !(hilltop && level_terrain)) {
            snprintf(why, cap, "%s in hex %s blocks the line of fire", info.names[i], name);
            return why;
        }
    }
    if (any_unit(g, h)) {
        bool lower = info.level < lf;
        /* COMBAT (D): over a unit only on lower terrain; from a hilltop, over any unit in a slope
         * or level terrain hex. */
        if (!(lower || (hilltop && (slope || level_terrain)))) {
            snprintf(why, cap,
                     "a unit in hex %s is not on lower terrain than the firer (COMBAT (D))", name);
            return why;
        }
    }
    return NULL;
}

int da_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const da_fire_action *a = action;
    da_game g;
    da_applied applied = {0};
    if (da_begin(ctx, &g, err) != 0) return -1;
    char t[HEX_NAME_MAX], at[HEX_NAME_MAX];
    hex_format(a->target, t);
    da_crt crt;
    if (!da_chart_require(g.charts, "units", err) || !da_chart_require(g.charts, "terrain", err) ||
        da_crt_load(g.charts, &crt, err) != 0)
        goto fail;
    da_unit *u = da_acting_unit(ctx, &g.army, err);
    if (!u) goto fail;
    hex_format(u->at, at);
    bool defensive = strcmp(u->side, g.turn.other) == 0;
    if (da_require_phase(&g, defensive ? DA_PH_DEFENSIVE_FIRE : DA_PH_FIRE,
                         defensive ? NULL : u->side,
                         defensive ? "Defensive Fire is fired" : "units fire", err) != 0)
        goto fail;
    /* Missile units (Class IV and V, MOVEMENT (K)) fire; COMBAT (L) lets Class I units fire
     * offensively too (a Class I unit with a missile strength in its chart); Defensive Fire is
     * the missile units' (COMBAT General Rule). */
    if (da_unit_value(u, "missile", 0) <= 0 ||
        !(da_missile(u) || (u->cls == DA_CLASS_I && !defensive))) {
        da_rule_error(err, "unit", "unit '%s' (class %s) is not a unit that %s", u->id,
                      da_class_name(u->cls),
                      defensive ? "uses Defensive Fire (a missile unit, Class IV or V)"
                                : "fires (Class IV or V, or Class I with a missile strength)");
        goto fail;
    }
    if (da_disabled(u)) {
        da_rule_error(err, "unit",
                      "unit '%s' is %s: it may not initiate any attack, Defensive Fire included "
                      "(DEMORALIZATION AND PANIC)",
                      u->id, u->panicked ? "panicked" : "demoralized");
        goto fail;
    }
    if (u->aboard[0]) {
        da_rule_error(err, "unit",
                      "unit '%s' is aboard fleet '%s' (house default: no attacks from a fleet)",
                      u->id, u->aboard);
        goto fail;
    }
    if (u->fired) {
        da_rule_error(err, "unit",
                      "unit '%s' has made its one missile attack this Player-Turn (COMBAT (L))",
                      u->id);
        goto fail;
    }
    da_unit *targets[DA_STACK_CAP];
    size_t nt = da_stack(&g, a->target, true, targets, DA_STACK_CAP), nstack = nt;
    if (nt == 0 || strcmp(targets[0]->side, u->side) == 0) {
        da_rule_error(err, "target", "hex %s holds no enemy unit", t);
        goto fail;
    }
    if (defensive) {
        /* "Missile units may only employ defensive fire against Enemy units which have been
         * allocated to attack the missile unit(s) itself": only those are struck. */
        size_t kept = 0;
        for (size_t i = 0; i < nt; i++)
            if ((targets[i]->alloc_melee && hex_equal(targets[i]->melee_target, u->at)) ||
                (targets[i]->alloc_fire && hex_equal(targets[i]->fire_target, u->at)))
                targets[kept++] = targets[i];
        bool allocated = kept > 0;
        if (allocated) nt = kept;
        if (!allocated) {
            da_rule_error(err, "target",
                          "Defensive Fire only at units allocated to attack the missile unit "
                          "itself (COMBAT General Rule): none in %s is allocated against %s",
                          t, at);
            goto fail;
        }
    } else if (!u->alloc_fire || !hex_equal(u->fire_target, a->target)) {
        da_rule_error(err, "target",
                      "unit '%s' was not allocated to fire at %s in the Attack Allocation Phase",
                      u->id, t);
        goto fail;
    }
    /* COMBAT (L): "No unit may participate in more than one missile ... attack per Player Turn",
     * the units fired at too (as in melee, where a defender is a participant): a unit fired at
     * this Player-Turn is not fired at again. */
    for (size_t i = 0; i < nt; i++)
        if (targets[i]->missile_target) {
            da_rule_error(err, "target",
                          "unit '%s' in %s has been fired at this Player-Turn: no unit takes part "
                          "in more than one missile attack per Player-Turn (COMBAT (L))",
                          targets[i]->id, t);
            goto fail;
        }
    /* Range: +1 from a hilltop firing downhill into a slope or level terrain hex. */
    int range = da_unit_value(u, "range", 0), distance = hex_distance(&g.grid, u->at, a->target);
    bool hilltop = da_hilltop(&g, u->at);
    bool downhill = hilltop && !da_hilltop(&g, a->target) &&
                    hex_map_level(g.map, a->target) < hex_map_level(g.map, u->at);
    int reach = range + (downhill ? 1 : 0);
    if (distance > reach) {
        da_rule_error(err, "target", "hex %s is %d hexes from %s; unit '%s' reaches %d%s", t,
                      distance, at, u->id, reach,
                      downhill ? " (range +1 from a hilltop, COMBAT (D))" : "");
        goto fail;
    }
    hex line[HEX_LINE_MAX];
    bool along = false;
    int n = hex_line(&g.grid, u->at, a->target, line, HEX_LINE_MAX, &along);
    if (n < 0) {
        da_rule_error(err, "target", "hex %s is too far for a line of fire", t);
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        char why[160], why2[160];
        const char *b = blocks(&g, u->at, hilltop, a->target, line[i], why, sizeof why);
        /* along a hexside: the pair of hexes beside it blocks only together */
        if (along && i + 1 < n && hex_distance(&g.grid, line[i], line[i + 1]) == 1 &&
            hex_distance(&g.grid, u->at, line[i]) == hex_distance(&g.grid, u->at, line[i + 1])) {
            const char *b2 = blocks(&g, u->at, hilltop, a->target, line[i + 1], why2, sizeof why2);
            i++;
            if (!b || !b2) continue;
        }
        if (!b) continue;
        da_rule_error(err, "target", "no line of fire from %s to %s: %s", at, t, b);
        goto fail;
    }
    da_adjusted fire;
    da_adjust_missile(&g, u, a->target, &fire);
    if (fire.prohibited) {
        da_rule_error(err, "unit", "unit '%s' may not fire: %s", u->id, fire.why);
        goto fail;
    }
    /* The target hex's Fire Protection Strength (a ford: a stream hex for combat). */
    da_hex_info ti;
    da_hex_read(&g, a->target, &ti);
    static const char *const stream[] = {"stream"};
    int fps = (ti.terrain & DA_F(DA_FORD)) ? da_hex_fps(g.charts, stream, 1)
                                           : da_hex_fps(g.charts, ti.names, ti.nnames);
    int col = da_odds_column(fire.value, da_whole(fps), crt.columns, crt.ncolumns);
    char fs[32], adj[200];
    da_strength_text(fire.value, fs, sizeof fs);
    da_adjusted_text(&fire, adj, sizeof adj);
    if (col < 0) {
        da_rule_error(err, "target",
                      "missile strength %s against Fire Protection %d is below the CRT's worst "
                      "column (%s)",
                      fs, fps, crt.columns[0]);
        goto fail;
    }
    int die = 0;
    if (dice_roll(ctx->dice, "fire", "1d6", 1, 6, &die) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    const char *code = da_crt_result(&crt, die, col);
    da_result r;
    da_result_parse(code, &r);
    /* Command units stacked with others are never affected by missile fire. */
    da_unit *hit[DA_STACK_CAP];
    size_t nh = 0;
    for (size_t i = 0; i < nt; i++)
        if (!(targets[i]->cls == DA_COMMAND && nstack > 1)) hit[nh++] = targets[i];
    da_apply_result(&g, &r, &u, 1, hit, nh, true, &applied);
    u->fired = true;
    u->changed = true;
    for (size_t i = 0; i < nt; i++) {
        targets[i]->missile_target = true;
        targets[i]->changed = true;
    }
    rules_say(out->summary, sizeof out->summary,
              "%s%s fires from %s at %s (%d hex%s%s): missile %s vs Fire Protection %d (%s), "
              "column %s; roll %d (no modifier in missile combat): %s",
              defensive ? "Defensive Fire: " : "", u->id, at, t, distance,
              distance == 1 ? "" : "es", downhill ? ", hilltop +1 range" : "", adj, fps,
              ti.nnames ? ti.names[0] : "clear", crt.columns[col], die, applied.text);
    json_t *units = json_array();
    for (size_t i = 0; i < nh; i++)
        json_array_append_new(units, json_string(hit[i]->id));
    out->result = json_pack(
        "{s:s, s:s, s:s, s:b, s:i, s:i, s:o, s:i, s:s, s:i, s:s, s:o, s:O, s:O, s:O}", "action",
        "fire", "unit", u->id, "target", t, "defensive", defensive, "distance", distance, "range",
        reach, "strength", da_adjusted_json_new(&fire), "fps", fps, "column", crt.columns[col],
        "roll", die, "result", code, "units", units, "eliminated", applied.eliminated,
        "demoralized", applied.demoralized, "panicked", applied.panicked);
    da_applied_free(&applied);
    return da_finish(ctx, &g, out, err);
fail:
    da_applied_free(&applied);
    da_game_free(&g);
    return -1;
}
