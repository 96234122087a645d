/* rules/common/hex.h: addresses, directions, grid geometry and the map as data.
 *
 * Geometry is checked against the printed map itself rather than against cube coordinates: a
 * hex's centre is (X, Y) = (column, 2 * row + 1 if its column is shifted down), which is the true
 * centre with x scaled by 2/3 and y by 2/sqrt(3) (positive scalings keep adjacency, order and
 * which side of a line a point is on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rules/common/hex.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hex H(int col, int row) {
    return (hex){col, row};
}

static hex_grid grid(int cols, int rows, bool odd_shifted) {
    return (hex_grid){0, cols - 1, 0, rows - 1, odd_shifted};
}

static bool shifted_down(bool odd_shifted, int col) {
    return (col % 2 != 0) == odd_shifted;
}

static void centre(bool odd_shifted, hex h, int *x, int *y) {
    *x = h.col;
    *y = 2 * h.row + (shifted_down(odd_shifted, h.col) ? 1 : 0);
}

/* (X, Y) steps to the neighbour across N, NE, SE, S, SW, NW. */
static const int step_x[HEX_DIRS] = {0, 1, 1, 0, -1, -1};
static const int step_y[HEX_DIRS] = {-2, -1, 1, 2, 1, -1};

/* Adjacent on the printed map: the direction from a to b, or -1. */
static int printed_direction(bool odd_shifted, hex a, hex b) {
    int ax, ay, bx, by;
    centre(odd_shifted, a, &ax, &ay);
    centre(odd_shifted, b, &bx, &by);
    for (int d = 0; d < HEX_DIRS; d++)
        if (bx - ax == step_x[d] && by - ay == step_y[d]) return d;
    return -1;
}

/* ---- addresses and directions ------------------------------------------------------------ */

static void parse_accepts_four_digits_only(void **state) {
    (void)state;
    hex h = {-1, -1};
    assert_true(hex_parse("1204", &h));
    assert_int_equal(h.col, 12);
    assert_int_equal(h.row, 4);
    assert_true(hex_parse("0099", &h));
    assert_int_equal(h.col, 0);
    assert_int_equal(h.row, 99);
    const char *bad[] = {"123", "12a4", "12045", "", " 123", "-123", "12 4", "１２０４", "0x12"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        h = H(-7, -7);
        assert_false(hex_parse(bad[i], &h));
        assert_int_equal(h.col, -7); /* untouched */
    }
    assert_false(hex_parse(NULL, &h));
}

static void format_and_parse_round_trip(void **state) {
    (void)state;
    char name[HEX_NAME_MAX];
    for (int c = 0; c <= 99; c++)
        for (int r = 0; r <= 99; r++) {
            hex h;
            hex_format(H(c, r), name);
            assert_int_equal(strlen(name), 4);
            assert_true(hex_parse(name, &h));
            assert_true(hex_equal(h, H(c, r)));
        }
    hex_format(H(12, 4), name);
    assert_string_equal(name, "1204");
    hex_format(H(0, 5), name);
    assert_string_equal(name, "0005");
    hex_format(H(-1, 5), name);
    assert_string_equal(name, "");
    hex_format(H(5, 100), name);
    assert_string_equal(name, "");
    assert_false(hex_equal(H(1, 2), H(2, 1)));
}

static void direction_names(void **state) {
    (void)state;
    const char *names[] = {"n", "ne", "se", "s", "sw", "nw"};
    assert_int_equal(HEX_N, 0);
    assert_int_equal(HEX_NW, 5);
    for (int d = 0; d < HEX_DIRS; d++) {
        assert_string_equal(hex_dir_name(d), names[d]);
        assert_int_equal(hex_dir_parse(names[d]), d);
    }
    assert_null(hex_dir_name(-1));
    assert_null(hex_dir_name(6));
    const char *bad[] = {"N", "", "e", "nne", "n ", "north"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(hex_dir_parse(bad[i]), -1);
    assert_int_equal(hex_dir_parse(NULL), -1);
}

static void relative_to_every_facing(void **state) {
    (void)state;
    for (int facing = 0; facing < HEX_DIRS; facing++)
        for (int k = 0; k < HEX_DIRS; k++)
            assert_int_equal(hex_relative(facing, (facing + k) % HEX_DIRS), k);
    /* Facing SE: N is back-left (4 clockwise turns), NE front-left, S front-right. */
    assert_int_equal(hex_relative(HEX_SE, HEX_N), 4);
    assert_int_equal(hex_relative(HEX_SE, HEX_NE), 5);
    assert_int_equal(hex_relative(HEX_SE, HEX_S), 1);
    assert_int_equal(hex_relative(HEX_SE, HEX_NW), 3);
    assert_int_equal(hex_relative(HEX_NW, HEX_N), 1);
    /* Out-of-range numbers are reduced, not trusted. */
    assert_int_equal(hex_relative(0, 7), 1);
    assert_int_equal(hex_relative(7, 0), 5);
    assert_int_equal(hex_relative(-1, 0), 1);
    const int opposite[HEX_DIRS] = {HEX_S, HEX_SW, HEX_NW, HEX_N, HEX_NE, HEX_SE};
    for (int d = 0; d < HEX_DIRS; d++) {
        assert_int_equal(hex_opposite(d), opposite[d]);
        assert_int_equal(hex_relative(d, hex_opposite(d)), 3);
    }
    assert_int_equal(hex_opposite(-1), HEX_SE);
}

/* ---- geometry ------------------------------------------------------------------------------ */

static void expect_neighbours(bool odd_shifted, hex from, const hex want[HEX_DIRS]) {
    hex_grid g = grid(31, 21, odd_shifted);
    for (int d = 0; d < HEX_DIRS; d++) {
        hex n = hex_neighbour(&g, from, d);
        if (!hex_equal(n, want[d]))
            fail_msg("%s of %02d%02d (%s shifted): got %02d%02d, want %02d%02d", hex_dir_name(d),
                     from.col, from.row, odd_shifted ? "odd" : "even", n.col, n.row, want[d].col,
                     want[d].row);
    }
}

static void neighbours_from_odd_and_even_columns(void **state) {
    (void)state;
    /* Even columns shifted down. */
    expect_neighbours(false, H(11, 4),
                      (hex[]){H(11, 3), H(12, 3), H(12, 4), H(11, 5), H(10, 4), H(10, 3)});
    expect_neighbours(false, H(12, 4),
                      (hex[]){H(12, 3), H(13, 4), H(13, 5), H(12, 5), H(11, 5), H(11, 4)});
    /* Odd columns shifted down: the mirror. */
    expect_neighbours(true, H(11, 4),
                      (hex[]){H(11, 3), H(12, 4), H(12, 5), H(11, 5), H(10, 5), H(10, 4)});
    expect_neighbours(true, H(12, 4),
                      (hex[]){H(12, 3), H(13, 3), H(13, 4), H(12, 5), H(11, 4), H(11, 3)});
    /* Off the grid is still answered (column -1 of an even-shifted map is odd, so high). */
    hex_grid g = grid(10, 10, false);
    hex n = hex_neighbour(&g, H(0, 0), HEX_NW);
    assert_true(hex_equal(n, H(-1, 0)));
    assert_false(hex_on_grid(&g, n));
    assert_true(hex_equal(hex_neighbour(&g, H(3, 3), -1), H(3, 3)));
    assert_true(hex_equal(hex_neighbour(&g, H(3, 3), 6), H(3, 3)));
}

static void neighbours_match_the_printed_map(void **state) {
    (void)state;
    for (int odd = 0; odd < 2; odd++) {
        hex_grid g = grid(10, 10, odd);
        for (int c = 0; c < 10; c++)
            for (int r = 0; r < 10; r++)
                for (int d = 0; d < HEX_DIRS; d++) {
                    hex h = H(c, r), n = hex_neighbour(&g, h, d);
                    assert_int_equal(printed_direction(odd, h, n), d);
                    assert_int_equal(hex_direction(&g, h, n), d);
                    assert_int_equal(hex_direction(&g, n, h), hex_opposite(d));
                    assert_true(hex_equal(hex_neighbour(&g, n, hex_opposite(d)), h));
                    assert_int_equal(hex_distance(&g, h, n), 1);
                }
    }
    hex_grid g = grid(10, 10, false);
    assert_int_equal(hex_direction(&g, H(4, 4), H(4, 4)), -1);
    assert_int_equal(hex_direction(&g, H(4, 4), H(4, 6)), -1);
    assert_int_equal(hex_direction(&g, H(4, 4), H(6, 4)), -1);
}

static void on_grid_bounds(void **state) {
    (void)state;
    hex_grid g = {1, 30, 1, 20, false};
    assert_true(hex_on_grid(&g, H(1, 1)));
    assert_true(hex_on_grid(&g, H(30, 20)));
    assert_false(hex_on_grid(&g, H(0, 5)));
    assert_false(hex_on_grid(&g, H(31, 5)));
    assert_false(hex_on_grid(&g, H(5, 0)));
    assert_false(hex_on_grid(&g, H(5, 21)));
    assert_false(hex_on_grid(NULL, H(5, 5)));
}

static void distance_is_bfs_steps(void **state) {
    (void)state;
    enum { N = 10 };
    for (int odd = 0; odd < 2; odd++) {
        hex_grid g = grid(N, N, odd);
        for (int s = 0; s < N * N; s++) {
            int dist[N * N], queue[N * N], head = 0, tail = 0;
            for (int i = 0; i < N * N; i++)
                dist[i] = -1;
            dist[s] = 0;
            queue[tail++] = s;
            while (head < tail) {
                int u = queue[head++];
                for (int v = 0; v < N * N; v++)
                    if (dist[v] < 0 &&
                        printed_direction(odd, H(u / N, u % N), H(v / N, v % N)) >= 0) {
                        dist[v] = dist[u] + 1;
                        queue[tail++] = v;
                    }
            }
            for (int v = 0; v < N * N; v++) {
                hex a = H(s / N, s % N), b = H(v / N, v % N);
                assert_int_equal(hex_distance(&g, a, b), dist[v]);
                assert_int_equal(hex_distance(&g, b, a), dist[v]);
            }
        }
    }
}

/* ---- lines --------------------------------------------------------------------------------- */

static void expect_line(bool odd_shifted, hex a, hex b, const hex *want, int n, bool want_along) {
    hex_grid g = grid(20, 20, odd_shifted);
    hex out[HEX_LINE_MAX];
    bool along = !want_along;
    int got = hex_line(&g, a, b, out, HEX_LINE_MAX, &along);
    assert_int_equal(got, n);
    assert_int_equal(along, want_along);
    for (int i = 0; i < n; i++)
        if (!hex_equal(out[i], want[i]))
            fail_msg("line %02d%02d-%02d%02d item %d: got %02d%02d, want %02d%02d", a.col, a.row,
                     b.col, b.row, i, out[i].col, out[i].row, want[i].col, want[i].row);
}

static void line_between_neighbours_or_to_itself_is_empty(void **state) {
    (void)state;
    hex_grid g = grid(10, 10, false);
    hex out[4];
    for (int d = 0; d < HEX_DIRS; d++) {
        bool along = true;
        assert_int_equal(hex_line(&g, H(5, 5), hex_neighbour(&g, H(5, 5), d), out, 4, &along), 0);
        assert_false(along);
    }
    assert_int_equal(hex_line(&g, H(5, 5), H(5, 5), out, 4, NULL), 0);
}

static void line_down_a_column(void **state) {
    (void)state;
    for (int odd = 0; odd < 2; odd++) {
        expect_line(odd, H(5, 1), H(5, 6), (hex[]){H(5, 2), H(5, 3), H(5, 4), H(5, 5)}, 4, false);
        expect_line(odd, H(4, 6), H(4, 1), (hex[]){H(4, 5), H(4, 4), H(4, 3), H(4, 2)}, 4, false);
    }
}

static void line_along_hexsides_lists_both_clockwise_first(void **state) {
    (void)state;
    /* 0202 and 0402 (even columns shifted: both low) are level; the line runs along the side
     * between 0302 and 0303. Looking east from 0202, clockwise (right) is south: 0303. */
    expect_line(false, H(2, 2), H(4, 2), (hex[]){H(3, 3), H(3, 2)}, 2, true);
    expect_line(false, H(4, 2), H(2, 2), (hex[]){H(3, 2), H(3, 3)}, 2, true);
    /* Odd columns shifted: column 3 is low, so the side is between 0301 and 0302. */
    expect_line(true, H(2, 2), H(4, 2), (hex[]){H(3, 2), H(3, 1)}, 2, true);
    /* Twice as far: a pair, the hex the line's centre passes through, a pair. */
    expect_line(false, H(2, 2), H(6, 2), (hex[]){H(3, 3), H(3, 2), H(4, 2), H(5, 3), H(5, 2)}, 5,
                true);
    /* Steeply down to the right (60 degrees below east): right of it is down-left, 0203. */
    expect_line(false, H(2, 2), H(3, 4), (hex[]){H(2, 3), H(3, 3)}, 2, true);
    expect_line(false, H(3, 4), H(2, 2), (hex[]){H(3, 3), H(2, 3)}, 2, true);
}

static void generic_line(void **state) {
    (void)state;
    /* Not along a hexside and crossing one hex per step of distance. */
    hex_grid g = grid(10, 10, false);
    expect_line(false, H(2, 2), H(6, 5), (hex[]){H(3, 3), H(4, 3), H(4, 4), H(5, 5)}, 4, false);
    assert_int_equal(hex_distance(&g, H(2, 2), H(6, 5)), 5);
    /* Crossing more: the line slips through the zigzag between columns 2 and 1. */
    expect_line(false, H(2, 2), H(1, 9),
                (hex[]){H(2, 3), H(2, 4), H(1, 5), H(2, 5), H(1, 6), H(2, 6), H(1, 7), H(1, 8)}, 8,
                false);
    assert_int_equal(hex_distance(&g, H(2, 2), H(1, 9)), 7);
}

static void line_respects_cap(void **state) {
    (void)state;
    hex_grid g = grid(10, 10, false);
    hex out[4];
    bool along = true;
    assert_int_equal(hex_line(&g, H(5, 1), H(5, 6), out, 4, &along), 4);
    assert_false(along);
    assert_int_equal(hex_line(&g, H(5, 1), H(5, 6), out, 3, &along), -1);
    assert_int_equal(hex_line(&g, H(5, 1), H(5, 6), NULL, 0, &along), -1);
    assert_int_equal(hex_line(&g, H(5, 1), H(5, 2), NULL, 0, &along), 0);
}

/* True proportions: x per unit of X, y per unit of Y (sqrt(3) / 2, without libm). */
static const double kx = 1.5, ky = 0.86602540378443864676;

static int nearest_int(double v) {
    return v >= 0 ? (int)(v + 0.5) : -(int)(-v + 0.5);
}

/* The hex whose centre is nearest the point (x, y) in true proportions; false when two are
 * within a hair (the point is on a hexside). */
static bool hex_at(bool odd_shifted, double x, double y, hex *out) {
    double best = 1e9, second = 1e9;
    int c0 = nearest_int(x / kx);
    for (int c = c0 - 1; c <= c0 + 1; c++) {
        int r0 = nearest_int((y / ky - (shifted_down(odd_shifted, c) ? 1 : 0)) / 2);
        for (int r = r0 - 1; r <= r0 + 1; r++) {
            int cx, cy;
            centre(odd_shifted, H(c, r), &cx, &cy);
            double d = (cx * kx - x) * (cx * kx - x) + (cy * ky - y) * (cy * ky - y);
            if (d < best) {
                second = best;
                best = d;
                *out = H(c, r);
            } else if (d < second) {
                second = d;
            }
        }
    }
    return second - best > 1e-9;
}

static int index_of(const hex *list, int n, hex h) {
    for (int i = 0; i < n; i++)
        if (hex_equal(list[i], h)) return i;
    return -1;
}

/* Every pair of hexes on a 10x10 map, against the line sampled densely (closer than any hex the
 * line crosses there is wide along it). */
static void line_matches_dense_sampling(void **state) {
    (void)state;
    enum { N = 10, SAMPLES = 400 };
    for (int odd = 0; odd < 2; odd++) {
        hex_grid g = grid(N, N, odd);
        for (int s = 0; s < N * N; s++)
            for (int e = 0; e < N * N; e++) {
                hex a = H(s / N, s % N), b = H(e / N, e % N), out[64];
                if (s == e) continue;
                bool along = false, sampled[64] = {false};
                int n = hex_line(&g, a, b, out, 64, &along), last = -1;
                assert_true(n >= 0);
                int ax, ay, bx, by;
                centre(odd, a, &ax, &ay);
                centre(odd, b, &bx, &by);
                int dx = bx - ax, dy = by - ay;
                assert_int_equal(along, dy == 0 || abs(dy) == 3 * abs(dx));
                for (int i = 0; i < SAMPLES; i++) {
                    double t = (i + 0.5) / SAMPLES;
                    hex h;
                    if (!hex_at(odd, (ax + t * dx) * kx, (ay + t * dy) * ky, &h)) continue;
                    if (hex_equal(h, a) || hex_equal(h, b)) continue;
                    int at = index_of(out, n, h);
                    if (at < 0)
                        fail_msg("%02d%02d-%02d%02d misses %02d%02d", a.col, a.row, b.col, b.row,
                                 h.col, h.row);
                    assert_true(at >= last); /* in order from a */
                    last = at;
                    sampled[at] = true;
                }
                if (!along) {
                    assert_true(n >= hex_distance(&g, a, b) - 1);
                    for (int i = 0; i < n; i++) {
                        assert_true(sampled[i]);
                        assert_true(printed_direction(odd, i ? out[i - 1] : a, out[i]) >= 0);
                    }
                    if (n > 0) assert_true(printed_direction(odd, out[n - 1], b) >= 0);
                    continue;
                }
                /* Along: the hexes never sampled come in adjacent pairs, clockwise one first. */
                for (int i = 0; i < n; i++) {
                    if (sampled[i]) continue;
                    assert_true(i + 1 < n && !sampled[i + 1]);
                    assert_true(printed_direction(odd, out[i], out[i + 1]) >= 0);
                    int x0, y0, x1, y1;
                    centre(odd, out[i], &x0, &y0);
                    centre(odd, out[i + 1], &x1, &y1);
                    /* y down: a positive cross product is clockwise of the line */
                    assert_true(dx * (y0 - ay) - dy * (x0 - ax) > 0);
                    assert_true(dx * (y1 - ay) - dy * (x1 - ax) < 0);
                    i++;
                }
            }
    }
}

/* ---- the map as data ----------------------------------------------------------------------- */

static const char *const terrains[] = {"clear", "woods", "slope", "marsh", NULL};
static const char *const features[] = {"road", "stream", "wall", NULL};
static const hex_map_spec spec = {terrains, features, -1, 3};
enum { CLEAR = 1, WOODS = 2, SLOPE = 4, MARSH = 8, ROAD = 1, STREAM = 2, WALL = 4 };

static json_t *load(const char *text) {
    json_error_t je;
    json_t *v = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v) fail_msg("bad test JSON: %s: %s", je.text, text);
    return v;
}

/* hex_map_new on text; on success the result, else NULL with err filled. */
static json_t *map_new(const char *text, api_error *err) {
    json_t *setup = load(text);
    json_t *map = hex_map_new(setup, "setup.map", &spec, err);
    json_decref(setup);
    return map;
}

static void normalises_the_setup_map(void **state) {
    (void)state;
    api_error err = {0};
    json_t *map =
        map_new("{\"columns\": [1, 30], \"rows\": [1, 20], \"hexes\": {"
                "\"1204\": {\"terrain\": \"woods\", \"level\": 1},"
                "\"0101\": {\"terrain\": \"clear\"},"
                "\"0102\": {\"terrain\": [\"clear\"], \"level\": 0},"
                "\"0203\": {\"terrain\": [\"slope\", \"woods\"]},"
                "\"0304\": {\"terrain\": \"clear\", \"level\": -1}},"
                "\"hexsides\": [{\"hexes\": [\"1205\", \"1204\"],"
                "                \"features\": [\"stream\", \"road\"]},"
                "               {\"hexes\": [\"0101\", \"0201\"], \"features\": [\"wall\"]}]}",
                &err);
    assert_non_null(map);
    assert_int_equal(err.status, 0);
    json_t *want = load("{\"columns\": [1, 30], \"rows\": [1, 20], \"columns_shifted\": \"even\","
                        "\"default_terrain\": \"clear\", \"hexes\": {"
                        "\"1204\": {\"terrain\": [\"woods\"], \"level\": 1},"
                        "\"0203\": {\"terrain\": [\"slope\", \"woods\"]},"
                        "\"0304\": {\"terrain\": [\"clear\"], \"level\": -1}},"
                        "\"hexsides\": {\"1204/1205\": [\"stream\", \"road\"],"
                        "               \"0101/0201\": [\"wall\"]}}");
    if (!json_equal(map, want)) {
        char *got = json_dumps(map, JSON_SORT_KEYS);
        fail_msg("normalised map: %s", got);
    }
    json_decref(want);

    hex_grid g;
    hex_map_grid(map, &g);
    assert_int_equal(g.col_first, 1);
    assert_int_equal(g.col_last, 30);
    assert_int_equal(g.row_first, 1);
    assert_int_equal(g.row_last, 20);
    assert_false(g.odd_shifted);
    assert_int_equal(hex_map_terrain(map, &spec, H(12, 4)), WOODS);
    assert_int_equal(hex_map_terrain(map, &spec, H(2, 3)), WOODS | SLOPE);
    assert_int_equal(hex_map_terrain(map, &spec, H(3, 4)), CLEAR);
    assert_int_equal(hex_map_terrain(map, &spec, H(1, 1)), CLEAR);
    assert_int_equal(hex_map_terrain(map, &spec, H(7, 7)), CLEAR);
    assert_int_equal(hex_map_level(map, H(12, 4)), 1);
    assert_int_equal(hex_map_level(map, H(3, 4)), -1);
    assert_int_equal(hex_map_level(map, H(2, 3)), 0);
    assert_int_equal(hex_map_level(map, H(7, 7)), 0);
    assert_int_equal(hex_map_hexside(map, &spec, H(12, 4), H(12, 5)), ROAD | STREAM);
    assert_int_equal(hex_map_hexside(map, &spec, H(12, 5), H(12, 4)), ROAD | STREAM);
    assert_int_equal(hex_map_hexside(map, &spec, H(2, 1), H(1, 1)), WALL);
    assert_int_equal(hex_map_hexside(map, &spec, H(12, 4), H(12, 3)), 0);
    json_decref(map);
}

static void odd_shift_and_default_terrain(void **state) {
    (void)state;
    api_error err = {0};
    json_t *map =
        map_new("{\"columns\": [0, 9], \"rows\": [0, 9], \"columns_shifted\": \"odd\","
                "\"default_terrain\": \"woods\", \"hexes\": {"
                "\"0101\": {\"terrain\": \"woods\"}, \"0102\": {\"terrain\": \"clear\"}},"
                "\"hexsides\": [{\"hexes\": [\"0101\", \"0202\"], \"features\": [\"road\"]}]}",
                &err);
    assert_non_null(map);
    json_t *want = load("{\"columns\": [0, 9], \"rows\": [0, 9], \"columns_shifted\": \"odd\","
                        "\"default_terrain\": \"woods\","
                        "\"hexes\": {\"0102\": {\"terrain\": [\"clear\"]}},"
                        "\"hexsides\": {\"0101/0202\": [\"road\"]}}");
    assert_true(json_equal(map, want));
    json_decref(want);
    hex_grid g;
    hex_map_grid(map, &g);
    assert_true(g.odd_shifted);
    assert_int_equal(hex_map_terrain(map, &spec, H(1, 1)), WOODS);
    assert_int_equal(hex_map_terrain(map, &spec, H(1, 2)), CLEAR);
    assert_int_equal(hex_map_terrain(map, &spec, H(5, 5)), WOODS);
    assert_int_equal(hex_map_hexside(map, &spec, H(2, 2), H(1, 1)), ROAD);
    json_decref(map);
    /* 0101-0202 is adjacent only with odd columns shifted. */
    map = map_new("{\"columns\": [0, 9], \"rows\": [0, 9],"
                  "\"hexsides\": [{\"hexes\": [\"0101\", \"0202\"], \"features\": [\"road\"]}]}",
                  &err);
    assert_null(map);
    assert_int_equal(err.status, 422);
    api_error_clear(&err);
}

typedef struct bad_map {
    const char *setup_map;
    int status;
    const char *field;
} bad_map;

static void rejects_bad_maps_naming_the_field(void **state) {
    (void)state;
#define MAP(rest) "{\"columns\": [1, 30], \"rows\": [1, 20]" rest "}"
#define HEXES(h)  MAP(", \"hexes\": {" h "}")
#define SIDES(s)  MAP(", \"hexsides\": [" s "]")
    static const bad_map cases[] = {
        {"[]", 400, "setup.map"},
        {MAP(", \"colour\": 1"), 400, "setup.map.colour"},
        {"{\"rows\": [1, 20]}", 400, "setup.map.columns"},
        {"{\"columns\": [1, 30]}", 400, "setup.map.rows"},
        {"{\"columns\": [1], \"rows\": [1, 20]}", 400, "setup.map.columns"},
        {"{\"columns\": [1, 2, 3], \"rows\": [1, 20]}", 400, "setup.map.columns"},
        {"{\"columns\": [1, 100], \"rows\": [1, 20]}", 400, "setup.map.columns"},
        {"{\"columns\": [1, \"2\"], \"rows\": [1, 20]}", 400, "setup.map.columns"},
        {"{\"columns\": [1, 2.0], \"rows\": [1, 20]}", 400, "setup.map.columns"},
        {"{\"columns\": [1, 30], \"rows\": [-1, 20]}", 400, "setup.map.rows"},
        {"{\"columns\": [5, 1], \"rows\": [1, 20]}", 422, "setup.map.columns"},
        {"{\"columns\": [1, 30], \"rows\": [20, 1]}", 422, "setup.map.rows"},
        {MAP(", \"columns_shifted\": \"left\""), 400, "setup.map.columns_shifted"},
        {MAP(", \"columns_shifted\": 1"), 400, "setup.map.columns_shifted"},
        {MAP(", \"columns_shifted\": \"odd\\u0000\""), 400, "setup.map.columns_shifted"},
        {MAP(", \"default_terrain\": \"lava\""), 422, "setup.map.default_terrain"},
        {MAP(", \"default_terrain\": [\"clear\"]"), 400, "setup.map.default_terrain"},
        {MAP(", \"hexes\": []"), 400, "setup.map.hexes"},
        {HEXES("\"12a4\": {\"terrain\": \"woods\"}"), 422, "setup.map.hexes.12a4"},
        {HEXES("\"120\": {\"terrain\": \"woods\"}"), 422, "setup.map.hexes.120"},
        {HEXES("\"3104\": {\"terrain\": \"woods\"}"), 422, "setup.map.hexes.3104"},
        {HEXES("\"1221\": {\"terrain\": \"woods\"}"), 422, "setup.map.hexes.1221"},
        {HEXES("\"1200\": {\"terrain\": \"woods\"}"), 422, "setup.map.hexes.1200"},
        {HEXES("\"1204\": \"woods\""), 400, "setup.map.hexes.1204"},
        {HEXES("\"1204\": {\"level\": 1}"), 400, "setup.map.hexes.1204.terrain"},
        {HEXES("\"1204\": {\"terrain\": \"lava\"}"), 422, "setup.map.hexes.1204.terrain"},
        {HEXES("\"1204\": {\"terrain\": 5}"), 400, "setup.map.hexes.1204.terrain"},
        {HEXES("\"1204\": {\"terrain\": null}"), 400, "setup.map.hexes.1204.terrain"},
        {HEXES("\"1204\": {\"terrain\": []}"), 400, "setup.map.hexes.1204.terrain"},
        {HEXES("\"1204\": {\"terrain\": [\"woods\", \"slope\", \"marsh\", \"clear\"]}"), 400,
         "setup.map.hexes.1204.terrain"},
        {HEXES("\"1204\": {\"terrain\": [\"woods\", 1]}"), 400, "setup.map.hexes.1204.terrain[1]"},
        {HEXES("\"1204\": {\"terrain\": [\"woods\", \"lava\"]}"), 422,
         "setup.map.hexes.1204.terrain[1]"},
        {HEXES("\"1204\": {\"terrain\": [\"woods\", \"woods\"]}"), 422,
         "setup.map.hexes.1204.terrain[1]"},
        {HEXES("\"1204\": {\"terrain\": \"woods\", \"level\": 4}"), 422,
         "setup.map.hexes.1204.level"},
        {HEXES("\"1204\": {\"terrain\": \"woods\", \"level\": -2}"), 422,
         "setup.map.hexes.1204.level"},
        {HEXES("\"1204\": {\"terrain\": \"woods\", \"level\": \"high\"}"), 400,
         "setup.map.hexes.1204.level"},
        {HEXES("\"1204\": {\"terrain\": \"woods\", \"level\": 1.5}"), 400,
         "setup.map.hexes.1204.level"},
        {HEXES("\"1204\": {\"terrain\": \"woods\", \"height\": 1}"), 400,
         "setup.map.hexes.1204.height"},
        {MAP(", \"hexsides\": {}"), 400, "setup.map.hexsides"},
        {SIDES("5"), 400, "setup.map.hexsides[0]"},
        {SIDES("{\"hexes\": [\"1204\", \"1205\"], \"features\": [\"road\"], \"kind\": 1}"), 400,
         "setup.map.hexsides[0].kind"},
        {SIDES("{\"features\": [\"road\"]}"), 400, "setup.map.hexsides[0].hexes"},
        {SIDES("{\"hexes\": [\"1204\"], \"features\": [\"road\"]}"), 400,
         "setup.map.hexsides[0].hexes"},
        {SIDES("{\"hexes\": [\"1204\", 1205], \"features\": [\"road\"]}"), 400,
         "setup.map.hexsides[0].hexes"},
        {SIDES("{\"hexes\": [\"1204\", \"12x5\"], \"features\": [\"road\"]}"), 422,
         "setup.map.hexsides[0].hexes[1]"},
        {SIDES("{\"hexes\": [\"3104\", \"3105\"], \"features\": [\"road\"]}"), 422,
         "setup.map.hexsides[0].hexes[0]"},
        {SIDES("{\"hexes\": [\"1204\", \"1206\"], \"features\": [\"road\"]}"), 422,
         "setup.map.hexsides[0].hexes"},
        {SIDES("{\"hexes\": [\"1204\", \"1204\"], \"features\": [\"road\"]}"), 422,
         "setup.map.hexsides[0].hexes"},
        {SIDES("{\"hexes\": [\"1204\", \"1205\"]}"), 400, "setup.map.hexsides[0].features"},
        {SIDES("{\"hexes\": [\"1204\", \"1205\"], \"features\": []}"), 400,
         "setup.map.hexsides[0].features"},
        {SIDES("{\"hexes\": [\"1204\", \"1205\"], \"features\": \"road\"}"), 400,
         "setup.map.hexsides[0].features"},
        {SIDES("{\"hexes\": [\"1204\", \"1205\"], \"features\": [\"tunnel\"]}"), 422,
         "setup.map.hexsides[0].features[0]"},
        {SIDES("{\"hexes\": [\"1204\", \"1205\"], \"features\": [\"road\", \"road\"]}"), 422,
         "setup.map.hexsides[0].features[1]"},
        {SIDES("{\"hexes\": [\"1204\", \"1205\"], \"features\": [\"road\"]},"
               "{\"hexes\": [\"1205\", \"1204\"], \"features\": [\"wall\"]}"),
         422, "setup.map.hexsides[1]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        api_error err = {0};
        json_t *map = map_new(cases[i].setup_map, &err);
        if (map) fail_msg("accepted: %s", cases[i].setup_map);
        const char *field = json_string_value(json_object_get(err.details, "field"));
        if (err.status != cases[i].status || !field || strcmp(field, cases[i].field) != 0)
            fail_msg("%s: got %d %s field %s (%s), want %d %s", cases[i].setup_map, err.status,
                     err.code, field ? field : "-", err.message, cases[i].status, cases[i].field);
        assert_string_equal(err.code, cases[i].status == 400 ? "invalid_field" : "invalid_setup");
        assert_true(strlen(err.message) > 0);
        api_error_clear(&err);
    }
    api_error err = {0};
    assert_null(map_new(HEXES("\"1204\": {\"terrain\": [\"woods\", \"lava\"]}"), &err));
    assert_non_null(strstr(err.message, "'lava'"));
    api_error_clear(&err);
    assert_null(hex_map_new(NULL, "setup.map", &spec, &err));
    assert_int_equal(err.status, 400);
    api_error_clear(&err);
#undef MAP
#undef HEXES
#undef SIDES
}

static void lookups_on_odd_maps_answer_defaults(void **state) {
    (void)state;
    const char *odd_maps[] = {
        "5",
        "{}",
        "{\"hexes\": 5, \"hexsides\": \"x\", \"default_terrain\": 3}",
        "{\"hexes\": {\"1204\": 5}, \"hexsides\": {\"1204/1205\": 5}}",
        "{\"hexes\": {\"1204\": {\"terrain\": 7, \"level\": \"x\"}},"
        " \"hexsides\": {\"1204/1205\": [1, \"lava\", null]}}",
        "{\"hexes\": {\"1204\": {\"terrain\": [\"lava\", 3, {}]}}, \"default_terrain\": \"lava\"}",
        "{\"columns\": [5], \"rows\": \"x\", \"columns_shifted\": 1}",
        "{\"columns\": [1, 100], \"rows\": [1, 5]}",
    };
    for (size_t i = 0; i < sizeof odd_maps / sizeof *odd_maps; i++) {
        json_t *map = load(odd_maps[i]);
        assert_int_equal(hex_map_terrain(map, &spec, H(12, 4)), CLEAR);
        assert_int_equal(hex_map_terrain(map, &spec, H(-1, 4)), CLEAR);
        assert_int_equal(hex_map_level(map, H(12, 4)), 0);
        assert_int_equal(hex_map_hexside(map, &spec, H(12, 4), H(12, 5)), 0);
        hex_grid g;
        hex_map_grid(map, &g);
        assert_false(hex_on_grid(&g, H(0, 0)));
        assert_false(hex_on_grid(&g, H(2, 2)));
        assert_false(g.odd_shifted);
        json_decref(map);
    }
    assert_int_equal(hex_map_terrain(NULL, &spec, H(1, 1)), CLEAR);
    assert_int_equal(hex_map_level(NULL, H(1, 1)), 0);
    assert_int_equal(hex_map_hexside(NULL, &spec, H(1, 1), H(1, 2)), 0);
    /* Readable pieces of a hand-written map still count. */
    json_t *map = load("{\"default_terrain\": \"marsh\", \"hexes\": {"
                       "\"1204\": {\"terrain\": \"woods\", \"level\": 99999999999},"
                       "\"1205\": {\"terrain\": [\"lava\", \"slope\"], \"level\": -99999999999}},"
                       " \"hexsides\": {\"1204/1205\": \"road\"}}");
    assert_int_equal(hex_map_terrain(map, &spec, H(12, 4)), WOODS);
    assert_int_equal(hex_map_terrain(map, &spec, H(12, 5)), SLOPE);
    assert_int_equal(hex_map_terrain(map, &spec, H(12, 6)), MARSH);
    assert_int_equal(hex_map_level(map, H(12, 4)), INT_MAX);
    assert_int_equal(hex_map_level(map, H(12, 5)), INT_MIN);
    assert_int_equal(hex_map_hexside(map, &spec, H(12, 5), H(12, 4)), ROAD);
    json_decref(map);
}

static void side_keys_put_the_lower_name_first(void **state) {
    (void)state;
    char key[2 * HEX_NAME_MAX];
    hex_side_key(H(12, 5), H(12, 4), key);
    assert_string_equal(key, "1204/1205");
    hex_side_key(H(12, 4), H(12, 5), key);
    assert_string_equal(key, "1204/1205");
    hex_side_key(H(10, 0), H(9, 9), key);
    assert_string_equal(key, "0909/1000");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_accepts_four_digits_only),
        cmocka_unit_test(format_and_parse_round_trip),
        cmocka_unit_test(direction_names),
        cmocka_unit_test(relative_to_every_facing),
        cmocka_unit_test(neighbours_from_odd_and_even_columns),
        cmocka_unit_test(neighbours_match_the_printed_map),
        cmocka_unit_test(on_grid_bounds),
        cmocka_unit_test(distance_is_bfs_steps),
        cmocka_unit_test(line_between_neighbours_or_to_itself_is_empty),
        cmocka_unit_test(line_down_a_column),
        cmocka_unit_test(line_along_hexsides_lists_both_clockwise_first),
        cmocka_unit_test(generic_line),
        cmocka_unit_test(line_respects_cap),
        cmocka_unit_test(line_matches_dense_sampling),
        cmocka_unit_test(normalises_the_setup_map),
        cmocka_unit_test(odd_shift_and_default_terrain),
        cmocka_unit_test(rejects_bad_maps_naming_the_field),
        cmocka_unit_test(lookups_on_odd_maps_answer_defaults),
        cmocka_unit_test(side_keys_put_the_lower_name_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
