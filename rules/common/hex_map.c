/* Hex maps as data: validating a scenario's setup map into the normalised form the state keeps,
 * and the lookups an action makes on it (see hex.h for both forms).
 *
 * Normalisation: "columns_shifted", "default_terrain", "hexes" and "hexsides" are always present;
 * a hex's terrain is always an array of names in the order the scenario gave them, its "level"
 * is written only when it is not 0, and a hex with exactly the default terrain at level 0 is
 * dropped (a lookup answers the same for it). A hexside's features keep the scenario's order.
 *
 * The lookups read whatever JSON they are handed: a piece missing or of the wrong type reads as
 * the default, so a damaged state cannot crash them. */
#include "rules/common/hex.h"

#include "protocol/json_in.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define COORD_MAX    99
#define HEXSIDES_MAX (3 * 100 * 100) /* about every hexside of the largest grid, once */
#define NAME_BITS    32              /* names past the 32nd have no bit in an unsigned mask */

static const char *const map_keys[] = {
    "columns", "rows", "columns_shifted", "default_terrain", "hexes", "hexsides", NULL};
static const char *const hex_keys[] = {"terrain", "level", NULL};
static const char *const hexside_keys[] = {"hexes", "features", NULL};

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

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

/* Index of the JSON string v in a NULL-terminated list, or -1 (also for a string holding a NUL,
 * which strcmp alone would match on its prefix). */
static int name_index(const char *const *names, const json_t *v) {
    const char *s = json_string_value(v);
    if (!s || !names || strlen(s) != json_string_length(v)) return -1;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

static unsigned name_bit(int index) {
    return index >= 0 && index < NAME_BITS ? 1u << index : 0;
}

/* Appends v (taken) to arr; false when either is missing (allocation failed). */
static bool append_new(json_t *arr, json_t *v) {
    return arr && v && json_array_append_new(arr, v) == 0;
}

static bool set_new(json_t *obj, const char *key, json_t *v) {
    return obj && v && json_object_set_new(obj, key, v) == 0;
}

/* ---- validation ---------------------------------------------------------------------------- */

/* obj[name]: [first, last], integers 0..99, first <= last. */
static int read_range(const json_t *obj, const char *path, const char *name, int out[2],
                      api_error *err) {
    json_t *arr = NULL;
    char p[JSON_IN_PATH_MAX];
    if (json_in_array(obj, path, name, true, 2, &arr) != 0) return take(err);
    json_in_path(p, path, name);
    for (size_t i = 0; i < 2; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > COORD_MAX) {
            api_error_field(err, p, "an array of two integers from 0 to 99");
            return -1;
        }
        out[i] = (int)json_integer_value(v);
    }
    if (out[0] > out[1])
        return setup_fail(err, p, "%s run from %d to %d: the first is after the last", name, out[0],
                          out[1]);
    return 0;
}

/* A hex name at `path` that must be on the grid. */
static int read_hex_name(const char *s, const char *path, const hex_grid *g, hex *h,
                         api_error *err) {
    if (!hex_parse(s, h))
        return setup_fail(err, path, "'%s' is not a hex name (four digits: column, row)", s);
    if (!hex_on_grid(g, *h)) return setup_fail(err, path, "hex %s is not on the map", s);
    return 0;
}

/* A list of names from `names`: a JSON array of 1..max distinct ones or, when one_string, a
 * single string. Returns the normalised array (new reference) or NULL with err set. */
static json_t *read_names(const json_t *v, const char *path, const char *const *names, size_t max,
                          bool one_string, const char *what, api_error *err) {
    char expected[96];
    snprintf(expected, sizeof expected, "%san array of 1 to %zu distinct %s names",
             one_string ? "a name or " : "", max, what);
    if (!(one_string && json_is_string(v)) &&
        (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > max)) {
        api_error_field(err, path, expected);
        return NULL;
    }
    json_t *out = json_array();
    unsigned seen = 0;
    for (size_t i = 0; i < (json_is_array(v) ? json_array_size(v) : 1); i++) {
        const json_t *item = json_is_array(v) ? json_array_get(v, i) : v;
        char ipath[JSON_IN_PATH_MAX];
        if (json_is_array(v))
            json_in_path_index(ipath, path, i);
        else
            snprintf(ipath, sizeof ipath, "%s", path);
        int id = name_index(names, item);
        if (!json_is_string(item)) {
            api_error_field(err, ipath, expected);
        } else if (id < 0 || id >= NAME_BITS) {
            setup_fail(err, ipath, "'%s' is not a %s name of this ruleset", json_string_value(item),
                       what);
        } else if (seen & name_bit(id)) {
            setup_fail(err, ipath, "%s names %s twice", path, names[id]);
        } else if (!append_new(out, json_string(names[id]))) {
            out_of_memory(err);
        } else {
            seen |= name_bit(id);
            continue;
        }
        json_decref(out);
        return NULL;
    }
    return out;
}

/* One entry of "hexes" into out (dropped when it is the default). */
static int read_hex(const char *key, const json_t *obj, const char *path, const hex_grid *g,
                    const hex_map_spec *spec, const char *default_terrain, json_t *out,
                    api_error *err) {
    hex h;
    char p[JSON_IN_PATH_MAX], name[HEX_NAME_MAX];
    if (read_hex_name(key, path, g, &h, err) != 0) return -1;
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with terrain and optionally level");
        return -1;
    }
    if (json_in_only_keys(obj, path, hex_keys, err) != 0) return -1;
    int64_t level = 0;
    if (json_in_int(obj, path, "level", false, INT_MIN, INT_MAX, &level) != 0) return take(err);
    json_in_path(p, path, "level");
    if (level != 0 && (level < spec->level_min || level > spec->level_max))
        return setup_fail(err, p, "level %lld of hex %s is outside %d to %d", (long long)level, key,
                          spec->level_min, spec->level_max);
    json_in_path(p, path, "terrain");
    const json_t *t = json_object_get(obj, "terrain");
    json_t *terrain = read_names(t, p, spec->terrains, HEX_TERRAINS_MAX, true, "terrain", err);
    if (!terrain) return -1;
    if (level == 0 && json_array_size(terrain) == 1 &&
        strcmp(json_string_value(json_array_get(terrain, 0)), default_terrain) == 0) {
        json_decref(terrain);
        return 0;
    }
    json_t *entry = json_object();
    hex_format(h, name);
    if (!set_new(entry, "terrain", terrain) ||
        (level != 0 && !set_new(entry, "level", json_integer(level))) ||
        !set_new(out, name, entry)) {
        json_decref(entry);
        return out_of_memory(err);
    }
    return 0;
}

/* One entry of "hexsides" into out. */
static int read_hexside(const json_t *obj, const char *path, const hex_grid *g,
                        const hex_map_spec *spec, json_t *out, api_error *err) {
    json_t *hexes = NULL;
    char p[JSON_IN_PATH_MAX], ip[JSON_IN_PATH_MAX], key[2 * HEX_NAME_MAX];
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with hexes and features");
        return -1;
    }
    if (json_in_only_keys(obj, path, hexside_keys, err) != 0) return -1;
    if (json_in_array(obj, path, "hexes", true, 2, &hexes) != 0) return take(err);
    json_in_path(p, path, "hexes");
    hex h[2];
    for (size_t i = 0; i < 2; i++) {
        json_t *v = json_array_get(hexes, i);
        json_in_path_index(ip, p, i);
        const char *s = json_string_value(v);
        if (!s || strlen(s) != json_string_length(v)) {
            api_error_field(err, p, "an array of two hex names");
            return -1;
        }
        if (read_hex_name(s, ip, g, &h[i], err) != 0) return -1;
    }
    hex_side_key(h[0], h[1], key);
    if (hex_direction(g, h[0], h[1]) < 0)
        return setup_fail(err, p, "hexes %s are not adjacent", key);
    if (json_object_get(out, key))
        return setup_fail(err, path, "the hexside %s is given twice", key);
    json_in_path(p, path, "features");
    const json_t *f = json_object_get(obj, "features");
    json_t *features = read_names(f, p, spec->features, NAME_BITS, false, "feature", err);
    if (!features) return -1;
    if (!set_new(out, key, features)) return out_of_memory(err);
    return 0;
}

json_t *hex_map_new(const json_t *setup_map, const char *path, const hex_map_spec *spec,
                    api_error *err) {
    if (!json_is_object(setup_map)) {
        api_error_field(err, path, "an object with columns and rows");
        return NULL;
    }
    if (json_in_only_keys(setup_map, path, map_keys, err) != 0) return NULL;
    int cols[2], rows[2];
    if (read_range(setup_map, path, "columns", cols, err) != 0 ||
        read_range(setup_map, path, "rows", rows, err) != 0)
        return NULL;
    hex_grid g = {cols[0], cols[1], rows[0], rows[1], false};
    char p[JSON_IN_PATH_MAX];
    const json_t *cs = json_object_get(setup_map, "columns_shifted");
    static const char *const shifts[] = {"even", "odd", NULL};
    const char *shifted = "even";
    if (cs && !json_is_null(cs) && name_index(shifts, cs) < 0) {
        json_in_path(p, path, "columns_shifted");
        api_error_field(err, p, "even or odd");
        return NULL;
    }
    if (cs && !json_is_null(cs)) shifted = json_string_value(cs);
    g.odd_shifted = strcmp(shifted, "odd") == 0;
    const char *default_terrain = spec->terrains ? spec->terrains[0] : NULL;
    json_t *dt = json_object_get(setup_map, "default_terrain");
    json_in_path(p, path, "default_terrain");
    if (dt && !json_is_null(dt)) {
        if (!json_is_string(dt)) {
            api_error_field(err, p, "a terrain name");
            return NULL;
        }
        int id = name_index(spec->terrains, dt);
        if (id < 0 || id >= NAME_BITS) {
            setup_fail(err, p, "'%s' is not a terrain name of this ruleset", json_string_value(dt));
            return NULL;
        }
        default_terrain = spec->terrains[id];
    }
    if (!default_terrain) {
        setup_fail(err, p, "this ruleset names no terrain");
        return NULL;
    }
    json_t *hexes_in = NULL, *sides_in = NULL;
    if (json_in_object(setup_map, path, "hexes", false, &hexes_in) != 0 ||
        json_in_array(setup_map, path, "hexsides", false, HEXSIDES_MAX, &sides_in) != 0) {
        take(err);
        return NULL;
    }
    json_t *hexes = json_object(), *sides = json_object();
    json_t *map =
        json_pack("{s:[ii], s:[ii], s:s, s:s}", "columns", cols[0], cols[1], "rows", rows[0],
                  rows[1], "columns_shifted", shifted, "default_terrain", default_terrain);
    int rc = map && hexes && sides ? 0 : out_of_memory(err);
    const char *key;
    json_t *v;
    json_in_path(p, path, "hexes");
    json_object_foreach(hexes_in, key, v) {
        char hp[JSON_IN_PATH_MAX];
        json_in_path(hp, p, key);
        if (rc != 0 || (rc = read_hex(key, v, hp, &g, spec, default_terrain, hexes, err)) != 0)
            break;
    }
    json_in_path(p, path, "hexsides");
    size_t i;
    json_array_foreach(sides_in, i, v) {
        char sp[JSON_IN_PATH_MAX];
        json_in_path_index(sp, p, i);
        if (rc != 0 || (rc = read_hexside(v, sp, &g, spec, sides, err)) != 0) break;
    }
    if (rc == 0 &&
        (json_object_set(map, "hexes", hexes) != 0 || json_object_set(map, "hexsides", sides) != 0))
        rc = out_of_memory(err);
    json_decref(hexes);
    json_decref(sides);
    if (rc != 0) {
        json_decref(map);
        return NULL;
    }
    return map;
}

/* ---- lookups ------------------------------------------------------------------------------- */

/* map[name] as [first, last] within 0..99, or false. */
static bool range_of(const json_t *map, const char *name, int out[2]) {
    const json_t *arr = json_object_get(map, name);
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > COORD_MAX)
            return false;
        out[i] = (int)json_integer_value(v);
    }
    return true;
}

/* A map without a readable range has an empty grid (first 0, last -1): nothing is on it. */
void hex_map_grid(const json_t *map, hex_grid *g) {
    int c[2] = {0, -1}, r[2] = {0, -1};
    if (!range_of(map, "columns", c) || !range_of(map, "rows", r)) {
        c[0] = r[0] = 0;
        c[1] = r[1] = -1;
    }
    const char *s = json_string_value(json_object_get(map, "columns_shifted"));
    *g = (hex_grid){c[0], c[1], r[0], r[1], s && strcmp(s, "odd") == 0};
}

/* The entry of h in map.hexes, or NULL. */
static const json_t *hex_entry(const json_t *map, hex h) {
    char name[HEX_NAME_MAX];
    hex_format(h, name);
    return name[0] ? json_object_get(json_object_get(map, "hexes"), name) : NULL;
}

/* Bits of a name or an array of names; unknown names add nothing. */
static unsigned names_bits(const json_t *v, const char *const *names) {
    if (json_is_string(v)) return name_bit(name_index(names, v));
    unsigned bits = 0;
    size_t i;
    const json_t *item;
    json_array_foreach(v, i, item) bits |= name_bit(name_index(names, item));
    return bits;
}

unsigned hex_map_terrain(const json_t *map, const hex_map_spec *spec, hex h) {
    unsigned bits = names_bits(json_object_get(hex_entry(map, h), "terrain"), spec->terrains);
    if (bits) return bits;
    bits = name_bit(name_index(spec->terrains, json_object_get(map, "default_terrain")));
    if (bits) return bits;
    return spec->terrains && spec->terrains[0] ? 1u : 0; /* the setup's default: terrains[0] */
}

int hex_map_level(const json_t *map, hex h) {
    const json_t *v = json_object_get(hex_entry(map, h), "level");
    if (!json_is_integer(v)) return 0;
    json_int_t level = json_integer_value(v);
    return level < INT_MIN ? INT_MIN : level > INT_MAX ? INT_MAX : (int)level;
}

unsigned hex_map_hexside(const json_t *map, const hex_map_spec *spec, hex a, hex b) {
    char key[2 * HEX_NAME_MAX];
    hex_side_key(a, b, key);
    return names_bits(json_object_get(json_object_get(map, "hexsides"), key), spec->features);
}

void hex_side_key(hex a, hex b, char *out) {
    char na[HEX_NAME_MAX], nb[HEX_NAME_MAX];
    hex_format(a, na);
    hex_format(b, nb);
    bool swap = strcmp(na, nb) > 0;
    snprintf(out, 2 * HEX_NAME_MAX, "%s/%s", swap ? nb : na, swap ? na : nb);
}
