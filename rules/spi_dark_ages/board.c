/* The map's vocabulary and the board around units (rules/common/hex.h with this game's names).
 *
 * The Dark Ages mapsheet draws waterways through hexes, not along hexsides (TERRAIN EFFECTS
 * CHART (Clarification)); so a stream is a terrain of the hex, and to tell a unit crossing it
 * from one walking along a bank the map gives each stream hex its course: the two hexsides the
 * water flows through (setup.map.streams {"1204": ["n", "se"]}). The other four hexsides lie on
 * the two banks. */
#include "rules/spi_dark_ages/da.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *const da_terrain_names[] = {"clear", "woods",  "swamp", "slope",  "rough", "town",
                                        "keep",  "stream", "river", "bridge", "ford",  NULL};
static const char *const features[] = {"road", "water", NULL};

const hex_map_spec da_map_spec = {
    .terrains = da_terrain_names,
    .features = features,
    .level_min = 0,
    .level_max = 9,
};

void da_hex_read(const da_game *g, hex h, da_hex_info *out) {
    memset(out, 0, sizeof *out);
    out->terrain = hex_map_terrain(g->map, &da_map_spec, h);
    for (int t = 0; t < DA_TERRAIN_COUNT && out->nnames < HEX_TERRAINS_MAX; t++)
        if (out->terrain & DA_F(t)) out->names[out->nnames++] = da_terrain_names[t];
    out->level = hex_map_level(g->map, h);
    for (int d = 0; d < HEX_DIRS && !out->road; d++)
        out->road = da_road_side(g, h, hex_neighbour(&g->grid, h, d));
}

bool da_road_side(const da_game *g, hex a, hex b) {
    return (hex_map_hexside(g->map, &da_map_spec, a, b) & DA_F(DA_SIDE_ROAD)) != 0;
}

bool da_water_side(const da_game *g, hex a, hex b) {
    return (hex_map_hexside(g->map, &da_map_spec, a, b) & DA_F(DA_SIDE_WATER)) != 0;
}

bool da_stream_course(const da_game *g, hex h, int course[2]) {
    char name[HEX_NAME_MAX];
    hex_format(h, name);
    const json_t *c = json_object_get(g->streams, name);
    if (json_array_size(c) != 2) return false;
    course[0] = hex_dir_parse(json_string_value(json_array_get(c, 0)));
    course[1] = hex_dir_parse(json_string_value(json_array_get(c, 1)));
    return course[0] >= 0 && course[1] >= 0;
}

int da_stream_bank(const int course[2], int dir) {
    if (dir == course[0] || dir == course[1]) return -1;
    /* Bank 0: the hexsides met going clockwise from course[0] to course[1]. */
    for (int d = (course[0] + 1) % HEX_DIRS; d != course[1]; d = (d + 1) % HEX_DIRS)
        if (d == dir) return 0;
    return 1;
}

bool da_hilltop(const da_game *g, hex h) {
    if (!hex_on_grid(&g->grid, h)) return false;
    if (hex_map_terrain(g->map, &da_map_spec, h) & DA_F(DA_SLOPE)) return false;
    int cols = g->grid.col_last - g->grid.col_first + 1,
        rows = g->grid.row_last - g->grid.row_first + 1;
    if (cols <= 0 || rows <= 0) return false;
    unsigned char *seen = calloc((size_t)cols * (size_t)rows, 1);
    hex *queue = malloc((size_t)cols * (size_t)rows * sizeof *queue);
    bool enclosed = seen && queue;
    size_t head = 0, tail = 0;
    if (enclosed) {
        queue[tail++] = h;
        seen[(h.col - g->grid.col_first) * rows + (h.row - g->grid.row_first)] = 1;
    }
    /* Flood the non-slope hexes around h: reaching a hex on the map's edge means some line to the
     * edge avoids every slope hex. */
    while (enclosed && head < tail) {
        hex c = queue[head++];
        for (int d = 0; d < HEX_DIRS; d++) {
            hex n = hex_neighbour(&g->grid, c, d);
            if (!hex_on_grid(&g->grid, n)) {
                enclosed = false;
                break;
            }
            unsigned char *s =
                &seen[(n.col - g->grid.col_first) * rows + (n.row - g->grid.row_first)];
            if (*s || (hex_map_terrain(g->map, &da_map_spec, n) & DA_F(DA_SLOPE))) continue;
            *s = 1;
            queue[tail++] = n;
        }
    }
    free(seen);
    free(queue);
    return enclosed;
}

bool da_front_hex(const da_game *g, const da_unit *u, hex from) {
    if (u->cls == DA_FLEET) return true; /* FACING: fleets are exempt */
    int dir = hex_direction(&g->grid, u->at, from);
    if (dir < 0) return false;
    int rel = hex_relative(u->facing, dir);
    return rel == 0 || rel == 1 || rel == 5;
}

size_t da_stack(da_game *g, hex h, bool with_aboard, da_unit **out, size_t cap) {
    size_t n = 0;
    for (size_t i = 0; i < g->army.n && n < cap; i++) {
        da_unit *u = &g->army.units[i];
        if (da_alive(u) && hex_equal(u->at, h) && (with_aboard || !u->aboard[0])) out[n++] = u;
    }
    return n;
}

bool da_enemy_in(const da_game *g, const char *side, hex h) {
    for (size_t i = 0; i < g->army.n; i++) {
        const da_unit *u = &g->army.units[i];
        if (da_alive(u) && hex_equal(u->at, h) && strcmp(u->side, side) != 0) return true;
    }
    return false;
}

bool da_next_to_enemy(const da_game *g, const char *side, hex h) {
    for (size_t i = 0; i < g->army.n; i++) {
        const da_unit *u = &g->army.units[i];
        if (da_alive(u) && strcmp(u->side, side) != 0 && hex_distance(&g->grid, u->at, h) == 1)
            return true;
    }
    return false;
}

const da_unit *da_missile_front(const da_game *g, const char *side, hex h) {
    for (size_t i = 0; i < g->army.n; i++) {
        const da_unit *u = &g->army.units[i];
        /* MOVEMENT (K): Class IV or V; DEMORALIZATION: "Units which normally possess some
         * control over hexes adjacent to their front (Missile units ...) forfeit that control
         * while they are demoralized." */
        if (!da_alive(u) || strcmp(u->side, side) == 0 || !da_missile(u) || da_disabled(u) ||
            u->aboard[0])
            continue;
        if (hex_distance(&g->grid, u->at, h) == 1 && da_front_hex(g, u, h)) return u;
    }
    return NULL;
}

int da_command_near(const da_game *g, const char *side, hex h, bool for_combat, bool at_start,
                    const char **who) {
    int best = -1;
    for (size_t i = 0; i < g->army.n; i++) {
        const da_unit *c = &g->army.units[i];
        if (!da_alive(c) || c->cls != DA_COMMAND || strcmp(c->side, side) != 0) continue;
        /* COMMAND UNITS (C): "Command units lose their ability to influence combat in this
         * manner while they are demoralized"; (B): an attack needs one "(not demoralized)". */
        if (for_combat && da_disabled(c)) continue;
        hex at = at_start && c->moved ? c->moved_from : c->at;
        if (hex_distance(&g->grid, at, h) > 1) continue;
        int bonus = da_unit_value(c, "combat_bonus", 0);
        if (bonus > best) {
            best = bonus;
            if (who) *who = c->id;
        }
    }
    return best;
}

int da_nearest_enemy(const da_game *g, const char *side, hex h) {
    int best = INT_MAX;
    for (size_t i = 0; i < g->army.n; i++) {
        const da_unit *u = &g->army.units[i];
        if (!da_alive(u) || strcmp(u->side, side) == 0) continue;
        int d = hex_distance(&g->grid, u->at, h);
        if (d < best) best = d;
    }
    return best;
}

int da_edge_distance(const da_game *g, hex h, int edge) {
    switch (edge) {
    case DA_EDGE_N:
        return h.row - g->grid.row_first;
    case DA_EDGE_E:
        return g->grid.col_last - h.col;
    case DA_EDGE_S:
        return g->grid.row_last - h.row;
    default:
        return h.col - g->grid.col_first;
    }
}

int da_nearest_edge(const da_game *g, hex h, int *distance) {
    int best = DA_EDGE_N, d = da_edge_distance(g, h, DA_EDGE_N);
    for (int e = DA_EDGE_E; e <= DA_EDGE_W; e++) {
        int x = da_edge_distance(g, h, e);
        if (x < d) {
            d = x;
            best = e;
        }
    }
    if (distance) *distance = d;
    return best;
}

const da_unit *da_panicked_to_move(const da_game *g, const char *side) {
    for (size_t i = 0; i < g->army.n; i++) {
        const da_unit *p = &g->army.units[i];
        if (da_alive(p) && p->panicked && !p->moved && !p->aboard[0] &&
            strcmp(p->side, side) == 0 && da_unit_value(p, "movement", 0) > 0)
            return p;
    }
    return NULL;
}

const char *da_edge_name(int edge) {
    static const char *const names[] = {"north", "east", "south", "west"};
    return edge >= 0 && edge < 4 ? names[edge] : "?";
}
