/* The `move` action: one unit, to the full extent desired, along a path of hexes entered and
 * changes of facing, priced per the Terrain Effects Chart errata (charts.c: da_step_cost).
 *
 * What the errata states and this file checks:
 * - GENERAL MOVEMENT (C): "Each unit must be moved to the full extent desired before the movement
 *   of any other unit is begun": one move per unit per Movement Phase; (F), (J): only in the
 *   Friendly Movement Phase, no combat in it.
 * - (K): entering one of the three hexes adjacent to the front of an Enemy missile unit (Class
 *   IV or V, not demoralized) ends the move; it may start there and go directly to another.
 * - FACING (I): facing changes only in the Friendly Movement Phase; "Units in Contact ... may
 *   change their facing ... up to 60 degrees while remaining in the same hex" (COMBAT (K): one
 *   hexside, no leaving the hex). Viking Fleets are exempt from facing.
 * - STACKING (C), VIKING FLEETS (A): one fleet a hex at the end of a move (passing through is
 *   allowed); a fleet carries at most three combat units plus any command units, whatever their
 *   stacking points; they move with it and land only from a moored fleet (VIKING FLEETS (E)).
 * - DEMORALIZATION, COMMAND UNITS (A): a demoralized unit moves half its Movement Allowance, and
 *   only if it began the phase stacked with or adjacent to a Friendly Command unit.
 * - PANIC: panicked units move first, their full Movement Allowance, toward the map edge they
 *   were nearest when they panicked, through as few hexes next to the enemy as they can, and
 *   off the map for one Movement Point.
 * - CAVALRY: the trailing straight run of hexes is the unit's charge (remembered for the Melee
 *   Phase); a change of facing in the last hex entered spoils it.
 * - DISMOUNTED CAVALRY: dismounting and remounting only in the Friendly Movement Phase.
 * House defaults (docs/rules/spi-dark-ages.md): a unit moves into its three front hexes only; a
 * change of facing costs options.facing_cost Movement Points a hexside (1); a land unit boards a
 * friendly fleet by entering its hex for 1 Movement Point, which ends its move; a fleet that has
 * not moved this phase is moored; dismounting or remounting is the unit's whole move. */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

/* ---- decode / encode --------------------------------------------------------------------- */

int da_move_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"path", "dismount", "remount", NULL};
    static const char *const face_keys[] = {"face", NULL};
    static const char *const dirs[] = {"n", "ne", "se", "s", "sw", "nw", NULL};
    da_move_action *a = out;
    json_t *path = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        rules_in_bool(fields, "", "dismount", &a->dismount, err) != 0 ||
        rules_in_bool(fields, "", "remount", &a->remount, err) != 0)
        return -1;
    if (json_in_array(fields, "", "path", false, DA_PATH_MAX, &path) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (a->dismount && a->remount) {
        api_error_field(err, "remount", "absent when dismounting");
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(path, i, v) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "path", i);
        da_step_spec *s = &a->steps[i];
        if (json_is_string(v) && hex_parse(json_string_value(v), &s->to)) {
            s->kind = DA_STEP_HEX;
            continue;
        }
        if (json_is_string(v) && strcmp(json_string_value(v), "off") == 0) {
            s->kind = DA_STEP_OFF;
            continue;
        }
        if (json_is_object(v)) {
            if (json_in_only_keys(v, p, face_keys, err) != 0 ||
                rules_in_enum(v, p, "face", true, dirs, 0, &s->facing, err) != 0)
                return -1;
            s->kind = DA_STEP_FACE;
            continue;
        }
        api_error_field(err, p,
                        "a hex as printed on the map (\"1205\"), {\"face\": \"ne\"} or \"off\" "
                        "(a panicked unit leaving the map)");
        return -1;
    }
    a->nsteps = (int)json_array_size(path);
    return 0;
}

json_t *da_move_encode(const void *action) {
    const da_move_action *a = action;
    json_t *path = json_array();
    for (int i = 0; i < a->nsteps; i++) {
        const da_step_spec *s = &a->steps[i];
        if (s->kind == DA_STEP_FACE) {
            json_array_append_new(path, json_pack("{s:s}", "face", hex_dir_name(s->facing)));
        } else if (s->kind == DA_STEP_OFF) {
            json_array_append_new(path, json_string("off"));
        } else {
            char h[HEX_NAME_MAX];
            hex_format(s->to, h);
            json_array_append_new(path, json_string(h));
        }
    }
    json_t *o = json_pack("{s:o}", "path", path);
    if (a->dismount) json_object_set_new(o, "dismount", json_true());
    if (a->remount) json_object_set_new(o, "remount", json_true());
    return o;
}

/* ---- prices -------------------------------------------------------------------------------- */

static int facing_cost_half(const rules_ctx *ctx) {
    const json_t *v = json_object_get(ctx->options, "facing_cost");
    return json_is_integer(v) ? (int)json_integer_value(v) * 2 : 2;
}

static const char *chart_class(const da_unit *u) {
    const char *c = json_string_value(json_object_get(u->chart, "class"));
    return c ? c : da_class_name(u->cls);
}

/* Half MP to step from `from` into adjacent `to` (DA_COST_PROHIBITED when it may not), with
 * the terms named; `bank` is the unit's bank in `from` when that is a stream hex. */
static int step_price(const da_game *g, const da_unit *u, hex from, hex to, int bank,
                      rules_terms *terms) {
    da_hex_info hf, ht;
    da_hex_read(g, from, &hf);
    da_hex_read(g, to, &ht);
    da_step s = {0};
    s.terrains = ht.names;
    s.nterrains = ht.nnames;
    s.river = ht.terrain & DA_F(DA_RIVER);
    s.stream = ht.terrain & DA_F(DA_STREAM);
    s.bridge = ht.terrain & DA_F(DA_BRIDGE);
    s.ford = ht.terrain & DA_F(DA_FORD);
    s.along_road = da_road_side(g, from, to);
    s.from_road = hf.road;
    s.water_hexside = da_water_side(g, from, to);
    int course[2];
    if ((hf.terrain & DA_F(DA_STREAM)) && bank >= 0 && da_stream_course(g, from, course)) {
        int out_bank = da_stream_bank(course, hex_direction(&g->grid, from, to));
        s.crossing_stream = out_bank >= 0 && out_bank != da_stream_bank(course, bank);
        /* "There is no additional Movement Point cost to cross a stream through a bridge or
         * ford hex": the hex left is the one crossed. */
        if (hf.terrain & (DA_F(DA_BRIDGE) | DA_F(DA_FORD))) s.crossing_stream = false;
    }
    int cost = da_step_cost(g->charts, chart_class(u), u->cls == DA_FLEET, &s);
    if (!terms) return cost;
    if (s.river && !s.bridge && u->cls != DA_FLEET)
        rules_terms_add(terms, 0, "river: never but at a bridge");
    else if (s.bridge)
        rules_terms_add(terms, cost, "bridge%s", s.from_road ? " from a road hex" : "");
    else if (s.along_road)
        rules_terms_add(terms, cost, "road hexside");
    else if (s.ford)
        rules_terms_add(terms, cost, "ford (as clear)");
    else if (s.stream) {
        int base = cost - (s.crossing_stream ? da_errata.stream_crossing_half : 0) -
                   (s.water_hexside ? da_errata.water_hexside_half : 0);
        const char *dearer = "stream hex";
        for (int i = 0; i < ht.nnames; i++) {
            if (strcmp(ht.names[i], "stream") == 0) continue;
            int c = da_terrain_cost(g->charts, ht.names[i], chart_class(u));
            if (cost < 0 && c < 0) {
                rules_terms_add(terms, 0, "%s: %s", ht.names[i],
                                c == DA_COST_ROAD_ONLY ? "only along a road" : "prohibited (P)");
                return cost;
            }
            if (cost >= 0 && base > da_errata.stream_hex_half && c == base) dearer = ht.names[i];
        }
        rules_terms_add(terms, cost < 0 ? 0 : base, "%s%s", dearer,
                        strcmp(dearer, "stream hex") ? " (the dearer terrain of the stream hex)"
                                                     : "");
    } else {
        const char *dearest = ht.nnames ? ht.names[0] : "clear";
        int best = -1;
        for (int i = 0; i < ht.nnames; i++) {
            int c = da_terrain_cost(g->charts, ht.names[i], chart_class(u));
            if (c < 0) {
                rules_terms_add(terms, 0, "%s: %s", ht.names[i],
                                c == DA_COST_ROAD_ONLY ? "only along a road" : "prohibited (P)");
                return DA_COST_PROHIBITED;
            }
            if (c > best) {
                best = c;
                dearest = ht.names[i];
            }
        }
        rules_terms_add(terms, best < 0 ? 0 : best, "%s%s", dearest,
                        ht.nnames > 1 ? " (the dearer terrain)" : "");
    }
    if (cost >= 0 && s.crossing_stream)
        rules_terms_add(terms, da_errata.stream_crossing_half, "crossing the stream");
    if (cost >= 0 && s.water_hexside)
        rules_terms_add(terms, da_errata.water_hexside_half, "water hexside");
    return cost;
}

/* "1/2", "1", "3 1/2" */
static void half_text(int half, char *out, size_t cap) {
    if (half % 2 == 0)
        snprintf(out, cap, "%d", half / 2);
    else if (half < 2)
        snprintf(out, cap, "1/2");
    else
        snprintf(out, cap, "%d 1/2", half / 2);
}

/* [{"name", "cost": "1/2"}] */
static json_t *terms_half_json(const rules_terms *t) {
    json_t *out = json_array();
    for (int i = 0; i < t->n; i++) {
        char v[16];
        half_text(t->t[i].value, v, sizeof v);
        json_array_append_new(out, json_pack("{s:s, s:s}", "name", t->t[i].name, "cost", v));
    }
    return out;
}

static void terms_half_text(const rules_terms *t, char *out, size_t cap) {
    out[0] = '\0';
    for (int i = 0; i < t->n; i++) {
        char v[16];
        half_text(t->t[i].value, v, sizeof v);
        rules_say(out, cap, "%s%s %s", i ? ", " : "", t->t[i].name, v);
    }
}

/* Hexside turns to bring direction dir into u's front hexes. */
static int turns_needed(const da_unit *u, int dir) {
    if (u->cls == DA_FLEET) return 0;
    int rel = hex_relative(u->facing, dir);
    return rel == 0 || rel == 1 || rel == 5 ? 0 : rel == 3 ? 2 : 1;
}

/* A panicked unit's possible next steps from its hex: toward its edge, into a hex it may enter
 * with no enemy, within the half MP left (facing turns included). *calm: one of them is not next
 * to an enemy. */
static bool panic_step_exists(const da_game *g, const rules_ctx *ctx, const da_unit *u, int left,
                              bool *calm) {
    bool any = false;
    *calm = false;
    if (u->ncontact > 0) return false; /* held in its hex */
    int here = da_edge_distance(g, u->at, u->panic_edge);
    if (here == 0) return left >= 2; /* off the map for one Movement Point */
    for (int d = 0; d < HEX_DIRS; d++) {
        hex n = hex_neighbour(&g->grid, u->at, d);
        if (!hex_on_grid(&g->grid, n) || da_edge_distance(g, n, u->panic_edge) >= here ||
            da_enemy_in(g, u->side, n))
            continue;
        int c = step_price(g, u, u->at, n, u->bank, NULL);
        if (c < 0 || c + turns_needed(u, d) * facing_cost_half(ctx) > left) continue;
        any = true;
        if (!da_next_to_enemy(g, u->side, n)) *calm = true;
    }
    return any;
}

/* ---- dismounting ----------------------------------------------------------------------------- */

static int dismount(da_game *g, da_unit *u, json_t **result, char *summary, size_t cap,
                    api_error *err) {
    const char *d = json_string_value(json_object_get(u->chart, "dismounted"));
    if (!da_cavalry(u) || !d) {
        da_rule_error(err, "dismount",
                      "unit '%s' (%s) has no dismounted type in setup.charts.units", u->id,
                      u->type);
        return -1;
    }
    da_unit *m = da_army_append(&g->army);
    if (!m) {
        da_rule_error(err, "dismount", "no room for another unit in this session");
        return -1;
    }
    char old_type[DA_NAME_MAX + 1];
    snprintf(old_type, sizeof old_type, "%s", u->type);
    /* The riderless mount: the cavalry unit's type, remembering whose it is. */
    snprintf(m->id, sizeof m->id, "%.*s-mount", UNIT_ID_MAX - 6, u->id);
    if (da_army_find(&g->army, m->id) != m) {
        g->army.n--;
        da_rule_error(err, "dismount", "unit id '%s' for the mount is taken", m->id);
        return -1;
    }
    snprintf(m->side, sizeof m->side, "%s", u->side);
    snprintf(m->type, sizeof m->type, "%s", old_type);
    snprintf(m->mount_of, sizeof m->mount_of, "%s", u->id);
    m->chart = u->chart;
    m->cls = DA_MOUNT;
    m->at = u->at;
    m->facing = u->facing;
    m->moved = true;
    m->moved_from = u->at;
    snprintf(u->mounted_type, sizeof u->mounted_type, "%s", old_type);
    snprintf(u->type, sizeof u->type, "%s", d);
    u->chart = json_object_get(json_object_get(g->charts, "units"), d);
    u->changed = true;
    char at[HEX_NAME_MAX];
    hex_format(u->at, at);
    rules_say(summary, cap, "%s dismounts in %s: %s on foot, riderless mount %s", u->id, at, d,
              m->id);
    *result = json_pack("{s:s, s:s, s:s, s:s, s:s}", "action", "move", "unit", u->id, "dismounted",
                        d, "mount", m->id, "hex", at);
    return 0;
}

static int remount(da_game *g, da_unit *u, json_t **result, char *summary, size_t cap,
                   api_error *err) {
    da_unit *m = NULL;
    for (size_t i = 0; i < g->army.n; i++)
        if (da_alive(&g->army.units[i]) && strcmp(g->army.units[i].mount_of, u->id) == 0)
            m = &g->army.units[i];
    if (!u->mounted_type[0] || !m || !hex_equal(m->at, u->at)) {
        da_rule_error(err, "remount",
                      "unit '%s' can remount only in the hex of its own riderless mount", u->id);
        return -1;
    }
    snprintf(u->type, sizeof u->type, "%s", u->mounted_type);
    u->mounted_type[0] = '\0';
    u->chart = json_object_get(json_object_get(g->charts, "units"), u->type);
    u->changed = true;
    m->remounted = true;
    m->changed = true;
    char at[HEX_NAME_MAX];
    hex_format(u->at, at);
    rules_say(summary, cap, "%s remounts its mount %s in %s: %s again", u->id, m->id, at, u->type);
    *result = json_pack("{s:s, s:s, s:s, s:s, s:s}", "action", "move", "unit", u->id, "remounted",
                        u->type, "mount", m->id, "hex", at);
    return 0;
}

/* ---- resolve ----------------------------------------------------------------------------------
 */

/* The stacking points in h of friendly units (fleets and their cargo aside) within the chart's
 * limit. */
static int check_stacking(const da_game *g_const, const da_unit *u, api_error *err) {
    da_game *g = (da_game *)g_const;
    da_unit *stack[DA_STACK_CAP];
    size_t n = da_stack(g, u->at, false, stack, DA_STACK_CAP);
    int points = 0, fleets = 0, others = 0;
    for (size_t i = 0; i < n; i++) {
        if (stack[i]->cls == DA_FLEET) {
            fleets++;
            continue;
        }
        if (stack[i] != u) others++;
        points += da_unit_value(stack[i], "stacking", 1);
    }
    char at[HEX_NAME_MAX];
    hex_format(u->at, at);
    if (fleets > 1) {
        da_rule_error(err, "path",
                      "fleet '%s' would end its move in %s with another Viking Fleet (STACKING "
                      "(C): passing through only)",
                      u->id, at);
        return -1;
    }
    if (u->cls == DA_FLEET || others == 0) return 0;
    const json_t *limit = json_object_get(g->charts, "stacking_limit");
    if (!limit) {
        da_chart_require(g->charts, "stacking_limit", err);
        return -1;
    }
    if (points > json_integer_value(limit)) {
        da_rule_error(err, "path",
                      "unit '%s' would make %d stacking points in %s; the limit is %lld "
                      "(setup.charts.stacking_limit)",
                      u->id, points, at, (long long)json_integer_value(limit));
        return -1;
    }
    return 0;
}

int da_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const da_move_action *a = action;
    da_game g;
    json_t *steps = NULL;
    if (da_begin(ctx, &g, err) != 0) return -1;
    if (!da_chart_require(g.charts, "units", err) || !da_chart_require(g.charts, "terrain", err))
        goto fail;
    da_unit *u = da_acting_unit(ctx, &g.army, err);
    if (!u) goto fail;
    if (da_require_phase(&g, DA_PH_MOVEMENT, u->side, "units move", err) != 0) goto fail;
    if (g.turn.rallying) {
        da_rule_error(err, "unit",
                      "rally rolls have begun: they come after all Friendly units have completed "
                      "their movement (PANIC)");
        goto fail;
    }
    if (u->moved) {
        da_rule_error(err, "unit",
                      "unit '%s' has moved this Movement Phase: each unit moves to the full extent "
                      "desired before another is begun (GENERAL MOVEMENT RULES (C))",
                      u->id);
        goto fail;
    }
    if (u->cls == DA_MOUNT) {
        da_rule_error(err, "unit", "a riderless mount does not move by itself (house default)");
        goto fail;
    }
    /* PANIC: "The panicked units are moved ... at the beginning of each Friendly Movement Phase
     * before any other Friendly units are moved." */
    const da_unit *runner = u->panicked ? NULL : da_panicked_to_move(&g, u->side);
    if (runner) {
        da_rule_error(err, "unit",
                      "panicked unit '%s' moves first, before any other Friendly unit (PANIC)",
                      runner->id);
        goto fail;
    }
    hex start = u->at;
    int ma = da_unit_value(u, "movement", 0);
    const char *commander = NULL;
    bool near = da_command_near(&g, u->side, start, false, true, &commander) >= 0;
    int allowance = da_movement_allowance(ma, u->demoralized, u->panicked, near);
    if (allowance == 0 && u->demoralized && !u->panicked && !near) {
        da_rule_error(err, "unit",
                      "demoralized unit '%s' did not begin the Movement Phase stacked with or "
                      "adjacent to a Friendly Command unit, so it may not move (COMMAND UNITS (A))",
                      u->id);
        goto fail;
    }
    if (a->dismount || a->remount) {
        if (a->nsteps) {
            da_rule_error(err, "path", "dismounting or remounting is the unit's whole move");
            goto fail;
        }
        if (u->panicked || u->aboard[0]) {
            da_rule_error(err, a->dismount ? "dismount" : "remount",
                          u->panicked ? "a panicked unit only runs (PANIC)"
                                      : "not aboard a fleet (house default)");
            goto fail;
        }
        int rc = a->dismount ? dismount(&g, u, &out->result, out->summary, sizeof out->summary, err)
                             : remount(&g, u, &out->result, out->summary, sizeof out->summary, err);
        if (rc != 0) goto fail;
        u->moved = true;
        u->moved_from = start;
        return da_finish(ctx, &g, out, err);
    }
    if (a->nsteps == 0 && !u->panicked) {
        api_error_field(err, "path", "a non-empty array: hexes entered and changes of facing");
        goto fail;
    }
    da_unit *fleet = u->aboard[0] ? da_army_find(&g.army, u->aboard) : NULL;
    if (fleet && fleet->moved && a->nsteps) {
        da_rule_error(err, "path",
                      "fleet '%s' has moved this phase: troops disembark only from moored fleets "
                      "(VIKING FLEETS (E))",
                      fleet->id);
        goto fail;
    }
    int spent = 0, turns = 0, charge = 0;
    bool stopped = false, in_contact = u->ncontact > 0, embarked = false, off = false;
    const da_unit *stopper = NULL;
    char line[700] = "";
    steps = json_array();
    for (int i = 0; i < a->nsteps; i++) {
        const da_step_spec *s = &a->steps[i];
        char p[JSON_IN_PATH_MAX], h[HEX_NAME_MAX], cur[HEX_NAME_MAX];
        json_in_path_index(p, "path", (size_t)i);
        hex_format(u->at, cur);
        if (stopped || off || embarked) {
            da_rule_error(err, p, "unit '%s' %s at %s: the path must end there", u->id,
                          off        ? "left the map"
                          : embarked ? "boarded a fleet"
                                     : "entered a hex adjacent to the front of an Enemy missile "
                                       "unit and must cease movement (GENERAL MOVEMENT RULES (K))",
                          cur);
            goto fail;
        }
        if (s->kind == DA_STEP_FACE) {
            if (u->panicked && (i + 1 >= a->nsteps || a->steps[i + 1].kind == DA_STEP_FACE)) {
                da_rule_error(err, p,
                              "panicked unit '%s' turns only to step toward the %s map edge "
                              "(PANIC: its whole allowance toward the edge)",
                              u->id, da_edge_name(u->panic_edge));
                goto fail;
            }
            if (u->cls == DA_FLEET) {
                da_rule_error(err, p, "Viking Fleet units are exempt from all Facing rules");
                goto fail;
            }
            int turn = hex_relative(u->facing, s->facing);
            int hexsides = turn <= 3 ? turn : 6 - turn;
            if (hexsides == 0) {
                da_rule_error(err, p, "unit '%s' already faces %s", u->id, hex_dir_name(s->facing));
                goto fail;
            }
            turns += hexsides;
            if (in_contact && turns > 1) {
                da_rule_error(err, p,
                              "unit '%s' is in contact: it may change facing by one hexside (60 "
                              "degrees) a Movement Phase (FACING (I), COMBAT (K))",
                              u->id);
                goto fail;
            }
            int cost = hexsides * facing_cost_half(ctx);
            spent += cost;
            u->facing = s->facing;
            charge = 0; /* CAVALRY: no change of facing in the last hex of a charge */
            char c[16];
            half_text(cost, c, sizeof c);
            json_array_append_new(steps,
                                  json_pack("{s:s, s:i, s:s}", "face", hex_dir_name(s->facing),
                                            "hexsides", hexsides, "cost", c));
            rules_say(line, sizeof line, "%sface %s %s", i ? "; " : "", hex_dir_name(s->facing), c);
            continue;
        }
        if (s->kind == DA_STEP_OFF) {
            if (!u->panicked || da_edge_distance(&g, u->at, u->panic_edge) != 0) {
                da_rule_error(err, p,
                              "only a panicked unit on the map edge it runs to leaves the map "
                              "(PANIC)");
                goto fail;
            }
            spent += 2; /* "expending one Movement Point to move off the hex grid" */
            off = true;
            json_array_append_new(
                steps, json_pack("{s:s, s:s}", "off", da_edge_name(u->panic_edge), "cost", "1"));
            rules_say(line, sizeof line, "%soff the %s edge 1", i ? "; " : "",
                      da_edge_name(u->panic_edge));
            continue;
        }
        hex_format(s->to, h);
        if (in_contact) {
            da_rule_error(err, p,
                          "unit '%s' is in contact with %s: it may not leave its hex until one of "
                          "them is eliminated or demoralized (COMBAT (K))",
                          u->id, u->contact[0]);
            goto fail;
        }
        if (!hex_on_grid(&g.grid, s->to)) {
            da_rule_error(err, p, "hex %s is not on the map", h);
            goto fail;
        }
        int dir = hex_direction(&g.grid, u->at, s->to);
        if (dir < 0) {
            da_rule_error(err, p, "hex %s is not adjacent to %s", h, cur);
            goto fail;
        }
        if (turns_needed(u, dir) && !fleet) {
            da_rule_error(err, p,
                          "hex %s is not one of the front hexes of unit '%s' facing %s: change "
                          "facing first (house default)",
                          h, u->id, hex_dir_name(u->facing));
            goto fail;
        }
        if (da_enemy_in(&g, u->side, s->to)) {
            da_rule_error(err, p, "hex %s holds an enemy unit", h);
            goto fail;
        }
        if (u->panicked) {
            int before = da_edge_distance(&g, u->at, u->panic_edge);
            bool calm = false;
            panic_step_exists(&g, ctx, u, allowance * 2 - spent, &calm);
            if (da_edge_distance(&g, s->to, u->panic_edge) >= before) {
                da_rule_error(err, p,
                              "panicked unit '%s' must move toward the %s map edge (PANIC): %s is "
                              "no nearer to it than %s",
                              u->id, da_edge_name(u->panic_edge), h, cur);
                goto fail;
            }
            if (calm && da_next_to_enemy(&g, u->side, s->to)) {
                da_rule_error(err, p,
                              "panicked unit '%s' must move through as few hexes adjacent to "
                              "Enemy units as possible (PANIC): %s is next to one, and another "
                              "way toward the edge is not",
                              u->id, h);
                goto fail;
            }
        }
        /* A land unit boarding a friendly fleet in its hex. */
        da_unit *to_fleet = NULL;
        if (u->cls != DA_FLEET) {
            da_unit *st[DA_STACK_CAP];
            size_t n = da_stack(&g, s->to, false, st, DA_STACK_CAP);
            for (size_t k = 0; k < n; k++)
                if (st[k]->cls == DA_FLEET) to_fleet = st[k];
        }
        da_hex_info ht;
        da_hex_read(&g, s->to, &ht);
        rules_terms terms = {0};
        int cost;
        if (to_fleet && (ht.terrain & DA_F(DA_RIVER)) && !(ht.terrain & DA_F(DA_BRIDGE))) {
            int load = 0;
            for (size_t k = 0; k < g.army.n; k++)
                if (da_alive(&g.army.units[k]) &&
                    strcmp(g.army.units[k].aboard, to_fleet->id) == 0 &&
                    da_combat(&g.army.units[k]))
                    load++;
            if (da_combat(u) && load >= DA_FLEET_LOAD) {
                da_rule_error(err, p,
                              "fleet '%s' carries three combat units already (VIKING FLEETS (A))",
                              to_fleet->id);
                goto fail;
            }
            cost = 2;
            rules_terms_add(&terms, cost, "boarding fleet %s (house default)", to_fleet->id);
            snprintf(u->aboard, sizeof u->aboard, "%s", to_fleet->id);
            embarked = true;
        } else {
            cost = step_price(&g, u, u->at, s->to, u->bank, &terms);
        }
        if (cost < 0) {
            char tt[200];
            terms_half_text(&terms, tt, sizeof tt);
            da_rule_error(err, p, "unit '%s' (class %s) may not enter %s (%s)", u->id,
                          chart_class(u), h, tt[0] ? tt : "the Terrain Effects Chart");
            goto fail;
        }
        spent += cost;
        char c[16], tt[200];
        half_text(cost, c, sizeof c);
        terms_half_text(&terms, tt, sizeof tt);
        rules_say(line, sizeof line, "%s%s %s (%s)", i ? "; " : "", h, c, tt);
        json_t *step =
            json_pack("{s:s, s:s, s:o}", "hex", h, "cost", c, "terms", terms_half_json(&terms));
        /* the bank of a stream hex it stands on: the one it came in by */
        u->bank = -1;
        int course[2];
        if ((ht.terrain & DA_F(DA_STREAM)) && da_stream_course(&g, s->to, course)) {
            int in = hex_opposite(dir);
            if (da_stream_bank(course, in) >= 0) u->bank = in;
        }
        if (u->aboard[0] && !embarked) u->aboard[0] = '\0'; /* landed */
        u->at = s->to;
        u->changed = true;
        charge = u->cls == DA_FLEET || dir != u->facing ? 0 : charge + 1;
        const da_unit *m = da_missile_front(&g, u->side, u->at);
        if (m) {
            stopped = true;
            stopper = m;
            json_object_set_new(step, "stopped_by", json_string(m->id));
            rules_say(line, sizeof line, ", front of missile unit %s: stops", m->id);
        }
        json_array_append_new(steps, step);
    }
    char sp[16], al[16];
    half_text(spent, sp, sizeof sp);
    half_text(allowance * 2, al, sizeof al);
    if (spent > allowance * 2) {
        da_rule_error(err, "path", "the path costs %s Movement Points; unit '%s' has %s%s (%s)", sp,
                      u->id, al,
                      u->demoralized ? " (demoralized: half its allowance, COMMAND UNITS (A))" : "",
                      line);
        goto fail;
    }
    if (u->panicked && !off && !stopped && !embarked) {
        bool calm;
        if (panic_step_exists(&g, ctx, u, allowance * 2 - spent, &calm)) {
            da_rule_error(err, "path",
                          "panicked unit '%s' must be moved its full Movement Allowance toward the "
                          "%s map edge (PANIC): it can still go on",
                          u->id, da_edge_name(u->panic_edge));
            goto fail;
        }
    }
    if (!off && !hex_equal(start, u->at) && check_stacking(&g, u, err) != 0) goto fail;
    /* A fleet's cargo goes with it. */
    if (u->cls == DA_FLEET)
        for (size_t k = 0; k < g.army.n; k++) {
            da_unit *c = &g.army.units[k];
            if (da_alive(c) && strcmp(c->aboard, u->id) == 0) {
                c->at = u->at;
                c->changed = true;
            }
        }
    if (off) u->off_map = true;
    u->moved = true;
    u->moved_from = start;
    u->charge = charge;
    u->changed = true;
    char from[HEX_NAME_MAX], to[HEX_NAME_MAX];
    hex_format(start, from);
    hex_format(u->at, to);
    if (off)
        rules_say(out->summary, sizeof out->summary,
                  "%s (panicked) runs %s -> off the %s edge, %s of %s MP: %s", u->id, from,
                  da_edge_name(u->panic_edge), sp, al, line);
    else if (hex_equal(start, u->at))
        rules_say(out->summary, sizeof out->summary, "%s turns in %s to face %s, %s of %s MP: %s",
                  u->id, from, hex_dir_name(u->facing), sp, al, line[0] ? line : "stays");
    else
        rules_say(out->summary, sizeof out->summary, "%s moves %s -> %s facing %s, %s of %s MP: %s",
                  u->id, from, to, hex_dir_name(u->facing), sp, al, line);
    if (u->demoralized)
        rules_say(out->summary, sizeof out->summary, "; demoralized: half allowance, beside %s",
                  commander ? commander : "?");
    if (u->panicked) rules_say(out->summary, sizeof out->summary, "; panicked: full allowance");
    if (charge && da_cavalry(u))
        rules_say(out->summary, sizeof out->summary, "; charge of %d hex%s", charge,
                  charge == 1 ? "" : "es");
    out->result =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:b, s:i}", "action", "move", "unit",
                  u->id, "from", from, "to", to, "facing", hex_dir_name(u->facing), "cost", sp,
                  "allowance", al, "steps", steps, "stopped", stopped, "charge", charge);
    steps = NULL;
    if (stopper) json_object_set_new(out->result, "stopped_by", json_string(stopper->id));
    if (off) json_object_set_new(out->result, "off_map", json_true());
    if (u->aboard[0]) json_object_set_new(out->result, "aboard", json_string(u->aboard));
    return da_finish(ctx, &g, out, err);
fail:
    json_decref(steps);
    da_game_free(&g);
    return -1;
}
