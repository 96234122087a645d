/* Hex maps shared by the hex-and-counter rulesets (vaevictis-corbach-1760, spi-dark-ages).
 *
 * Hexes are addressed as printed on the map: "1204" is column 12, row 4 (always four digits,
 * CCRR, columns and rows 0..99). The grid is of flat-topped hexes standing in vertical columns,
 * as on the printed maps; every other column sits half a hex lower. Which ones is a map setting
 * (`columns_shifted`: "even", the house default, or "odd"): neither source states it, so the
 * scenario says it.
 *
 * Directions are the six hexsides of a flat-topped hex, clockwise from the top: N, NE, SE, S, SW,
 * NW (0..5). A unit's facing is one of them. hex_relative() turns an absolute direction into one
 * relative to a facing (0 = straight ahead, 3 = straight behind), which is how a module tells
 * front, flank and rear hexes apart.
 *
 * The map lives in the session state as JSON, normalised once by hex_map_new() at session
 * creation; later lookups read that JSON directly (jansson objects are hash tables), so an action
 * never decodes the whole map. Terrain and hexside-feature names are the module's own, given in
 * a hex_map_spec.
 *
 * Normalised map (the state's "map"):
 *   {"columns": [first, last], "rows": [first, last], "columns_shifted": "even"|"odd",
 *    "default_terrain": "<name>",
 *    "hexes": {"1204": {"terrain": ["woods"], "level": 1}, ...},     only hexes that differ from
 *                                                                     default terrain, level 0
 *    "hexsides": {"1204/1205": ["road", "stream"], ...}}             key: the two hexes, lower
 *                                                                     name first
 * Setup map (what a scenario writes; hex_map_new validates it):
 *   {"columns": [1, 30], "rows": [1, 20], "columns_shifted"?: "even"|"odd",
 *    "default_terrain"?: "<name>" (default: spec->terrains[0]),
 *    "hexes"?: {"1204": {"terrain": "woods" | ["woods", "slope"], "level"?: n}, ...},
 *    "hexsides"?: [{"hexes": ["1204", "1205"], "features": ["road", ...]}, ...]}
 */
#ifndef UMPIRE_RULES_HEX_H
#define UMPIRE_RULES_HEX_H

#include "protocol/api_error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define HEX_DIRS         6
#define HEX_NAME_MAX     5   /* "1204" and its NUL */
#define HEX_TERRAINS_MAX 3   /* terrain types in one hex ("woods" on a "slope") */
#define HEX_LINE_MAX     256 /* hexes on one line of sight */

enum { HEX_N = 0, HEX_NE, HEX_SE, HEX_S, HEX_SW, HEX_NW };

typedef struct hex {
    int col, row;
} hex;

typedef struct hex_grid {
    int col_first, col_last, row_first, row_last;
    bool odd_shifted; /* true: odd columns sit half a hex lower; false: even ones (default) */
} hex_grid;

/* ---- addresses and directions ------------------------------------------------------------ */

/* "1204" -> {12, 4}. Exactly four ASCII digits; false otherwise. */
bool hex_parse(const char *s, hex *out);
/* {12, 4} -> "1204" (out holds HEX_NAME_MAX bytes; col and row 0..99). */
void hex_format(hex h, char *out);
bool hex_equal(hex a, hex b);
/* "n", "ne", "se", "s", "sw", "nw" <-> 0..5; parse answers -1 for anything else. */
const char *hex_dir_name(int dir);
int hex_dir_parse(const char *s);
/* The direction `dir` seen from a unit facing `facing`: (dir - facing) mod 6, 0..5. */
int hex_relative(int facing, int dir);
/* The opposite direction. */
int hex_opposite(int dir);

/* ---- geometry on a grid ------------------------------------------------------------------ */

bool hex_on_grid(const hex_grid *g, hex h);
/* The neighbour across hexside `dir` (may be off the grid; check with hex_on_grid). */
hex hex_neighbour(const hex_grid *g, hex h, int dir);
/* The direction from `from` to an adjacent `to`, or -1 when they are not adjacent. */
int hex_direction(const hex_grid *g, hex from, hex to);
/* Hexes between a and b counted as a unit moves (adjacent: 1; same hex: 0). */
int hex_distance(const hex_grid *g, hex a, hex b);
/* The hexes a straight line from the centre of a to the centre of b passes through, a and b
 * excluded, in order from a, into out (at most cap). Where the line runs exactly along a
 * hexside, both hexes beside it are listed (first the one clockwise of the line, seen from a)
 * and *along is set true; a module decides whether either or both must be clear. Returns the
 * count, or -1 if more than cap. */
int hex_line(const hex_grid *g, hex a, hex b, hex *out, int cap, bool *along);

/* ---- the map as data --------------------------------------------------------------------- */

typedef struct hex_map_spec {
    const char *const *terrains; /* NULL-terminated names; terrain id = index */
    const char *const
        *features;            /* NULL-terminated hexside feature names; feature bit = 1 << index */
    int level_min, level_max; /* hex levels allowed */
} hex_map_spec;

/* Validates a setup map (path `path`, e.g. "setup.map") against spec and returns the normalised
 * map (new reference), or NULL with a 400 (wrong type: invalid_field) or 422 invalid_setup whose
 * details.field names the bad entry (an unknown hex name, a hex off the grid, an unknown terrain
 * or feature, two hexes of a hexside that are not adjacent, a level out of range, a hexside or
 * hex given twice). */
json_t *hex_map_new(const json_t *setup_map, const char *path, const hex_map_spec *spec,
                    api_error *err);
/* The grid of a normalised map. */
void hex_map_grid(const json_t *map, hex_grid *g);
/* Terrain ids of hex h as a bit mask (bit i = spec->terrains[i]); the default terrain's bit when
 * the map does not list h. */
unsigned hex_map_terrain(const json_t *map, const hex_map_spec *spec, hex h);
/* Level of hex h (0 when not listed). */
int hex_map_level(const json_t *map, hex h);
/* Feature bits of the hexside between adjacent hexes a and b (0 when none listed). */
unsigned hex_map_hexside(const json_t *map, const hex_map_spec *spec, hex a, hex b);
/* "1204/1205" for the hexside between a and b, lower name first (out: 2 * HEX_NAME_MAX). */
void hex_side_key(hex a, hex b, char *out);

#endif
