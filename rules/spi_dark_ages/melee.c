/* The `melee` action: the phasing side's units allocated to melee a hex attack every unit in it.
 *
 * Each unit's strength is adjusted individually (strength.c); the odds are the adjusted totals
 * ("an Attack Strength of 4 vs. a Defense Strength of 1/2 is treated as an eight to one attack"),
 * read on the CRT's columns (the charts' data, errata.c: da_odds_column). The die roll is modified
 * by COMMAND UNITS (C) (a non-demoralized command unit with or next to the attackers subtracts
 * its bonus, one with or next to the defenders adds its bonus), FEROCITY (B)/(C) and ROMAN
 * (BYZANTINE) VITALITY (A)/(B) (-1 in the side's own melee attacks, +1 in the enemy's); an
 * adjusted roll beyond the table reads its first or last row (house default). COMBAT (L): one
 * melee attack per unit a Player-Turn; only Class I units may also have fired offensively. The
 * lead attacker (`unit`) sets the capability chart's attacking class and the slope column of the
 * defence (house default). */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

int da_melee_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"attackers", "defender", NULL};
    da_melee_action *a = out;
    json_t *list = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        da_read_hex(fields, "", "defender", &a->defender, err) != 0)
        return -1;
    if (json_in_array(fields, "", "attackers", false, DA_ATTACKERS_MAX - 1, &list) != 0) {
        json_in_take_error(err);
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "attackers", i);
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            json_string_length(v) > UNIT_ID_MAX) {
            api_error_field(err, p, "a unit id");
            return -1;
        }
        snprintf(a->attackers[i], UNIT_ID_MAX + 1, "%s", json_string_value(v));
    }
    a->nattackers = (int)json_array_size(list);
    return 0;
}

json_t *da_melee_encode(const void *action) {
    const da_melee_action *a = action;
    char d[HEX_NAME_MAX];
    hex_format(a->defender, d);
    json_t *list = json_array();
    for (int i = 0; i < a->nattackers; i++)
        json_array_append_new(list, json_string(a->attackers[i]));
    json_t *o = json_pack("{s:s}", "defender", d);
    if (a->nattackers)
        json_object_set_new(o, "attackers", list);
    else
        json_decref(list);
    return o;
}

static bool flag(const da_game *g, const char *side, const char *key) {
    return json_is_true(json_object_get(json_object_get(g->armies, side), key));
}

int da_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const da_melee_action *a = action;
    da_game g;
    da_applied applied = {0};
    json_t *att_json = NULL, *def_json = NULL;
    if (da_begin(ctx, &g, err) != 0) return -1;
    char dh[HEX_NAME_MAX];
    hex_format(a->defender, dh);
    da_crt crt;
    if (!da_chart_require(g.charts, "units", err) || !da_chart_require(g.charts, "terrain", err) ||
        da_crt_load(g.charts, &crt, err) != 0)
        goto fail;
    da_unit *lead = da_acting_unit(ctx, &g.army, err);
    if (!lead) goto fail;
    if (da_require_phase(&g, DA_PH_MELEE, lead->side, "melee attacks are made", err) != 0)
        goto fail;
    da_unit *att[DA_ATTACKERS_MAX];
    size_t natt = 0;
    att[natt++] = lead;
    for (int i = 0; i < a->nattackers; i++) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "attackers", (size_t)i);
        da_unit *x = da_army_get(&g.army, a->attackers[i], p, err);
        if (!x || da_check_owner(ctx->actor, x, p, err) != 0) goto fail;
        for (size_t k = 0; k < natt; k++)
            if (att[k] == x) {
                da_rule_error(err, p, "unit '%s' is listed twice", x->id);
                goto fail;
            }
        att[natt++] = x;
    }
    da_unit *def[DA_STACK_CAP];
    size_t ndef = da_stack(&g, a->defender, true, def, DA_STACK_CAP);
    if (ndef == 0 || strcmp(def[0]->side, lead->side) == 0) {
        da_rule_error(err, "defender", "hex %s holds no enemy unit", dh);
        goto fail;
    }
    /* COMBAT (L): "No unit may participate in more than one ... melee attack per Player Turn":
     * defenders too (a hex already meleed this Player-Turn is not attacked again). */
    for (size_t k = 0; k < ndef; k++)
        if (def[k]->meleed) {
            da_rule_error(err, "defender",
                          "unit '%s' in %s has taken part in a melee this Player-Turn (COMBAT (L))",
                          def[k]->id, dh);
            goto fail;
        }
    /* every attacker: allocated to melee this hex, adjacent, able, not having meleed */
    da_strength total_a = da_whole(0), total_d = da_whole(0);
    char line_a[600] = "", line_d[600] = "";
    att_json = json_array();
    def_json = json_array();
    for (size_t i = 0; i < natt; i++) {
        da_unit *x = att[i];
        const char *field = i == 0 ? "unit" : "attackers";
        if (strcmp(x->side, lead->side) != 0) {
            da_rule_error(err, field, "unit '%s' is not of the attacking side", x->id);
            goto fail;
        }
        if (!x->alloc_melee || !hex_equal(x->melee_target, a->defender)) {
            da_rule_error(err, field,
                          "unit '%s' was not allocated to melee %s in the Attack Allocation Phase",
                          x->id, dh);
            goto fail;
        }
        if (da_disabled(x)) {
            da_rule_error(err, field,
                          "unit '%s' is %s and may never initiate an attack (DEMORALIZATION AND "
                          "PANIC)",
                          x->id, x->panicked ? "panicked" : "demoralized");
            goto fail;
        }
        if (x->meleed) {
            da_rule_error(err, field,
                          "unit '%s' has made its one melee attack this Player-Turn (COMBAT (L))",
                          x->id);
            goto fail;
        }
        if (x->fired && x->cls != DA_CLASS_I) {
            da_rule_error(err, field,
                          "unit '%s' fired this Player-Turn; only Class I units may both fire and "
                          "melee (COMBAT (L))",
                          x->id);
            goto fail;
        }
        if (hex_distance(&g.grid, x->at, a->defender) != 1) {
            da_rule_error(err, field, "unit '%s' is not adjacent to %s", x->id, dh);
            goto fail;
        }
        da_adjusted s;
        da_adjust_melee_attack(&g, x, a->defender, &s);
        if (s.prohibited) {
            da_rule_error(err, field, "unit '%s' may not attack: %s", x->id, s.why);
            goto fail;
        }
        total_a = da_add(total_a, s.value);
        char text[200];
        da_adjusted_text(&s, text, sizeof text);
        rules_say(line_a, sizeof line_a, "%s%s", i ? " + " : "", text);
        json_array_append_new(att_json, da_adjusted_json_new(&s));
    }
    for (size_t k = 0; k < ndef; k++) {
        da_adjusted s;
        bool fl = false;
        for (size_t i = 0; i < natt; i++)
            if (!da_front_hex(&g, def[k], att[i]->at)) fl = true;
        da_adjust_melee_defence(&g, def[k], lead, fl, da_water_side(&g, lead->at, a->defender), &s);
        total_d = da_add(total_d, s.value);
        char text[200];
        da_adjusted_text(&s, text, sizeof text);
        rules_say(line_d, sizeof line_d, "%s%s", k ? " + " : "", text);
        json_array_append_new(def_json, da_adjusted_json_new(&s));
    }
    char ta[32], td[32];
    da_strength_text(total_a, ta, sizeof ta);
    da_strength_text(total_d, td, sizeof td);
    int col = da_odds_column(total_a, total_d, crt.columns, crt.ncolumns);
    if (col < 0) {
        da_rule_error(err, "defender",
                      "attack %s against defence %s is below the CRT's worst column (%s)", ta, td,
                      crt.columns[0]);
        goto fail;
    }
    /* die roll modifiers */
    da_melee_sides sides = {0};
    const char *acmd = NULL, *dcmd = NULL;
    int best = -1;
    for (size_t i = 0; i < natt; i++) {
        const char *who = NULL;
        int b = da_command_near(&g, lead->side, att[i]->at, true, false, &who);
        if (b > best) {
            best = b;
            acmd = who;
        }
    }
    sides.attacker_command_bonus = best > 0 ? best : 0;
    best = da_command_near(&g, def[0]->side, a->defender, true, false, &dcmd);
    sides.defender_command_bonus = best > 0 ? best : 0;
    sides.attacker_ferocious = flag(&g, lead->side, "ferocious");
    sides.defender_ferocious = flag(&g, def[0]->side, "ferocious");
    sides.attacker_byzantine = flag(&g, lead->side, "byzantine");
    sides.defender_byzantine = flag(&g, def[0]->side, "byzantine");
    int drm = da_melee_drm(&sides);
    rules_terms terms = {0};
    if (sides.attacker_command_bonus)
        rules_terms_add(&terms, -sides.attacker_command_bonus, "command %s", acmd);
    if (sides.defender_command_bonus)
        rules_terms_add(&terms, sides.defender_command_bonus, "enemy command %s", dcmd);
    if (sides.attacker_ferocious) rules_terms_add(&terms, -1, "ferocity");
    if (sides.defender_ferocious) rules_terms_add(&terms, 1, "against the ferocious");
    if (sides.attacker_byzantine) rules_terms_add(&terms, -1, "Byzantine vitality");
    if (sides.defender_byzantine) rules_terms_add(&terms, 1, "against Byzantine vitality");
    int die = 0;
    if (dice_roll(ctx->dice, "melee", "1d6", 1, 6, &die) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    int row = die + drm < 1 ? 1 : die + drm > 6 ? 6 : die + drm;
    const char *code = da_crt_result(&crt, row, col);
    da_result r;
    da_result_parse(code, &r);
    da_apply_result(&g, &r, att, natt, def, ndef, false, &applied);
    for (size_t i = 0; i < natt; i++) {
        att[i]->meleed = true;
        att[i]->changed = true;
    }
    for (size_t k = 0; k < ndef; k++) {
        def[k]->meleed = true;
        def[k]->changed = true;
    }
    char tt[300];
    rules_terms_text(&terms, tt, sizeof tt);
    if (natt > 1) rules_say(line_a, sizeof line_a, " = %s", ta);
    if (ndef > 1) rules_say(line_d, sizeof line_d, " = %s", td);
    rules_say(out->summary, sizeof out->summary,
              "melee on %s: attack %s vs defence %s, column %s; roll %d %s = %d: %s", dh, line_a,
              line_d, crt.columns[col], die, tt, row, applied.text);
    out->result = json_pack(
        "{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:o, s:i, s:i, s:i, s:s, s:O, s:O, s:O, s:b}",
        "action", "melee", "defender", dh, "attackers", att_json, "defenders", def_json, "attack",
        ta, "defence", td, "column", crt.columns[col], "modifiers", rules_terms_json_new(&terms),
        "roll", die, "modifier", drm, "row", row, "result", code, "eliminated", applied.eliminated,
        "demoralized", applied.demoralized, "panicked", applied.panicked, "contact",
        applied.contact);
    att_json = def_json = NULL;
    da_applied_free(&applied);
    return da_finish(ctx, &g, out, err);
fail:
    json_decref(att_json);
    json_decref(def_json);
    da_applied_free(&applied);
    da_game_free(&g);
    return -1;
}
