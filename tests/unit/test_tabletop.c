/* rules/common/tabletop.h: exact geometry of the open table, measured lengths, terrain areas and
 * the readers. Expected values are worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rules/common/tabletop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static table_pt P(int64_t x, int64_t y) {
    return (table_pt){x, y};
}

static json_t *J(const char *text) {
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v) fail_msg("bad test JSON at %d: %s (%s)", je.position, je.text, text);
    return v;
}

static const char *const types[] = {"difficult", "impassable", "woods", NULL};
#define DIFFICULT  (1u << 0)
#define IMPASSABLE (1u << 1)
#define WOODS      (1u << 2)

/* ---- distances ------------------------------------------------------------------------------ */

static void distances_and_within_at_exact_boundaries(void **state) {
    (void)state;
    assert_int_equal(table_dist2(P(0, 0), P(3, 4)), 25);
    assert_int_equal(table_dist2(P(-3, -4), P(0, 0)), 25);
    assert_true(table_within(P(0, 0), P(3, 4), 5));
    assert_false(table_within(P(0, 0), P(3, 4), 4));
    assert_true(table_within(P(1, 1), P(1, 1), 0));
    assert_false(table_within(P(1, 1), P(1, 1), -1));
    /* (1, 1): sqrt 2 = 1.41, within 2 but not 1 */
    assert_true(table_within(P(0, 0), P(1, 1), 2));
    assert_false(table_within(P(0, 0), P(1, 1), 1));
    /* corner to corner of the largest table: 2e6 * sqrt 2 = 2828427.12 */
    table_pt lo = P(-TABLE_COORD_MAX, -TABLE_COORD_MAX), hi = P(TABLE_COORD_MAX, TABLE_COORD_MAX);
    assert_int_equal(table_dist2(lo, hi), 8000000000000LL);
    assert_int_equal(table_dist(lo, hi), 2828427);
    assert_true(table_within(lo, hi, 2828428));
    assert_false(table_within(lo, hi, 2828427));
    /* rounded to nearest: sqrt 2 -> 1, sqrt 5 = 2.24 -> 2, sqrt 13 = 3.61 -> 4, sqrt 12.25 */
    assert_int_equal(table_dist(P(0, 0), P(1, 1)), 1);
    assert_int_equal(table_dist(P(0, 0), P(1, 2)), 2);
    assert_int_equal(table_dist(P(0, 0), P(2, 3)), 4);
    assert_int_equal(table_dist(P(0, 0), P(3, 4)), 5);
    assert_int_equal(table_dist(P(5, 5), P(5, 5)), 0);
    /* out-of-contract points must not overflow (UBSan aborts the test if they do) */
    table_pt far = P(INT64_MAX, INT64_MIN), far2 = P(INT64_MIN, INT64_MAX);
    assert_true(table_dist2(far, far2) > 0);
    assert_true(table_dist(far, far2) > 0);
    assert_true(table_within(far, far2, INT64_MAX));
    assert_false(table_within(far, far2, TABLE_COORD_MAX));
}

static void path_length_rounds_up_but_keeps_exact_lengths(void **state) {
    (void)state;
    table_pt p[4] = {P(3, 4), P(6, 8), P(6, 0)};
    assert_int_equal(table_path_length(P(0, 0), p, 0), 0);
    assert_int_equal(table_path_length(P(0, 0), NULL, 3), 0);
    assert_int_equal(table_path_length(P(0, 0), p, 1), 5);
    assert_int_equal(table_path_length(P(0, 0), p, 2), 10);
    assert_int_equal(table_path_length(P(0, 0), p, 3), 18);
    /* 5 + sqrt 2 = 6.41 -> 7 */
    table_pt q[2] = {P(3, 4), P(4, 5)};
    assert_int_equal(table_path_length(P(0, 0), q, 2), 7);
    /* 1.41 -> 2 */
    assert_int_equal(table_path_length(P(0, 0), &q[1], 1), 7);
    assert_int_equal(table_path_length(P(3, 4), &q[1], 1), 2);
    /* long exact paths are not bumped by floating-point error: 200 legs of 500000 */
    table_pt zig[200];
    for (int i = 0; i < 200; i++)
        zig[i] = i % 2 ? P(0, 0) : P(300000, 400000);
    assert_int_equal(table_path_length(P(0, 0), zig, 200), 100000000);
    /* 1000 legs of sqrt 2: 1414.21 -> 1415; 1000 legs of sqrt(2e12) = 1414213562.37 -> ...63 */
    table_pt diag[1000], big[1000];
    for (int i = 0; i < 1000; i++) {
        diag[i] = i % 2 ? P(0, 0) : P(1, 1);
        big[i] = i % 2 ? P(0, 0) : P(1000000, 1000000);
    }
    assert_int_equal(table_path_length(P(0, 0), diag, 1000), 1415);
    assert_int_equal(table_path_length(P(0, 0), big, 1000), 1414213563);
    /* mixed: 5 + sqrt 2 + 5 = 11.41 -> 12 */
    table_pt mix[3] = {P(3, 4), P(4, 5), P(7, 9)};
    assert_int_equal(table_path_length(P(0, 0), mix, 3), 12);
}

/* ---- bearings and facings ------------------------------------------------------------------- */

static void bearings_of_the_compass_and_a_3_4_5(void **state) {
    (void)state;
    static const struct {
        int dx, dy, deg;
    } cases[] = {
        {0, 1, 0},    {1, 1, 45},   {1, 0, 90},   {1, -1, 135},  {0, -1, 180},   {-1, -1, 225},
        {-1, 0, 270}, {-1, 1, 315}, {0, 7, 0},    {7, 0, 90},    {0, -7, 180},   {-7, 0, 270},
        {3, 4, 37},   {4, 3, 53},   {4, -3, 127}, {3, -4, 143},  {-3, -4, 217},  {-4, -3, 233},
        {-4, 3, 307}, {-3, 4, 323}, {1, 1000, 0}, {-1, 1000, 0}, {-1, 100, 359},
    };
    /* 3-4-5: atan(3/4) = 36.87 deg -> 37, atan(4/3) = 53.13 -> 53; (-1, 100): 360 - 0.57 -> 359;
     * (-1, 1000): 359.94 -> 360 = 0 */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        table_pt a = P(100, -200), b = P(100 + cases[i].dx, -200 + cases[i].dy);
        if (table_bearing(a, b) != cases[i].deg)
            fail_msg("bearing (%d, %d): %d, expected %d", cases[i].dx, cases[i].dy,
                     table_bearing(a, b), cases[i].deg);
    }
    assert_int_equal(table_bearing(P(5, 5), P(5, 5)), 0);
}

static void angle_off_wraps_around(void **state) {
    (void)state;
    assert_int_equal(table_angle_off(350, 10), 20);
    assert_int_equal(table_angle_off(10, 350), 20);
    assert_int_equal(table_angle_off(0, 180), 180);
    assert_int_equal(table_angle_off(90, 270), 180);
    assert_int_equal(table_angle_off(0, 181), 179);
    assert_int_equal(table_angle_off(45, 45), 0);
    assert_int_equal(table_angle_off(0, 359), 1);
    /* out-of-range facings are taken mod 360 */
    assert_int_equal(table_angle_off(-10, 10), 20);
    assert_int_equal(table_angle_off(370, 0), 10);
    assert_int_equal(table_angle_off(720, 359), 1);
    for (int f = 0; f < 360; f++)
        for (int b = 0; b < 360; b += 7) {
            int off = table_angle_off(f, b);
            assert_true(off >= 0 && off <= 180);
            assert_int_equal(off, table_angle_off(b, f));
        }
}

static void step_and_bearing_round_trip(void **state) {
    (void)state;
    table_pt a = P(-500, 1200);
    for (int deg = 0; deg < 360; deg++) {
        table_pt q = table_step(a, deg, 1000);
        if (table_bearing(a, q) != deg)
            fail_msg("step %d: bearing back %d", deg, table_bearing(a, q));
        int64_t d = table_dist(a, q);
        assert_true(d >= 999 && d <= 1001);
        /* stepping backwards lands on the far side */
        table_pt r = table_step(a, deg, -1000);
        assert_int_equal(table_bearing(a, r), (deg + 180) % 360);
    }
    table_pt e = table_step(P(0, 0), 90, 5);
    assert_int_equal(e.x, 5);
    assert_int_equal(e.y, 0);
    table_pt s = table_step(P(0, 0), 180, 5);
    assert_int_equal(s.x, 0);
    assert_int_equal(s.y, -5);
    table_pt w = table_step(P(0, 0), -90, 5); /* = 270 */
    assert_int_equal(w.x, -5);
    assert_int_equal(w.y, 0);
    table_pt t = table_step(P(0, 0), 37, 5); /* 5 sin 37 = 3.01, 5 cos 37 = 3.99 */
    assert_int_equal(t.x, 3);
    assert_int_equal(t.y, 4);
    table_pt far = table_step(P(INT64_MAX, 0), 45, INT64_MAX); /* no overflow */
    assert_true(far.x > 0);
}

static void facing_away_turns_the_back(void **state) {
    (void)state;
    /* b north of a: a faces south */
    assert_int_equal(table_facing_away(P(0, 0), P(0, 10)), 180);
    assert_int_equal(table_facing_away(P(0, 0), P(10, 0)), 270);
    /* b at (-3, -4) from a: a faces (3, 4), 37 */
    assert_int_equal(table_facing_away(P(0, 0), P(-3, -4)), 37);
    assert_int_equal(
        table_angle_off(table_facing_away(P(2, 2), P(9, -5)), table_bearing(P(2, 2), P(9, -5))),
        180);
}

static void segment_near_exact_boundaries(void **state) {
    (void)state;
    table_pt a = P(0, 0), b = P(10, 0);
    /* above the middle: distance 3 */
    assert_true(table_segment_near(a, b, P(5, 3), 3));
    assert_false(table_segment_near(a, b, P(5, 3), 2));
    assert_true(table_segment_near(b, a, P(5, -3), 3));
    /* beyond an end the nearest point is the end, not the line: (-3, 4) is 4 from the line but
     * 5 from a */
    assert_false(table_segment_near(a, b, P(-3, 4), 4));
    assert_true(table_segment_near(a, b, P(-3, 4), 5));
    assert_false(table_segment_near(a, b, P(13, 4), 4));
    assert_true(table_segment_near(a, b, P(13, 4), 5));
    /* on the segment, radius 0 */
    assert_true(table_segment_near(a, b, P(7, 0), 0));
    assert_false(table_segment_near(a, b, P(11, 0), 0));
    assert_false(table_segment_near(a, b, P(7, 0), -1));
    /* a diagonal at exactly the radius: (8, 6) has length 10, and (1, 7) is (4, 3) + (-3, 4),
     * 5 off the line: cross = 8 * 7 - 6 * 1 = 50, 50^2 = 5^2 * 100 */
    assert_true(table_segment_near(P(0, 0), P(8, 6), P(1, 7), 5));
    assert_false(table_segment_near(P(0, 0), P(8, 6), P(1, 7), 4));
    /* (0, 2) from y = x: sqrt 2 */
    assert_false(table_segment_near(P(0, 0), P(4, 4), P(0, 2), 1));
    assert_true(table_segment_near(P(0, 0), P(4, 4), P(0, 2), 2));
    /* a degenerate segment is a point */
    assert_true(table_segment_near(P(1, 1), P(1, 1), P(4, 5), 5));
    assert_false(table_segment_near(P(1, 1), P(1, 1), P(4, 5), 4));
    /* the whole table: (-1e6, 1e6) is 2e6 / sqrt 2 = 1414213.56 from the main diagonal, whose
     * cross product squared (1.6e25) needs more than 64 bits */
    table_pt lo = P(-TABLE_COORD_MAX, -TABLE_COORD_MAX), hi = P(TABLE_COORD_MAX, TABLE_COORD_MAX);
    assert_false(table_segment_near(lo, hi, P(-TABLE_COORD_MAX, TABLE_COORD_MAX), 1414213));
    assert_true(table_segment_near(lo, hi, P(-TABLE_COORD_MAX, TABLE_COORD_MAX), 1414214));
    assert_true(table_segment_near(lo, hi, P(0, 0), 0));
    assert_true(table_segment_near(lo, hi, P(3, 3), 0));
    assert_false(table_segment_near(lo, hi, P(3, 4), 0));
    /* huge values do not overflow */
    assert_true(table_segment_near(P(INT64_MIN, 0), P(INT64_MAX, 0), P(0, INT64_MAX), INT64_MAX));
    assert_false(table_segment_near(P(INT64_MIN, 0), P(INT64_MAX, 0), P(0, INT64_MAX), 1000));
}

/* ---- a base moving exactly along a direction ------------------------------------------------ */

static void step_along_is_exact(void **state) {
    (void)state;
    /* 3-4-5 is exact, either way */
    table_pt p = table_step_along(P(0, 0), P(3, 4), 50);
    assert_true(p.x == 30 && p.y == 40);
    p = table_step_along(P(10, 10), P(-6, -8), 5);
    assert_true(p.x == 7 && p.y == 6);
    /* along (1, 2): 200 / sqrt 5 (1, 2) = (89.44, 178.89), not along 27 degrees (91, 178) */
    p = table_step_along(P(0, 0), P(1, 2), 200);
    assert_true(p.x == 89 && p.y == 179);
    p = table_step_along(P(0, 0), P(-50, -100), 200);
    assert_true(p.x == -89 && p.y == -179);
    /* 1e6 along (1, 1000): (999.9995, 999999.50000037): just above the half */
    p = table_step_along(P(0, 0), P(1, 1000), 1000000);
    assert_true(p.x == 1000 && p.y == 1000000);
    /* corner to corner: 2828427 / sqrt 2 = 1999999.91 */
    p = table_step_along(P(-TABLE_COORD_MAX, -TABLE_COORD_MAX), P(2000000, 2000000), 2828427);
    assert_true(p.x == TABLE_COORD_MAX && p.y == TABLE_COORD_MAX);
    /* no direction, no length */
    p = table_step_along(P(4, 5), P(0, 0), 100);
    assert_true(p.x == 4 && p.y == 5);
    p = table_step_along(P(4, 5), P(1, 2), 0);
    assert_true(p.x == 4 && p.y == 5);
    /* garbage is clamped, not overflowed */
    p = table_step_along(P(INT64_MAX, INT64_MIN), P(INT64_MAX, INT64_MIN), INT64_MAX);
    assert_true(p.x > 0 && p.y < 0);
    p = table_step_along(P(0, 0), P(INT64_MIN, INT64_MIN), INT64_MIN);
    assert_true(p.x == 0 && p.y == 0);
}

static void sweep_touches_exact_boundaries(void **state) {
    (void)state;
    /* a disc moving from (0, 0) south for 60, touching at 10 */
    table_pt a = P(0, 0), s = P(0, -1);
    assert_true(table_sweep_touches(a, s, 60, P(10, -40), 10));  /* grazes it */
    assert_false(table_sweep_touches(a, s, 60, P(11, -40), 10)); /* passes it */
    assert_true(table_sweep_touches(a, s, 60, P(0, -70), 10));   /* touches it at the end */
    assert_false(table_sweep_touches(a, s, 60, P(0, -71), 10));
    assert_true(table_sweep_touches(a, P(0, -7), 60, P(0, -70), 10)); /* |d| does not matter */
    assert_true(table_sweep_touches(a, s, 60, P(6, -8), 10));         /* touching, ahead: at once */
    assert_false(table_sweep_touches(a, s, 60, P(6, 8), 10));         /* touching, behind */
    assert_false(table_sweep_touches(a, s, 60, P(10, 0), 10));        /* beside: it slides away */
    assert_false(table_sweep_touches(a, s, 60, P(3, 0), 10));         /* overlapping, beside */
    assert_false(table_sweep_touches(a, s, 60, P(0, 40), 10));        /* behind */
    /* no move: only what it already touches ahead */
    assert_true(table_sweep_touches(a, s, 0, P(0, -10), 10));
    assert_false(table_sweep_touches(a, s, 0, P(0, -11), 10));
    /* along (3, 4) for 50, to (30, 40): (20, 10) is exactly 10 off the line (4 * 20 - 3 * 10 =
     * 50 = 10 * 5), 20 along; (30, 50) is 6 off, first touched at 58 - 8 = 50, the end */
    assert_true(table_sweep_touches(a, P(3, 4), 50, P(20, 10), 10));
    assert_false(table_sweep_touches(a, P(3, 4), 50, P(20, 9), 10));
    assert_true(table_sweep_touches(a, P(3, 4), 50, P(30, 50), 10));
    assert_false(table_sweep_touches(a, P(3, 4), 50, P(30, 51), 10));
    assert_false(table_sweep_touches(a, P(3, 4), 49, P(30, 50), 10));
    /* along (1, 2), an irrational direction: 22 / sqrt 5 = 9.84 off, 23 / sqrt 5 = 10.29 off */
    assert_true(table_sweep_touches(a, P(1, 2), 200, P(56, 134), 10));
    assert_false(table_sweep_touches(a, P(1, 2), 200, P(79, 135), 10));
    /* (56, 134) is first touched at 143.108: 143 is short of it, 144 reaches it */
    assert_false(table_sweep_touches(a, P(1, 2), 143, P(56, 134), 10));
    assert_true(table_sweep_touches(a, P(1, 2), 144, P(56, 134), 10));
    /* the whole table: (1e6, -1e6) is 1414213.56 off the diagonal from (-1e6, -1e6) */
    table_pt lo = P(-TABLE_COORD_MAX, -TABLE_COORD_MAX);
    assert_true(
        table_sweep_touches(lo, P(1, 1), 2828427, P(TABLE_COORD_MAX, -TABLE_COORD_MAX), 1414214));
    assert_false(
        table_sweep_touches(lo, P(1, 1), 2828427, P(TABLE_COORD_MAX, -TABLE_COORD_MAX), 1414213));
    /* no direction touches nothing; garbage does not overflow */
    assert_false(table_sweep_touches(a, P(0, 0), 60, P(0, -5), 10));
    assert_true(table_sweep_touches(P(INT64_MIN, INT64_MIN), P(INT64_MAX, INT64_MAX), INT64_MAX,
                                    P(INT64_MAX, INT64_MAX), INT64_MAX));
    assert_false(table_sweep_touches(P(INT64_MIN, 0), P(INT64_MAX, 0), INT64_MAX,
                                     P(INT64_MAX, INT64_MIN), 0));
}

static void sweep_cmp_first_touched(void **state) {
    (void)state;
    table_pt a = P(0, 0), s = P(0, -1);
    /* (8, -20) is touched 20 - 6 = 14 along, (-2, -22) 22 - sqrt 96 = 12.2: first, although its
     * centre is farther */
    assert_true(table_sweep_cmp(a, s, P(8, -20), P(-2, -22), 10) > 0);
    assert_true(table_sweep_cmp(a, s, P(-2, -22), P(8, -20), 10) < 0);
    assert_int_equal(table_sweep_cmp(a, s, P(5, -30), P(-5, -30), 10), 0);
    /* 20 - 10 = 10 and 18 - 8 = 10: the same */
    assert_int_equal(table_sweep_cmp(a, s, P(0, -20), P(6, -18), 10), 0);
    assert_true(table_sweep_cmp(a, s, P(0, -20), P(6, -19), 10) < 0);
    /* already touching comes first; two already touching are equal */
    assert_true(table_sweep_cmp(a, s, P(6, -8), P(-2, -22), 10) < 0);
    assert_int_equal(table_sweep_cmp(a, s, P(6, -8), P(0, -5), 10), 0);
    /* never touched comes after */
    assert_true(table_sweep_cmp(a, s, P(11, -40), P(0, -500), 10) > 0);
    assert_int_equal(table_sweep_cmp(a, s, P(11, -40), P(0, 40), 10), 0);
    /* along (1, 2): (60, 130) and (66, 128) are both touched at 300 / sqrt 5 = 134.16 (320 - 20
     * and 322 - 22), before (57, 134) at 140.87 and (56, 134) at 143.11 */
    table_pt d = P(1, 2);
    assert_int_equal(table_sweep_cmp(a, d, P(60, 130), P(66, 128), 10), 0);
    assert_true(table_sweep_cmp(a, d, P(60, 130), P(57, 134), 10) < 0);
    assert_true(table_sweep_cmp(a, d, P(57, 134), P(56, 134), 10) < 0);
    assert_true(table_sweep_cmp(a, d, P(56, 134), P(57, 134), 10) > 0);
    /* garbage does not overflow */
    (void)table_sweep_cmp(P(INT64_MIN, INT64_MAX), P(INT64_MAX, 1), P(INT64_MAX, INT64_MIN),
                          P(0, INT64_MAX), INT64_MAX);
}

static void length_text(void **state) {
    (void)state;
    char out[32];
    table_measure in10 = {"in", 10}, in1 = {"in", 1}, cm100 = {"cm", 100}, mm = {"in", 1000},
                  thirds = {"in", 3};
    const struct {
        const table_measure *m;
        int64_t len;
        const char *text;
    } cases[] = {
        {&in10, 125, "12.5 in"},    {&in10, 120, "12 in"},       {&in10, 0, "0 in"},
        {&in10, 5, "0.5 in"},       {&in10, -125, "-12.5 in"},   {&in10, -5, "-0.5 in"},
        {&in1, 12, "12 in"},        {&in1, -7, "-7 in"},         {&cm100, 1234, "12.34 cm"},
        {&cm100, 1205, "12.05 cm"}, {&cm100, 1230, "12.3 cm"},   {&cm100, 1, "0.01 cm"},
        {&mm, 1, "0.001 in"},       {&mm, 123456, "123.456 in"}, {&thirds, 1, "0.333 in"},
        {&thirds, 2, "0.667 in"},   {&thirds, -4, "-1.333 in"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        table_length_text(cases[i].m, cases[i].len, out, sizeof out);
        assert_string_equal(out, cases[i].text);
    }
    table_length_text(&in1, INT64_MIN, out, sizeof out);
    assert_string_equal(out, "-9223372036854775808 in");
    table_length_text(&in10, 125, out, 5); /* cut, still terminated */
    assert_string_equal(out, "12.5");
    table_length_text(NULL, 125, out, sizeof out); /* the default measure */
    assert_string_equal(out, "12.5 in");
}

/* ---- polygons and terrain ------------------------------------------------------------------- */

/* A U: a 10 x 10 square with a notch from the top between x = 4 and 6, down to y = 4. */
static const table_pt u_shape[] = {{0, 0}, {10, 0}, {10, 10}, {6, 10},
                                   {6, 4}, {4, 4},  {4, 10},  {0, 10}};

static void point_in_concave_polygon(void **state) {
    (void)state;
    static const struct {
        int x, y;
        bool in;
    } cases[] = {
        /* inside */
        {2, 2, true},
        {2, 8, true},
        {8, 8, true},
        {5, 2, true},
        {2, 4, true}, /* ray along the notch floor's level */
        {8, 4, true},
        /* outside: in the notch, around, and level with corners */
        {5, 8, false},
        {5, 10, false},
        {5, 5, false},
        {11, 5, false},
        {-1, 5, false},
        {5, 11, false},
        {-1, 4, false},
        {-1, 10, false},
        {-1, 0, false},
        {11, 10, false},
        /* on edges */
        {5, 4, true},
        {10, 5, true},
        {6, 7, true},
        {4, 9, true},
        {3, 0, true},
        {2, 10, true},
        /* on corners */
        {0, 0, true},
        {6, 4, true},
        {4, 10, true},
        {10, 10, true},
    };
    table_pt rev[8];
    for (int i = 0; i < 8; i++)
        rev[i] = u_shape[7 - i];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        table_pt p = P(cases[i].x, cases[i].y);
        if (table_point_in_polygon(u_shape, 8, p) != cases[i].in ||
            table_point_in_polygon(rev, 8, p) != cases[i].in)
            fail_msg("(%d, %d) should be %s", cases[i].x, cases[i].y,
                     cases[i].in ? "inside" : "outside");
    }
    assert_false(table_point_in_polygon(u_shape, 2, P(0, 0)));
    assert_false(table_point_in_polygon(NULL, 8, P(2, 2)));
    /* a thin diagonal triangle: exact where a float test would blur */
    table_pt thin[3] = {{0, 0}, {1000000, 999999}, {1000000, 1000000}};
    assert_true(table_point_in_polygon(thin, 3, P(999999, 999999)));  /* on the edge y = x */
    assert_false(table_point_in_polygon(thin, 3, P(999999, 999998))); /* just below */
    assert_false(table_point_in_polygon(thin, 3, P(-1, -1)));
}

/* Validates `text` as setup.terrain, expecting success; returns the normalised list. */
static json_t *terrain_ok(const char *text) {
    json_t *in = J(text);
    api_error err = {0};
    json_t *out = table_terrain_new(in, "setup.terrain", types, &err);
    if (!out) fail_msg("%s rejected: %d %s", text, err.status, err.message);
    json_decref(in);
    api_error_clear(&err);
    return out;
}

#define SQUARE "[[0, 0], [10, 0], [10, 10], [0, 10]]"

static void terrain_is_normalised(void **state) {
    (void)state;
    api_error err = {0};
    json_t *empty = table_terrain_new(NULL, "setup.terrain", types, &err);
    assert_non_null(empty);
    assert_true(json_is_array(empty) && json_array_size(empty) == 0);
    json_decref(empty);
    json_t *null = json_null();
    empty = table_terrain_new(null, "setup.terrain", types, &err);
    assert_true(json_is_array(empty) && json_array_size(empty) == 0);
    json_decref(empty);
    json_decref(null);
    assert_int_equal(err.status, 0);

    /* two areas sharing an edge are fine; a straight-through corner (5, 0) is fine */
    json_t *out = terrain_ok("[{\"polygon\": [[0, 0], [5, 0], [10, 0], [10, 10], [0, 10]], "
                             "\"type\": \"woods\", \"id\": \"wood 1\"},"
                             "{\"id\": \"hill\", \"type\": \"difficult\", \"polygon\": "
                             "[[10, 0], [20, 0], [20, 10], [10, 10]]}]");
    json_t *want = J("[{\"id\": \"wood 1\", \"type\": \"woods\", \"polygon\": "
                     "[[0, 0], [5, 0], [10, 0], [10, 10], [0, 10]]},"
                     "{\"id\": \"hill\", \"type\": \"difficult\", \"polygon\": "
                     "[[10, 0], [20, 0], [20, 10], [10, 10]]}]");
    assert_true(json_equal(out, want));
    json_decref(want);
    json_decref(out);
    /* the largest corners and the most corners */
    char big[4096];
    int n = snprintf(big, sizeof big, "[{\"id\": \"x\", \"type\": \"woods\", \"polygon\": [");
    for (int i = 0; i < TABLE_POLY_MAX; i++) /* a convex fan on a parabola */
        n += snprintf(big + n, sizeof big - (size_t)n, "%s[%d, %d]", i ? ", " : "", i * 1000,
                      i * i * 100);
    snprintf(big + n, sizeof big - (size_t)n,
             "]}, {\"id\": \"y\", \"type\": \"woods\", "
             "\"polygon\": [[-1000000, -1000000], [1000000, "
             "-1000000], [1000000, 1000000]]}]");
    out = terrain_ok(big);
    assert_int_equal(json_array_size(out), 2);
    json_decref(out);
}

typedef struct {
    const char *terrain;
    int status;
    const char *field;
} bad_terrain;

#define AREA(id, type, poly) "{\"id\": \"" id "\", \"type\": \"" type "\", \"polygon\": " poly "}"

static void terrain_errors_name_the_field(void **state) {
    (void)state;
    static const bad_terrain cases[] = {
        {"{}", 400, "setup.terrain"},
        {"5", 400, "setup.terrain"},
        {"[5]", 400, "setup.terrain[0]"},
        {"[" AREA("a", "woods", SQUARE) ", []]", 400, "setup.terrain[1]"},
        {"[{\"id\": \"a\", \"type\": \"woods\", \"polygon\": " SQUARE ", \"height\": 2}]", 400,
         "setup.terrain[0].height"},
        {"[{\"type\": \"woods\", \"polygon\": " SQUARE "}]", 400, "setup.terrain[0].id"},
        {"[" AREA("", "woods", SQUARE) "]", 400, "setup.terrain[0].id"},
        {"[" AREA("12345678901234567890123456789012345678901", "woods", SQUARE) "]", 400,
         "setup.terrain[0].id"},
        {"[{\"id\": 7, \"type\": \"woods\", \"polygon\": " SQUARE "}]", 400, "setup.terrain[0].id"},
        {"[{\"id\": \"a\", \"polygon\": " SQUARE "}]", 400, "setup.terrain[0].type"},
        {"[{\"id\": \"a\", \"type\": 2, \"polygon\": " SQUARE "}]", 400, "setup.terrain[0].type"},
        {"[" AREA("a", "lava", SQUARE) "]", 422, "setup.terrain[0].type"},
        {"[" AREA("a", "woods\\u0000", SQUARE) "]", 422, "setup.terrain[0].type"},
        {"[{\"id\": \"a\", \"type\": \"woods\"}]", 400, "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", "{}") "]", 400, "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", "[[0, 0], [1, 1]]") "]", 422, "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", "[]") "]", 422, "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", SQUARE) ", " AREA("b", "woods", "[[0, 0], [1], [1, 1]]") "]", 400,
         "setup.terrain[1].polygon[1]"},
        {"[" AREA("a", "woods", "[[0, 0], [1, 0], [1, 2.5]]") "]", 400,
         "setup.terrain[0].polygon[2]"},
        {"[" AREA("a", "woods", "[[0, 0], [1, \"0\"], [1, 2]]") "]", 400,
         "setup.terrain[0].polygon[1]"},
        {"[" AREA("a", "woods", "[[0, 0], [1, 0, 0], [1, 2]]") "]", 400,
         "setup.terrain[0].polygon[1]"},
        {"[" AREA("a", "woods", "[[0, 0], [1, 0], [1000001, 2]]") "]", 422,
         "setup.terrain[0].polygon[2]"},
        {"[" AREA("a", "woods", "[[0, -1000001], [1, 0], [1, 2]]") "]", 422,
         "setup.terrain[0].polygon[0]"},
        /* the bow tie: edges 0 and 2 cross at (5, 5) */
        {"[" AREA("a", "woods", "[[0, 0], [10, 10], [10, 0], [0, 10]]") "]", 422,
         "setup.terrain[0].polygon"},
        /* degenerate outlines */
        {"[" AREA("a", "woods", "[[0, 0], [5, 0], [10, 0]]") "]", 422, "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", "[[5, 0], [10, 0], [0, 0]]") "]", 422, "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", "[[0, 0], [0, 0], [5, 5]]") "]", 422, "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", "[[0, 0], [10, 0], [10, 0], [0, 10]]") "]", 422,
         "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", "[[0, 0], [10, 0], [10, 10], [10, 5]]") "]", 422,
         "setup.terrain[0].polygon"},
        /* a corner touching another edge (a figure eight pinched at (5, 0)) */
        {"[" AREA("a", "woods", "[[0, 0], [10, 0], [10, 10], [5, 0], [0, 10]]") "]", 422,
         "setup.terrain[0].polygon"},
        {"[" AREA("a", "woods", SQUARE) ", " AREA("a", "difficult", SQUARE) "]", 422,
         "setup.terrain[1].id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *in = J(cases[i].terrain);
        api_error err = {0};
        json_t *out = table_terrain_new(in, "setup.terrain", types, &err);
        if (out) fail_msg("accepted: %s", cases[i].terrain);
        const char *field = json_string_value(json_object_get(err.details, "field"));
        if (err.status != cases[i].status || !field || strcmp(field, cases[i].field) != 0)
            fail_msg("%s: %d %s (%s), expected %d %s", cases[i].terrain, err.status,
                     field ? field : "(no field)", err.message, cases[i].status, cases[i].field);
        assert_string_equal(err.code, cases[i].status == 400 ? "invalid_field" : "invalid_setup");
        assert_true(err.message[0] != '\0');
        api_error_clear(&err);
        json_decref(in);
    }
    /* too many corners, too many areas */
    json_t *corners = json_array();
    for (int i = 0; i <= TABLE_POLY_MAX; i++)
        json_array_append_new(corners, json_pack("[ii]", i, i * i));
    json_t *one = json_pack("[{s:s, s:s, s:o}]", "id", "a", "type", "woods", "polygon", corners);
    api_error err = {0};
    assert_null(table_terrain_new(one, "setup.terrain", types, &err));
    assert_int_equal(err.status, 422);
    assert_string_equal(json_string_value(json_object_get(err.details, "field")),
                        "setup.terrain[0].polygon");
    api_error_clear(&err);
    json_decref(one);
    json_t *many = json_array();
    for (int i = 0; i <= TABLE_AREAS_MAX; i++) {
        char id[16];
        snprintf(id, sizeof id, "a%d", i);
        json_array_append_new(many, json_pack("{s:s, s:s, s:[[ii][ii][ii]]}", "id", id, "type",
                                              "woods", "polygon", 0, 0, 1, 0, 0, 1));
    }
    assert_null(table_terrain_new(many, "setup.terrain", types, &err));
    assert_int_equal(err.status, 400);
    assert_string_equal(json_string_value(json_object_get(err.details, "field")), "setup.terrain");
    api_error_clear(&err);
    json_array_remove(many, 0);
    json_t *ok = table_terrain_new(many, "setup.terrain", types, &err);
    assert_non_null(ok);
    assert_int_equal(json_array_size(ok), TABLE_AREAS_MAX);
    json_decref(ok);
    json_decref(many);
}

static void crossing_and_lookups(void **state) {
    (void)state;
    json_t *t = terrain_ok("[" AREA("pond", "impassable", SQUARE) ", " AREA(
        "copse", "woods",
        "[[5, 5], [15, 5], [15, 15], [5, 15]]") ", " AREA("mud", "difficult",
                                                          "[[30, 0], [40, 0], [35, "
                                                          "10]]") "]");
    /* through the square without an end inside */
    assert_string_equal(table_terrain_crossed(t, types, IMPASSABLE, P(-5, 2), P(25, 2)), "pond");
    /* along an edge (collinear, boundary counts) */
    assert_string_equal(table_terrain_crossed(t, types, IMPASSABLE, P(-5, 0), P(25, 0)), "pond");
    assert_string_equal(table_terrain_crossed(t, types, IMPASSABLE, P(2, 0), P(4, 0)), "pond");
    /* touching a corner only: the line x + y = 0 meets the square at (0, 0) */
    assert_string_equal(table_terrain_crossed(t, types, IMPASSABLE, P(-5, 5), P(5, -5)), "pond");
    /* ending on the edge, or starting inside */
    assert_string_equal(table_terrain_crossed(t, types, IMPASSABLE, P(-5, 5), P(0, 5)), "pond");
    assert_string_equal(table_terrain_crossed(t, types, IMPASSABLE, P(3, 3), P(4, 4)), "pond");
    /* fully outside, just clear of the corner, and a point segment outside */
    assert_null(table_terrain_crossed(t, types, IMPASSABLE, P(-5, -1), P(25, -1)));
    assert_null(table_terrain_crossed(t, types, IMPASSABLE, P(-5, 4), P(4, -6)));
    assert_null(table_terrain_crossed(t, types, IMPASSABLE, P(-1, -1), P(-1, -1)));
    /* the mask picks the type; the first area in order wins */
    assert_null(table_terrain_crossed(t, types, DIFFICULT, P(-5, 2), P(25, 2)));
    assert_string_equal(table_terrain_crossed(t, types, WOODS | IMPASSABLE, P(12, 12), P(13, 13)),
                        "copse");
    assert_string_equal(table_terrain_crossed(t, types, WOODS | IMPASSABLE, P(7, 7), P(8, 8)),
                        "pond");
    assert_string_equal(table_terrain_crossed(t, types, ~0u, P(20, 5), P(50, 5)), "mud");
    assert_null(table_terrain_crossed(t, types, 0, P(-5, 2), P(25, 2)));
    /* terrain_at */
    assert_int_equal(table_terrain_at(t, types, P(7, 7)), IMPASSABLE | WOODS);
    assert_int_equal(table_terrain_at(t, types, P(10, 10)), IMPASSABLE | WOODS);
    assert_int_equal(table_terrain_at(t, types, P(2, 2)), IMPASSABLE);
    assert_int_equal(table_terrain_at(t, types, P(35, 10)), DIFFICULT);
    assert_int_equal(table_terrain_at(t, types, P(35, 11)), 0);
    assert_int_equal(table_terrain_at(t, types, P(20, 20)), 0);
    json_decref(t);
}

static void garbage_terrain_is_skipped(void **state) {
    (void)state;
    static const char *const garbage[] = {
        "null",
        "{}",
        "5",
        "[]",
        "[5, null, \"x\", [], {}]",
        "[{\"type\": \"impassable\", \"polygon\": " SQUARE "}]",
        "[{\"id\": 1, \"type\": \"impassable\", \"polygon\": " SQUARE "}]",
        "[{\"id\": \"a\", \"type\": 1, \"polygon\": " SQUARE "}]",
        "[{\"id\": \"a\", \"type\": \"lava\", \"polygon\": " SQUARE "}]",
        "[{\"id\": \"a\", \"type\": \"impassable\"}]",
        "[{\"id\": \"a\", \"type\": \"impassable\", \"polygon\": {}}]",
        "[{\"id\": \"a\", \"type\": \"impassable\", \"polygon\": [[0, 0], [10, 0]]}]",
        "[{\"id\": \"a\", \"type\": \"impassable\", \"polygon\": [[0, 0], 5, [10, 10]]}]",
        "[{\"id\": \"a\", \"type\": \"impassable\", \"polygon\": [[0, 0], [10], [10, 10]]}]",
        "[{\"id\": \"a\", \"type\": \"impassable\", \"polygon\": [[0, 0], [10, 0.5], [10, 10]]}]",
        "[{\"id\": \"a\", \"type\": \"impassable\", \"polygon\": [[-9223372036854775808, 0], "
        "[9223372036854775807, 9223372036854775807], [0, -9223372036854775808]]}]",
        "[{\"id\": \"a\", \"type\": \"impassable\", \"polygon\": [[0, 0], [10, 0], [10, 10], "
        "[0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, 0], "
        "[10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, "
        "10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, "
        "0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, "
        "10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, "
        "0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, 10], [0, 10], [0, 0], [10, 0], [10, "
        "10], [0, 10], [0, 0]]}]", /* 65 corners */
    };
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
        json_t *g = J(garbage[i]);
        if (table_terrain_at(g, types, P(5, 5)) != 0 ||
            table_terrain_crossed(g, types, ~0u, P(-5, 5), P(15, 5)) != NULL)
            fail_msg("garbage read as an area: %s", garbage[i]);
        /* a good area after the garbage is still found */
        json_t *list = json_is_array(g) ? json_incref(g) : json_array();
        json_array_append_new(list, J(AREA("ok", "impassable", SQUARE)));
        assert_int_equal(table_terrain_at(list, types, P(5, 5)), IMPASSABLE);
        assert_string_equal(table_terrain_crossed(list, types, ~0u, P(-5, 5), P(15, 5)), "ok");
        json_decref(list);
        json_decref(g);
    }
    assert_int_equal(table_terrain_at(NULL, types, P(0, 0)), 0);
    assert_null(table_terrain_crossed(NULL, types, ~0u, P(0, 0), P(1, 1)));
    json_t *t = J("[" AREA("ok", "impassable", SQUARE) "]");
    assert_int_equal(table_terrain_at(t, NULL, P(5, 5)), 0); /* no types: nothing matches */
    assert_null(table_terrain_crossed(t, NULL, ~0u, P(5, 5), P(6, 6)));
    /* a type past the 32nd has no bit: skipped, never shifted out of range */
    const char *many[41];
    for (int i = 0; i < 40; i++)
        many[i] = i == 35 ? "impassable" : "filler";
    many[40] = NULL;
    assert_int_equal(table_terrain_at(t, many, P(5, 5)), 0);
    assert_null(table_terrain_crossed(t, many, ~0u, P(5, 5), P(6, 6)));
    /* points far off the table */
    assert_int_equal(table_terrain_at(t, types, P(INT64_MIN, INT64_MAX)), 0);
    assert_string_equal(table_terrain_crossed(t, types, ~0u, P(INT64_MIN, 5), P(INT64_MAX, 5)),
                        "ok");
    json_decref(t);
}

/* ---- readers ----------------------------------------------------------------------------------
 */

static void point_reader(void **state) {
    (void)state;
    json_t *obj = J("{\"at\": [-1000000, 1000000], \"none\": null, \"short\": [1], "
                    "\"long\": [1, 2, 3], \"real\": [1.0, 2], \"far\": [1000001, 0], "
                    "\"text\": [\"1\", 2], \"flat\": 5}");
    api_error err = {0};
    table_pt p = P(7, 7);
    assert_int_equal(table_pt_read(obj, "move", "at", true, &p, &err), 0);
    assert_int_equal(p.x, -TABLE_COORD_MAX);
    assert_int_equal(p.y, TABLE_COORD_MAX);
    p = P(7, 7);
    assert_int_equal(table_pt_read(obj, "move", "none", false, &p, &err), 0);
    assert_int_equal(table_pt_read(obj, "move", "missing", false, &p, &err), 0);
    assert_int_equal(p.x, 7); /* untouched */
    assert_int_equal(err.status, 0);
    static const char *const bad[] = {"none", "missing", "short", "long",
                                      "real", "far",     "text",  "flat"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[64];
        snprintf(want, sizeof want, "move.%s", bad[i]);
        assert_int_equal(table_pt_read(obj, "move", bad[i], true, &p, &err), -1);
        assert_int_equal(err.status, 400);
        assert_string_equal(json_string_value(json_object_get(err.details, "field")), want);
        api_error_clear(&err);
        assert_int_equal(p.x, 7);
    }
    json_decref(obj);
    json_t *j = table_pt_json(P(-3, 12));
    json_t *want = J("[-3, 12]");
    assert_true(json_equal(j, want));
    json_decref(j);
    json_decref(want);
}

static void measure_options(void **state) {
    (void)state;
    table_measure m;
    table_measure_read(NULL, &m);
    assert_string_equal(m.unit, "in");
    assert_int_equal(m.resolution, 10);
    json_t *o = J("{\"measure\": \"cm\", \"resolution\": 100, \"deploy\": 3}");
    table_measure_read(o, &m);
    assert_string_equal(m.unit, "cm");
    assert_int_equal(m.resolution, 100);
    api_error err = {0};
    assert_int_equal(table_measure_check(o, &err), 0); /* other keys are the module's business */
    json_decref(o);
    o = J("{\"measure\": \"inch\", \"resolution\": 1}");
    table_measure_read(o, &m);
    assert_string_equal(m.unit, "in");
    assert_int_equal(m.resolution, 1);
    json_decref(o);
    o = J("{\"measure\": \"furlong\", \"resolution\": 0}"); /* read is lenient */
    table_measure_read(o, &m);
    assert_string_equal(m.unit, "in");
    assert_int_equal(m.resolution, 10);
    json_decref(o);
    assert_int_equal(table_measure_check(NULL, &err), 0);
    o = J("{\"measure\": null, \"resolution\": null}");
    assert_int_equal(table_measure_check(o, &err), 0);
    json_decref(o);
    o = J("{\"resolution\": 1000, \"measure\": \"cm\"}");
    assert_int_equal(table_measure_check(o, &err), 0);
    json_decref(o);
    static const struct {
        const char *options, *field;
    } bad[] = {
        {"{\"measure\": \"mm\"}", "options.measure"},
        {"{\"measure\": \"Inch\"}", "options.measure"},
        {"{\"measure\": \"cm\\u0000\"}", "options.measure"},
        {"{\"measure\": 1}", "options.measure"},
        {"{\"resolution\": 0}", "options.resolution"},
        {"{\"resolution\": 1001}", "options.resolution"},
        {"{\"resolution\": \"10\"}", "options.resolution"},
        {"{\"resolution\": 10.0}", "options.resolution"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o = J(bad[i].options);
        assert_int_equal(table_measure_check(o, &err), -1);
        assert_int_equal(err.status, 400);
        assert_string_equal(json_string_value(json_object_get(err.details, "field")), bad[i].field);
        api_error_clear(&err);
        json_decref(o);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distances_and_within_at_exact_boundaries),
        cmocka_unit_test(path_length_rounds_up_but_keeps_exact_lengths),
        cmocka_unit_test(bearings_of_the_compass_and_a_3_4_5),
        cmocka_unit_test(angle_off_wraps_around),
        cmocka_unit_test(step_and_bearing_round_trip),
        cmocka_unit_test(facing_away_turns_the_back),
        cmocka_unit_test(segment_near_exact_boundaries),
        cmocka_unit_test(step_along_is_exact),
        cmocka_unit_test(sweep_touches_exact_boundaries),
        cmocka_unit_test(sweep_cmp_first_touched),
        cmocka_unit_test(length_text),
        cmocka_unit_test(point_in_concave_polygon),
        cmocka_unit_test(terrain_is_normalised),
        cmocka_unit_test(terrain_errors_name_the_field),
        cmocka_unit_test(crossing_and_lookups),
        cmocka_unit_test(garbage_terrain_is_skipped),
        cmocka_unit_test(point_reader),
        cmocka_unit_test(measure_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
