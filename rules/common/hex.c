/* Hex addresses, directions and grid geometry (see hex.h).
 *
 * Offset coordinates as printed are converted to cube coordinates (q + r + s = 0, q = column)
 * for neighbours, distances and lines, following redblobgames' "even-q" / "odd-q" layouts. Cube
 * values are long long so that distances and lines stay in range for any int address. */
#include "rules/common/hex.h"

#include <limits.h>
#include <string.h>

typedef struct cube {
    long long v[3]; /* q, r, s */
} cube;

/* Axial steps (dq, dr) for N, NE, SE, S, SW, NW: with flat tops, q grows to the lower right and
 * r grows downward. */
static const int dir_q[HEX_DIRS] = {0, 1, 1, 0, -1, -1};
static const int dir_r[HEX_DIRS] = {-1, -1, 0, 1, 1, 0};
static const char *const dir_names[HEX_DIRS] = {"n", "ne", "se", "s", "sw", "nw"};

/* The offset between a column's printed rows and the axial r: ceil(col / 2) when even columns
 * are shifted down, floor(col / 2) when odd ones are (exact halves, so C's division suffices). */
static long long row_offset(const hex_grid *g, long long col) {
    bool odd = col % 2 != 0, odd_shifted = g && g->odd_shifted;
    return (col + (odd ? (odd_shifted ? -1 : 1) : 0)) / 2;
}

static cube to_cube(const hex_grid *g, hex h) {
    long long q = h.col, r = h.row - row_offset(g, h.col);
    return (cube){{q, r, -q - r}};
}

static hex from_cube(const hex_grid *g, const long long c[3]) {
    return (hex){(int)c[0], (int)(c[1] + row_offset(g, c[0]))};
}

static long long abs_ll(long long x) {
    return x < 0 ? -x : x;
}

static long long floor_div(long long n, long long d) {
    if (d < 0) n = -n, d = -d;
    return n / d - (n % d != 0 && n < 0);
}

/* ---- addresses and directions ------------------------------------------------------------ */

bool hex_parse(const char *s, hex *out) {
    if (!s) return false;
    for (int i = 0; i < 4; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    if (s[4] != '\0') return false;
    out->col = (s[0] - '0') * 10 + (s[1] - '0');
    out->row = (s[2] - '0') * 10 + (s[3] - '0');
    return true;
}

/* An address outside 0..99 has no printed name: it formats as "" so that a key built from it
 * matches nothing rather than a wrong hex. */
void hex_format(hex h, char *out) {
    if (h.col < 0 || h.col > 99 || h.row < 0 || h.row > 99) {
        out[0] = '\0';
        return;
    }
    out[0] = (char)('0' + h.col / 10);
    out[1] = (char)('0' + h.col % 10);
    out[2] = (char)('0' + h.row / 10);
    out[3] = (char)('0' + h.row % 10);
    out[4] = '\0';
}

bool hex_equal(hex a, hex b) {
    return a.col == b.col && a.row == b.row;
}

/* NULL for a number that is no direction. */
const char *hex_dir_name(int dir) {
    return dir >= 0 && dir < HEX_DIRS ? dir_names[dir] : NULL;
}

int hex_dir_parse(const char *s) {
    for (int d = 0; s && d < HEX_DIRS; d++)
        if (strcmp(s, dir_names[d]) == 0) return d;
    return -1;
}

/* Each operand is reduced first so that no int overflows, whatever the caller passes. */
int hex_relative(int facing, int dir) {
    return ((dir % HEX_DIRS) - (facing % HEX_DIRS) + 2 * HEX_DIRS) % HEX_DIRS;
}

int hex_opposite(int dir) {
    return (dir % HEX_DIRS + HEX_DIRS + 3) % HEX_DIRS;
}

/* ---- geometry on a grid ------------------------------------------------------------------ */

bool hex_on_grid(const hex_grid *g, hex h) {
    return g && h.col >= g->col_first && h.col <= g->col_last && h.row >= g->row_first &&
           h.row <= g->row_last;
}

/* A number that is no direction (such as hex_direction's -1) leaves h where it is. */
hex hex_neighbour(const hex_grid *g, hex h, int dir) {
    if (dir < 0 || dir >= HEX_DIRS) return h;
    cube c = to_cube(g, h);
    c.v[0] += dir_q[dir];
    c.v[1] += dir_r[dir];
    c.v[2] = -c.v[0] - c.v[1];
    return from_cube(g, c.v);
}

int hex_direction(const hex_grid *g, hex from, hex to) {
    for (int d = 0; d < HEX_DIRS; d++)
        if (hex_equal(hex_neighbour(g, from, d), to)) return d;
    return -1;
}

static long long cube_distance(const long long a[3], const long long b[3]) {
    long long dq = abs_ll(a[0] - b[0]), dr = abs_ll(a[1] - b[1]), ds = abs_ll(a[2] - b[2]);
    return dq > dr ? (dq > ds ? dq : ds) : (dr > ds ? dr : ds);
}

int hex_distance(const hex_grid *g, hex a, hex b) {
    long long d = cube_distance(to_cube(g, a).v, to_cube(g, b).v);
    return d > INT_MAX ? INT_MAX : (int)d;
}

/* ---- lines ---------------------------------------------------------------------------------
 *
 * hex_line walks the segment exactly, in integers, instead of sampling it (redblobgames' lerp and
 * cube_round take one hex per unit of distance). A line can cross more hexes than that: from
 * 0202 to 0109, even columns shifted, it crosses eight (0203-0206, then 0105-0108) where the
 * samples find six, missing 0206 and 0105. And where it crosses a hexside exactly at the side's
 * midpoint, sampling meets a rounding tie that a nudge either way would report as running along
 * the side. Integer arithmetic also keeps the answer the same on every machine, so a replayed
 * session sees what the live one saw.
 *
 * In cube coordinates the hex centred at c is the set of points p with |(p - c)_i - (p - c)_j| <=
 * 1 for the three pairs i, j (each bound is the perpendicular bisector towards a neighbour). So
 * the segment a + t * d, 0 <= t <= 1, enters the hex's interior where three open intervals of t
 * overlap; where a pair's term does not change along the line (d_i == d_j, the line parallel to
 * that pair of hexsides) and sits at exactly 1, the line runs along the hexside instead. */

enum { MEETS_NOT, MEETS_INSIDE, MEETS_SIDE };

static int line_meets(const long long a[3], const long long d[3], const long long c[3]) {
    long long lo_n = 0, lo_d = 1, hi_n = 1, hi_d = 1; /* t in (lo_n / lo_d, hi_n / hi_d) */
    bool side = false;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        long long u = (a[i] - c[i]) - (a[j] - c[j]), w = d[i] - d[j];
        if (w == 0) {
            if (u > 1 || u < -1) return MEETS_NOT;
            side = side || u != 0;
            continue;
        }
        /* -1 < u + t * w < 1 */
        long long lo = w > 0 ? -1 - u : u - 1, hi = w > 0 ? 1 - u : 1 + u, den = abs_ll(w);
        if (lo * lo_d > lo_n * den) lo_n = lo, lo_d = den;
        if (hi * hi_d < hi_n * den) hi_n = hi, hi_d = den;
    }
    if (lo_n * hi_d >= hi_n * lo_d) return MEETS_NOT;
    return side ? MEETS_SIDE : MEETS_INSIDE;
}

/* Order along the line: by the projection of the hex's centre onto it (the cube coordinates'
 * dot product is proportional to the map's, so this is the map's order). Consecutive hexes the
 * line crosses share a hexside the line crosses forwards, so their projections strictly
 * increase; only the two hexes beside a hexside the line runs along tie. Of those, the one
 * clockwise of the line seen from a -- on its right, with north up as printed -- goes first:
 * axial (q, r) maps onto the printed map (x right, y down) by x = 3/2 q, y = sqrt(3) (r + q / 2),
 * whose determinant is positive, so the sign of the axial cross product d x (c - a) is that of
 * the printed map's, where positive with y down is clockwise (d pointing N and c - a pointing NE
 * give 0 * -1 - (-1) * 1 = 1). */
static bool line_before(const long long a[3], const long long d[3], const long long x[3],
                        const long long y[3]) {
    long long px = 0, py = 0;
    for (int i = 0; i < 3; i++) {
        px += (x[i] - a[i]) * d[i];
        py += (y[i] - a[i]) * d[i];
    }
    if (px != py) return px < py;
    long long cx = d[0] * (x[1] - a[1]) - d[1] * (x[0] - a[0]);
    long long cy = d[0] * (y[1] - a[1]) - d[1] * (y[0] - a[0]);
    return cx > cy;
}

int hex_line(const hex_grid *g, hex a, hex b, hex *out, int cap, bool *along) {
    cube ca = to_cube(g, a), cb = to_cube(g, b);
    long long d[3];
    for (int i = 0; i < 3; i++)
        d[i] = cb.v[i] - ca.v[i];
    long long n = cube_distance(ca.v, cb.v);
    int count = 0;
    bool side = false;
    if (along) *along = false;
    if (n == 0) return 0;
    /* Walk the axis k along which the line moves a whole unit per unit of distance (d_k = +-n).
     * A hex the segment touches has its centre within 2/3 of the touching point on every axis
     * (its corners are 2/3 from its centre), so its k lies between a's and b's. With k dominant,
     * the slope s = d_j / d_k lies in [-1, 0] (|s| <= 1 and |d_l / d_k| = |1 + s| <= 1), and over
     * the hex's corners |e_j - s e_k| (e: corner minus centre) is at most 2/3: the centre's j is
     * within 2/3 of the line's j at k = v, so it is m or m + 1 for m = floor(line's j). */
    int k = abs_ll(d[0]) == n ? 0 : abs_ll(d[1]) == n ? 1 : 2, j = (k + 1) % 3, l = (k + 2) % 3;
    long long step = d[k] > 0 ? 1 : -1;
    for (long long v = ca.v[k];; v += step) {
        long long m = ca.v[j] + floor_div(d[j] * (v - ca.v[k]), d[k]);
        for (long long cj = m; cj <= m + 1; cj++) {
            long long c[3];
            c[k] = v, c[j] = cj, c[l] = -v - cj;
            if (cube_distance(c, ca.v) == 0 || cube_distance(c, cb.v) == 0) continue;
            int how = line_meets(ca.v, d, c);
            if (how == MEETS_NOT) continue;
            if (count >= cap) return -1;
            out[count++] = from_cube(g, c);
            side = side || how == MEETS_SIDE;
        }
        if (v == cb.v[k]) break;
    }
    /* Insertion sort: the walk already yields nearly the final order. */
    for (int i = 1; i < count; i++) {
        hex h = out[i];
        cube ch = to_cube(g, h);
        int at = i;
        while (at > 0 && line_before(ca.v, d, ch.v, to_cube(g, out[at - 1]).v)) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = h;
    }
    if (along) *along = side;
    return count;
}
