/* The horse-and-musket module, driven as the core drives it (decode, then resolve over a manual
 * dice source), sentence by sentence against shared/rules-sources/horse-and-musket-morale.txt
 * and the house defaults documented in docs/rules/horse-and-musket.md:
 * - the test: on losing 25% to fire (none below 25%), on losing a melee; elite 3+, regular 4+,
 *   poor and militia 5+ at the exact boundary; a failure removes a further 25%;
 * - generals: +1, eliminated with their unit, switching units;
 * - support from directly behind (within 30 degrees) within two moves of the supporter, not from
 *   light infantry or artillery, one supported unit per supporter and turn (a new turn frees it);
 * - melee: the most hits this turn (fire included) retreats a full move, its back to the enemy;
 *   a tie fights again next turn;
 * - fire: a failed test retreats, except when the enemy it exchanged fire with also lost and
 *   failed;
 * - blocked retreats: eliminated by a unit that is not light infantry or artillery; a friendly
 *   blocker tests unless it is cavalry retreated into by infantry;
 * - recovery: 5+ (+1 general) rolled as the unit's side begins its turn, a failure retreats
 *   another full move; a retreating unit does not move;
 * - the sequence of play (house default): each side's Movement, Fire and Melee; out of turn 409,
 *   out of phase 422, the referee's override; ties fight again in the next turn's Melee phase;
 * - the retreat variation from setup.retreat_variation, rolled;
 * - hits given or rolled, setup validation, purity (the input state is never changed).
 * Expected values are worked out from the text and the geometry, not read from the code.
 *
 * Geometry (inch, resolution 10: 60 is 6 inches; facing 0 is north, +y): the target t stands at
 * [0, 0] facing 0, the enemy firer or attacker f at [0, 100] facing 180. A retreat from f goes
 * straight south: bearing 180, a full move of 60 ends at [0, -60] facing 180 (its back to f). */
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

/* ---- helpers ------------------------------------------------------------------------------ */

static const ruleset *rs(void) {
    const ruleset *r = ruleset_find("horse-and-musket");
    assert_non_null(r);
    return r;
}

/* A unit as setup writes it (all arguments literals; x, y, facing, mv bare numbers). */
#define U(id, side, type, quality, x, y, facing, mv, extra)                                        \
    "{\"id\":\"" id "\",\"side\":\"" side "\",\"type\":\"" type "\",\"quality\":\"" quality        \
    "\",\"at\":[" #x "," #y "],\"facing\":" #facing ",\"movement\":" #mv extra "}"

/* The usual pair: the target t (side b) and the enemy f (side a) ten inches north of it. */
#define T_REG U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, "")
#define F_REG U("f", "a", "line_infantry", "regular", 0, 100, 180, 60, "")
#define DICE(...)                                                                                  \
    (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)
#define NODICE NULL, 0

/* A state from setup {"units": units<extra>}: extra is "" or more keys (", \"turn\": ..."). */
static json_t *try_state_setup(const char *units, const char *extra, const char *options,
                               api_error *err) {
    size_t cap = strlen(units) + strlen(extra) + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    snprintf(text, cap, "{\"units\": %s%s}", units, extra);
    json_t *setup = parse(text), *opts = parse(options ? options : "{}");
    json_t *st = rs()->init_state(opts, setup, err);
    json_decref(setup);
    json_decref(opts);
    free(text);
    return st;
}

static json_t *try_state(const char *units, const char *options, api_error *err) {
    return try_state_setup(units, "", options, err);
}

static json_t *mkstate_setup(const char *units, const char *extra) {
    api_error err = {0};
    json_t *st = try_state_setup(units, extra, NULL, &err);
    if (!st) fail_msg("init_state refused the setup: %d %s: %s", err.status, err.code, err.message);
    return st;
}

static json_t *mkstate_opts(const char *units, const char *options) {
    api_error err = {0};
    json_t *st = try_state(units, options, &err);
    if (!st) fail_msg("init_state refused the setup: %d %s: %s", err.status, err.code, err.message);
    return st;
}

static json_t *mkstate(const char *units) {
    return mkstate_opts(units, NULL);
}

static outcome act_full(const json_t *state, const char *options, const char *actor,
                        const char *unit, const char *action, const int64_t *dice, size_t n) {
    return rules_act(rs(), state, options, actor, unit, action, dice, n);
}

static outcome act(const json_t *state, const char *unit, const char *action, const int64_t *dice,
                   size_t n) {
    return act_full(state, NULL, "referee", unit, action, dice, n);
}

static outcome act_opts(const json_t *state, const char *options, const char *unit,
                        const char *action, const int64_t *dice, size_t n) {
    return act_full(state, options, "referee", unit, action, dice, n);
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

/* The new state of a resolved action (dice exactly used); the old state is released. */
static json_t *advance(json_t *st, outcome *o, const char *what) {
    expect_ok_dice(o, what);
    json_t *next = json_incref(o->out.new_state);
    outcome_clear(o);
    json_decref(st);
    return next;
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

static void expect_at(const json_t *state, const char *id, long x, long y, long facing,
                      const char *what) {
    const json_t *u = unit_in(state, id);
    const json_t *at = json_object_get(u, "at");
    long ux = (long)json_integer_value(json_array_get(at, 0));
    long uy = (long)json_integer_value(json_array_get(at, 1));
    if (ux != x || uy != y || iget(u, "facing") != facing)
        fail_msg("%s: unit %s at [%ld, %ld] facing %ld, expected [%ld, %ld] facing %ld", what, id,
                 ux, uy, iget(u, "facing"), x, y, facing);
}

static void expect_unit(const json_t *state, const char *id, long eff, const char *st,
                        const char *what) {
    const json_t *u = unit_in(state, id);
    if (iget(u, "effectiveness") != eff || strcmp(sget(u, "state"), st) != 0)
        fail_msg("%s: unit %s is %ld%% %s, expected %ld%% %s", what, id, iget(u, "effectiveness"),
                 sget(u, "state"), eff, st);
}

static void expect_general(const json_t *state, const char *id, const char *general,
                           const char *what) {
    const json_t *g = json_object_get(unit_in(state, id), "general");
    if (!general) {
        if (g) fail_msg("%s: unit %s still has general %s", what, id, json_string_value(g));
        return;
    }
    if (!json_is_string(g) || strcmp(json_string_value(g), general) != 0)
        fail_msg("%s: unit %s has general %s, expected %s", what, id,
                 g ? json_string_value(g) : "(none)", general);
}

static void expect_point(const json_t *pt, long x, long y, const char *what) {
    if (!json_is_array(pt) || json_array_size(pt) != 2 ||
        json_integer_value(json_array_get(pt, 0)) != x ||
        json_integer_value(json_array_get(pt, 1)) != y) {
        char *s = dump(pt);
        fail_msg("%s: point %s, expected [%ld, %ld]", what, s, x, y);
    }
}

static const json_t *list_at(const json_t *result, const char *key, size_t i) {
    const json_t *v = json_array_get(json_object_get(result, key), i);
    if (!v) fail_msg("result has no %s[%zu]", key, i);
    return v;
}

static size_t list_n(const json_t *result, const char *key) {
    return json_array_size(json_object_get(result, key));
}

/* One test's record: unit, roll, modifier, need, passed. */
static void expect_test(const json_t *t, const char *unit, long roll, long modifier, long need,
                        bool passed, const char *what) {
    if (strcmp(sget(t, "unit"), unit) != 0 || iget(t, "roll") != roll ||
        iget(t, "modifier") != modifier || iget(t, "need") != need ||
        json_is_true(json_object_get(t, "passed")) != passed) {
        char *s = dump(t);
        fail_msg("%s: test %s, expected unit %s roll %ld modifier %+ld need %ld %s", what, s, unit,
                 roll, modifier, need, passed ? "passed" : "failed");
    }
}

static void expect_in_summary(const outcome *o, const char *words, const char *what) {
    if (!strstr(o->out.summary, words))
        fail_msg("%s: summary lacks \"%s\": %s", what, words, o->out.summary);
}

/* The named terms of a test, as "name=value;..." */
static void expect_terms(const json_t *t, const char *want, const char *what) {
    char got[256] = "";
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(t, "modifiers"), i, m) {
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s=%ld;", sget(m, "name"),
                 iget(m, "value"));
    }
    if (strcmp(got, want) != 0) fail_msg("%s: modifiers %s, expected %s", what, got, want);
}

#define FIRE_T1   "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 1}"
#define MORALE    "{\"type\": \"morale\"}"
#define END_PHASE "{\"type\": \"end_phase\"}"

/* Ends phases as the referee, no die drawn, up to the one that starts the next turn: that
 * end_phase's outcome, *st the state just before it. */
static outcome end_turn(json_t **st) {
    for (int i = 0; i < 32; i++) {
        outcome o = act(*st, NULL, END_PHASE, NODICE);
        if (o.rc != 0 || json_is_true(json_object_get(o.out.result, "new_turn"))) return o;
        *st = advance(*st, &o, "end_phase");
    }
    fail_msg("no new turn after 32 end_phase");
    return (outcome){0};
}

/* ---- 1. when a unit tests -------------------------------------------------------------------- */

/* "Test when a unit loses 25 percent effectiveness or more from firing" */
static void fire_losing_25_percent_tests(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    outcome o = act(st, "f", FIRE_T1, DICE(4));
    expect_ok_dice(&o, "1 hit");
    const json_t *r = o.out.result;
    assert_int_equal(iget(r, "hits"), 1);
    assert_int_equal(list_n(r, "tests"), 1);
    expect_test(list_at(r, "tests", 0), "t", 4, 0, 4, true, "25% lost");
    assert_string_equal(sget(list_at(r, "tests", 0), "test"), "lost 25% to fire");
    assert_int_equal(list_n(r, "retreats"), 0);
    expect_unit(o.out.new_state, "t", 75, "normal", "25% lost, passed");
    expect_at(o.out.new_state, "t", 0, 0, 0, "a passed test stays");
    expect_in_summary(&o, "t loses 25% (now 75%)", "summary");
    expect_in_summary(&o, "needs 4+: passes", "summary");
    outcome_clear(&o);
    /* "or more": 50% at once is one test */
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 2}", DICE(5));
    expect_ok_dice(&o, "2 hits");
    assert_int_equal(list_n(o.out.result, "tests"), 1);
    expect_unit(o.out.new_state, "t", 50, "normal", "50% lost, passed");
    outcome_clear(&o);
    /* the firer, not fired back at, loses nothing and does not test */
    o = act(st, "f", FIRE_T1, DICE(4));
    expect_ok_dice(&o, "the firer");
    expect_unit(o.out.new_state, "f", 100, "normal", "the firer");
    outcome_clear(&o);
    json_decref(st);
}

/* ... and no test below 25%: hits_per_quarter 2, one hit is carried, the second costs 25%. */
static void fire_below_25_percent_no_test(void **state) {
    (void)state;
    json_t *st = mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60,
                               ",\"hits_per_quarter\":2") "," F_REG "]");
    outcome o = act(st, "f", FIRE_T1, NODICE);
    expect_ok_dice(&o, "1 hit of 2");
    assert_int_equal(list_n(o.out.result, "tests"), 0);
    const json_t *t = unit_in(o.out.new_state, "t");
    assert_int_equal(iget(t, "effectiveness"), 100);
    assert_int_equal(iget(t, "hits"), 1);
    assert_int_equal(iget(t, "hits_this_turn"), 1);
    st = advance(st, &o, "1 hit of 2");
    o = act(st, "f", FIRE_T1, DICE(4));
    expect_ok_dice(&o, "the second hit");
    assert_int_equal(list_n(o.out.result, "tests"), 1);
    expect_unit(o.out.new_state, "t", 75, "normal", "2 hits of 2");
    assert_int_equal(iget(unit_in(o.out.new_state, "t"), "hits"), 0);
    outcome_clear(&o);
    /* 3 hits at 2 a quarter: 25% lost, one carried, one test */
    json_decref(st);
    st = mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60,
                       ",\"hits_per_quarter\":2") "," F_REG "]");
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 3}", DICE(6));
    expect_ok_dice(&o, "3 hits of 2");
    expect_unit(o.out.new_state, "t", 75, "normal", "3 hits of 2");
    assert_int_equal(iget(unit_in(o.out.new_state, "t"), "hits"), 1);
    outcome_clear(&o);
    json_decref(st);
}

/* "Test when a unit ... loses a melee"; the winner does not test, even having lost 25%. */
static void melee_loser_tests(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    outcome o =
        act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 2, \"hits_back\": 1}",
            DICE(4));
    expect_ok_dice(&o, "melee");
    const json_t *r = o.out.result;
    assert_string_equal(sget(r, "outcome"), "defender_lost");
    assert_int_equal(list_n(r, "tests"), 1);
    expect_test(list_at(r, "tests", 0), "t", 4, 0, 4, true, "the loser tests");
    assert_string_equal(sget(list_at(r, "tests", 0), "test"), "lost a melee");
    expect_unit(o.out.new_state, "t", 50, "retreating", "the loser");
    expect_unit(o.out.new_state, "f", 75, "normal", "the winner, untested");
    outcome_clear(&o);
    /* a loser that lost no effectiveness tests all the same (hits_per_quarter 4) */
    json_decref(st);
    st = mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60,
                       ",\"hits_per_quarter\":4") "," F_REG "]");
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 0}",
            DICE(3));
    expect_ok_dice(&o, "melee, no quarter lost");
    expect_test(list_at(o.out.result, "tests", 0), "t", 3, 0, 4, false, "tests, fails");
    expect_unit(o.out.new_state, "t", 75, "retreating", "failed: a further 25%");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 2. the score to make -------------------------------------------------------------------- */

/* "Elite: 3-6. Regular: 4-6. Poor, militia: 5-6." at the exact boundary; "If the following score
 * is not made, remove a further 25 per cent effectiveness." */
static void quality_boundaries(void **state) {
    (void)state;
    static const struct {
        const char *quality;
        int need;
    } cases[] = {{"elite", 3}, {"regular", 4}, {"poor", 5}, {"militia", 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[256];
        snprintf(units, sizeof units,
                 "[{\"id\":\"t\",\"side\":\"b\",\"type\":\"line_infantry\",\"quality\":\"%s\","
                 "\"at\":[0,0],\"facing\":0,\"movement\":60}]",
                 cases[i].quality);
        json_t *st = mkstate(units);
        for (int roll = 1; roll <= 6; roll++) {
            int64_t d[1] = {roll};
            outcome o = act(st, "t", MORALE, d, 1);
            expect_ok_dice(&o, cases[i].quality);
            bool pass = roll >= cases[i].need;
            const json_t *t = json_object_get(o.out.result, "test");
            expect_test(t, "t", roll, 0, cases[i].need, pass, cases[i].quality);
            assert_int_equal(json_is_true(json_object_get(o.out.result, "passed")), pass);
            expect_unit(o.out.new_state, "t", pass ? 100 : 75, "normal", cases[i].quality);
            outcome_clear(&o);
        }
        json_decref(st);
    }
    /* the same scores after fire: elite passes on 3, fails on 2 */
    json_t *st = mkstate("[" U("t", "b", "line_infantry", "elite", 0, 0, 0, 60, "") "," F_REG "]");
    outcome o = act(st, "f", FIRE_T1, DICE(3));
    expect_test(list_at(o.out.result, "tests", 0), "t", 3, 0, 3, true, "elite 3 after fire");
    outcome_clear(&o);
    o = act(st, "f", FIRE_T1, DICE(2));
    expect_test(list_at(o.out.result, "tests", 0), "t", 2, 0, 3, false, "elite 2 after fire");
    expect_unit(o.out.new_state, "t", 50, "retreating", "elite fails after fire");
    outcome_clear(&o);
    json_decref(st);
}

/* A failure removes a further 25%; at 25% that eliminates. */
static void failure_removes_a_further_quarter(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    outcome o = act(st, "f", FIRE_T1, DICE(3));
    expect_ok_dice(&o, "fire, fails");
    expect_unit(o.out.new_state, "t", 50, "retreating", "25% to fire + 25% for failing");
    expect_in_summary(&o, "fails, loses a further 25%", "summary");
    outcome_clear(&o);
    json_decref(st);
    st = mkstate(
        "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, ",\"effectiveness\":25") "]");
    o = act(st, "t", MORALE, DICE(3));
    expect_ok_dice(&o, "25% fails");
    expect_unit(o.out.new_state, "t", 0, "eliminated", "25% fails: eliminated");
    assert_true(json_is_true(json_object_get(json_object_get(o.out.result, "test"), "eliminated")));
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 3. generals -------------------------------------------------------------------------------
 */

/* "A general may be attached to any unit. Such a unit adds 1 to a morale throw." */
static void general_adds_one(void **state) {
    (void)state;
    json_t *st = mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60,
                               ",\"general\":\"Ney\"") "," U("p", "b", "cavalry", "poor", 200, 0, 0,
                                                             120, ",\"general\":\"Murat\"") "]");
    outcome o = act(st, "t", MORALE, DICE(3));
    expect_ok_dice(&o, "general");
    const json_t *t = json_object_get(o.out.result, "test");
    expect_test(t, "t", 3, 1, 4, true, "regular 3 + general");
    expect_terms(t, "general Ney=1;", "general");
    expect_in_summary(&o, "+1 general Ney", "summary");
    outcome_clear(&o);
    o = act(st, "t", MORALE, DICE(2));
    expect_test(json_object_get(o.out.result, "test"), "t", 2, 1, 4, false, "regular 2 + general");
    outcome_clear(&o);
    o = act(st, "p", MORALE, DICE(4));
    expect_test(json_object_get(o.out.result, "test"), "p", 4, 1, 5, true, "poor 4 + general");
    outcome_clear(&o);
    json_decref(st);
}

/* "The general ... is eliminated if the unit it is with is eliminated." */
static void general_dies_with_his_unit(void **state) {
    (void)state;
    const char *units =
        "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60,
              ",\"effectiveness\":25,\"general\":\"Ney\"") "," F_REG
                                                           "," U("t2", "b", "line_infantry",
                                                                 "regular", 300, 0, 0, 60, "") "]";
    json_t *st = mkstate(units);
    /* eliminated by a failed test (1 + 1 < 4) */
    outcome o = act(st, "t", MORALE, DICE(1));
    expect_ok_dice(&o, "fails at 25%");
    expect_unit(o.out.new_state, "t", 0, "eliminated", "fails at 25%");
    expect_general(o.out.new_state, "t", NULL, "the general dies with the unit");
    json_t *after = json_incref(o.out.new_state);
    outcome_clear(&o);
    /* ... and cannot join another unit any more */
    o = act(after, "t2", "{\"type\": \"attach\", \"general\": \"Ney\"}", NODICE);
    expect_error(&o, 422, "rules_violation", "general", "a dead general");
    outcome_clear(&o);
    json_decref(after);
    /* eliminated by fire (the last 25%: no test) */
    o = act(st, "f", FIRE_T1, NODICE);
    expect_ok_dice(&o, "shot down");
    expect_unit(o.out.new_state, "t", 0, "eliminated", "shot down");
    expect_general(o.out.new_state, "t", NULL, "shot down with his unit");
    assert_int_equal(list_n(o.out.result, "tests"), 0);
    outcome_clear(&o);
    json_decref(st);
}

/* "The general may switch units" (action attach). */
static void general_switches_units(void **state) {
    (void)state;
    json_t *st = mkstate(
        "[" U("a1", "b", "line_infantry", "regular", 0, 0, 0, 60,
              ",\"general\":\"Ney\"") "," U("a2", "b", "line_infantry", "regular", 300, 0, 0, 60,
                                            "") "," U("e", "a", "line_infantry", "regular", 0, 500,
                                                      180, 60, ",\"general\":\"Wellington\"") "]");
    outcome o = act(st, "a2", "{\"type\": \"attach\", \"general\": \"Ney\"}", NODICE);
    expect_ok_dice(&o, "attach");
    assert_string_equal(sget(o.out.result, "from"), "a1");
    assert_string_equal(sget(o.out.result, "to"), "a2");
    expect_general(o.out.new_state, "a1", NULL, "left");
    expect_general(o.out.new_state, "a2", "Ney", "joined");
    expect_in_summary(&o, "general Ney leaves a1 and joins a2", "summary");
    st = advance(st, &o, "attach");
    /* the +1 went with him */
    o = act(st, "a2", MORALE, DICE(3));
    expect_test(json_object_get(o.out.result, "test"), "a2", 3, 1, 4, true, "a2 with Ney");
    outcome_clear(&o);
    o = act(st, "a1", MORALE, DICE(3));
    expect_test(json_object_get(o.out.result, "test"), "a1", 3, 0, 4, false, "a1 without Ney");
    outcome_clear(&o);
    /* refused: the enemy's general, a unit that already has one, a general nobody has */
    o = act(st, "a1", "{\"type\": \"attach\", \"general\": \"Wellington\"}", NODICE);
    expect_error(&o, 422, "rules_violation", "general", "the enemy's general");
    outcome_clear(&o);
    o = act(st, "a2", "{\"type\": \"attach\", \"general\": \"Ney\"}", NODICE);
    expect_error(&o, 422, "rules_violation", "unit", "already with him");
    outcome_clear(&o);
    o = act(st, "a1", "{\"type\": \"attach\", \"general\": \"Soult\"}", NODICE);
    expect_error(&o, 422, "rules_violation", "general", "nobody's general");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 4. support from behind ---------------------------------------------------------------- */

/* A supporter s (side b, movement 60) at (x, y) behind t; t regular tests on 3: passes only with
 * the +1. */
static void support_case(const char *label, const char *s_unit, bool supported) {
    char units[512];
    snprintf(units, sizeof units, "[%s,%s]", T_REG, s_unit);
    json_t *st = mkstate(units);
    outcome o = act(st, "t", MORALE, DICE(3));
    expect_ok_dice(&o, label);
    const json_t *t = json_object_get(o.out.result, "test");
    expect_test(t, "t", 3, supported ? 1 : 0, 4, supported, label);
    if (supported) {
        expect_terms(t, "supported by s=1;", label);
        assert_string_equal(sget(t, "supporter"), "s");
        assert_string_equal(sget(unit_in(o.out.new_state, "s"), "supporting"), "t");
    } else {
        expect_terms(t, "", label);
        assert_null(json_object_get(t, "supporter"));
        assert_null(json_object_get(unit_in(o.out.new_state, "s"), "supporting"));
    }
    outcome_clear(&o);
    json_decref(st);
}

/* "A unit adds 1 to its morale throw if it has a friendly unit directly behind and able to reach
 * it in two turns by normal movement" (house default: within 30 degrees of straight behind). */
static void support_directly_behind_within_two_moves(void **state) {
    (void)state;
    support_case("line 10 in behind", U("s", "b", "line_infantry", "regular", 0, -100, 0, 60, ""),
                 true);
    support_case("cavalry behind", U("s", "b", "cavalry", "poor", 0, -100, 0, 120, ""), true);
    support_case("exactly two moves (12 in)",
                 U("s", "b", "line_infantry", "regular", 0, -120, 0, 60, ""), true);
    support_case("beyond two moves (12.1 in)",
                 U("s", "b", "line_infantry", "regular", 0, -121, 0, 60, ""), false);
    support_case("the supporter's movement counts (2 x 61)",
                 U("s", "b", "line_infantry", "regular", 0, -121, 0, 61, ""), true);
    /* bearing 210 from t (atan2(-50, -87) = 209.9): 30 degrees off straight behind */
    support_case("30 degrees off behind",
                 U("s", "b", "line_infantry", "regular", -50, -87, 0, 60, ""), true);
    /* bearing 211 (atan2(-60, -100) = 210.96): 31 degrees off */
    support_case("31 degrees off behind",
                 U("s", "b", "line_infantry", "regular", -60, -100, 0, 60, ""), false);
    support_case("in front", U("s", "b", "line_infantry", "regular", 0, 100, 0, 60, ""), false);
    support_case("beside", U("s", "b", "line_infantry", "regular", 100, 0, 0, 60, ""), false);
    support_case("an enemy behind", U("s", "a", "line_infantry", "regular", 0, -100, 0, 60, ""),
                 false);
    /* behind means behind the tested unit's facing: t faces 0, so south */
    json_t *st = mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 90, 60, "") "," U(
        "s", "b", "line_infantry", "regular", -100, 0, 0, 60, "") "]");
    outcome o = act(st, "t", MORALE, DICE(3));
    expect_test(json_object_get(o.out.result, "test"), "t", 3, 1, 4, true, "facing east");
    outcome_clear(&o);
    json_decref(st);
    /* general and support together: regular 2 + 2 passes */
    st = mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60,
                       ",\"general\":\"Ney\"") "," U("s", "b", "line_infantry", "regular", 0, -100,
                                                     0, 60, "") "]");
    o = act(st, "t", MORALE, DICE(2));
    const json_t *t = json_object_get(o.out.result, "test");
    expect_test(t, "t", 2, 2, 4, true, "general and support");
    expect_terms(t, "general Ney=1;supported by s=1;", "general and support");
    outcome_clear(&o);
    json_decref(st);
}

/* "Exception: light infantry and artillery units cannot give support in this way." */
static void no_support_from_light_infantry_or_artillery(void **state) {
    (void)state;
    support_case("light infantry behind",
                 U("s", "b", "light_infantry", "regular", 0, -100, 0, 80, ""), false);
    support_case("artillery behind", U("s", "b", "artillery", "elite", 0, -50, 0, 60, ""), false);
    /* a light infantry nearer does not hide a line unit farther back */
    json_t *st =
        mkstate("[" T_REG "," U("li", "b", "light_infantry", "regular", 0, -30, 0, 80, "") "," U(
            "s", "b", "line_infantry", "regular", 0, -100, 0, 60, "") "]");
    outcome o = act(st, "t", MORALE, DICE(3));
    const json_t *t = json_object_get(o.out.result, "test");
    expect_test(t, "t", 3, 1, 4, true, "line behind light infantry");
    assert_string_equal(sget(t, "supporter"), "s");
    outcome_clear(&o);
    json_decref(st);
}

/* "(such a friendly unit can only give support to one unit)"; house default: the nearest that
 * qualifies, for the rest of the turn; a new turn frees it. */
static void supporter_supports_one_unit(void **state) {
    (void)state;
    json_t *st = mkstate("[" U("t1", "b", "line_infantry", "regular", 0, 0, 0, 60, "") "," U(
        "t2", "b", "line_infantry", "regular", 20, 0, 0, 60,
        "") "," U("s", "b", "line_infantry", "regular", 10, -100, 0, 60, "") "]");
    outcome o = act(st, "t1", MORALE, DICE(3));
    expect_test(json_object_get(o.out.result, "test"), "t1", 3, 1, 4, true, "t1 supported");
    st = advance(st, &o, "t1");
    assert_string_equal(sget(unit_in(st, "s"), "supporting"), "t1");
    /* the same turn, t2 gets none */
    o = act(st, "t2", MORALE, DICE(3));
    expect_test(json_object_get(o.out.result, "test"), "t2", 3, 0, 4, false, "t2 unsupported");
    outcome_clear(&o);
    /* t1 may test again with its supporter */
    o = act(st, "t1", MORALE, DICE(3));
    expect_test(json_object_get(o.out.result, "test"), "t1", 3, 1, 4, true, "t1 again");
    outcome_clear(&o);
    /* a new turn frees the supporter */
    o = end_turn(&st);
    st = advance(st, &o, "new turn");
    assert_null(json_object_get(unit_in(st, "s"), "supporting"));
    o = act(st, "t2", MORALE, DICE(3));
    expect_test(json_object_get(o.out.result, "test"), "t2", 3, 1, 4, true, "t2 next turn");
    assert_string_equal(sget(json_object_get(o.out.result, "test"), "supporter"), "s");
    outcome_clear(&o);
    json_decref(st);

    /* the nearest qualifying supporter is used; when it is taken, the next one */
    st = mkstate("[" U("t1", "b", "line_infantry", "regular", 0, 0, 0, 60, "") "," U(
        "t2", "b", "line_infantry", "regular", 20, 0, 0, 60,
        "") "," U("far", "b", "line_infantry", "regular", 0, -110, 0, 60,
                  "") "," U("near", "b", "cavalry", "regular", 10, -50, 0, 120, "") "]");
    o = act(st, "t1", MORALE, DICE(3));
    assert_string_equal(sget(json_object_get(o.out.result, "test"), "supporter"), "near");
    st = advance(st, &o, "t1 by near");
    o = act(st, "t2", MORALE, DICE(3));
    assert_string_equal(sget(json_object_get(o.out.result, "test"), "supporter"), "far");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 5. melee
 * ------------------------------------------------------------------------------------ */

/* "the unit suffering the most hits, including any inflicted by firing, retreats a full move ...
 * and ends the move with its back to the enemy." */
static void melee_most_hits_retreats_back_to_the_enemy(void **state) {
    (void)state;
    json_t *st =
        mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 50, "") "," F_REG "]");
    outcome o =
        act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 2, \"hits_back\": 1}",
            DICE(4));
    expect_ok_dice(&o, "melee");
    const json_t *r = o.out.result;
    assert_int_equal(list_n(r, "retreats"), 1);
    const json_t *rt = list_at(r, "retreats", 0);
    assert_string_equal(sget(rt, "unit"), "t");
    assert_int_equal(iget(rt, "distance"), 50);
    expect_point(json_object_get(rt, "to"), 0, -50, "retreat to");
    assert_int_equal(iget(rt, "facing"), 180);
    expect_at(o.out.new_state, "t", 0, -50, 180, "a full move south, back to f");
    expect_point(json_object_get(unit_in(o.out.new_state, "t"), "retreat_from"), 0, 100,
                 "retreat_from");
    expect_at(o.out.new_state, "f", 0, 100, 180, "the winner stays");
    expect_in_summary(&o, "t suffered the most hits and loses", "summary");
    expect_in_summary(&o, "its back to the enemy (facing 180)", "summary");
    outcome_clear(&o);
    json_decref(st);

    /* on a slant: t at [30, 40], f at [0, 0]: away is bearing 37 (36.87); 50 along it is
     * [30 + 30, 40 + 40] = [60, 80], facing 37 */
    st = mkstate("[" U("t", "b", "line_infantry", "regular", 30, 40, 200, 50,
                       "") "," U("f", "a", "cavalry", "regular", 0, 0, 45, 120, "") "]");
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 0}",
            DICE(6));
    expect_ok_dice(&o, "slant");
    expect_at(o.out.new_state, "t", 60, 80, 37, "slant retreat");
    outcome_clear(&o);
    /* the attacker suffering more retreats from the defender: f [0, 0] -> bearing 217 (away
     * from [30, 40]), 120 along it: [-72, -96] (120 * sin 217 = -72.2, 120 * cos 217 = -95.8) */
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 0, \"hits_back\": 1}",
            DICE(6));
    expect_ok_dice(&o, "attacker loses");
    assert_string_equal(sget(o.out.result, "outcome"), "attacker_lost");
    expect_test(list_at(o.out.result, "tests", 0), "f", 6, 0, 4, true, "attacker tests");
    expect_at(o.out.new_state, "f", -72, -96, 217, "attacker retreats");
    expect_at(o.out.new_state, "t", 30, 40, 200, "defender stays");
    outcome_clear(&o);
    json_decref(st);
    /* "with the usual possible distance-variation adjustment": the game's, so the setup's dice
     * (retreat_variation "1d20-15"), rolled after the loser's test: 5 - 15 = -10 */
    st = mkstate_setup("[" U("t", "b", "line_infantry", "regular", 30, 40, 200, 50,
                             "") "," U("f", "a", "cavalry", "regular", 0, 0, 45, 120, "") "]",
                       ", \"retreat_variation\": \"1d20-15\"");
    assert_string_equal(sget(st, "retreat_variation"), "1d20-15");
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 0}",
            DICE(6, 5));
    expect_ok_dice(&o, "variation");
    assert_int_equal(iget(list_at(o.out.result, "retreats", 0), "distance"), 40);
    assert_int_equal(iget(list_at(o.out.result, "retreats", 0), "variation"), -10);
    expect_at(o.out.new_state, "t", 54, 72, 37, "40 along bearing 37: [30 + 24, 40 + 32]");
    outcome_clear(&o);
    /* the table no longer sends it */
    o = act(st, "f",
            "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 0, "
            "\"variation\": -10}",
            NODICE);
    expect_error(&o, 400, "invalid_field", NULL, "variation from the acting side");
    outcome_clear(&o);
    json_decref(st);
}

/* "including any inflicted by firing": hits of the turn count; a new turn clears them. */
static void melee_counts_fire_hits_of_the_turn(void **state) {
    (void)state;
    json_t *st = mkstate(
        "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, ",\"hits_per_quarter\":4") "," U(
            "f", "a", "line_infantry", "regular", 0, 100, 180, 60, ",\"hits_per_quarter\":4") "]");
    /* t fires first: 2 hits on f (no quarter at 4 a quarter, no test) */
    outcome o = act(st, "t", "{\"type\": \"fire\", \"target\": \"f\", \"hits\": 2}", NODICE);
    st = advance(st, &o, "t fires");
    assert_int_equal(iget(unit_in(st, "f"), "hits_this_turn"), 2);
    /* melee: f scores 2, suffers 1: 3 against 2 this turn, f loses */
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 2, \"hits_back\": 1}",
            DICE(5));
    expect_ok_dice(&o, "melee after fire");
    assert_string_equal(sget(o.out.result, "outcome"), "attacker_lost");
    expect_test(list_at(o.out.result, "tests", 0), "f", 5, 0, 4, true, "f tests");
    expect_at(o.out.new_state, "f", 0, 160, 0, "f retreats north, back to t");
    expect_unit(o.out.new_state, "f", 100, "retreating", "3 hits at 4 a quarter");
    expect_in_summary(&o, "this turn (fire included) f 3, t 2", "summary");
    outcome_clear(&o);
    /* the next turn the fire no longer counts: f wins 2 to 1 */
    o = end_turn(&st);
    st = advance(st, &o, "new turn");
    assert_int_equal(iget(unit_in(st, "f"), "hits_this_turn"), 0);
    assert_int_equal(iget(unit_in(st, "f"), "hits"), 2); /* carried toward the next quarter */
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 2, \"hits_back\": 1}",
            DICE(5));
    expect_ok_dice(&o, "melee next turn");
    assert_string_equal(sget(o.out.result, "outcome"), "defender_lost");
    outcome_clear(&o);
    json_decref(st);
}

/* A side's hits without a table are a claim, except in a session created before claims (its
 * state has no "claims"): there the side's word stands, so its log re-adjudicates as written. */
static void claims_only_in_sessions_that_have_them(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    assert_int_equal(iget(st, "claims"), 0);
    outcome o = act_full(st, NULL, "side:b", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "b movement");
    const char *shot = "{\"type\": \"fire\", \"target\": \"f\", \"hits\": 1}";
    o = act_full(st, NULL, "side:b", "t", shot, DICE(6));
    expect_ok(&o, "a claim");
    assert_true(json_is_true(json_object_get(o.out.result, "pending")));
    assert_int_equal(iget(o.out.new_state, "claims"), 1);
    outcome_clear(&o);
    json_t *old = json_copy(st);
    json_object_del(old, "claims");
    o = act_full(old, NULL, "side:b", "t", shot, DICE(6));
    expect_ok_dice(&o, "the side's word, as before claims");
    assert_null(json_object_get(o.out.result, "pending"));
    assert_int_equal(iget(o.out.result, "hits"), 1);
    outcome_clear(&o);
    json_decref(old);
    json_decref(st);
}

/* A side's hits without a setup table are its word: the action is a pending claim (rules/common/
 * claims.h), which `accepter` accepts, the accept resolving it with `dice`. *st becomes the state
 * with the claim pending; the answer is the accept's outcome. */
static outcome act_accepted(json_t **st, const char *claimant, const char *unit, const char *action,
                            const char *accepter, const int64_t *dice, size_t n) {
    outcome o = act_full(*st, NULL, claimant, unit, action, NODICE);
    expect_ok_dice(&o, "the claim");
    assert_true(json_is_true(json_object_get(o.out.result, "pending")));
    const json_t *claim = json_object_get(o.out.result, "claim");
    char body[64];
    snprintf(body, sizeof body, "{\"type\": \"accept\", \"claim\": %d}",
             (int)json_integer_value(json_object_get(claim, "number")));
    *st = advance(*st, &o, "the claim");
    /* nothing else happens while it is pending */
    outcome blocked = act_full(*st, NULL, claimant, NULL, "{\"type\": \"end_phase\"}", NODICE);
    expect_error(&blocked, 409, "claim_pending", NULL, "while the claim is pending");
    outcome_clear(&blocked);
    return act_full(*st, NULL, accepter, NULL, body, dice, n);
}

/* "A tie results in another round of meleeing on the following turn." */
static void melee_tie_fights_again(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    outcome o = act(
        st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 1}", NODICE);
    expect_ok_dice(&o, "tie");
    const json_t *r = o.out.result;
    assert_string_equal(sget(r, "outcome"), "tie");
    assert_int_equal(list_n(r, "tests"), 0);
    assert_int_equal(list_n(r, "retreats"), 0);
    expect_at(o.out.new_state, "t", 0, 0, 0, "tie: t stays");
    expect_at(o.out.new_state, "f", 0, 100, 180, "tie: f stays");
    expect_unit(o.out.new_state, "t", 75, "normal", "tie");
    expect_unit(o.out.new_state, "f", 75, "normal", "tie");
    assert_string_equal(sget(unit_in(o.out.new_state, "t"), "engaged"), "f");
    assert_string_equal(sget(unit_in(o.out.new_state, "f"), "engaged"), "t");
    expect_in_summary(&o, "a tie, the melee goes on next turn", "summary");
    st = advance(st, &o, "tie");
    /* the new turn keeps them locked */
    o = end_turn(&st);
    expect_ok_dice(&o, "new turn");
    assert_int_equal(iget(o.out.result, "engaged"), 2);
    st = advance(st, &o, "new turn");
    assert_string_equal(sget(unit_in(st, "t"), "engaged"), "f");
    /* the next round decides it */
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 0}",
            DICE(4));
    expect_ok_dice(&o, "second round");
    assert_string_equal(sget(o.out.result, "outcome"), "defender_lost");
    assert_null(json_object_get(unit_in(o.out.new_state, "t"), "engaged"));
    assert_null(json_object_get(unit_in(o.out.new_state, "f"), "engaged"));
    expect_at(o.out.new_state, "t", 0, -60, 180, "second round: t retreats");
    outcome_clear(&o);
    json_decref(st);
}

/* The round goes on "with this unit" (hm.h: engaged): once the other side of a tied melee is
 * eliminated there is no round to fight, and the survivor is not locked in melee any more. */
static void melee_tie_partner_eliminated(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG
                         "," U("g", "a", "artillery", "regular", 100, 100, 225, 40, "") "]");
    outcome o = act(
        st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 1}", NODICE);
    st = advance(st, &o, "tie");
    /* the battery finishes t (75%: three hits) */
    o = act(st, "g", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 3}", NODICE);
    st = advance(st, &o, "t eliminated");
    expect_unit(st, "t", 0, "eliminated", "t eliminated");
    o = end_turn(&st);
    expect_ok_dice(&o, "new turn");
    if (iget(o.out.result, "engaged") != 0 ||
        json_object_get(unit_in(o.out.new_state, "f"), "engaged"))
        fail_msg("f is still locked in melee with the eliminated t: %s; f.engaged = %s",
                 o.out.summary, sget(unit_in(o.out.new_state, "f"), "engaged"));
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 6. fire: retreats and the exchange exception -------------------------------------------- */

/* "A unit that loses 25 percent or more effectiveness from firing, and fails the resulting morale
 * test, retreats a full move ... and ends the move with its back to the enemy." */
static void fire_failed_test_retreats(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    outcome o = act(st, "f", FIRE_T1, DICE(3));
    expect_ok_dice(&o, "fails");
    const json_t *rt = list_at(o.out.result, "retreats", 0);
    assert_string_equal(sget(rt, "unit"), "t");
    assert_int_equal(iget(rt, "distance"), 60);
    expect_at(o.out.new_state, "t", 0, -60, 180, "retreat from fire");
    expect_unit(o.out.new_state, "t", 50, "retreating", "retreat from fire");
    expect_point(json_object_get(unit_in(o.out.new_state, "t"), "retreat_from"), 0, 100,
                 "retreat_from is the firer");
    outcome_clear(&o);
    /* with the setup's variation 1d6-1: 6 - 1 = +5 */
    json_t *sv = mkstate_setup("[" T_REG "," F_REG "]", ", \"retreat_variation\": \"1d6-1\"");
    o = act(sv, "f", FIRE_T1, DICE(3, 6));
    expect_ok_dice(&o, "variation");
    expect_at(o.out.new_state, "t", 0, -65, 180, "variation +5");
    outcome_clear(&o);
    json_decref(sv);
    /* a passed test does not retreat */
    o = act(st, "f", FIRE_T1, DICE(4));
    assert_int_equal(list_n(o.out.result, "retreats"), 0);
    expect_unit(o.out.new_state, "t", 75, "normal", "passed");
    outcome_clear(&o);
    json_decref(st);
}

#define EXCHANGE "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 1}"

/* "Exception: not applicable if an enemy unit with which fire has been exchanged also loses
 * effectiveness and fails a morale test." Tests: the target's first, then the firer's. */
static void fire_exchange_exception(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    /* both lose 25% and fail: neither retreats */
    outcome o = act(st, "f", EXCHANGE, DICE(1, 1));
    expect_ok_dice(&o, "both fail");
    const json_t *r = o.out.result;
    assert_true(json_is_true(json_object_get(r, "exchange")));
    assert_int_equal(list_n(r, "tests"), 2);
    expect_test(list_at(r, "tests", 0), "t", 1, 0, 4, false, "t");
    expect_test(list_at(r, "tests", 1), "f", 1, 0, 4, false, "f");
    assert_int_equal(list_n(r, "retreats"), 0);
    expect_unit(o.out.new_state, "t", 50, "normal", "both fail: t stays");
    expect_unit(o.out.new_state, "f", 50, "normal", "both fail: f stays");
    expect_at(o.out.new_state, "t", 0, 0, 0, "t stays");
    expect_at(o.out.new_state, "f", 0, 100, 180, "f stays");
    expect_in_summary(
        &o, "t does not retreat: f, with which it exchanged fire, also lost and failed", "summary");
    outcome_clear(&o);
    /* only the target fails: it retreats */
    o = act(st, "f", EXCHANGE, DICE(1, 6));
    expect_ok_dice(&o, "t fails");
    assert_int_equal(list_n(o.out.result, "retreats"), 1);
    expect_unit(o.out.new_state, "t", 50, "retreating", "t fails alone");
    expect_at(o.out.new_state, "t", 0, -60, 180, "t retreats");
    expect_unit(o.out.new_state, "f", 75, "normal", "f passed");
    outcome_clear(&o);
    /* only the firer fails: it retreats, away from t */
    o = act(st, "f", EXCHANGE, DICE(6, 1));
    expect_ok_dice(&o, "f fails");
    expect_unit(o.out.new_state, "t", 75, "normal", "t passed");
    expect_unit(o.out.new_state, "f", 50, "retreating", "f fails alone");
    expect_at(o.out.new_state, "f", 0, 160, 0, "f retreats north, back to t");
    outcome_clear(&o);
    /* the enemy fired back but caused no loss: no exception, t retreats */
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 0}",
            DICE(1));
    expect_ok_dice(&o, "no loss back");
    expect_unit(o.out.new_state, "t", 50, "retreating", "no loss back");
    expect_unit(o.out.new_state, "f", 100, "normal", "no loss back");
    outcome_clear(&o);
    json_decref(st);
    /* the enemy lost but was not tested (hits_per_quarter 2, one hit): t retreats */
    st = mkstate("[" T_REG "," U("f", "a", "line_infantry", "regular", 0, 100, 180, 60,
                                 ",\"hits_per_quarter\":2") "]");
    o = act(st, "f", EXCHANGE, DICE(2));
    expect_ok_dice(&o, "f below 25%");
    expect_unit(o.out.new_state, "t", 50, "retreating", "f lost no quarter");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 7. blocked retreats ----------------------------------------------------------------------
 */

/* "A retreating unit is eliminated if its retreat is obstructed by another unit that is not light
 * infantry or artillery. If the blocking unit is friendly, it must take a morale test, unless it
 * is cavalry retreated into by infantry." t (side b) fails a fire test and retreats from [0, 0]
 * to [0, -60]; bases are discs of 5 (half an inch) so a unit within 10 of that line is in the
 * way. */
static void blocked_retreats(void **state) {
    (void)state;
    static const struct {
        const char *label, *t, *w, *options;
        int64_t dice[2];
        size_t ndice;
        bool eliminated, blocker_tests;
        long w_eff;
    } cases[] = {
        {"enemy line infantry in the way",
         T_REG,
         U("w", "a", "line_infantry", "regular", 0, -40, 0, 60, ""),
         NULL,
         {1},
         1,
         true,
         false,
         100},
        {"enemy cavalry in the way",
         T_REG,
         U("w", "a", "cavalry", "regular", 0, -40, 0, 120, ""),
         NULL,
         {1},
         1,
         true,
         false,
         100},
        /* the friendly line unit behind t also supports its test: 2 + 1 = 3 fails */
        {"friendly line infantry: tests, passes",
         T_REG,
         U("w", "b", "line_infantry", "regular", 0, -40, 0, 60, ""),
         NULL,
         {2, 4},
         2,
         true,
         true,
         100},
        {"friendly line infantry: tests, fails",
         T_REG,
         U("w", "b", "line_infantry", "regular", 0, -40, 0, 60, ""),
         NULL,
         {2, 3},
         2,
         true,
         true,
         75},
        {"friendly light infantry: no obstruction",
         T_REG,
         U("w", "b", "light_infantry", "regular", 0, -40, 0, 80, ""),
         NULL,
         {1},
         1,
         false,
         false,
         100},
        {"enemy light infantry: no obstruction",
         T_REG,
         U("w", "a", "light_infantry", "regular", 0, -40, 0, 80, ""),
         NULL,
         {1},
         1,
         false,
         false,
         100},
        {"friendly artillery: no obstruction",
         T_REG,
         U("w", "b", "artillery", "regular", 0, -40, 0, 40, ""),
         NULL,
         {1},
         1,
         false,
         false,
         100},
        {"enemy artillery: no obstruction",
         T_REG,
         U("w", "a", "artillery", "regular", 0, -40, 0, 40, ""),
         NULL,
         {1},
         1,
         false,
         false,
         100},
        {"friendly cavalry retreated into by line infantry: no test",
         T_REG,
         U("w", "b", "cavalry", "regular", 0, -40, 0, 120, ""),
         NULL,
         {2},
         1,
         true,
         false,
         100},
        {"friendly cavalry retreated into by light infantry: no test",
         U("t", "b", "light_infantry", "regular", 0, 0, 0, 60, ""),
         U("w", "b", "cavalry", "regular", 0, -40, 0, 120, ""),
         NULL,
         {2},
         1,
         true,
         false,
         100},
        {"friendly cavalry retreated into by cavalry: tests",
         U("t", "b", "cavalry", "regular", 0, 0, 0, 60, ""),
         U("w", "b", "cavalry", "regular", 0, -40, 0, 120, ""),
         NULL,
         {2, 3},
         2,
         true,
         true,
         75},
        {"friendly cavalry retreated into by artillery: tests",
         U("t", "b", "artillery", "regular", 0, 0, 0, 60, ""),
         U("w", "b", "cavalry", "regular", 0, -40, 0, 120, ""),
         NULL,
         {2, 4},
         2,
         true,
         true,
         100},
        {"friendly line infantry retreated into by cavalry: tests",
         U("t", "b", "cavalry", "regular", 0, 0, 0, 60, ""),
         U("w", "b", "line_infantry", "regular", 0, -40, 0, 60, ""),
         NULL,
         {2, 4},
         2,
         true,
         true,
         100},
        {"bases touching the line (10 off)",
         T_REG,
         U("w", "a", "line_infantry", "regular", 10, -40, 0, 60, ""),
         NULL,
         {1},
         1,
         true,
         false,
         100},
        {"clear of the line (11 off)",
         T_REG,
         U("w", "a", "line_infantry", "regular", 11, -40, 0, 60, ""),
         NULL,
         {1},
         1,
         false,
         false,
         100},
        {"touching the end of the move (10 beyond)",
         T_REG,
         U("w", "a", "line_infantry", "regular", 0, -70, 0, 60, ""),
         NULL,
         {1},
         1,
         true,
         false,
         100},
        {"beyond the end of the move (11 beyond)",
         T_REG,
         U("w", "a", "line_infantry", "regular", 0, -71, 0, 60, ""),
         NULL,
         {1},
         1,
         false,
         false,
         100},
        {"options.base_radius 3: 7 off is clear",
         T_REG,
         U("w", "a", "line_infantry", "regular", 7, -40, 0, 60, ""),
         "{\"base_radius\": 3}",
         {1},
         1,
         false,
         false,
         100},
        {"options.base_radius 3: 6 off is in the way",
         T_REG,
         U("w", "a", "line_infantry", "regular", 6, -40, 0, 60, ""),
         "{\"base_radius\": 3}",
         {1},
         1,
         true,
         false,
         100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char units[768];
        snprintf(units, sizeof units, "[%s,%s,%s]", cases[i].t, cases[i].w, F_REG);
        json_t *st = mkstate_opts(units, cases[i].options);
        outcome o = act_opts(st, cases[i].options, "f", FIRE_T1, cases[i].dice, cases[i].ndice);
        expect_ok_dice(&o, cases[i].label);
        const json_t *r = o.out.result;
        assert_int_equal(list_n(r, "retreats"), 1);
        const json_t *rt = list_at(r, "retreats", 0);
        if (cases[i].eliminated) {
            if (strcmp(sget(rt, "blocked_by"), "w") != 0 ||
                !json_is_true(json_object_get(rt, "eliminated")))
                fail_msg("%s: not blocked by w: %s", cases[i].label, o.out.summary);
            expect_unit(o.out.new_state, "t", 0, "eliminated", cases[i].label);
            expect_in_summary(&o, "but w is in the way: eliminated", cases[i].label);
        } else {
            if (json_object_get(rt, "blocked_by"))
                fail_msg("%s: blocked: %s", cases[i].label, o.out.summary);
            expect_unit(o.out.new_state, "t", 50, "retreating", cases[i].label);
            expect_at(o.out.new_state, "t", 0, -60, 180, cases[i].label);
        }
        const json_t *bt = json_object_get(rt, "blocker_test");
        if (cases[i].blocker_tests != (bt != NULL))
            fail_msg("%s: blocker test %s, expected %s: %s", cases[i].label, bt ? "taken" : "none",
                     cases[i].blocker_tests ? "one" : "none", o.out.summary);
        if (bt) {
            assert_string_equal(sget(bt, "unit"), "w");
            assert_string_equal(sget(bt, "test"), "retreated into");
            assert_int_equal(iget(bt, "roll"), cases[i].dice[1]);
        }
        expect_unit(o.out.new_state, "w", cases[i].w_eff, "normal", cases[i].label);
        if (strstr(cases[i].label, "no test") && strstr(cases[i].label, "cavalry"))
            expect_in_summary(&o, "w is cavalry retreated into by infantry: no test",
                              cases[i].label);
        outcome_clear(&o);
        json_decref(st);
    }
    /* a general with a unit eliminated by a blocked retreat dies with it */
    json_t *st = mkstate("[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60,
                               ",\"general\":\"Ney\"") "," U("w", "a", "line_infantry", "regular",
                                                             0, -40, 0, 60, "") "," F_REG "]");
    outcome o = act(st, "f", FIRE_T1, DICE(1));
    expect_ok_dice(&o, "general blocked");
    expect_unit(o.out.new_state, "t", 0, "eliminated", "general blocked");
    expect_general(o.out.new_state, "t", NULL, "general blocked");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 7b. which unit blocks, the exact base, the exact direction (issue 20, item 7) ---------- */

/* A unit at [x, y] with the given id, side and type (regular, facing 0). */
static void unit_at(char *out, size_t cap, const char *id, const char *side, const char *type,
                    long x, long y, long mv) {
    snprintf(out, cap,
             "{\"id\":\"%s\",\"side\":\"%s\",\"type\":\"%s\",\"quality\":\"regular\",\"at\":[%ld,"
             "%ld],\"facing\":0,\"movement\":%ld}",
             id, side, type, x, y, mv);
}

/* "A retreating unit is eliminated if its retreat is obstructed by another unit": the unit that
 * obstructs it is the first its base would touch as it moves back (a disc of half an inch swept
 * along the retreat), not the one whose centre is nearest. t (side b) retreats from [0, 0] to
 * [0, -60]; bases touch at 10 between centres. A unit 8 off the line and 20 along it is touched
 * 20 - sqrt(100 - 64) = 14 along; one 2 off and 22 along at 22 - sqrt(96) = 12.2, first, though
 * its centre is farther from t (sqrt 488 against sqrt 464). */
static void blocker_is_the_first_unit_touched(void **state) {
    (void)state;
    static const struct {
        const char *label;
        const char *id1, *side1, *type1;
        long x1, y1;
        const char *id2, *side2, *type2;
        long x2, y2;
        const char *blocker; /* NULL: clear */
        int64_t dice[2];
        size_t ndice;
        bool blocker_tests;
    } cases[] = {
        /* the old rule (nearest centre) took the friend, which tested */
        {"the enemy 2 off is touched first, not the friend 8 off with the nearer centre",
         "a1",
         "b",
         "line_infantry",
         8,
         -20,
         "e1",
         "a",
         "line_infantry",
         -2,
         -22,
         "e1",
         {1},
         1,
         false},
        /* the old rule took the enemy, and the friend did not test */
        {"the friend 2 off is touched first and tests, not the enemy with the nearer centre",
         "e1",
         "a",
         "line_infantry",
         8,
         -20,
         "a1",
         "b",
         "line_infantry",
         -2,
         -22,
         "a1",
         {1, 4},
         2,
         true},
        {"touched at the same distance: the first in the setup",
         "a1",
         "b",
         "line_infantry",
         5,
         -30,
         "e1",
         "a",
         "line_infantry",
         -5,
         -30,
         "a1",
         {1, 4},
         2,
         true},
        {"light infantry touched first is passed through; the line behind it blocks",
         "l1",
         "a",
         "light_infantry",
         0,
         -15,
         "e1",
         "a",
         "line_infantry",
         0,
         -50,
         "e1",
         {1},
         1,
         false},
        /* side by side in a line, bases touching: the retreat slides past them (the old rule,
         * 10 off the line and "within 90 degrees", eliminated t) */
        {"neighbours in line, bases touching, are not in the way of a retreat straight back",
         "a1",
         "b",
         "line_infantry",
         10,
         0,
         "e1",
         "a",
         "line_infantry",
         -10,
         0,
         NULL,
         {1},
         1,
         false},
        {"a base it already touches, ahead of it, is in the way at once",
         "e1",
         "a",
         "cavalry",
         6,
         -8,
         "e2",
         "a",
         "cavalry",
         0,
         -50,
         "e1",
         {1},
         1,
         false},
        {"a base it touches and backs away from is not",
         "e1",
         "a",
         "cavalry",
         6,
         8,
         "e2",
         "a",
         "cavalry",
         200,
         0,
         NULL,
         {1},
         1,
         false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char w1[256], w2[256], units[1024];
        unit_at(w1, sizeof w1, cases[i].id1, cases[i].side1, cases[i].type1, cases[i].x1,
                cases[i].y1, 60);
        unit_at(w2, sizeof w2, cases[i].id2, cases[i].side2, cases[i].type2, cases[i].x2,
                cases[i].y2, 60);
        snprintf(units, sizeof units, "[%s,%s,%s,%s]", T_REG, w1, w2, F_REG);
        json_t *st = mkstate(units);
        outcome o = act(st, "f", FIRE_T1, cases[i].dice, cases[i].ndice);
        expect_ok_dice(&o, cases[i].label);
        const json_t *rt = list_at(o.out.result, "retreats", 0);
        const char *by = json_string_value(json_object_get(rt, "blocked_by"));
        if (!cases[i].blocker != !by || (by && strcmp(by, cases[i].blocker) != 0))
            fail_msg("%s: blocked by %s, expected %s: %s", cases[i].label, by ? by : "nobody",
                     cases[i].blocker ? cases[i].blocker : "nobody", o.out.summary);
        if (cases[i].blocker) {
            expect_unit(o.out.new_state, "t", 0, "eliminated", cases[i].label);
        } else {
            expect_unit(o.out.new_state, "t", 50, "retreating", cases[i].label);
            expect_at(o.out.new_state, "t", 0, -60, 180, cases[i].label);
        }
        const json_t *bt = json_object_get(rt, "blocker_test");
        if (cases[i].blocker_tests != (bt != NULL))
            fail_msg("%s: blocker test %s: %s", cases[i].label, bt ? "taken" : "none",
                     o.out.summary);
        if (bt) assert_string_equal(sget(bt, "unit"), cases[i].blocker);
        outcome_clear(&o);
        json_decref(st);
    }
}

/* House default: bases are discs of exactly half an inch (1.5 cm), so two touch with their
 * centres one inch (3 cm) apart at every resolution: at resolution 1 that is 1 (and 3 in cm),
 * not 2 (and 4), as when the radius was rounded up to a whole unit. t retreats from [0, 0] a
 * full move of 6 inches straight south; w stands `off` to the side of the line, 3 inches down. */
static void bases_are_exactly_half_an_inch_at_every_resolution(void **state) {
    (void)state;
    static const struct {
        const char *options;
        long res; /* coordinates per inch or cm */
        long off;
        bool blocked;
    } cases[] = {
        {"{\"resolution\": 1}", 1, 1, true},
        {"{\"resolution\": 1}", 1, 2, false},
        {"{\"resolution\": 1, \"measure\": \"cm\"}", 1, 3, true},
        {"{\"resolution\": 1, \"measure\": \"cm\"}", 1, 4, false},
        {"{\"resolution\": 3}", 3, 3, true},
        {"{\"resolution\": 3}", 3, 4, false},
        {"{\"resolution\": 3, \"measure\": \"cm\"}", 3, 9, true},
        {"{\"resolution\": 3, \"measure\": \"cm\"}", 3, 10, false},
        {"{\"resolution\": 10, \"measure\": \"cm\"}", 10, 30, true},
        {"{\"resolution\": 10, \"measure\": \"cm\"}", 10, 31, false},
        {"{\"resolution\": 25}", 25, 25, true},
        {"{\"resolution\": 25}", 25, 26, false},
        /* options.base_radius (a whole length) touches at twice it */
        {"{\"resolution\": 1, \"base_radius\": 3}", 1, 6, true},
        {"{\"resolution\": 1, \"base_radius\": 3}", 1, 7, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long res = cases[i].res, mv = 6 * res;
        char t[256], f[256], w[256], units[1024], label[160];
        snprintf(label, sizeof label, "%s, %ld off", cases[i].options, cases[i].off);
        unit_at(t, sizeof t, "t", "b", "line_infantry", 0, 0, mv);
        unit_at(f, sizeof f, "f", "a", "line_infantry", 0, 10 * res, mv);
        unit_at(w, sizeof w, "w", "a", "line_infantry", cases[i].off, -3 * res, mv);
        snprintf(units, sizeof units, "[%s,%s,%s]", t, w, f);
        json_t *st = mkstate_opts(units, cases[i].options);
        outcome o = act_opts(st, cases[i].options, "f", FIRE_T1, DICE(1));
        expect_ok_dice(&o, label);
        const json_t *rt = list_at(o.out.result, "retreats", 0);
        bool blocked = json_object_get(rt, "blocked_by") != NULL;
        if (blocked != cases[i].blocked)
            fail_msg("%s: %s, expected %s: %s", label, blocked ? "blocked" : "clear",
                     cases[i].blocked ? "blocked" : "clear", o.out.summary);
        if (!blocked) expect_at(o.out.new_state, "t", 0, -mv, 180, label);
        outcome_clear(&o);
        json_decref(st);
    }
}

/* "retreats a full move ... and ends the move with its back to the enemy": exactly away from
 * the enemy's centre, not along that bearing rounded to the degree. t at [0, 0], the firer f at
 * [-50, -100]: away is along (1, 2), 26.565 degrees; a full move of 200 ends at
 * 200 (1, 2) / sqrt 5 = [89.44, 178.89], on the grid [89, 179] (along 27 degrees it would be
 * [90.8, 178.2]: [91, 178]), facing away from f from there: atan2(139, 279) = 26.48, 26. The
 * exact line also decides what is in the way: [56, 134] is 22 / sqrt 5 = 9.84 off it (10.94 off
 * the 27-degree line), [79, 135] 23 / sqrt 5 = 10.29 (9.10). */
static void retreat_runs_exactly_away_from_the_enemy(void **state) {
    (void)state;
    static const struct {
        const char *label;
        long wx, wy; /* 0, 0: no third unit */
        bool blocked;
    } cases[] = {
        {"no unit in the way", 0, 0, false},
        {"9.84 off the exact line: in the way", 56, 134, true},
        {"10.29 off the exact line: clear", 79, 135, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[256], f[256], w[256], units[1024];
        unit_at(t, sizeof t, "t", "b", "line_infantry", 0, 0, 200);
        unit_at(f, sizeof f, "f", "a", "line_infantry", -50, -100, 60);
        unit_at(w, sizeof w, "w", "a", "line_infantry", cases[i].wx, cases[i].wy, 60);
        if (cases[i].wx || cases[i].wy)
            snprintf(units, sizeof units, "[%s,%s,%s]", t, w, f);
        else
            snprintf(units, sizeof units, "[%s,%s]", t, f);
        json_t *st = mkstate(units);
        outcome o = act(st, "f", FIRE_T1, DICE(1));
        expect_ok_dice(&o, cases[i].label);
        const json_t *rt = list_at(o.out.result, "retreats", 0);
        if (cases[i].blocked) {
            if (strcmp(sget(rt, "blocked_by"), "w") != 0)
                fail_msg("%s: not blocked by w: %s", cases[i].label, o.out.summary);
            expect_unit(o.out.new_state, "t", 0, "eliminated", cases[i].label);
        } else {
            if (json_object_get(rt, "blocked_by"))
                fail_msg("%s: blocked: %s", cases[i].label, o.out.summary);
            expect_point(json_object_get(rt, "to"), 89, 179, cases[i].label);
            assert_int_equal(iget(rt, "facing"), 26);
            expect_at(o.out.new_state, "t", 89, 179, 26, cases[i].label);
            expect_in_summary(&o,
                              "t retreats 20 in to [89, 179], its back to the enemy (facing 26)",
                              cases[i].label);
        }
        outcome_clear(&o);
        json_decref(st);
    }
    assert_int_equal(rs()->version, 4); /* history re-adjudicates differently from 1 and 2 */
}

/* ---- 8. recovery ----------------------------------------------------------------------------- */

/* One phase a player-turn (setup.turn.phases), so each end_phase begins the next side's turn. */
#define ONE_PHASE ", \"turn\": {\"phases\": [\"movement\"]}"

/* "A retreating unit will be diced for at the start of each move of retreat, needing a 5 or
 * better to return to normal action. A general present with the unit adds 1 to the die throw.
 * Note that elite units are treated the same as other units". The umpire dices for it as its
 * side's turn begins (end_phase); a failure retreats another full move (house reading of "each
 * move of retreat"). t (side b) is listed first: b plays first. */
static void recover_five_or_better(void **state) {
    (void)state;
    /* an elite unit that broke: fire, 2 < 3 */
    json_t *st = mkstate_setup(
        "[" U("t", "b", "line_infantry", "elite", 0, 0, 0, 60, "") "," F_REG "]", ONE_PHASE);
    outcome o = act(st, "f", FIRE_T1, DICE(2));
    st = advance(st, &o, "elite breaks");
    expect_at(st, "t", 0, -60, 180, "elite breaks");
    /* a retreating unit cannot move */
    o = act(st, "t", "{\"type\": \"move\", \"to\": [0, -70]}", NODICE);
    expect_error(&o, 409, "retreating", NULL, "move while retreating");
    outcome_clear(&o);
    /* the recovery is no action of the table's any more */
    assert_null(ruleset_action(rs(), "recover"));
    /* a's turn begins: no roll for b's unit */
    o = act(st, NULL, END_PHASE, NODICE);
    expect_ok_dice(&o, "a's turn");
    assert_int_equal(list_n(o.out.result, "recoveries"), 0);
    st = advance(st, &o, "a's turn");
    /* b's turn 2 begins: 4 is not enough, elite or not: another full move away from f */
    o = act(st, NULL, END_PHASE, DICE(4));
    expect_ok_dice(&o, "recover 4");
    const json_t *rc = list_at(o.out.result, "recoveries", 0);
    assert_string_equal(sget(rc, "unit"), "t");
    assert_false(json_is_true(json_object_get(rc, "passed")));
    assert_int_equal(iget(rc, "need"), 5);
    expect_at(o.out.new_state, "t", 0, -120, 180, "another full move");
    expect_unit(o.out.new_state, "t", 50, "retreating", "recover 4");
    expect_in_summary(&o,
                      "t rolls to recover: d6 4, no modifier = 4, needs 5+: fails and "
                      "retreats another full move",
                      "recover 4");
    st = advance(st, &o, "recover 4");
    /* turn 3: 5 returns it to normal action where it stands */
    o = act(st, NULL, END_PHASE, NODICE);
    st = advance(st, &o, "a's turn 2");
    o = act(st, NULL, END_PHASE, DICE(5));
    expect_ok_dice(&o, "recover 5");
    assert_true(json_is_true(json_object_get(list_at(o.out.result, "recoveries", 0), "passed")));
    expect_unit(o.out.new_state, "t", 50, "normal", "recover 5");
    expect_at(o.out.new_state, "t", 0, -120, 180, "recover 5");
    assert_null(json_object_get(unit_in(o.out.new_state, "t"), "retreat_from"));
    st = advance(st, &o, "recover 5");
    /* ... and may move again, in its own turn (side b's token) */
    o = act_full(st, NULL, "side:b", "t", "{\"type\": \"move\", \"to\": [0, -100], \"facing\": 0}",
                 NODICE);
    expect_ok_dice(&o, "move after recovering");
    expect_at(o.out.new_state, "t", 0, -100, 0, "moved");
    assert_null(json_object_get(o.out.result, "override"));
    outcome_clear(&o);
    json_decref(st);

    /* a general present adds 1: 4 + 1 passes, 3 + 1 fails */
    st = mkstate_setup(
        "[" U("t", "b", "line_infantry", "poor", 0, 0, 0, 60, ",\"general\":\"Ney\"") "," F_REG "]",
        ONE_PHASE);
    o = act(st, "f", FIRE_T1, DICE(1));
    st = advance(st, &o, "breaks");
    o = act(st, NULL, END_PHASE, NODICE);
    st = advance(st, &o, "a's turn");
    o = act(st, NULL, END_PHASE, DICE(4));
    expect_ok_dice(&o, "recover 4 + general");
    rc = list_at(o.out.result, "recoveries", 0);
    assert_true(json_is_true(json_object_get(rc, "passed")));
    expect_terms(rc, "general Ney=1;", "recover general");
    expect_unit(o.out.new_state, "t", 50, "normal", "recover 4 + general");
    outcome_clear(&o);
    o = act(st, NULL, END_PHASE, DICE(3));
    assert_false(json_is_true(json_object_get(list_at(o.out.result, "recoveries", 0), "passed")));
    expect_at(o.out.new_state, "t", 0, -120, 180, "3 + general fails");
    outcome_clear(&o);
    json_decref(st);
    /* the setup's variation applies to the new retreat: 1d20-15, 1 + 1 fails, then 15 - 15 = 0
     * ... and 5 - 15 = -10 */
    st = mkstate_setup(
        "[" U("t", "b", "line_infantry", "poor", 0, 0, 0, 60, ",\"general\":\"Ney\"") "," F_REG "]",
        ONE_PHASE ", \"retreat_variation\": \"1d20-15\"");
    o = act(st, "f", FIRE_T1, DICE(1, 15));
    st = advance(st, &o, "breaks, variation 0");
    expect_at(st, "t", 0, -60, 180, "variation 0");
    o = act(st, NULL, END_PHASE, NODICE);
    st = advance(st, &o, "a's turn");
    o = act(st, NULL, END_PHASE, DICE(1, 5));
    expect_ok_dice(&o, "variation -10");
    expect_at(o.out.new_state, "t", 0, -110, 180, "variation -10");
    outcome_clear(&o);
    json_decref(st);
}

/* The retreat of a failed recovery is obstructed like any other. */
/* House default (docs): a retreating unit has not "returned to normal action": it neither fires
 * nor fights, nor fires back in an exchange, until it recovers. */
static void retreating_units_do_not_fight(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    outcome o = act(st, "f", FIRE_T1, DICE(3));
    st = advance(st, &o, "t breaks and retreats");
    o = act(st, "f", EXCHANGE, NULL, 0);
    expect_error(&o, 422, "rules_violation", "hits_back", "a retreating target fires back");
    outcome_clear(&o);
    o = act(st, "t", "{\"type\": \"fire\", \"target\": \"f\", \"hits\": 1}", NULL, 0);
    expect_error(&o, 409, "retreating", NULL, "a retreating unit fires");
    outcome_clear(&o);
    json_decref(st);
}

static void recover_retreat_blocked(void **state) {
    (void)state;
    json_t *st =
        mkstate("[" T_REG "," F_REG "," U("w", "a", "cavalry", "regular", 0, -110, 0, 120, "") "]");
    outcome o = act(st, "f", FIRE_T1, DICE(1));
    st = advance(st, &o, "breaks");
    expect_at(st, "t", 0, -60, 180, "first retreat clear");
    o = end_turn(&st); /* b's turn 2 begins: t rolls 2 */
    outcome_clear(&o);
    o = act(st, NULL, END_PHASE, DICE(2));
    expect_ok_dice(&o, "blocked second retreat");
    expect_unit(o.out.new_state, "t", 0, "eliminated", "blocked second retreat");
    assert_string_equal(sget(list_at(o.out.result, "retreats", 0), "blocked_by"), "w");
    /* the odds' outcome names the units the roll decided */
    assert_string_equal(sget(list_at(o.out.result, "after", 0), "state"), "eliminated");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 8b. the sequence of play ------------------------------------------------------------- */

static const char *turn_phase(const json_t *st) {
    return sget(json_object_get(st, "turn"), "phase");
}

static const char *turn_player(const json_t *st) {
    return sget(json_object_get(st, "turn"), "player");
}

/* House default: each side in turn (the order of setup.units: b first) has Movement, Fire and
 * Melee; end_phase moves on. Two full turns; each side's action out of its turn is refused
 * before any die; an action out of its phase too; the referee's is an override. */
static void sequence_two_full_turns(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    const json_t *turn = json_object_get(st, "turn");
    assert_int_equal(iget(turn, "number"), 1);
    assert_string_equal(turn_player(st), "b");
    assert_string_equal(turn_phase(st), "movement");
    static const char *const phases[] = {"movement", "fire", "melee"};
    for (int number = 1; number <= 2; number++) {
        for (int side = 0; side < 2; side++) {
            const char *me = side == 0 ? "side:b" : "side:a",
                       *other = side == 0 ? "side:a" : "side:b";
            const char *mine = side == 0 ? "t" : "f", *theirs = side == 0 ? "f" : "t";
            for (int ph = 0; ph < 3; ph++) {
                char what[96];
                snprintf(what, sizeof what, "turn %d, %s, %s", number, me + 5, phases[ph]);
                assert_int_equal(iget(json_object_get(st, "turn"), "number"), number);
                assert_string_equal(turn_player(st), me + 5);
                assert_string_equal(turn_phase(st), phases[ph]);
                /* the other side may not take the phase's action, nor end the phase */
                char theirs_now[128];
                if (ph == 0)
                    snprintf(theirs_now, sizeof theirs_now,
                             "{\"type\": \"move\", \"to\": [200, 200]}");
                else
                    snprintf(
                        theirs_now, sizeof theirs_now,
                        "{\"type\": \"%s\", \"target\": \"%s\", \"hits\": 1, \"hits_back\": 1}",
                        ph == 1 ? "fire" : "melee", mine);
                outcome o = act_full(st, NULL, other, theirs, theirs_now, DICE(6, 6));
                expect_error(&o, 409, "not_your_turn", NULL, what);
                assert_int_equal(o.dice_drawn, 0);
                assert_string_equal(json_string_value(json_object_get(o.err.details, "player")),
                                    me + 5);
                outcome_clear(&o);
                o = act_full(st, NULL, other, NULL, END_PHASE, NODICE);
                expect_error(&o, 409, "not_your_turn", NULL, what);
                outcome_clear(&o);
                /* the player's fire outside the Fire phase: wrong phase */
                char fire[96];
                snprintf(fire, sizeof fire, "{\"type\": \"fire\", \"target\": \"%s\", \"hits\": 0}",
                         theirs);
                o = act_full(st, NULL, me, mine, fire, NODICE);
                if (ph == 1) {
                    expect_ok_dice(&o, what);
                    assert_null(json_object_get(o.out.result, "override"));
                } else {
                    expect_error(&o, 422, "wrong_phase", NULL, what);
                }
                outcome_clear(&o);
                /* a morale test the table calls for: either side, any phase */
                o = act_full(st, NULL, other, theirs, MORALE, DICE(6));
                expect_ok_dice(&o, what);
                outcome_clear(&o);
                o = act_full(st, NULL, me, NULL, END_PHASE, NODICE);
                expect_ok_dice(&o, what);
                st = advance(st, &o, what);
            }
        }
    }
    assert_int_equal(iget(json_object_get(st, "turn"), "number"), 3);
    /* the referee out of sequence: it goes through, and says so */
    outcome o =
        act_full(st, NULL, "referee", "f", "{\"type\": \"move\", \"to\": [0, 110]}", NODICE);
    expect_ok_dice(&o, "referee's override");
    assert_non_null(json_object_get(o.out.result, "override"));
    if (strncmp(o.out.summary, "Referee", 7) != 0 && strncmp(o.out.summary, "The referee", 11) != 0)
        fail_msg("the override's summary does not start with the ruling: %s", o.out.summary);
    expect_in_summary(&o, "f moves", "override");
    outcome_clear(&o);
    json_decref(st);

    /* setup.turn overrides the order and the phases */
    st = mkstate_setup(
        "[" T_REG "," F_REG "]",
        ", \"turn\": {\"order\": [\"a\", \"b\"], \"phases\": [\"fire\", \"movement\"]}");
    assert_string_equal(turn_player(st), "a");
    assert_string_equal(turn_phase(st), "fire");
    json_decref(st);
    api_error err = {0};
    assert_null(try_state_setup("[" T_REG "," F_REG "]", ", \"turn\": {\"order\": [\"a\", \"x\"]}",
                                NULL, &err));
    assert_int_equal(err.status, 422);
    api_error_clear(&err);
}

/* "A tie results in another round of meleeing on the following turn": the pair may not move
 * apart or fire elsewhere; not the same turn; and the next turn's Melee phase does not end
 * until they have fought (the referee may end it). */
static void tie_locks_the_pair_until_next_turn(void **state) {
    (void)state;
    json_t *st =
        mkstate("[" T_REG "," F_REG "," U("g", "b", "artillery", "regular", 100, 0, 0, 40, "") "]");
    /* b's turn 1: to its Melee phase */
    outcome o = act_full(st, NULL, "side:b", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "b movement");
    o = act_full(st, NULL, "side:b", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "b fire");
    o = act_accepted(&st, "side:b", "t",
                     "{\"type\": \"melee\", \"target\": \"f\", \"hits\": 1, \"hits_back\": 1}",
                     "side:a", NODICE);
    expect_ok_dice(&o, "tie");
    assert_string_equal(sget(o.out.result, "outcome"), "tie");
    assert_int_equal(iget(unit_in(o.out.new_state, "t"), "engaged_turn"), 1);
    st = advance(st, &o, "tie");
    /* not again this turn */
    o = act_full(st, NULL, "side:b", "t",
                 "{\"type\": \"melee\", \"target\": \"f\", \"hits\": 1, \"hits_back\": 0}", NODICE);
    expect_error(&o, 409, "melee_next_turn", NULL, "the same turn");
    outcome_clear(&o);
    /* b's Melee phase ends (the tie was this turn); a's turn */
    o = act_full(st, NULL, "side:b", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "b melee");
    assert_string_equal(turn_player(st), "a");
    /* f may not move apart ... */
    o = act_full(st, NULL, "side:a", "f", "{\"type\": \"move\", \"to\": [0, 150]}", NODICE);
    expect_error(&o, 409, "engaged", NULL, "move apart");
    outcome_clear(&o);
    o = act_full(st, NULL, "side:a", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "a movement");
    /* ... nor fire elsewhere */
    o = act_full(st, NULL, "side:a", "f", "{\"type\": \"fire\", \"target\": \"g\", \"hits\": 1}",
                 NODICE);
    expect_error(&o, 409, "engaged", NULL, "fire elsewhere");
    outcome_clear(&o);
    o = act_full(st, NULL, "side:a", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "a fire");
    /* a's Melee phase of turn 1: still the tie's turn */
    o = act_full(st, NULL, "side:a", "f",
                 "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1, \"hits_back\": 0}", NODICE);
    expect_error(&o, 409, "melee_next_turn", NULL, "a's melee, the same turn");
    outcome_clear(&o);
    o = act_full(st, NULL, "side:a", NULL, END_PHASE, NODICE);
    expect_ok_dice(&o, "a ends turn 1");
    assert_true(json_is_true(json_object_get(o.out.result, "new_turn")));
    assert_int_equal(iget(o.out.result, "engaged"), 2);
    st = advance(st, &o, "turn 2");
    /* turn 2, b's Melee phase: it does not end before the round is fought */
    o = act_full(st, NULL, "side:b", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "b movement 2");
    o = act_full(st, NULL, "side:b", NULL, END_PHASE, NODICE);
    st = advance(st, &o, "b fire 2");
    o = act_full(st, NULL, "side:b", NULL, END_PHASE, NODICE);
    expect_error(&o, 409, "melee_pending", NULL, "the round not fought");
    outcome_clear(&o);
    /* the referee may end it anyway (the pair stays locked) */
    o = act_full(st, NULL, "referee", NULL, END_PHASE, NODICE);
    expect_ok_dice(&o, "the referee ends it");
    outcome_clear(&o);
    /* the pair fights: only each other */
    o = act_full(st, NULL, "side:b", "g",
                 "{\"type\": \"melee\", \"target\": \"f\", \"hits\": 1, \"hits_back\": 0}", NODICE);
    expect_error(&o, 409, "engaged", NULL, "a third unit joins");
    outcome_clear(&o);
    o = act_accepted(&st, "side:b", "t",
                     "{\"type\": \"melee\", \"target\": \"f\", \"hits\": 1, \"hits_back\": 0}",
                     "side:a", DICE(5));
    expect_ok_dice(&o, "the next round");
    assert_string_equal(sget(o.out.result, "outcome"), "defender_lost");
    st = advance(st, &o, "the next round");
    assert_null(json_object_get(unit_in(st, "t"), "engaged"));
    /* f lost and retreats: a's turn begins with its roll to recover */
    o = act_full(st, NULL, "side:b", NULL, END_PHASE, DICE(6));
    expect_ok_dice(&o, "b's melee ends");
    assert_string_equal(sget(list_at(o.out.result, "recoveries", 0), "unit"), "f");
    expect_unit(o.out.new_state, "f", 50, "normal", "f recovers on 6");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 9. moves ------------------------------------------------------------------------------- */

static void moves(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG "]");
    /* 3-4-5: 50 along a slant */
    outcome o = act(st, "t", "{\"type\": \"move\", \"to\": [30, 40], \"facing\": 45}", NODICE);
    expect_ok_dice(&o, "move");
    assert_int_equal(iget(o.out.result, "distance"), 50);
    assert_int_equal(iget(o.out.result, "allowance"), 60);
    expect_at(o.out.new_state, "t", 30, 40, 45, "moved");
    expect_in_summary(&o, "t moves 5 in of 6 in to [30, 40] facing 45", "summary");
    outcome_clear(&o);
    /* a path is measured leg by leg: 40 + 30 = 70 > 60 */
    o = act(st, "t", "{\"type\": \"move\", \"path\": [[0, -40]], \"to\": [30, -40]}", NODICE);
    expect_error(&o, 422, "rules_violation", "to", "path too long");
    outcome_clear(&o);
    o = act(st, "t", "{\"type\": \"move\", \"path\": [[0, -30]], \"to\": [30, -30]}", NODICE);
    expect_ok_dice(&o, "path of 60");
    assert_int_equal(iget(o.out.result, "distance"), 60);
    outcome_clear(&o);
    o = act(st, "t", "{\"type\": \"move\", \"to\": [0, 61]}", NODICE);
    expect_error(&o, 422, "rules_violation", "to", "61 > 60");
    outcome_clear(&o);
    /* a move to where it stands changes nothing */
    o = act(st, "t", "{\"type\": \"move\", \"to\": [0, 0]}", NODICE);
    expect_ok_dice(&o, "length 0");
    assert_int_equal(iget(o.out.result, "distance"), 0);
    assert_true(json_equal(o.out.new_state, st));
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 10. hits given or rolled ---------------------------------------------------------------- */

#define ROLLED "{\"hits\": \"rolled\"}"

static void hits_given_or_rolled(void **state) {
    (void)state;
    json_t *st = mkstate_opts("[" T_REG "," F_REG "]", ROLLED);
    /* 1d6-2 rolls 3: one hit, then the test */
    outcome o =
        act_opts(st, ROLLED, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d6-2\"}",
                 DICE(3, 4));
    expect_ok_dice(&o, "rolled 1d6-2");
    assert_int_equal(iget(o.out.result, "hits"), 1);
    expect_test(list_at(o.out.result, "tests", 0), "t", 4, 0, 4, true, "after rolled hits");
    expect_unit(o.out.new_state, "t", 75, "normal", "rolled");
    outcome_clear(&o);
    /* floored at 0: 1d6-4 rolls 2, no hit, no test */
    o = act_opts(st, ROLLED, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d6-4\"}",
                 DICE(2));
    expect_ok_dice(&o, "rolled 1d6-4");
    assert_int_equal(iget(o.out.result, "hits"), 0);
    assert_int_equal(list_n(o.out.result, "tests"), 0);
    outcome_clear(&o);
    /* keep highest: 2d6kh1 rolls 2 and 5: five hits, 100% lost: eliminated without a test */
    o = act_opts(st, ROLLED, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"2d6kh1\"}",
                 DICE(2, 5));
    expect_ok_dice(&o, "rolled 2d6kh1");
    assert_int_equal(iget(o.out.result, "hits"), 5);
    expect_unit(o.out.new_state, "t", 0, "eliminated", "five hits");
    outcome_clear(&o);
    /* an exchange rolls hits, then hits back, then the tests */
    o = act_opts(st, ROLLED, "f",
                 "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d2\", \"hits_back\": "
                 "\"1d3\"}",
                 DICE(1, 2, 6, 6));
    expect_ok_dice(&o, "rolled exchange");
    assert_int_equal(iget(o.out.result, "hits"), 1);
    assert_int_equal(iget(o.out.result, "hits_back"), 2);
    expect_unit(o.out.new_state, "t", 75, "normal", "rolled exchange t");
    expect_unit(o.out.new_state, "f", 50, "normal", "rolled exchange f");
    outcome_clear(&o);
    /* melee rolled */
    o = act_opts(st, ROLLED, "f",
                 "{\"type\": \"melee\", \"target\": \"t\", \"hits\": \"1d6\", \"hits_back\": "
                 "\"1d6\"}",
                 DICE(2, 1, 5));
    expect_ok_dice(&o, "rolled melee");
    assert_string_equal(sget(o.out.result, "outcome"), "defender_lost");
    outcome_clear(&o);
    /* the wrong kind: an integer when rolled, on hits and on hits_back */
    o = act_opts(st, ROLLED, "f", FIRE_T1, DICE(4));
    expect_error(&o, 422, "hits_must_be_rolled", "hits", "integer when rolled");
    outcome_clear(&o);
    o = act_opts(st, ROLLED, "f",
                 "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d6\", \"hits_back\": 1}",
                 DICE(4, 4));
    expect_error(&o, 422, "hits_must_be_rolled", "hits_back", "hits_back integer when rolled");
    outcome_clear(&o);
    o = act_opts(st, ROLLED, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"2d\"}",
                 DICE(4));
    expect_error(&o, 422, "invalid_notation", "hits", "bad notation");
    outcome_clear(&o);
    json_decref(st);
    /* given (the default): a notation is refused */
    st = mkstate("[" T_REG "," F_REG "]");
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d6\"}", DICE(4, 4));
    expect_error(&o, 422, "hits_must_be_given", "hits", "notation when given");
    outcome_clear(&o);
    o = act_opts(st, "{\"hits\": \"given\"}", "f", FIRE_T1, DICE(4));
    expect_ok_dice(&o, "given explicitly");
    outcome_clear(&o);
    json_decref(st);
}

/* Issue 19: every refusal comes before the first die (rules/ruleset.h). With rolled hits, a
 * hits_back that does not fit, or a target that may not fire back, used to be refused after the
 * attacker's hits were rolled; now no die is drawn, and the same 422 whatever the dice. */
static void rolled_hits_refused_before_any_die(void **state) {
    (void)state;
    static const struct {
        const char *label, *action, *code, *field;
    } cases[] = {
        {"fire: hits_back an integer when rolled",
         "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d6\", \"hits_back\": 1}",
         "hits_must_be_rolled", "hits_back"},
        {"fire: hits_back a bad notation",
         "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d6\", \"hits_back\": \"2d\"}",
         "invalid_notation", "hits_back"},
        {"melee: hits_back an integer when rolled",
         "{\"type\": \"melee\", \"target\": \"t\", \"hits\": \"1d6\", \"hits_back\": 2}",
         "hits_must_be_rolled", "hits_back"},
        {"melee: hits_back a bad notation",
         "{\"type\": \"melee\", \"target\": \"t\", \"hits\": \"1d6\", \"hits_back\": "
         "\"d6x\"}",
         "invalid_notation", "hits_back"},
    };
    json_t *st = mkstate_opts("[" T_REG "," F_REG "]", ROLLED);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int64_t die = 0; die <= 6; die += 6) {
            outcome o = act_opts(st, ROLLED, "f", cases[i].action, &die, die ? 1 : 0);
            expect_error(&o, 422, cases[i].code, cases[i].field, cases[i].label);
            if (o.dice_drawn)
                fail_msg("%s: refused after %zu die(s)", cases[i].label, o.dice_drawn);
            outcome_clear(&o);
        }
    }
    /* 1d1 hit, test 3 < 4: t breaks and retreats; it may not fire back, whatever f rolls */
    outcome o = act_opts(st, ROLLED, "f",
                         "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d1\"}", DICE(1, 3));
    st = advance(st, &o, "t breaks and retreats");
    o = act_opts(st, ROLLED, "f",
                 "{\"type\": \"fire\", \"target\": \"t\", \"hits\": \"1d6\", \"hits_back\": "
                 "\"1d6\"}",
                 DICE(6, 6));
    expect_error(&o, 422, "rules_violation", "hits_back", "a retreating target fires back");
    assert_int_equal(o.dice_drawn, 0);
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 11. refusals ---------------------------------------------------------------------------- */

static void refused(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG
                         "," U("f2", "a", "line_infantry", "regular", 50, 100, 180, 60, "") "]");
    outcome o = act(st, "f", "{\"type\": \"fire\", \"target\": \"f2\", \"hits\": 1}", NODICE);
    expect_error(&o, 422, "rules_violation", "target", "fire at a friend");
    outcome_clear(&o);
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"f2\", \"hits\": 1, \"hits_back\": 0}",
            NODICE);
    expect_error(&o, 422, "rules_violation", "target", "melee a friend");
    outcome_clear(&o);
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"nobody\", \"hits\": 1}", NODICE);
    expect_error(&o, 422, "unknown_unit", "target", "unknown target");
    outcome_clear(&o);
    o = act(st, NULL, FIRE_T1, NODICE);
    expect_error(&o, 422, "unit_required", "unit", "no acting unit");
    outcome_clear(&o);
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\"}", NODICE);
    expect_error(&o, 400, "invalid_field", "hits", "fire without hits");
    outcome_clear(&o);
    /* melee: hits_back is a required field (GET /v1/rulesets/horse-and-musket says so) */
    o = act(st, "f", "{\"type\": \"melee\", \"target\": \"t\", \"hits\": 1}", NODICE);
    expect_error(&o, 400, "invalid_field", "hits_back", "melee without hits_back");
    outcome_clear(&o);
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 1, \"range\": 3}", NODICE);
    expect_error(&o, 400, "invalid_field", NULL, "unknown field");
    outcome_clear(&o);
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 100}", NODICE);
    expect_error(&o, 400, "invalid_field", "hits", "100 hits");
    outcome_clear(&o);
    o = act(st, "t", "{\"type\": \"move\", \"to\": [0]}", NODICE);
    expect_error(&o, 400, "invalid_field", "to", "a point of one coordinate");
    outcome_clear(&o);
    o = act(st, "t", "{\"type\": \"move\", \"to\": [0, 0], \"facing\": 360}", NODICE);
    expect_error(&o, 400, "invalid_field", "facing", "facing 360");
    outcome_clear(&o);
    o = act(st, NULL, "{\"type\": \"end_phase\", \"all\": true}", NODICE);
    expect_error(&o, 400, "invalid_field", NULL, "end_phase takes no field");
    outcome_clear(&o);
    /* the phase is its player's (b: t is listed first) to end, or the referee's */
    o = act_full(st, NULL, "side:a", NULL, END_PHASE, NODICE);
    expect_error(&o, 409, "not_your_turn", NULL, "a ends b's phase");
    outcome_clear(&o);
    /* an eliminated unit neither acts nor is a target */
    o = act(st, "f", "{\"type\": \"fire\", \"target\": \"t\", \"hits\": 4}", NODICE);
    st = advance(st, &o, "t eliminated");
    expect_unit(st, "t", 0, "eliminated", "4 hits");
    o = act(st, "f", FIRE_T1, NODICE);
    expect_error(&o, 409, "unit_eliminated", "target", "fire at the dead");
    outcome_clear(&o);
    o = act(st, "t", MORALE, DICE(6));
    expect_error(&o, 409, "unit_eliminated", "unit", "the dead test");
    outcome_clear(&o);
    json_decref(st);
}

/* ---- 12. purity ------------------------------------------------------------------------------ */

static void same_dice_same_answer_state_untouched(void **state) {
    (void)state;
    json_t *st = mkstate("[" T_REG "," F_REG
                         "," U("s", "b", "line_infantry", "regular", 0, -100, 0, 60, "") "]");
    char *before = dump(st);
    outcome a = act(st, "f", EXCHANGE, DICE(3, 1));
    outcome b = act(st, "f", EXCHANGE, DICE(3, 1));
    expect_ok_dice(&a, "first");
    expect_ok_dice(&b, "second");
    char *ra = dump(a.out.result), *rb = dump(b.out.result);
    char *sa = dump(a.out.new_state), *sb = dump(b.out.new_state);
    assert_string_equal(ra, rb);
    assert_string_equal(sa, sb);
    assert_string_equal(a.out.summary, b.out.summary);
    char *after = dump(st);
    assert_string_equal(before, after);
    assert_string_not_equal(before, sa);
    /* t (supported by s) passed on 3 + 1, f failed on 1 and retreated */
    expect_unit(a.out.new_state, "t", 75, "normal", "t");
    expect_unit(a.out.new_state, "f", 50, "retreating", "f");
    assert_string_equal(sget(unit_in(a.out.new_state, "s"), "supporting"), "t");
    assert_null(json_object_get(unit_in(st, "s"), "supporting"));
    free(ra);
    free(rb);
    free(sa);
    free(sb);
    free(after);
    free(before);
    outcome_clear(&a);
    outcome_clear(&b);
    json_decref(st);
}

/* ---- 13. setup ------------------------------------------------------------------------------- */

static void setup_refused(void **state) {
    (void)state;
    static const struct {
        const char *label, *units, *options;
        int status;
        const char *code, *field;
    } cases[] = {
        {"effectiveness 30",
         "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, ",\"effectiveness\":30") "]",
         NULL, 400, "invalid_field", "setup.units[0].effectiveness"},
        {"effectiveness 0",
         "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, ",\"effectiveness\":0") "]", NULL,
         400, "invalid_field", "setup.units[0].effectiveness"},
        {"general on two units",
         "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, ",\"general\":\"Ney\"") "," U(
             "u", "b", "cavalry", "regular", 50, 0, 0, 60, ",\"general\":\"Ney\"") "]",
         NULL, 422, "invalid_setup", "setup.units[1].general"},
        {"an id twice", "[" T_REG "," T_REG "]", NULL, 422, "invalid_setup", "setup.units[1].id"},
        {"unknown type", "[" U("t", "b", "dragoons", "regular", 0, 0, 0, 60, "") "]", NULL, 400,
         "invalid_field", "setup.units[0].type"},
        {"unknown quality", "[" U("t", "b", "line_infantry", "veteran", 0, 0, 0, 60, "") "]", NULL,
         400, "invalid_field", "setup.units[0].quality"},
        {"facing 360", "[" U("t", "b", "line_infantry", "regular", 0, 0, 360, 60, "") "]", NULL,
         400, "invalid_field", "setup.units[0].facing"},
        {"movement 0", "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 0, "") "]", NULL, 400,
         "invalid_field", "setup.units[0].movement"},
        {"a state field in a setup",
         "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, ",\"state\":\"retreating\"") "]",
         NULL, 400, "invalid_field", "setup.units[0].state"},
        {"hits_per_quarter 0",
         "[" U("t", "b", "line_infantry", "regular", 0, 0, 0, 60, ",\"hits_per_quarter\":0") "]",
         NULL, 400, "invalid_field", "setup.units[0].hits_per_quarter"},
        {"options.hits", "[" T_REG "]", "{\"hits\": \"sometimes\"}", 400, "invalid_field",
         "options.hits"},
        {"options.base_radius 0", "[" T_REG "]", "{\"base_radius\": 0}", 400, "invalid_field",
         "options.base_radius"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        api_error err = {0};
        json_t *st = try_state(cases[i].units, cases[i].options, &err);
        if (st) fail_msg("%s: the setup was accepted", cases[i].label);
        const char *f = json_string_value(json_object_get(err.details, "field"));
        if (err.status != cases[i].status || strcmp(err.code, cases[i].code) != 0 || !f ||
            strcmp(f, cases[i].field) != 0)
            fail_msg("%s: %d %s on %s, expected %d %s on %s (%s)", cases[i].label, err.status,
                     err.code, f ? f : "(none)", cases[i].status, cases[i].code, cases[i].field,
                     err.message);
        api_error_clear(&err);
    }
    /* a retreat variation that is no dice notation: refused when the session is made */
    api_error verr = {0};
    assert_null(try_state_setup("[" T_REG "]", ", \"retreat_variation\": \"2x\"", NULL, &verr));
    assert_int_equal(verr.status, 422);
    assert_string_equal(verr.code, "invalid_notation");
    assert_string_equal(json_string_value(json_object_get(verr.details, "field")),
                        "setup.retreat_variation");
    api_error_clear(&verr);
    /* what a setup may give: effectiveness 25-100, hits_per_quarter, name, general */
    json_t *st = mkstate("[" U("t", "b", "line_infantry", "militia", 0, 0, 0, 60,
                               ",\"effectiveness\":75,\"hits_per_quarter\":3,\"name\":\"Nassau\","
                               "\"general\":\"Orange\"") "]");
    const json_t *t = unit_in(st, "t");
    assert_int_equal(iget(t, "effectiveness"), 75);
    assert_int_equal(iget(t, "hits_per_quarter"), 3);
    assert_string_equal(sget(t, "state"), "normal");
    assert_int_equal(iget(t, "hits"), 0);
    assert_string_equal(sget(t, "general"), "Orange");
    json_decref(st);
    /* the module's sample setup initialises */
    json_t *setup = parse(rs()->sample_setup), *opts = parse("{}");
    api_error err = {0};
    st = rs()->init_state(opts, setup, &err);
    assert_non_null(st);
    assert_int_equal(json_array_size(json_object_get(st, "units")), 7);
    json_decref(st);
    json_decref(setup);
    json_decref(opts);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fire_losing_25_percent_tests),
        cmocka_unit_test(fire_below_25_percent_no_test),
        cmocka_unit_test(melee_loser_tests),
        cmocka_unit_test(quality_boundaries),
        cmocka_unit_test(failure_removes_a_further_quarter),
        cmocka_unit_test(general_adds_one),
        cmocka_unit_test(general_dies_with_his_unit),
        cmocka_unit_test(general_switches_units),
        cmocka_unit_test(support_directly_behind_within_two_moves),
        cmocka_unit_test(no_support_from_light_infantry_or_artillery),
        cmocka_unit_test(supporter_supports_one_unit),
        cmocka_unit_test(melee_most_hits_retreats_back_to_the_enemy),
        cmocka_unit_test(melee_counts_fire_hits_of_the_turn),
        cmocka_unit_test(melee_tie_fights_again),
        cmocka_unit_test(melee_tie_partner_eliminated),
        cmocka_unit_test(fire_failed_test_retreats),
        cmocka_unit_test(fire_exchange_exception),
        cmocka_unit_test(blocked_retreats),
        cmocka_unit_test(blocker_is_the_first_unit_touched),
        cmocka_unit_test(bases_are_exactly_half_an_inch_at_every_resolution),
        cmocka_unit_test(retreat_runs_exactly_away_from_the_enemy),
        cmocka_unit_test(recover_five_or_better),
        cmocka_unit_test(recover_retreat_blocked),
        cmocka_unit_test(sequence_two_full_turns),
        cmocka_unit_test(tie_locks_the_pair_until_next_turn),
        cmocka_unit_test(claims_only_in_sessions_that_have_them),
        cmocka_unit_test(retreating_units_do_not_fight),
        cmocka_unit_test(moves),
        cmocka_unit_test(hits_given_or_rolled),
        cmocka_unit_test(rolled_hits_refused_before_any_die),
        cmocka_unit_test(refused),
        cmocka_unit_test(same_dice_same_answer_state_untouched),
        cmocka_unit_test(setup_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
