/* Pending retreats and the `retreat` action.
 *
 * A result with R1 or R2 leaves, for each surviving unit of the side that got it, an entry in
 * state.pending: {"kind": "retreat", "unit", "side", "hexes", "away_from": [hexes of the units
 * that caused it]}. Where to retreat is the owning side's decision, so the session waits for it:
 * every other action gets a 409 retreat_pending listing what is pending.
 *
 * House defaults (the rulebook's retreat rules are not among our sources): each hex of the path
 * must be adjacent to the last, on the map, free of enemy units, outside enemy zones of control,
 * open to the unit's type (Terrain Effects Table: Forb), and farther from the nearest hex in
 * away_from than the hex before; the stack it ends in keeps to the stacking limit. A unit with no
 * such path of the full length is eliminated: it retreats with an empty path. */
#include "rules/vaevictis_corbach/vc.h"

#include "protocol/json_in.h"
#include "rules/common/units.h"

#include <stdio.h>
#include <string.h>

/* ---- decode / encode --------------------------------------------------------------------- */

int vc_retreat_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"path", NULL};
    vc_retreat_action *a = out;
    json_t *path = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0) return -1;
    if (json_in_array(fields, "", "path", true, VC_PATH_MAX, &path) != 0) {
        json_in_take_error(err);
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(path, i, v) {
        if (!json_is_string(v) || !hex_parse(json_string_value(v), &a->path[i])) {
            char p[JSON_IN_PATH_MAX];
            json_in_path_index(p, "path", i);
            api_error_field(err, p, "a hex as printed on the map, four digits (\"1204\")");
            return -1;
        }
    }
    a->nsteps = (int)json_array_size(path);
    return 0;
}

json_t *vc_retreat_encode(const void *action) {
    const vc_retreat_action *a = action;
    json_t *path = json_array();
    for (int i = 0; i < a->nsteps; i++) {
        char h[HEX_NAME_MAX];
        hex_format(a->path[i], h);
        json_array_append_new(path, json_string(h));
    }
    return json_pack("{s:o}", "path", path);
}

/* ---- legality -------------------------------------------------------------------------------- */

typedef struct retreat_rules {
    const json_t *map;
    vc_army *army;
    const vc_unit *u;
    hex away[VC_ATTACKERS_MAX];
    size_t naway;
    int stacking_limit;
} retreat_rules;

static int nearest(const retreat_rules *r, const hex_grid *g, hex h) {
    int best = 1 << 20;
    for (size_t i = 0; i < r->naway; i++) {
        int d = hex_distance(g, h, r->away[i]);
        if (d < best) best = d;
    }
    return best;
}

/* Why the step from `from` into `to` is not a legal retreat step, or NULL. */
static const char *step_refused(const retreat_rules *r, hex from, hex to, bool last) {
    hex_grid g;
    hex_map_grid(r->map, &g);
    if (!hex_on_grid(&g, to)) return "it is off the map";
    if (hex_direction(&g, from, to) < 0) return "it is not adjacent to the hex before";
    if (vc_enemy_in(r->army, r->u->side, to)) return "an enemy unit stands there";
    if (vc_in_enemy_zoc(r->map, r->army, r->u->side, to))
        return "it is in an enemy zone of control";
    unsigned side = vc_hexside(r->map, from, to);
    bool road = side & (VC_F(VC_ROAD) | VC_F(VC_SUNKEN_ROAD));
    if (!road && r->u->type == VC_HEAVY_CAVALRY &&
        (hex_map_terrain(r->map, &vc_map_spec, to) & VC_F(VC_WOODS)))
        return "the Terrain Effects Table forbids woods to cavalry";
    if (!road && r->u->type == VC_ARTILLERY && (side & VC_F(VC_SLOPE)))
        return "the Terrain Effects Table forbids slopes to artillery";
    if (nearest(r, &g, to) <= nearest(r, &g, from))
        return "it does not lead away from the enemy that caused the retreat";
    if (last) {
        vc_unit *stack[8];
        size_t here = vc_stack(r->army, to, stack, 8);
        for (size_t i = 0; i < here; i++)
            if (stack[i] == r->u) here--;
        if ((int)here + 1 > r->stacking_limit) return "the stack there would be over the limit";
    }
    return NULL;
}

/* Whether some legal path of `left` more hexes starts at `from` (depth at most 2 or so). */
static bool path_exists(const retreat_rules *r, hex from, int left) {
    if (left == 0) return true;
    hex_grid g;
    hex_map_grid(r->map, &g);
    for (int d = 0; d < HEX_DIRS; d++) {
        hex to = hex_neighbour(&g, from, d);
        if (!step_refused(r, from, to, left == 1) && path_exists(r, to, left - 1)) return true;
    }
    return false;
}

int vc_retreat_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                       api_error *err) {
    const vc_retreat_action *a = action;
    const char *id = rules_acting_id(ctx, "retreat needs the retreating unit", err);
    if (!id) return -1;
    if (vc_check_pending(ctx->state, id, err) != 0) return -1;
    if (json_array_size(json_object_get(ctx->state, "pending")) == 0) {
        api_error_set(err, 409, "no_retreat_pending", json_pack("{s:s}", "unit", id),
                      "unit '%s' has no retreat to make", id);
        return -1;
    }
    json_t *pending = vc_pending_copy(ctx->state);
    size_t at = 0;
    json_t *entry = NULL;
    for (at = 0; at < json_array_size(pending); at++) {
        entry = json_array_get(pending, at);
        const char *u = json_string_value(json_object_get(entry, "unit"));
        if (u && strcmp(u, id) == 0) break;
    }
    int hexes = (int)json_integer_value(json_object_get(entry, "hexes"));
    vc_army army;
    vc_options o;
    vc_options_read(ctx->options, &o);
    if (vc_army_load(ctx->state, &army, err) != 0) {
        json_decref(pending);
        return -1;
    }
    retreat_rules r = {
        json_object_get(ctx->state, "map"), &army, NULL, {{0, 0}}, 0, o.stacking_limit};
    vc_unit *u = vc_army_get(&army, id, "unit", err);
    if (!u) goto fail;
    r.u = u;
    const json_t *away = json_object_get(entry, "away_from");
    for (size_t i = 0; i < json_array_size(away) && r.naway < VC_ATTACKERS_MAX; i++)
        if (hex_parse(json_string_value(json_array_get(away, i)), &r.away[r.naway])) r.naway++;
    char from[HEX_NAME_MAX], to[HEX_NAME_MAX] = "";
    hex_format(u->at, from);
    if (a->nsteps == 0) {
        if (path_exists(&r, u->at, hexes)) {
            vc_rule_error(err, "path",
                          "unit '%s' can retreat %d hex(es) from %s, so it must: an empty path "
                          "is for a unit with nowhere to go",
                          id, hexes, from);
            goto fail;
        }
        u->state = VC_ELIMINATED;
        u->strength = 0;
        u->changed = true;
        rules_say(out->summary, sizeof out->summary,
                  "%s cannot retreat %d hex(es) from %s: eliminated (house default)", id, hexes,
                  from);
    } else {
        if (a->nsteps != hexes) {
            vc_rule_error(err, "path", "unit '%s' must retreat exactly %d hex(es), not %d", id,
                          hexes, a->nsteps);
            goto fail;
        }
        hex cur = u->at;
        for (int i = 0; i < a->nsteps; i++) {
            const char *why = step_refused(&r, cur, a->path[i], i == a->nsteps - 1);
            if (why) {
                char p[JSON_IN_PATH_MAX], h[HEX_NAME_MAX];
                json_in_path_index(p, "path", (size_t)i);
                hex_format(a->path[i], h);
                vc_rule_error(err, p, "unit '%s' cannot retreat into %s: %s", id, h, why);
                goto fail;
            }
            cur = a->path[i];
        }
        u->at = cur;
        u->changed = true;
        hex_format(cur, to);
        rules_say(out->summary, sizeof out->summary, "%s retreats %d hex(es): %s -> %s", id, hexes,
                  from, to);
    }
    json_array_remove(pending, at);
    out->result =
        json_pack("{s:s, s:s, s:s, s:s, s:i, s:b}", "action", "retreat", "unit", id, "from", from,
                  "to", vc_alive(u) ? to : from, "hexes", hexes, "eliminated", !vc_alive(u));
    return vc_outcome_finish(ctx, &army, pending, out, err);
fail:
    json_decref(pending);
    vc_army_free(&army);
    return -1;
}
