/* The open table of miniatures games (vis-magica, horse-and-musket): measured positions instead
 * of hexes.
 *
 * Lengths are integers in 1/resolution of the session's measure (options "measure": "inch" or
 * "cm", "resolution": subdivisions per unit, default 10), so 125 at resolution 10 is 12.5
 * inches; event data never holds a floating-point number. x grows to the right, y away from the
 * player at the bottom ("north"). A facing is an integer in degrees, 0..359, clockwise from
 * north (0 = +y, 90 = +x).
 *
 * Terrain areas are polygons (setup.terrain: [{"id", "type", "polygon": [[x, y], ...]}], 3 to
 * TABLE_POLY_MAX corners, not self-intersecting), each of a type the module names (e.g.
 * "difficult", "impassable"). A point on an area's edge is inside it.
 *
 * Distances are measured here, never trusted from a client: every comparison is exact, in
 * 64-bit integers (squared lengths), and only reported distances are rounded. A point beyond
 * +-(2^30 - 1) (never a valid one) is clamped to it first, so garbage cannot overflow. */
#ifndef UMPIRE_RULES_TABLETOP_H
#define UMPIRE_RULES_TABLETOP_H

#include "protocol/api_error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define TABLE_COORD_MAX 1000000 /* |x|, |y| at most this (100 m at mm resolution) */
#define TABLE_POLY_MAX  64      /* corners of one terrain area */
#define TABLE_AREAS_MAX 256     /* terrain areas on one table */

typedef struct table_pt {
    int64_t x, y;
} table_pt;

typedef struct table_measure {
    char unit[8];   /* "in" or "cm", for summaries */
    int resolution; /* subdivisions per unit */
} table_measure;

/* ---- geometry ------------------------------------------------------------------------------- */

/* Squared distance (exact). */
int64_t table_dist2(table_pt a, table_pt b);
/* Whether |ab| <= limit, exactly. */
bool table_within(table_pt a, table_pt b, int64_t limit);
/* |ab| rounded to the nearest integer (for reports). */
int64_t table_dist(table_pt a, table_pt b);
/* The length of a path a -> p[0] -> ... -> p[n-1], rounded up to an integer (so that a path
 * measured as "at most 6 inches" never passes on rounding). A path of whole-length legs (3-4-5)
 * is exact; otherwise the answer is never below the true length. */
int64_t table_path_length(table_pt a, const table_pt *p, int n);
/* The bearing from a to b in degrees clockwise from north, 0..359 (rounded); a == b: 0. */
int table_bearing(table_pt a, table_pt b);
/* The angle between a facing and a bearing, 0..180 (degrees, exact to the degree). */
int table_angle_off(int facing, int bearing);
/* The point at `distance` from a towards bearing `deg` (rounded to the grid). */
table_pt table_step(table_pt a, int deg, int64_t distance);
/* The facing pointing from a away from b (a's back turned to b). */
int table_facing_away(table_pt a, table_pt b);
/* Whether the segment ab passes within `radius` of point c (exact). */
bool table_segment_near(table_pt a, table_pt b, table_pt c, int64_t radius);

/* ---- a base moving exactly along a direction ------------------------------------------------ */
/* Exactly along an integer vector d (not a rounded bearing): no trigonometry, no floating point in
 * any answer. Out-of-contract input is clamped first so that nothing overflows: points to
 * +-TABLE_SWEEP_POINT, the vector d to +-2 TABLE_SWEEP_POINT per coordinate, lengths to
 * 0..TABLE_SWEEP_LENGTH (a valid point or a difference of two is never changed). */
#define TABLE_SWEEP_POINT  ((int64_t)1 << 21) /* above TABLE_COORD_MAX */
#define TABLE_SWEEP_LENGTH ((int64_t)1 << 23) /* above the longest distance on the table */

/* The grid point nearest a + length * d / |d|, each coordinate rounded to the nearest integer,
 * exactly (there is never a half to break: length * d.x / |d| is irrational unless |d| is an
 * integer, and then its denominator is odd, the hypotenuse of a primitive Pythagorean triple, or
 * 1). d = [0, 0]: a. */
table_pt table_step_along(table_pt a, table_pt d, int64_t length);
/* A disc whose centre moves from a exactly along d (not [0, 0]) for `length`, and a disc centred
 * on c: they touch when the centres are `contact` apart (the sum of the two radii). Whether the
 * moving disc touches c's on its way: c is strictly ahead (its centre less than 90 degrees off d,
 * so not one it backs or slides away from) and the moving centre comes within `contact` of c
 * (touching counts) at a distance 0..length along d. Discs already touching at the start count
 * when the move closes on c. Exact. */
bool table_sweep_touches(table_pt a, table_pt d, int64_t length, table_pt c, int64_t contact);
/* Of c1 and c2, which the disc moving from a along d touches first: < 0 c1, 0 at the same
 * distance, > 0 c2 (the distance along d at first contact; 0 for a disc already touching at the
 * start; a disc never touched, at whatever length, after every touched one). Exact. */
int table_sweep_cmp(table_pt a, table_pt d, table_pt c1, table_pt c2, int64_t contact);

/* "12.5 in" for a length (out: at least 24 bytes): at most three decimals, rounded, trailing
 * zeros dropped ("12 in" for 120 at resolution 10, "-0.5 in", "0.333 in" at resolution 3). */
void table_length_text(const table_measure *m, int64_t len, char *out, size_t cap);

/* ---- terrain areas --------------------------------------------------------------------------- */

/* Validates setup.terrain (path e.g. "setup.terrain") whose types must be in the NULL-terminated
 * `types`, and returns it normalised (new reference: [{"id", "type", "polygon"}]), or NULL with a
 * 400 (wrong JSON types) or a 422 invalid_setup naming the bad entry (unknown type, fewer than 3
 * corners, a coordinate out of range, a self-intersecting polygon, an id used twice). NULL
 * setup_terrain: []. */
json_t *table_terrain_new(const json_t *setup_terrain, const char *path, const char *const *types,
                          api_error *err);
/* The type index (into `types`) of every area containing p, as a bit mask (bit i: types[i]; only
 * the first 32 types are usable, here and in table_terrain_new). Never fails on a hand-made list:
 * entries it cannot read (no string id, unknown type, corners not 3..TABLE_POLY_MAX integer pairs
 * within TABLE_COORD_MAX) are skipped, here and in table_terrain_crossed. */
unsigned table_terrain_at(const json_t *terrain, const char *const *types, table_pt p);
/* The id of the first area of a type in `mask` that the segment ab enters or crosses, or NULL
 * (borrowed from terrain): an end inside or on the edge, or the segment meeting any edge (touching
 * a corner or running along an edge counts). */
const char *table_terrain_crossed(const json_t *terrain, const char *const *types, unsigned mask,
                                  table_pt a, table_pt b);
/* Whether p is inside (or on the edge of) polygon poly of n corners. */
bool table_point_in_polygon(const table_pt *poly, int n, table_pt p);

/* ---- reading and writing --------------------------------------------------------------------- */

/* obj[name] as [x, y] (two integers within TABLE_COORD_MAX). 0, or -1 with a 400 naming the
 * field. */
int table_pt_read(const json_t *obj, const char *prefix, const char *name, bool required,
                  table_pt *out, api_error *err);
/* [x, y] (new reference). */
json_t *table_pt_json(table_pt p);
/* The session's measure from options ("measure": "inch"|"cm", "resolution": 1..1000); NULL or
 * missing: inch, 10. */
void table_measure_read(const json_t *options, table_measure *m);
/* Validates the two options (when present). 0, or -1 with a 400. */
int table_measure_check(const json_t *options, api_error *err);

/* ---- a measured move (rules/common/table_move.c) -------------------------------------------- */

#define TABLE_MOVE_POINTS 16 /* points a move may pass on its way */

/* {"to": [x, y], "path"?: [[x, y], ...], "facing"?: 0-359}: where a unit ends, the points it
 * passes, its facing at the end (-1: kept). */
typedef struct table_move {
    table_pt to;
    int npath;
    table_pt path[TABLE_MOVE_POINTS];
    int facing;
} table_move;

/* Decodes the fields of a move action (no other field allowed). 0, or -1 with a 400. */
int table_move_decode(const json_t *fields, table_move *m, api_error *err);
/* What table_move_decode reads back to the same move (new reference). */
json_t *table_move_encode(const table_move *m);
/* The measured length from `from` through the path to m->to (rounded up). */
int64_t table_move_length(table_pt from, const table_move *m);

#endif
