/* The `move` action: one unit along a path of hexes and changes of facing, priced on the Terrain
 * Effects Table (TET).
 *
 * Per hex entered (cost of the infantry or cavalry column; artillery moves as infantry):
 * - across a road or sunken-road hexside (a bridge carries the road; a road across a stream is
 *   a bridge, TET Bridge: "There is a bridge where there is a road"): 1, and the road cancels
 *   the supplementary costs, the disorganisation and the bans of the terrain (TET footnote 2);
 * - otherwise the hex's terrain (the dearest of its types): clear 1, woods 2 (forbidden to
 *   cavalry; light cavalry may enter and is disorganised, footnote 1), village 2; plus stream +1,
 *   slope +1 infantry / +2 cavalry (forbidden to artillery, automatic disorganisation); climbing
 *   one level 0, two levels +1 and a test for disorganisation (footnote 3), going down 0.
 * House defaults (not in the charts; docs/rules/vaevictis-corbach-1760.md): movement points by
 * type (unit.movement overrides), a change of facing costs options.facing_change_cost (1; free on
 * a road, footnote 2 "including facing change"), a unit in good order or disorganized moves into
 * its front hexes only (routed units and march columns into any; infantry in a village into its
 * flank hexes too, TET Village: "The flank hexes of the infantry occupying these hexes are
 * considered like frontal hexes"), and a unit entering an enemy zone of control stops there. */
#include "rules/vaevictis_corbach/vc.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

/* ---- decode / encode --------------------------------------------------------------------- */

int vc_move_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"path", NULL};
    static const char *const face_keys[] = {"face", NULL};
    static const char *const dirs[] = {"n", "ne", "se", "s", "sw", "nw", NULL};
    vc_move_action *a = out;
    json_t *path = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0) return -1;
    if (json_in_array(fields, "", "path", true, VC_PATH_MAX, &path) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (json_array_size(path) == 0) {
        api_error_field(err, "path",
                        "a non-empty array of hexes (\"1205\") and facings "
                        "({\"face\": \"ne\"})");
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(path, i, v) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "path", i);
        vc_step *s = &a->steps[i];
        if (json_is_string(v) && hex_parse(json_string_value(v), &s->to)) continue;
        if (json_is_object(v)) {
            if (json_in_only_keys(v, p, face_keys, err) != 0 ||
                rules_in_enum(v, p, "face", true, dirs, 0, &s->facing, err) != 0)
                return -1;
            s->is_face = true;
            continue;
        }
        api_error_field(err, p, "a hex as printed on the map (\"1205\") or {\"face\": \"ne\"}");
        return -1;
    }
    a->nsteps = (int)json_array_size(path);
    return 0;
}

json_t *vc_move_encode(const void *action) {
    const vc_move_action *a = action;
    json_t *path = json_array();
    for (int i = 0; i < a->nsteps; i++) {
        const vc_step *s = &a->steps[i];
        if (s->is_face) {
            json_array_append_new(path, json_pack("{s:s}", "face", hex_dir_name(s->facing)));
        } else {
            char h[HEX_NAME_MAX];
            hex_format(s->to, h);
            json_array_append_new(path, json_string(h));
        }
    }
    return json_pack("{s:o}", "path", path);
}

/* ---- the cost of one hex --------------------------------------------------------------------- */

typedef struct step_cost {
    int cost;
    rules_terms terms;
    const char *disorganizes; /* why the step disorganises the unit, or NULL */
    bool test;                /* climbing two levels: a test for disorganisation */
    const char *forbidden;    /* why the unit may not enter, or NULL */
} step_cost;

static int column(const vc_unit *u, const vc_terrain_row *row) {
    return vc_is_cavalry(u) ? row->cost_cavalry : row->cost_infantry;
}

static void price(const json_t *map, const vc_unit *u, hex from, hex to, step_cost *c) {
    memset(c, 0, sizeof *c);
    unsigned side = vc_hexside(map, from, to);
    if (side & (VC_F(VC_ROAD) | VC_F(VC_SUNKEN_ROAD) | VC_F(VC_BRIDGE))) {
        /* TET, Road / Sunken road: 1, cancelling the rest (footnote 2). */
        const char *what = side & VC_F(VC_SUNKEN_ROAD) ? "sunken road" : "road";
        rules_terms_add(&c->terms, 1, "%s", what);
        c->cost = 1;
        return;
    }
    unsigned terrain = hex_map_terrain(map, &vc_map_spec, to);
    int base = 0;
    const char *base_name = "clear";
    for (int t = VC_CLEAR; t <= VC_VILLAGE; t++) {
        if (!(terrain & VC_F(t))) continue;
        int cost = column(u, &vc_hex_terrain[t]);
        if (cost == VC_FORBIDDEN && u->type == VC_LIGHT_CAVALRY && t == VC_WOODS) {
            /* TET footnote 1: light cavalry may move in woods, automatically disorganised. */
            cost = vc_hex_terrain[t].cost_infantry;
            c->disorganizes = "light cavalry in woods (TET footnote 1)";
        }
        if (cost == VC_FORBIDDEN) {
            c->forbidden = "the Terrain Effects Table forbids woods to cavalry";
            return;
        }
        if (cost > base) {
            base = cost;
            base_name = vc_hex_terrain[t].name;
        }
    }
    rules_terms_add(&c->terms, base, "%s", base_name);
    c->cost = base;
    if (side & VC_F(VC_STREAM)) {
        int s = column(u, &vc_hexside_terrain[VC_STREAM]);
        rules_terms_add(&c->terms, s, "stream");
        c->cost += s;
    }
    if (side & VC_F(VC_SLOPE)) {
        if (u->type == VC_ARTILLERY) {
            c->forbidden = "the Terrain Effects Table forbids slopes to artillery";
            return;
        }
        int s = column(u, &vc_hexside_terrain[VC_SLOPE]);
        rules_terms_add(&c->terms, s, "slope");
        c->cost += s;
        c->disorganizes = "slope (TET: automatic disorganisation)";
    }
    int climb = hex_map_level(map, to) - hex_map_level(map, from);
    if (climb >= 2) {
        rules_terms_add(&c->terms, vc_climb_two.cost_infantry, "climbing two levels");
        c->cost += vc_climb_two.cost_infantry;
        c->test = true;
    } else if (climb == 1) {
        rules_terms_add(&c->terms, 0, "climbing one level");
    }
}

static bool on_road(const json_t *map, hex h) {
    hex_grid g;
    hex_map_grid(map, &g);
    for (int d = 0; d < HEX_DIRS; d++)
        if (vc_hexside(map, h, hex_neighbour(&g, h, d)) &
            (VC_F(VC_ROAD) | VC_F(VC_SUNKEN_ROAD) | VC_F(VC_BRIDGE)))
            return true;
    return false;
}

/* ---- resolve ----------------------------------------------------------------------------------
 */

static void disorganize(vc_unit *u) {
    if (u->state == VC_GOOD || u->state == VC_MARCH_COLUMN) u->state = VC_DISORGANIZED;
    u->changed = true;
}

/* The whole path checked before any die (rules/ruleset.h: legality is decided before the first
 * die): each step, the movement points of the whole path, the stop in an enemy zone of control,
 * stacking and the stack's facing. Nothing here depends on a test's outcome: a failed test
 * climbing two levels only disorganizes (TET footnote 3), which changes neither a cost nor the
 * hexes the unit may enter (its front hexes are those of its state when it set out). 0, or -1
 * with the refusal; the unit is left where it was. */
static int check_path(const json_t *map, const hex_grid *g, vc_army *army, vc_unit *u,
                      const vc_move_action *a, const vc_options *o, bool free_direction,
                      api_error *err) {
    hex start = u->at;
    int facing = u->facing, spent = 0;
    bool stopped = false;
    char line[600] = "";
    int rc = -1;
    for (int i = 0; i < a->nsteps; i++) {
        const vc_step *s = &a->steps[i];
        char p[JSON_IN_PATH_MAX], h[HEX_NAME_MAX], cur[HEX_NAME_MAX];
        json_in_path_index(p, "path", (size_t)i);
        hex_format(u->at, cur);
        if (stopped) {
            vc_rule_error(err, p,
                          "unit '%s' stopped on entering an enemy zone of control at %s (house "
                          "default): the path must end there",
                          u->id, cur);
            goto done;
        }
        if (s->is_face) {
            if (s->facing == u->facing) {
                vc_rule_error(err, p, "unit '%s' already faces %s", u->id, hex_dir_name(s->facing));
                goto done;
            }
            int cost = on_road(map, u->at) ? 0 : o->facing_change_cost;
            spent += cost;
            u->facing = s->facing;
            rules_say(line, sizeof line, "%sface %s %d%s", i ? "; " : "", hex_dir_name(s->facing),
                      cost, cost == 0 && o->facing_change_cost ? " (road)" : "");
            continue;
        }
        hex_format(s->to, h);
        int dir = hex_direction(g, u->at, s->to);
        if (!hex_on_grid(g, s->to)) {
            vc_rule_error(err, p, "hex %s is not on the map", h);
            goto done;
        }
        if (dir < 0) {
            vc_rule_error(err, p, "hex %s is not adjacent to %s", h, cur);
            goto done;
        }
        /* Front hexes as vc_zone_of reads them: infantry in a village counts its flank hexes
         * as front ones (TET, Village) for this house rule too. */
        if (!free_direction && vc_zone_of(map, u, s->to) != VC_FRONT) {
            vc_rule_error(err, p,
                          "hex %s is not one of the front hexes of unit '%s' facing %s: change "
                          "facing first (house default; infantry in a village also moves into "
                          "its flank hexes, TET Village)",
                          h, u->id, hex_dir_name(u->facing));
            goto done;
        }
        if (vc_enemy_in(army, u->side, s->to)) {
            vc_rule_error(err, p, "hex %s holds an enemy unit", h);
            goto done;
        }
        step_cost c;
        price(map, u, u->at, s->to, &c);
        if (c.forbidden) {
            vc_rule_error(err, p, "unit '%s' (%s) cannot enter %s: %s", u->id,
                          vc_type_name(u->type), h, c.forbidden);
            goto done;
        }
        spent += c.cost;
        char terms[200];
        rules_terms_text(&c.terms, terms, sizeof terms);
        rules_say(line, sizeof line, "%s%s %d (%s)", i ? "; " : "", h, c.cost, terms);
        u->at = s->to;
        if (vc_in_enemy_zoc(map, army, u->side, u->at)) stopped = true;
    }
    if (spent > u->movement) {
        vc_rule_error(err, "path", "the path costs %d movement points; unit '%s' has %d (%s)",
                      spent, u->id, u->movement, line);
        goto done;
    }
    vc_unit *stack[8];
    size_t here = vc_stack(army, u->at, stack, 8);
    if ((int)here > o->stacking_limit) {
        char h[HEX_NAME_MAX];
        hex_format(u->at, h);
        vc_rule_error(err, "path",
                      "unit '%s' would end in a stack of %zu units at %s; the limit "
                      "is %d (options.stacking_limit)",
                      u->id, here, h, o->stacking_limit);
        goto done;
    }
    for (size_t i = 0; i < here; i++)
        if (stack[i] != u && stack[i]->facing != u->facing) {
            vc_rule_error(err, "path",
                          "unit '%s' would end facing %s in a stack facing %s: a stack has one "
                          "facing",
                          u->id, hex_dir_name(u->facing), hex_dir_name(stack[i]->facing));
            goto done;
        }
    rc = 0;
done:
    u->at = start;
    u->facing = facing;
    return rc;
}

int vc_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const vc_move_action *a = action;
    vc_army army;
    vc_options o;
    if (vc_begin(ctx, &army, &o, err) != 0) return -1;
    const json_t *map = json_object_get(ctx->state, "map");
    hex_grid g;
    hex_map_grid(map, &g);
    json_t *steps = json_array(), *tests = json_array();
    vc_unit *u = vc_acting_unit(ctx, &army, err);
    if (!u) goto fail;
    bool free_direction = u->state == VC_ROUTED || u->state == VC_MARCH_COLUMN;
    if (check_path(map, &g, &army, u, a, &o, free_direction, err) != 0) goto fail;

    /* The path is legal: from here on the move commits, whatever its tests roll. */
    hex start = u->at;
    int spent = 0;
    bool stopped = false; /* entered an enemy zone of control (the path ends there) */
    char why_disorganized[80] = "";
    char line[600] = "";
    for (int i = 0; i < a->nsteps; i++) {
        const vc_step *s = &a->steps[i];
        char h[HEX_NAME_MAX];
        if (s->is_face) {
            int cost = on_road(map, u->at) ? 0 : o.facing_change_cost;
            spent += cost;
            u->facing = s->facing;
            u->changed = true; /* written back even when no hex is entered (a turn in place) */
            json_array_append_new(
                steps, json_pack("{s:s, s:i}", "face", hex_dir_name(s->facing), "cost", cost));
            rules_say(line, sizeof line, "%sface %s %d%s", i ? "; " : "", hex_dir_name(s->facing),
                      cost, cost == 0 && o.facing_change_cost ? " (road)" : "");
            continue;
        }
        hex_format(s->to, h);
        step_cost c;
        price(map, u, u->at, s->to, &c);
        spent += c.cost;
        char terms[200];
        rules_terms_text(&c.terms, terms, sizeof terms);
        rules_say(line, sizeof line, "%s%s %d (%s)", i ? "; " : "", h, c.cost, terms);
        json_t *step = json_pack("{s:s, s:i, s:o}", "hex", h, "cost", c.cost, "terms",
                                 rules_terms_json_new(&c.terms));
        u->at = s->to;
        u->changed = true;
        if (c.disorganizes && u->state != VC_DISORGANIZED && u->state != VC_ROUTED) {
            disorganize(u);
            snprintf(why_disorganized, sizeof why_disorganized, "%s", c.disorganizes);
            json_object_set_new(step, "disorganized", json_string(c.disorganizes));
        }
        if (c.test && (u->state == VC_GOOD || u->state == VC_MARCH_COLUMN)) {
            /* TET footnote 3: a test for disorganisation (the TM procedure; a failure only
             * disorganises, and the unit goes on along the path checked above). At most
             * VC_PATH_MAX tests: only a failed allocation makes dice_roll fail here. */
            vc_test t;
            vc_unit probe = *u;
            if (vc_morale_test(ctx->dice, &o, &probe, 0, false, "climbing two levels", &t) != 0) {
                api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
                goto fail;
            }
            if (!t.passed) {
                disorganize(u);
                snprintf(why_disorganized, sizeof why_disorganized,
                         "failed its test climbing two levels");
            }
            t.after = u->state;
            t.steps_lost = 0;
            json_array_append_new(tests, vc_test_json_new(&t));
            rules_say(line, sizeof line, ", test %d %s morale %d: %s", t.roll,
                      t.passed ? "<=" : ">", u->morale, t.passed ? "passes" : "disorganized");
        }
        json_array_append_new(steps, step);
        if (vc_in_enemy_zoc(map, &army, u->side, u->at)) {
            stopped = true;
            rules_say(line, sizeof line, ", enemy ZoC: stops");
        }
    }
    char from[HEX_NAME_MAX], to[HEX_NAME_MAX];
    hex_format(start, from);
    hex_format(u->at, to);
    if (hex_equal(start, u->at))
        rules_say(out->summary, sizeof out->summary, "%s turns in %s to face %s, %d of %d MP: %s",
                  u->id, from, hex_dir_name(u->facing), spent, u->movement, line);
    else
        rules_say(out->summary, sizeof out->summary, "%s moves %s -> %s facing %s, %d of %d MP: %s",
                  u->id, from, to, hex_dir_name(u->facing), spent, u->movement, line);
    if (why_disorganized[0])
        rules_say(out->summary, sizeof out->summary, "; disorganized (%s)", why_disorganized);
    out->result =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:o, s:o, s:b, s:s, s:s}", "action", "move",
                  "unit", u->id, "from", from, "to", to, "facing", hex_dir_name(u->facing), "cost",
                  spent, "allowance", u->movement, "steps", steps, "tests", tests, "stopped_by_zoc",
                  stopped, "state", vc_state_name(u->state), "disorganized_by", why_disorganized);
    steps = tests = NULL;
    return vc_outcome_finish(ctx, &army, NULL, out, err);
fail:
    json_decref(steps);
    json_decref(tests);
    vc_army_free(&army);
    return -1;
}
