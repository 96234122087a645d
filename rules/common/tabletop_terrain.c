/* Terrain areas of the open table (rules/common/tabletop.h): polygons, validated once from the
 * setup and then looked up on every move.
 *
 * All tests are exact, on integer cross products taken in 128 bits: a corner read from a state
 * is within TABLE_COORD_MAX (an entry with anything else is skipped), and a point handed in is
 * clamped far outside the table first (as in tabletop.c), so no product can overflow.
 *
 * Normalised form: [{"id", "type", "polygon": [[x, y], ...]}] with exactly those keys, the type
 * spelled as in the module's list, corners in the scenario's order. */
#include "rules/common/tabletop.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef __int128 i128;

#define GUARD     ((int64_t)(1 << 30) - 1) /* as TABLE_GUARD in tabletop.c */
#define ID_MAX    40
#define TYPE_BITS 32 /* types past the 32nd have no bit in an unsigned mask */

static const char *const area_keys[] = {"id", "type", "polygon", NULL};

static table_pt guard(table_pt p) {
    p.x = p.x < -GUARD ? -GUARD : p.x > GUARD ? GUARD : p.x;
    p.y = p.y < -GUARD ? -GUARD : p.y > GUARD ? GUARD : p.y;
    return p;
}

/* ---- exact predicates ----------------------------------------------------------------------- */

/* Sign of the cross product (b - a) x (c - a): > 0 when c is left of a -> b. */
static int orient(table_pt a, table_pt b, table_pt c) {
    i128 cross = (i128)(b.x - a.x) * (c.y - a.y) - (i128)(b.y - a.y) * (c.x - a.x);
    return cross > 0 ? 1 : cross < 0 ? -1 : 0;
}

/* p, known to be on the line ab, within the segment's bounding box. */
static bool in_box(table_pt a, table_pt b, table_pt p) {
    return p.x >= (a.x < b.x ? a.x : b.x) && p.x <= (a.x > b.x ? a.x : b.x) &&
           p.y >= (a.y < b.y ? a.y : b.y) && p.y <= (a.y > b.y ? a.y : b.y);
}

static bool on_segment(table_pt a, table_pt b, table_pt p) {
    return orient(a, b, p) == 0 && in_box(a, b, p);
}

/* Whether the closed segments ab and cd share a point (crossing, touching or overlapping). */
static bool segments_meet(table_pt a, table_pt b, table_pt c, table_pt d) {
    int d1 = orient(c, d, a), d2 = orient(c, d, b), d3 = orient(a, b, c), d4 = orient(a, b, d);
    if (d1 * d2 < 0 && d3 * d4 < 0) return true;
    return (d1 == 0 && in_box(c, d, a)) || (d2 == 0 && in_box(c, d, b)) ||
           (d3 == 0 && in_box(a, b, c)) || (d4 == 0 && in_box(a, b, d));
}

/* Crossing number with the half-open rule (an edge counts when p.y is in [low end, high end)),
 * after the boundary, which counts as inside, has been tested exactly. */
bool table_point_in_polygon(const table_pt *poly, int n, table_pt p) {
    if (!poly || n < 3) return false;
    p = guard(p);
    bool inside = false;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        table_pt a = guard(poly[j]), b = guard(poly[i]);
        if (on_segment(a, b, p)) return true;
        if ((a.y <= p.y) != (b.y <= p.y)) {
            /* Upward edge: p is left of it when the ray to +x crosses it; downward: right. */
            int o = orient(a, b, p);
            if (b.y > a.y ? o > 0 : o < 0) inside = !inside;
        }
    }
    return inside;
}

/* Whether the segment ab enters or crosses the polygon. */
static bool segment_enters(const table_pt *poly, int n, table_pt a, table_pt b) {
    if (table_point_in_polygon(poly, n, a) || table_point_in_polygon(poly, n, b)) return true;
    a = guard(a);
    b = guard(b);
    for (int i = 0, j = n - 1; i < n; j = i++)
        if (segments_meet(a, b, poly[j], poly[i])) return true;
    return false;
}

/* Edges i and j (edge k runs from corner k to corner k + 1) of a polygon that cross, touch or
 * overlap where they should not: non-adjacent edges must not meet at all, and adjacent edges
 * only at their shared corner (which also refuses a repeated corner and a spike doubling back).
 * False when the polygon is simple. */
static bool self_intersection(const table_pt *poly, int n, int *ei, int *ej) {
    for (int i = 0; i < n; i++) {
        table_pt a = poly[i], b = poly[(i + 1) % n];
        for (int j = i + 1; j < n; j++) {
            table_pt c = poly[j], d = poly[(j + 1) % n];
            bool bad;
            if (j == i + 1) /* b == c */
                bad = on_segment(a, b, d) || on_segment(c, d, a);
            else if (i == 0 && j == n - 1) /* d == a */
                bad = on_segment(a, b, c) || on_segment(c, d, b);
            else
                bad = segments_meet(a, b, c, d);
            if (bad) {
                *ei = i;
                *ej = j;
                return true;
            }
        }
    }
    return false;
}

/* ---- reading areas -------------------------------------------------------------------------- */

/* Index of the JSON string v in a NULL-terminated list, or -1 (also for a string holding a NUL,
 * which strcmp alone would match on its prefix). */
static int name_index(const char *const *names, const json_t *v) {
    const char *s = json_string_value(v);
    if (!s || !names || strlen(s) != json_string_length(v)) return -1;
    for (int i = 0; i < TYPE_BITS && names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

/* One corner: 1 read, 0 not an array of two integers, -1 integers out of range. */
static int read_corner(const json_t *v, table_pt *out) {
    if (!json_is_array(v) || json_array_size(v) != 2) return 0;
    const json_t *x = json_array_get(v, 0), *y = json_array_get(v, 1);
    if (!json_is_integer(x) || !json_is_integer(y)) return 0;
    json_int_t xi = json_integer_value(x), yi = json_integer_value(y);
    if (xi < -TABLE_COORD_MAX || xi > TABLE_COORD_MAX || yi < -TABLE_COORD_MAX ||
        yi > TABLE_COORD_MAX)
        return -1;
    *out = (table_pt){xi, yi};
    return 1;
}

/* A stored area: its id (borrowed), type index and corners, or NULL when any of it cannot be
 * read (an entry without a string id is skipped by both lookups alike). */
static const char *area_of(const json_t *area, const char *const *types, int *type, table_pt *poly,
                           int *n) {
    const char *id = json_string_value(json_object_get(area, "id"));
    const json_t *corners = json_object_get(area, "polygon");
    size_t count = json_array_size(corners);
    *type = name_index(types, json_object_get(area, "type"));
    if (!id || *type < 0 || count < 3 || count > TABLE_POLY_MAX) return NULL;
    for (size_t i = 0; i < count; i++)
        if (read_corner(json_array_get(corners, i), &poly[i]) != 1) return NULL;
    *n = (int)count;
    return id;
}

unsigned table_terrain_at(const json_t *terrain, const char *const *types, table_pt p) {
    unsigned bits = 0;
    size_t i;
    const json_t *area;
    json_array_foreach(terrain, i, area) {
        table_pt poly[TABLE_POLY_MAX];
        int type, n;
        if (area_of(area, types, &type, poly, &n) && table_point_in_polygon(poly, n, p))
            bits |= 1u << type;
    }
    return bits;
}

const char *table_terrain_crossed(const json_t *terrain, const char *const *types, unsigned mask,
                                  table_pt a, table_pt b) {
    size_t i;
    const json_t *area;
    json_array_foreach(terrain, i, area) {
        table_pt poly[TABLE_POLY_MAX];
        int type, n;
        const char *id = area_of(area, types, &type, poly, &n);
        if (id && (mask & (1u << type)) && segment_enters(poly, n, a, b)) return id;
    }
    return NULL;
}

/* ---- validation ----------------------------------------------------------------------------- */

/* 422 invalid_setup naming `field`. Returns -1. */
static int setup_fail(api_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int setup_fail(api_error *err, const char *field, const char *fmt, ...) {
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", field), "%s", msg);
    return -1;
}

static int out_of_memory(api_error *err) {
    api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
    return -1;
}

/* "one of a, b, c" for a 400 on the type. */
static void types_text(const char *const *types, char *out, size_t cap) {
    snprintf(out, cap, "one of");
    for (int i = 0; types && i < TYPE_BITS && types[i]; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s %s", i ? "," : "", types[i]);
}

/* The polygon at `path` into poly, *n corners. */
static int read_polygon(const json_t *v, const char *path, const char *id, table_pt *poly, int *n,
                        api_error *err) {
    if (!json_is_array(v)) {
        api_error_field(err, path, "an array of 3 to 64 corners [x, y]");
        return -1;
    }
    size_t count = json_array_size(v);
    if (count < 3 || count > TABLE_POLY_MAX)
        return setup_fail(err, path, "area '%s' has %zu corners; an area has 3 to %d", id, count,
                          TABLE_POLY_MAX);
    for (size_t i = 0; i < count; i++) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, path, i);
        int rc = read_corner(json_array_get(v, i), &poly[i]);
        if (rc == 0) {
            api_error_field(err, p, "[x, y]: two integers");
            return -1;
        }
        if (rc < 0)
            return setup_fail(err, p, "corner %zu of area '%s' is off the table (beyond %d)", i, id,
                              TABLE_COORD_MAX);
    }
    *n = (int)count;
    int ei, ej;
    if (self_intersection(poly, *n, &ei, &ej))
        return setup_fail(err, path,
                          "the outline of area '%s' crosses or touches itself (edges %d and %d, "
                          "counting from corner 0)",
                          id, ei, ej);
    return 0;
}

/* One area at `path` appended to out (normalised). */
static int read_area(const json_t *area, const char *path, const char *const *types, json_t *out,
                     api_error *err) {
    char id[ID_MAX + 1], p[JSON_IN_PATH_MAX];
    if (!json_is_object(area)) {
        api_error_field(err, path, "an object with id, type and polygon");
        return -1;
    }
    if (json_in_only_keys(area, path, area_keys, err) != 0) return -1;
    if (rules_in_text(area, path, "id", true, id, sizeof id, err) != 0) return -1;
    const json_t *t = json_object_get(area, "type");
    json_in_path(p, path, "type");
    if (!json_is_string(t)) {
        char expected[200];
        types_text(types, expected, sizeof expected);
        api_error_field(err, p, expected);
        return -1;
    }
    int type = name_index(types, t);
    if (type < 0)
        return setup_fail(err, p, "'%s' is not a terrain type of this ruleset",
                          json_string_value(t));
    table_pt poly[TABLE_POLY_MAX];
    int n = 0;
    json_in_path(p, path, "polygon");
    if (read_polygon(json_object_get(area, "polygon"), p, id, poly, &n, err) != 0) return -1;
    size_t i;
    const json_t *prev;
    json_array_foreach(out, i, prev) {
        if (strcmp(json_string_value(json_object_get(prev, "id")), id) == 0) {
            json_in_path(p, path, "id");
            return setup_fail(err, p, "the area id '%s' is used twice", id);
        }
    }
    json_t *corners = json_array(), *entry = NULL;
    for (int k = 0; k < n && corners; k++)
        if (json_array_append_new(corners, table_pt_json(poly[k])) != 0) {
            json_decref(corners);
            corners = NULL;
        }
    if (corners)
        entry = json_pack("{s:s, s:s, s:o}", "id", id, "type", types[type], "polygon", corners);
    if (!entry || json_array_append_new(out, entry) != 0) return out_of_memory(err);
    return 0;
}

json_t *table_terrain_new(const json_t *setup_terrain, const char *path, const char *const *types,
                          api_error *err) {
    if (!setup_terrain || json_is_null(setup_terrain)) {
        json_t *empty = json_array();
        if (!empty) out_of_memory(err);
        return empty;
    }
    if (!json_is_array(setup_terrain) || json_array_size(setup_terrain) > TABLE_AREAS_MAX) {
        char expected[64];
        snprintf(expected, sizeof expected, "an array of at most %d terrain areas",
                 TABLE_AREAS_MAX);
        api_error_field(err, path, expected);
        return NULL;
    }
    json_t *out = json_array();
    if (!out) {
        out_of_memory(err);
        return NULL;
    }
    size_t i;
    const json_t *area;
    json_array_foreach(setup_terrain, i, area) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, path, i);
        if (read_area(area, p, types, out, err) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}
