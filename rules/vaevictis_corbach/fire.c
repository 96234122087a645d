/* The `fire` action: artillery on the Artillery Table, 1d6 + the table's modifiers (cumulative):
 * -1 target is a light unit, -1 shooter is disorganised, the target terrain's Fire column of the
 * Terrain Effects Table, +2 against a flank, -1 beyond 3 hexes and a further -1 for each hex
 * beyond 4, +1 adjacent fire, +1 for a 12-pounder (as rules-notes.md reads the merged columns).
 *
 * House defaults (docs/rules/vaevictis-corbach-1760.md): the target must be in the gun's front
 * (within 60 degrees of its facing); range at most options.max_range for its calibre; a line of
 * fire is blocked by any unit, woods or village between, or by a hex higher than both ends (a
 * line along a hexside: by either hex beside it); fire from the target's flank or rear counts as
 * "against flank"; a routed gun does not fire; the result strikes the target unit alone. */
#include "rules/vaevictis_corbach/vc.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

int vc_fire_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"target", NULL};
    vc_fire_action *a = out;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        rules_in_text(fields, "", "target", true, a->target, sizeof a->target, err) != 0)
        return -1;
    return 0;
}

json_t *vc_fire_encode(const void *action) {
    const vc_fire_action *a = action;
    return json_pack("{s:s}", "target", a->target);
}

static int max_range(const vc_options *o, int calibre) {
    return o->max_range[calibre <= 4 ? 0 : calibre <= 8 ? 1 : calibre <= 12 ? 2 : 3];
}

/* The first thing that blocks the line of fire, or NULL. */
static const char *line_blocked(const json_t *map, const vc_army *army, hex a, hex b, char *where) {
    hex_grid g;
    hex_map_grid(map, &g);
    hex between[HEX_LINE_MAX];
    bool along = false;
    int n = hex_line(&g, a, b, between, HEX_LINE_MAX, &along);
    if (n < 0) return "the line is too long";
    int top = hex_map_level(map, a) > hex_map_level(map, b) ? hex_map_level(map, a)
                                                            : hex_map_level(map, b);
    for (int i = 0; i < n; i++) {
        hex_format(between[i], where);
        for (size_t j = 0; j < army->n; j++)
            if (vc_alive(&army->units[j]) && hex_equal(army->units[j].at, between[i]))
                return "a unit stands in the way";
        unsigned t = hex_map_terrain(map, &vc_map_spec, between[i]);
        if (t & VC_F(VC_WOODS)) return "woods stand in the way";
        if (t & VC_F(VC_VILLAGE)) return "a village stands in the way";
        if (hex_map_level(map, between[i]) > top) return "higher ground stands in the way";
    }
    return NULL;
}

/* The Artillery Table's modifiers for shooter s firing at target t at range r. */
static void fire_terms(const json_t *map, const vc_unit *s, const vc_unit *t, int r,
                       rules_terms *terms) {
    if (vc_is_light(t)) rules_terms_add(terms, -1, "light target");
    if (s->state == VC_DISORGANIZED) rules_terms_add(terms, -1, "disorganized shooter");
    /* TET, Fire column: the target's terrain (the strongest of its types). */
    unsigned terrain = hex_map_terrain(map, &vc_map_spec, t->at);
    int best = 0;
    const char *name = NULL;
    for (int k = VC_CLEAR; k <= VC_VILLAGE; k++)
        if ((terrain & VC_F(k)) && vc_hex_terrain[k].fire < best) {
            best = vc_hex_terrain[k].fire;
            name = vc_hex_terrain[k].name;
        }
    if (name) rules_terms_add(terms, best, "%s", name);
    int climb = hex_map_level(map, t->at) - hex_map_level(map, s->at);
    if (climb >= 2)
        rules_terms_add(terms, vc_climb_two.fire, "target two levels up");
    else if (climb == 1)
        rules_terms_add(terms, vc_climb_one.fire, "target one level up");
    if (vc_zone_of(map, t, s->at) != VC_FRONT) rules_terms_add(terms, 2, "flank");
    if (r > 3) rules_terms_add(terms, -1, "beyond 3 hexes");
    if (r > 4) rules_terms_add(terms, -(r - 4), "%d hex%s beyond 4", r - 4, r - 4 > 1 ? "es" : "");
    if (r == 1) rules_terms_add(terms, 1, "adjacent fire");
    if (s->calibre == 12) rules_terms_add(terms, 1, "12-pounder");
}

int vc_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const vc_fire_action *a = action;
    vc_army army;
    vc_options o;
    if (vc_begin(ctx, &army, &o, err) != 0) return -1;
    const json_t *map = json_object_get(ctx->state, "map");
    hex_grid g;
    hex_map_grid(map, &g);
    json_t *pending = vc_pending_copy(ctx->state);
    vc_unit *s = vc_acting_unit(ctx, &army, err);
    vc_unit *t = s ? vc_army_get(&army, a->target, "target", err) : NULL;
    if (!t) goto fail;
    if (s->type != VC_ARTILLERY) {
        vc_rule_error(err, "unit", "unit '%s' is %s: only artillery fires on the Artillery Table",
                      s->id, vc_type_name(s->type));
        goto fail;
    }
    if (s->state == VC_ROUTED) {
        vc_rule_error(err, "unit", "unit '%s' is routed and does not fire (house default)", s->id);
        goto fail;
    }
    if (strcmp(s->side, t->side) == 0) {
        vc_rule_error(err, "target", "unit '%s' is on the shooter's own side", t->id);
        goto fail;
    }
    int r = hex_distance(&g, s->at, t->at);
    char sh[HEX_NAME_MAX], th[HEX_NAME_MAX], where[HEX_NAME_MAX] = "";
    hex_format(s->at, sh);
    hex_format(t->at, th);
    if (r > max_range(&o, s->calibre)) {
        vc_rule_error(err, "target",
                      "unit '%s' at %s is %d hexes away; a %d-pounder reaches %d "
                      "(options.max_range, house default)",
                      t->id, th, r, s->calibre, max_range(&o, s->calibre));
        goto fail;
    }
    if (vc_zone_of(map, s, t->at) != VC_FRONT) {
        vc_rule_error(err, "target",
                      "unit '%s' at %s is not in front of the gun facing %s: change its facing "
                      "first (house default: guns fire within 60 degrees of their facing)",
                      t->id, th, hex_dir_name(s->facing));
        goto fail;
    }
    const char *blocked = line_blocked(map, &army, s->at, t->at, where);
    if (blocked) {
        vc_rule_error(err, "target", "no line of fire from %s to %s: %s at %s (house default)", sh,
                      th, blocked, where);
        goto fail;
    }
    rules_terms terms = {0};
    fire_terms(map, s, t, r, &terms);
    int roll = 0;
    if (dice_roll(ctx->dice, "artillery", "1d6", 1, 6, &roll) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    dice_set_value(ctx->dice, roll);
    int row = 0;
    const vc_result *res = vc_artillery_result(roll + terms.total, &row);
    const char *away[] = {sh};
    vc_unit *targets[] = {t};
    vc_applied applied;
    if (vc_apply_result(ctx->dice, &o, res, false, targets, 1, away, 1, pending, &applied) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    char tt[300];
    rules_terms_text(&terms, tt, sizeof tt);
    rules_say(out->summary, sizeof out->summary,
              "%s (%d-pounder) fires at %s at %s, range %d: %s -> %d %+d = %d: %s", s->id,
              s->calibre, t->id, th, r, tt, roll, terms.total, roll + terms.total, applied.text);
    out->result = json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:i, s:i, s:i, s:o}", "action", "fire",
                            "unit", s->id, "target", t->id, "range", r, "roll", roll, "modifiers",
                            rules_terms_json_new(&terms), "modifier", terms.total, "adjusted",
                            roll + terms.total, "row", row, "target_result",
                            vc_applied_json_new(&applied, targets, 1));
    return vc_outcome_finish(ctx, &army, pending, out, err);
fail:
    json_decref(pending);
    vc_army_free(&army);
    return -1;
}
