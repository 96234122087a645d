/* The spi-dark-ages ruleset driven as the core drives it (tests/unit/rules_driver.h: decode, then
 * resolve over manual dice against a state), one test per paragraph of SPI's Dark Ages errata
 * (shared/rules-sources/spi-dark-ages-errata.txt, "From Moves 12") that states a checkable rule,
 * each named after the paragraph and citing it. Every expected number is worked out by hand from
 * the errata and the module's documented house defaults (the header comments of the sources in
 * rules/spi_dark_ages/), never read back from the code.
 *
 * JSON in this file is written with single quotes for readability; dq() turns them into double
 * quotes before parsing (no text here needs an apostrophe). Units are written compactly,
 * "id side type hex facing [key=value ...]; ..." (facing "-": none, for fleets), see
 * units_json().
 *
 * The test charts (illustrative, not the published ones):
 * - CRT columns 1-2 1-1 2-1 3-1 4-1 6-1 8-1, every column alike by row: 1 DE, 2 2E, 3 1E, 4 DD,
 *   6 AD; row 5 is AD at 1-2, 1E at 8-1 and "-" elsewhere. So the row a melee lands on is read
 *   from its result, and the 8-1 column is told from the 6-1 one on a 5.
 * - Terrain (class I): clear 1, woods 4, slope 2, swamp 3; the chart's own stream (3), ford (3)
 *   and bridge (3) costs are deliberately not the errata's, which must win. A stream hex doubles
 *   a defender (Defense section, level).
 * - Command units: leader (combat bonus 2), chief (1), herald (none: allocation without a die
 *   roll modifier).
 *
 * Hex geometry (flat-topped, even columns half a hex lower, rules/common/hex.h):
 *   0604 (even): n 0603, ne 0704, se 0705, s 0605, sw 0505, nw 0504
 *   0605 (even): n 0604, ne 0705, se 0706, s 0606, sw 0506, nw 0505
 *   0606 (even): n 0605, ne 0706, se 0707, s 0607, sw 0507, nw 0506
 *   0607 (even): n 0606, ne 0707, se 0708, s 0608, sw 0508, nw 0507
 *   0608 (even): n 0607, ne 0708, se 0709, s 0609, sw 0509, nw 0508
 *   0706 (odd):  n 0705, ne 0805, se 0806, s 0707, sw 0606, nw 0605
 *   0705 (odd):  n 0704, ne 0804, se 0805, s 0706, sw 0605, nw 0604
 *   0505 (odd):  n 0504, ne 0604, se 0605, s 0506, sw 0405, nw 0404
 * A unit moves only into its three front hexes (house default, move.c), so most moves below run
 * straight along a column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/rules_driver.h"

#include "rules/dice_source.h"
#include "rules/ruleset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the test charts ------------------------------------------------------------------------ */

#define UNITS_CHART                                                                                \
    "'units': {"                                                                                   \
    "'foot': {'class': 'I', 'melee_attack': 4, 'melee_defense': 4, 'melee_defense_flank': 2, "     \
    "'movement': 6, 'stacking': 1, 'vp': 4}, "                                                     \
    "'light': {'class': 'I', 'melee_attack': 2, 'melee_defense': 3, 'melee_defense_flank': 1, "    \
    "'movement': 5, 'stacking': 1, 'vp': 2}, "                                                     \
    "'javelin': {'class': 'I', 'melee_attack': 3, 'melee_defense': 3, 'melee_defense_flank': 1, "  \
    "'missile': 2, 'range': 1, 'movement': 6, 'stacking': 1, 'vp': 4}, "                           \
    "'peasants': {'class': 'I', 'melee_attack': 0, 'melee_defense': 2, "                           \
    "'melee_defense_flank': 1, 'movement': 4, 'stacking': 1, 'vp': 1}, "                           \
    "'archers': {'class': 'IV', 'melee_attack': 1, 'melee_defense': 1, 'melee_defense_flank': 1, " \
    "'missile': 3, 'range': 3, 'movement': 4, 'stacking': 1, 'vp': 3}, "                           \
    "'slingers': {'class': 'V', 'melee_attack': 1, 'melee_defense': 1, "                           \
    "'melee_defense_flank': 1, 'missile': 2, 'range': 2, 'movement': 4, 'stacking': 1, 'vp': 3}, " \
    "'medcav': {'class': 'II', 'cavalry': 'medium', 'melee_attack': 4, 'melee_defense': 3, "       \
    "'melee_defense_flank': 1, 'movement': 8, 'stacking': 2, 'vp': 6, "                            \
    "'dismounted': 'dismounted'}, "                                                                \
    "'knights': {'class': 'II', 'cavalry': 'heavy', 'melee_attack': 5, 'melee_defense': 4, "       \
    "'melee_defense_flank': 2, 'movement': 8, 'stacking': 2, 'vp': 7, "                            \
    "'dismounted': 'footknights'}, "                                                               \
    "'cataphract': {'class': 'III', 'cavalry': 'cataphract', 'melee_attack': 6, "                  \
    "'melee_defense': 4, 'melee_defense_flank': 2, 'movement': 6, 'stacking': 2, 'vp': 8}, "       \
    "'weakcat': {'class': 'III', 'cavalry': 'cataphract', 'melee_attack': 3, "                     \
    "'melee_defense': 3, 'melee_defense_flank': 1, 'movement': 6, 'stacking': 2, 'vp': 5}, "       \
    "'dismounted': {'class': 'I', 'melee_attack': 2, 'melee_defense': 2, "                         \
    "'melee_defense_flank': 1, 'movement': 4, 'stacking': 1, 'vp': 2}, "                           \
    "'footknights': {'class': 'I', 'melee_attack': 3, 'melee_defense': 3, "                        \
    "'melee_defense_flank': 1, 'movement': 4, 'stacking': 1, 'vp': 4}, "                           \
    "'ms': {'class': 'I', 'melee_attack': 1, 'melee_defense': 1, 'melee_defense_flank': 1, "       \
    "'movement': 4, 'stacking': 1, 'vp': 2}, "                                                     \
    "'sd': {'class': 'I', 'melee_attack': 3, 'melee_defense': 3, 'melee_defense_flank': 1, "       \
    "'movement': 4, 'stacking': 1, 'vp': 3}, "                                                     \
    "'leader': {'class': 'command', 'melee_attack': 1, 'melee_defense': 2, "                       \
    "'melee_defense_flank': 1, 'movement': 8, 'stacking': 1, 'vp': 3, 'combat_bonus': 2}, "        \
    "'chief': {'class': 'command', 'melee_attack': 1, 'melee_defense': 1, "                        \
    "'melee_defense_flank': 1, 'movement': 8, 'stacking': 1, 'vp': 3, 'combat_bonus': 1}, "        \
    "'herald': {'class': 'command', 'melee_attack': 1, 'melee_defense': 2, "                       \
    "'melee_defense_flank': 1, 'movement': 8, 'stacking': 1, 'vp': 3}, "                           \
    "'longship': {'class': 'fleet', 'melee_attack': 0, 'melee_defense': 1, "                       \
    "'melee_defense_flank': 1, 'movement': 6, 'vp': 5}}"

#define TERRAIN_CHART                                                                              \
    "'terrain': {"                                                                                 \
    "'clear': {'move': {'I': 1, 'II': 1, 'III': 1, 'IV': 1, 'V': 1, 'command': 1}}, "              \
    "'woods': {'move': {'I': 4, 'II': 'road', 'III': 'road', 'IV': 4, 'V': 4, 'command': 4}, "     \
    "'fps': 3, 'blocks_fire': true}, "                                                             \
    "'slope': {'move': {'I': 2, 'II': 3, 'III': 3, 'IV': 2, 'V': 2, 'command': 2}, 'fps': 1, "     \
    "'defense': {'downhill': 'x2'}, 'attack': {'uphill': 'x1/2'}}, "                               \
    "'swamp': {'move': {'I': 3, 'II': 'P', 'III': 'P', 'IV': 3, 'V': 3, 'command': 3}, "           \
    "'attack': {'level': {'II': 'P'}}}, "                                                          \
    "'stream': {'move': 3, 'fps': 3, 'defense': {'level': 'x2'}}, "                                \
    "'ford': {'move': 3}, "                                                                        \
    "'river': {'move': {'fleet': 1}}, "                                                            \
    "'bridge': {'move': 3}, "                                                                      \
    "'keep': {'move': 2, 'fps': 6, 'keep': true}}"

#define CRT_CHART                                                                                  \
    "'crt': {'columns': ['1-2', '1-1', '2-1', '3-1', '4-1', '6-1', '8-1'], 'rows': {"              \
    "'1': ['DE', 'DE', 'DE', 'DE', 'DE', 'DE', 'DE'], "                                            \
    "'2': ['2E', '2E', '2E', '2E', '2E', '2E', '2E'], "                                            \
    "'3': ['1E', '1E', '1E', '1E', '1E', '1E', '1E'], "                                            \
    "'4': ['DD', 'DD', 'DD', 'DD', 'DD', 'DD', 'DD'], "                                            \
    "'5': ['AD', '-', '-', '-', '-', '-', '1E'], "                                                 \
    "'6': ['AD', 'AD', 'AD', 'AD', 'AD', 'AD', 'AD']}}"

#define CAPABILITY_CHART "'capability': {'II': {'ms': 'x2'}}"

#define ARMIES(sax, vik)                                                                           \
    "'armies': {'saxons': {'point_value': 40, 'panic_level': " #sax "}, "                          \
    "'vikings': {'point_value': 40, 'panic_level': " #vik "}}"

#define CHARTS_WITH(armies)                                                                        \
    "{" UNITS_CHART ", " TERRAIN_CHART ", " CRT_CHART ", " CAPABILITY_CHART                        \
    ", 'stacking_limit': 3, " armies "}"

#define STD_CHARTS CHARTS_WITH(ARMIES(99, 99))

#define DICE(...)                                                                                  \
    (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)
#define NODICE NULL, 0

#define END_PHASE   "{'type': 'end_phase'}"
#define DEMORALIZED "{'game_turn': 1, 'phase': 0}"

/* ---- helpers -------------------------------------------------------------------------------- */

static const ruleset *rs(void) {
    const ruleset *r = ruleset_find("spi-dark-ages");
    assert_non_null(r);
    return r;
}

/* The text with every ' turned into ". */
static char *dq(const char *s) {
    char *t = strdup(s);
    assert_non_null(t);
    for (char *p = t; *p; p++)
        if (*p == '\'') *p = '"';
    return t;
}

static json_t *jparse(const char *single_quoted) {
    char *t = dq(single_quoted);
    json_error_t je;
    json_t *v = json_loads(t, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!v) fail_msg("bad JSON in the test: %s: %s", je.text, t);
    free(t);
    return v;
}

/* "id side type hex facing [key=value ...]; ..." -> setup.units as JSON text (malloc'd). */
static char *units_json(const char *compact) {
    size_t cap = strlen(compact) * 6 + 64, len = 1;
    char *out = malloc(cap), *copy = strdup(compact), *save = NULL;
    assert_non_null(out);
    assert_non_null(copy);
    strcpy(out, "[");
    for (char *u = strtok_r(copy, ";", &save); u; u = strtok_r(NULL, ";", &save)) {
        char *tok[12], *s2 = NULL;
        int n = 0;
        for (char *t = strtok_r(u, " ", &s2); t && n < 12; t = strtok_r(NULL, " ", &s2))
            tok[n++] = t;
        if (n == 0) continue;
        if (n < 5) fail_msg("units_json: '%s' needs id side type hex facing", tok[0]);
        len += (size_t)snprintf(out + len, cap - len,
                                "%s{\"id\": \"%s\", \"side\": \"%s\", \"type\": \"%s\", "
                                "\"hex\": \"%s\"",
                                len > 1 ? ", " : "", tok[0], tok[1], tok[2], tok[3]);
        if (strcmp(tok[4], "-") != 0)
            len += (size_t)snprintf(out + len, cap - len, ", \"facing\": \"%s\"", tok[4]);
        for (int i = 5; i < n; i++) {
            char *eq = strchr(tok[i], '=');
            if (!eq) fail_msg("units_json: '%s' is not key=value", tok[i]);
            *eq = '\0';
            len += (size_t)snprintf(out + len, cap - len, ", \"%s\": \"%s\"", tok[i], eq + 1);
        }
        len += (size_t)snprintf(out + len, cap - len, "}");
    }
    snprintf(out + len, cap - len, "]");
    free(copy);
    return out;
}

typedef struct spec {
    const char *cols, *rows; /* "[1, 12]" (NULL: that) */
    const char *hexes;       /* setup.map.hexes (NULL: {}) */
    const char *hexsides;    /* setup.map.hexsides (NULL: []) */
    const char *streams;     /* setup.streams (NULL: absent) */
    const char *charts;      /* setup.charts (NULL: STD_CHARTS) */
    const char *players;     /* setup.players (NULL: saxons listed first, vikings second) */
    const char *units;       /* compact units (units_json) */
} spec;

static json_t *try_state(const spec *s, api_error *err) {
    const char *charts = s->charts ? s->charts : STD_CHARTS;
    const char *players = s->players ? s->players : "[{'side': 'saxons'}, {'side': 'vikings'}]";
    char *units = units_json(s->units);
    size_t cap = 4096 + strlen(charts) + strlen(players) + strlen(units) +
                 (s->hexes ? strlen(s->hexes) : 0) + (s->hexsides ? strlen(s->hexsides) : 0) +
                 (s->streams ? strlen(s->streams) : 0);
    char *text = malloc(cap);
    assert_non_null(text);
    snprintf(text, cap,
             "{'map': {'columns': %s, 'rows': %s, 'hexes': %s, 'hexsides': %s}, %s%s%s"
             "'charts': %s, 'players': %s, 'units': %s}",
             s->cols ? s->cols : "[1, 12]", s->rows ? s->rows : "[1, 12]",
             s->hexes ? s->hexes : "{}", s->hexsides ? s->hexsides : "[]",
             s->streams ? "'streams': " : "", s->streams ? s->streams : "", s->streams ? ", " : "",
             charts, players, units);
    json_t *setup = jparse(text), *opts = json_object();
    json_t *st = rs()->init_state(opts, setup, err);
    json_decref(setup);
    json_decref(opts);
    free(text);
    free(units);
    return st;
}

static json_t *mkstate(spec s) {
    api_error err = {0};
    json_t *st = try_state(&s, &err);
    if (!st) fail_msg("init_state refused the setup: %d %s: %s", err.status, err.code, err.message);
    return st;
}

/* init_state must refuse with status/code on details.field. */
static void expect_setup_error(spec s, int status, const char *code, const char *field,
                               const char *what) {
    api_error err = {0};
    json_t *st = try_state(&s, &err);
    if (st) fail_msg("%s: init_state accepted the setup", what);
    if (err.status != status || strcmp(err.code, code) != 0)
        fail_msg("%s: expected %d %s, got %d %s: %s", what, status, code, err.status, err.code,
                 err.message);
    const char *f = json_string_value(json_object_get(err.details, "field"));
    if (!f || strcmp(f, field) != 0)
        fail_msg("%s: expected details.field %s, got %s (%s)", what, field, f ? f : "(none)",
                 err.message);
    api_error_clear(&err);
}

static const char *actor_now = "referee"; /* who acts: the referee, unless refuse_as says */

static outcome act(const json_t *state, const char *unit, const char *action, const int64_t *dice,
                   size_t n) {
    char *a = dq(action);
    const char *who = actor_now;
    actor_now = "referee"; /* for the next action, whatever this one's test does */
    outcome o = rules_act(rs(), state, NULL, who, unit, a, dice, n);
    free(a);
    return o;
}

static char said[1024]; /* the summary of the last action ok() resolved */

/* Resolves an action that must succeed using exactly the dice given: the state moves on, the
 * summary lands in `said`, the result is returned (new reference). */
static json_t *ok(json_t **st, const char *unit, const char *action, const int64_t *dice, size_t n,
                  const char *what) {
    outcome o = act(*st, unit, action, dice, n);
    if (o.rc != 0)
        fail_msg("%s: refused %d %s (%s): %s", what, o.err.status, o.err.code,
                 json_string_value(json_object_get(o.err.details, "field")), o.err.message);
    if (o.unsatisfied) fail_msg("%s: the action used other dice than the test supplied", what);
    snprintf(said, sizeof said, "%s", o.out.summary);
    json_t *res = json_incref(o.out.result);
    json_decref(*st);
    *st = json_incref(o.out.new_state);
    outcome_clear(&o);
    return res;
}

static void ok_drop(json_t **st, const char *unit, const char *action, const int64_t *dice,
                    size_t n, const char *what) {
    json_decref(ok(st, unit, action, dice, n, what));
}

static char refused_msg[512]; /* the message of the last refusal */

/* The action must be refused with status/code (and details.field when field is not NULL). */
static void refuse(const json_t *st, const char *unit, const char *action, const int64_t *dice,
                   size_t n, int status, const char *code, const char *field, const char *what) {
    outcome o = act(st, unit, action, dice, n);
    if (o.rc == 0)
        fail_msg("%s: expected %d %s, got success: %s", what, status, code, o.out.summary);
    if (o.err.status != status || strcmp(o.err.code, code) != 0)
        fail_msg("%s: expected %d %s, got %d %s: %s", what, status, code, o.err.status, o.err.code,
                 o.err.message);
    if (field) {
        const char *f = json_string_value(json_object_get(o.err.details, "field"));
        if (!f || strcmp(f, field) != 0)
            fail_msg("%s: expected the error on field %s, got %s (%s)", what, field,
                     f ? f : "(none)", o.err.message);
    }
    snprintf(refused_msg, sizeof refused_msg, "%s", o.err.message);
    outcome_clear(&o);
}

/* refuse() with the action taken by `actor` ("side:saxons") instead of the referee, and no die
 * drawn: the sequence of play (da_sequence) refuses before the module runs. */
static void refuse_as(const char *actor, const json_t *st, const char *unit, const char *action,
                      int status, const char *code, const char *what) {
    actor_now = actor;
    refuse(st, unit, action, NODICE, status, code, NULL, what);
}

static const char *sget(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long iget(const json_t *o, const char *k) {
    return (long)json_integer_value(json_object_get(o, k));
}

static void expect_str(const json_t *o, const char *k, const char *want, const char *what) {
    if (strcmp(sget(o, k), want) != 0)
        fail_msg("%s: %s is '%s', expected '%s'", what, k, sget(o, k), want);
}

static void expect_int(const json_t *o, const char *k, long want, const char *what) {
    if (!json_is_integer(json_object_get(o, k)) || iget(o, k) != want)
        fail_msg("%s: %s is %ld, expected %ld", what, k, iget(o, k), want);
}

static void expect_said(const char *needle, const char *what) {
    if (!strstr(said, needle)) fail_msg("%s: the summary lacks '%s': %s", what, needle, said);
}

static void expect_refused_msg(const char *needle, const char *what) {
    if (!strstr(refused_msg, needle))
        fail_msg("%s: the refusal lacks '%s': %s", what, needle, refused_msg);
}

static bool has_id(const json_t *arr, const char *id) {
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v) if (strcmp(json_string_value(v), id) == 0) return true;
    return false;
}

/* An array of strings holding exactly the ids listed (NULL-terminated), in any order. */
static void expect_ids(const json_t *arr, const char *const *ids, const char *what) {
    size_t n = 0;
    for (; ids[n]; n++)
        if (!has_id(arr, ids[n])) {
            char *got = dump(arr);
            fail_msg("%s: %s lacks %s", what, got, ids[n]);
        }
    if (json_array_size(arr) != n) {
        char *got = dump(arr);
        fail_msg("%s: got %s, expected %zu ids", what, got, n);
    }
}

static const json_t *unit_in(const json_t *state, const char *id) {
    const json_t *u = rules_state_unit(state, id);
    if (!u) fail_msg("no unit %s in the state", id);
    return u;
}

static bool flag_of(const json_t *state, const char *id, const char *key) {
    return json_is_true(json_object_get(unit_in(state, id), key));
}

static bool demoralized(const json_t *state, const char *id) {
    return json_object_get(unit_in(state, id), "demoralized") != NULL;
}

static void expect_at(const json_t *state, const char *id, const char *hex, const char *what) {
    if (strcmp(sget(unit_in(state, id), "hex"), hex) != 0)
        fail_msg("%s: unit %s at %s, expected %s", what, id, sget(unit_in(state, id), "hex"), hex);
}

static const json_t *army(const json_t *state, const char *side) {
    return json_object_get(json_object_get(state, "armies"), side);
}

static long game_turn(const json_t *st) {
    return iget(json_object_get(st, "turn"), "game_turn");
}

static const char *turn_of(const json_t *st, const char *k) {
    return sget(json_object_get(st, "turn"), k);
}

/* The entry of a melee result's "defenders"/"attackers" list for unit id. */
static const json_t *entry(const json_t *result, const char *list, const char *id) {
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(result, list), i,
                       v) if (strcmp(sget(v, "unit"), id) == 0) return v;
    fail_msg("no %s entry for %s", list, id);
    return NULL;
}

static void expect_strength(const json_t *result, const char *list, const char *id,
                            const char *want, const char *what) {
    expect_str(entry(result, list, id), "strength", want, what);
}

/* Sets a field of a unit in the state (a copy of the unit replaces it: states share children). */
static void edit_unit(json_t *st, const char *id, const char *key, const char *value) {
    json_t *units = json_object_get(st, "units");
    size_t i;
    json_t *u;
    json_array_foreach(units, i, u) {
        if (strcmp(sget(u, "id"), id) != 0) continue;
        json_t *copy = json_deep_copy(u);
        json_object_set_new(copy, key, jparse(value));
        json_array_set_new(units, i, copy);
        return;
    }
    fail_msg("edit_unit: no unit %s", id);
}

static void edit_army(json_t *st, const char *side, const char *key, const char *value) {
    json_t *armies = json_deep_copy(json_object_get(st, "armies"));
    json_object_set_new(json_object_get(armies, side), key, jparse(value));
    json_object_set_new(st, "armies", armies);
}

/* A panicked unit, running to `edge`; `moved`: it has made this phase's forced move. */
static void make_panicked(json_t *st, const char *id, const char *edge, bool moved) {
    char e[32];
    snprintf(e, sizeof e, "'%s'", edge);
    edit_unit(st, id, "panicked", "true");
    edit_unit(st, id, "panic_edge", e);
    if (moved) {
        char from[16];
        snprintf(from, sizeof from, "'%s'", sget(unit_in(st, id), "hex"));
        edit_unit(st, id, "moved", "true");
        edit_unit(st, id, "moved_from", from);
    }
}

/* end_phase (as the referee) until it is `phase` of `side`. */
static void to_phase(json_t **st, const char *side, const char *phase) {
    for (int i = 0; i < 12; i++) {
        if (strcmp(turn_of(*st, "side"), side) == 0 && strcmp(turn_of(*st, "phase"), phase) == 0)
            return;
        ok_drop(st, NULL, END_PHASE, NODICE, "end_phase");
    }
    fail_msg("never reached the %s phase of %s", phase, side);
}

static void allocate(json_t **st, const char *unit, const char *target, const char *kind) {
    char a[128];
    snprintf(a, sizeof a, "{'type': 'allocate', 'target': '%s', 'kind': '%s'}", target, kind);
    ok_drop(st, unit, a, NODICE, "allocate");
}

/* `unit` (with a viking command unit beside it) allocated against `target` in the vikings'
 * Attack Allocation Phase, then the Melee Phase reached and the melee made with `die`. */
static json_t *melee_with(json_t **st, const char *unit, const char *target, int64_t die) {
    to_phase(st, "vikings", "allocation");
    allocate(st, unit, target, "melee");
    to_phase(st, "vikings", "melee");
    char a[128];
    snprintf(a, sizeof a, "{'type': 'melee', 'defender': '%s'}", target);
    return ok(st, unit, a, DICE(die), "melee");
}

/* `unit` allocated to fire at `target`, the Fire Phase reached, the fire made with `die`. */
static json_t *fire_with(json_t **st, const char *unit, const char *target, int64_t die) {
    to_phase(st, "vikings", "allocation");
    allocate(st, unit, target, "fire");
    to_phase(st, "vikings", "fire");
    char a[128];
    snprintf(a, sizeof a, "{'type': 'fire', 'target': '%s'}", target);
    return ok(st, unit, a, DICE(die), "fire");
}

/* ---- HOW TO SET-UP THE GAME AND HOW TO USE THE SCENARIOS ------------------------------------ */

/* HOW TO SET-UP (Clarification): "In all scenarios, the second Player listed always moves
 * first." */
static void setup_second_listed_moves_first(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0608 n; s-a saxons foot 0602 s"});
    assert_string_equal(turn_of(st, "side"), "vikings");
    assert_string_equal(turn_of(st, "phase"), "movement");
    json_decref(st);
    st = mkstate((spec){.players = "[{'side': 'vikings'}, {'side': 'saxons'}]",
                        .units = "v-a vikings foot 0608 n; s-a saxons foot 0602 s"});
    assert_string_equal(turn_of(st, "side"), "saxons");
    json_decref(st);
}

/* ---- GENERAL MOVEMENT RULES ----------------------------------------------------------------- */

/* GENERAL MOVEMENT RULES (C): "Each unit must be moved to the full extent desired before the
 * movement of any other unit is begun." A unit moves once a Movement Phase; the next Friendly
 * Movement Phase it moves again. */
static void general_movement_c_one_move_per_unit(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0608 n; v-b vikings foot 0808 n; "
                                         "s-a saxons foot 0602 s"});
    json_t *r = ok(&st, "v-a", "{'type': 'move', 'path': ['0607']}", NODICE, "v-a moves");
    expect_str(r, "to", "0607", "v-a moves");
    expect_str(r, "cost", "1", "v-a moves");
    json_decref(r);
    expect_at(st, "v-a", "0607", "v-a moved");
    ok_drop(&st, "v-b", "{'type': 'move', 'path': ['0807']}", NODICE, "v-b moves");
    refuse(st, "v-a", "{'type': 'move', 'path': ['0606']}", NODICE, 422, "rules_violation", "unit",
           "v-a again after v-b");
    expect_refused_msg("GENERAL MOVEMENT RULES (C)", "v-a again after v-b");
    refuse(st, "v-b", "{'type': 'move', 'path': ['0806']}", NODICE, 422, "rules_violation", "unit",
           "v-b again right after");
    /* the next Friendly Movement Phase (Game-Turn 2) */
    to_phase(&st, "saxons", "movement");
    to_phase(&st, "vikings", "movement");
    assert_int_equal(game_turn(st), 2);
    r = ok(&st, "v-a", "{'type': 'move', 'path': ['0606']}", NODICE, "v-a moves next turn");
    expect_str(r, "from", "0607", "v-a moves next turn");
    json_decref(r);
    json_decref(st);
}

/* GENERAL MOVEMENT RULES (F): "No Enemy Movement is permitted during the Movement Phase of the
 * Friendly Player-Turn." (J): "No combat (Enemy or Friendly) is permitted during a Movement
 * Phase." FACING (I): "Units may only change their facing orientation during a Friendly Movement
 * Phase." */
static void general_movement_f_j_own_movement_phase_only(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-lead vikings leader 0607 n; "
                                         "v-arch vikings archers 0706 nw; "
                                         "s-a saxons foot 0605 s; s-arch saxons archers 0604 s"});
    /* (F): the enemy may not move in the vikings' Movement Phase: not its turn */
    refuse_as("side:saxons", st, "s-a", "{'type': 'move', 'path': ['0604']}", 409, "not_your_turn",
              "saxons move in the vikings' Movement Phase");
    /* (J): no combat in a Movement Phase, friendly or enemy */
    refuse_as("side:vikings", st, "v-a", "{'type': 'allocate', 'target': '0605', 'kind': 'melee'}",
              422, "wrong_phase", "allocation in the Movement Phase");
    refuse_as("side:vikings", st, "v-a", "{'type': 'melee', 'defender': '0605'}", 422,
              "wrong_phase", "melee in the Movement Phase");
    refuse_as("side:vikings", st, "v-arch", "{'type': 'fire', 'target': '0605'}", 422,
              "wrong_phase", "fire in the Movement Phase");
    refuse_as("side:saxons", st, "s-arch", "{'type': 'fire', 'target': '0605'}", 409,
              "not_your_turn", "enemy fire in the Movement Phase");
    /* out of the Movement Phase nobody moves, not even to turn */
    to_phase(&st, "vikings", "allocation");
    refuse_as("side:vikings", st, "v-lead", "{'type': 'move', 'path': ['0608']}", 422,
              "wrong_phase", "a move in the Attack Allocation Phase");
    refuse_as("side:vikings", st, "v-a", "{'type': 'move', 'path': [{'face': 'ne'}]}", 422,
              "wrong_phase", "a facing change in the Attack Allocation Phase");
    /* the referee may: an override, which the summary says */
    outcome o = act(st, "v-a", "{'type': 'move', 'path': [{'face': 'ne'}]}", NODICE);
    assert_int_equal(o.rc, 0);
    assert_string_equal(json_string_value(json_object_get(o.out.result, "override")),
                        "no move in the Attack Allocation phase");
    assert_non_null(strstr(o.out.summary, "Referee's ruling, out of sequence"));
    outcome_clear(&o);
    /* the saxons' own Movement Phase: they move, the vikings do not */
    to_phase(&st, "saxons", "movement");
    refuse_as("side:vikings", st, "v-lead", "{'type': 'move', 'path': ['0608']}", 409,
              "not_your_turn", "vikings move in the saxons' Movement Phase");
    ok_drop(&st, "s-arch", "{'type': 'move', 'path': ['0505']}", NODICE, "saxons move");
    expect_at(st, "s-arch", "0505", "saxons moved");
    json_decref(st);
}

/* A session created before the shared turn record (state.turn without number, player, acting,
 * order) plays on under the module's own phase checks, and end_phase writes the old record. */
static void a_state_without_the_shared_turn_record_plays_on(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; s-a saxons foot 0605 s"});
    json_t *turn = json_object_get(st, "turn");
    for (const char *const *k = (const char *const[]){"number", "player", "acting", "order", NULL};
         *k; k++)
        json_object_del(turn, *k);
    refuse(st, "s-a", "{'type': 'move', 'path': [{'face': 'se'}]}", NODICE, 422, "wrong_phase",
           NULL, "the saxons in the vikings' Movement Phase, by the module's own check");
    refuse(st, "v-a", "{'type': 'melee', 'defender': '0605'}", DICE(3), 422, "wrong_phase", NULL,
           "melee in the Movement Phase, even for the referee");
    ok_drop(&st, NULL, END_PHASE, NODICE, "end_phase");
    turn = json_object_get(st, "turn");
    assert_string_equal(json_string_value(json_object_get(turn, "phase")), "allocation");
    assert_null(json_object_get(turn, "number"));
    json_decref(st);
}

/* GENERAL MOVEMENT RULES (K): "As units move into any one of the three hexes adjacent to the
 * front of an Enemy missile unit (Class IV or Class V units only) they must immediately cease
 * movement and may move no farther in that Movement Phase." The archers at 0604 face s: their
 * front hexes are 0605, 0705, 0505; 0704 and 0504 are flank hexes. */
static void general_movement_k_stop_in_missile_front(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0607 n; v-b vikings foot 0804 nw; "
                                         "s-arch saxons archers 0604 s"});
    refuse(st, "v-a", "{'type': 'move', 'path': ['0606', '0605', '0505']}", NODICE, 422,
           "rules_violation", "path[2]", "going on after a missile unit's front hex");
    json_t *r =
        ok(&st, "v-a", "{'type': 'move', 'path': ['0606', '0605']}", NODICE, "into the front hex");
    assert_true(json_is_true(json_object_get(r, "stopped")));
    expect_str(r, "stopped_by", "s-arch", "into the front hex");
    expect_str(r, "cost", "2", "into the front hex");
    json_decref(r);
    expect_said("s-arch", "into the front hex");
    /* a flank hex of the missile unit does not stop a move */
    r = ok(&st, "v-b", "{'type': 'move', 'path': ['0704', '0703']}", NODICE, "past the flank");
    assert_false(json_is_true(json_object_get(r, "stopped")));
    expect_str(r, "to", "0703", "past the flank");
    json_decref(r);
    json_decref(st);
}

/* GENERAL MOVEMENT RULES (K): "In any following Friendly Movement Phase they may leave that hex,
 * but must again cease movement immediately if they enter another hex adjacent to the front an
 * Enemy missile unit. They may move directly from one such hex to another." */
static void general_movement_k_leave_and_front_to_front(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0705 ne; v-b vikings foot 0505 se; "
                                         "s-arch saxons archers 0604 s"});
    /* v-a starts in a front hex (0705) and leaves it, two hexes on */
    json_t *r = ok(&st, "v-a", "{'type': 'move', 'path': ['0804', '0803']}", NODICE,
                   "leaving the front hex");
    assert_false(json_is_true(json_object_get(r, "stopped")));
    expect_str(r, "to", "0803", "leaving the front hex");
    json_decref(r);
    /* v-b goes from one front hex (0505) directly into another (0605) and stops there */
    refuse(st, "v-b", "{'type': 'move', 'path': ['0605', '0606']}", NODICE, 422, "rules_violation",
           "path[1]", "on past the second front hex");
    r = ok(&st, "v-b", "{'type': 'move', 'path': ['0605']}", NODICE, "front hex to front hex");
    assert_true(json_is_true(json_object_get(r, "stopped")));
    json_decref(r);
    expect_at(st, "v-b", "0605", "front hex to front hex");
    json_decref(st);
}

/* GENERAL MOVEMENT RULES (K): "(Class IV or Class V units only)"; DEMORALIZATION AND PANIC:
 * "Units which normally possess some control over hexes adjacent to their front (Missile units
 * ...) forfeit that control while they are demoralized." Slingers (Class V) stop a move; javelin
 * men (Class I with a missile strength) and demoralized archers do not. */
static void general_movement_k_class_iv_v_only_not_demoralized(void **unused) {
    (void)unused;
    static const char *const types[] = {"slingers", "javelin", "archers"};
    for (int i = 0; i < 3; i++) {
        char units[256];
        snprintf(units, sizeof units, "v-a vikings foot 0607 n; s-m saxons %s 0604 s", types[i]);
        json_t *st = mkstate((spec){.units = units});
        if (i == 2) edit_unit(st, "s-m", "demoralized", DEMORALIZED);
        const char *move = "{'type': 'move', 'path': ['0606', '0605', '0505']}";
        if (i == 0) {
            refuse(st, "v-a", move, NODICE, 422, "rules_violation", "path[2]",
                   "Class V slingers stop the move in 0605");
        } else {
            json_t *r =
                ok(&st, "v-a", move, NODICE,
                   i == 1 ? "Class I javelin men stop nobody" : "demoralized archers stop nobody");
            assert_false(json_is_true(json_object_get(r, "stopped")));
            json_decref(r);
        }
        json_decref(st);
    }
}

/* ---- TERRAIN EFFECTS CHART (Clarification) ------------------------------------------------- */

/* TEC: "The Movement Point cost to enter a hex containing two differing terrain types (i e, a
 * wooded slope hex) is computed solely on the Movement Point entry cost of the more difficult
 * terrain type. Thus, it costs four Movement Points to enter a wooded slope hex, not six."
 * Chart: woods 4, slope 2 for class I; foot has 6 MP. */
static void tec_wooded_slope_dearer_terrain_only(void **unused) {
    (void)unused;
    spec s = {.hexes = "{'0606': {'terrain': ['woods', 'slope'], 'level': 1}}",
              .units = "v-a vikings foot 0607 n"};
    json_t *st = mkstate(s);
    /* 4 + 1 + 1 = 6: exactly the allowance (the sum 6 + 1 + 1 would not fit) */
    json_t *r = ok(&st, "v-a", "{'type': 'move', 'path': ['0606', '0605', '0604']}", NODICE,
                   "wooded slope then two clear");
    expect_str(r, "cost", "6", "wooded slope then two clear");
    expect_str(r, "allowance", "6", "wooded slope then two clear");
    expect_str(json_array_get(json_object_get(r, "steps"), 0), "cost", "4", "the wooded slope");
    json_decref(r);
    expect_said("dearer", "wooded slope then two clear");
    json_decref(st);
    /* costs beyond the allowance: 4 + 1 + 1 + 1 = 7 > 6 */
    st = mkstate(s);
    refuse(st, "v-a", "{'type': 'move', 'path': ['0606', '0605', '0604', '0603']}", NODICE, 422,
           "rules_violation", "path", "7 MP with 6");
    json_decref(st);
}

/* TEC: "Cost to enter a road hex through a road hexside is 1/2 of a Movement Point. Cost to enter
 * a road hex when not moving through a road hexside is computed according to the entry cost
 * dictated by the other terrain in the road hex." Woods 0606, 0605, 0604; a road 0607-0606-0605.
 * Class II may enter woods only along a road (chart "road"). */
static void tec_road_hexside_half(void **unused) {
    (void)unused;
    spec s = {.hexes = "{'0606': {'terrain': 'woods'}, '0605': {'terrain': 'woods'}, "
                       "'0604': {'terrain': 'woods'}}",
              .hexsides = "[{'hexes': ['0607', '0606'], 'features': ['road']}, "
                          "{'hexes': ['0606', '0605'], 'features': ['road']}]",
              .units = "v-cav vikings medcav 0607 n; v-a vikings foot 0607 n; "
                       "v-b vikings foot 0706 nw"};
    json_t *st = mkstate(s);
    json_t *r = ok(&st, "v-cav", "{'type': 'move', 'path': ['0606']}", NODICE, "one road hex");
    expect_str(r, "cost", "1/2", "one road hex");
    json_decref(r);
    expect_said("road hexside", "one road hex");
    json_decref(st);
    st = mkstate(s);
    r = ok(&st, "v-cav", "{'type': 'move', 'path': ['0606', '0605']}", NODICE, "two road hexes");
    expect_str(r, "cost", "1", "two road hexes");
    json_decref(r);
    json_decref(st);
    /* off the road the woods' own cost: foot 4; medium cavalry may not */
    st = mkstate(s);
    r = ok(&st, "v-a", "{'type': 'move', 'path': ['0606', '0605', '0604']}", NODICE,
           "road, road, then woods off the road");
    expect_str(r, "cost", "5", "road, road, then woods off the road");
    json_decref(r);
    refuse(st, "v-cav", "{'type': 'move', 'path': ['0606', '0605', '0604']}", NODICE, 422,
           "rules_violation", "path[2]", "cavalry into woods off the road");
    /* a road hex entered through a hexside that is not the road's: the woods cost 4 */
    r = ok(&st, "v-b", "{'type': 'move', 'path': ['0605']}", NODICE, "road hex from the side");
    expect_str(r, "cost", "4", "road hex from the side");
    json_decref(r);
    json_decref(st);
}

/* TEC: "A stream hex is defined as a hex in which there is land to either side of the blue
 * (water) marking. It costs units two Movement Points to enter a stream hex. Streams may be
 * crossed at any point at a cost of two additional Movement Points in addition to the normal
 * entry cost of the next hex moved into." The stream in 0606 runs n-s: ne and se lie on one
 * bank, sw and nw on the other (the chart's own stream cost, 3, is not the errata's). */
static void tec_stream_hex_and_crossing(void **unused) {
    (void)unused;
    const char *hexes = "{'0606': {'terrain': 'stream'}}", *streams = "{'0606': ['n', 's']}";
    json_t *st =
        mkstate((spec){.hexes = hexes, .streams = streams, .units = "v-a vikings foot 0706 sw"});
    /* in from the east bank (2), out on the west bank (1 + 2) */
    json_t *r =
        ok(&st, "v-a", "{'type': 'move', 'path': ['0606', '0506']}", NODICE, "across the stream");
    expect_str(json_array_get(json_object_get(r, "steps"), 0), "cost", "2", "the stream hex");
    expect_str(json_array_get(json_object_get(r, "steps"), 1), "cost", "3", "the crossing");
    expect_str(r, "cost", "5", "across the stream");
    json_decref(r);
    expect_said("crossing the stream", "across the stream");
    json_decref(st);
    /* standing in the stream on a bank (setup.units[].bank) */
    st = mkstate((spec){.hexes = hexes,
                        .streams = streams,
                        .units = "v-e vikings foot 0606 ne bank=se; v-w vikings foot 0606 ne "
                                 "bank=nw"});
    r = ok(&st, "v-e", "{'type': 'move', 'path': ['0706']}", NODICE, "out on its own bank");
    expect_str(r, "cost", "1", "out on its own bank");
    json_decref(r);
    r = ok(&st, "v-w", "{'type': 'move', 'path': ['0706']}", NODICE, "out on the other bank");
    expect_str(r, "cost", "3", "out on the other bank");
    json_decref(r);
    json_decref(st);
}

/* TEC: "There is no additional Movement Point cost to cross a stream through a bridge or ford
 * hex." "A ford hex is treated as clear terrain for Movement purposes". "It costs all units one
 * half of a Movement Point to enter a bridge hex if entered from a road hex (if entered from a
 * non road hex it costs one Movement Point to enter a bridge hex)." */
static void tec_no_crossing_cost_at_ford_or_bridge(void **unused) {
    (void)unused;
    static const char *const hexes[] = {"{'0606': {'terrain': ['stream', 'ford']}}",
                                        "{'0606': {'terrain': ['stream', 'bridge']}}"};
    static const char *const why[] = {"across at a ford: 1 (as clear) + 1",
                                      "across a bridge: 1 (from a non-road hex) + 1"};
    for (int i = 0; i < 2; i++) {
        json_t *st = mkstate((spec){.hexes = hexes[i],
                                    .streams = "{'0606': ['n', 's']}",
                                    .units = "v-a vikings foot 0706 sw"});
        json_t *r = ok(&st, "v-a", "{'type': 'move', 'path': ['0606', '0506']}", NODICE, why[i]);
        expect_str(r, "cost", "2", why[i]);
        json_decref(r);
        json_decref(st);
    }
}

/* TEC: "Units (except Viking Fleet units) may never enter a river hex unless it is also a bridge
 * hex." Bridge 1/2 from a road hex, else 1; "A ford hex is treated as clear terrain for Movement
 * purposes"; "to move from one such hex to another hex across a hexside covered by water costs
 * two additional Movement Points (in addition to the normal cost for the next hex entered)". */
static void tec_river_bridge_ford_water_hexside(void **unused) {
    (void)unused;
    spec s = {.hexes = "{'0604': {'terrain': ['river', 'bridge']}, '0704': {'terrain': 'river'}, "
                       "'0403': {'terrain': 'ford'}}",
              .hexsides = "[{'hexes': ['0606', '0605'], 'features': ['road']}, "
                          "{'hexes': ['0808', '0807'], 'features': ['water']}]",
              .units = "v-road vikings foot 0605 n; v-side vikings foot 0505 ne; "
                       "v-river vikings foot 0705 n; v-ford vikings foot 0404 n; "
                       "v-water vikings foot 0808 n"};
    json_t *st = mkstate(s);
    json_t *r =
        ok(&st, "v-road", "{'type': 'move', 'path': ['0604']}", NODICE, "bridge from a road hex");
    expect_str(r, "cost", "1/2", "bridge from a road hex");
    json_decref(r);
    r = ok(&st, "v-ford", "{'type': 'move', 'path': ['0403']}", NODICE, "a ford");
    expect_str(r, "cost", "1", "a ford, as clear (not the chart's 3)");
    json_decref(r);
    r = ok(&st, "v-water", "{'type': 'move', 'path': ['0807']}", NODICE, "a water hexside");
    expect_str(r, "cost", "3", "clear 1 + water hexside 2");
    json_decref(r);
    refuse(st, "v-river", "{'type': 'move', 'path': ['0704']}", NODICE, 422, "rules_violation",
           "path[0]", "a river hex without a bridge");
    json_decref(st);
    st = mkstate(s);
    r = ok(&st, "v-side", "{'type': 'move', 'path': ['0604']}", NODICE,
           "bridge from a non-road hex");
    expect_str(r, "cost", "1", "bridge from a non-road hex");
    json_decref(r);
    json_decref(st);
}

/* TEC: "The greatest Fire Protection strength that a hex can have (other than the Keep hex) is 4
 * i e., the FPS of a wooded stream hex is 4 not 6." "A ford hex ... is treated as a stream hex
 * for combat purposes." Chart: woods 3, stream 3, keep 6, ford none of its own. */
static void tec_fire_protection_at_most_four_but_keep(void **unused) {
    (void)unused;
    static const struct {
        const char *hexes, *why;
        long fps;
    } cases[] = {
        {"{'0605': {'terrain': ['woods', 'stream']}}", "a wooded stream hex: 3 + 3, at most 4", 4},
        {"{'0605': {'terrain': 'keep'}}", "the Keep: its 6", 6},
        {"{'0605': {'terrain': 'ford'}}", "a ford: a stream hex for combat, 3", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = mkstate((spec){.hexes = cases[i].hexes,
                                    .units = "v-arch vikings archers 0706 nw; v-lead vikings "
                                             "leader 0707 n; s-a saxons foot 0605 s"});
        json_t *r = fire_with(&st, "v-arch", "0605", 6);
        expect_int(r, "fps", cases[i].fps, cases[i].why);
        json_decref(r);
        json_decref(st);
    }
}

/* TEC: "Units permitted to enter certain types of terrain only on road hexes always have their
 * Melee Defense Strength(s) halved when attacked while on such a road hex." "Melee attacks may be
 * made against adjacent hexes into which the attacking unit is prohibited from entering."
 * Medium cavalry (woods only by road, swamp never) on a woods road hex: 3 halved, 1. */
static void tec_road_only_terrain_and_prohibited_hexes_in_melee(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.hexes = "{'0605': {'terrain': 'woods'}}",
                                .hexsides = "[{'hexes': ['0605', '0604'], 'features': ['road']}]",
                                .units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                         "s-cav saxons medcav 0605 s"});
    json_t *r = melee_with(&st, "v-a", "0605", 5);
    expect_strength(r, "defenders", "s-cav", "1", "cavalry on a woods road hex");
    expect_str(r, "column", "4-1", "4 vs 1");
    json_decref(r);
    expect_said("road", "cavalry on a woods road hex");
    json_decref(st);
    /* medium cavalry attacks into a swamp hex it may never enter */
    st = mkstate((spec){.hexes = "{'0605': {'terrain': 'swamp'}}",
                        .units = "v-cav vikings medcav 0608 n; v-herald vikings herald 0507 n; "
                                 "s-a saxons foot 0605 s"});
    ok_drop(&st, "v-cav", "{'type': 'move', 'path': ['0607', '0606']}", NODICE, "the charge");
    r = melee_with(&st, "v-cav", "0605", 5);
    expect_str(r, "attack", "4", "cavalry attacking a swamp hex");
    json_decref(r);
    json_decref(st);
}

/* TEC: "Units in adjacent hexes may melee through a water hexside in which case both the Attack
 * and Defense Strengths are computed as if the units were occupying stream hexes." "A ford hex
 * ... is treated as a stream hex for combat purposes." Chart: a stream hex doubles a defender:
 * foot 4 defends with 8 across a water hexside or in a ford, 4 in the open. */
static void tec_water_hexside_and_ford_fight_as_stream(void **unused) {
    (void)unused;
    static const char *const hexes[] = {NULL, "{'0605': {'terrain': 'ford'}}", NULL};
    static const char *const sides[] = {"[{'hexes': ['0606', '0605'], 'features': ['water']}]",
                                        NULL, NULL};
    static const char *const want[] = {"8", "8", "4"};
    static const char *const why[] = {"across a water hexside", "in a ford", "in the open"};
    for (int i = 0; i < 3; i++) {
        json_t *st = mkstate((spec){.hexes = hexes[i],
                                    .hexsides = sides[i],
                                    .units = "v-a vikings foot 0606 n; v-herald vikings herald "
                                             "0607 n; s-a saxons foot 0605 s"});
        json_t *r = melee_with(&st, "v-a", "0605", 5);
        expect_strength(r, "defenders", "s-a", want[i], why[i]);
        expect_str(r, "attack", "4", why[i]);
        json_decref(r);
        json_decref(st);
    }
}

/* TEC: "Class V units should have a P designation for their Attack Strength when occupying a
 * woods or swamp hex. Class V units in a woods/road hex, or a swamp/road hex have their Attack
 * Strength halved." Slingers (missile 2) in woods may not fire; on a woods road hex they fire
 * with 1. */
static void tec_class_v_in_woods(void **unused) {
    (void)unused;
    for (int road = 0; road < 2; road++) {
        json_t *st = mkstate(
            (spec){.hexes = "{'0706': {'terrain': 'woods'}}",
                   .hexsides = road ? "[{'hexes': ['0706', '0806'], 'features': ['road']}]" : NULL,
                   .units = "v-sl vikings slingers 0706 nw; v-lead vikings leader 0707 n; "
                            "s-a saxons foot 0605 s"});
        if (!road) {
            to_phase(&st, "vikings", "allocation");
            allocate(&st, "v-sl", "0605", "fire");
            to_phase(&st, "vikings", "fire");
            refuse(st, "v-sl", "{'type': 'fire', 'target': '0605'}", DICE(6), 422,
                   "rules_violation", "unit", "Class V firing from woods");
        } else {
            json_t *r = fire_with(&st, "v-sl", "0605", 6);
            expect_str(json_object_get(r, "strength"), "strength", "1",
                       "Class V on a woods road hex: 2 halved");
            json_decref(r);
        }
        json_decref(st);
    }
}

/* TEC: "The Defense strength of a unit defending on higher terrain than it is being attacked
 * from ... is computed on the Downhill Terrain effects column. ... the Attack strength of a unit
 * attacking a unit on higher terrain is computed on the Uphill terrain effects column. When a unit
 * on a slope hex is attacking an Enemy unit on an adjacent slope hex, both the Attack and Defense
 * Strength should be computed on the Uphill terrain effects column." Chart: slope defense
 * downhill x2, attack uphill x1/2. Foot on a slope attacked from lower clear ground defends with
 * 8; slope against slope on the same level, the attacker has 2 (uphill) and the defender 4 (the
 * uphill column, not the level one, and not downhill). */
static void tec_slope_columns(void **unused) {
    (void)unused;
    static const struct {
        const char *hexes, *attack, *defence, *why;
    } cases[] = {
        {"{'0605': {'terrain': 'slope', 'level': 1}}", "4", "8",
         "defending on higher ground: Downhill column"},
        {"{'0605': {'terrain': 'slope', 'level': 1}, '0606': {'terrain': 'slope', 'level': 1}}",
         "2", "4", "slope against adjacent slope: Uphill for both"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = mkstate((spec){.hexes = cases[i].hexes,
                                    .units = "v-a vikings foot 0606 n; v-herald vikings herald "
                                             "0607 n; s-a saxons foot 0605 s"});
        json_t *r = melee_with(&st, "v-a", "0605", 5);
        expect_str(r, "attack", cases[i].attack, cases[i].why);
        expect_str(r, "defence", cases[i].defence, cases[i].why);
        json_decref(r);
        json_decref(st);
    }
}

/* TEC: "Units are only prohibited from attacking when in hexes which cause a terrain effect of P
 * to appear in the Attack Strength section of the Terrain Effects Chart under their unit class.
 * Units may otherwise attack, even in terrain in which they are restricted to road hexes. In such
 * cases the road has no effect; the Attack Strength is computed according to the other terrain
 * in the hex." Chart: swamp attack P for class II only. Knights (class II, heavy: no charge
 * minimum, Melee Attack 5) in a swamp may not attack; foot in a swamp may; knights on a woods
 * road hex attack with their full 5. */
static void tec_attack_prohibited_only_by_p(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.hexes = "{'0606': {'terrain': 'swamp'}}",
                                .units = "v-k vikings knights 0606 n; v-herald vikings herald "
                                         "0607 n; s-a saxons foot 0605 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-k", "0605", "melee");
    to_phase(&st, "vikings", "melee");
    refuse(st, "v-k", "{'type': 'melee', 'defender': '0605'}", DICE(5), 422, "rules_violation",
           "unit", "class II attacking from a swamp (P)");
    json_decref(st);
    st = mkstate((spec){.hexes = "{'0606': {'terrain': 'swamp'}}",
                        .units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                 "s-a saxons foot 0605 s"});
    json_t *r = melee_with(&st, "v-a", "0605", 5);
    expect_str(r, "attack", "4", "class I attacking from a swamp");
    json_decref(r);
    json_decref(st);
    st = mkstate((spec){.hexes = "{'0606': {'terrain': 'woods'}}",
                        .hexsides = "[{'hexes': ['0606', '0607'], 'features': ['road']}]",
                        .units = "v-k vikings knights 0606 n; v-herald vikings herald 0607 n; "
                                 "s-a saxons foot 0605 s"});
    r = melee_with(&st, "v-k", "0605", 5);
    expect_str(r, "attack", "5", "class II attacking from a woods road hex");
    json_decref(r);
    json_decref(st);
}

/* ---- STACKING (C), VIKING FLEETS ------------------------------------------------------------- */

#define RIVER9                                                                                     \
    "{'0902': {'terrain': 'river'}, '0903': {'terrain': 'river'}, '0904': {'terrain': 'river'}, "  \
    "'0905': {'terrain': 'river'}, '0906': {'terrain': 'river'}, '0907': {'terrain': 'river'}, "   \
    "'0908': {'terrain': 'river'}}"

/* STACKING (C): "no more than one Viking Fleet unit can be placed in a single hex. Viking Fleet
 * units may pass through a hex containing another Viking Fleet unit but may not end any Movement
 * Phase in a hex with another Viking Fleet unit." VIKING FLEETS (A): "Viking Fleet counters may
 * never end a Movement Phase in the same hex as another fleet counter." */
static void stacking_c_one_fleet_per_hex(void **unused) {
    (void)unused;
    json_t *st = mkstate(
        (spec){.hexes = RIVER9, .units = "f1 vikings longship 0906 -; f2 vikings longship 0904 -"});
    refuse(st, "f1", "{'type': 'move', 'path': ['0905', '0904']}", NODICE, 422, "rules_violation",
           "path", "ending with another fleet");
    json_t *r = ok(&st, "f1", "{'type': 'move', 'path': ['0905', '0904', '0903']}", NODICE,
                   "passing through another fleet");
    expect_str(r, "to", "0903", "passing through another fleet");
    expect_str(r, "cost", "3", "passing through another fleet");
    json_decref(r);
    json_decref(st);
    expect_setup_error(
        (spec){.hexes = RIVER9, .units = "f1 vikings longship 0906 -; f2 vikings longship 0906 -"},
        422, "invalid_setup", "setup.units[1]", "two fleets placed in one hex");
}

/* STACKING (C): "Each Viking Fleet unit has the capacity to transport a maximum of three Friendly
 * Combat units (not including Command units) regardless of the Individual Stacking Point values
 * of the transported units." VIKING FLEETS (A): "a maximum of three combat units (in addition
 * any number of Command units)". Boarding is entering the fleet's hex (house default). */
static void viking_fleets_a_three_combat_units(void **unused) {
    (void)unused;
    /* three combat units of 2 stacking points each (6 > the hex limit 3) and two command units */
    json_t *st = mkstate((spec){.hexes = RIVER9,
                                .units = "f1 vikings longship 0906 -; "
                                         "c1 vikings medcav 0906 n aboard=f1; "
                                         "c2 vikings medcav 0906 n aboard=f1; "
                                         "c3 vikings medcav 0906 n aboard=f1; "
                                         "k1 vikings leader 0906 n aboard=f1; "
                                         "k2 vikings chief 0906 n aboard=f1; "
                                         "v-foot vikings foot 0806 ne; "
                                         "v-herald vikings herald 0806 ne"});
    refuse(st, "v-foot", "{'type': 'move', 'path': ['0906']}", NODICE, 422, "rules_violation",
           "path[0]", "a fourth combat unit boarding");
    json_t *r =
        ok(&st, "v-herald", "{'type': 'move', 'path': ['0906']}", NODICE, "a command boarding");
    expect_str(r, "aboard", "f1", "a command boarding");
    json_decref(r);
    /* the fleet carries its load along */
    ok_drop(&st, "f1", "{'type': 'move', 'path': ['0905', '0904']}", NODICE, "the loaded fleet");
    static const char *const cargo[] = {"c1", "c2", "c3", "k1", "k2", "v-herald"};
    for (int i = 0; i < 6; i++)
        expect_at(st, cargo[i], "0904", "cargo moved with its fleet");
    json_decref(st);
    /* a fourth combat unit aboard at setup */
    expect_setup_error((spec){.hexes = RIVER9,
                              .units = "f1 vikings longship 0906 -; "
                                       "c1 vikings foot 0906 n aboard=f1; "
                                       "c2 vikings foot 0906 n aboard=f1; "
                                       "c3 vikings foot 0906 n aboard=f1; "
                                       "c4 vikings foot 0906 n aboard=f1"},
                       422, "invalid_setup", "setup.units[4].aboard", "four combat units aboard");
}

/* VIKING FLEETS (C): "Viking Fleet counters are exempt from all facing rules." FACING General
 * Rule: "Viking Fleet units are exempt from all Facing rules." A fleet has no facing to give,
 * none to change, and moves any way (even straight back) with no facing cost. */
static void viking_fleets_c_exempt_from_facing(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.hexes = RIVER9, .units = "f1 vikings longship 0906 -"});
    refuse(st, "f1", "{'type': 'move', 'path': [{'face': 'ne'}]}", NODICE, 422, "rules_violation",
           "path[0]", "a fleet changing facing");
    json_t *r = ok(&st, "f1", "{'type': 'move', 'path': ['0907', '0906', '0905']}", NODICE,
                   "a fleet back and forth");
    expect_str(r, "cost", "3", "a fleet back and forth: no facing costs");
    json_decref(r);
    json_decref(st);
}

/* VIKING FLEETS (E): "Troops may only be disembarked from moored fleets during a Friendly
 * Movement Phase." A fleet that has moved this phase is not moored (house default). */
static void viking_fleets_e_disembark_from_moored_fleet(void **unused) {
    (void)unused;
    const char *units = "f1 vikings longship 0906 -; c1 vikings foot 0906 n aboard=f1";
    json_t *st = mkstate((spec){.hexes = RIVER9, .units = units});
    ok_drop(&st, "f1", "{'type': 'move', 'path': ['0905']}", NODICE, "the fleet sails");
    expect_at(st, "c1", "0905", "aboard the fleet");
    refuse(st, "c1", "{'type': 'move', 'path': ['0805']}", NODICE, 422, "rules_violation", "path",
           "landing from a fleet that has moved");
    json_decref(st);
    st = mkstate((spec){.hexes = RIVER9, .units = units});
    json_t *r =
        ok(&st, "c1", "{'type': 'move', 'path': ['0806']}", NODICE, "landing from a moored fleet");
    expect_str(r, "cost", "1", "landing from a moored fleet");
    json_decref(r);
    expect_at(st, "c1", "0806", "landed");
    assert_null(json_object_get(unit_in(st, "c1"), "aboard"));
    json_decref(st);
}

/* STACKING (the chart's limit, setup.charts.stacking_limit): a hex holds 3 stacking points; a
 * move ending above it is refused; without the limit in the charts the move answers
 * chart_missing. */
static void stacking_limit_from_charts(void **unused) {
    (void)unused;
    const char *units = "v-a vikings foot 0606 n; v-b vikings foot 0606 n; "
                        "v-c vikings foot 0607 n; v-cav vikings medcav 0608 n";
    json_t *st = mkstate((spec){.units = units});
    refuse(st, "v-cav", "{'type': 'move', 'path': ['0607', '0606']}", NODICE, 422,
           "rules_violation", "path", "1 + 1 + 2 points in 0606");
    ok_drop(&st, "v-c", "{'type': 'move', 'path': ['0606']}", NODICE, "1 + 1 + 1 points");
    json_decref(st);
    st = mkstate((spec){.charts = "{" UNITS_CHART ", " TERRAIN_CHART "}", .units = units});
    refuse(st, "v-c", "{'type': 'move', 'path': ['0606']}", NODICE, 422, "chart_missing", NULL,
           "no stacking limit in the charts");
    json_decref(st);
}

/* ---- FACING (I), COMBAT (K) ------------------------------------------------------------------ */

/* FACING General Rule: "A unit uses its Melee Defense Strength Flank when it is attacked in Melee
 * combat from any hex not adjacent to its front." Foot (4, flank 2) facing s at 0605: attacked
 * from 0606 (front) it has 4, from 0604 (behind) 2. */
static void facing_general_flank_defense(void **unused) {
    (void)unused;
    static const char *const units[] = {
        "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; s-a saxons foot 0605 s",
        "v-a vikings foot 0604 s; v-herald vikings herald 0603 n; s-a saxons foot 0605 s"};
    static const char *const want[] = {"4", "2"};
    for (int i = 0; i < 2; i++) {
        json_t *st = mkstate((spec){.units = units[i]});
        json_t *r = melee_with(&st, "v-a", "0605", 5);
        expect_strength(r, "defenders", "s-a", want[i], i ? "from behind" : "from the front");
        json_decref(r);
        if (i) expect_said("flank", "from behind");
        json_decref(st);
    }
}

/* COMBAT (K): "Units which engage in a Melee combat in which no participating unit is either
 * eliminated or demoralized remain in Contact ... forbidden from leaving the hex in which the
 * contact was established". FACING (I): "Units in Contact with Enemy units may change their
 * facing (during the Friendly Movement Phase) up to 60 degrees while remaining in the same hex."
 * COMBAT (K) Note: "by one hexside during each Friendly Movement Phase". */
static void facing_i_combat_k_contact(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-chief vikings chief 0607 n; "
                                         "s-a saxons foot 0605 s"});
    /* 4 vs 4 (1-1); roll 6, chief -1: row 5, "-": nobody eliminated or demoralized */
    json_t *r = melee_with(&st, "v-a", "0605", 6);
    expect_str(r, "result", "-", "the melee");
    expect_int(r, "row", 5, "the melee");
    assert_true(json_is_true(json_object_get(r, "contact")));
    json_decref(r);
    assert_true(has_id(json_object_get(unit_in(st, "v-a"), "contact"), "s-a"));
    assert_true(has_id(json_object_get(unit_in(st, "s-a"), "contact"), "v-a"));
    to_phase(&st, "vikings", "movement");
    assert_int_equal(game_turn(st), 2);
    refuse(st, "v-a", "{'type': 'move', 'path': ['0705']}", NODICE, 422, "rules_violation",
           "path[0]", "leaving the hex in contact");
    refuse(st, "v-a", "{'type': 'move', 'path': [{'face': 'se'}]}", NODICE, 422, "rules_violation",
           "path[0]", "two hexsides at once in contact");
    refuse(st, "v-a", "{'type': 'move', 'path': [{'face': 'ne'}, {'face': 'se'}]}", NODICE, 422,
           "rules_violation", "path[1]", "two hexsides in two steps in contact");
    r = ok(&st, "v-a", "{'type': 'move', 'path': [{'face': 'ne'}]}", NODICE,
           "one hexside in contact");
    expect_str(r, "facing", "ne", "one hexside in contact");
    expect_str(r, "to", "0606", "one hexside in contact");
    json_decref(r);
    expect_said("turns in 0606 to face ne", "one hexside in contact");
    json_decref(st);
}

/* ---- DEMORALIZATION AND PANIC, COMMAND UNITS (A) --------------------------------------------- */

/* DEMORALIZATION: "A demoralized unit has its Movement Allowance ... halved (losing any
 * fractions)". COMMAND UNITS (A): "demoralized units may move up to half their normal Movement
 * Allowance and this movement is subject to the Command unit movement restriction, ie, the
 * moving unit must have begun the Friendly Movement Phase stacked with, or adjacent to, a
 * Friendly Command unit." Light infantry: 5 MP, demoralized 2. */
static void demoralization_halves_movement_near_command(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-l vikings light 0608 n; v-lead vikings leader 0708 n; "
                                         "v-m vikings light 0408 n"});
    edit_unit(st, "v-l", "demoralized", DEMORALIZED);
    refuse(st, "v-l", "{'type': 'move', 'path': ['0607', '0606', '0605']}", NODICE, 422,
           "rules_violation", "path", "3 MP demoralized");
    json_t *r =
        ok(&st, "v-l", "{'type': 'move', 'path': ['0607', '0606']}", NODICE, "2 MP demoralized");
    expect_str(r, "allowance", "2", "half of 5, the fraction lost");
    json_decref(r);
    expect_said("demoralized", "2 MP demoralized");
    /* the same type not demoralized: its full 5 */
    r = ok(&st, "v-m", "{'type': 'move', 'path': ['0407', '0406', '0405', '0404', '0403']}", NODICE,
           "5 MP in good order");
    expect_str(r, "allowance", "5", "5 MP in good order");
    json_decref(r);
    json_decref(st);

    /* no command unit beside it at the start of the phase: it may not move at all */
    st = mkstate((spec){.units = "v-l vikings light 0608 n; v-lead vikings leader 0808 nw"});
    edit_unit(st, "v-l", "demoralized", DEMORALIZED);
    refuse(st, "v-l", "{'type': 'move', 'path': ['0607']}", NODICE, 422, "rules_violation", "unit",
           "no command unit beside it");
    /* a command unit arriving next to it during the phase does not help: it "must have begun" */
    ok_drop(&st, "v-lead", "{'type': 'move', 'path': ['0708']}", NODICE, "leader arrives");
    refuse(st, "v-l", "{'type': 'move', 'path': ['0607']}", NODICE, 422, "rules_violation", "unit",
           "the leader arrived during the phase");
    json_decref(st);

    /* one beside it at the start that has since moved away still counts */
    st = mkstate((spec){.units = "v-l vikings light 0608 n; v-lead vikings leader 0708 n"});
    edit_unit(st, "v-l", "demoralized", DEMORALIZED);
    ok_drop(&st, "v-lead", "{'type': 'move', 'path': ['0707', '0706']}", NODICE, "leader leaves");
    ok_drop(&st, "v-l", "{'type': 'move', 'path': ['0607']}", NODICE,
            "the leader began the phase beside it");
    json_decref(st);

    /* DEMORALIZATION: "the Command unit retains its normal control over the movement of other
     * Friendly units" while demoralized */
    st = mkstate((spec){.units = "v-l vikings light 0608 n; v-lead vikings leader 0708 n"});
    edit_unit(st, "v-l", "demoralized", DEMORALIZED);
    edit_unit(st, "v-lead", "demoralized", DEMORALIZED);
    ok_drop(&st, "v-l", "{'type': 'move', 'path': ['0607']}", NODICE,
            "beside a demoralized leader");
    json_decref(st);
}

/* DEMORALIZATION: "a demoralized unit may never initiate an attack (whether Melee or Fire,
 * including Defensive Fire) while it is in a demoralized state"; PANIC: "Panicked units may not
 * initiate any attacks nor may they use Defensive Fire." */
static void demoralization_no_attacks(void **unused) {
    (void)unused;
    spec s = {.units = "v-a vikings foot 0606 n; v-lead vikings leader 0607 n; "
                       "v-arch vikings archers 0707 n; s-a saxons foot 0605 s"};
    json_t *st = mkstate(s);
    edit_unit(st, "v-a", "demoralized", DEMORALIZED);
    edit_unit(st, "v-arch", "demoralized", DEMORALIZED);
    to_phase(&st, "vikings", "allocation");
    refuse(st, "v-a", "{'type': 'allocate', 'target': '0605', 'kind': 'melee'}", NODICE, 422,
           "rules_violation", "unit", "a demoralized unit allocating melee");
    refuse(st, "v-arch", "{'type': 'allocate', 'target': '0605', 'kind': 'fire'}", NODICE, 422,
           "rules_violation", "unit", "a demoralized missile unit allocating fire");
    json_decref(st);
    st = mkstate(s);
    make_panicked(st, "v-a", "south", true);
    to_phase(&st, "vikings", "allocation");
    refuse(st, "v-a", "{'type': 'allocate', 'target': '0605', 'kind': 'melee'}", NODICE, 422,
           "rules_violation", "unit", "a panicked unit allocating melee");
    json_decref(st);
    /* Defensive Fire: the saxon archers at 0604 would answer v-b, allocated against them */
    for (int c = 0; c < 2; c++) {
        st = mkstate((spec){.units = "v-b vikings foot 0605 n; v-lead vikings leader 0606 n; "
                                     "s-arch saxons archers 0604 s"});
        if (c == 0)
            edit_unit(st, "s-arch", "demoralized", DEMORALIZED);
        else
            make_panicked(st, "s-arch", "north", false);
        to_phase(&st, "vikings", "allocation");
        allocate(&st, "v-b", "0604", "melee");
        to_phase(&st, "vikings", "defensive_fire");
        refuse(st, "s-arch", "{'type': 'fire', 'target': '0605'}", DICE(4), 422, "rules_violation",
               "unit", c ? "panicked Defensive Fire" : "demoralized Defensive Fire");
        json_decref(st);
    }
}

/* DEMORALIZATION: "The effects of demoralization last until the end of the same Phase (in which
 * the unit was demoralized) in the following Game-Turn." Demoralized in the vikings' Melee Phase
 * of Game-Turn 1, the saxon unit is still demoralized in that phase of Game-Turn 2 and no longer
 * from the phase after it. */
static void demoralization_lasts_until_same_phase_next_game_turn(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                         "s-a saxons foot 0605 s"});
    json_t *r = melee_with(&st, "v-a", "0605", 4); /* 4 vs 4, no modifier: row 4, DD */
    expect_str(r, "result", "DD", "the melee");
    json_decref(r);
    assert_true(demoralized(st, "s-a"));
    /* ten phases on: the vikings' Melee Phase of Game-Turn 2 */
    for (int i = 0; i < 10; i++) {
        r = ok(&st, NULL, END_PHASE, NODICE, "end_phase");
        assert_int_equal(json_array_size(json_object_get(r, "demoralization_ended")), 0);
        json_decref(r);
        if (!demoralized(st, "s-a"))
            fail_msg("s-a no longer demoralized after %d phases (Game-Turn %ld, %s phase of %s)",
                     i + 1, game_turn(st), turn_of(st, "phase"), turn_of(st, "side"));
    }
    assert_int_equal(game_turn(st), 2);
    assert_string_equal(turn_of(st, "phase"), "melee");
    assert_string_equal(turn_of(st, "side"), "vikings");
    r = ok(&st, NULL, END_PHASE, NODICE, "the end of that phase");
    static const char *const ended[] = {"s-a", NULL};
    expect_ids(json_object_get(r, "demoralization_ended"), ended, "the end of that phase");
    json_decref(r);
    assert_false(demoralized(st, "s-a"));
    expect_said("no longer demoralized: s-a", "the end of that phase");
    json_decref(st);
}

/* ---- COMMAND UNITS ------------------------------------------------------------------------- */

/* COMMAND UNITS (B): "In order to initiate any type of attack (Missile or Melee) the attacking
 * unit must be stacked with or adjacent to a Friendly Command unit (not demoralized) during the
 * Attack Allocation Phase ... Units In Contact with Enemy units may attack adjacent Enemy units
 * regardless of the proximity of a Friendly Command unit. Units defending against Enemy attacks
 * (including the use of Defensive Fire) may do so regardless of the proximity of Friendly Command
 * units." */
static void command_units_b_allocation_needs_command(void **unused) {
    (void)unused;
    static const struct {
        const char *leader, *why;
        bool demoralized, allowed;
    } cases[] = {
        {"", "no command unit", false, false},
        {"; v-lead vikings leader 0607 n", "a leader adjacent", false, true},
        {"; v-lead vikings leader 0606 n", "a leader stacked with it", false, true},
        {"; v-lead vikings leader 0608 n", "a leader two hexes off", false, false},
        {"; v-lead vikings leader 0607 n", "a demoralized leader adjacent", true, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[256];
        snprintf(units, sizeof units, "v-a vikings foot 0606 n; s-a saxons foot 0605 s%s",
                 cases[i].leader);
        json_t *st = mkstate((spec){.units = units});
        if (cases[i].demoralized) edit_unit(st, "v-lead", "demoralized", DEMORALIZED);
        to_phase(&st, "vikings", "allocation");
        const char *a = "{'type': 'allocate', 'target': '0605', 'kind': 'melee'}";
        if (cases[i].allowed) {
            json_t *r = ok(&st, "v-a", a, NODICE, cases[i].why);
            expect_str(r, "command", "v-lead", cases[i].why);
            json_decref(r);
            expect_said("v-lead", cases[i].why);
        } else {
            refuse(st, "v-a", a, NODICE, 422, "rules_violation", "unit", cases[i].why);
            expect_refused_msg("COMMAND UNITS (B)", cases[i].why);
        }
        json_decref(st);
    }
    /* in contact: no command unit needed */
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; s-a saxons foot 0605 s"});
    edit_unit(st, "v-a", "contact", "['s-a']");
    edit_unit(st, "s-a", "contact", "['v-a']");
    to_phase(&st, "vikings", "allocation");
    json_t *r = ok(&st, "v-a", "{'type': 'allocate', 'target': '0605', 'kind': 'melee'}", NODICE,
                   "in contact");
    assert_true(json_is_true(json_object_get(r, "contact")));
    json_decref(r);
    json_decref(st);
    /* Defensive Fire without any saxon command unit on the map */
    st = mkstate((spec){.units = "v-b vikings foot 0605 n; v-lead vikings leader 0606 n; "
                                 "s-arch saxons archers 0604 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-b", "0604", "melee");
    to_phase(&st, "vikings", "defensive_fire");
    r = ok(&st, "s-arch", "{'type': 'fire', 'target': '0605'}", DICE(4), "Defensive Fire");
    assert_true(json_is_true(json_object_get(r, "defensive")));
    expect_str(r, "result", "DD", "Defensive Fire: 3 vs FPS 0 (8-1), roll 4");
    json_decref(r);
    assert_true(demoralized(st, "v-b"));
    json_decref(st);
}

/* COMMAND UNITS (C), Important Note: "In Melee attacks made by units adjacent to, or stacked with
 * a Friendly Command unit, subtract the appropriate number from the die roll. Conversely, the
 * appropriate number is added to a die roll made by Enemy units attacking units which are stacked
 * with, or adjacent to a Friendly Command unit. Command units lose their ability to influence
 * combat in this manner while they are demoralized." Leader bonus 2, chief 1, herald 0. Foot 4
 * vs foot 4: 1-1, whose rows are 1 DE, 2 2E, 3 1E, 4 DD, 5 -, 6 AD. */
static void command_units_c_melee_modifiers(void **unused) {
    (void)unused;
    static const struct {
        const char *units, *demoralized, *result, *term, *why;
        int64_t die;
        long modifier, row;
    } cases[] = {
        {"; v-lead vikings leader 0607 n", NULL, "1E", "command v-lead",
         "the attacker's leader: 5 - 2", 5, -2, 3},
        {"; v-herald vikings herald 0607 n; s-chief saxons chief 0604 s", NULL, "DD",
         "enemy command s-chief", "the defender's chief: 3 + 1", 3, 1, 4},
        {"; v-lead vikings leader 0607 n; s-chief saxons chief 0604 s", NULL, "1E",
         "enemy command s-chief", "both: 4 - 2 + 1", 4, -1, 3},
        {"; v-herald vikings herald 0607 n; s-chief saxons chief 0604 s", "s-chief", "1E",
         "no modifier", "the defender's chief demoralized: 3", 3, 0, 3},
        {"; v-herald vikings herald 0607 n; v-lead vikings leader 0707 n", "v-lead", "-",
         "no modifier", "the attacker's leader demoralized: 5", 5, 0, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[256];
        snprintf(units, sizeof units, "v-a vikings foot 0606 n; s-a saxons foot 0605 s%s",
                 cases[i].units);
        json_t *st = mkstate((spec){.units = units});
        if (cases[i].demoralized) edit_unit(st, cases[i].demoralized, "demoralized", DEMORALIZED);
        json_t *r = melee_with(&st, "v-a", "0605", cases[i].die);
        expect_str(r, "column", "1-1", cases[i].why);
        expect_int(r, "roll", cases[i].die, cases[i].why);
        expect_int(r, "modifier", cases[i].modifier, cases[i].why);
        expect_int(r, "row", cases[i].row, cases[i].why);
        expect_str(r, "result", cases[i].result, cases[i].why);
        json_decref(r);
        expect_said(cases[i].term, cases[i].why);
        json_decref(st);
    }
}

/* COMMAND UNITS (C): "The influence of Command units which causes additions or subtractions to
 * be made to combat die rolls is applicable only in Melee combat. Command units never influence
 * the die roll for any type of missile combat." Archers 3 vs Fire Protection 0: 8-1; a 4 reads
 * DD, where the leader's -2 and the chief's +1 would have made it a 3 (1E). */
static void command_units_c_never_in_missile_fire(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-arch vikings archers 0706 nw; v-lead vikings leader "
                                         "0707 n; s-a saxons foot 0605 s; s-chief saxons chief "
                                         "0604 s"});
    json_t *r = fire_with(&st, "v-arch", "0605", 4);
    expect_str(r, "column", "8-1", "the fire");
    expect_int(r, "roll", 4, "the fire");
    expect_str(r, "result", "DD", "the fire: roll 4 unmodified");
    json_decref(r);
    expect_said("no modifier", "the fire");
    assert_true(demoralized(st, "s-a"));
    assert_false(flag_of(st, "s-a", "eliminated"));
    json_decref(st);
}

/* ---- FEROCITY, ROMAN (BYZANTINE) VITALITY ---------------------------------------------------- */

/* FEROCITY (B): "In all subsequent Melee attacks, one is subtracted from the die roll in all
 * attacks made by the ferocious Player"; (C): "In all Melee attacks launched against units of the
 * ferocious Player, one is added to the die roll". ROMAN (BYZANTINE) VITALITY (A): "In all Melee
 * attacks by the Byzantine Player, subtract one from the die roll." (B): "In all Melee attacks
 * by the opposing Player, add one to the die roll." The vikings attack (herald: no bonus), foot 4
 * vs 4 (1-1), roll 4 (DD). */
static void ferocity_and_byzantine_vitality(void **unused) {
    (void)unused;
    static const struct {
        const char *players, *result, *term, *why;
        long modifier;
    } cases[] = {
        {"[{'side': 'saxons'}, {'side': 'vikings', 'ferocious': true}]", "1E", "ferocity",
         "FEROCITY (B): ferocious attacker", -1},
        {"[{'side': 'saxons', 'ferocious': true}, {'side': 'vikings'}]", "-",
         "against the ferocious", "FEROCITY (C): ferocious defender", 1},
        {"[{'side': 'saxons'}, {'side': 'vikings', 'byzantine': true}]", "1E", "Byzantine vitality",
         "VITALITY (A): Byzantine attacker", -1},
        {"[{'side': 'saxons', 'byzantine': true}, {'side': 'vikings'}]", "-",
         "against Byzantine vitality", "VITALITY (B): Byzantine defender", 1},
        {"[{'side': 'saxons', 'byzantine': true}, {'side': 'vikings', 'ferocious': true}]", "DD",
         "ferocity", "ferocious attacker against Byzantines: -1 + 1", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = mkstate((spec){.players = cases[i].players,
                                    .units = "v-a vikings foot 0606 n; v-herald vikings herald "
                                             "0607 n; s-a saxons foot 0605 s"});
        json_t *r = melee_with(&st, "v-a", "0605", 4);
        expect_int(r, "modifier", cases[i].modifier, cases[i].why);
        expect_int(r, "row", 4 + cases[i].modifier, cases[i].why);
        expect_str(r, "result", cases[i].result, cases[i].why);
        json_decref(r);
        expect_said(cases[i].term, cases[i].why);
        json_decref(st);
    }
    /* melee only: ferocious archers fire with the roll as it falls */
    json_t *st = mkstate((spec){.players = "[{'side': 'saxons'}, {'side': 'vikings', "
                                           "'ferocious': true}]",
                                .units = "v-arch vikings archers 0706 nw; v-lead vikings leader "
                                         "0707 n; s-a saxons foot 0605 s"});
    json_t *r = fire_with(&st, "v-arch", "0605", 4);
    expect_str(r, "result", "DD", "ferocious fire: roll 4 on 8-1, unmodified (a 3 would be 1E)");
    json_decref(r);
    json_decref(st);
}

/* ---- COMBAT UNIT CAPABILITY CHART ---------------------------------------------------------- */

/* COMBAT UNIT CAPABILITY CHART, Important Note: "each unit's Combat Strength is individually
 * adjusted. Whenever any Combat Strength is halved, any remaining fraction is lost." Two
 * demoralized light units (Melee Defense 3) defend with 1 + 1 = 2, not (3 + 3) / 2 = 3: foot 4
 * vs 2 is 2-1, not 1-1. */
static void capability_note_defenders_halved_one_by_one(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                         "s-l1 saxons light 0605 s; s-l2 saxons light 0605 s"});
    edit_unit(st, "s-l1", "demoralized", DEMORALIZED);
    edit_unit(st, "s-l2", "demoralized", DEMORALIZED);
    json_t *r = melee_with(&st, "v-a", "0605", 5);
    expect_strength(r, "defenders", "s-l1", "1", "s-l1: 3 halved");
    expect_strength(r, "defenders", "s-l2", "1", "s-l2: 3 halved");
    expect_str(r, "defence", "2", "the defence");
    expect_str(r, "column", "2-1", "4 vs 2");
    json_decref(r);
    expect_said("x1/2 demoralized", "4 vs 2");
    json_decref(st);
}

/* Important Note: "Defending units may have their Combat Strength(s) reduced to less than 1.
 * Combat odds are computed on the basis of the totally adjusted Strength, i.e., an Attack
 * Strength of 4 vs. a Defense Strength of 1/2 is treated as an eight to one attack."
 * DEMORALIZATION AND PANIC: "both panicked and demoralized units have their appropriate Defense
 * Strength(s) halved (even if this reduces their strength to less than 1)". Demoralized archers
 * (Melee Defense 1) defend with 1/2; a 5 on the 8-1 column is 1E (on 6-1 it would be "-"). */
static void capability_note_four_against_half_is_eight_to_one(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                         "s-arch saxons archers 0605 s"});
    edit_unit(st, "s-arch", "demoralized", DEMORALIZED);
    json_t *r = melee_with(&st, "v-a", "0605", 5);
    expect_str(r, "attack", "4", "the attack");
    expect_str(r, "defence", "1/2", "the defence");
    expect_str(r, "column", "8-1", "4 vs 1/2");
    expect_str(r, "result", "1E", "a 5 on 8-1");
    json_decref(r);
    assert_true(flag_of(st, "s-arch", "eliminated"));
    json_decref(st);
}

/* Important Note: "Whenever any Combat Strength is halved, any remaining fraction is lost" (an
 * attacker has no exemption below 1). Two javelin units (Melee Attack 3) attack uphill from slope
 * hexes (chart: slope attack uphill x1/2): 1 + 1 = 2, not 1 1/2 + 1 1/2 = 3; against light
 * infantry (3) that is 1-2, not 1-1. */
static void capability_note_attackers_lose_fractions(void **unused) {
    (void)unused;
    json_t *st = mkstate(
        (spec){.hexes = "{'0606': {'terrain': 'slope', 'level': 1}, '0706': {'terrain': 'slope', "
                        "'level': 1}, '0605': {'terrain': 'clear', 'level': 2}}",
               .units = "v-j1 vikings javelin 0606 n; v-j2 vikings javelin 0706 nw; "
                        "v-herald vikings herald 0707 n; s-l saxons light 0605 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-j1", "0605", "melee");
    allocate(&st, "v-j2", "0605", "melee");
    to_phase(&st, "vikings", "melee");
    json_t *r = ok(&st, "v-j1", "{'type': 'melee', 'defender': '0605', 'attackers': ['v-j2']}",
                   DICE(5), "the melee");
    expect_strength(r, "attackers", "v-j1", "1", "v-j1: 3 halved uphill");
    expect_strength(r, "attackers", "v-j2", "1", "v-j2: 3 halved uphill");
    expect_str(r, "attack", "2", "the attack");
    expect_str(r, "defence", "3", "the defence");
    expect_str(r, "column", "1-2", "2 vs 3");
    json_decref(r);
    json_decref(st);
}

/* COMBAT UNIT CAPABILITY CHART (Explanation) (Correction): "In the example given (an SD unit and
 * an MS unit being attacked on their front by an MC unit) the MS unit would defend with a Melee
 * Defense Strength of 2 (one doubled), not with a Strength of 6." Chart: class II against ms x2.
 * The medium cavalry charges two hexes (no short-charge penalty): 4 vs 2 + 3 = 5, 1-2. */
static void capability_explanation_ms_defends_with_two(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-cav vikings medcav 0608 n; v-herald vikings herald "
                                         "0507 n; s-ms saxons ms 0605 s; s-sd saxons sd 0605 s"});
    ok_drop(&st, "v-cav", "{'type': 'move', 'path': ['0607', '0606']}", NODICE, "the charge");
    json_t *r = melee_with(&st, "v-cav", "0605", 5);
    expect_strength(r, "defenders", "s-ms", "2", "MS: one doubled");
    expect_strength(r, "defenders", "s-sd", "3", "SD unchanged");
    expect_str(r, "attack", "4", "the MC unit");
    expect_str(r, "defence", "5", "the defence");
    expect_str(r, "column", "1-2", "4 vs 5");
    json_decref(r);
    expect_said("x2 capability", "the melee");
    json_decref(st);
}

/* Important Note: "In adjusting Combat Strengths for Terrain effects, Combat Unit Capability, and
 * the effects of Demoralization or Panic, each unit's Combat Strength is individually adjusted.
 * Whenever any Combat Strength is halved, any remaining fraction is lost." The errata lists the
 * three but does not order them; the module's order (docs/rules/spi-dark-ages.md, strength.c) is
 * terrain, then capability, then (road-only halving, then) demoralization or panic, each rounded
 * as it is applied. In a swamp (Defense x1/2) against a Class II lead (capability x2): sd 3 -> 1
 * -> 2 (capability first would give 3); demoralized pikes 7 -> 3 -> 6 -> 3 (demoralization
 * before capability would give 2). Axes 6 vs 5: 1-1, a 5 is "-". */
static void capability_note_module_order_terrain_capability_demoralization(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){
        .charts = "{'units': {'axes': {'class': 'II', 'melee_attack': 6, 'melee_defense': 3, "
                  "'melee_defense_flank': 1, 'movement': 4, 'vp': 4}, "
                  "'sd': {'class': 'I', 'melee_attack': 3, 'melee_defense': 3, "
                  "'melee_defense_flank': 1, 'movement': 4, 'vp': 3}, "
                  "'pikes': {'class': 'I', 'melee_attack': 3, 'melee_defense': 7, "
                  "'melee_defense_flank': 1, 'movement': 4, 'vp': 3}, "
                  "'herald': {'class': 'command', 'melee_attack': 1, 'melee_defense': 2, "
                  "'melee_defense_flank': 1, 'movement': 8, 'vp': 3}}, "
                  "'terrain': {'clear': {'move': 1}, 'swamp': {'move': 3, "
                  "'defense': {'level': 'x1/2'}}}, " CRT_CHART ", "
                  "'capability': {'II': {'sd': 'x2', 'pikes': 'x2'}}}",
        .hexes = "{'0605': {'terrain': 'swamp'}}",
        .units = "v-axe vikings axes 0606 n; v-herald vikings herald 0607 n; "
                 "s-sd saxons sd 0605 s; s-pk saxons pikes 0605 s"});
    edit_unit(st, "s-pk", "demoralized", DEMORALIZED);
    json_t *r = melee_with(&st, "v-axe", "0605", 5);
    expect_strength(r, "defenders", "s-sd", "2", "sd: swamp, then capability");
    expect_strength(r, "defenders", "s-pk", "3", "pikes: swamp, capability, demoralized");
    const json_t *adj = json_object_get(entry(r, "defenders", "s-pk"), "adjustments");
    static const char *const order[] = {"x1/2 swamp level", "x2 capability vs class II",
                                        "x1/2 demoralized"};
    assert_int_equal(json_array_size(adj), 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(json_string_value(json_array_get(adj, i)), order[i]);
    expect_str(r, "defence", "5", "the defence");
    expect_str(r, "column", "1-1", "6 vs 5");
    json_decref(r);
    json_decref(st);
}

/* ---- COMBAT General Rule, (D), (L) ------------------------------------------------------------
 */

/* COMBAT (L): "No unit may participate in more than one missile and one melee attack per Player
 * Turn". A second melee or a second missile attack in the same Player-Turn is refused; the
 * next Friendly Player-Turn they may attack again. */
static void combat_l_one_missile_and_one_melee_per_player_turn(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                         "v-arch vikings archers 0707 n; s-a saxons foot 0605 s; "
                                         "s-b saxons foot 0705 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-a", "0605", "melee");
    allocate(&st, "v-arch", "0705", "fire");
    to_phase(&st, "vikings", "fire");
    ok_drop(&st, "v-arch", "{'type': 'fire', 'target': '0705'}", DICE(6), "first fire");
    refuse(st, "v-arch", "{'type': 'fire', 'target': '0705'}", DICE(6), 422, "rules_violation",
           "unit", "a second missile attack");
    to_phase(&st, "vikings", "melee");
    json_t *r = ok(&st, "v-a", "{'type': 'melee', 'defender': '0605'}", DICE(5), "first melee");
    expect_str(r, "result", "-", "first melee");
    json_decref(r);
    /* the attacker and the defender have both had their melee: either may be the one named */
    refuse(st, "v-a", "{'type': 'melee', 'defender': '0605'}", DICE(5), 422, "rules_violation",
           NULL, "a second melee attack");
    expect_refused_msg("COMBAT (L)", "a second melee attack");
    /* the next Friendly Player-Turn */
    to_phase(&st, "vikings", "allocation");
    assert_int_equal(game_turn(st), 2);
    allocate(&st, "v-a", "0605", "melee");
    allocate(&st, "v-arch", "0705", "fire");
    to_phase(&st, "vikings", "fire");
    ok_drop(&st, "v-arch", "{'type': 'fire', 'target': '0705'}", DICE(6), "fire next turn");
    to_phase(&st, "vikings", "melee");
    ok_drop(&st, "v-a", "{'type': 'melee', 'defender': '0605'}", DICE(5), "melee next turn");
    json_decref(st);
}

/* COMBAT (L): "(only Class I units have the option to both melee and fire offensively in a
 * single Player Turn)". Archers (Class IV) may not be allocated to both; javelin men (Class I,
 * Missile Strength 2, range 1) may, and make both attacks. */
static void combat_l_only_class_i_fires_and_melees(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-arch vikings archers 0606 n; v-jav vikings javelin "
                                         "0706 nw; v-lead vikings leader 0707 n; "
                                         "s-a saxons foot 0605 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-arch", "0605", "fire");
    refuse(st, "v-arch", "{'type': 'allocate', 'target': '0605', 'kind': 'melee'}", NODICE, 422,
           "rules_violation", "kind", "Class IV: fire and melee");
    allocate(&st, "v-jav", "0605", "fire");
    allocate(&st, "v-jav", "0605", "melee");
    to_phase(&st, "vikings", "fire");
    /* 2 vs Fire Protection 0: 8-1, a 6 is AD (no effect on defenders) */
    ok_drop(&st, "v-jav", "{'type': 'fire', 'target': '0605'}", DICE(6), "Class I fires");
    to_phase(&st, "vikings", "melee");
    json_t *r = ok(&st, "v-jav", "{'type': 'melee', 'defender': '0605'}", DICE(5),
                   "Class I melees after firing");
    expect_str(r, "attack", "3", "Class I melees after firing");
    json_decref(r);
    json_decref(st);
}

/* COMBAT (L): "No unit may participate in more than one missile and one melee attack per Player
 * Turn", a unit fired at being a participant as a melee defender is (issue 20 item 5: a second
 * missile attack on the same target was allowed). Two viking archers allocated against the same
 * saxon foot: the second fire is refused before any die. Archers 3 against Fire Protection 0
 * (clear) read the best column, 8-1, where a 6 is AD: nothing for missile fire. In the next viking
 * Player-Turn the foot may be fired at again. */
static void combat_l_one_missile_attack_on_a_target_per_player_turn(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-arch1 vikings archers 0607 n; v-herald vikings herald "
                                         "0607 n; v-arch2 vikings archers 0707 n; "
                                         "s-a saxons foot 0604 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-arch1", "0604", "fire");
    allocate(&st, "v-arch2", "0604", "fire");
    to_phase(&st, "vikings", "fire");
    json_t *r = ok(&st, "v-arch1", "{'type': 'fire', 'target': '0604'}", DICE(6), "first fire");
    expect_str(r, "column", "8-1", "first fire");
    json_decref(r);
    refuse(st, "v-arch2", "{'type': 'fire', 'target': '0604'}", DICE(6), 422, "rules_violation",
           "target", "a second missile attack on s-a");
    expect_refused_msg("s-a", "a second missile attack on s-a");
    expect_refused_msg("COMBAT (L)", "a second missile attack on s-a");
    assert_true(flag_of(st, "s-a", "missile_target"));
    assert_false(flag_of(st, "v-arch1", "missile_target"));
    /* the next viking Player-Turn: forgotten at the start of the saxons' */
    to_phase(&st, "saxons", "movement");
    assert_false(flag_of(st, "s-a", "missile_target"));
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-arch2", "0604", "fire");
    to_phase(&st, "vikings", "fire");
    ok_drop(&st, "v-arch2", "{'type': 'fire', 'target': '0604'}", DICE(6), "fire next turn");
    json_decref(st);
}

/* The same for Defensive Fire: the javelin men are allocated to fire at one saxon archer unit and
 * to melee the other; the first archers' Defensive Fire at them is allowed, the second's refused
 * (COMBAT (L)). Firing and being fired at are counted apart (house reading, fire.c): the javelin
 * men, fired at, still fire at the archers in the Fire Phase. */
static void combat_l_defensive_fire_once_at_a_unit(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-jav vikings javelin 0605 n; v-herald vikings herald "
                                         "0606 n; s-arch1 saxons archers 0604 s; "
                                         "s-arch2 saxons archers 0705 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-jav", "0604", "fire");
    allocate(&st, "v-jav", "0705", "melee");
    to_phase(&st, "vikings", "defensive_fire");
    json_t *r = ok(&st, "s-arch1", "{'type': 'fire', 'target': '0605'}", DICE(6),
                   "the first Defensive Fire");
    assert_true(json_is_true(json_object_get(r, "defensive")));
    json_decref(r);
    refuse(st, "s-arch2", "{'type': 'fire', 'target': '0605'}", DICE(6), 422, "rules_violation",
           "target", "a second Defensive Fire at v-jav");
    expect_refused_msg("v-jav", "a second Defensive Fire at v-jav");
    to_phase(&st, "vikings", "fire");
    ok_drop(&st, "v-jav", "{'type': 'fire', 'target': '0604'}", DICE(6), "fired at, it fires");
    json_decref(st);
}

/* COMBAT General Rule: "Units with a Melee Attack Strength of 0 may never initiate a Melee combat
 * but such units defend against Melee attacks with their appropriate Melee Defense Strength." */
static void combat_general_mas_zero_never_initiates(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-p vikings peasants 0606 n; v-herald vikings herald "
                                         "0607 n; s-a saxons foot 0605 s"});
    to_phase(&st, "vikings", "allocation");
    refuse(st, "v-p", "{'type': 'allocate', 'target': '0605', 'kind': 'melee'}", NODICE, 422,
           "rules_violation", "unit", "MAS 0 allocating melee");
    json_decref(st);
    /* peasants defend with their Melee Defense 2: foot 4 vs 2, 2-1 */
    st = mkstate((spec){.units = "v-a vikings foot 0605 n; v-herald vikings herald 0606 n; "
                                 "s-p saxons peasants 0604 s"});
    json_t *r = melee_with(&st, "v-a", "0604", 5);
    expect_str(r, "defence", "2", "peasants defending");
    expect_str(r, "column", "2-1", "peasants defending");
    json_decref(r);
    json_decref(st);
}

/* COMBAT General Rule: "Missile units may only employ defensive fire against Enemy units which
 * have been allocated to attack the missile unit(s) itself." v-b is allocated against the
 * archers, v-c is not. */
static void combat_general_defensive_fire_only_at_allocated(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-b vikings foot 0605 n; v-c vikings foot 0705 nw; "
                                         "v-lead vikings leader 0706 n; "
                                         "s-arch saxons archers 0604 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-b", "0604", "melee");
    to_phase(&st, "vikings", "defensive_fire");
    refuse(st, "s-arch", "{'type': 'fire', 'target': '0705'}", DICE(4), 422, "rules_violation",
           "target", "Defensive Fire at a unit not allocated against the archers");
    json_t *r = ok(&st, "s-arch", "{'type': 'fire', 'target': '0605'}", DICE(4),
                   "Defensive Fire at the allocated unit");
    assert_true(json_is_true(json_object_get(r, "defensive")));
    json_decref(r);
    json_decref(st);
}

/* COMBAT (D): "Missile units may only fire over a unit which is on lower terrain than the missile
 * unit. A missile unit in a hilltop hex when firing downhill (into a slope or level terrain hex)
 * has its range allowance increased by one." "A hilltop hex is defined as any non-slope hex from
 * which a line of hexes being traced from the hex in question to any edge of the mapsheet must
 * unavoidably pass through at least one slope hex." Archers (range 3) on 0606 ringed by slope
 * hexes reach 0602, four hexes off; on the same height without the ring they do not. */
static void combat_d_hilltop_range_and_firing_over_units(void **unused) {
    (void)unused;
    for (int ring = 1; ring >= 0; ring--) {
        json_t *st =
            mkstate((spec){.hexes = ring ? "{'0606': {'terrain': 'clear', 'level': 2}, "
                                           "'0605': {'terrain': 'slope', 'level': 1}, "
                                           "'0706': {'terrain': 'slope', 'level': 1}, "
                                           "'0707': {'terrain': 'slope', 'level': 1}, "
                                           "'0607': {'terrain': 'slope', 'level': 1}, "
                                           "'0507': {'terrain': 'slope', 'level': 1}, "
                                           "'0506': {'terrain': 'slope', 'level': 1}}"
                                         : "{'0606': {'terrain': 'clear', 'level': 2}}",
                           .units = "v-arch vikings archers 0606 n; v-lead vikings leader 0607 n; "
                                    "s-a saxons foot 0602 s"});
        if (ring) {
            json_t *r = fire_with(&st, "v-arch", "0602", 6);
            expect_int(r, "distance", 4, "from the hilltop");
            expect_int(r, "range", 4, "from the hilltop: 3 + 1");
            json_decref(r);
            expect_said("hilltop", "from the hilltop");
        } else {
            to_phase(&st, "vikings", "allocation");
            allocate(&st, "v-arch", "0602", "fire");
            to_phase(&st, "vikings", "fire");
            refuse(st, "v-arch", "{'type': 'fire', 'target': '0602'}", DICE(6), 422,
                   "rules_violation", "target", "four hexes from a hex that is no hilltop");
        }
        json_decref(st);
    }
    /* over a unit: only when it stands lower than the firer */
    for (int high = 0; high < 2; high++) {
        json_t *st =
            mkstate((spec){.hexes = high ? "{'0608': {'terrain': 'clear', 'level': 1}}" : NULL,
                           .units = "v-arch vikings archers 0608 n; v-lead vikings "
                                    "leader 0709 n; v-a vikings foot 0607 n; "
                                    "s-a saxons foot 0606 s"});
        if (high) {
            json_t *r = fire_with(&st, "v-arch", "0606", 6);
            expect_int(r, "distance", 2, "over a lower unit");
            json_decref(r);
        } else {
            to_phase(&st, "vikings", "allocation");
            allocate(&st, "v-arch", "0606", "fire");
            to_phase(&st, "vikings", "fire");
            refuse(st, "v-arch", "{'type': 'fire', 'target': '0606'}", DICE(6), 422,
                   "rules_violation", "target", "over a unit on the same level");
            expect_refused_msg("COMBAT (D)", "over a unit on the same level");
        }
        json_decref(st);
    }
}

#define HILL_RING                                                                                  \
    "'0606': {'terrain': 'clear', 'level': 2}, '0706': {'terrain': 'slope', 'level': 1}, "         \
    "'0707': {'terrain': 'slope', 'level': 1}, '0607': {'terrain': 'slope', 'level': 1}, "         \
    "'0507': {'terrain': 'slope', 'level': 1}, '0506': {'terrain': 'slope', 'level': 1}"

/* COMBAT (D): "a missile unit on a hilltop hex may fire over any type of hex located on level
 * terrain, and may fire over any unit in a slope or level terrain hex. Missile units on hilltop
 * hexes may never fire over wooded slope hexes." From the hilltop 0606 at 0602: over woods on
 * level ground (0604) yes; over the wooded slope 0605 of the ring no. From a hex that is no
 * hilltop, woods between (chart: blocks_fire) stop the fire. */
static void combat_d_hilltop_fires_over_level_terrain_not_wooded_slope(void **unused) {
    (void)unused;
    const char *units = "v-arch vikings archers 0606 n; v-lead vikings leader 0607 n; "
                        "s-a saxons foot 0602 s";
    json_t *st = mkstate((spec){.hexes = "{" HILL_RING ", '0605': {'terrain': 'slope', 'level': "
                                         "1}, '0604': {'terrain': 'woods'}}",
                                .units = units});
    json_t *r = fire_with(&st, "v-arch", "0602", 6);
    expect_int(r, "range", 4, "over level woods from the hilltop");
    json_decref(r);
    json_decref(st);
    st = mkstate((spec){.hexes = "{" HILL_RING ", '0605': {'terrain': ['woods', 'slope'], "
                                 "'level': 1}}",
                        .units = units});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-arch", "0602", "fire");
    to_phase(&st, "vikings", "fire");
    refuse(st, "v-arch", "{'type': 'fire', 'target': '0602'}", DICE(6), 422, "rules_violation",
           "target", "over a wooded slope from the hilltop");
    expect_refused_msg("wooded slope", "over a wooded slope from the hilltop");
    json_decref(st);
    st = mkstate((spec){.hexes = "{'0608': {'terrain': 'clear', 'level': 1}, '0607': {'terrain': "
                                 "'woods'}}",
                        .units = "v-arch vikings archers 0608 n; v-lead vikings leader 0709 n; "
                                 "s-a saxons foot 0606 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-arch", "0606", "fire");
    to_phase(&st, "vikings", "fire");
    refuse(st, "v-arch", "{'type': 'fire', 'target': '0606'}", DICE(6), 422, "rules_violation",
           "target", "over woods from no hilltop");
    json_decref(st);
}

/* ---- CAVALRY (Correction) ------------------------------------------------------------------- */

/* CAVALRY: "Medium cavalry must take a minimum straight charge of two hexes (not three as
 * stated)." A charge of two keeps the full Melee Attack Strength (4); a charge of one is short
 * (house default: halved, 2). */
static void cavalry_medium_charge_two_hexes(void **unused) {
    (void)unused;
    static const struct {
        const char *units, *path, *strength, *why;
        long charge;
    } cases[] = {
        {"v-cav vikings medcav 0608 n", "{'type': 'move', 'path': ['0607', '0606']}", "4",
         "a two-hex charge", 2},
        {"v-cav vikings medcav 0607 n", "{'type': 'move', 'path': ['0606']}", "2",
         "a one-hex charge", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[256];
        snprintf(units, sizeof units, "%s; v-herald vikings herald 0507 n; s-a saxons foot 0605 s",
                 cases[i].units);
        json_t *st = mkstate((spec){.units = units});
        json_t *r = ok(&st, "v-cav", cases[i].path, NODICE, cases[i].why);
        expect_int(r, "charge", cases[i].charge, cases[i].why);
        json_decref(r);
        r = melee_with(&st, "v-cav", "0605", 2);
        expect_strength(r, "attackers", "v-cav", cases[i].strength, cases[i].why);
        json_decref(r);
        if (i) expect_said("short", cases[i].why);
        json_decref(st);
    }
}

/* CAVALRY: "Byzantine Cataphracts must charge a minimum of three hexes in order to employ their
 * full Melee Attack Strength. The MAS of a Byzantine Cataphract unit may never fall below two for
 * making too short a charge." Cataphracts 6: three hexes 6, two hexes 3; cataphracts 3: two hexes
 * 1 by halving, raised to 2. */
static void cavalry_cataphract_charge_three_never_below_two(void **unused) {
    (void)unused;
    static const struct {
        const char *unit, *path, *strength, *why;
    } cases[] = {
        {"v-cat vikings cataphract 0609 n", "['0608', '0607', '0606']", "6", "three hexes: full"},
        {"v-cat vikings cataphract 0608 n", "['0607', '0606']", "3", "two hexes: short, halved"},
        {"v-cat vikings weakcat 0608 n", "['0607', '0606']", "2", "MAS 3 short: never below 2"},
        {"v-cat vikings weakcat 0609 n", "['0608', '0607', '0606']", "3",
         "MAS 3, three hexes: full"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[256], move[128];
        snprintf(units, sizeof units, "%s; v-herald vikings herald 0507 n; s-a saxons foot 0605 s",
                 cases[i].unit);
        snprintf(move, sizeof move, "{'type': 'move', 'path': %s}", cases[i].path);
        json_t *st = mkstate((spec){.units = units});
        ok_drop(&st, "v-cat", move, NODICE, "the charge");
        json_t *r = melee_with(&st, "v-cat", "0605", 2);
        expect_strength(r, "attackers", "v-cat", cases[i].strength, cases[i].why);
        json_decref(r);
        json_decref(st);
    }
}

/* CAVALRY: "Cavalry units may not be held in contact with solely non-cavalry Enemy units. The
 * normal contact rule applies to opposing cavalry units which engage in a Melee combat in which no
 * unit is either eliminated or demoralized." Medium cavalry (4, full charge) against foot (4) or
 * against medium cavalry (3): 1-1, a 5 is "-". */
static void cavalry_contact_only_with_cavalry(void **unused) {
    (void)unused;
    static const char *const defender[] = {"foot", "medcav"};
    for (int i = 0; i < 2; i++) {
        char units[256];
        snprintf(units, sizeof units,
                 "v-cav vikings medcav 0608 n; v-herald vikings herald 0507 n; "
                 "s-x saxons %s 0605 s",
                 defender[i]);
        json_t *st = mkstate((spec){.units = units});
        ok_drop(&st, "v-cav", "{'type': 'move', 'path': ['0607', '0606']}", NODICE, "the charge");
        json_t *r = melee_with(&st, "v-cav", "0605", 5);
        expect_str(r, "result", "-", defender[i]);
        assert_int_equal(json_is_true(json_object_get(r, "contact")), i == 1);
        json_decref(r);
        assert_int_equal(has_id(json_object_get(unit_in(st, "v-cav"), "contact"), "s-x"), i == 1);
        json_decref(st);
    }
}

/* ---- EXPLANATION OF COMBAT RESULTS ----------------------------------------------------------- */

/* EXPLANATION OF COMBAT RESULTS (Clarification): "Command units are eliminated in a 1E or 2E
 * combat result only if sufficient combat units are not available to meet the required loss."
 * The saxon command unit is a herald (no combat bonus, so the rolls stand); two vikings attack
 * (8). */
static void combat_results_command_units_last_in_1e_2e(void **unused) {
    (void)unused;
    static const struct {
        const char *more, *why, *result;
        int64_t die;
        const char *eliminated[3];
        const char *survivor;
    } cases[] = {
        {"", "1E: the foot unit goes", "1E", 3, {"s-a", NULL}, "s-cmd"},
        {"",
         "2E: the one combat unit, then the command unit",
         "2E",
         2,
         {"s-a", "s-cmd", NULL},
         NULL},
        {"; s-b saxons foot 0605 s",
         "2E with two combat units: the command unit stays",
         "2E",
         2,
         {"s-a", "s-b", NULL},
         "s-cmd"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[384];
        snprintf(units, sizeof units,
                 "v-a vikings foot 0606 n; v-b vikings foot 0705 sw; v-herald vikings herald "
                 "0706 n; s-a saxons foot 0605 s; s-cmd saxons herald 0605 s%s",
                 cases[i].more);
        json_t *st = mkstate((spec){.units = units});
        to_phase(&st, "vikings", "allocation");
        allocate(&st, "v-a", "0605", "melee");
        allocate(&st, "v-b", "0605", "melee");
        to_phase(&st, "vikings", "melee");
        json_t *r = ok(&st, "v-a", "{'type': 'melee', 'defender': '0605', 'attackers': ['v-b']}",
                       DICE(cases[i].die), cases[i].why);
        expect_str(r, "result", cases[i].result, cases[i].why);
        expect_ids(json_object_get(r, "eliminated"), cases[i].eliminated, cases[i].why);
        json_decref(r);
        if (cases[i].survivor) assert_false(flag_of(st, cases[i].survivor, "eliminated"));
        json_decref(st);
    }
}

/* EXPLANATION OF COMBAT RESULTS: "Command units, when stacked with other units, may never be
 * affected by Enemy missile fire." A DE on a hex of a foot unit and a leader takes the foot unit
 * only; on a leader alone it takes the leader. */
static void combat_results_missile_fire_spares_stacked_command(void **unused) {
    (void)unused;
    static const char *const foot[] = {"s-a", NULL}, *const lead[] = {"s-lead", NULL};
    for (int alone = 0; alone < 2; alone++) {
        json_t *st = mkstate(
            (spec){.units = alone ? "v-arch vikings archers 0706 nw; v-lead vikings leader 0707 n; "
                                    "s-lead saxons leader 0605 s"
                                  : "v-arch vikings archers 0706 nw; v-lead vikings leader 0707 n; "
                                    "s-a saxons foot 0605 s; s-lead saxons leader 0605 s"});
        json_t *r = fire_with(&st, "v-arch", "0605", 1);
        expect_str(r, "result", "DE", "DE by fire");
        expect_ids(json_object_get(r, "units"), alone ? lead : foot, "the units fired at");
        expect_ids(json_object_get(r, "eliminated"), alone ? lead : foot, "the units eliminated");
        json_decref(r);
        assert_int_equal(flag_of(st, "s-lead", "eliminated"), alone);
        json_decref(st);
    }
}

/* DEMORALIZATION AND PANIC: "Panicked and/or demoralized units which receive a DD combat result
 * are eliminated." Foot 4 vs a halved foot (2): 2-1, a 4 is DD; a unit in good order is only
 * demoralized by it. */
static void demoralization_dd_eliminates_demoralized_or_panicked(void **unused) {
    (void)unused;
    static const char *const why[] = {"DD in good order", "DD on a demoralized unit",
                                      "DD on a panicked unit"};
    for (int c = 0; c < 3; c++) {
        json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-herald vikings herald "
                                             "0607 n; s-a saxons foot 0605 s"});
        if (c == 1) edit_unit(st, "s-a", "demoralized", DEMORALIZED);
        if (c == 2) make_panicked(st, "s-a", "north", false);
        json_t *r = melee_with(&st, "v-a", "0605", 4);
        expect_str(r, "result", "DD", why[c]);
        expect_str(r, "defence", c ? "2" : "4", why[c]);
        json_decref(r);
        if (c == 0) {
            assert_false(flag_of(st, "s-a", "eliminated"));
            assert_true(demoralized(st, "s-a"));
        } else {
            assert_true(flag_of(st, "s-a", "eliminated"));
            expect_said("DD eliminates", why[c]);
        }
        json_decref(st);
    }
}

/* ---- PANIC ---------------------------------------------------------------------------------- */

/* The saxon army of the panic tests, on a map 30 hexes wide; the vikings at 0606 and 0607. s-lead
 * at 0303 has s-c with it and s-b beside it; s-ten is exactly ten hexes from the nearest viking,
 * s-far eleven. */
#define PANIC_UNITS                                                                                \
    "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; s-x saxons foot 0605 s; "            \
    "s-lead saxons leader 0303 s; s-c saxons foot 0303 s; s-b saxons foot 0302 s; "                \
    "s-d saxons foot 0603 s; s-ten saxons foot 1606 s; s-far saxons foot 1706 s"

/* PANIC: "When the cumulative losses an army suffers during a game reach that army's Panic Level
 * ..., all units of that army immediately panic except the following units: 1) Command units; 2)
 * All combat units stacked with or adjacent to a Command unit 3) Any unit which is more than ten
 * hexes distant from the nearest Enemy unit". Panic Level 8; losses are counted in Victory Points
 * (house default), the foot unit lost is worth 4: 3 + 4 = 7 does not panic, 4 + 4 = 8 does. */
static void panic_level_reached_and_exemptions(void **unused) {
    (void)unused;
    for (int before = 3; before <= 4; before++) {
        json_t *st = mkstate(
            (spec){.cols = "[1, 30]", .charts = CHARTS_WITH(ARMIES(8, 99)), .units = PANIC_UNITS});
        char losses[16];
        snprintf(losses, sizeof losses, "%d", before);
        edit_army(st, "saxons", "losses", losses);
        json_t *r = melee_with(&st, "v-a", "0605", 3); /* 4 vs 4, row 3: 1E */
        expect_str(r, "result", "1E", "the loss");
        assert_int_equal(iget(army(st, "saxons"), "losses"), before + 4);
        if (before == 3) {
            assert_int_equal(json_array_size(json_object_get(r, "panicked")), 0);
            assert_false(json_is_true(json_object_get(army(st, "saxons"), "panicked")));
            assert_false(flag_of(st, "s-d", "panicked"));
        } else {
            static const char *const panicked[] = {"s-d", "s-ten", NULL};
            expect_ids(json_object_get(r, "panicked"), panicked, "who panics");
            assert_true(json_is_true(json_object_get(army(st, "saxons"), "panicked")));
            assert_true(flag_of(st, "s-d", "panicked"));
            assert_string_equal(sget(unit_in(st, "s-d"), "panic_edge"), "north");
            assert_true(flag_of(st, "s-ten", "panicked"));
            static const char *const exempt[] = {"s-lead", "s-c", "s-b", "s-far"};
            for (int i = 0; i < 4; i++)
                if (flag_of(st, exempt[i], "panicked")) fail_msg("%s panicked", exempt[i]);
            expect_said("PANIC", "the panic");
        }
        json_decref(r);
        json_decref(st);
    }
}

/* PANIC: "Panic may occur only once per army per game." An army that has panicked does not panic
 * again however its losses grow. */
static void panic_only_once_per_army(void **unused) {
    (void)unused;
    json_t *st = mkstate(
        (spec){.cols = "[1, 30]", .charts = CHARTS_WITH(ARMIES(8, 99)), .units = PANIC_UNITS});
    edit_army(st, "saxons", "losses", "8");
    edit_army(st, "saxons", "panicked", "true");
    json_t *r = melee_with(&st, "v-a", "0605", 3);
    expect_str(r, "result", "1E", "the loss");
    assert_int_equal(json_array_size(json_object_get(r, "panicked")), 0);
    json_decref(r);
    assert_int_equal(iget(army(st, "saxons"), "losses"), 12);
    assert_false(flag_of(st, "s-d", "panicked"));
    assert_false(flag_of(st, "s-ten", "panicked"));
    json_decref(st);
}

/* PANIC: "During each Friendly Movement Phase all panicked units must be moved their full
 * Movement Allowance towards the mapsheet edge which they were nearest to at the instant they
 * panicked. ... they may be moved independently of the Command unit movement restrictions. The
 * panicked units are moved by the owning Player at the beginning of each Friendly Movement Phase
 * before any other Friendly units are moved. They must continue to be moved toward the nearest
 * mapsheet hex until they either leave the map (expending one Movement Point to move off the hex
 * grid)". "Panicked units, however, retain their full Movement Allowance." The panicked foot unit
 * (6 MP, no command unit near) in 0606 runs north: five hexes to row 1, then off for the sixth. */
static void panic_moves_first_full_allowance_toward_edge(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){
        .units = "v-p vikings foot 0606 n; v-b vikings foot 0806 n; s-a saxons foot 1210 n"});
    make_panicked(st, "v-p", "north", false);
    refuse(st, "v-b", "{'type': 'move', 'path': ['0805']}", NODICE, 422, "rules_violation", "unit",
           "another unit before the panicked one");
    expect_refused_msg("v-p", "another unit before the panicked one");
    refuse(st, NULL, END_PHASE, NODICE, 422, "rules_violation", NULL,
           "ending the phase with the panicked unit unmoved");
    refuse(st, "v-p", "{'type': 'move', 'path': [{'face': 'ne'}, '0706']}", NODICE, 422,
           "rules_violation", "path[1]", "not toward its edge");
    refuse(st, "v-p", "{'type': 'move', 'path': ['0605']}", NODICE, 422, "rules_violation", "path",
           "one hex of six");
    refuse(st, "v-p", "{'type': 'move', 'path': ['0605', '0604', '0603', '0602', '0601']}", NODICE,
           422, "rules_violation", "path", "on the edge with one MP left");
    json_t *r =
        ok(&st, "v-p", "{'type': 'move', 'path': ['0605', '0604', '0603', '0602', '0601', 'off']}",
           NODICE, "the full run off the map");
    expect_str(r, "allowance", "6", "the full allowance, not halved");
    expect_str(r, "cost", "6", "five hexes and off");
    assert_true(json_is_true(json_object_get(r, "off_map")));
    json_decref(r);
    assert_true(flag_of(st, "v-p", "off_map"));
    ok_drop(&st, "v-b", "{'type': 'move', 'path': ['0805']}", NODICE, "then the others");
    json_decref(st);
}

/* PANIC: "... leave the map (expending one Movement Point to move off the hex grid)". Only a
 * panicked unit runs off. Archers (4 MP) one hex from the north edge: in and off, 2 MP. */
static void panic_off_the_map_one_movement_point(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){
        .units = "v-q vikings archers 0602 n; v-r vikings foot 0801 n; s-a saxons foot 1210 n"});
    refuse(st, "v-r", "{'type': 'move', 'path': ['off']}", NODICE, 422, "rules_violation",
           "path[0]", "off the map in good order");
    make_panicked(st, "v-q", "north", false);
    json_t *r =
        ok(&st, "v-q", "{'type': 'move', 'path': ['0601', 'off']}", NODICE, "in and off the map");
    expect_str(r, "cost", "2", "1 for 0601 + 1 off the grid");
    expect_str(r, "allowance", "4", "in and off the map");
    json_decref(r);
    json_decref(st);
}

/* ---- Rally (PANIC) -------------------------------------------------------------------------- */

/* v-p panicked in 0606 (its forced move made), the leader beside it in 0607, foot in 0706. */
static json_t *rally_state(void) {
    json_t *st = mkstate((spec){.units = "v-p vikings foot 0606 n; v-lead vikings leader 0607 n; "
                                         "v-a vikings foot 0706 n; s-a saxons foot 1210 n"});
    make_panicked(st, "v-p", "north", true);
    return st;
}

/* PANIC: "A command unit rallies a panicked unit with a die roll of any number except six." */
static void rally_command_unit_one_to_five(void **unused) {
    (void)unused;
    for (int64_t die = 5; die <= 6; die++) {
        json_t *st = rally_state();
        json_t *r = ok(&st, "v-lead", "{'type': 'rally', 'target': 'v-p'}", DICE(die), "rally");
        assert_int_equal(json_is_true(json_object_get(r, "rallied")), die == 5);
        assert_true(json_is_true(json_object_get(r, "command")));
        json_decref(r);
        assert_int_equal(flag_of(st, "v-p", "panicked"), die == 6);
        expect_said(die == 5 ? "rallied" : "still panicked", "rally");
        json_decref(st);
    }
}

/* PANIC: "A non command unit rallies an adjacent panicked unit by rolling either a one, two, or
 * three." */
static void rally_combat_unit_one_to_three(void **unused) {
    (void)unused;
    for (int64_t die = 3; die <= 4; die++) {
        json_t *st = rally_state();
        json_t *r = ok(&st, "v-a", "{'type': 'rally', 'target': 'v-p'}", DICE(die), "rally");
        assert_int_equal(json_is_true(json_object_get(r, "rallied")), die == 3);
        assert_false(json_is_true(json_object_get(r, "command")));
        json_decref(r);
        assert_int_equal(flag_of(st, "v-p", "panicked"), die == 4);
        json_decref(st);
    }
}

/* PANIC: "The rally die-rolls are performed at the end of the Friendly Movement Phase after all
 * Friendly units have completed their Movement. Rallied units may not rally other panicked units
 * until the Friendly Player-Turn following the turn on which they were rallied." */
static void rally_rallied_unit_may_not_rally_that_turn(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-p1 vikings foot 0606 n; v-p2 vikings foot 0605 n; "
                                         "v-lead vikings leader 0607 n; v-a vikings foot 0706 n; "
                                         "v-b vikings foot 0808 n; s-a saxons foot 1210 n"});
    make_panicked(st, "v-p1", "north", true);
    make_panicked(st, "v-p2", "north", true);
    json_t *r =
        ok(&st, "v-lead", "{'type': 'rally', 'target': 'v-p1'}", DICE(1), "the leader rallies");
    assert_true(json_is_true(json_object_get(r, "rallied")));
    json_decref(r);
    refuse(st, "v-p1", "{'type': 'rally', 'target': 'v-p2'}", DICE(1), 422, "rules_violation",
           "unit", "a unit rallied this Player-Turn rallying");
    /* movement is over once the rally rolls begin */
    refuse(st, "v-b", "{'type': 'move', 'path': ['0807']}", NODICE, 422, "rules_violation", "unit",
           "a move after a rally roll");
    r = ok(&st, "v-a", "{'type': 'rally', 'target': 'v-p2'}", DICE(2), "another unit rallies");
    assert_true(json_is_true(json_object_get(r, "rallied")));
    json_decref(r);
    json_decref(st);
    /* rally rolls belong to the Movement Phase */
    st = rally_state();
    to_phase(&st, "vikings", "allocation");
    refuse_as("side:vikings", st, "v-lead", "{'type': 'rally', 'target': 'v-p'}", 422,
              "wrong_phase", "a rally in the Attack Allocation Phase");
    json_decref(st);
}

/* ---- VICTORY CONDITIONS, DISMOUNTED CAVALRY ------------------------------------------------- */

/* VICTORY CONDITIONS: "use instead the Summary of Units Chart which assigns the correct number of
 * Victory Points for each unit type. Command units are worth ten Victory Points apiece." The
 * herald's chart says 3; it scores 10. (Foot 4 vs 4 or 2: a 3 is 1E on either column.) */
static void victory_conditions_chart_vp_and_command_ten(void **unused) {
    (void)unused;
    static const char *const defender[] = {"foot", "herald"};
    static const long vp[] = {4, 10};
    for (int i = 0; i < 2; i++) {
        char units[256];
        snprintf(units, sizeof units,
                 "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; s-x saxons %s 0605 s",
                 defender[i]);
        json_t *st = mkstate((spec){.units = units});
        json_t *r = melee_with(&st, "v-a", "0605", 3);
        expect_str(r, "result", "1E", defender[i]);
        json_decref(r);
        assert_true(flag_of(st, "s-x", "eliminated"));
        assert_int_equal(iget(army(st, "vikings"), "vp"), vp[i]);
        assert_int_equal(iget(army(st, "saxons"), "losses"), vp[i]);
        assert_int_equal(iget(army(st, "saxons"), "vp"), 0);
        json_decref(st);
    }
}

/* DISMOUNTED CAVALRY: "If the dismounted unit (only) is eliminated, the Victory Points for that
 * unit only are scored. If the riderless mount unit (only) is eliminated, the Victory Points for
 * the original cavalry unit minus the Victory Points for the dismounted unit are scored. If both
 * the dismounted unit and the riderless mount unit are eliminated, the Victory Points for the
 * original cavalry unit are scored." "Cavalry units may only remount or dismount during a
 * Friendly Movement Phase." Medium cavalry 6, dismounted 2 (its mount 4); knights 7, dismounted 4
 * (mount 3). The saxons (listed second) move first and dismount; the vikings then attack the
 * hex: 1E takes the least valuable unit (house default), DE both. */
static void dismounted_cavalry_victory_points(void **unused) {
    (void)unused;
    static const struct {
        const char *type, *dismounted, *why;
        int64_t die;
        long vp;
        const char *eliminated[3];
    } cases[] = {
        {"medcav", "dismounted", "the dismounted unit only", 3, 2, {"s-cav", NULL}},
        {"knights", "footknights", "the riderless mount only", 3, 3, {"s-cav-mount", NULL}},
        {"medcav", "dismounted", "both", 1, 6, {"s-cav", "s-cav-mount", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[256];
        snprintf(units, sizeof units,
                 "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; s-cav saxons %s 0605 s",
                 cases[i].type);
        json_t *st =
            mkstate((spec){.players = "[{'side': 'vikings'}, {'side': 'saxons'}]", .units = units});
        refuse(st, "s-cav", "{'type': 'move', 'dismount': true, 'path': ['0604']}", NODICE, 422,
               "rules_violation", "path", "dismounting is the whole move");
        json_t *r = ok(&st, "s-cav", "{'type': 'move', 'dismount': true}", NODICE, "dismount");
        expect_str(r, "dismounted", cases[i].dismounted, "dismount");
        expect_str(r, "mount", "s-cav-mount", "dismount");
        json_decref(r);
        assert_string_equal(sget(unit_in(st, "s-cav"), "type"), cases[i].dismounted);
        assert_string_equal(sget(unit_in(st, "s-cav-mount"), "mount_of"), "s-cav");
        expect_at(st, "s-cav-mount", "0605", "the mount stays");
        r = melee_with(&st, "v-a", "0605", cases[i].die);
        expect_ids(json_object_get(r, "eliminated"), cases[i].eliminated, cases[i].why);
        json_decref(r);
        if (iget(army(st, "vikings"), "vp") != cases[i].vp)
            fail_msg("%s: the vikings score %ld VP, expected %ld", cases[i].why,
                     iget(army(st, "vikings"), "vp"), cases[i].vp);
        json_decref(st);
    }
    /* not outside the Friendly Movement Phase */
    json_t *st = mkstate((spec){.players = "[{'side': 'vikings'}, {'side': 'saxons'}]",
                                .units = "v-a vikings foot 0606 n; s-cav saxons medcav 0605 s"});
    to_phase(&st, "saxons", "allocation");
    refuse_as("side:saxons", st, "s-cav", "{'type': 'move', 'dismount': true}", 422, "wrong_phase",
              "dismounting in the Attack Allocation Phase");
    json_decref(st);
}

/* ---- a scripted battle --------------------------------------------------------------------- */

/* The module's own sample scenario (rules/spi_dark_ages/dark_ages.c, charts illustrative), played
 * with manual dice and checked unit by unit. Its charts: spearmen (I) 4/4/2, 4 MP, 4 VP; earls
 * (command, bonus 1); archers (IV) missile 3 range 3; slope defense downhill x2; the vikings
 * ferocious, both Panic Levels 12; CRT columns 1-3 1-2 1-1 2-1 3-1 4-1 5-1 6-1, row 1 ends DE, row
 * 3 begins AE. */
static void scripted_battle_on_the_sample_scenario(void **unused) {
    (void)unused;
    json_t *setup = parse(rs()->sample_setup), *opts = json_object();
    api_error err = {0};
    json_t *st = rs()->init_state(opts, setup, &err);
    json_decref(setup);
    json_decref(opts);
    if (!st) fail_msg("the sample setup: %s", err.message);
    /* Game-Turn 1, the vikings (listed second) move first: spearmen and earl to 0506, below the
     * saxon spearmen on the slope (0506 is not next to the archers at 0504: no stop) */
    json_t *r = ok(&st, "v-spear", "{'type': 'move', 'path': ['0506']}", NODICE, "v-spear moves");
    assert_false(json_is_true(json_object_get(r, "stopped")));
    json_decref(r);
    ok_drop(&st, "v-earl", "{'type': 'move', 'path': ['0506']}", NODICE, "v-earl moves");
    expect_at(st, "v-spear", "0506", "v-spear");
    expect_at(st, "v-earl", "0506", "v-earl");
    to_phase(&st, "vikings", "allocation");
    r = ok(&st, "v-spear", "{'type': 'allocate', 'target': '0505', 'kind': 'melee'}", NODICE,
           "v-spear allocated");
    expect_str(r, "command", "v-earl", "v-spear allocated");
    json_decref(r);
    /* COMBAT General Rule: the archers may not answer a unit allocated against another hex */
    to_phase(&st, "vikings", "defensive_fire");
    refuse(st, "s-archers", "{'type': 'fire', 'target': '0506'}", DICE(1), 422, "rules_violation",
           "target", "Defensive Fire at a unit not allocated against it");
    /* the melee: 4 against s-spear 4 x2 (slope, Downhill column) + s-earl 2 x2 = 12: 1-3; roll 4,
     * v-earl -1, s-earl +1, ferocity -1: row 3, AE */
    to_phase(&st, "vikings", "melee");
    r = ok(&st, "v-spear", "{'type': 'melee', 'defender': '0505'}", DICE(4), "the melee");
    expect_str(r, "attack", "4", "the melee");
    expect_strength(r, "defenders", "s-spear", "8", "s-spear on the slope");
    expect_strength(r, "defenders", "s-earl", "4", "s-earl on the slope");
    expect_str(r, "defence", "12", "the melee");
    expect_str(r, "column", "1-3", "the melee");
    expect_int(r, "modifier", -1, "the melee");
    expect_int(r, "row", 3, "the melee");
    expect_str(r, "result", "AE", "the melee");
    json_decref(r);
    expect_said("ferocity", "the melee");
    assert_true(flag_of(st, "v-spear", "eliminated"));
    assert_false(flag_of(st, "v-earl", "eliminated"));
    assert_false(flag_of(st, "s-spear", "eliminated"));
    assert_false(demoralized(st, "s-spear"));
    assert_int_equal(iget(army(st, "saxons"), "vp"), 4);
    assert_int_equal(iget(army(st, "vikings"), "losses"), 4);
    /* the saxons' Player-Turn: the archers fire over their own spearmen (lower) at the earl,
     * alone in clear 0506: 3 vs Fire Protection 0, the best column (6-1); a 1 is DE */
    to_phase(&st, "saxons", "allocation");
    allocate(&st, "s-archers", "0506", "fire");
    to_phase(&st, "saxons", "fire");
    r = ok(&st, "s-archers", "{'type': 'fire', 'target': '0506'}", DICE(1), "the archers fire");
    expect_int(r, "distance", 2, "the archers fire");
    expect_int(r, "fps", 0, "the archers fire");
    expect_str(r, "column", "6-1", "the archers fire");
    expect_str(r, "result", "DE", "the archers fire");
    static const char *const earl[] = {"v-earl", NULL};
    expect_ids(json_object_get(r, "eliminated"), earl, "the archers fire");
    /* 4 + 10 (a command unit) = 14 >= 12: the vikings panic, none exempt */
    static const char *const panicked[] = {"v-horse", "v-ship", NULL};
    expect_ids(json_object_get(r, "panicked"), panicked, "the vikings panic");
    json_decref(r);
    assert_int_equal(iget(army(st, "saxons"), "vp"), 14);
    assert_int_equal(iget(army(st, "vikings"), "losses"), 14);
    assert_true(json_is_true(json_object_get(army(st, "vikings"), "panicked")));
    /* 0207 is one hex from the south and the west edges: the first in the order north, east,
     * south, west (house default) is south; 0802 is one from the north edge */
    assert_string_equal(sget(unit_in(st, "v-horse"), "panic_edge"), "south");
    assert_string_equal(sget(unit_in(st, "v-ship"), "panic_edge"), "north");
    /* Game-Turn 2: the panicked units move first; the horsemen turn (ne to s, 2 MP), enter 0208
     * (1) and leave the map (1); the fleet has no water toward its edge and stays */
    to_phase(&st, "vikings", "movement");
    assert_int_equal(game_turn(st), 2);
    refuse(st, NULL, END_PHASE, NODICE, 422, "rules_violation", NULL,
           "the panicked units have not moved");
    r = ok(&st, "v-horse", "{'type': 'move', 'path': [{'face': 's'}, '0208', 'off']}", NODICE,
           "the horsemen run");
    expect_str(r, "cost", "4", "the horsemen run");
    expect_str(r, "allowance", "8", "the horsemen run");
    json_decref(r);
    ok_drop(&st, "v-ship", "{'type': 'move', 'path': []}", NODICE, "the fleet cannot run");
    ok_drop(&st, NULL, END_PHASE, NODICE, "the phase ends");
    /* unit by unit */
    assert_true(flag_of(st, "v-spear", "eliminated"));
    assert_true(flag_of(st, "v-earl", "eliminated"));
    assert_true(flag_of(st, "v-horse", "off_map"));
    expect_at(st, "v-ship", "0802", "v-ship");
    assert_true(flag_of(st, "v-ship", "panicked"));
    expect_at(st, "s-archers", "0504", "s-archers");
    expect_at(st, "s-spear", "0505", "s-spear");
    expect_at(st, "s-earl", "0505", "s-earl");
    assert_false(flag_of(st, "s-archers", "eliminated"));
    assert_false(flag_of(st, "s-spear", "eliminated"));
    assert_false(flag_of(st, "s-earl", "eliminated"));
    json_decref(st);
}

/* ---- the charts as data --------------------------------------------------------------------- */

/* Chart validation at session creation: every error names the bad entry in details.field. */
static void charts_validated_at_creation(void **unused) {
    (void)unused;
    const char *units = "v-a vikings foot 0606 n";
    expect_setup_error(
        (spec){.charts = "{" UNITS_CHART ", 'crt': {'columns': ['1-1', '2-1'], 'rows': {'1': "
                         "['DE', 'DE'], '2': ['2E', '2E'], '3': ['1E', 'XE'], '4': ['DD', 'DD'], "
                         "'5': ['-', '-'], '6': ['AD', 'AD']}}}",
               .units = units},
        400, "invalid_field", "setup.charts.crt.rows.3[1]", "a CRT code outside the notation");
    expect_setup_error(
        (spec){.charts = "{" UNITS_CHART ", 'crt': {'columns': ['2-1', '1-1'], 'rows': {'1': "
                         "['DE', 'DE'], '2': ['2E', '2E'], '3': ['1E', '1E'], '4': ['DD', 'DD'], "
                         "'5': ['-', '-'], '6': ['AD', 'AD']}}}",
               .units = units},
        422, "invalid_setup", "setup.charts.crt.columns[1]", "CRT columns out of order");
    expect_setup_error(
        (spec){.charts = "{" UNITS_CHART ", 'terrain': {'clear': {'move': 1}, 'lava': {'move': "
                         "1}}}",
               .units = units},
        422, "invalid_setup", "setup.charts.terrain.lava", "an unknown terrain name");
    expect_setup_error(
        (spec){.charts = "{" UNITS_CHART ", 'terrain': {'woods': {'move': 2, 'fps': 5}}}",
               .units = units},
        422, "invalid_setup", "setup.charts.terrain.woods.fps", "Fire Protection 5, not a Keep");
    expect_setup_error((spec){.streams = "{'0505': ['n', 's']}", .units = units}, 422,
                       "invalid_setup", "setup.streams.0505", "streams naming a clear hex");
    expect_setup_error((spec){.players = "[{'side': 'vikings'}]", .units = units}, 400,
                       "invalid_field", "setup.players", "one player");
    expect_setup_error(
        (spec){.players = "[{'side': 'a'}, {'side': 'b'}, {'side': 'vikings'}]", .units = units},
        400, "invalid_field", "setup.players", "three players");
    expect_setup_error((spec){.units = "v-a vikings foot 0606 n; v-b vikings hussars 0607 n"}, 422,
                       "invalid_setup", "setup.units[1].type", "a unit type not in the chart");
    expect_setup_error((spec){.hexes = "{'0606': {'terrain': 'river'}}", .units = units}, 422,
                       "invalid_setup", "setup.units[0]", "a unit in a river hex");
    expect_setup_error(
        (spec){.charts = "{" UNITS_CHART ", 'capability': {'II': {'hussars': 'x2'}}}",
               .units = units},
        422, "invalid_setup", "setup.charts.capability.II.hussars",
        "a capability row naming an unknown type");
    /* and the standard charts are accepted, a unit on a bridge over a river included */
    json_t *st =
        mkstate((spec){.hexes = "{'0606': {'terrain': ['river', 'bridge']}}", .units = units});
    json_decref(st);
}

/* An action needing a chart the session lacks answers 422 chart_missing naming it. */
static void chart_missing_names_the_chart(void **unused) {
    (void)unused;
    json_t *st =
        mkstate((spec){.charts = "{" UNITS_CHART ", " TERRAIN_CHART ", 'stacking_limit': 3}",
                       .units = "v-a vikings foot 0606 n; v-lead vikings leader 0707 n; "
                                "v-arch vikings archers 0706 nw; s-a saxons foot 0605 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-a", "0605", "melee");
    allocate(&st, "v-arch", "0605", "fire");
    to_phase(&st, "vikings", "fire");
    outcome o = act(st, "v-arch", "{'type': 'fire', 'target': '0605'}", DICE(3));
    assert_int_not_equal(o.rc, 0);
    assert_int_equal(o.err.status, 422);
    assert_string_equal(o.err.code, "chart_missing");
    assert_string_equal(sget(o.err.details, "chart"), "crt");
    outcome_clear(&o);
    to_phase(&st, "vikings", "melee");
    o = act(st, "v-a", "{'type': 'melee', 'defender': '0605'}", DICE(3));
    assert_int_not_equal(o.rc, 0);
    assert_int_equal(o.err.status, 422);
    assert_string_equal(o.err.code, "chart_missing");
    assert_string_equal(sget(o.err.details, "chart"), "crt");
    outcome_clear(&o);
    json_decref(st);
}

/* SCENARIO CHART (Correction): "In several scenarios the PV and PL levels should be changed as
 * follows: Tours Franks -- PV 55; PL 22 Arabs -- PV 80, PL 24 Constantinople Byzantines -- PV
 * 150; PL 60 Balathusta Byzantines -- PV 160; PL 64 Stanford Bridge Anglo-Saxons -- PV 115; PL 34
 * Manzikert Seljug Turks -- PV 145; PL 72". */
static void scenario_chart_corrected_values(void **unused) {
    (void)unused;
    /* each side one of the scenario's armies: the errata's, or the setup's (below) */
    static const struct {
        const char *scenario, *army, *side;
        long pv, pl;
    } cases[] = {
        {"tours", "Franks", "franks", 55, 22},
        {"tours", "Arabs", "arabs", 80, 24},
        {"constantinople", "Byzantines", "byzantines", 150, 60},
        {"balathusta", "Byzantines", "byzantines", 160, 64},
        {"stamford-bridge", "Anglo-Saxons", "anglo-saxons", 115, 34},
        {"manzikert", "Seljuq Turks", "seljuq-turks", 145, 72},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char charts[256], players[128];
        snprintf(charts, sizeof charts,
                 "{'scenario': '%s', 'armies': {'foes': {'point_value': 1, 'panic_level': 1}}}",
                 cases[i].scenario);
        snprintf(players, sizeof players, "[{'side': '%s'}, {'side': 'foes'}]", cases[i].side);
        json_t *st = mkstate((spec){.charts = charts, .players = players, .units = ""});
        const json_t *a = json_object_get(json_object_get(json_object_get(st, "charts"), "armies"),
                                          cases[i].army);
        if (!a) fail_msg("%s: no army %s", cases[i].scenario, cases[i].army);
        expect_int(a, "point_value", cases[i].pv, cases[i].army);
        expect_int(a, "panic_level", cases[i].pl, cases[i].army);
        json_decref(st);
    }
}

/* ---- review fixes: hand-made states, and the rules the review corrected ---------------------- */

/* Sets turn[key] in a state (a copy of the turn replaces it: states share children). */
static void edit_turn(json_t *st, const char *key, const char *value) {
    json_t *turn = json_deep_copy(json_object_get(st, "turn"));
    json_object_set_new(turn, key, jparse(value));
    json_object_set_new(st, "turn", turn);
}

/* Sets charts.crt.columns in a state (a copy of the charts replaces them). */
static void edit_crt_columns(json_t *st, const char *value) {
    json_t *charts = json_deep_copy(json_object_get(st, "charts"));
    json_object_set_new(json_object_get(charts, "crt"), "columns", jparse(value));
    json_object_set_new(st, "charts", charts);
}

/* The refusal of a side of no army lists the scenario's armies in details.armies. */
static void expect_refused_setup_armies(spec s, const char *a, const char *b) {
    api_error err = {0};
    json_t *st = try_state(&s, &err);
    if (st) fail_msg("a side of no army: init_state accepted the setup");
    const json_t *armies = json_object_get(err.details, "armies");
    if (json_array_size(armies) != 2 || !has_id(armies, a) || !has_id(armies, b)) {
        char *got = dump(armies);
        fail_msg("details.armies %s, expected %s and %s", got, a, b);
    }
    api_error_clear(&err);
}

/* init_state must refuse with status/code on details.field, its message saying `needle`. */
static void expect_setup_error_says(spec s, int status, const char *code, const char *field,
                                    const char *needle, const char *what) {
    api_error err = {0};
    json_t *st = try_state(&s, &err);
    if (st) fail_msg("%s: init_state accepted the setup", what);
    const char *f = json_string_value(json_object_get(err.details, "field"));
    if (err.status != status || strcmp(err.code, code) != 0 || !f || strcmp(f, field) != 0 ||
        !strstr(err.message, needle))
        fail_msg("%s: expected %d %s on %s saying '%s', got %d %s on %s: %s", what, status, code,
                 field, needle, err.status, err.code, f ? f : "(none)", err.message);
    api_error_clear(&err);
}

/* A hand-made state with a unit standing off the map ("9999" on a 12 x 12 map) answers 422
 * invalid_state, naming the unit, instead of reading outside the map. */
static void hand_made_state_unit_off_the_map(void **unused) {
    (void)unused;
    const char *units = "v-arch vikings archers 0706 nw; v-lead vikings leader 0707 n; "
                        "v-a vikings foot 0608 n; s-a saxons foot 0605 s; s-b saxons foot 0302 s";
    json_t *st = mkstate((spec){.units = units});
    edit_unit(st, "s-b", "hex", "'9999'");
    refuse(st, "v-a", "{'type': 'move', 'path': ['0607']}", NODICE, 422, "invalid_state", NULL,
           "a move with a unit off the map");
    expect_refused_msg("s-b", "a move with a unit off the map");
    json_decref(st);
    st = mkstate((spec){.units = units});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-arch", "0605", "fire");
    to_phase(&st, "vikings", "fire");
    edit_unit(st, "s-b", "hex", "'9999'");
    refuse(st, "v-arch", "{'type': 'fire', 'target': '0605'}", DICE(1), 422, "invalid_state", NULL,
           "fire with a unit off the map");
    /* the firer itself off the map */
    edit_unit(st, "s-b", "hex", "'0302'");
    edit_unit(st, "v-arch", "hex", "'9999'");
    refuse(st, "v-arch", "{'type': 'fire', 'target': '0605'}", DICE(1), 422, "invalid_state", NULL,
           "fire by a unit off the map");
    expect_refused_msg("v-arch", "fire by a unit off the map");
    json_decref(st);
}

/* A hand-made state whose turn.rally_attempts holds what is not a string: the rally still
 * resolves (an odd entry names no attempt), or is refused cleanly when a string entry names this
 * very attempt. */
static void hand_made_state_odd_rally_attempts(void **unused) {
    (void)unused;
    json_t *st = rally_state();
    edit_turn(st, "rally_attempts", "[5, {'x': 1}, null, ['v-lead>v-p']]");
    json_t *r = ok(&st, "v-lead", "{'type': 'rally', 'target': 'v-p'}", DICE(5),
                   "a rally past odd attempts");
    assert_true(json_is_true(json_object_get(r, "rallied")));
    json_decref(r);
    assert_false(flag_of(st, "v-p", "panicked"));
    json_decref(st);
    st = rally_state();
    edit_turn(st, "rally_attempts", "[7, 'v-lead>v-p']");
    refuse(st, "v-lead", "{'type': 'rally', 'target': 'v-p'}", DICE(5), 422, "rules_violation",
           "target", "the same attempt again, past an odd entry");
    r = ok(&st, "v-a", "{'type': 'rally', 'target': 'v-p'}", DICE(3), "another rallier");
    assert_true(json_is_true(json_object_get(r, "rallied")));
    json_decref(r);
    json_decref(st);
}

/* A hand-made state whose CRT has no odds columns (none, or one that is not a string) answers 422
 * invalid_state for fire and melee. */
static void hand_made_state_crt_without_columns(void **unused) {
    (void)unused;
    static const char *const columns[] = {"[]", "['1-1', 5]"};
    for (int i = 0; i < 2; i++) {
        json_t *st =
            mkstate((spec){.units = "v-a vikings foot 0606 n; v-lead vikings leader 0707 n; "
                                    "v-arch vikings archers 0706 nw; s-a saxons foot 0605 s"});
        to_phase(&st, "vikings", "allocation");
        allocate(&st, "v-a", "0605", "melee");
        allocate(&st, "v-arch", "0605", "fire");
        to_phase(&st, "vikings", "fire");
        edit_crt_columns(st, columns[i]);
        refuse(st, "v-arch", "{'type': 'fire', 'target': '0605'}", DICE(1), 422, "invalid_state",
               NULL, i ? "fire, a column not a string" : "fire, no CRT columns");
        to_phase(&st, "vikings", "melee");
        refuse(st, "v-a", "{'type': 'melee', 'defender': '0605'}", DICE(1), 422, "invalid_state",
               NULL, i ? "melee, a column not a string" : "melee, no CRT columns");
        json_decref(st);
    }
}

/* COMBAT General Rule: "Missile units may only employ defensive fire ..."; MOVEMENT (K): the
 * missile units are Class IV and V. COMBAT (L) lets Class I units fire offensively. Javelin men
 * (Class I, Missile Strength 2, range 1) may not use Defensive Fire against v-b, allocated against
 * them, but fire in their own Fire Phase when allocated (2 vs FPS 0: 8-1, a 4 is DD). */
static void defensive_fire_by_missile_units_only(void **unused) {
    (void)unused;
    json_t *st =
        mkstate((spec){.units = "v-b vikings foot 0605 n; v-lead vikings leader 0606 n; "
                                "s-jav saxons javelin 0604 s; s-lead saxons leader 0603 s"});
    to_phase(&st, "vikings", "allocation");
    allocate(&st, "v-b", "0604", "melee");
    to_phase(&st, "vikings", "defensive_fire");
    refuse(st, "s-jav", "{'type': 'fire', 'target': '0605'}", DICE(4), 422, "rules_violation",
           "unit", "Class I Defensive Fire");
    expect_refused_msg("Defensive Fire", "Class I Defensive Fire");
    to_phase(&st, "saxons", "allocation");
    allocate(&st, "s-jav", "0605", "fire");
    to_phase(&st, "saxons", "fire");
    json_t *r = ok(&st, "s-jav", "{'type': 'fire', 'target': '0605'}", DICE(4),
                   "Class I fires offensively");
    assert_false(json_is_true(json_object_get(r, "defensive")));
    expect_str(r, "result", "DD", "Class I fires offensively");
    json_decref(r);
    assert_true(demoralized(st, "v-b"));
    json_decref(st);
}

/* COMBAT General Rule: Defensive Fire only "against Enemy units which have been allocated to
 * attack the missile unit(s) itself": only those are struck. EXPLANATION OF COMBAT RESULTS:
 * "Command units, when stacked with other units, may never be affected by Enemy missile fire",
 * even when the command unit is the only one of its hex allocated against the firer. Archers 3
 * vs FPS 0: 8-1, a 1 is DE. */
static void defensive_fire_strikes_allocated_never_stacked_command(void **unused) {
    (void)unused;
    static const struct {
        const char *units, *allocated, *why;
        const char *struck[2];
    } cases[] = {
        {"v-b vikings foot 0605 n; v-c vikings foot 0605 n",
         "v-b",
         "v-b allocated, v-c beside it not: v-b only",
         {"v-b", NULL}},
        {"v-lead vikings leader 0605 n; v-c vikings foot 0605 n",
         "v-lead",
         "a command unit allocated, stacked with v-c: nobody",
         {NULL}},
        {"v-lead vikings leader 0605 n",
         "v-lead",
         "a command unit alone: struck",
         {"v-lead", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[256];
        snprintf(units, sizeof units,
                 "%s; v-chief vikings chief 0606 n; s-arch saxons archers 0604 s", cases[i].units);
        json_t *st = mkstate((spec){.units = units});
        to_phase(&st, "vikings", "allocation");
        allocate(&st, cases[i].allocated, "0604", "melee");
        to_phase(&st, "vikings", "defensive_fire");
        json_t *r = ok(&st, "s-arch", "{'type': 'fire', 'target': '0605'}", DICE(1), cases[i].why);
        assert_true(json_is_true(json_object_get(r, "defensive")));
        expect_str(r, "result", "DE", cases[i].why);
        expect_ids(json_object_get(r, "units"), cases[i].struck, cases[i].why);
        expect_ids(json_object_get(r, "eliminated"), cases[i].struck, cases[i].why);
        json_decref(r);
        if (i < 2) assert_false(flag_of(st, "v-c", "eliminated"));
        if (i == 1) assert_false(flag_of(st, "v-lead", "eliminated"));
        json_decref(st);
    }
}

/* EXPLANATION OF COMBAT RESULTS: command units go last; house default: the combat units (and
 * riderless mounts) of the hex first, the least valuable first, then a fleet, whose cargo goes
 * with it. The saxon longship (5 VP) in river 0905 carries knights (7 VP) and a herald: 1E takes
 * the knights, not the cheaper fleet with everything aboard; 2E then the fleet, and the herald
 * aboard with it. Foot 4 from 0805 (sw of 0905: the knights' and the herald's flank) vs 1 + 2 +
 * 1 = 4: 1-1, a 3 is 1E, a 2 is 2E. */
static void combat_results_1e_combat_units_before_fleet_and_command(void **unused) {
    (void)unused;
    static const struct {
        int64_t die;
        const char *result, *why;
        const char *eliminated[4];
    } cases[] = {
        {3, "1E", "1E: the knights", {"s-k", NULL}},
        {2, "2E", "2E: the knights, then the fleet with the herald", {"s-k", "s-f", "s-h", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *st = mkstate((spec){.hexes = RIVER9,
                                    .units = "v-a vikings foot 0805 ne; v-herald vikings herald "
                                             "0806 n; s-f saxons longship 0905 -; "
                                             "s-k saxons knights 0905 n aboard=s-f; "
                                             "s-h saxons herald 0905 n aboard=s-f"});
        json_t *r = melee_with(&st, "v-a", "0905", cases[i].die);
        expect_str(r, "defence", "4", cases[i].why);
        expect_str(r, "result", cases[i].result, cases[i].why);
        expect_ids(json_object_get(r, "eliminated"), cases[i].eliminated, cases[i].why);
        json_decref(r);
        if (i == 0) {
            assert_false(flag_of(st, "s-f", "eliminated"));
            assert_false(flag_of(st, "s-h", "eliminated"));
            assert_int_equal(iget(army(st, "saxons"), "losses"), 7);
        }
        json_decref(st);
    }
}

/* SCENARIO CHART (Correction) with the setup's own armies: an armies entry of the setup for the
 * errata's army replaces it, the names matched letters and digits only, case aside. Stamford
 * Bridge's Anglo-Saxons (PL 34 in the errata) given PL 10 by the setup as side "anglo-saxons"
 * panic at 10; side "seljuq-turks" takes Manzikert's corrected 72, and so does side
 * "seljug-turks", the errata's printed spelling ("Manzikert Seljug Turks -- PV 145; PL 72"; issue
 * 20 item 6: it never panicked). The vikings, an army the errata does not correct, take their
 * values from the setup (a side of no army of the scenario is refused, below). Foot 4 vs 4, a 3
 * is 1E (4 VP) on the front unit; the one behind it, near no command unit, panics. */
#define VIKING_ARMY "'vikings': {'point_value': 40, 'panic_level': 99}"
static void scenario_chart_setup_armies_override_and_names(void **unused) {
    (void)unused;
    static const struct {
        const char *charts, *side, *army;
        long level;
        int before;
        bool panics;
    } cases[] = {
        {CHARTS_WITH("'scenario': 'stamford-bridge', 'armies': {'anglo-saxons': {'point_value': "
                     "115, 'panic_level': 10}, " VIKING_ARMY "}"),
         "anglo-saxons", "anglo-saxons", 10, 6, true},
        {CHARTS_WITH("'scenario': 'stamford-bridge', 'armies': {'anglo-saxons': {'point_value': "
                     "115, 'panic_level': 10}, " VIKING_ARMY "}"),
         "anglo-saxons", "anglo-saxons", 10, 5, false},
        {CHARTS_WITH("'scenario': 'manzikert', 'armies': {" VIKING_ARMY "}"), "seljuq-turks",
         "Seljuq Turks", 72, 68, true},
        {CHARTS_WITH("'scenario': 'manzikert', 'armies': {" VIKING_ARMY "}"), "seljuq-turks",
         "Seljuq Turks", 72, 67, false},
        {CHARTS_WITH("'scenario': 'manzikert', 'armies': {" VIKING_ARMY "}"), "seljug-turks",
         "Seljuq Turks", 72, 68, true},
        {CHARTS_WITH("'scenario': 'manzikert', 'armies': {" VIKING_ARMY "}"), "SELJUG_TURKS",
         "Seljuq Turks", 72, 67, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char players[128], units[256], losses[16], why[96];
        snprintf(players, sizeof players, "[{'side': '%s'}, {'side': 'vikings'}]", cases[i].side);
        snprintf(units, sizeof units,
                 "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; x-a %s foot 0605 s; "
                 "x-d %s foot 0603 s",
                 cases[i].side, cases[i].side);
        snprintf(losses, sizeof losses, "%d", cases[i].before);
        snprintf(why, sizeof why, "%s, losses %d + 4 against %ld", cases[i].side, cases[i].before,
                 cases[i].level);
        json_t *st = mkstate((spec){.charts = cases[i].charts, .players = players, .units = units});
        const json_t *armies = json_object_get(json_object_get(st, "charts"), "armies");
        expect_int(json_object_get(armies, cases[i].army), "panic_level", cases[i].level, why);
        if (i < 2 && json_object_get(armies, "Anglo-Saxons"))
            fail_msg("%s: the errata's Anglo-Saxons entry is still in the charts", why);
        edit_army(st, cases[i].side, "losses", losses);
        json_t *r = melee_with(&st, "v-a", "0605", 3);
        expect_str(r, "result", "1E", why);
        static const char *const panicked[] = {"x-d", NULL}, *const none[] = {NULL};
        expect_ids(json_object_get(r, "panicked"), cases[i].panics ? panicked : none, why);
        json_decref(r);
        assert_int_equal(flag_of(st, "x-d", "panicked"), cases[i].panics);
        json_decref(st);
    }
}

/* SCENARIO CHART (Correction), issue 20 item 6: with a scenario named, a side that matches none of
 * its armies (the errata's corrected ones, the errata's printed spellings included, and the
 * setup's armies) would never panic; it is refused at creation, 422 invalid_setup naming
 * setup.players[i].side and listing the armies. Without a scenario a side may still go without
 * an army (it never panics, as documented). "Stanford Bridge", as the errata prints it, names the
 * Stamford Bridge scenario. */
static void scenario_chart_side_of_no_army_refused(void **unused) {
    (void)unused;
    const char *units = "v-a vikings foot 0606 n; x-a seljuk-turks foot 0605 s";
    expect_setup_error_says(
        (spec){.charts = "{'scenario': 'manzikert', 'armies': {" VIKING_ARMY "}}",
               .players = "[{'side': 'seljuk-turks'}, {'side': 'vikings'}]",
               .units = units},
        422, "invalid_setup", "setup.players[0].side", "Seljuq Turks",
        "a spelling the errata does not print");
    expect_refused_setup_armies(
        (spec){.charts = "{'scenario': 'manzikert', 'armies': {" VIKING_ARMY "}}",
               .players = "[{'side': 'seljuk-turks'}, {'side': 'vikings'}]",
               .units = units},
        "Seljuq Turks", "vikings");
    expect_setup_error_says((spec){.charts = "{'scenario': 'stamford-bridge'}",
                                   .players = "[{'side': 'anglo-saxons'}, {'side': 'norwegians'}]",
                                   .units = ""},
                            422, "invalid_setup", "setup.players[1].side", "Anglo-Saxons",
                            "the other army without values");
    expect_setup_error_says((spec){.charts = "{'scenario': 'tours'}", .units = ""}, 422,
                            "invalid_setup", "setup.players[0].side", "Franks, Arabs",
                            "the sides of another scenario");
    /* the errata's spellings */
    json_t *st = mkstate((spec){.charts = "{'scenario': 'manzikert', 'armies': {" VIKING_ARMY "}}",
                                .players = "[{'side': 'seljug-turks'}, {'side': 'vikings'}]",
                                .units = ""});
    json_decref(st);
    st = mkstate((spec){.charts = "{'scenario': 'stanford-bridge', 'armies': {'norwegians': "
                                  "{'point_value': 31, 'panic_level': 8}}}",
                        .players = "[{'side': 'anglo-saxons'}, {'side': 'norwegians'}]",
                        .units = ""});
    const json_t *charts = json_object_get(st, "charts");
    expect_str(charts, "scenario", "stamford-bridge", "Stanford Bridge");
    expect_int(json_object_get(json_object_get(charts, "armies"), "Anglo-Saxons"), "panic_level",
               34, "Stanford Bridge");
    json_decref(st);
    /* no scenario: a side without an army is allowed */
    st = mkstate((spec){.charts = CHARTS_WITH(ARMIES(99, 99)),
                        .players = "[{'side': 'franks'}, {'side': 'vikings'}]",
                        .units = ""});
    json_decref(st);
}

/* PANIC (house reading): a panicked unit held in contact cannot run, so it ends its move where it
 * stands (an empty move) and its Movement Phase may end; one stopped in the front of an enemy
 * missile unit (GENERAL MOVEMENT RULES (K)) ends its move there though its allowance is not spent.
 * Contact forms first: 4 vs 4, roll 6, chief -1: row 5, "-"; then the saxon unit panics. */
static void panic_held_in_contact_or_stopped_ends_its_move(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-chief vikings chief 0607 n; "
                                         "s-a saxons foot 0605 s"});
    json_t *r = melee_with(&st, "v-a", "0605", 6);
    expect_str(r, "result", "-", "the melee");
    assert_true(json_is_true(json_object_get(r, "contact")));
    json_decref(r);
    to_phase(&st, "saxons", "movement");
    make_panicked(st, "s-a", "north", false);
    edit_army(st, "saxons", "panicked", "true");
    assert_true(has_id(json_object_get(unit_in(st, "s-a"), "contact"), "v-a"));
    refuse(st, NULL, END_PHASE, NODICE, 422, "rules_violation", NULL,
           "the phase before the panicked unit's move");
    refuse(st, "s-a", "{'type': 'move', 'path': [{'face': 'sw'}, '0505']}", NODICE, 422,
           "rules_violation", "path[1]", "a panicked unit in contact stepping out");
    r = ok(&st, "s-a", "{'type': 'move', 'path': []}", NODICE, "held in contact: stays");
    expect_str(r, "to", "0605", "held in contact: stays");
    expect_str(r, "cost", "0", "held in contact: stays");
    json_decref(r);
    ok_drop(&st, NULL, END_PHASE, NODICE, "the Movement Phase ends");
    assert_string_equal(turn_of(st, "phase"), "allocation");
    json_decref(st);

    /* v-p runs east from 0606 (facing ne): both hexes nearer the edge, 0706 and 0707, are front
     * hexes of the archers at 0806 (facing nw). It stops in 0706 with 5 MP left and 0805 open. */
    st = mkstate((spec){.units =
                            "v-p vikings foot 0606 ne; s-arch saxons archers 0806 nw; s-b saxons "
                            "foot 0112 n"});
    make_panicked(st, "v-p", "east", false);
    r = ok(&st, "v-p", "{'type': 'move', 'path': ['0706']}", NODICE,
           "stopped in a missile unit's front");
    assert_true(json_is_true(json_object_get(r, "stopped")));
    expect_str(r, "stopped_by", "s-arch", "stopped in a missile unit's front");
    expect_str(r, "cost", "1", "stopped in a missile unit's front");
    json_decref(r);
    json_decref(st);
}

/* PANIC: panicked units "must be moved their full Movement Allowance towards the mapsheet edge":
 * a facing step is allowed only directly before a hex step (house reading), so the allowance
 * is not spent turning in place. Foot (6 MP) at 0606 facing n, running south. */
static void panic_turns_only_to_step_edgeward(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-p vikings foot 0606 n; s-a saxons foot 1201 n"});
    make_panicked(st, "v-p", "south", false);
    refuse(st, "v-p", "{'type': 'move', 'path': [{'face': 's'}, {'face': 'n'}]}", NODICE, 422,
           "rules_violation", "path[0]", "six hexsides of turning in place");
    refuse(st, "v-p", "{'type': 'move', 'path': [{'face': 'se'}, {'face': 's'}, '0607']}", NODICE,
           422, "rules_violation", "path[0]", "two facing steps in a row");
    refuse(st, "v-p",
           "{'type': 'move', 'path': [{'face': 's'}, '0607', '0608', '0609', {'face': 'se'}]}",
           NODICE, 422, "rules_violation", "path[4]", "a facing step at the end");
    json_t *r = ok(&st, "v-p", "{'type': 'move', 'path': [{'face': 's'}, '0607', '0608', '0609']}",
                   NODICE, "turn, then run");
    expect_str(r, "cost", "6", "3 for the turn, 3 hexes");
    expect_str(r, "to", "0609", "turn, then run");
    json_decref(r);
    json_decref(st);
}

/* COMBAT (K) with PANIC (house reading): panicked units run; a "-" melee result does not hold a
 * panicked defender in contact. Foot 4 vs a panicked foot (2): 2-1, a 5 is "-". */
static void panic_no_contact_with_panicked_units(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                         "s-a saxons foot 0605 s"});
    make_panicked(st, "s-a", "north", false);
    json_t *r = melee_with(&st, "v-a", "0605", 5);
    expect_str(r, "column", "2-1", "against a panicked unit");
    expect_str(r, "result", "-", "against a panicked unit");
    assert_false(json_is_true(json_object_get(r, "contact")));
    json_decref(r);
    assert_null(json_object_get(unit_in(st, "v-a"), "contact"));
    assert_null(json_object_get(unit_in(st, "s-a"), "contact"));
    json_decref(st);
}

/* STACKING: the limit is checked when a unit ends its move in another hex than the one it began
 * in; a unit turning in place in a hex over the limit (four foot, 4 points > 3) may. */
static void stacking_checked_only_on_a_change_of_hex(void **unused) {
    (void)unused;
    json_t *st =
        mkstate((spec){.units = "v-a vikings foot 0606 n; v-b vikings foot 0606 n; v-c vikings "
                                "foot 0606 n; v-d vikings foot 0606 n; v-e vikings foot 0607 n"});
    json_t *r = ok(&st, "v-a", "{'type': 'move', 'path': [{'face': 'ne'}]}", NODICE,
                   "turning in an over-full hex");
    expect_str(r, "to", "0606", "turning in an over-full hex");
    json_decref(r);
    refuse(st, "v-e", "{'type': 'move', 'path': ['0606']}", NODICE, 422, "rules_violation", "path",
           "entering the over-full hex");
    r = ok(&st, "v-b", "{'type': 'move', 'path': ['0605']}", NODICE, "leaving it");
    json_decref(r);
    json_decref(st);
}

/* DISMOUNTED CAVALRY with COMMAND UNITS (A): dismounting is a move, so a demoralized unit that
 * did not begin the phase beside a Friendly command unit may not dismount; and not aboard a fleet
 * (house default). */
static void dismounting_demoralized_restriction_and_not_aboard(void **unused) {
    (void)unused;
    json_t *st =
        mkstate((spec){.units = "v-cav vikings medcav 0608 n; v-far vikings leader 1010 n"});
    edit_unit(st, "v-cav", "demoralized", DEMORALIZED);
    refuse(st, "v-cav", "{'type': 'move', 'dismount': true}", NODICE, 422, "rules_violation",
           "unit", "a demoralized unit away from a command unit");
    expect_refused_msg("COMMAND UNITS (A)", "a demoralized unit away from a command unit");
    json_decref(st);
    st = mkstate((spec){.units = "v-cav vikings medcav 0608 n; v-lead vikings leader 0708 n"});
    edit_unit(st, "v-cav", "demoralized", DEMORALIZED);
    json_t *r = ok(&st, "v-cav", "{'type': 'move', 'dismount': true}", NODICE,
                   "demoralized beside a command unit");
    expect_str(r, "dismounted", "dismounted", "demoralized beside a command unit");
    json_decref(r);
    json_decref(st);
    st = mkstate((spec){.hexes = RIVER9,
                        .units = "f1 vikings longship 0906 -; c1 vikings medcav 0906 n aboard=f1"});
    refuse(st, "c1", "{'type': 'move', 'dismount': true}", NODICE, 422, "rules_violation",
           "dismount", "dismounting aboard a fleet");
    expect_refused_msg("aboard", "dismounting aboard a fleet");
    json_decref(st);
}

/* TEC: "It costs units two Movement Points to enter a stream hex"; "a hex containing two
 * differing terrain types ... is computed solely on the Movement Point entry cost of the more
 * difficult terrain type". A wooded stream hex costs foot the woods' 4 and the step's term names
 * the woods at that cost; a stream hex on a slope (2 = 2) reads "stream hex"; medium cavalry, in
 * woods only by road, may not enter the wooded stream hex off a road. */
static void tec_wooded_stream_hex_dearer_terrain(void **unused) {
    (void)unused;
    spec s = {.hexes = "{'0606': {'terrain': ['stream', 'woods']}, '0806': {'terrain': ['stream', "
                       "'slope'], 'level': 1}}",
              .streams = "{'0606': ['n', 's']}",
              .units = "v-a vikings foot 0706 sw; v-b vikings foot 0906 sw; v-cav vikings medcav "
                       "0707 nw"};
    json_t *st = mkstate(s);
    json_t *r =
        ok(&st, "v-a", "{'type': 'move', 'path': ['0606']}", NODICE, "into the wooded stream hex");
    expect_str(r, "cost", "4", "into the wooded stream hex: the woods' 4, not the stream's 2");
    const json_t *step = json_array_get(json_object_get(r, "steps"), 0);
    const json_t *term = json_array_get(json_object_get(step, "terms"), 0);
    assert_int_equal(json_array_size(json_object_get(step, "terms")), 1);
    expect_str(term, "name", "woods (the dearer terrain of the stream hex)", "its term");
    expect_str(term, "cost", "4", "its term");
    json_decref(r);
    expect_said("woods (the dearer terrain of the stream hex) 4", "into the wooded stream hex");
    r = ok(&st, "v-b", "{'type': 'move', 'path': ['0806']}", NODICE, "a stream hex on a slope");
    step = json_array_get(json_object_get(r, "steps"), 0);
    expect_str(step, "cost", "2", "a stream hex on a slope");
    expect_str(json_array_get(json_object_get(step, "terms"), 0), "name", "stream hex",
               "a stream hex on a slope");
    json_decref(r);
    refuse(st, "v-cav", "{'type': 'move', 'path': ['0606']}", NODICE, 422, "rules_violation",
           "path[0]", "cavalry into a wooded stream hex off the road");
    json_decref(st);
}

/* TEC: "Units permitted to enter certain types of terrain only on road hexes always have their
 * Melee Defense Strength(s) halved when attacked while on such a road hex" — across a water
 * hexside too, where the melee is fought as in stream hexes (chart: x2). Medium cavalry on a
 * woods road hex: 3 x2 x1/2 = 3. */
static void tec_road_only_halving_across_water_hexside(void **unused) {
    (void)unused;
    json_t *st = mkstate((spec){.hexes = "{'0605': {'terrain': 'woods'}}",
                                .hexsides = "[{'hexes': ['0605', '0604'], 'features': ['road']}, "
                                            "{'hexes': ['0606', '0605'], 'features': ['water']}]",
                                .units = "v-a vikings foot 0606 n; v-herald vikings herald 0607 n; "
                                         "s-cav saxons medcav 0605 s"});
    json_t *r = melee_with(&st, "v-a", "0605", 5);
    expect_strength(r, "defenders", "s-cav", "3", "across the water, on the woods road");
    expect_str(r, "column", "1-1", "4 vs 3");
    json_decref(r);
    expect_said("x2 stream level", "across the water, on the woods road");
    expect_said("x1/2 on a road through woods", "across the water, on the woods road");
    json_decref(st);
}

/* Setup: a bank is a hexside off the stream's course, in a stream hex that setup.streams gives a
 * course; a fleet is never aboard anything, nor a unit aboard itself. details.field points at the
 * entry. */
static void setup_banks_and_aboard_checked(void **unused) {
    (void)unused;
    const char *hexes = "{'0606': {'terrain': 'stream'}, '0608': {'terrain': 'stream'}}",
               *streams = "{'0606': ['n', 's']}";
    expect_setup_error((spec){.hexes = hexes,
                              .streams = streams,
                              .units = "v-a vikings foot 0606 ne bank=se; v-b vikings foot 0606 "
                                       "ne bank=n"},
                       422, "invalid_setup", "setup.units[1].bank", "a bank on the course");
    expect_setup_error(
        (spec){.hexes = hexes, .streams = streams, .units = "v-a vikings foot 0608 ne bank=se"},
        422, "invalid_setup", "setup.units[0].bank", "a stream hex with no course");
    expect_setup_error(
        (spec){.hexes = hexes, .streams = streams, .units = "v-a vikings foot 0707 ne bank=se"},
        422, "invalid_setup", "setup.units[0].bank", "a bank in a clear hex");
    expect_setup_error_says((spec){.hexes = RIVER9,
                                   .units =
                                       "f1 vikings longship 0906 -; f2 vikings longship 0906 - "
                                       "aboard=f1"},
                            422, "invalid_setup", "setup.units[1].aboard", "cannot be aboard",
                            "a fleet aboard a fleet");
    expect_setup_error_says(
        (spec){.hexes = RIVER9, .units = "f1 vikings longship 0906 - aboard=f1"}, 422,
        "invalid_setup", "setup.units[0].aboard", "cannot be aboard", "a fleet aboard itself");
    expect_setup_error_says((spec){.hexes = RIVER9,
                                   .units = "f1 vikings longship 0906 -; c1 vikings foot 0906 n "
                                            "aboard=c1"},
                            422, "invalid_setup", "setup.units[1].aboard", "cannot be aboard",
                            "a unit aboard itself");
    json_t *st = mkstate(
        (spec){.hexes = hexes, .streams = streams, .units = "v-a vikings foot 0606 ne bank=sw"});
    json_decref(st);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(setup_second_listed_moves_first),
        cmocka_unit_test(general_movement_c_one_move_per_unit),
        cmocka_unit_test(general_movement_f_j_own_movement_phase_only),
        cmocka_unit_test(a_state_without_the_shared_turn_record_plays_on),
        cmocka_unit_test(general_movement_k_stop_in_missile_front),
        cmocka_unit_test(general_movement_k_leave_and_front_to_front),
        cmocka_unit_test(general_movement_k_class_iv_v_only_not_demoralized),
        cmocka_unit_test(tec_wooded_slope_dearer_terrain_only),
        cmocka_unit_test(tec_road_hexside_half),
        cmocka_unit_test(tec_stream_hex_and_crossing),
        cmocka_unit_test(tec_no_crossing_cost_at_ford_or_bridge),
        cmocka_unit_test(tec_river_bridge_ford_water_hexside),
        cmocka_unit_test(tec_fire_protection_at_most_four_but_keep),
        cmocka_unit_test(tec_road_only_terrain_and_prohibited_hexes_in_melee),
        cmocka_unit_test(tec_water_hexside_and_ford_fight_as_stream),
        cmocka_unit_test(tec_class_v_in_woods),
        cmocka_unit_test(tec_slope_columns),
        cmocka_unit_test(tec_attack_prohibited_only_by_p),
        cmocka_unit_test(stacking_c_one_fleet_per_hex),
        cmocka_unit_test(viking_fleets_a_three_combat_units),
        cmocka_unit_test(viking_fleets_c_exempt_from_facing),
        cmocka_unit_test(viking_fleets_e_disembark_from_moored_fleet),
        cmocka_unit_test(stacking_limit_from_charts),
        cmocka_unit_test(facing_general_flank_defense),
        cmocka_unit_test(facing_i_combat_k_contact),
        cmocka_unit_test(demoralization_halves_movement_near_command),
        cmocka_unit_test(demoralization_no_attacks),
        cmocka_unit_test(demoralization_lasts_until_same_phase_next_game_turn),
        cmocka_unit_test(command_units_b_allocation_needs_command),
        cmocka_unit_test(command_units_c_melee_modifiers),
        cmocka_unit_test(command_units_c_never_in_missile_fire),
        cmocka_unit_test(ferocity_and_byzantine_vitality),
        cmocka_unit_test(capability_note_defenders_halved_one_by_one),
        cmocka_unit_test(capability_note_four_against_half_is_eight_to_one),
        cmocka_unit_test(capability_note_attackers_lose_fractions),
        cmocka_unit_test(capability_explanation_ms_defends_with_two),
        cmocka_unit_test(capability_note_module_order_terrain_capability_demoralization),
        cmocka_unit_test(combat_l_one_missile_and_one_melee_per_player_turn),
        cmocka_unit_test(combat_l_only_class_i_fires_and_melees),
        cmocka_unit_test(combat_l_one_missile_attack_on_a_target_per_player_turn),
        cmocka_unit_test(combat_l_defensive_fire_once_at_a_unit),
        cmocka_unit_test(combat_general_mas_zero_never_initiates),
        cmocka_unit_test(combat_general_defensive_fire_only_at_allocated),
        cmocka_unit_test(combat_d_hilltop_range_and_firing_over_units),
        cmocka_unit_test(combat_d_hilltop_fires_over_level_terrain_not_wooded_slope),
        cmocka_unit_test(cavalry_medium_charge_two_hexes),
        cmocka_unit_test(cavalry_cataphract_charge_three_never_below_two),
        cmocka_unit_test(cavalry_contact_only_with_cavalry),
        cmocka_unit_test(combat_results_command_units_last_in_1e_2e),
        cmocka_unit_test(combat_results_missile_fire_spares_stacked_command),
        cmocka_unit_test(demoralization_dd_eliminates_demoralized_or_panicked),
        cmocka_unit_test(panic_level_reached_and_exemptions),
        cmocka_unit_test(panic_only_once_per_army),
        cmocka_unit_test(panic_moves_first_full_allowance_toward_edge),
        cmocka_unit_test(panic_off_the_map_one_movement_point),
        cmocka_unit_test(rally_command_unit_one_to_five),
        cmocka_unit_test(rally_combat_unit_one_to_three),
        cmocka_unit_test(rally_rallied_unit_may_not_rally_that_turn),
        cmocka_unit_test(victory_conditions_chart_vp_and_command_ten),
        cmocka_unit_test(dismounted_cavalry_victory_points),
        cmocka_unit_test(scripted_battle_on_the_sample_scenario),
        cmocka_unit_test(charts_validated_at_creation),
        cmocka_unit_test(chart_missing_names_the_chart),
        cmocka_unit_test(scenario_chart_corrected_values),
        cmocka_unit_test(hand_made_state_unit_off_the_map),
        cmocka_unit_test(hand_made_state_odd_rally_attempts),
        cmocka_unit_test(hand_made_state_crt_without_columns),
        cmocka_unit_test(defensive_fire_by_missile_units_only),
        cmocka_unit_test(defensive_fire_strikes_allocated_never_stacked_command),
        cmocka_unit_test(combat_results_1e_combat_units_before_fleet_and_command),
        cmocka_unit_test(scenario_chart_setup_armies_override_and_names),
        cmocka_unit_test(scenario_chart_side_of_no_army_refused),
        cmocka_unit_test(panic_held_in_contact_or_stopped_ends_its_move),
        cmocka_unit_test(panic_turns_only_to_step_edgeward),
        cmocka_unit_test(panic_no_contact_with_panicked_units),
        cmocka_unit_test(stacking_checked_only_on_a_change_of_hex),
        cmocka_unit_test(dismounting_demoralized_restriction_and_not_aboard),
        cmocka_unit_test(tec_wooded_stream_hex_dearer_terrain),
        cmocka_unit_test(tec_road_only_halving_across_water_hexside),
        cmocka_unit_test(setup_banks_and_aboard_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
