/* The board around the units: stacks, front/flank/rear, zones of control.
 *
 * House defaults (the charts name front, flank and rear hexes and zones of control but the
 * rulebook that defines them is not among our sources; docs/rules/vaevictis-corbach-1760.md):
 * - a unit faces one hexside; the three hexes ahead (the faced one and its two neighbours) are
 *   its front hexes, the two beside them its flank hexes, the one behind its rear hex;
 * - at a distance, a hex is front when the bearing of its centre is within 60 degrees of the
 *   facing, rear when it is within 30 degrees of straight behind, flank otherwise;
 * - a unit that is not routed exerts a zone of control into its front hexes. */
#include "rules/vaevictis_corbach/vc.h"

#include <math.h>
#include <string.h>

unsigned vc_hexside(const json_t *map, hex a, hex b) {
    unsigned f = hex_map_hexside(map, &vc_map_spec, a, b);
    /* TET, Bridge, Observations: "There is a bridge where there is a road". */
    if ((f & VC_F(VC_STREAM)) && (f & (VC_F(VC_ROAD) | VC_F(VC_SUNKEN_ROAD)))) f |= VC_F(VC_BRIDGE);
    return f;
}

/* TET, Village, Observations: the flank hexes of infantry in a village are front hexes. */
static int village_flank(const json_t *map, const vc_unit *u) {
    if (vc_is_infantry(u) && (hex_map_terrain(map, &vc_map_spec, u->at) & VC_F(VC_VILLAGE)))
        return VC_FRONT;
    return VC_FLANK;
}

int vc_zone_of(const json_t *map, const vc_unit *u, hex from) {
    hex_grid g;
    hex_map_grid(map, &g);
    int dir = hex_direction(&g, u->at, from);
    if (dir < 0) return vc_zone_at_range(map, u, from);
    int rel = hex_relative(u->facing, dir);
    if (rel == 0 || rel == 1 || rel == 5) return VC_FRONT;
    if (rel == 3) return VC_REAR;
    return village_flank(map, u);
}

/* The centre of a hex, flat-topped hexes of side 1 in columns (y grows downwards). */
static void centre(const hex_grid *g, hex h, double *x, double *y) {
    bool shifted = (h.col % 2 != 0) == g->odd_shifted;
    *x = 1.5 * h.col;
    *y = sqrt(3.0) * (h.row + (shifted ? 0.5 : 0.0));
}

int vc_zone_at_range(const json_t *map, const vc_unit *u, hex from) {
    hex_grid g;
    hex_map_grid(map, &g);
    double ux, uy, fx, fy;
    centre(&g, u->at, &ux, &uy);
    centre(&g, from, &fx, &fy);
    double dx = fx - ux, dy = fy - uy, len = sqrt(dx * dx + dy * dy);
    if (len == 0) return VC_FRONT;
    /* The facing's unit vector: direction d is d * 60 degrees clockwise from north. */
    double a = u->facing * (M_PI / 3.0);
    double cosang = (dx * sin(a) - dy * cos(a)) / len;
    if (cosang >= cos(M_PI / 3.0) - 1e-9) return VC_FRONT;
    if (cosang <= -cos(M_PI / 6.0) + 1e-9) return VC_REAR;
    return village_flank(map, u);
}

bool vc_exerts_zoc(const json_t *map, const vc_unit *u, hex h) {
    if (!vc_alive(u) || u->state == VC_ROUTED) return false;
    hex_grid g;
    hex_map_grid(map, &g);
    if (hex_direction(&g, u->at, h) < 0) return false;
    if (vc_zone_of(map, u, h) != VC_FRONT) return false;
    /* TET, Block the ZoC: Village (Yes), Stream (Yes), Slope (Yes). */
    if (hex_map_terrain(map, &vc_map_spec, h) & VC_F(VC_VILLAGE)) return false;
    unsigned side = vc_hexside(map, u->at, h);
    /* A stream blocks, but not where a bridge crosses it (TET, Bridge: "-" in that column; a
     * road across a stream is a bridge, vc_hexside). */
    if ((side & VC_F(VC_STREAM)) && !(side & VC_F(VC_BRIDGE))) return false;
    return (side & VC_F(VC_SLOPE)) == 0;
}

bool vc_in_enemy_zoc(const json_t *map, const vc_army *army, const char *side, hex h) {
    for (size_t i = 0; i < army->n; i++) {
        const vc_unit *u = &army->units[i];
        if (strcmp(u->side, side) != 0 && vc_exerts_zoc(map, u, h)) return true;
    }
    return false;
}

size_t vc_stack(vc_army *army, hex h, vc_unit **out, size_t cap) {
    size_t n = 0;
    for (size_t i = 0; i < army->n && n < cap; i++)
        if (vc_alive(&army->units[i]) && hex_equal(army->units[i].at, h))
            out[n++] = &army->units[i];
    return n;
}

bool vc_enemy_in(const vc_army *army, const char *side, hex h) {
    for (size_t i = 0; i < army->n; i++) {
        const vc_unit *u = &army->units[i];
        if (vc_alive(u) && hex_equal(u->at, h) && strcmp(u->side, side) != 0) return true;
    }
    return false;
}
