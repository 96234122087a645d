/* The `melee` action: an assault on one hex, on the Combat Results Table (CRT), 1d6 + its
 * modifiers (cumulative), each named in the result:
 * - strength ratio, rounded in favour of the defender (6/1 +6 ... 1/3 -3);
 * - morale: the difference between the best morale among the attackers and among the defenders;
 * - orientation: +2 when a defender is attacked from a flank hex, +3 from a rear hex;
 * - heavy cavalry: +1 against disorganised infantry, -1 against line infantry in good order,
 *   +1 against cavalry with its bonus;
 * - disorganisation: -1 when an attacker is disorganised, +1 when a defender is;
 * - terrain: the defender's (Combat column of the Terrain Effects Table: woods -1, village -1,
 *   sunken road -1; across the hexside: stream -1, bridge -2 (a road across a stream is a
 *   bridge, vc_hexside), slope -2; climbing one level -1, two -2, going down +1);
 * - light units: -1 when every attacker is light, +1 when every defender is light in clear;
 * - change of order of a stack in an enemy ZoC -2 (changed_order: refused unless the acting
 *   unit stands in a stack of two or more units in an enemy ZoC), a commander present +1, a
 *   demoralised formation -1 (attacker's) / +1 (defender's), against a unit in march column +2.
 * House defaults (docs/rules/vaevictis-corbach-1760.md): attackers are adjacent and have the
 * defender's hex among their front hexes (infantry in a village: its flank hexes too, TET
 * Village); routed units and artillery do not assault; a hexside or level modifier holds only
 * when every attacking hex suffers it (the attacking hex best for the attacker sets it); results
 * strike every unit of a side, step losses unit by unit in order; the defender's result is
 * applied first. */
#include "rules/vaevictis_corbach/vc.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

/* ---- decode / encode --------------------------------------------------------------------- */

int vc_melee_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"attackers", "defender", "changed_order", NULL};
    vc_melee_action *a = out;
    json_t *list = NULL;
    char hexname[HEX_NAME_MAX + 1] = "";
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        rules_in_text(fields, "", "defender", true, hexname, sizeof hexname, err) != 0 ||
        rules_in_bool(fields, "", "changed_order", &a->changed_order, err) != 0)
        return -1;
    if (!hex_parse(hexname, &a->defender)) {
        api_error_field(err, "defender", "the defender's hex as printed on the map (\"1305\")");
        return -1;
    }
    if (json_in_array(fields, "", "attackers", false, VC_ATTACKERS_MAX, &list) != 0) {
        json_in_take_error(err);
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        const char *id = json_string_value(v);
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "attackers", i);
        if (!id || !*id || json_string_length(v) > UNIT_ID_MAX ||
            strlen(id) != json_string_length(v)) {
            api_error_field(err, p, "a unit id");
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(a->attackers[j], id) == 0) {
                api_error_field(err, p, "a unit id not listed twice");
                return -1;
            }
        snprintf(a->attackers[i], sizeof a->attackers[i], "%s", id);
    }
    a->nattackers = (int)json_array_size(list);
    return 0;
}

json_t *vc_melee_encode(const void *action) {
    const vc_melee_action *a = action;
    char h[HEX_NAME_MAX];
    hex_format(a->defender, h);
    json_t *o = json_pack("{s:s}", "defender", h);
    if (!o) return NULL;
    if (a->nattackers) {
        json_t *list = json_array();
        for (int i = 0; i < a->nattackers; i++)
            json_array_append_new(list, json_string(a->attackers[i]));
        json_object_set_new(o, "attackers", list);
    }
    if (a->changed_order) json_object_set_new(o, "changed_order", json_true());
    return o;
}

/* ---- modifiers --------------------------------------------------------------------------------
 */

typedef struct assault {
    const json_t *map;
    vc_unit *att[VC_ATTACKERS_MAX];
    size_t natt;
    vc_unit *def[8];
    size_t ndef;
    hex at; /* the defender's hex */
    const json_t *formations;
} assault;

static bool demoralized(const assault *s, const vc_unit *u) {
    return u->formation[0] && json_is_true(json_object_get(
                                  json_object_get(s->formations, u->formation), "demoralized"));
}

/* Hexside and level terms of attacking from hex `from`. */
static void approach_terms(const json_t *map, hex from, hex at, rules_terms *t) {
    unsigned side = vc_hexside(map, from, at);
    if (side & VC_F(VC_BRIDGE))
        rules_terms_add(t, vc_hexside_terrain[VC_BRIDGE].combat, "bridge");
    else if (side & VC_F(VC_STREAM))
        rules_terms_add(t, vc_hexside_terrain[VC_STREAM].combat, "stream");
    if (side & VC_F(VC_SLOPE)) rules_terms_add(t, vc_hexside_terrain[VC_SLOPE].combat, "slope");
    int climb = hex_map_level(map, at) - hex_map_level(map, from);
    if (climb >= 2)
        rules_terms_add(t, vc_climb_two.combat, "climbing two levels");
    else if (climb == 1)
        rules_terms_add(t, vc_climb_one.combat, "climbing one level");
    else if (climb < 0)
        rules_terms_add(t, vc_going_down.combat, "going down");
}

static void crt_terms(const assault *s, const vc_melee_action *a, rules_terms *t, char *ratio,
                      size_t ratio_cap, int *att_str, int *def_str) {
    int as = 0, ds = 0, am = -100, dm = -100;
    bool any_att_dis = false, any_def_dis = false, all_att_light = true, all_def_light_clear = true;
    for (size_t i = 0; i < s->natt; i++) {
        as += s->att[i]->strength;
        if (s->att[i]->morale > am) am = s->att[i]->morale;
        if (s->att[i]->state == VC_DISORGANIZED) any_att_dis = true;
        if (!vc_is_light(s->att[i])) all_att_light = false;
    }
    unsigned def_terrain = hex_map_terrain(s->map, &vc_map_spec, s->at);
    for (size_t i = 0; i < s->ndef; i++) {
        ds += s->def[i]->strength;
        if (s->def[i]->morale > dm) dm = s->def[i]->morale;
        if (s->def[i]->state == VC_DISORGANIZED) any_def_dis = true;
        if (!vc_is_light(s->def[i]) || def_terrain != VC_F(VC_CLEAR)) all_def_light_clear = false;
    }
    *att_str = as;
    *def_str = ds;
    int rm = vc_ratio_modifier(as, ds, ratio, ratio_cap);
    rules_terms_add(t, rm, "ratio %s", ratio);
    if (am != dm) rules_terms_add(t, am - dm, "morale %d vs %d", am, dm);
    /* Orientation: the worst exposure of any defender to any attacker. */
    int zone = VC_FRONT;
    for (size_t i = 0; i < s->natt; i++)
        for (size_t j = 0; j < s->ndef; j++) {
            int z = vc_zone_of(s->map, s->def[j], s->att[i]->at);
            if (z > zone) zone = z;
        }
    if (zone == VC_REAR)
        rules_terms_add(t, 3, "rear");
    else if (zone == VC_FLANK)
        rules_terms_add(t, 2, "flank");
    /* Heavy cavalry. */
    bool heavy = false, bonus = false;
    for (size_t i = 0; i < s->natt; i++)
        if (s->att[i]->type == VC_HEAVY_CAVALRY) {
            heavy = true;
            bonus |= s->att[i]->bonus;
        }
    if (heavy) {
        bool dis_inf = false, line_good = false, cav = false;
        for (size_t j = 0; j < s->ndef; j++) {
            const vc_unit *d = s->def[j];
            if (vc_is_infantry(d) && d->state == VC_DISORGANIZED) dis_inf = true;
            if (d->type == VC_LINE_INFANTRY && d->state == VC_GOOD) line_good = true;
            if (vc_is_cavalry(d)) cav = true;
        }
        if (dis_inf) rules_terms_add(t, 1, "heavy cavalry vs disorganized infantry");
        if (line_good) rules_terms_add(t, -1, "heavy cavalry vs line infantry in good order");
        if (bonus && cav) rules_terms_add(t, 1, "heavy cavalry bonus vs cavalry");
    }
    if (any_att_dis) rules_terms_add(t, -1, "attacker disorganized");
    if (any_def_dis) rules_terms_add(t, 1, "defender disorganized");
    /* Terrain: the defender's hex ... */
    int worst = 0;
    const char *name = NULL;
    for (int k = VC_CLEAR; k <= VC_VILLAGE; k++)
        if ((def_terrain & VC_F(k)) && vc_hex_terrain[k].combat < worst) {
            worst = vc_hex_terrain[k].combat;
            name = vc_hex_terrain[k].name;
        }
    if (name) rules_terms_add(t, worst, "%s", name);
    hex_grid g;
    hex_map_grid(s->map, &g);
    for (int d = 0; d < HEX_DIRS; d++)
        if (vc_hexside(s->map, s->at, hex_neighbour(&g, s->at, d)) & VC_F(VC_SUNKEN_ROAD)) {
            rules_terms_add(t, vc_hexside_terrain[VC_SUNKEN_ROAD].combat, "sunken road");
            break;
        }
    /* ... and the approach from the attacking hex best for the attacker. */
    rules_terms best = {0};
    bool first = true;
    for (size_t i = 0; i < s->natt; i++) {
        rules_terms here = {0};
        approach_terms(s->map, s->att[i]->at, s->at, &here);
        if (first || here.total > best.total) best = here;
        first = false;
    }
    for (int i = 0; i < best.n; i++)
        rules_terms_add(t, best.t[i].value, "%s", best.t[i].name);
    if (all_att_light) rules_terms_add(t, -1, "all attackers light");
    if (all_def_light_clear) rules_terms_add(t, 1, "all defenders light in clear");
    if (a->changed_order) rules_terms_add(t, -2, "change of order in enemy ZoC");
    for (size_t i = 0; i < s->natt; i++)
        if (s->att[i]->commander[0]) {
            rules_terms_add(t, 1, "commander %s", s->att[i]->commander);
            break;
        }
    for (size_t i = 0; i < s->natt; i++)
        if (demoralized(s, s->att[i])) {
            rules_terms_add(t, -1, "attacker's formation demoralized");
            break;
        }
    for (size_t i = 0; i < s->ndef; i++)
        if (demoralized(s, s->def[i])) {
            rules_terms_add(t, 1, "defender's formation demoralized");
            break;
        }
    for (size_t i = 0; i < s->ndef; i++)
        if (s->def[i]->state == VC_MARCH_COLUMN) {
            rules_terms_add(t, 2, "defender in march column");
            break;
        }
}

/* ---- resolve ----------------------------------------------------------------------------------
 */

static void ids_text(vc_unit **u, size_t n, char *out, size_t cap) {
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        rules_say(out, cap, "%s%s", i ? ", " : "", u[i]->id);
}

static json_t *ids_json(vc_unit **u, size_t n) {
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, json_string(u[i]->id));
    return list;
}

/* Gathers and checks the attackers (the acting unit first, then a->attackers). */
static int gather(const rules_ctx *ctx, const vc_melee_action *a, vc_army *army, assault *s,
                  api_error *err) {
    hex_grid g;
    hex_map_grid(s->map, &g);
    vc_unit *lead = vc_acting_unit(ctx, army, err);
    if (!lead) return -1;
    s->att[s->natt++] = lead;
    for (int i = 0; i < a->nattackers; i++) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "attackers", (size_t)i);
        vc_unit *u = vc_army_get(army, a->attackers[i], p, err);
        if (!u) return -1;
        if (u == lead) continue;
        if (s->natt >= VC_ATTACKERS_MAX) {
            vc_rule_error(err, p, "an assault has at most %d units", VC_ATTACKERS_MAX);
            return -1;
        }
        if (vc_check_owner(ctx->actor, u, p, err) != 0) return -1;
        s->att[s->natt++] = u;
    }
    char h[HEX_NAME_MAX];
    hex_format(s->at, h);
    for (size_t i = 0; i < s->natt; i++) {
        vc_unit *u = s->att[i];
        const char *field = i == 0 ? "unit" : "attackers";
        if (strcmp(u->side, lead->side) != 0) {
            vc_rule_error(err, field, "unit '%s' is not on the side of '%s'", u->id, lead->id);
            return -1;
        }
        if (u->type == VC_ARTILLERY || u->state == VC_ROUTED) {
            vc_rule_error(err, field, "unit '%s' (%s, %s) does not assault (house default)", u->id,
                          vc_type_name(u->type), vc_state_name(u->state));
            return -1;
        }
        if (hex_direction(&g, u->at, s->at) < 0) {
            vc_rule_error(err, field, "unit '%s' is not adjacent to hex %s", u->id, h);
            return -1;
        }
        /* vc_zone_of: infantry in a village counts its flank hexes as front (TET, Village). */
        if (vc_zone_of(s->map, u, s->at) != VC_FRONT) {
            vc_rule_error(err, field,
                          "hex %s is not a front hex of unit '%s' facing %s (house default; "
                          "infantry in a village also assaults into its flank hexes, TET "
                          "Village)",
                          h, u->id, hex_dir_name(u->facing));
            return -1;
        }
    }
    s->ndef = vc_stack(army, s->at, s->def, 8);
    if (s->ndef == 0 || strcmp(s->def[0]->side, lead->side) == 0) {
        vc_rule_error(err, "defender", "hex %s holds no enemy unit", h);
        return -1;
    }
    return 0;
}

/* CRT, Miscellaneous: "Change of order of a stack in an ennemy ZoC: -2". What the board can
 * show is checked: the acting unit stands in a stack of two or more units, and that hex is in a
 * zone of control of the other side. Whether the stack did change its order is the players' word.
 * Before any die (rules/ruleset.h). */
static int check_changed_order(const assault *s, const vc_melee_action *a, vc_army *army,
                               api_error *err) {
    if (!a->changed_order) return 0;
    const vc_unit *lead = s->att[0];
    char h[HEX_NAME_MAX];
    hex_format(lead->at, h);
    vc_unit *stack[8];
    size_t here = vc_stack(army, lead->at, stack, 8);
    if (here < 2) {
        vc_rule_error(err, "changed_order",
                      "changed_order: the CRT's \"change of order of a stack in an enemy ZoC\" "
                      "(-2) needs a stack, and unit '%s' stands alone at %s",
                      lead->id, h);
        return -1;
    }
    if (!vc_in_enemy_zoc(s->map, army, lead->side, lead->at)) {
        vc_rule_error(err, "changed_order",
                      "changed_order: the CRT's \"change of order of a stack in an enemy ZoC\" "
                      "(-2) needs the stack of unit '%s' at %s in an enemy zone of control, and "
                      "no enemy unit exerts one there",
                      lead->id, h);
        return -1;
    }
    return 0;
}

int vc_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const vc_melee_action *a = action;
    vc_army army;
    vc_options o;
    if (vc_begin(ctx, &army, &o, err) != 0) return -1;
    assault s = {0};
    s.map = json_object_get(ctx->state, "map");
    s.formations = json_object_get(ctx->state, "formations");
    s.at = a->defender;
    json_t *pending = vc_pending_copy(ctx->state);
    if (gather(ctx, a, &army, &s, err) != 0 || check_changed_order(&s, a, &army, err) != 0)
        goto fail;
    rules_terms terms = {0};
    char ratio[16];
    int as = 0, ds = 0;
    crt_terms(&s, a, &terms, ratio, sizeof ratio, &as, &ds);
    int roll = 0;
    if (dice_roll(ctx->dice, "combat", "1d6", 1, 6, &roll) != 0) goto dice;
    dice_set_value(ctx->dice, roll);
    int row = 0;
    const vc_result *ar, *dr;
    vc_crt_results(roll + terms.total, &row, &ar, &dr);
    char at[HEX_NAME_MAX], att_hexes[VC_ATTACKERS_MAX][HEX_NAME_MAX];
    const char *away_def[VC_ATTACKERS_MAX], *away_att[] = {at};
    hex_format(s.at, at);
    for (size_t i = 0; i < s.natt; i++) {
        hex_format(s.att[i]->at, att_hexes[i]);
        away_def[i] = att_hexes[i];
    }
    vc_applied def_applied, att_applied;
    if (vc_apply_result(ctx->dice, &o, dr, true, s.def, s.ndef, away_def, s.natt, pending,
                        &def_applied) != 0 ||
        vc_apply_result(ctx->dice, &o, ar, true, s.att, s.natt, away_att, 1, pending,
                        &att_applied) != 0)
        goto dice;
    char attackers[300], defenders[200], tt[500];
    ids_text(s.att, s.natt, attackers, sizeof attackers);
    ids_text(s.def, s.ndef, defenders, sizeof defenders);
    rules_terms_text(&terms, tt, sizeof tt);
    rules_say(out->summary, sizeof out->summary,
              "%s assault %s (%s), %d vs %d: %s -> %d %+d = %d: attacker %s; defender %s",
              attackers, at, defenders, as, ds, tt, roll, terms.total, roll + terms.total,
              att_applied.text, def_applied.text);
    out->result =
        json_pack("{s:s, s:o, s:s, s:o, s:i, s:i, s:s, s:o, s:i, s:i, s:i, s:i, s:o, s:o}",
                  "action", "melee", "attackers", ids_json(s.att, s.natt), "defender_hex", at,
                  "defenders", ids_json(s.def, s.ndef), "attack_strength", as, "defence_strength",
                  ds, "ratio", ratio, "modifiers", rules_terms_json_new(&terms), "modifier",
                  terms.total, "roll", roll, "adjusted", roll + terms.total, "row", row,
                  "attacker_result", vc_applied_json_new(&att_applied, s.att, s.natt),
                  "defender_result", vc_applied_json_new(&def_applied, s.def, s.ndef));
    return vc_outcome_finish(ctx, &army, pending, out, err);
dice:
    api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
fail:
    json_decref(pending);
    vc_army_free(&army);
    return -1;
}
