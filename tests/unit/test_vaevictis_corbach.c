/* The vaevictis-corbach-1760 module, driven as the core drives it (decode, then resolve over a
 * manual dice source), against the charts of shared/rules-sources/
 * vaevictis-142-corbach-1760-charts.txt as shared/rules-notes.md reads them:
 * - the Artillery Table and the Combat Results Table row by row, and the strength-ratio columns
 *   at each boundary (rounded in favour of the defender);
 * - front, flank and rear hexes on all six facings (odd and even columns), the village rule;
 * - movement costs over each terrain and hexside of the Terrain Effects Table, bans, automatic
 *   disorganisation, the test climbing two levels, facing changes, zones of control;
 * - artillery fire: every Artillery Table modifier alone and combined, line of fire, range, arc,
 *   results applied and the pending retreat they leave;
 * - melee: every CRT modifier alone and combined, the starred cavalry rule, E, step losses;
 * - retreats, morale tests and rally (the module's labelled house defaults);
 * - purity: the same dice give the same answer, and the input state is never changed.
 * Expected values are computed from the chart text, not from the code.
 *
 * Hex geometry used below (flat-topped hexes in columns, even columns half a hex lower):
 *   1204 (even): n 1203, ne 1304, se 1305, s 1205, sw 1105, nw 1104
 *   1304 (odd):  n 1303, ne 1403, se 1404, s 1305, sw 1204, nw 1203 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/rules_driver.h"

#include "rules/dice_source.h"
#include "rules/ruleset.h"
#include "rules/vaevictis_corbach/vc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------------ */

static const ruleset *rs(void) {
    const ruleset *r = ruleset_find("vaevictis-corbach-1760");
    assert_non_null(r);
    return r;
}

/* A unit as setup writes it (all arguments string literals; str and mor bare numbers). */
#define U(id, side, type, hex, facing, str, mor, extra)                                            \
    "{\"id\":\"" id "\",\"side\":\"" side "\",\"type\":\"" type "\",\"hex\":\"" hex                \
    "\",\"facing\":\"" facing "\",\"strength\":" #str ",\"morale\":" #mor extra "}"

/* A setup on a map of columns 1-20, rows 1-12 (even columns shifted), with the given hexes
 * (object text or NULL), hexsides (array text or NULL), units (array text), formations (array
 * text or NULL). Returns the state, or NULL with err set. */
static json_t *try_state(const char *hexes, const char *sides, const char *units,
                         const char *formations, const char *options, api_error *err) {
    size_t cap = strlen(units) + 4096 + (hexes ? strlen(hexes) : 0) + (sides ? strlen(sides) : 0) +
                 (formations ? strlen(formations) : 0);
    char *text = malloc(cap);
    assert_non_null(text);
    snprintf(text, cap,
             "{\"map\": {\"columns\": [1, 20], \"rows\": [1, 12], \"hexes\": %s, \"hexsides\": "
             "%s}, \"units\": %s%s%s}",
             hexes ? hexes : "{}", sides ? sides : "[]", units,
             formations ? ", \"formations\": " : "", formations ? formations : "");
    json_t *setup = parse(text), *opts = parse(options ? options : "{}");
    json_t *st = rs()->init_state(opts, setup, err);
    json_decref(setup);
    json_decref(opts);
    free(text);
    return st;
}

static json_t *mkstate(const char *hexes, const char *sides, const char *units,
                       const char *formations) {
    api_error err = {0};
    json_t *st = try_state(hexes, sides, units, formations, NULL, &err);
    if (!st) fail_msg("init_state refused the setup: %d %s: %s", err.status, err.code, err.message);
    return st;
}

static outcome act_as(const json_t *state, const char *options, const char *actor, const char *unit,
                      const char *action, const int64_t *dice, size_t n) {
    return rules_act(rs(), state, options, actor, unit, action, dice, n);
}

static outcome act(const json_t *state, const char *unit, const char *action, const int64_t *dice,
                   size_t n) {
    return act_as(state, NULL, "referee", unit, action, dice, n);
}

static void expect_ok(const outcome *o, const char *what) {
    if (o->rc != 0)
        fail_msg("%s: refused %d %s (%s): %s", what, o->err.status, o->err.code,
                 json_string_value(json_object_get(o->err.details, "field")), o->err.message);
}

/* Resolved, with exactly the dice supplied used. */
static void expect_ok_dice(const outcome *o, const char *what) {
    expect_ok(o, what);
    if (o->unsatisfied) fail_msg("%s: the action used other dice than the test supplied", what);
}

static void expect_error(const outcome *o, int status, const char *code, const char *field,
                         const char *what) {
    if (o->rc == 0)
        fail_msg("%s: expected %d %s on %s, got success: %s", what, status, code,
                 field ? field : "-", o->out.summary);
    if (o->err.status != status || strcmp(o->err.code, code) != 0)
        fail_msg("%s: expected %d %s, got %d %s: %s", what, status, code, o->err.status,
                 o->err.code, o->err.message);
    if (field) {
        const char *f = json_string_value(json_object_get(o->err.details, "field"));
        if (!f || strcmp(f, field) != 0)
            fail_msg("%s: expected the error on field %s, got %s (%s)", what, field,
                     f ? f : "(none)", o->err.message);
    }
}

static const char *sget(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long iget(const json_t *o, const char *k) {
    return (long)json_integer_value(json_object_get(o, k));
}

static const json_t *unit_in(const json_t *state, const char *id) {
    const json_t *u = rules_state_unit(state, id);
    if (!u) fail_msg("no unit %s in the state", id);
    return u;
}

static void expect_unit(const json_t *state, const char *id, const char *hex, const char *st,
                        long strength, const char *what) {
    const json_t *u = unit_in(state, id);
    if (hex && strcmp(sget(u, "hex"), hex) != 0)
        fail_msg("%s: unit %s at %s, expected %s", what, id, sget(u, "hex"), hex);
    if (st && strcmp(sget(u, "state"), st) != 0)
        fail_msg("%s: unit %s is %s, expected %s", what, id, sget(u, "state"), st);
    if (strength >= 0 && iget(u, "strength") != strength)
        fail_msg("%s: unit %s has strength %ld, expected %ld", what, id, iget(u, "strength"),
                 strength);
}

typedef struct term {
    const char *name; /* a substring of the modifier's name */
    int value;
} term;

#define TERMS_MAX 8

#define T(name, value)                                                                             \
    { name, value }
#define END                                                                                        \
    { NULL, 0 }

/* The result's non-zero modifiers are exactly `terms` (matched by name substring, each entry
 * used once), the total is their sum, and the summary names each of them. */
static void expect_terms(const outcome *o, const term *terms, const char *what) {
    const json_t *mods = json_object_get(o->out.result, "modifiers");
    if (!json_is_array(mods)) fail_msg("%s: no modifiers list in the result", what);
    size_t n = json_array_size(mods);
    bool used[64] = {false};
    int sum = 0, nexp = 0;
    for (int i = 0; i < TERMS_MAX && terms[i].name; i++) {
        nexp++;
        sum += terms[i].value;
        bool found = false;
        for (size_t j = 0; j < n && j < 64 && !found; j++) {
            const json_t *m = json_array_get(mods, j);
            if (used[j] || !strstr(sget(m, "name"), terms[i].name)) continue;
            if (iget(m, "value") != terms[i].value) continue;
            used[j] = found = true;
        }
        if (!found) {
            char *s = dump(mods);
            fail_msg("%s: no modifier '%s' %+d among %s", what, terms[i].name, terms[i].value, s);
        }
        if (!strstr(o->out.summary, terms[i].name))
            fail_msg("%s: the summary does not name '%s': %s", what, terms[i].name, o->out.summary);
    }
    int nonzero = 0;
    for (size_t j = 0; j < n; j++)
        if (iget(json_array_get(mods, j), "value") != 0) nonzero++;
    if (nonzero != nexp) {
        char *s = dump(mods);
        fail_msg("%s: expected %d non-zero modifiers, got %d: %s", what, nexp, nonzero, s);
    }
    if (iget(o->out.result, "modifier") != sum)
        fail_msg("%s: modifier total %ld, expected %d (%s)", what, iget(o->out.result, "modifier"),
                 sum, o->out.summary);
    if (iget(o->out.result, "adjusted") != iget(o->out.result, "roll") + sum)
        fail_msg("%s: adjusted %ld is not roll %ld %+d", what, iget(o->out.result, "adjusted"),
                 iget(o->out.result, "roll"), sum);
}

static const json_t *pending_of(const json_t *state) {
    const json_t *p = json_object_get(state, "pending");
    assert_true(json_is_array(p));
    return p;
}

/* state with state.pending replaced by `pending` (JSON text). */
static json_t *with_pending(json_t *state, const char *pending) {
    json_object_set_new(state, "pending", parse(pending));
    return state;
}

/* Patches a field of a unit in a state (for state-only fields such as disorganized_by_combat). */
static void patch_unit(json_t *state, const char *id, const char *key, json_t *value) {
    json_t *u = (json_t *)rules_state_unit(state, id);
    assert_non_null(u);
    json_object_set_new(u, key, value);
}

/* ---- 1. the charts as tables ----------------------------------------------------------------- */

typedef struct chart_row {
    const char *code;
    int steps;
    bool d, tm;
    int mod, retreat;
    bool star, e;
} chart_row;

static void expect_row(const vc_result *r, const chart_row *e, const char *what, int adj) {
    if (!r) fail_msg("%s %d: no result", what, adj);
    if (strcmp(r->code, e->code) != 0)
        fail_msg("%s %d: code %s, expected %s", what, adj, r->code, e->code);
    if (r->steps != e->steps || r->disorganize != e->d || r->test != e->tm ||
        r->test_mod != e->mod || r->retreat != e->retreat || r->star != e->star ||
        r->eliminate != e->e)
        fail_msg("%s %d (%s): steps %d D %d TM %d mod %d R %d * %d E %d, expected steps %d D %d "
                 "TM %d mod %d R %d * %d E %d",
                 what, adj, r->code, r->steps, r->disorganize, r->test, r->test_mod, r->retreat,
                 r->star, r->eliminate, e->steps, e->d, e->tm, e->mod, e->retreat, e->star, e->e);
}

#define NIL                                                                                        \
    { "-", 0, false, false, 0, 0, false, false }
#define TM0                                                                                        \
    { "TM", 0, false, true, 0, 0, false, false }
#define TMP1                                                                                       \
    { "TM+1", 0, false, true, 1, 0, false, false }
#define TMP2                                                                                       \
    { "TM+2", 0, false, true, 2, 0, false, false }
#define TMM1                                                                                       \
    { "TM-1", 0, false, true, -1, 0, false, false }

static void artillery_table_every_row(void **state) {
    (void)state;
    /* Artillery Table: 0 and - : -, 1: -, 2: TM, 3: TM, 4: TM+1, 5: TM+2, 6: D, 7: 1D-R1,
     * 8: 1D-R2, 9 and +: 2D-R2 */
    static const chart_row rows[10] = {
        NIL,
        NIL,
        TM0,
        TM0,
        TMP1,
        TMP2,
        {"D", 0, true, false, 0, 0, false, false},
        {"1D-R1", 1, true, false, 0, 1, false, false},
        {"1D-R2", 1, true, false, 0, 2, false, false},
        {"2D-R2", 2, true, false, 0, 2, false, false},
    };
    for (int adj = -2; adj <= 11; adj++) {
        int row = -99;
        const vc_result *r = vc_artillery_result(adj, &row);
        int want = adj < 0 ? 0 : adj > 9 ? 9 : adj;
        if (row != want) fail_msg("artillery %d: row %d, expected %d", adj, row, want);
        expect_row(r, &rows[want], "artillery", adj);
    }
    /* row may be NULL */
    assert_string_equal(vc_artillery_result(7, NULL)->code, "1D-R1");
}

static void crt_every_row(void **state) {
    (void)state;
    /* rules-notes.md's reading of the CRT (attacker / defender). */
    static const chart_row att[15] = {
        {"2D-R2*", 2, true, false, 0, 2, true, false},     /* -3 and less */
        {"1D-R1*", 1, true, false, 0, 1, true, false},     /* -2 */
        {"1-TM+2-R1", 1, false, true, 2, 1, false, false}, /* -1 */
        {"TM+2-R1", 0, false, true, 2, 1, false, false},   /* 0 */
        TMP2,                                              /* 1 */
        TMP1,                                              /* 2 */
        TM0,                                               /* 3 */
        TM0,                                               /* 4 */
        TMM1,                                              /* 5 */
        TMM1,                                              /* 6 */
        NIL,                                               /* 7 */
        NIL,                                               /* 8 */
        NIL,                                               /* 9 */
        NIL,                                               /* 10 */
        NIL,                                               /* 11 and more */
    };
    static const chart_row def[15] = {
        NIL,                                               /* -3 and less */
        NIL,                                               /* -2 */
        NIL,                                               /* -1 */
        NIL,                                               /* 0 */
        NIL,                                               /* 1 */
        TM0,                                               /* 2 */
        TM0,                                               /* 3 */
        TMP1,                                              /* 4 */
        TMP2,                                              /* 5 */
        {"1-TM+2", 1, false, true, 2, 0, false, false},    /* 6 */
        {"1-TM+2-R1", 1, false, true, 2, 1, false, false}, /* 7 */
        {"1D-R1", 1, true, false, 0, 1, false, false},     /* 8 */
        {"2D-R2*", 2, true, false, 0, 2, true, false},     /* 9 */
        {"3D-R2*", 3, true, false, 0, 2, true, false},     /* 10 */
        {"E", 0, false, false, 0, 0, false, true},         /* 11 and more */
    };
    for (int adj = -5; adj <= 13; adj++) {
        int row = -99;
        const vc_result *a = NULL, *d = NULL;
        vc_crt_results(adj, &row, &a, &d);
        int want = adj < -3 ? -3 : adj > 11 ? 11 : adj;
        if (row != want) fail_msg("CRT %d: row %d, expected %d", adj, row, want);
        expect_row(a, &att[want + 3], "CRT attacker", adj);
        expect_row(d, &def[want + 3], "CRT defender", adj);
    }
}

static void ratio_columns_at_each_boundary(void **state) {
    (void)state;
    /* 6/1 and +: +6, 5/1 +5, 4/1 +4, 3/1 +3, 2/1 +2, 3/2 +1, 1/1 0, 2/3 -1, 1/2 -2, 1/3 and -:
     * -3; the real ratio is rounded down to the column it reaches (in favour of the defender). */
    static const struct {
        int a, d, mod;
        const char *label;
    } cases[] = {
        {7, 1, 6, "6:1"},   {6, 1, 6, "6:1"},   {12, 2, 6, "6:1"},  {30, 1, 6, "6:1"},
        {11, 2, 5, "5:1"},  {5, 1, 5, "5:1"},   {10, 2, 5, "5:1"},  {9, 2, 4, "4:1"},
        {4, 1, 4, "4:1"},   {8, 2, 4, "4:1"},   {7, 2, 3, "3:1"},   {3, 1, 3, "3:1"},
        {9, 3, 3, "3:1"},   {5, 2, 2, "2:1"},   {2, 1, 2, "2:1"},   {4, 2, 2, "2:1"},
        {7, 4, 1, "3:2"},   {3, 2, 1, "3:2"},   {5, 3, 1, "3:2"},   {6, 4, 1, "3:2"},
        {5, 4, 0, "1:1"},   {29, 20, 0, "1:1"}, {1, 1, 0, "1:1"},   {3, 3, 0, "1:1"},
        {9, 10, -1, "2:3"}, {2, 3, -1, "2:3"},  {4, 6, -1, "2:3"},  {3, 5, -2, "1:2"},
        {1, 2, -2, "1:2"},  {3, 6, -2, "1:2"},  {4, 9, -3, "1:3"},  {1, 3, -3, "1:3"},
        {2, 6, -3, "1:3"},  {1, 4, -3, "1:3"},  {1, 30, -3, "1:3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char label[16] = "";
        int m = vc_ratio_modifier(cases[i].a, cases[i].d, label, sizeof label);
        if (m != cases[i].mod || strcmp(label, cases[i].label) != 0)
            fail_msg("%d vs %d: %+d %s, expected %+d %s", cases[i].a, cases[i].d, m, label,
                     cases[i].mod, cases[i].label);
    }
}

/* ---- 2. facing zones ------------------------------------------------------------------------- */

static json_t *bare_map(const char *hexes) {
    char text[512];
    snprintf(text, sizeof text, "{\"columns\": [1, 20], \"rows\": [1, 12], \"hexes\": %s}",
             hexes ? hexes : "{}");
    json_t *setup_map = parse(text);
    api_error err = {0};
    json_t *map = hex_map_new(setup_map, "setup.map", &vc_map_spec, &err);
    if (!map) fail_msg("hex_map_new: %s", err.message);
    json_decref(setup_map);
    return map;
}

static vc_unit unit_at(vc_type type, const char *at, int facing) {
    vc_unit u;
    memset(&u, 0, sizeof u);
    snprintf(u.id, sizeof u.id, "u");
    snprintf(u.side, sizeof u.side, "a");
    u.type = type;
    assert_true(hex_parse(at, &u.at));
    u.facing = facing;
    u.strength = 3;
    u.morale = 3;
    u.state = VC_GOOD;
    return u;
}

static const char *const zone_names[] = {"front", "flank", "rear"};

/* Neighbours n, ne, se, s, sw, nw of 1204 (even column) and 1304 (odd column). */
static const char *const around_1204[6] = {"1203", "1304", "1305", "1205", "1105", "1104"};
static const char *const around_1304[6] = {"1303", "1403", "1404", "1305", "1204", "1203"};

/* The house default: the faced hex and its two neighbours are front, the next two flank, the
 * opposite rear; `village_infantry`: the flank hexes count as front. */
static int expected_zone(int facing, int dir, bool village_infantry) {
    int rel = (dir - facing + 6) % 6;
    if (rel == 0 || rel == 1 || rel == 5) return VC_FRONT;
    if (rel == 3) return VC_REAR;
    return village_infantry ? VC_FRONT : VC_FLANK;
}

static void check_zones(const json_t *map, vc_type type, const char *at,
                        const char *const around[6], bool village_infantry) {
    for (int facing = 0; facing < 6; facing++) {
        vc_unit u = unit_at(type, at, facing);
        for (int dir = 0; dir < 6; dir++) {
            hex h;
            assert_true(hex_parse(around[dir], &h));
            int z = vc_zone_of(map, &u, h);
            int want = expected_zone(facing, dir, village_infantry);
            if (z != want)
                fail_msg("%s at %s facing %s: %s (%s) is %s, expected %s", vc_type_name(type), at,
                         hex_dir_name(facing), around[dir], hex_dir_name(dir),
                         z >= 0 && z <= 2 ? zone_names[z] : "?", zone_names[want]);
        }
    }
}

static void zones_on_all_six_facings(void **state) {
    (void)state;
    json_t *map = bare_map(NULL);
    /* the neighbours themselves, as the grid gives them */
    hex_grid g;
    hex_map_grid(map, &g);
    hex a, b;
    assert_true(hex_parse("1204", &a));
    assert_true(hex_parse("1304", &b));
    for (int d = 0; d < 6; d++) {
        char n1[HEX_NAME_MAX], n2[HEX_NAME_MAX];
        hex_format(hex_neighbour(&g, a, d), n1);
        hex_format(hex_neighbour(&g, b, d), n2);
        assert_string_equal(n1, around_1204[d]);
        assert_string_equal(n2, around_1304[d]);
    }
    vc_type types[] = {VC_LINE_INFANTRY, VC_LIGHT_INFANTRY, VC_HEAVY_CAVALRY, VC_LIGHT_CAVALRY,
                       VC_ARTILLERY};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        check_zones(map, types[t], "1204", around_1204, false);
        check_zones(map, types[t], "1304", around_1304, false);
    }
    json_decref(map);
}

static void zones_village_infantry_flanks_are_front(void **state) {
    (void)state;
    /* TET, Village: "The flank hexes of the infantry occupying these hexes are considered like
     * frontal hexes" -- infantry only; the rear stays rear. */
    json_t *map = bare_map("{\"1204\": {\"terrain\": \"village\"}, \"1304\": {\"terrain\": "
                           "\"village\"}}");
    check_zones(map, VC_LINE_INFANTRY, "1204", around_1204, true);
    check_zones(map, VC_LIGHT_INFANTRY, "1204", around_1204, true);
    check_zones(map, VC_LINE_INFANTRY, "1304", around_1304, true);
    check_zones(map, VC_LIGHT_INFANTRY, "1304", around_1304, true);
    check_zones(map, VC_HEAVY_CAVALRY, "1204", around_1204, false);
    check_zones(map, VC_LIGHT_CAVALRY, "1204", around_1204, false);
    check_zones(map, VC_HEAVY_CAVALRY, "1304", around_1304, false);
    check_zones(map, VC_LIGHT_CAVALRY, "1304", around_1304, false);
    json_decref(map);
}

static void zones_at_range(void **state) {
    (void)state;
    json_t *map = bare_map(NULL);
    static const struct {
        const char *at;
        int facing;
        const char *other;
        int zone;
    } cases[] = {
        {"1204", HEX_N, "1201", VC_FRONT}, /* straight ahead at 3 */
        {"1204", HEX_N, "1207", VC_REAR},  /* straight behind at 3 */
        {"1204", HEX_S, "1207", VC_FRONT},  {"1204", HEX_S, "1201", VC_REAR},
        {"1204", HEX_NE, "1503", VC_FRONT}, /* 1204 -> 1304 -> 1403 -> 1503 */
        {"1204", HEX_NE, "0906", VC_REAR},  /* 1204 -> 1105 -> 1005 -> 0906 */
        {"1204", HEX_SW, "0906", VC_FRONT}, {"1204", HEX_SW, "1503", VC_REAR},
        {"1204", HEX_N, "1504", VC_FLANK}, /* due east-ish, 90 degrees off */
        {"1204", HEX_N, "0904", VC_FLANK},  {"1304", HEX_N, "1301", VC_FRONT},
        {"1304", HEX_N, "1307", VC_REAR},   {"1304", HEX_SE, "1307", VC_FRONT},
        {"1304", HEX_S, "1307", VC_FRONT},  {"1304", HEX_S, "1301", VC_REAR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vc_unit u = unit_at(VC_LINE_INFANTRY, cases[i].at, cases[i].facing);
        hex h;
        assert_true(hex_parse(cases[i].other, &h));
        int z = vc_zone_at_range(map, &u, h);
        if (z != cases[i].zone)
            fail_msg("unit at %s facing %s: %s is %s at range, expected %s", cases[i].at,
                     hex_dir_name(cases[i].facing), cases[i].other,
                     z >= 0 && z <= 2 ? zone_names[z] : "?", zone_names[cases[i].zone]);
        /* vc_zone_of answers the same for a hex that is not adjacent */
        assert_int_equal(vc_zone_of(map, &u, h), cases[i].zone);
    }
    json_decref(map);
}

/* ---- 3. movement --------------------------------------------------------------------------- */

#define MOVER      U("m", "a", "line_infantry", "1208", "n", 3, 3, "")
#define MOVER_T(t) U("m", "a", t, "1208", "n", 3, 3, "")
#define GUNMOVER   U("m", "a", "artillery", "1208", "n", 3, 3, ",\"calibre\":6")

typedef struct move_case {
    const char *label;
    const char *hexes, *sides, *unit, *path;
    int status;        /* 0: legal */
    const char *field; /* the error's field */
    int cost;          /* legal: the path's cost */
    const char *to;    /* legal: where it ends */
    const char *state; /* legal: the unit's state after */
    int64_t dice[2];
    size_t ndice;
} move_case;

#define MOVE_OK(label, hexes, sides, unit, path, cost, to, state)                                  \
    { label, hexes, sides, unit, path, 0, NULL, cost, to, state, {0}, 0 }
/* a legal move that rolls one die (the test climbing two levels) */
#define MOVE_DIE(label, hexes, sides, unit, path, cost, to, state, die)                            \
    { label, hexes, sides, unit, path, 0, NULL, cost, to, state, {die}, 1 }
/* a 422 rules_violation on `field` */
#define MOVE_BAD(label, hexes, sides, unit, path, field)                                           \
    { label, hexes, sides, unit, path, 422, field, 0, NULL, NULL, {0}, 0 }

static void run_move_cases(const move_case *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const move_case *c = &cases[i];
        char units[1024], action[512];
        snprintf(units, sizeof units, "[%s]", c->unit);
        json_t *st = mkstate(c->hexes, c->sides, units, NULL);
        snprintf(action, sizeof action, "{\"type\": \"move\", \"path\": %s}", c->path);
        outcome o = act(st, "m", action, c->dice, c->ndice);
        if (c->status) {
            expect_error(&o, c->status, "rules_violation", c->field, c->label);
            /* rules/ruleset.h: a refusal comes before any die */
            if (o.dice_drawn) fail_msg("%s: refused after %zu die(s)", c->label, o.dice_drawn);
        } else {
            expect_ok_dice(&o, c->label);
            const json_t *r = o.out.result;
            if (iget(r, "cost") != c->cost)
                fail_msg("%s: cost %ld, expected %d (%s)", c->label, iget(r, "cost"), c->cost,
                         o.out.summary);
            long sum = 0;
            size_t k;
            const json_t *step;
            json_array_foreach(json_object_get(r, "steps"), k, step) sum += iget(step, "cost");
            if (sum != c->cost)
                fail_msg("%s: steps cost %ld in all, the path %d", c->label, sum, c->cost);
            if (strcmp(sget(r, "to"), c->to) != 0)
                fail_msg("%s: ends at %s, expected %s", c->label, sget(r, "to"), c->to);
            if (strcmp(sget(r, "state"), c->state) != 0)
                fail_msg("%s: state %s, expected %s (%s)", c->label, sget(r, "state"), c->state,
                         o.out.summary);
            expect_unit(o.out.new_state, "m", c->to, c->state, 3, c->label);
        }
        outcome_clear(&o);
        json_decref(st);
    }
}

#define H(hex, body)         "{\"" hex "\": " body "}"
#define SIDE(a, b, features) "[{\"hexes\": [\"" a "\", \"" b "\"], \"features\": " features "}]"

static void move_costs_per_terrain(void **state) {
    (void)state;
    static const move_case cases[] = {
        /* TET, Clear: 1 */
        MOVE_OK("clear", NULL, NULL, MOVER, "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("clear x2", NULL, NULL, MOVER, "[\"1207\", \"1206\"]", 2, "1206", "good"),
        MOVE_OK("clear, heavy cavalry", NULL, NULL, MOVER_T("heavy_cavalry"), "[\"1207\"]", 1,
                "1207", "good"),
        /* TET, Woods: 2 / Forb; footnote 1: light cavalry may, disorganised */
        MOVE_OK("woods, line infantry", H("1207", "{\"terrain\": \"woods\"}"), NULL, MOVER,
                "[\"1207\"]", 2, "1207", "good"),
        MOVE_OK("woods, light infantry", H("1207", "{\"terrain\": \"woods\"}"), NULL,
                MOVER_T("light_infantry"), "[\"1207\"]", 2, "1207", "good"),
        MOVE_OK("woods, artillery", H("1207", "{\"terrain\": \"woods\"}"), NULL, GUNMOVER,
                "[\"1207\"]", 2, "1207", "good"),
        MOVE_BAD("woods, heavy cavalry", H("1207", "{\"terrain\": \"woods\"}"), NULL,
                 MOVER_T("heavy_cavalry"), "[\"1207\"]", "path[0]"),
        MOVE_BAD("woods second step, heavy cavalry", H("1206", "{\"terrain\": \"woods\"}"), NULL,
                 MOVER_T("heavy_cavalry"), "[\"1207\", \"1206\"]", "path[1]"),
        MOVE_OK("woods, light cavalry", H("1207", "{\"terrain\": \"woods\"}"), NULL,
                MOVER_T("light_cavalry"), "[\"1207\"]", 2, "1207", "disorganized"),
        /* TET, Village: 2 */
        MOVE_OK("village, line infantry", H("1207", "{\"terrain\": \"village\"}"), NULL, MOVER,
                "[\"1207\"]", 2, "1207", "good"),
        MOVE_OK("village, heavy cavalry", H("1207", "{\"terrain\": \"village\"}"), NULL,
                MOVER_T("heavy_cavalry"), "[\"1207\"]", 2, "1207", "good"),
        /* TET, Stream: +1 */
        MOVE_OK("stream", NULL, SIDE("1208", "1207", "[\"stream\"]"), MOVER, "[\"1207\"]", 2,
                "1207", "good"),
        MOVE_OK("stream, light cavalry", NULL, SIDE("1208", "1207", "[\"stream\"]"),
                MOVER_T("light_cavalry"), "[\"1207\"]", 2, "1207", "good"),
        MOVE_OK("stream into woods", H("1207", "{\"terrain\": \"woods\"}"),
                SIDE("1208", "1207", "[\"stream\"]"), MOVER, "[\"1207\"]", 3, "1207", "good"),
        MOVE_OK("stream into village", H("1207", "{\"terrain\": \"village\"}"),
                SIDE("1207", "1208", "[\"stream\"]"), MOVER, "[\"1207\"]", 3, "1207", "good"),
        /* TET, Road: 1, cancels the supplementary cost, disorganisation and ban */
        MOVE_OK("road into clear", NULL, SIDE("1208", "1207", "[\"road\"]"), MOVER, "[\"1207\"]", 1,
                "1207", "good"),
        MOVE_OK("road into woods", H("1207", "{\"terrain\": \"woods\"}"),
                SIDE("1208", "1207", "[\"road\"]"), MOVER, "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("road into village", H("1207", "{\"terrain\": \"village\"}"),
                SIDE("1208", "1207", "[\"road\"]"), MOVER, "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("road into woods, heavy cavalry", H("1207", "{\"terrain\": \"woods\"}"),
                SIDE("1208", "1207", "[\"road\"]"), MOVER_T("heavy_cavalry"), "[\"1207\"]", 1,
                "1207", "good"),
        MOVE_OK("road into woods, light cavalry", H("1207", "{\"terrain\": \"woods\"}"),
                SIDE("1208", "1207", "[\"road\"]"), MOVER_T("light_cavalry"), "[\"1207\"]", 1,
                "1207", "good"),
        MOVE_OK("road across a stream", NULL, SIDE("1208", "1207", "[\"road\", \"stream\"]"), MOVER,
                "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("sunken road into village", H("1207", "{\"terrain\": \"village\"}"),
                SIDE("1208", "1207", "[\"sunken_road\"]"), MOVER, "[\"1207\"]", 1, "1207", "good"),
        /* TET, Bridge: 0 (a bridge carries a road over the stream) */
        MOVE_OK("bridge over a stream", NULL, SIDE("1208", "1207", "[\"stream\", \"bridge\"]"),
                MOVER, "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("bridge with road over a stream", NULL,
                SIDE("1208", "1207", "[\"stream\", \"bridge\", \"road\"]"),
                MOVER_T("heavy_cavalry"), "[\"1207\"]", 1, "1207", "good"),
        /* TET, Slope: +1 / +2, forbidden to artillery, automatic disorganisation */
        MOVE_OK("slope, line infantry", NULL, SIDE("1208", "1207", "[\"slope\"]"), MOVER,
                "[\"1207\"]", 2, "1207", "disorganized"),
        MOVE_OK("slope, light infantry", NULL, SIDE("1208", "1207", "[\"slope\"]"),
                MOVER_T("light_infantry"), "[\"1207\"]", 2, "1207", "disorganized"),
        MOVE_OK("slope, heavy cavalry", NULL, SIDE("1208", "1207", "[\"slope\"]"),
                MOVER_T("heavy_cavalry"), "[\"1207\"]", 3, "1207", "disorganized"),
        MOVE_OK("slope, light cavalry", NULL, SIDE("1208", "1207", "[\"slope\"]"),
                MOVER_T("light_cavalry"), "[\"1207\"]", 3, "1207", "disorganized"),
        MOVE_BAD("slope, artillery", NULL, SIDE("1208", "1207", "[\"slope\"]"), GUNMOVER,
                 "[\"1207\"]", "path[0]"),
        MOVE_OK("slope into woods", H("1207", "{\"terrain\": \"woods\"}"),
                SIDE("1208", "1207", "[\"slope\"]"), MOVER, "[\"1207\"]", 3, "1207",
                "disorganized"),
        MOVE_OK("road up a slope, artillery", NULL, SIDE("1208", "1207", "[\"road\", \"slope\"]"),
                GUNMOVER, "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("road up a slope, infantry", NULL, SIDE("1208", "1207", "[\"road\", \"slope\"]"),
                MOVER, "[\"1207\"]", 1, "1207", "good"),
        /* TET, Climbing one level: 0; two levels: 1 and a test; going down: 0 */
        MOVE_OK("climbing one level", H("1207", "{\"terrain\": \"clear\", \"level\": 1}"), NULL,
                MOVER, "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("climbing one level into woods",
                H("1207", "{\"terrain\": \"woods\", \"level\": 1}"), NULL, MOVER, "[\"1207\"]", 2,
                "1207", "good"),
        MOVE_DIE("climbing two levels, test passed (3 <= morale 3)",
                 H("1207", "{\"terrain\": \"clear\", \"level\": 2}"), NULL, MOVER, "[\"1207\"]", 2,
                 "1207", "good", 3),
        MOVE_DIE("climbing two levels, test failed (4 > morale 3)",
                 H("1207", "{\"terrain\": \"clear\", \"level\": 2}"), NULL, MOVER, "[\"1207\"]", 2,
                 "1207", "disorganized", 4),
        MOVE_DIE("climbing two levels, cavalry",
                 H("1207", "{\"terrain\": \"clear\", \"level\": 2}"), NULL,
                 MOVER_T("heavy_cavalry"), "[\"1207\"]", 2, "1207", "good", 1),
        MOVE_OK("going down one level", H("1208", "{\"terrain\": \"clear\", \"level\": 1}"), NULL,
                MOVER, "[\"1207\"]", 1, "1207", "good"),
        MOVE_OK("going down two levels", H("1208", "{\"terrain\": \"clear\", \"level\": 2}"), NULL,
                MOVER, "[\"1207\"]", 1, "1207", "good"),
    };
    run_move_cases(cases, sizeof cases / sizeof cases[0]);
}

static void move_paths_and_facing(void **state) {
    (void)state;
    static const move_case cases[] = {
        /* house default allowance: line infantry 4 */
        MOVE_OK("four clear hexes: the whole allowance", NULL, NULL, MOVER,
                "[\"1207\", \"1206\", \"1205\", \"1204\"]", 4, "1204", "good"),
        MOVE_BAD("five clear hexes: over the allowance", NULL, NULL, MOVER,
                 "[\"1207\", \"1206\", \"1205\", \"1204\", \"1203\"]", "path"),
        MOVE_BAD(
            "three woods hexes: over the allowance",
            "{\"1207\": {\"terrain\": \"woods\"}, \"1206\": {\"terrain\": \"woods\"}, \"1205\": "
            "{\"terrain\": \"woods\"}}",
            NULL, MOVER, "[\"1207\", \"1206\", \"1205\"]", "path"),
        MOVE_BAD("a path that is not adjacent", NULL, NULL, MOVER, "[\"1207\", \"1205\"]",
                 "path[1]"),
        MOVE_BAD("the first step not adjacent", NULL, NULL, MOVER, "[\"1206\"]", "path[0]"),
        MOVE_BAD("off the map", NULL, NULL, U("m", "a", "line_infantry", "1201", "n", 3, 3, ""),
                 "[\"1200\"]", "path[0]"),
        /* front hexes of 1208 facing n: 1207 (n), 1308 (ne), 1108 (nw) */
        MOVE_OK("front, ne", NULL, NULL, MOVER, "[\"1308\"]", 1, "1308", "good"),
        MOVE_OK("front, nw", NULL, NULL, MOVER, "[\"1108\"]", 1, "1108", "good"),
        MOVE_BAD("out of the front, se", NULL, NULL, MOVER, "[\"1309\"]", "path[0]"),
        MOVE_BAD("out of the front, s", NULL, NULL, MOVER, "[\"1209\"]", "path[0]"),
        MOVE_BAD("out of the front, sw", NULL, NULL, MOVER, "[\"1109\"]", "path[0]"),
        MOVE_BAD("out of the front on the second step", NULL, NULL, MOVER, "[\"1207\", \"1208\"]",
                 "path[1]"),
        /* a change of facing: 1 (house default), 0 on a road (footnote 2) */
        MOVE_OK("face ne", NULL, NULL, MOVER, "[{\"face\": \"ne\"}]", 1, "1208", "good"),
        MOVE_OK("face s then step s", NULL, NULL, MOVER, "[{\"face\": \"s\"}, \"1209\"]", 2, "1209",
                "good"),
        MOVE_OK("face se then step se", NULL, NULL, MOVER, "[{\"face\": \"se\"}, \"1309\"]", 2,
                "1309", "good"),
        MOVE_OK("face on a road", NULL, SIDE("1208", "1207", "[\"road\"]"), MOVER,
                "[{\"face\": \"s\"}, \"1209\"]", 1, "1209", "good"),
        MOVE_OK("face twice", NULL, NULL, MOVER,
                "[{\"face\": \"ne\"}, {\"face\": \"se\"}, \"1309\"]", 3, "1309", "good"),
        MOVE_BAD("face the way it faces", NULL, NULL, MOVER, "[{\"face\": \"n\"}]", "path[0]"),
        /* house default: march columns and routed units move into any adjacent hex */
        MOVE_OK("march column steps back", NULL, NULL,
                U("m", "a", "line_infantry", "1208", "n", 3, 3, ",\"state\":\"march_column\""),
                "[\"1209\"]", 1, "1209", "march_column"),
        MOVE_OK("routed steps back", NULL, NULL,
                U("m", "a", "line_infantry", "1208", "n", 3, 3, ",\"state\":\"routed\""),
                "[\"1209\"]", 1, "1209", "routed"),
        MOVE_BAD("disorganized keeps to the front", NULL, NULL,
                 U("m", "a", "line_infantry", "1208", "n", 3, 3, ",\"state\":\"disorganized\""),
                 "[\"1209\"]", "path[0]"),
        MOVE_BAD("walk then face: over the allowance", NULL, NULL, MOVER,
                 "[\"1207\", \"1206\", \"1205\", {\"face\": \"s\"}, \"1206\"]", "path"),
    };
    run_move_cases(cases, sizeof cases / sizeof cases[0]);

    /* the facing after the move */
    json_t *st = mkstate(NULL, NULL, "[" MOVER "]", NULL);
    outcome o =
        act(st, "m", "{\"type\": \"move\", \"path\": [{\"face\": \"se\"}, \"1309\"]}", NULL, 0);
    expect_ok_dice(&o, "facing");
    assert_string_equal(sget(o.out.result, "facing"), "se");
    assert_string_equal(sget(unit_in(o.out.new_state, "m"), "facing"), "se");
    outcome_clear(&o);
    /* options.facing_change_cost overrides the house default */
    o = act_as(st, "{\"facing_change_cost\": 2}", "referee", "m",
               "{\"type\": \"move\", \"path\": [{\"face\": \"se\"}]}", NULL, 0);
    expect_ok_dice(&o, "facing_change_cost 2");
    assert_int_equal(iget(o.out.result, "cost"), 2);
    outcome_clear(&o);
    json_decref(st);
}

static void move_enemies_and_zones_of_control(void **state) {
    (void)state;
    /* Enemy e at 1305 facing n: front (ZoC) hexes 1304, 1404 and 1204; 1205 is its flank. The
     * mover at 1206 goes north 1205 -> 1204 -> 1203. */
#define ZMOVER U("m", "a", "line_infantry", "1206", "n", 3, 3, "")
#define ZENEMY U("e", "b", "line_infantry", "1305", "n", 3, 3, "")
    static const move_case cases[] = {
        MOVE_OK("into the ZoC: stops there", NULL, NULL, ZMOVER "," ZENEMY, "[\"1205\", \"1204\"]",
                2, "1204", "good"),
        MOVE_BAD("through the ZoC", NULL, NULL, ZMOVER "," ZENEMY, "[\"1205\", \"1204\", \"1203\"]",
                 "path[2]"),
        MOVE_BAD("into the ZoC, then a facing change", NULL, NULL, ZMOVER "," ZENEMY,
                 "[\"1205\", \"1204\", {\"face\": \"ne\"}]", "path[2]"),
        MOVE_OK("ZoC blocked by a stream", NULL, SIDE("1204", "1305", "[\"stream\"]"),
                ZMOVER "," ZENEMY, "[\"1205\", \"1204\", \"1203\"]", 3, "1203", "good"),
        MOVE_OK("ZoC blocked by a slope", NULL, SIDE("1305", "1204", "[\"slope\"]"),
                ZMOVER "," ZENEMY, "[\"1205\", \"1204\", \"1203\"]", 3, "1203", "good"),
        MOVE_OK("ZoC blocked by a village", H("1204", "{\"terrain\": \"village\"}"), NULL,
                ZMOVER "," ZENEMY, "[\"1205\", \"1204\", \"1203\"]", 4, "1203", "good"),
        MOVE_OK("a routed enemy has no ZoC", NULL, NULL,
                ZMOVER "," U("e", "b", "line_infantry", "1305", "n", 3, 3, ",\"state\":\"routed\""),
                "[\"1205\", \"1204\", \"1203\"]", 3, "1203", "good"),
        MOVE_OK("the enemy's flank is no ZoC", NULL, NULL,
                ZMOVER "," U("e", "b", "line_infantry", "1305", "ne", 3, 3, ""),
                "[\"1205\", \"1204\", \"1203\"]", 3, "1203", "good"),
        MOVE_BAD("into the enemy's hex", NULL, NULL,
                 ZMOVER "," U("e", "b", "line_infantry", "1204", "n", 3, 3, ""),
                 "[\"1205\", \"1204\"]", "path[1]"),
        MOVE_OK("into a friend's hex", NULL, NULL,
                ZMOVER "," U("f", "a", "line_infantry", "1205", "n", 3, 3, ""), "[\"1205\"]", 1,
                "1205", "good"),
        MOVE_BAD("into a friend's hex facing another way", NULL, NULL,
                 ZMOVER "," U("f", "a", "line_infantry", "1205", "s", 3, 3, ""), "[\"1205\"]",
                 "path"),
        MOVE_BAD("a stack of three", NULL, NULL,
                 ZMOVER "," U("f", "a", "line_infantry", "1205", "n", 3, 3,
                              "") "," U("g", "a", "line_infantry", "1205", "n", 3, 3, ""),
                 "[\"1205\"]", "path"),
    };
    run_move_cases(cases, sizeof cases / sizeof cases[0]);

    json_t *st = mkstate(NULL, NULL, "[" ZMOVER "," ZENEMY "]", NULL);
    outcome o = act(st, "m", "{\"type\": \"move\", \"path\": [\"1205\", \"1204\"]}", NULL, 0);
    expect_ok_dice(&o, "into ZoC");
    assert_true(json_is_true(json_object_get(o.out.result, "stopped_by_zoc")));
    outcome_clear(&o);
    o = act(st, "m", "{\"type\": \"move\", \"path\": [\"1205\"]}", NULL, 0);
    expect_ok_dice(&o, "beside the enemy, not in its ZoC");
    assert_true(json_is_false(json_object_get(o.out.result, "stopped_by_zoc")));
    outcome_clear(&o);
    json_decref(st);
}

/* Issue 19: a path that climbs two levels (a test for disorganisation, TET footnote 3) and is
 * illegal further on is refused before the test is rolled: the same 422, with no die in it, and
 * no die drawn whatever the dice would have said. The die only ever decides a legal move. */
static void move_refused_before_the_climb_test(void **state) {
    (void)state;
#define CLIMB H("1207", "{\"terrain\": \"clear\", \"level\": 2}")
    static const move_case cases[] = {
        /* 1207 costs 2 (clear 1, climbing two levels 1), then three clear hexes: 5 > 4 */
        MOVE_BAD("climbs, then runs out of movement points", CLIMB, NULL, MOVER,
                 "[\"1207\", \"1206\", \"1205\", \"1204\"]", "path"),
        MOVE_BAD("climbs, then goes on through a zone of control", CLIMB, NULL,
                 MOVER "," U("e", "b", "line_infantry", "1306", "sw", 3, 3, ""),
                 "[\"1207\", \"1206\", \"1205\"]", "path[2]"),
        MOVE_BAD("climbs, then into an enemy", CLIMB, NULL,
                 MOVER "," U("e", "b", "line_infantry", "1206", "s", 3, 3, ""),
                 "[\"1207\", \"1206\"]", "path[1]"),
        MOVE_BAD("climbs, then a hex that is not adjacent", CLIMB, NULL, MOVER,
                 "[\"1207\", \"1205\"]", "path[1]"),
        MOVE_BAD("climbs, then out of the front", CLIMB, NULL, MOVER, "[\"1207\", \"1208\"]",
                 "path[1]"),
        MOVE_BAD("climbs, then faces the way it faces", CLIMB, NULL, MOVER,
                 "[\"1207\", {\"face\": \"n\"}]", "path[1]"),
        MOVE_BAD("climbs, then ends in a stack of three", CLIMB, NULL,
                 MOVER "," U("f", "a", "line_infantry", "1206", "n", 3, 3,
                             "") "," U("g", "a", "line_infantry", "1206", "n", 3, 3, ""),
                 "[\"1207\", \"1206\"]", "path"),
        MOVE_BAD("climbs, then ends in a stack facing another way", CLIMB, NULL,
                 MOVER "," U("f", "a", "line_infantry", "1206", "s", 3, 3, ""),
                 "[\"1207\", \"1206\"]", "path"),
    };
    run_move_cases(cases, sizeof cases / sizeof cases[0]);

    /* The issue's case, whatever the die: one answer, byte for byte, and no die drawn. */
    json_t *st = mkstate(CLIMB, NULL, "[" MOVER "]", NULL);
    const char *too_far =
        "{\"type\": \"move\", \"path\": [\"1207\", \"1206\", \"1205\", \"1204\"]}";
    char *first = NULL;
    for (int64_t die = 0; die <= 6; die++) {
        outcome o = act(st, "m", too_far, &die, die ? 1 : 0);
        expect_error(&o, 422, "rules_violation", "path", "climbs, then too far");
        assert_int_equal(o.dice_drawn, 0);
        char *body = api_error_body_new(&o.err, NULL);
        assert_non_null(body);
        if (!first) {
            first = body;
            assert_string_equal(o.err.message,
                                "the path costs 5 movement points; unit 'm' has 4 (1207 2 (+1 "
                                "clear, +1 climbing two levels); 1206 1 (+1 clear); 1205 1 (+1 "
                                "clear); 1204 1 (+1 clear))");
        } else {
            assert_string_equal(body, first);
            free(body);
        }
        outcome_clear(&o);
    }
    free(first);

    /* A legal path commits with the test's outcome: failed (6 > morale 3), the unit is
     * disorganized and goes on along its path (a failure only disorganises); passed, it is
     * still in good order. */
    const char *legal = "{\"type\": \"move\", \"path\": [\"1207\", \"1206\", \"1205\"]}";
    int64_t fail_die = 6, pass_die = 3;
    outcome o = act(st, "m", legal, &fail_die, 1);
    expect_ok_dice(&o, "climbs, fails its test, goes on");
    assert_int_equal(o.dice_drawn, 1);
    assert_string_equal(sget(o.out.result, "to"), "1205");
    assert_string_equal(sget(o.out.result, "state"), "disorganized");
    assert_int_equal(iget(o.out.result, "cost"), 4);
    expect_unit(o.out.new_state, "m", "1205", "disorganized", 3, "climbs, fails its test");
    outcome_clear(&o);
    o = act(st, "m", legal, &pass_die, 1);
    expect_ok_dice(&o, "climbs, passes its test, goes on");
    assert_string_equal(sget(o.out.result, "state"), "good");
    expect_unit(o.out.new_state, "m", "1205", "good", 3, "climbs, passes its test");
    outcome_clear(&o);
    json_decref(st);
#undef CLIMB
}

/* ---- 4. artillery fire ------------------------------------------------------------------------
 */

#define GUN(hex, extra)   U("g", "a", "artillery", hex, "n", 1, 3, ",\"calibre\":6" extra)
#define GUN12(hex, extra) U("g", "a", "artillery", hex, "n", 1, 3, ",\"calibre\":12" extra)
#define TARGET(t, facing) U("t", "b", t, "1205", facing, 3, 3, "")
#define TARGET_LINE       TARGET("line_infantry", "s")
#define FIRE              "{\"type\": \"fire\", \"target\": \"t\"}"

typedef struct fire_case {
    const char *label;
    const char *hexes, *units;
    term terms[TERMS_MAX];
} fire_case;

#define FC(label, hexes, units, ...)                                                               \
    {                                                                                              \
        label, hexes, units, {                                                                     \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    }

static void fire_modifiers_alone(void **state) {
    (void)state;
    static const fire_case cases[] = {
        FC("no modifier at range 3", NULL, GUN("1208", "") "," TARGET_LINE, END),
        FC("light infantry target", NULL, GUN("1208", "") "," TARGET("light_infantry", "s"),
           T("light", -1), END),
        FC("light cavalry target", NULL, GUN("1208", "") "," TARGET("light_cavalry", "s"),
           T("light", -1), END),
        FC("heavy cavalry target: not light", NULL,
           GUN("1208", "") "," TARGET("heavy_cavalry", "s"), END),
        FC("disorganized shooter", NULL, GUN("1208", ",\"state\":\"disorganized\"") "," TARGET_LINE,
           T("disorganized", -1), END),
        FC("target in woods", H("1205", "{\"terrain\": \"woods\"}"),
           GUN("1208", "") "," TARGET_LINE, T("woods", -1), END),
        FC("target in a village", H("1205", "{\"terrain\": \"village\"}"),
           GUN("1208", "") "," TARGET_LINE, T("village", -1), END),
        FC("target one level up", H("1205", "{\"terrain\": \"clear\", \"level\": 1}"),
           GUN("1208", "") "," TARGET_LINE, T("level", -1), END),
        FC("target two levels up", H("1205", "{\"terrain\": \"clear\", \"level\": 2}"),
           GUN("1208", "") "," TARGET_LINE, T("level", -1), END),
        FC("target one level down", H("1208", "{\"terrain\": \"clear\", \"level\": 1}"),
           GUN("1208", "") "," TARGET_LINE, END),
        /* the gun is due south of the target: facing se or sw it is in front, ne or nw on a
         * flank, n behind (house default: rear counts as flank) */
        FC("target facing se: front", NULL, GUN("1208", "") "," TARGET("line_infantry", "se"), END),
        FC("target facing sw: front", NULL, GUN("1208", "") "," TARGET("line_infantry", "sw"), END),
        FC("target facing ne: flank", NULL, GUN("1208", "") "," TARGET("line_infantry", "ne"),
           T("flank", 2), END),
        FC("target facing nw: flank", NULL, GUN("1208", "") "," TARGET("line_infantry", "nw"),
           T("flank", 2), END),
        FC("target facing n: rear", NULL, GUN("1208", "") "," TARGET("line_infantry", "n"),
           T("flank", 2), END),
        FC("range 4", NULL, GUN("1209", "") "," TARGET_LINE, T("beyond", -1), END),
        FC("range 5", NULL, GUN("1210", "") "," TARGET_LINE, T("beyond 3", -1), T("beyond 4", -1),
           END),
        FC("range 6", NULL, GUN("1211", "") "," TARGET_LINE, T("beyond 3", -1), T("beyond 4", -2),
           END),
        FC("range 2", NULL, GUN("1207", "") "," TARGET_LINE, END),
        FC("adjacent", NULL, GUN("1206", "") "," TARGET_LINE, T("adjacent", 1), END),
        FC("12-pounder", NULL, GUN12("1208", "") "," TARGET_LINE, T("12", 1), END),
        FC("8-pounder: no bonus", NULL,
           U("g", "a", "artillery", "1208", "n", 1, 3, ",\"calibre\":8") "," TARGET_LINE, END),
        FC("16-pounder: no bonus", NULL,
           U("g", "a", "artillery", "1208", "n", 1, 3, ",\"calibre\":16") "," TARGET_LINE, END),
        /* adjacent fire from a flank hex on infantry in a village: its flanks are front */
        FC("adjacent, village infantry's flank", H("1205", "{\"terrain\": \"village\"}"),
           U("g", "a", "artillery", "1206", "n", 1, 3, ",\"calibre\":6") "," TARGET("line_infantry",
                                                                                    "ne"),
           T("village", -1), T("adjacent", 1), END),
        /* combinations */
        FC("light, village, disorganized, range 5, 12-pounder",
           H("1205", "{\"terrain\": \"village\"}"),
           GUN12("1210", ",\"state\":\"disorganized\"") "," TARGET("light_infantry", "s"),
           T("light", -1), T("disorganized", -1), T("village", -1), T("beyond 3", -1),
           T("beyond 4", -1), T("12", 1), END),
        FC("flank, adjacent, 12-pounder, one level up",
           H("1205", "{\"terrain\": \"woods\", \"level\": 1}"),
           GUN12("1206", "") "," TARGET("light_cavalry", "nw"), T("light", -1), T("woods", -1),
           T("level", -1), T("flank", 2), T("adjacent", 1), T("12", 1), END),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fire_case *c = &cases[i];
        char units[2048];
        snprintf(units, sizeof units, "[%s]", c->units);
        json_t *st = mkstate(c->hexes, NULL, units, NULL);
        const int64_t dice[] = {1, 1, 1};
        outcome o = act(st, "g", FIRE, dice, 3);
        expect_ok(&o, c->label);
        expect_terms(&o, c->terms, c->label);
        assert_int_equal(iget(o.out.result, "roll"), 1);
        outcome_clear(&o);
        json_decref(st);
    }
}

/* TET, Village: "The flank hexes of the infantry occupying these hexes are considered like
 * frontal hexes". vc_zone_at_range is documented as "the same" as vc_zone_of for a distant hex,
 * so fire from the flank bearing at range earns no +2 against infantry in a village, as it earns
 * none from an adjacent flank hex (fire_modifiers_alone). Its rear still does (house default:
 * rear counts as flank). */
static void fire_village_infantry_flank_at_range(void **state) {
    (void)state;
    static const fire_case cases[] = {
        FC("range 3, village infantry's flank", H("1205", "{\"terrain\": \"village\"}"),
           GUN("1208", "") "," TARGET("line_infantry", "ne"), T("village", -1), END),
        FC("range 3, village infantry's other flank", H("1205", "{\"terrain\": \"village\"}"),
           GUN("1208", "") "," TARGET("light_infantry", "nw"), T("light", -1), T("village", -1),
           END),
        FC("range 3, village infantry's rear", H("1205", "{\"terrain\": \"village\"}"),
           GUN("1208", "") "," TARGET("line_infantry", "n"), T("village", -1), T("flank", 2), END),
        FC("range 3, village cavalry's flank", H("1205", "{\"terrain\": \"village\"}"),
           GUN("1208", "") "," TARGET("heavy_cavalry", "ne"), T("village", -1), T("flank", 2), END),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[2048];
        snprintf(units, sizeof units, "[%s]", cases[i].units);
        json_t *st = mkstate(cases[i].hexes, NULL, units, NULL);
        const int64_t dice[] = {1, 1, 1};
        outcome o = act(st, "g", FIRE, dice, 3);
        expect_ok(&o, cases[i].label);
        expect_terms(&o, cases[i].terms, cases[i].label);
        outcome_clear(&o);
        json_decref(st);
    }
}

/* The CRT's "*" eliminates "cavalry units previously disorganized by combat"; vc.h documents
 * by_combat as "a disorganisation as the CRT's". The Artillery Table is fire, not combat (the
 * TET tells "target of fire or combat" apart): a cavalry unit disorganized by artillery (D, or a
 * failed TM) is not disorganized by combat, and a later 2D-R2* does not eliminate it. */
static void fire_disorganization_is_not_by_combat(void **state) {
    (void)state;
    static const struct {
        const char *label;
        int64_t dice[2];
        size_t ndice;
    } cases[] = {
        {"row 6: D", {5}, 1},
        {"row 3: TM failed", {2, 6}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* t light cavalry facing ne, the 6-pounder due south on its flank: -1 light, +2 flank.
         * a1 at 1305 (ne of 1205) facing sw, in t's front. */
        json_t *st = mkstate(NULL, NULL,
                             "[" GUN("1208", "") "," TARGET("light_cavalry", "ne") "," U(
                                 "a1", "a", "line_infantry", "1305", "sw", 12, 3, "") "]",
                             NULL);
        outcome f = act(st, "g", FIRE, cases[i].dice, cases[i].ndice);
        expect_ok_dice(&f, cases[i].label);
        assert_int_equal(iget(f.out.result, "modifier"), 1);
        expect_unit(f.out.new_state, "t", "1205", "disorganized", 3, cases[i].label);
        if (json_is_true(json_object_get(unit_in(f.out.new_state, "t"), "disorganized_by_combat")))
            fail_msg("%s: artillery fire marked the cavalry 'disorganized_by_combat' (%s)",
                     cases[i].label, f.out.summary);
        /* a1 assaults: 12 vs 3 = 4:1 +4, defender disorganized +1, all defenders light in clear
         * +1 = +6; roll 3 -> 9: 2D-R2*. Not disorganized by combat: t loses two steps. */
        const int64_t three[] = {3};
        outcome m =
            act(f.out.new_state, "a1", "{\"type\": \"melee\", \"defender\": \"1205\"}", three, 1);
        expect_ok_dice(&m, cases[i].label);
        assert_int_equal(iget(m.out.result, "adjusted"), 9);
        assert_string_equal(sget(json_object_get(m.out.result, "defender_result"), "result"),
                            "2D-R2*");
        expect_unit(m.out.new_state, "t", "1205", "disorganized", 1, cases[i].label);
        outcome_clear(&m);
        outcome_clear(&f);
        json_decref(st);
    }
}

static void fire_refused(void **state) {
    (void)state;
    static const struct {
        const char *label, *hexes, *units;
        const char *field;
    } cases[] = {
        {"a unit in the way (friend)", NULL,
         GUN("1208", "") "," TARGET_LINE "," U("x", "a", "line_infantry", "1207", "n", 3, 3, ""),
         "target"},
        {"a unit in the way (enemy)", NULL,
         GUN("1208", "") "," TARGET_LINE "," U("x", "b", "line_infantry", "1206", "s", 3, 3, ""),
         "target"},
        {"woods in the way", H("1206", "{\"terrain\": \"woods\"}"), GUN("1208", "") "," TARGET_LINE,
         "target"},
        {"a village in the way", H("1207", "{\"terrain\": \"village\"}"),
         GUN("1208", "") "," TARGET_LINE, "target"},
        {"higher ground in the way", H("1207", "{\"terrain\": \"clear\", \"level\": 2}"),
         GUN("1208", "") "," TARGET_LINE, "target"},
        {"out of range (6-pounder at 7)", NULL, GUN("1212", "") "," TARGET_LINE, "target"},
        {"out of range (4-pounder at 6)", NULL,
         U("g", "a", "artillery", "1211", "n", 1, 3, ",\"calibre\":4") "," TARGET_LINE, "target"},
        {"behind the gun", NULL,
         U("g", "a", "artillery", "1208", "s", 1, 3, ",\"calibre\":6") "," TARGET_LINE, "target"},
        {"120 degrees off the gun's facing", NULL,
         U("g", "a", "artillery", "1208", "se", 1, 3, ",\"calibre\":6") "," TARGET_LINE, "target"},
        {"not artillery", NULL, U("g", "a", "line_infantry", "1208", "n", 3, 3, "") "," TARGET_LINE,
         "unit"},
        {"a routed gun", NULL, GUN("1208", ",\"state\":\"routed\"") "," TARGET_LINE, "unit"},
        {"at its own side", NULL,
         GUN("1208", "") "," U("t", "a", "line_infantry", "1205", "s", 3, 3, ""), "target"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[2048];
        snprintf(units, sizeof units, "[%s]", cases[i].units);
        json_t *st = mkstate(cases[i].hexes, NULL, units, NULL);
        const int64_t dice[] = {6};
        outcome o = act(st, "g", FIRE, dice, 1);
        expect_error(&o, 422, "rules_violation", cases[i].field, cases[i].label);
        outcome_clear(&o);
        json_decref(st);
    }
    /* range limits hold at the boundary: 6-pounder at 6, facing ne (60 degrees off) */
    const char *ok_units[] = {
        "[" GUN("1211", "") "," TARGET_LINE "]",
        "[" U("g", "a", "artillery", "1208", "ne", 1, 3, ",\"calibre\":6") "," TARGET_LINE "]",
        "[" U("g", "a", "artillery", "1208", "nw", 1, 3, ",\"calibre\":6") "," TARGET_LINE "]",
    };
    for (size_t i = 0; i < 3; i++) {
        json_t *st = mkstate(NULL, NULL, ok_units[i], NULL);
        const int64_t dice[] = {1};
        outcome o = act(st, "g", FIRE, dice, 1);
        expect_ok_dice(&o, ok_units[i]);
        outcome_clear(&o);
        json_decref(st);
    }
    /* options.max_range overrides the house default */
    json_t *st = mkstate(NULL, NULL, "[" GUN("1212", "") "," TARGET_LINE "]", NULL);
    const int64_t dice[] = {1};
    outcome o = act_as(st, "{\"max_range\": [5, 7, 7, 8]}", "referee", "g", FIRE, dice, 1);
    expect_ok_dice(&o, "max_range 7");
    assert_int_equal(iget(o.out.result, "range"), 7);
    outcome_clear(&o);
    json_decref(st);
}

/* Each Artillery Table row through the action: roll + modifiers, result applied. */
/* a row without a morale test; a TM row with its test die (no retreat) */
#define FIRE_ROW(label, units, roll, row, code, state, strength, retreat)                          \
    { label, units, {roll}, 1, row, code, state, strength, retreat }
#define FIRE_ROW_TM(label, units, roll, test, row, code, state, strength)                          \
    { label, units, {roll, test}, 2, row, code, state, strength, 0 }

static void fire_results_applied(void **state) {
    (void)state;
    static const struct {
        const char *label, *units;
        int64_t dice[2];
        size_t ndice;
        int row;
        const char *code, *state;
        long strength;
        long retreat; /* 0: none pending */
    } cases[] = {
        /* 6-pounder at range 6 (-3): a 1 reads as row 0 */
        FIRE_ROW("row 0 and less", GUN("1211", "") "," TARGET_LINE, 1, 0, "-", "good", 3, 0),
        FIRE_ROW("row 1", GUN("1208", "") "," TARGET_LINE, 1, 1, "-", "good", 3, 0),
        FIRE_ROW_TM("row 2: TM passed", GUN("1208", "") "," TARGET_LINE, 2, 3, 2, "TM", "good", 3),
        FIRE_ROW_TM("row 2: TM failed", GUN("1208", "") "," TARGET_LINE, 2, 4, 2, "TM",
                    "disorganized", 3),
        FIRE_ROW_TM("row 3: TM", GUN("1208", "") "," TARGET_LINE, 3, 4, 3, "TM", "disorganized", 3),
        FIRE_ROW_TM("row 4: TM+1 passed (2+1 <= 3)", GUN("1208", "") "," TARGET_LINE, 4, 2, 4,
                    "TM+1", "good", 3),
        FIRE_ROW_TM("row 4: TM+1 failed (3+1 > 3)", GUN("1208", "") "," TARGET_LINE, 4, 3, 4,
                    "TM+1", "disorganized", 3),
        FIRE_ROW_TM("row 5: TM+2 passed (1+2 <= 3)", GUN("1208", "") "," TARGET_LINE, 5, 1, 5,
                    "TM+2", "good", 3),
        FIRE_ROW_TM("row 5: TM+2 failed (2+2 > 3)", GUN("1208", "") "," TARGET_LINE, 5, 2, 5,
                    "TM+2", "disorganized", 3),
        FIRE_ROW("row 6: D", GUN("1208", "") "," TARGET_LINE, 6, 6, "D", "disorganized", 3, 0),
        FIRE_ROW("row 7: 1D-R1", GUN12("1208", "") "," TARGET_LINE, 6, 7, "1D-R1", "disorganized",
                 2, 1),
        FIRE_ROW("row 8: 1D-R2", GUN12("1206", "") "," TARGET_LINE, 6, 8, "1D-R2", "disorganized",
                 2, 2),
        FIRE_ROW("row 9: 2D-R2", GUN12("1206", "") "," TARGET("line_infantry", "nw"), 5, 9, "2D-R2",
                 "disorganized", 1, 2),
        FIRE_ROW("row 9 and more: 2D-R2", GUN12("1206", "") "," TARGET("line_infantry", "nw"), 6, 9,
                 "2D-R2", "disorganized", 1, 2),
        FIRE_ROW_TM("a disorganized target fails TM: routed",
                    GUN("1208", "") "," U("t", "b", "line_infantry", "1205", "s", 3, 3,
                                          ",\"state\":\"disorganized\""),
                    2, 4, 2, "TM", "routed", 3),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[2048];
        snprintf(units, sizeof units, "[%s]", cases[i].units);
        json_t *st = mkstate(NULL, NULL, units, NULL);
        outcome o = act(st, "g", FIRE, cases[i].dice, cases[i].ndice);
        expect_ok_dice(&o, cases[i].label);
        const json_t *r = o.out.result;
        if (iget(r, "row") != cases[i].row)
            fail_msg("%s: row %ld, expected %d (%s)", cases[i].label, iget(r, "row"), cases[i].row,
                     o.out.summary);
        const json_t *tr = json_object_get(r, "target_result");
        assert_string_equal(sget(tr, "result"), cases[i].code);
        expect_unit(o.out.new_state, "t", "1205", cases[i].state, cases[i].strength,
                    cases[i].label);
        const json_t *after = json_array_get(json_object_get(tr, "units"), 0);
        assert_string_equal(sget(after, "state"), cases[i].state);
        assert_int_equal(iget(after, "strength"), cases[i].strength);
        const json_t *p = pending_of(o.out.new_state);
        if (cases[i].retreat) {
            assert_int_equal(json_array_size(p), 1);
            const json_t *e = json_array_get(p, 0);
            assert_string_equal(sget(e, "unit"), "t");
            assert_string_equal(sget(e, "side"), "b");
            assert_int_equal(iget(e, "hexes"), cases[i].retreat);
        } else {
            assert_int_equal(json_array_size(p), 0);
        }
        assert_non_null(strstr(o.out.summary, cases[i].code));
        outcome_clear(&o);
        json_decref(st);
    }
}

/* Row 7 (1D-R1): a step lost, disorganized, a retreat pending; everything else waits (409). */
static void fire_retreat_pending_blocks_other_actions(void **state) {
    (void)state;
    json_t *st = mkstate(NULL, NULL,
                         "[" GUN12("1208", "") "," TARGET_LINE "," U("x", "b", "line_infantry",
                                                                     "1803", "n", 3, 3, "") "]",
                         NULL);
    const int64_t six[] = {6};
    outcome f = act(st, "g", FIRE, six, 1);
    expect_ok_dice(&f, "fire");
    assert_int_equal(iget(f.out.result, "adjusted"), 7);
    assert_int_equal(iget(f.out.result, "modifier"), 1);
    const json_t *tr = json_object_get(f.out.result, "target_result");
    assert_string_equal(sget(tr, "result"), "1D-R1");
    assert_int_equal(iget(tr, "steps_lost"), 1);
    assert_int_equal(iget(tr, "retreat"), 1);
    expect_unit(f.out.new_state, "t", "1205", "disorganized", 2, "after fire");
    const json_t *p = pending_of(f.out.new_state);
    assert_int_equal(json_array_size(p), 1);
    const json_t *entry = json_array_get(p, 0);
    assert_string_equal(sget(entry, "unit"), "t");
    assert_int_equal(iget(entry, "hexes"), 1);
    const json_t *away = json_object_get(entry, "away_from");
    assert_int_equal(json_array_size(away), 1);
    assert_string_equal(json_string_value(json_array_get(away, 0)), "1208");
    /* the input state keeps no pending */
    assert_int_equal(json_array_size(pending_of(st)), 0);

    json_t *next = f.out.new_state;
    outcome o = act(next, "g", "{\"type\": \"move\", \"path\": [\"1207\"]}", NULL, 0);
    expect_error(&o, 409, "retreat_pending", NULL, "move while a retreat is pending");
    outcome_clear(&o);
    o = act(next, "g", FIRE, six, 1);
    expect_error(&o, 409, "retreat_pending", NULL, "fire while a retreat is pending");
    outcome_clear(&o);
    o = act(next, "x", "{\"type\": \"morale\"}", six, 1);
    expect_error(&o, 409, "retreat_pending", NULL, "morale while a retreat is pending");
    outcome_clear(&o);
    o = act(next, "x", "{\"type\": \"retreat\", \"path\": [\"1802\"]}", NULL, 0);
    expect_error(&o, 409, "retreat_pending", NULL, "a retreat of a unit with none pending");
    outcome_clear(&o);
    /* the retreat itself: 1204 is 4 from the gun at 1208, one more than 1205 */
    o = act(next, "t", "{\"type\": \"retreat\", \"path\": [\"1204\"]}", NULL, 0);
    expect_ok_dice(&o, "retreat");
    expect_unit(o.out.new_state, "t", "1204", "disorganized", 2, "after the retreat");
    assert_int_equal(json_array_size(pending_of(o.out.new_state)), 0);
    /* and the session goes on */
    outcome m = act(o.out.new_state, "g", "{\"type\": \"move\", \"path\": [\"1207\"]}", NULL, 0);
    expect_ok_dice(&m, "move after the retreat");
    outcome_clear(&m);
    outcome_clear(&o);
    outcome_clear(&f);
    json_decref(st);
}

/* ---- 5. melee -------------------------------------------------------------------------------- */

#define ATT                      U("a1", "a", "line_infantry", "1206", "n", 3, 3, "")
#define ATT_X(t, s, m, extra)    U("a1", "a", t, "1206", "n", s, m, extra)
#define DEF                      U("d1", "b", "line_infantry", "1205", "s", 3, 3, "")
#define DEF_X(t, f, s, m, extra) U("d1", "b", t, "1205", f, s, m, extra)
#define MELEE                    "{\"type\": \"melee\", \"defender\": \"1205\"}"

typedef struct melee_case {
    const char *label;
    const char *hexes, *sides, *units, *formations, *action;
    term terms[TERMS_MAX];
} melee_case;

#define MC(label, hexes, sides, units, formations, action, ...)                                    \
    {                                                                                              \
        label, hexes, sides, units, formations, action, {                                          \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    }

/* Each case's state, its action by a1 over dice of 1: it succeeds, naming exactly its terms. */
static void run_melee_cases(const melee_case *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const melee_case *c = &cases[i];
        char units[2048];
        snprintf(units, sizeof units, "[%s]", c->units);
        json_t *st = mkstate(c->hexes, c->sides, units, c->formations);
        const int64_t dice[] = {1, 1, 1, 1, 1, 1};
        outcome o = act(st, "a1", c->action, dice, 6);
        expect_ok(&o, c->label);
        expect_terms(&o, c->terms, c->label);
        outcome_clear(&o);
        json_decref(st);
    }
}

static void melee_modifiers_alone(void **state) {
    (void)state;
    static const melee_case cases[] = {
        MC("nothing: 3 vs 3, same morale, from the front", NULL, NULL, ATT "," DEF, NULL, MELEE,
           END),
        /* strength ratio (the boundary cases are in ratio_columns_at_each_boundary) */
        MC("ratio 6 vs 3 = 2:1", NULL, NULL, ATT_X("line_infantry", 6, 3, "") "," DEF, NULL, MELEE,
           T("2:1", 2), END),
        MC("ratio 5 vs 3 = 3:2", NULL, NULL, ATT_X("line_infantry", 5, 3, "") "," DEF, NULL, MELEE,
           T("3:2", 1), END),
        MC("ratio 5 vs 4 = 1:1", NULL, NULL,
           ATT_X("line_infantry", 5, 3, "") "," DEF_X("line_infantry", "s", 4, 3, ""), NULL, MELEE,
           END),
        MC("ratio 1 vs 3 = 1:3", NULL, NULL, ATT_X("line_infantry", 1, 3, "") "," DEF, NULL, MELEE,
           T("1:3", -3), END),
        MC("ratio 2 vs 3 = 2:3", NULL, NULL, ATT_X("line_infantry", 2, 3, "") "," DEF, NULL, MELEE,
           T("2:3", -1), END),
        MC("ratio 3 vs 5 = 1:2", NULL, NULL, ATT "," DEF_X("line_infantry", "s", 5, 3, ""), NULL,
           MELEE, T("1:2", -2), END),
        MC("ratio 18 vs 3 = 6:1", NULL, NULL, ATT_X("line_infantry", 18, 3, "") "," DEF, NULL,
           MELEE, T("6:1", 6), END),
        /* morale difference */
        MC("morale 5 vs 3", NULL, NULL, ATT_X("line_infantry", 3, 5, "") "," DEF, NULL, MELEE,
           T("morale", 2), END),
        MC("morale 1 vs 3", NULL, NULL, ATT_X("line_infantry", 3, 1, "") "," DEF, NULL, MELEE,
           T("morale", -2), END),
        /* orientation: a1 at 1206 is due south of d1 */
        MC("defender facing se: front", NULL, NULL, ATT "," DEF_X("line_infantry", "se", 3, 3, ""),
           NULL, MELEE, END),
        MC("defender facing sw: front", NULL, NULL, ATT "," DEF_X("line_infantry", "sw", 3, 3, ""),
           NULL, MELEE, END),
        MC("defender facing ne: flank", NULL, NULL, ATT "," DEF_X("line_infantry", "ne", 3, 3, ""),
           NULL, MELEE, T("flank", 2), END),
        MC("defender facing nw: flank", NULL, NULL, ATT "," DEF_X("line_infantry", "nw", 3, 3, ""),
           NULL, MELEE, T("flank", 2), END),
        MC("defender facing n: rear", NULL, NULL, ATT "," DEF_X("line_infantry", "n", 3, 3, ""),
           NULL, MELEE, T("rear", 3), END),
        MC("infantry in a village: the flank is front", H("1205", "{\"terrain\": \"village\"}"),
           NULL, ATT "," DEF_X("line_infantry", "ne", 3, 3, ""), NULL, MELEE, T("village", -1),
           END),
        MC("infantry in a village: the rear is rear", H("1205", "{\"terrain\": \"village\"}"), NULL,
           ATT "," DEF_X("line_infantry", "n", 3, 3, ""), NULL, MELEE, T("village", -1),
           T("rear", 3), END),
        MC("cavalry in a village: the flank is flank", H("1205", "{\"terrain\": \"village\"}"),
           NULL, ATT "," DEF_X("heavy_cavalry", "ne", 3, 3, ""), NULL, MELEE, T("village", -1),
           T("flank", 2), END),
        /* heavy cavalry */
        MC("heavy cavalry vs disorganized infantry", NULL, NULL,
           ATT_X("heavy_cavalry", 3, 3, "") "," DEF_X("line_infantry", "s", 3, 3,
                                                      ",\"state\":\"disorganized\""),
           NULL, MELEE, T("disorganized infantry", 1), T("defender disorganized", 1), END),
        MC("heavy cavalry vs line infantry in good order", NULL, NULL,
           ATT_X("heavy_cavalry", 3, 3, "") "," DEF, NULL, MELEE, T("good order", -1), END),
        MC("heavy cavalry vs line infantry in march column", NULL, NULL,
           ATT_X("heavy_cavalry", 3, 3, "") "," DEF_X("line_infantry", "s", 3, 3,
                                                      ",\"state\":\"march_column\""),
           NULL, MELEE, T("march column", 2), END),
        MC("heavy cavalry with bonus vs cavalry", NULL, NULL,
           ATT_X("heavy_cavalry", 3, 3, ",\"bonus\":true") "," DEF_X("heavy_cavalry", "s", 3, 3,
                                                                     ""),
           NULL, MELEE, T("bonus", 1), END),
        MC("heavy cavalry without bonus vs cavalry", NULL, NULL,
           ATT_X("heavy_cavalry", 3, 3, "") "," DEF_X("heavy_cavalry", "s", 3, 3, ""), NULL, MELEE,
           END),
        MC("heavy cavalry with bonus vs line infantry", NULL, NULL,
           ATT_X("heavy_cavalry", 3, 3, ",\"bonus\":true") "," DEF, NULL, MELEE,
           T("good order", -1), END),
        MC("line infantry vs disorganized infantry: no cavalry term", NULL, NULL,
           ATT "," DEF_X("line_infantry", "s", 3, 3, ",\"state\":\"disorganized\""), NULL, MELEE,
           T("defender disorganized", 1), END),
        /* disorganisation */
        MC("attacker disorganized", NULL, NULL,
           ATT_X("line_infantry", 3, 3, ",\"state\":\"disorganized\"") "," DEF, NULL, MELEE,
           T("attacker disorganized", -1), END),
        /* the defender's terrain */
        MC("woods", H("1205", "{\"terrain\": \"woods\"}"), NULL, ATT "," DEF, NULL, MELEE,
           T("woods", -1), END),
        MC("village", H("1205", "{\"terrain\": \"village\"}"), NULL, ATT "," DEF, NULL, MELEE,
           T("village", -1), END),
        MC("sunken road", NULL, SIDE("1205", "1206", "[\"sunken_road\"]"), ATT "," DEF, NULL, MELEE,
           T("sunken", -1), END),
        MC("a plain road: terrain of the hex", NULL, SIDE("1205", "1206", "[\"road\"]"),
           ATT "," DEF, NULL, MELEE, END),
        MC("stream", NULL, SIDE("1205", "1206", "[\"stream\"]"), ATT "," DEF, NULL, MELEE,
           T("stream", -1), END),
        MC("bridge", NULL, SIDE("1205", "1206", "[\"stream\", \"bridge\", \"road\"]"), ATT "," DEF,
           NULL, MELEE, T("bridge", -2), END),
        MC("slope", NULL, SIDE("1205", "1206", "[\"slope\"]"), ATT "," DEF, NULL, MELEE,
           T("slope", -2), END),
        MC("a stream on another hexside does not count", NULL, SIDE("1205", "1204", "[\"stream\"]"),
           ATT "," DEF, NULL, MELEE, END),
        MC("climbing one level", H("1205", "{\"terrain\": \"clear\", \"level\": 1}"), NULL,
           ATT "," DEF, NULL, MELEE, T("climbing one", -1), END),
        MC("climbing two levels", H("1205", "{\"terrain\": \"clear\", \"level\": 2}"), NULL,
           ATT "," DEF, NULL, MELEE, T("climbing two", -2), END),
        MC("going down one level", H("1206", "{\"terrain\": \"clear\", \"level\": 1}"), NULL,
           ATT "," DEF, NULL, MELEE, T("going down", 1), END),
        MC("going down two levels", H("1206", "{\"terrain\": \"clear\", \"level\": 2}"), NULL,
           ATT "," DEF, NULL, MELEE, T("going down", 1), END),
        /* light units */
        MC("all attackers light", NULL, NULL, ATT_X("light_infantry", 3, 3, "") "," DEF, NULL,
           MELEE, T("attackers light", -1), END),
        MC("all attackers light (light cavalry)", NULL, NULL,
           ATT_X("light_cavalry", 3, 3, "") "," DEF, NULL, MELEE, T("attackers light", -1), END),
        MC("all defenders light in clear", NULL, NULL,
           ATT "," DEF_X("light_infantry", "s", 3, 3, ""), NULL, MELEE, T("defenders light", 1),
           END),
        MC("light defenders in woods: not in clear", H("1205", "{\"terrain\": \"woods\"}"), NULL,
           ATT "," DEF_X("light_infantry", "s", 3, 3, ""), NULL, MELEE, T("woods", -1), END),
        MC("light against light", NULL, NULL,
           ATT_X("light_infantry", 3, 3, "") "," DEF_X("light_cavalry", "s", 3, 3, ""), NULL, MELEE,
           T("attackers light", -1), T("defenders light", 1), END),
        /* miscellaneous */
        /* a1 stacked with a3 at 1206, in d1's ZoC (1206 is a front hex of d1 facing s) */
        MC("change of order in an enemy ZoC", NULL, NULL,
           ATT "," U("a3", "a", "line_infantry", "1206", "n", 3, 3, "") "," DEF, NULL,
           "{\"type\": \"melee\", \"defender\": \"1205\", \"changed_order\": true}",
           T("change", -2), END),
        MC("commander present", NULL, NULL,
           ATT_X("line_infantry", 3, 3, ",\"commander\":\"Broglie\"") "," DEF, NULL, MELEE,
           T("commander", 1), END),
        MC("attacker's formation demoralized", NULL, NULL,
           ATT_X("line_infantry", 3, 3, ",\"formation\":\"fa\"") "," DEF,
           "[{\"id\": \"fa\", \"demoralized\": true}]", MELEE, T("demoralized", -1), END),
        MC("defender's formation demoralized", NULL, NULL,
           ATT "," DEF_X("line_infantry", "s", 3, 3, ",\"formation\":\"fb\""),
           "[{\"id\": \"fb\", \"demoralized\": true}]", MELEE, T("demoralized", 1), END),
        MC("formation not demoralized", NULL, NULL,
           ATT_X("line_infantry", 3, 3, ",\"formation\":\"fa\"") "," DEF,
           "[{\"id\": \"fa\", \"demoralized\": false}]", MELEE, END),
        MC("defender in march column", NULL, NULL,
           ATT "," DEF_X("line_infantry", "s", 3, 3, ",\"state\":\"march_column\""), NULL, MELEE,
           T("march column", 2), END),
    };
    run_melee_cases(cases, sizeof cases / sizeof cases[0]);
}

static void melee_combination_flank_woods_stream_commander(void **state) {
    (void)state;
    /* a1 5 strength, morale 4, with a commander, from d1's flank across a stream into woods;
     * d1 3 strength, morale 3, disorganized. */
    json_t *st =
        mkstate(H("1205", "{\"terrain\": \"woods\"}"), SIDE("1206", "1205", "[\"stream\"]"),
                "[" ATT_X("line_infantry", 5, 4, ",\"commander\":\"Broglie\"") "," DEF_X(
                    "line_infantry", "ne", 3, 3, ",\"state\":\"disorganized\"") "]",
                NULL);
    const int64_t dice[] = {5};
    outcome o = act(st, "a1", MELEE, dice, 1);
    expect_ok_dice(&o, "combination 1");
    const term terms[] = {
        {"3:2", 1},    {"morale", 1},  {"flank", 2},     {"defender disorganized", 1},
        {"woods", -1}, {"stream", -1}, {"commander", 1}, {NULL, 0}};
    expect_terms(&o, terms, "combination 1");
    /* 5 + 4 = 9: defender 2D-R2*, attacker - */
    assert_int_equal(iget(o.out.result, "adjusted"), 9);
    assert_int_equal(iget(o.out.result, "row"), 9);
    assert_string_equal(sget(o.out.result, "ratio"), "3:2");
    assert_string_equal(sget(json_object_get(o.out.result, "defender_result"), "result"), "2D-R2*");
    assert_string_equal(sget(json_object_get(o.out.result, "attacker_result"), "result"), "-");
    assert_non_null(strstr(o.out.summary, "2D-R2*"));
    assert_non_null(strstr(o.out.summary, "= 9"));
    expect_unit(o.out.new_state, "d1", "1205", "disorganized", 1, "combination 1");
    expect_unit(o.out.new_state, "a1", "1206", "good", 5, "combination 1");
    const json_t *p = pending_of(o.out.new_state);
    assert_int_equal(json_array_size(p), 1);
    assert_string_equal(sget(json_array_get(p, 0), "unit"), "d1");
    assert_int_equal(iget(json_array_get(p, 0), "hexes"), 2);
    outcome_clear(&o);
    json_decref(st);
}

/* a1 heavy cavalry with its bonus (4, morale 4, formation fa demoralized) at 1206 and a2 light
 * cavalry (2, morale 3) at 1106 facing ne, against d1 heavy cavalry (3, morale 4) at 1205 facing
 * n: a1 is in its rear, a2 on its flank; the attacking stack changed order in an enemy ZoC: a1 is
 * stacked with a3 (which does not attack) and e1 at 1207 facing n has 1206 in its ZoC. */
#define COMBO2_A1                                                                                  \
    U("a1", "a", "heavy_cavalry", "1206", "n", 4, 4, ",\"bonus\":true,\"formation\":\"fa\"")
#define COMBO2_A2    U("a2", "a", "light_cavalry", "1106", "ne", 2, 3, "")
#define COMBO2_D1    U("d1", "b", "heavy_cavalry", "1205", "n", 3, 4, "")
#define COMBO2_A3    U("a3", "a", "line_infantry", "1206", "n", 3, 3, "")
#define COMBO2_E1    U("e1", "b", "line_infantry", "1207", "n", 3, 3, "")
#define COMBO2_UNITS "[" COMBO2_A1 "," COMBO2_A2 "," COMBO2_D1 "," COMBO2_A3 "," COMBO2_E1 "]"
#define COMBO2_ACTION                                                                              \
    "{\"type\": \"melee\", \"defender\": \"1205\", \"attackers\": [\"a2\"], \"changed_order\": "   \
    "true}"

static void melee_combination_two_attackers(void **state) {
    (void)state;
    json_t *st = mkstate(NULL, NULL, COMBO2_UNITS, "[{\"id\": \"fa\", \"demoralized\": true}]");
    /* 6 vs 3 = 2:1 +2, rear +3, bonus vs cavalry +1, demoralized -1, change of order -2 = +3;
     * roll 1 -> 4: attacker TM, defender TM+1. Tests: d1 3+1 <= 4 passes; a1 5 > 4 fails
     * (disorganized by combat); a2 3 <= 3 passes. */
    const int64_t dice[] = {1, 3, 5, 3};
    outcome o = act(st, "a1", COMBO2_ACTION, dice, 4);
    expect_ok_dice(&o, "combination 2");
    const term terms[] = {{"2:1", 2},          {"rear", 3},    {"bonus", 1},
                          {"demoralized", -1}, {"change", -2}, {NULL, 0}};
    expect_terms(&o, terms, "combination 2");
    assert_int_equal(iget(o.out.result, "attack_strength"), 6);
    assert_int_equal(iget(o.out.result, "defence_strength"), 3);
    assert_int_equal(iget(o.out.result, "adjusted"), 4);
    const json_t *ar = json_object_get(o.out.result, "attacker_result"),
                 *dr = json_object_get(o.out.result, "defender_result");
    assert_string_equal(sget(ar, "result"), "TM");
    assert_string_equal(sget(dr, "result"), "TM+1");
    assert_int_equal(json_array_size(json_object_get(ar, "tests")), 2);
    assert_int_equal(json_array_size(json_object_get(dr, "tests")), 1);
    expect_unit(o.out.new_state, "d1", "1205", "good", 3, "combination 2");
    expect_unit(o.out.new_state, "a1", "1206", "disorganized", 4, "combination 2");
    expect_unit(o.out.new_state, "a2", "1106", "good", 2, "combination 2");
    assert_true(
        json_is_true(json_object_get(unit_in(o.out.new_state, "a1"), "disorganized_by_combat")));
    assert_int_equal(json_array_size(pending_of(o.out.new_state)), 0);
    outcome_clear(&o);
    json_decref(st);
}

static void melee_results(void **state) {
    (void)state;
    /* The starred rule: c1 cavalry already disorganized by combat is eliminated by 2D-R2*; c2
     * then takes the two steps. 12 vs 6 = 2:1 +2, defender disorganized +1, all defenders light
     * in clear +1 = +4; roll 5 -> 9. */
    {
        json_t *st = mkstate(NULL, NULL,
                             "[" ATT_X("line_infantry", 12, 3, "") "," U(
                                 "c1", "b", "light_cavalry", "1205", "s", 3, 3,
                                 ",\"state\":\"disorganized\"") "," U("c2", "b", "light_cavalry",
                                                                      "1205", "s", 3, 3, "") "]",
                             NULL);
        patch_unit(st, "c1", "disorganized_by_combat", json_true());
        const int64_t dice[] = {5};
        outcome o = act(st, "a1", MELEE, dice, 1);
        expect_ok_dice(&o, "starred rule");
        assert_int_equal(iget(o.out.result, "adjusted"), 9);
        assert_string_equal(sget(json_object_get(o.out.result, "defender_result"), "result"),
                            "2D-R2*");
        expect_unit(o.out.new_state, "c1", NULL, "eliminated", 0, "starred rule");
        expect_unit(o.out.new_state, "c2", "1205", "disorganized", 1, "starred rule");
        const json_t *p = pending_of(o.out.new_state);
        assert_int_equal(json_array_size(p), 1);
        assert_string_equal(sget(json_array_get(p, 0), "unit"), "c2");
        assert_int_equal(iget(json_array_get(p, 0), "hexes"), 2);
        outcome_clear(&o);
        /* the same stack, c1 disorganized but not by combat: not eliminated, takes the steps */
        patch_unit(st, "c1", "disorganized_by_combat", json_false());
        o = act(st, "a1", MELEE, dice, 1);
        expect_ok_dice(&o, "starred rule, not by combat");
        expect_unit(o.out.new_state, "c1", "1205", "disorganized", 1, "not by combat");
        expect_unit(o.out.new_state, "c2", "1205", "disorganized", 3, "not by combat");
        assert_int_equal(json_array_size(pending_of(o.out.new_state)), 2);
        outcome_clear(&o);
        json_decref(st);
    }
    /* The starred rule on infantry: no effect beyond the steps. */
    {
        json_t *st = mkstate(NULL, NULL,
                             "[" ATT_X("line_infantry", 12, 3, "") "," DEF_X(
                                 "line_infantry", "s", 6, 3, ",\"state\":\"disorganized\"") "]",
                             NULL);
        patch_unit(st, "d1", "disorganized_by_combat", json_true());
        /* 12 vs 6 +2, defender disorganized +1; roll 6 -> 9 */
        const int64_t dice[] = {6};
        outcome o = act(st, "a1", MELEE, dice, 1);
        expect_ok_dice(&o, "starred rule, infantry");
        expect_unit(o.out.new_state, "d1", "1205", "disorganized", 4, "starred rule, infantry");
        outcome_clear(&o);
        json_decref(st);
    }
    /* The attacker's starred row: -3 and less, 2D-R2*; a1 light cavalry disorganized by combat
     * is eliminated. 1 vs 3 -3, attacker disorganized -1, all attackers light -1; roll 1 -> -4. */
    {
        json_t *st = mkstate(
            NULL, NULL, "[" ATT_X("light_cavalry", 1, 3, ",\"state\":\"disorganized\"") "," DEF "]",
            NULL);
        patch_unit(st, "a1", "disorganized_by_combat", json_true());
        const int64_t dice[] = {1};
        outcome o = act(st, "a1", MELEE, dice, 1);
        expect_ok_dice(&o, "attacker starred");
        assert_int_equal(iget(o.out.result, "adjusted"), -4);
        assert_int_equal(iget(o.out.result, "row"), -3);
        assert_string_equal(sget(json_object_get(o.out.result, "attacker_result"), "result"),
                            "2D-R2*");
        expect_unit(o.out.new_state, "a1", NULL, "eliminated", 0, "attacker starred");
        expect_unit(o.out.new_state, "d1", "1205", "good", 3, "attacker starred");
        assert_int_equal(json_array_size(pending_of(o.out.new_state)), 0);
        outcome_clear(&o);
        json_decref(st);
    }
    /* E: the whole defending stack is eliminated. 12 vs 2 = 6:1 +6; roll 5 -> 11. */
    {
        json_t *st = mkstate(
            NULL, NULL,
            "[" ATT_X("line_infantry", 12, 3, "") "," DEF_X("line_infantry", "s", 1, 3, "") "," U(
                "d2", "b", "line_infantry", "1205", "s", 1, 3, "") "]",
            NULL);
        const int64_t dice[] = {5};
        outcome o = act(st, "a1", MELEE, dice, 1);
        expect_ok_dice(&o, "E");
        assert_int_equal(iget(o.out.result, "adjusted"), 11);
        assert_string_equal(sget(json_object_get(o.out.result, "defender_result"), "result"), "E");
        expect_unit(o.out.new_state, "d1", NULL, "eliminated", 0, "E");
        expect_unit(o.out.new_state, "d2", NULL, "eliminated", 0, "E");
        expect_unit(o.out.new_state, "a1", "1206", "good", 12, "E");
        assert_int_equal(json_array_size(pending_of(o.out.new_state)), 0);
        outcome_clear(&o);
        json_decref(st);
    }
    /* Step losses unit by unit: 3D-R2* on d1 (2) and d2 (3): d1 loses both its steps, d2 one.
     * 20 vs 5 = 4:1 +4; roll 6 -> 10. */
    {
        json_t *st = mkstate(
            NULL, NULL,
            "[" ATT_X("line_infantry", 20, 3, "") "," DEF_X("line_infantry", "s", 2, 3, "") "," U(
                "d2", "b", "line_infantry", "1205", "s", 3, 3, "") "]",
            NULL);
        const int64_t dice[] = {6};
        outcome o = act(st, "a1", MELEE, dice, 1);
        expect_ok_dice(&o, "3D-R2*");
        assert_int_equal(iget(o.out.result, "adjusted"), 10);
        const json_t *dr = json_object_get(o.out.result, "defender_result");
        assert_string_equal(sget(dr, "result"), "3D-R2*");
        assert_int_equal(iget(dr, "steps_lost"), 3);
        expect_unit(o.out.new_state, "d1", NULL, "eliminated", 0, "3D-R2*");
        expect_unit(o.out.new_state, "d2", "1205", "disorganized", 2, "3D-R2*");
        const json_t *p = pending_of(o.out.new_state);
        assert_int_equal(json_array_size(p), 1);
        assert_string_equal(sget(json_array_get(p, 0), "unit"), "d2");
        assert_int_equal(iget(json_array_get(p, 0), "hexes"), 2);
        outcome_clear(&o);
        json_decref(st);
    }
    /* 1-TM+2-R1 (row 7): 3 vs 3 +0... with attacker morale 5 (+2) roll 5 -> 7. d1 loses a step,
     * tests TM+2 (1+2 <= 3 passes) and must retreat 1. Attacker: -. */
    {
        json_t *st = mkstate(NULL, NULL, "[" ATT_X("line_infantry", 3, 5, "") "," DEF "]", NULL);
        const int64_t dice[] = {5, 1};
        outcome o = act(st, "a1", MELEE, dice, 2);
        expect_ok_dice(&o, "row 7");
        assert_int_equal(iget(o.out.result, "adjusted"), 7);
        assert_string_equal(sget(json_object_get(o.out.result, "defender_result"), "result"),
                            "1-TM+2-R1");
        expect_unit(o.out.new_state, "d1", "1205", "good", 2, "row 7");
        const json_t *p = pending_of(o.out.new_state);
        assert_int_equal(json_array_size(p), 1);
        assert_int_equal(iget(json_array_get(p, 0), "hexes"), 1);
        outcome_clear(&o);
        /* the same with a failed test (2+2 > 3): disorganized */
        const int64_t dice2[] = {5, 2};
        o = act(st, "a1", MELEE, dice2, 2);
        expect_ok_dice(&o, "row 7, failed");
        expect_unit(o.out.new_state, "d1", "1205", "disorganized", 2, "row 7, failed");
        outcome_clear(&o);
        json_decref(st);
    }
    /* The attacker's -1 row: 1-TM+2-R1 on the attacker, retreat away from the defender's hex.
     * 2 vs 6 = 1:3 -3, roll 2 -> -1; a1 loses a step (1 left), tests TM+2 (1+2 <= 3) and must
     * retreat 1 hex away from 1205. */
    {
        json_t *st = mkstate(
            NULL, NULL,
            "[" ATT_X("line_infantry", 2, 3, "") "," DEF_X("line_infantry", "s", 6, 3, "") "]",
            NULL);
        const int64_t dice[] = {2, 1};
        outcome o = act(st, "a1", MELEE, dice, 2);
        expect_ok_dice(&o, "attacker row -1");
        assert_int_equal(iget(o.out.result, "adjusted"), -1);
        assert_string_equal(sget(json_object_get(o.out.result, "attacker_result"), "result"),
                            "1-TM+2-R1");
        assert_string_equal(sget(json_object_get(o.out.result, "defender_result"), "result"), "-");
        expect_unit(o.out.new_state, "a1", "1206", "good", 1, "attacker row -1");
        expect_unit(o.out.new_state, "d1", "1205", "good", 6, "attacker row -1");
        const json_t *p = pending_of(o.out.new_state);
        assert_int_equal(json_array_size(p), 1);
        assert_string_equal(sget(json_array_get(p, 0), "unit"), "a1");
        assert_string_equal(sget(json_array_get(p, 0), "side"), "a");
        assert_int_equal(iget(json_array_get(p, 0), "hexes"), 1);
        const json_t *away = json_object_get(json_array_get(p, 0), "away_from");
        assert_string_equal(json_string_value(json_array_get(away, 0)), "1205");
        /* a1 retreats south: 1207 is 2 from 1205 */
        outcome r =
            act(o.out.new_state, "a1", "{\"type\": \"retreat\", \"path\": [\"1207\"]}", NULL, 0);
        expect_ok_dice(&r, "attacker retreats");
        expect_unit(r.out.new_state, "a1", "1207", "good", 1, "attacker retreats");
        outcome_clear(&r);
        outcome_clear(&o);
        json_decref(st);
    }
}

static void melee_refused(void **state) {
    (void)state;
    static const struct {
        const char *label, *units, *action, *field;
    } cases[] = {
        {"not adjacent", "[" U("a1", "a", "line_infantry", "1207", "n", 3, 3, "") "," DEF "]",
         MELEE, "unit"},
        {"the defender not in front",
         "[" U("a1", "a", "line_infantry", "1206", "s", 3, 3, "") "," DEF "]", MELEE, "unit"},
        {"artillery does not assault",
         "[" U("a1", "a", "artillery", "1206", "n", 1, 3, ",\"calibre\":6") "," DEF "]", MELEE,
         "unit"},
        {"a routed unit does not assault",
         "[" ATT_X("line_infantry", 3, 3, ",\"state\":\"routed\"") "," DEF "]", MELEE, "unit"},
        {"an empty hex", "[" ATT "," DEF "]", "{\"type\": \"melee\", \"defender\": \"1106\"}",
         "defender"},
        {"a friendly hex",
         "[" ATT "," DEF "," U("f", "a", "line_infantry", "1306", "n", 3, 3, "") "]",
         "{\"type\": \"melee\", \"defender\": \"1306\"}", "defender"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = mkstate(NULL, NULL, cases[i].units, NULL);
        const int64_t dice[] = {3};
        outcome o = act(st, "a1", cases[i].action, dice, 1);
        expect_error(&o, 422, "rules_violation", cases[i].field, cases[i].label);
        outcome_clear(&o);
        json_decref(st);
    }
}

/* ---- 6. retreats ----------------------------------------------------------------------------- */

#define RETREAT_UNITS "[" ATT "," DEF "]"
#define PENDING(h)                                                                                 \
    "[{\"kind\": \"retreat\", \"unit\": \"d1\", \"side\": \"b\", \"hexes\": " #h                   \
    ", \"away_from\": [\"1206\"]}]"

static void retreat_paths(void **state) {
    (void)state;
    /* d1 at 1205 must retreat away from a1 at 1206: R1 ends 2 hexes from 1206 (1204, 1305 or
     * 1105); 1306 and 1106 are still adjacent to 1206. */
    static const struct {
        const char *label, *units, *pending, *path;
        int status;
        const char *field, *to;
    } cases[] = {
        {"R1 north", RETREAT_UNITS, PENDING(1), "[\"1204\"]", 0, NULL, "1204"},
        {"R1 north-east", RETREAT_UNITS, PENDING(1), "[\"1305\"]", 0, NULL, "1305"},
        {"R1 north-west", RETREAT_UNITS, PENDING(1), "[\"1105\"]", 0, NULL, "1105"},
        {"R1 sideways: not away", RETREAT_UNITS, PENDING(1), "[\"1306\"]", 422, "path[0]", NULL},
        {"R1 too long", RETREAT_UNITS, PENDING(1), "[\"1204\", \"1203\"]", 422, "path", NULL},
        {"R1 not adjacent", RETREAT_UNITS, PENDING(1), "[\"1203\"]", 422, "path[0]", NULL},
        {"R1 into an enemy hex",
         "[" ATT "," DEF "," U("e", "a", "line_infantry", "1105", "s", 3, 3, "") "]", PENDING(1),
         "[\"1105\"]", 422, "path[0]", NULL},
        /* e at 1203 facing s: ZoC on 1204, 1304 and 1104 */
        {"R1 into an enemy ZoC",
         "[" ATT "," DEF "," U("e", "a", "line_infantry", "1203", "s", 3, 3, "") "]", PENDING(1),
         "[\"1204\"]", 422, "path[0]", NULL},
        {"R1 beside that enemy but out of its ZoC",
         "[" ATT "," DEF "," U("e", "a", "line_infantry", "1203", "s", 3, 3, "") "]", PENDING(1),
         "[\"1305\"]", 0, NULL, "1305"},
        {"R1 into a friend's hex",
         "[" ATT "," DEF "," U("f", "b", "line_infantry", "1204", "s", 3, 3, "") "]", PENDING(1),
         "[\"1204\"]", 0, NULL, "1204"},
        {"R1 heavy cavalry into woods", "[" ATT "," DEF_X("heavy_cavalry", "s", 3, 3, "") "]",
         PENDING(1), "[\"1204\"]", 422, "path[0]", NULL},
        {"R1 heavy cavalry beside the woods", "[" ATT "," DEF_X("heavy_cavalry", "s", 3, 3, "") "]",
         PENDING(1), "[\"1305\"]", 0, NULL, "1305"},
        {"R2", RETREAT_UNITS, PENDING(2), "[\"1204\", \"1203\"]", 0, NULL, "1203"},
        {"R2 north-east then north", RETREAT_UNITS, PENDING(2), "[\"1305\", \"1304\"]", 0, NULL,
         "1304"},
        {"R2 too short", RETREAT_UNITS, PENDING(2), "[\"1204\"]", 422, "path", NULL},
        {"R2, the second step not farther", RETREAT_UNITS, PENDING(2), "[\"1204\", \"1305\"]", 422,
         "path[1]", NULL},
        {"R2, back towards the enemy", RETREAT_UNITS, PENDING(2), "[\"1204\", \"1205\"]", 422,
         "path[1]", NULL},
        {"R1 empty path while one exists", RETREAT_UNITS, PENDING(1), "[]", 422, "path", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* woods at 1204: open to infantry, forbidden to heavy cavalry */
        json_t *st =
            with_pending(mkstate(H("1204", "{\"terrain\": \"woods\"}"), NULL, cases[i].units, NULL),
                         cases[i].pending);
        char action[256];
        snprintf(action, sizeof action, "{\"type\": \"retreat\", \"path\": %s}", cases[i].path);
        outcome o = act(st, "d1", action, NULL, 0);
        if (cases[i].status) {
            expect_error(&o, cases[i].status, "rules_violation", cases[i].field, cases[i].label);
        } else {
            expect_ok_dice(&o, cases[i].label);
            expect_unit(o.out.new_state, "d1", cases[i].to, "good", 3, cases[i].label);
            assert_int_equal(json_array_size(pending_of(o.out.new_state)), 0);
            /* exactly N hexes farther from the enemy */
            hex_grid g;
            hex_map_grid(json_object_get(st, "map"), &g);
            hex from, to, enemy;
            assert_true(hex_parse("1205", &from));
            assert_true(hex_parse(cases[i].to, &to));
            assert_true(hex_parse("1206", &enemy));
            assert_int_equal(hex_distance(&g, to, enemy) - hex_distance(&g, from, enemy),
                             iget(json_array_get(pending_of(st), 0), "hexes"));
        }
        outcome_clear(&o);
        json_decref(st);
    }
}

static void retreat_nowhere_eliminates(void **state) {
    (void)state;
    /* d1 at 1201 on the map's top edge, a1 at 1202 south of it; 1301 and 1101 (the only hexes
     * farther from 1202) hold enemies: no retreat path, the unit is eliminated. */
    json_t *st = with_pending(
        mkstate(NULL, NULL,
                "[" U("a1", "a", "line_infantry", "1202", "n", 3, 3, "") "," U(
                    "d1", "b", "line_infantry", "1201", "s", 3, 3,
                    "") "," U("e1", "a", "line_infantry", "1301", "n", 3, 3,
                              "") "," U("e2", "a", "line_infantry", "1101", "n", 3, 3, "") "]",
                NULL),
        "[{\"kind\": \"retreat\", \"unit\": \"d1\", \"side\": \"b\", \"hexes\": 1, "
        "\"away_from\": [\"1202\"]}]");
    outcome o = act(st, "d1", "{\"type\": \"retreat\", \"path\": [\"1301\"]}", NULL, 0);
    expect_error(&o, 422, "rules_violation", "path[0]", "into an enemy at the edge");
    outcome_clear(&o);
    o = act(st, "d1", "{\"type\": \"retreat\", \"path\": [\"1302\"]}", NULL, 0);
    expect_error(&o, 422, "rules_violation", "path[0]", "sideways at the edge");
    outcome_clear(&o);
    o = act(st, "d1", "{\"type\": \"retreat\", \"path\": []}", NULL, 0);
    expect_ok_dice(&o, "nowhere to go");
    assert_true(json_is_true(json_object_get(o.out.result, "eliminated")));
    expect_unit(o.out.new_state, "d1", NULL, "eliminated", 0, "nowhere to go");
    assert_int_equal(json_array_size(pending_of(o.out.new_state)), 0);
    outcome_clear(&o);
    json_decref(st);

    /* the same with a path open through 1301: the empty path is refused */
    st = with_pending(mkstate(NULL, NULL,
                              "[" U("a1", "a", "line_infantry", "1202", "n", 3, 3, "") "," U(
                                  "d1", "b", "line_infantry", "1201", "s", 3, 3,
                                  "") "," U("e2", "a", "line_infantry", "1101", "n", 3, 3, "") "]",
                              NULL),
                      "[{\"kind\": \"retreat\", \"unit\": \"d1\", \"side\": \"b\", \"hexes\": 1, "
                      "\"away_from\": [\"1202\"]}]");
    o = act(st, "d1", "{\"type\": \"retreat\", \"path\": []}", NULL, 0);
    expect_error(&o, 422, "rules_violation", "path", "an open path at the edge");
    outcome_clear(&o);
    json_decref(st);
}

/* Two pending retreats: each unit its own, the others wait. */
static void retreat_two_pending(void **state) {
    (void)state;
    json_t *st = mkstate(
        NULL, NULL,
        "[" ATT_X("line_infantry", 20, 3, "") "," DEF_X("line_infantry", "s", 3, 3, "") "," U(
            "d2", "b", "line_infantry", "1205", "s", 3, 3, "") "]",
        NULL);
    /* 20 vs 6 = 3:1 +3; roll 5 -> 8: 1D-R1 on the stack: d1 loses the step, both D, both R1 */
    const int64_t dice[] = {5};
    outcome o = act(st, "a1", MELEE, dice, 1);
    expect_ok_dice(&o, "1D-R1 on a stack");
    assert_string_equal(sget(json_object_get(o.out.result, "defender_result"), "result"), "1D-R1");
    expect_unit(o.out.new_state, "d1", "1205", "disorganized", 2, "1D-R1 on a stack");
    expect_unit(o.out.new_state, "d2", "1205", "disorganized", 3, "1D-R1 on a stack");
    assert_int_equal(json_array_size(pending_of(o.out.new_state)), 2);
    outcome r1 =
        act(o.out.new_state, "d2", "{\"type\": \"retreat\", \"path\": [\"1105\"]}", NULL, 0);
    expect_ok_dice(&r1, "d2 retreats");
    assert_int_equal(json_array_size(pending_of(r1.out.new_state)), 1);
    outcome m = act(r1.out.new_state, "a1", "{\"type\": \"move\", \"path\": [{\"face\": \"ne\"}]}",
                    NULL, 0);
    expect_error(&m, 409, "retreat_pending", NULL, "one retreat still pending");
    outcome_clear(&m);
    outcome r2 =
        act(r1.out.new_state, "d1", "{\"type\": \"retreat\", \"path\": [\"1305\"]}", NULL, 0);
    expect_ok_dice(&r2, "d1 retreats");
    assert_int_equal(json_array_size(pending_of(r2.out.new_state)), 0);
    expect_unit(r2.out.new_state, "d1", "1305", "disorganized", 2, "d1 retreats");
    expect_unit(r2.out.new_state, "d2", "1105", "disorganized", 3, "d1 retreats");
    outcome_clear(&r2);
    outcome_clear(&r1);
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 7. morale and rally ----------------------------------------------------------------------
 */

static void morale_test_boundaries(void **state) {
    (void)state;
    /* house default: 1d6 + modifier <= morale passes; a failure costs one grade */
    static const struct {
        const char *label, *extra;
        int morale, modifier;
        int64_t roll;
        bool passed;
        const char *after;
        long strength;
    } cases[] = {
        {"TM 3 <= 3", "", 3, 0, 3, true, "good", 3},
        {"TM 4 > 3", "", 3, 0, 4, false, "disorganized", 3},
        {"TM+1 2+1 <= 3", "", 3, 1, 2, true, "good", 3},
        {"TM+1 3+1 > 3", "", 3, 1, 3, false, "disorganized", 3},
        {"TM+2 1+2 <= 3", "", 3, 2, 1, true, "good", 3},
        {"TM+2 2+2 > 3", "", 3, 2, 2, false, "disorganized", 3},
        {"TM-1 4-1 <= 3", "", 3, -1, 4, true, "good", 3},
        {"TM-1 5-1 > 3", "", 3, -1, 5, false, "disorganized", 3},
        {"morale 6: 6 passes", "", 6, 0, 6, true, "good", 3},
        {"morale 1: 2 fails", "", 1, 0, 2, false, "disorganized", 3},
        {"disorganized fails: routed", ",\"state\":\"disorganized\"", 3, 0, 4, false, "routed", 3},
        {"disorganized passes", ",\"state\":\"disorganized\"", 3, 0, 3, true, "disorganized", 3},
        {"routed fails: a step", ",\"state\":\"routed\"", 3, 0, 4, false, "routed", 2},
        {"march column fails: disorganized", ",\"state\":\"march_column\"", 3, 0, 4, false,
         "disorganized", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[512], action[128];
        snprintf(units, sizeof units,
                 "[{\"id\":\"m\",\"side\":\"a\",\"type\":\"line_infantry\",\"hex\":\"1208\","
                 "\"facing\":\"n\",\"strength\":3,\"morale\":%d%s}]",
                 cases[i].morale, cases[i].extra);
        json_t *st = mkstate(NULL, NULL, units, NULL);
        snprintf(action, sizeof action, "{\"type\": \"morale\", \"modifier\": %d}",
                 cases[i].modifier);
        outcome o = act(st, "m", action, &cases[i].roll, 1);
        expect_ok_dice(&o, cases[i].label);
        const json_t *t = json_object_get(o.out.result, "test");
        if (json_is_true(json_object_get(t, "passed")) != cases[i].passed)
            fail_msg("%s: passed %d, expected %d (%s)", cases[i].label,
                     json_is_true(json_object_get(t, "passed")), cases[i].passed, o.out.summary);
        assert_string_equal(sget(t, "after"), cases[i].after);
        expect_unit(o.out.new_state, "m", "1208", cases[i].after, cases[i].strength,
                    cases[i].label);
        assert_non_null(strstr(o.out.summary, "house default"));
        outcome_clear(&o);
        json_decref(st);
    }
    /* routed with its last step: eliminated */
    json_t *st = mkstate(
        NULL, NULL,
        "[" U("m", "a", "line_infantry", "1208", "n", 1, 3, ",\"state\":\"routed\"") "]", NULL);
    const int64_t six[] = {6};
    outcome o = act(st, "m", "{\"type\": \"morale\"}", six, 1);
    expect_ok_dice(&o, "routed, last step");
    expect_unit(o.out.new_state, "m", NULL, "eliminated", 0, "routed, last step");
    outcome_clear(&o);
    json_decref(st);
    /* options.morale_dice 2: 2d6 */
    st = mkstate(NULL, NULL, "[" U("m", "a", "line_infantry", "1208", "n", 3, 5, "") "]", NULL);
    const int64_t pass[] = {2, 3}, fail[] = {3, 3};
    o = act_as(st, "{\"morale_dice\": 2}", "referee", "m", "{\"type\": \"morale\"}", pass, 2);
    expect_ok_dice(&o, "2d6 5 <= 5");
    expect_unit(o.out.new_state, "m", NULL, "good", 3, "2d6 5 <= 5");
    outcome_clear(&o);
    o = act_as(st, "{\"morale_dice\": 2}", "referee", "m", "{\"type\": \"morale\"}", fail, 2);
    expect_ok_dice(&o, "2d6 6 > 5");
    expect_unit(o.out.new_state, "m", NULL, "disorganized", 3, "2d6 6 > 5");
    outcome_clear(&o);
    json_decref(st);
}

#define RALLY_TEST(label, sides, units, die, after)                                                \
    { label, sides, units, {die}, 1, after, true }
#define RALLY_FREE(label, sides, units, after)                                                     \
    { label, sides, units, {0}, 0, after, false }

static void rally_procedures(void **state) {
    (void)state;
    /* the enemy e at 1207 facing s exerts a ZoC into 1208 */
#define RALLY_ENEMY U("e", "b", "line_infantry", "1207", "s", 3, 3, "")
    static const struct {
        const char *label, *sides, *units;
        int64_t dice[1];
        size_t ndice;
        const char *after;
        bool tested;
    } cases[] = {
        RALLY_TEST("12.5 routed passes", NULL,
                   "[" U("r", "a", "line_infantry", "1208", "n", 3, 3, ",\"state\":\"routed\"") "]",
                   3, "disorganized"),
        RALLY_TEST("12.5 routed fails", NULL,
                   "[" U("r", "a", "line_infantry", "1208", "n", 3, 3, ",\"state\":\"routed\"") "]",
                   4, "routed"),
        RALLY_TEST("12.2 disorganized in enemy ZoC passes", NULL,
                   "[" U("r", "a", "line_infantry", "1208", "n", 3, 3,
                         ",\"state\":\"disorganized\"") "," RALLY_ENEMY "]",
                   3, "good"),
        RALLY_TEST("12.2 disorganized in enemy ZoC fails", NULL,
                   "[" U("r", "a", "line_infantry", "1208", "n", 3, 3,
                         ",\"state\":\"disorganized\"") "," RALLY_ENEMY "]",
                   4, "disorganized"),
        RALLY_FREE(
            "12.2 disorganized outside enemy ZoC: no test", NULL,
            "[" U("r", "a", "line_infantry", "1208", "n", 3, 3, ",\"state\":\"disorganized\"") "]",
            "good"),
        RALLY_FREE("12.2 the enemy's ZoC blocked by a stream: no test",
                   SIDE("1207", "1208", "[\"stream\"]"),
                   "[" U("r", "a", "line_infantry", "1208", "n", 3, 3,
                         ",\"state\":\"disorganized\"") "," RALLY_ENEMY "]",
                   "good"),
        RALLY_FREE("12.2 beside an enemy facing away: no test", NULL,
                   "[" U("r", "a", "line_infantry", "1208", "n", 3, 3,
                         ",\"state\":\"disorganized\"") "," U("e", "b", "line_infantry", "1207",
                                                              "n", 3, 3, "") "]",
                   "good"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = mkstate(NULL, cases[i].sides, cases[i].units, NULL);
        outcome o = act(st, "r", "{\"type\": \"rally\"}", cases[i].dice, cases[i].ndice);
        expect_ok_dice(&o, cases[i].label);
        assert_string_equal(sget(o.out.result, "after"), cases[i].after);
        expect_unit(o.out.new_state, "r", "1208", cases[i].after, 3, cases[i].label);
        const json_t *t = json_object_get(o.out.result, "test");
        if (cases[i].tested != json_is_object(t))
            fail_msg("%s: tested %d, expected %d", cases[i].label, json_is_object(t),
                     cases[i].tested);
        if (strcmp(cases[i].after, "good") == 0)
            assert_false(json_is_true(
                json_object_get(unit_in(o.out.new_state, "r"), "disorganized_by_combat")));
        outcome_clear(&o);
        json_decref(st);
    }
    /* a unit in good order has nothing to rally */
    json_t *st =
        mkstate(NULL, NULL, "[" U("r", "a", "line_infantry", "1208", "n", 3, 3, "") "]", NULL);
    const int64_t one[] = {1};
    outcome o = act(st, "r", "{\"type\": \"rally\"}", one, 1);
    expect_error(&o, 422, "rules_violation", "unit", "rally in good order");
    outcome_clear(&o);
    json_decref(st);
    /* rallying clears "disorganized by combat" (the starred rule no longer applies) */
    st = mkstate(
        NULL, NULL,
        "[" U("r", "a", "light_cavalry", "1208", "n", 3, 3, ",\"state\":\"disorganized\"") "]",
        NULL);
    patch_unit(st, "r", "disorganized_by_combat", json_true());
    o = act(st, "r", "{\"type\": \"rally\"}", NULL, 0);
    expect_ok_dice(&o, "reorganise");
    assert_false(
        json_is_true(json_object_get(unit_in(o.out.new_state, "r"), "disorganized_by_combat")));
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 8. purity ----------------------------------------------------------------------------- */

static void same_dice_same_answer_state_untouched(void **state) {
    (void)state;
    json_t *st = mkstate(NULL, NULL, COMBO2_UNITS, "[{\"id\": \"fa\", \"demoralized\": true}]");
    char *before = dump(st);
    const int64_t dice[] = {1, 3, 5, 3};
    outcome a = act(st, "a1", COMBO2_ACTION, dice, 4);
    outcome b = act(st, "a1", COMBO2_ACTION, dice, 4);
    expect_ok_dice(&a, "first");
    expect_ok_dice(&b, "second");
    char *ra = dump(a.out.result), *rb = dump(b.out.result);
    char *sa = dump(a.out.new_state), *sb = dump(b.out.new_state);
    assert_string_equal(ra, rb);
    assert_string_equal(sa, sb);
    assert_string_equal(a.out.summary, b.out.summary);
    char *after = dump(st);
    assert_string_equal(before, after);
    /* and the new state is not the old one */
    assert_string_not_equal(before, sa);
    free(ra);
    free(rb);
    free(sa);
    free(sb);
    free(after);
    outcome_clear(&a);
    outcome_clear(&b);

    /* fire and move too */
    json_t *fs = mkstate(NULL, NULL, "[" GUN12("1208", "") "," TARGET_LINE "]", NULL);
    char *fb = dump(fs);
    const int64_t six[] = {6};
    a = act(fs, "g", FIRE, six, 1);
    b = act(fs, "g", FIRE, six, 1);
    expect_ok_dice(&a, "fire 1");
    expect_ok_dice(&b, "fire 2");
    ra = dump(a.out.new_state);
    rb = dump(b.out.new_state);
    assert_string_equal(ra, rb);
    after = dump(fs);
    assert_string_equal(fb, after);
    free(ra);
    free(rb);
    free(after);
    free(fb);
    outcome_clear(&a);
    outcome_clear(&b);
    json_decref(fs);
    free(before);
    json_decref(st);
}

/* ---- setup validation ------------------------------------------------------------------------ */

static void setup_refused(void **state) {
    (void)state;
    static const struct {
        const char *label, *hexes, *units, *field;
    } cases[] = {
        {"heavy cavalry in woods", H("1205", "{\"terrain\": \"woods\"}"),
         "[" DEF_X("heavy_cavalry", "s", 3, 3, "") "]", "setup.units[0]"},
        {"two facings in a stack", NULL,
         "[" DEF "," U("d2", "b", "line_infantry", "1205", "n", 3, 3, "") "]", "setup.units[1]"},
        {"a stack of three", NULL,
         "[" DEF "," U("d2", "b", "line_infantry", "1205", "s", 3, 3,
                       "") "," U("d3", "b", "line_infantry", "1205", "s", 3, 3, "") "]",
         "setup.units[2]"},
        {"enemies in one hex", NULL,
         "[" DEF "," U("a2", "a", "line_infantry", "1205", "s", 3, 3, "") "]", "setup.units[1]"},
        {"off the map", NULL, "[" U("d1", "b", "line_infantry", "2105", "s", 3, 3, "") "]",
         "setup.units[0].hex"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        api_error err = {0};
        json_t *st = try_state(cases[i].hexes, NULL, cases[i].units, NULL, NULL, &err);
        if (st) fail_msg("%s: the setup was accepted", cases[i].label);
        assert_int_equal(err.status, 422);
        const char *f = json_string_value(json_object_get(err.details, "field"));
        if (!f || strcmp(f, cases[i].field) != 0)
            fail_msg("%s: field %s, expected %s (%s)", cases[i].label, f ? f : "(none)",
                     cases[i].field, err.message);
        api_error_clear(&err);
    }
}

/* ---- 9. issue 20: corrections from independent checks ---------------------------------------- */

/* Item 1: a turn in place (a path of changes of facing only) is applied to the state, not only
 * told in the summary; the next turn starts from the new facing. */
static void issue20_turn_in_place_is_applied(void **state) {
    (void)state;
    json_t *st = mkstate(NULL, NULL, "[" MOVER "]", NULL);
    outcome o = act(st, "m", "{\"type\": \"move\", \"path\": [{\"face\": \"sw\"}]}", NULL, 0);
    expect_ok_dice(&o, "turn in place");
    assert_string_equal(sget(o.out.result, "facing"), "sw");
    assert_non_null(strstr(o.out.summary, "turns in 1208 to face sw"));
    const json_t *m = unit_in(o.out.new_state, "m");
    if (strcmp(sget(m, "facing"), "sw") != 0)
        fail_msg("turn in place: the state after still has m facing %s (%s)", sget(m, "facing"),
                 o.out.summary);
    assert_string_equal(sget(m, "hex"), "1208");
    /* from the new state: facing sw again is refused, back to n is a turn (1 MP) */
    outcome again =
        act(o.out.new_state, "m", "{\"type\": \"move\", \"path\": [{\"face\": \"sw\"}]}", NULL, 0);
    expect_error(&again, 422, "rules_violation", "path[0]", "face sw again");
    assert_non_null(strstr(again.err.message, "already faces sw"));
    outcome_clear(&again);
    outcome back =
        act(o.out.new_state, "m", "{\"type\": \"move\", \"path\": [{\"face\": \"n\"}]}", NULL, 0);
    expect_ok_dice(&back, "face back n");
    assert_int_equal(iget(back.out.result, "cost"), 1);
    assert_string_equal(sget(unit_in(back.out.new_state, "m"), "facing"), "n");
    /* sw's front hexes are 1109 (sw), 1209 (s), 1108 (nw): the unit now steps to 1209 */
    outcome step = act(o.out.new_state, "m", "{\"type\": \"move\", \"path\": [\"1209\"]}", NULL, 0);
    expect_ok_dice(&step, "a step into the new front");
    outcome_clear(&step);
    outcome_clear(&back);
    /* two turns in place: the last one stands */
    outcome two =
        act(st, "m", "{\"type\": \"move\", \"path\": [{\"face\": \"ne\"}, {\"face\": \"se\"}]}",
            NULL, 0);
    expect_ok_dice(&two, "two turns in place");
    assert_string_equal(sget(unit_in(two.out.new_state, "m"), "facing"), "se");
    outcome_clear(&two);
    outcome_clear(&o);
    json_decref(st);
}

/* Item 2: TET, Bridge, Observations: "There is a bridge where there is a road". A road (or a
 * sunken road) across a stream is a bridge whether or not the map says `bridge`: combat -2 (not
 * the stream's -1), no ZoC blocked (Bridge: "-" in Block the ZoC), movement as a road. */
static void issue20_road_across_a_stream_is_a_bridge(void **state) {
    (void)state;
    static const melee_case cases[] = {
        MC("road across a stream: bridge", NULL, SIDE("1205", "1206", "[\"stream\", \"road\"]"),
           ATT "," DEF, NULL, MELEE, T("bridge", -2), END),
        MC("road across a stream, other order", NULL,
           SIDE("1206", "1205", "[\"road\", \"stream\"]"), ATT "," DEF, NULL, MELEE,
           T("bridge", -2), END),
        /* the defender's hex has a sunken road (-1); the approach crosses by a bridge (-2) */
        MC("sunken road across a stream: bridge", NULL,
           SIDE("1205", "1206", "[\"stream\", \"sunken_road\"]"), ATT "," DEF, NULL, MELEE,
           T("sunken", -1), T("bridge", -2), END),
        MC("a stream without a road is still a stream", NULL, SIDE("1205", "1206", "[\"stream\"]"),
           ATT "," DEF, NULL, MELEE, T("stream", -1), END),
    };
    run_melee_cases(cases, sizeof cases / sizeof cases[0]);
    /* ZoC: e at 1305 facing n has 1204 in its front; a stream between blocks it, a road across
     * that stream (a bridge) does not. */
    static const move_case moves[] = {
        MOVE_OK("ZoC across a bridged stream: stops", NULL,
                SIDE("1204", "1305", "[\"stream\", \"road\"]"), ZMOVER "," ZENEMY,
                "[\"1205\", \"1204\"]", 2, "1204", "good"),
        MOVE_BAD("ZoC across a bridged stream: not through", NULL,
                 SIDE("1204", "1305", "[\"stream\", \"road\"]"), ZMOVER "," ZENEMY,
                 "[\"1205\", \"1204\", \"1203\"]", "path[2]"),
        MOVE_BAD("ZoC across a sunken road over a stream: not through", NULL,
                 SIDE("1204", "1305", "[\"sunken_road\", \"stream\"]"), ZMOVER "," ZENEMY,
                 "[\"1205\", \"1204\", \"1203\"]", "path[2]"),
        MOVE_OK("ZoC across a stream alone: blocked", NULL, SIDE("1204", "1305", "[\"stream\"]"),
                ZMOVER "," ZENEMY, "[\"1205\", \"1204\", \"1203\"]", 3, "1203", "good"),
        /* movement: as a road (1, the stream's +1 cancelled), as before */
        MOVE_OK("road across a stream, heavy cavalry", NULL,
                SIDE("1208", "1207", "[\"stream\", \"road\"]"), MOVER_T("heavy_cavalry"),
                "[\"1207\"]", 1, "1207", "good"),
    };
    run_move_cases(moves, sizeof moves / sizeof moves[0]);
    /* the ZoC stop is told in the result */
    json_t *st = mkstate(NULL, SIDE("1204", "1305", "[\"stream\", \"road\"]"),
                         "[" ZMOVER "," ZENEMY "]", NULL);
    outcome o = act(st, "m", "{\"type\": \"move\", \"path\": [\"1205\", \"1204\"]}", NULL, 0);
    expect_ok_dice(&o, "into the ZoC across a bridge");
    assert_true(json_is_true(json_object_get(o.out.result, "stopped_by_zoc")));
    outcome_clear(&o);
    json_decref(st);
}

/* Item 3: TET, Village, Observations: "The flank hexes of the infantry occupying these hexes are
 * considered like frontal hexes" -- also for the house rule that a unit moves and assaults only
 * into its front hexes. From 1208 facing n the flank hexes are 1309 (se) and 1109 (sw), the rear
 * 1209; from 1207 facing n they are 1308 (se) and 1108 (sw). */
#define VILLAGE_1208 H("1208", "{\"terrain\": \"village\"}")
static void issue20_village_infantry_moves_and_assaults_into_its_flanks(void **state) {
    (void)state;
    static const move_case moves[] = {
        MOVE_OK("village infantry into its flank, se", VILLAGE_1208, NULL, MOVER, "[\"1309\"]", 1,
                "1309", "good"),
        MOVE_OK("village infantry into its flank, sw", VILLAGE_1208, NULL, MOVER, "[\"1109\"]", 1,
                "1109", "good"),
        MOVE_OK("village light infantry into its flank", VILLAGE_1208, NULL,
                MOVER_T("light_infantry"), "[\"1309\"]", 1, "1309", "good"),
        MOVE_OK("disorganized village infantry into its flank", VILLAGE_1208, NULL,
                U("m", "a", "line_infantry", "1208", "n", 3, 3, ",\"state\":\"disorganized\""),
                "[\"1109\"]", 1, "1109", "disorganized"),
        MOVE_BAD("village infantry: the rear is still rear", VILLAGE_1208, NULL, MOVER,
                 "[\"1209\"]", "path[0]"),
        MOVE_BAD("village cavalry: the flank is still flank", VILLAGE_1208, NULL,
                 MOVER_T("heavy_cavalry"), "[\"1309\"]", "path[0]"),
        MOVE_BAD("village artillery: the flank is still flank", VILLAGE_1208, NULL, GUNMOVER,
                 "[\"1309\"]", "path[0]"),
        /* the village is the hex the unit occupies at that step: into 1207 (village, 2), then
         * out by its flank 1308 (1) */
        MOVE_OK("into a village, then out by its flank", H("1207", "{\"terrain\": \"village\"}"),
                NULL, MOVER, "[\"1207\", \"1308\"]", 3, "1308", "good"),
        MOVE_BAD("out of clear by a flank, after a village",
                 H("1207", "{\"terrain\": \"village\"}"), NULL, MOVER,
                 "[\"1207\", \"1308\", \"1408\"]", "path[2]"),
    };
    run_move_cases(moves, sizeof moves / sizeof moves[0]);

    /* melee: a1 at 1206 (village), d1 at 1205 is north of it: a flank hex when a1 faces se or
     * sw, its rear when a1 faces s */
    static const struct {
        const char *label, *units;
        bool ok;
    } melees[] = {
        {"village infantry assaults from its flank (facing se)",
         "[" U("a1", "a", "line_infantry", "1206", "se", 3, 3, "") "," DEF "]", true},
        {"village infantry assaults from its flank (facing sw)",
         "[" U("a1", "a", "light_infantry", "1206", "sw", 3, 3, "") "," DEF "]", true},
        {"village infantry: not into its rear",
         "[" U("a1", "a", "line_infantry", "1206", "s", 3, 3, "") "," DEF "]", false},
        {"village cavalry: not into its flank",
         "[" U("a1", "a", "heavy_cavalry", "1206", "se", 3, 3, "") "," DEF "]", false},
    };
    for (size_t i = 0; i < sizeof melees / sizeof melees[0]; i++) {
        json_t *st = mkstate(H("1206", "{\"terrain\": \"village\"}"), NULL, melees[i].units, NULL);
        const int64_t dice[] = {1, 1, 1, 1, 1, 1};
        outcome o = act(st, "a1", MELEE, dice, 6);
        if (melees[i].ok) {
            expect_ok(&o, melees[i].label);
        } else {
            expect_error(&o, 422, "rules_violation", "unit", melees[i].label);
            if (o.dice_drawn) fail_msg("%s: refused after a die", melees[i].label);
        }
        outcome_clear(&o);
        json_decref(st);
    }
    /* a second attacker in a village assaulting from its flank */
    json_t *st =
        mkstate(H("1106", "{\"terrain\": \"village\"}"), NULL,
                "[" ATT "," U("a2", "a", "line_infantry", "1106", "s", 3, 3, "") "," DEF "]", NULL);
    const int64_t dice[] = {1, 1, 1, 1, 1, 1};
    outcome o =
        act(st, "a1", "{\"type\": \"melee\", \"defender\": \"1205\", \"attackers\": [\"a2\"]}",
            dice, 6);
    expect_ok(&o, "a second attacker from its village flank");
    assert_int_equal(iget(o.out.result, "attack_strength"), 6);
    outcome_clear(&o);
    json_decref(st);
}

/* Item 4: CRT, Miscellaneous: "Change of order of a stack in an ennemy ZoC: -2". changed_order is
 * refused (422 on changed_order, before any die) unless the acting unit stands in a stack of two
 * or more units and that hex is in an enemy ZoC (d1 at 1205 facing s has 1206 in its front). */
#define A3_STACKED U("a3", "a", "line_infantry", "1206", "n", 3, 3, "")
#define CHANGED    "{\"type\": \"melee\", \"defender\": \"1205\", \"changed_order\": true}"
static void issue20_changed_order_needs_a_stack_in_an_enemy_zoc(void **state) {
    (void)state;
    static const struct {
        const char *label, *sides, *units;
        bool ok;
        const char *words; /* in the refusal */
    } cases[] = {
        {"a single unit in the enemy ZoC", NULL, "[" ATT "," DEF "]", false, "alone"},
        {"a stack of two outside any enemy ZoC (the defender faces away)", NULL,
         "[" ATT "," A3_STACKED "," DEF_X("line_infantry", "n", 3, 3, "") "]", false,
         "zone of control"},
        {"a stack of two behind a stream (the ZoC is blocked)",
         SIDE("1205", "1206", "[\"stream\"]"), "[" ATT "," A3_STACKED "," DEF "]", false,
         "zone of control"},
        {"a single unit outside any enemy ZoC", NULL,
         "[" ATT "," DEF_X("line_infantry", "n", 3, 3, "") "]", false, "alone"},
        {"a stack of two in the defender's ZoC", NULL, "[" ATT "," A3_STACKED "," DEF "]", true,
         NULL},
        /* another enemy's ZoC counts too: e1 at 1207 facing n has 1206 in its front */
        {"a stack of two in another enemy's ZoC", NULL,
         "[" ATT "," A3_STACKED "," DEF_X("line_infantry", "n", 3, 3, "") "," U(
             "e1", "b", "line_infantry", "1207", "n", 3, 3, "") "]",
         true, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = mkstate(NULL, cases[i].sides, cases[i].units, NULL);
        const int64_t dice[] = {1, 1, 1, 1, 1, 1};
        outcome o = act(st, "a1", CHANGED, dice, 6);
        if (cases[i].ok) {
            expect_ok(&o, cases[i].label);
            bool found = false;
            size_t k;
            const json_t *m;
            json_array_foreach(json_object_get(o.out.result, "modifiers"), k, m) {
                if (strstr(sget(m, "name"), "change of order") && iget(m, "value") == -2)
                    found = true;
            }
            if (!found) fail_msg("%s: no change of order -2: %s", cases[i].label, o.out.summary);
        } else {
            expect_error(&o, 422, "rules_violation", "changed_order", cases[i].label);
            if (o.dice_drawn) fail_msg("%s: refused after a die", cases[i].label);
            if (!strstr(o.err.message, "change of order") || !strstr(o.err.message, cases[i].words))
                fail_msg("%s: the refusal does not name the rule: %s", cases[i].label,
                         o.err.message);
        }
        outcome_clear(&o);
        /* without the flag the same assault is legal everywhere */
        o = act(st, "a1", MELEE, dice, 6);
        expect_ok(&o, cases[i].label);
        outcome_clear(&o);
        json_decref(st);
    }
}

/* ---- the sequence of play (the chart's) ------------------------------------------------------ */

#define SEQ_UNITS                                                                                  \
    "[" U("fr", "french", "line_infantry", "0512", "n", 4, 3,                                      \
          "") "," U("al", "allies", "line_infantry", "1501", "s", 4, 3, "") "]"
#define END_PHASE          "{\"type\": \"end_phase\"}"
#define MOVE_ROW(col, row) "{\"type\": \"move\", \"path\": [\"" col "%02d\"]}", (row)

/* Resolves as `actor` and, when it passes, replaces *state by the state after. */
static outcome seq_play_as(json_t **state, const char *actor, const char *unit, const char *action,
                           const char *what) {
    outcome o = act_as(*state, NULL, actor, unit, action, NULL, 0);
    expect_ok(&o, what);
    json_decref(*state);
    *state = json_incref(o.out.new_state);
    return o;
}

static void seq_ok(json_t **state, const char *actor, const char *unit, const char *action,
                   const char *what) {
    outcome o = seq_play_as(state, actor, unit, action, what);
    outcome_clear(&o);
}

static void seq_refused(const json_t *state, const char *actor, const char *unit,
                        const char *action, int status, const char *code, const char *what) {
    outcome o = act_as(state, NULL, actor, unit, action, NULL, 0);
    expect_error(&o, status, code, NULL, what);
    assert_int_equal(o.dice_drawn, 0);
    outcome_clear(&o);
}

static void expect_phase(const json_t *state, long number, const char *player, const char *phase,
                         const char *what) {
    const json_t *t = json_object_get(state, "turn");
    if (iget(t, "number") != number || strcmp(sget(t, "player"), player) != 0 ||
        strcmp(sget(t, "phase"), phase) != 0)
        fail_msg("%s: expected turn %ld, %s, %s; got %ld, %s, %s", what, number, player, phase,
                 iget(t, "number"), sget(t, "player"), sget(t, "phase"));
}

/* Two full turns of the chart's sequence: A. marching movement and B. rally by both sides, each
 * ending its own part; C1/C2 each side's activations (the inactive side's reaction move allowed),
 * army commander's movement and combat; D. end of turn. Each side's out-of-turn action is refused
 * (409 not_your_turn / 422 wrong_phase) before any die; the referee's override is logged. */
static void sequence_two_full_turns(void **st) {
    (void)st;
    json_t *s = mkstate(NULL, NULL, SEQ_UNITS, NULL);
    expect_phase(s, 1, "french", "marching", "a new session");
    int fr_row = 12, al_row = 1; /* each move one hex forward: fr north, al south */
    char fr_move[64], al_move[64];
#define FR_MOVE (snprintf(fr_move, sizeof fr_move, MOVE_ROW("05", --fr_row)), fr_move)
#define AL_MOVE (snprintf(al_move, sizeof al_move, MOVE_ROW("15", ++al_row)), al_move)
    for (long turn = 1; turn <= 2; turn++) {
        /* A. both sides march; an assault is not of this phase */
        expect_phase(s, turn, "french", "marching", "A. marching movement");
        seq_ok(&s, "side:allies", "al", AL_MOVE, "the allies march");
        seq_ok(&s, "side:french", "fr", FR_MOVE, "the french march");
        seq_refused(s, "side:allies", "al", "{\"type\": \"melee\", \"defender\": \"0510\"}", 422,
                    "wrong_phase", "an assault in the marching movement");
        outcome o = seq_play_as(&s, "side:french", NULL, END_PHASE, "the french end their part");
        if (json_is_true(json_object_get(o.out.result, "new_turn")))
            fail_msg("a part's end is not a new turn");
        outcome_clear(&o);
        expect_phase(s, turn, "french", "marching", "the allies still march");
        seq_ok(&s, "side:allies", NULL, END_PHASE, "the allies end their part");
        /* B. rally: both sides, each its own part */
        expect_phase(s, turn, "french", "rally", "B. rally");
        seq_refused(s, "side:french", "fr", "{\"type\": \"move\", \"path\": [\"0501\"]}", 422,
                    "wrong_phase", "a move in the rally phase");
        seq_ok(&s, "side:allies", NULL, END_PHASE, "the allies end their rally");
        seq_ok(&s, "side:french", NULL, END_PHASE, "the french end their rally");
        /* C1: the french are active; the allies may react (8.5) but not end the french phase */
        expect_phase(s, turn, "french", "activations", "C1 activations");
        seq_ok(&s, "side:french", "fr", FR_MOVE, "an activated formation moves");
        seq_ok(&s, "side:allies", "al", AL_MOVE, "the inactive player's reaction move (8.5)");
        seq_refused(s, "side:allies", NULL, END_PHASE, 409, "not_your_turn",
                    "the allies end the french activations");
        seq_ok(&s, "side:french", NULL, END_PHASE, "the french end their activations");
        expect_phase(s, turn, "french", "commander", "C1.4 army commander's movement");
        seq_refused(s, "side:allies", "al", "{\"type\": \"move\", \"path\": [\"1509\"]}", 409,
                    "not_your_turn", "the allies move in the french commander's movement");
        if (turn == 1) {
            /* the referee moves the allies out of sequence: an override, logged */
            o = seq_play_as(&s, "referee", "al", AL_MOVE, "the referee's override");
            const char *why = sget(o.out.result, "override");
            if (!why || !why[0]) fail_msg("the override is not logged");
            if (strncmp(o.out.summary, "Referee's ruling, out of sequence (", 35) != 0)
                fail_msg("the summary does not start with the ruling: %s", o.out.summary);
            outcome_clear(&o);
        }
        seq_ok(&s, "side:french", NULL, END_PHASE, "the french end the commander's movement");
        expect_phase(s, turn, "french", "combat", "C1.5 combat");
        seq_ok(&s, "side:french", NULL, END_PHASE, "the french end their combat phase");
        /* C2: the allies are active */
        expect_phase(s, turn, "allies", "activations", "C2 activations");
        seq_refused(s, "side:french", NULL, END_PHASE, 409, "not_your_turn",
                    "the french end the allies' activations");
        seq_ok(&s, "side:allies", "al", AL_MOVE, "the allies' formation moves");
        seq_ok(&s, "side:allies", NULL, END_PHASE, "the allies end their activations");
        seq_ok(&s, "side:allies", NULL, END_PHASE, "the allies end the commander's movement");
        expect_phase(s, turn, "allies", "combat", "C2.5 combat");
        seq_refused(s, "side:french", "fr", "{\"type\": \"melee\", \"defender\": \"1509\"}", 409,
                    "not_your_turn", "a french assault in the allies' combat phase");
        seq_ok(&s, "side:allies", NULL, END_PHASE, "the allies end their combat phase");
        /* D. end of turn */
        expect_phase(s, turn, "french", "end_of_turn", "D. end of turn");
        o = seq_play_as(&s, "side:french", NULL, END_PHASE, "the end of the turn");
        if (!json_is_true(json_object_get(o.out.result, "new_turn")))
            fail_msg("turn %ld: the end of turn does not begin a new turn", turn);
        outcome_clear(&o);
    }
#undef FR_MOVE
#undef AL_MOVE
    expect_phase(s, 3, "french", "marching", "turn 3");
    expect_unit(s, "fr", "0508", NULL, -1, "after two turns");
    expect_unit(s, "al", "1508", NULL, -1, "after two turns");
    json_decref(s);
}

/* setup.turn overrides the order of play (the chart: "determined by the scenario"). */
static void sequence_setup_turn_order(void **st) {
    (void)st;
    api_error err = {0};
    json_t *setup =
        parse("{\"map\": {\"columns\": [1, 20], \"rows\": [1, 12]}, \"units\": " SEQ_UNITS
              ", \"turn\": {\"order\": [\"allies\", \"french\"]}}");
    json_t *opts = parse("{}");
    json_t *s = rs()->init_state(opts, setup, &err);
    if (!s) fail_msg("setup.turn refused: %s", err.message);
    expect_phase(s, 1, "allies", "marching", "allies first");
    json_decref(s);
    json_decref(setup);
    json_decref(opts);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(artillery_table_every_row),
        cmocka_unit_test(crt_every_row),
        cmocka_unit_test(ratio_columns_at_each_boundary),
        cmocka_unit_test(zones_on_all_six_facings),
        cmocka_unit_test(zones_village_infantry_flanks_are_front),
        cmocka_unit_test(zones_at_range),
        cmocka_unit_test(move_costs_per_terrain),
        cmocka_unit_test(move_paths_and_facing),
        cmocka_unit_test(move_enemies_and_zones_of_control),
        cmocka_unit_test(move_refused_before_the_climb_test),
        cmocka_unit_test(fire_modifiers_alone),
        cmocka_unit_test(fire_village_infantry_flank_at_range),
        cmocka_unit_test(fire_disorganization_is_not_by_combat),
        cmocka_unit_test(fire_refused),
        cmocka_unit_test(fire_results_applied),
        cmocka_unit_test(fire_retreat_pending_blocks_other_actions),
        cmocka_unit_test(melee_modifiers_alone),
        cmocka_unit_test(melee_combination_flank_woods_stream_commander),
        cmocka_unit_test(melee_combination_two_attackers),
        cmocka_unit_test(melee_results),
        cmocka_unit_test(melee_refused),
        cmocka_unit_test(retreat_paths),
        cmocka_unit_test(retreat_nowhere_eliminates),
        cmocka_unit_test(retreat_two_pending),
        cmocka_unit_test(morale_test_boundaries),
        cmocka_unit_test(rally_procedures),
        cmocka_unit_test(same_dice_same_answer_state_untouched),
        cmocka_unit_test(setup_refused),
        cmocka_unit_test(issue20_turn_in_place_is_applied),
        cmocka_unit_test(issue20_road_across_a_stream_is_a_bridge),
        cmocka_unit_test(issue20_village_infantry_moves_and_assaults_into_its_flanks),
        cmocka_unit_test(issue20_changed_order_needs_a_stack_in_an_enemy_zoc),
        cmocka_unit_test(sequence_two_full_turns),
        cmocka_unit_test(sequence_setup_turn_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
