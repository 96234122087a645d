/* The Dark Ages errata's checkable rules (rules/spi_dark_ages/errata.h): one test per paragraph
 * that states a number or a case, each quoting it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rules/spi_dark_ages/errata.h"

static void expect_strength(da_strength s, long num, long den) {
    if (s.num * den != num * s.den)
        fail_msg("strength %ld/%ld, expected %ld/%ld", s.num, s.den, num, den);
}

/* "Whenever any Combat Strength is halved, any remaining fraction is lost. Defending units may
 * have their Combat Strength(s) reduced to less than 1." */
static void halving_drops_fractions(void **st) {
    (void)st;
    expect_strength(da_halve(da_whole(4), false), 2, 1);
    expect_strength(da_halve(da_whole(3), false), 1, 1); /* 1 1/2: the half is lost */
    expect_strength(da_halve(da_whole(3), true), 1, 1);
    expect_strength(da_halve(da_whole(1), false), 0, 1); /* an attacker's 1/2 is lost */
    expect_strength(da_halve(da_whole(1), true), 1, 2);  /* a defender may fall below 1 */
    expect_strength(da_halve(da_halve(da_whole(1), true), true), 1, 4);
    /* each unit individually: 3 + 3 halved one by one is 1 + 1, not (3 + 3) / 2 */
    da_strength total = da_add(da_halve(da_whole(3), true), da_halve(da_whole(3), true));
    expect_strength(total, 2, 1);
}

/* The chart effects, and the "P" that forbids an attack. */
static void chart_effects(void **st) {
    (void)st;
    da_strength s = da_whole(3);
    assert_true(da_apply_effect(&s, "x2", true));
    expect_strength(s, 6, 1);
    assert_true(da_apply_effect(&s, "x1/3", false));
    expect_strength(s, 2, 1);
    s = da_whole(2);
    assert_true(da_apply_effect(&s, "x1/3", true)); /* a defender: 2/3 */
    expect_strength(s, 2, 3);
    s = da_whole(5);
    assert_true(da_apply_effect(&s, "x1/2", false));
    expect_strength(s, 2, 1);
    assert_true(da_apply_effect(&s, "x1", false));
    expect_strength(s, 2, 1);
    assert_false(da_apply_effect(&s, "P", false));
    assert_false(da_apply_effect(&s, "x4", false));
}

/* COMBAT UNIT CAPABILITY CHART (Explanation): "an SD unit and an MS unit being attacked on their
 * front by an MC unit: the MS unit would defend with a Melee Defense Strength of 2 (one doubled),
 * not with a Strength of 6." */
static void capability_example(void **st) {
    (void)st;
    da_strength ms = da_whole(1);
    assert_true(da_apply_effect(&ms, "x2", true));
    expect_strength(ms, 2, 1);
}

/* "an Attack Strength of 4 vs. a Defense Strength of 1/2 is treated as an eight to one attack",
 * and odds round in the defender's favour. */
static void odds_from_adjusted_totals(void **st) {
    (void)st;
    const char *cols[] = {"1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1", "8-1"};
    int n = 8;
    assert_int_equal(da_odds_column(da_whole(4), (da_strength){1, 2}, cols, n), 7); /* 8-1 */
    assert_int_equal(da_odds_column(da_whole(4), da_whole(1), cols, n), 4);         /* 4-1 */
    assert_int_equal(da_odds_column(da_whole(5), da_whole(2), cols, n), 2);         /* 2.5: 2-1 */
    assert_int_equal(da_odds_column(da_whole(2), da_whole(3), cols, n), 0);         /* 2/3: 1-2 */
    assert_int_equal(da_odds_column(da_whole(1), da_whole(3), cols, n), -1);        /* below 1-2 */
    assert_int_equal(da_odds_column(da_whole(99), da_whole(1), cols, n), 7); /* beyond: best */
    assert_int_equal(da_odds_column(da_whole(1), da_whole(0), cols, n), 7);
}

/* COMMAND UNITS (C), FEROCITY (B)(C), ROMAN (BYZANTINE) VITALITY (A)(B). */
static void melee_die_roll_modifiers(void **st) {
    (void)st;
    da_melee_sides s = {0};
    s.attacker_command_bonus = 2; /* "subtract the appropriate number" */
    assert_int_equal(da_melee_drm(&s), -2);
    s = (da_melee_sides){0};
    s.defender_command_bonus = 1; /* "the appropriate number is added" */
    assert_int_equal(da_melee_drm(&s), 1);
    s.missile = true; /* "never influence the die roll for any type of missile combat" */
    assert_int_equal(da_melee_drm(&s), 0);
    s = (da_melee_sides){0};
    s.attacker_ferocious = true; /* "a die roll of 5 would become a 4" */
    assert_int_equal(5 + da_melee_drm(&s), 4);
    s = (da_melee_sides){0};
    s.defender_ferocious = true; /* "a die roll of 5 becomes 6" */
    assert_int_equal(5 + da_melee_drm(&s), 6);
    s = (da_melee_sides){0};
    s.attacker_byzantine = true;
    assert_int_equal(da_melee_drm(&s), -1);
    s = (da_melee_sides){0};
    s.defender_byzantine = true;
    assert_int_equal(da_melee_drm(&s), 1);
}

/* DEMORALIZATION: MA halved (fractions lost); COMMAND UNITS (A): only from beside a command unit;
 * PANIC: panicked units keep their full MA. */
static void movement_allowance(void **st) {
    (void)st;
    assert_int_equal(da_movement_allowance(7, false, false, false), 7);
    assert_int_equal(da_movement_allowance(7, true, false, true), 3);
    assert_int_equal(da_movement_allowance(7, true, false, false), 0);
    assert_int_equal(da_movement_allowance(7, true, true, false), 7);
}

/* "a unit which is demoralized by Defensive Fire during the Friendly Player-Turn remains
 * demoralized until the end of the Defensive Fire Phase of the next Friendly Player-Turn." */
static void demoralization_lasts(void **st) {
    (void)st;
    da_when since = {3, 2};
    assert_true(da_still_demoralized(since, (da_when){3, 5}));
    assert_true(da_still_demoralized(since, (da_when){4, 1}));
    assert_true(da_still_demoralized(since, (da_when){4, 2})); /* to the end of that phase */
    assert_false(da_still_demoralized(since, (da_when){4, 3}));
    assert_false(da_still_demoralized(since, (da_when){5, 1}));
}

/* PANIC: the Panic Level, once per army, the three exemptions, rally numbers, DD. */
static void panic_and_rally(void **st) {
    (void)st;
    assert_false(da_panics(21, 22, false));
    assert_true(da_panics(22, 22, false)); /* "reach" */
    assert_false(da_panics(40, 22, true)); /* "only once per army per game" */
    assert_true(da_panic_exempt(true, false, 1));
    assert_true(da_panic_exempt(false, true, 1));
    assert_true(da_panic_exempt(false, false, 11)); /* "more than ten hexes" */
    assert_false(da_panic_exempt(false, false, 10));
    for (int die = 1; die <= 6; die++) {
        assert_int_equal(da_rallies(true, die), die != 6);  /* "any number except six" */
        assert_int_equal(da_rallies(false, die), die <= 3); /* "one, two, or three" */
    }
    assert_true(da_dd_eliminates(true, false));
    assert_true(da_dd_eliminates(false, true));
    assert_false(da_dd_eliminates(false, false));
}

/* EXPLANATION OF COMBAT RESULTS; DISMOUNTED CAVALRY; CAVALRY (Correction). */
static void losses_and_points(void **st) {
    (void)st;
    assert_int_equal(da_command_losses(2, 3), 0); /* combat units take the loss */
    assert_int_equal(da_command_losses(2, 1), 1);
    assert_int_equal(da_command_losses(1, 0), 1);
    /* cavalry 5 VP, dismounted 3 VP */
    assert_int_equal(da_dismounted_vp(5, 3, true, false), 3);
    assert_int_equal(da_dismounted_vp(5, 3, false, true), 2); /* "minus the dismounted" */
    assert_int_equal(da_dismounted_vp(5, 3, true, true), 5);
    assert_int_equal(da_dismounted_vp(5, 3, false, false), 0);
    assert_int_equal(da_min_charge("medium"), 2); /* "two hexes (not three as stated)" */
    assert_int_equal(da_min_charge("cataphract"), 3);
    assert_int_equal(da_min_charge("heavy"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(halving_drops_fractions),  cmocka_unit_test(chart_effects),
        cmocka_unit_test(capability_example),       cmocka_unit_test(odds_from_adjusted_totals),
        cmocka_unit_test(melee_die_roll_modifiers), cmocka_unit_test(movement_allowance),
        cmocka_unit_test(demoralization_lasts),     cmocka_unit_test(panic_and_rally),
        cmocka_unit_test(losses_and_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
