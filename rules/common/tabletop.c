/* The open table: exact integer geometry, measured lengths and their text, reading points and
 * the session's measure (rules/common/tabletop.h). Terrain areas are in tabletop_terrain.c.
 *
 * Every comparison is exact. Coordinates are bounded by TABLE_COORD_MAX, so differences are
 * below 2^22 and squares below 2^44; intermediate products (cross products squared, radius
 * squared times a squared length) are taken in 128 bits, and the sweep of a base along an exact
 * direction (below) compares sums of square roots exactly in 256 bits.
 *
 * Out-of-contract input (a point far off the table, say from table_step with a huge distance, or
 * a damaged state) must not overflow: every coordinate is first clamped to +-TABLE_GUARD (2^30 -
 * 1, a thousand times the table), within which all of the arithmetic below is exact. A valid
 * point is never changed by the clamp. */
#include "rules/common/tabletop.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef __int128 i128;

#define TABLE_GUARD ((int64_t)(1 << 30) - 1)
/* Above the longest distance between two clamped points (sqrt(2) * 2^31 < 2^32). */
#define LONGEST ((int64_t)1 << 32)

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static table_pt guard(table_pt p) {
    return (table_pt){clamp64(p.x, -TABLE_GUARD, TABLE_GUARD),
                      clamp64(p.y, -TABLE_GUARD, TABLE_GUARD)};
}

/* ---- geometry ------------------------------------------------------------------------------- */

int64_t table_dist2(table_pt a, table_pt b) {
    a = guard(a);
    b = guard(b);
    int64_t dx = b.x - a.x, dy = b.y - a.y; /* |d| < 2^31: each square < 2^62, the sum < 2^63 */
    return dx * dx + dy * dy;
}

bool table_within(table_pt a, table_pt b, int64_t limit) {
    if (limit < 0) return false;
    if (limit >= LONGEST) return true;
    return (i128)table_dist2(a, b) <= (i128)limit * limit;
}

/* floor(sqrt(v)) for v >= 0, exactly. */
static int64_t isqrt64(int64_t v) {
    if (v <= 0) return 0;
    int64_t r = (int64_t)sqrtl((long double)v);
    while (r > 0 && (i128)r * r > v)
        r--;
    while ((i128)(r + 1) * (r + 1) <= v)
        r++;
    return r;
}

int64_t table_dist(table_pt a, table_pt b) {
    int64_t d2 = table_dist2(a, b), r = isqrt64(d2);
    /* sqrt(d2) >= r + 1/2  <=>  d2 >= r^2 + r + 1/4  <=>  d2 > r^2 + r (integers) */
    return (i128)d2 > (i128)r * r + r ? r + 1 : r;
}

/* Exact where it can be: a segment whose squared length is a perfect square adds its integer
 * length. The square roots of non-square integers are irrational and linearly independent of 1
 * over the rationals, so as soon as one segment is not an integer the total is not an integer
 * either, and its ceiling is floor(total) + 1. That floor is taken after adding a bound on the
 * floating-point error of the sum, so the answer is never below the true length (it may be one
 * above it only when the true length lies within about 1e-15 relative of an integer). */
int64_t table_path_length(table_pt a, const table_pt *p, int n) {
    if (!p || n <= 0) return 0;
    i128 exact = 0;
    long double irrational = 0;
    bool any_irrational = false;
    table_pt from = a;
    for (int i = 0; i < n; i++) {
        int64_t d2 = table_dist2(from, p[i]), r = isqrt64(d2);
        if ((i128)r * r == d2) {
            exact += r;
        } else {
            irrational += sqrtl((long double)d2);
            any_irrational = true;
        }
        from = p[i];
    }
    if (any_irrational) {
        long double error = irrational * (long double)(n + 2) * 1e-15L + 1e-9L;
        exact += (i128)floorl(irrational + error) + 1;
    }
    return exact > INT64_MAX ? INT64_MAX : (int64_t)exact;
}

static int norm_deg(int deg) {
    int d = deg % 360;
    return d < 0 ? d + 360 : d;
}

int table_bearing(table_pt a, table_pt b) {
    a = guard(a);
    b = guard(b);
    int64_t dx = b.x - a.x, dy = b.y - a.y;
    if (dx == 0 && dy == 0) return 0;
    /* An integer vector is never exactly a half degree off a whole one (the only rational
     * tangents of rational multiples of pi are 0 and +-1), so rounding has no ties to break. */
    double deg = atan2((double)dx, (double)dy) * (180.0 / M_PI);
    return norm_deg((int)lround(deg));
}

int table_angle_off(int facing, int bearing) {
    int d = norm_deg(norm_deg(facing) - norm_deg(bearing));
    return d > 180 ? 360 - d : d;
}

table_pt table_step(table_pt a, int deg, int64_t distance) {
    a = guard(a);
    distance = clamp64(distance, -LONGEST, LONGEST);
    int d = norm_deg(deg);
    int64_t dx, dy;
    /* The four cardinal directions exactly (sin(pi) is not 0 in floating point). */
    if (d % 90 == 0) {
        static const int sx[4] = {0, 1, 0, -1}, sy[4] = {1, 0, -1, 0};
        dx = sx[d / 90] * distance;
        dy = sy[d / 90] * distance;
    } else {
        double rad = d * (M_PI / 180.0);
        dx = (int64_t)llround((double)distance * sin(rad));
        dy = (int64_t)llround((double)distance * cos(rad));
    }
    return (table_pt){a.x + dx, a.y + dy};
}

int table_facing_away(table_pt a, table_pt b) {
    return table_bearing(b, a);
}

bool table_segment_near(table_pt a, table_pt b, table_pt c, int64_t radius) {
    if (radius < 0) return false;
    if (radius >= LONGEST) return true;
    a = guard(a);
    b = guard(b);
    c = guard(c);
    i128 r2 = (i128)radius * radius; /* < 2^64 */
    int64_t ux = b.x - a.x, uy = b.y - a.y, wx = c.x - a.x, wy = c.y - a.y;
    i128 len2 = (i128)ux * ux + (i128)uy * uy; /* < 2^63 */
    i128 t = (i128)wx * ux + (i128)wy * uy;    /* projection of c on ab, times len2 */
    if (t <= 0 || len2 == 0) return (i128)table_dist2(a, c) <= r2;
    if (t >= len2) return (i128)table_dist2(b, c) <= r2;
    /* Distance to the line: |cross| / |ab|; compare squares, times len2 (< 2^127). */
    i128 cross = (i128)ux * wy - (i128)uy * wx; /* |cross| < 2^63 */
    return cross * cross <= r2 * len2;
}

/* ---- a base moving exactly along a direction ------------------------------------------------ */
/* Bounds (after the clamps): a difference of two points and d are below 2^22 per coordinate, so
 * |d|^2 = n < 2^45, a dot or cross product below 2^45, a length or contact below 2^24 and so
 * contact^2 n or length^2 n below 2^93. Comparisons of sums of square roots are squared twice
 * into products of two such numbers (below 2^186), taken exactly in 256 bits. */

__extension__ typedef unsigned __int128 u128;

static table_pt sweep_point(table_pt p) {
    return (table_pt){clamp64(p.x, -TABLE_SWEEP_POINT, TABLE_SWEEP_POINT),
                      clamp64(p.y, -TABLE_SWEEP_POINT, TABLE_SWEEP_POINT)};
}

static table_pt sweep_vector(table_pt d) {
    return (table_pt){clamp64(d.x, -2 * TABLE_SWEEP_POINT, 2 * TABLE_SWEEP_POINT),
                      clamp64(d.y, -2 * TABLE_SWEEP_POINT, 2 * TABLE_SWEEP_POINT)};
}

/* The sign of a * b - c * d, exactly (each product up to 256 bits). */
static void mul256(u128 a, u128 b, u128 *hi, u128 *lo) {
    const u128 m = ~(uint64_t)0;
    u128 a0 = a & m, a1 = a >> 64, b0 = b & m, b1 = b >> 64;
    u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    u128 mid = (p00 >> 64) + (p01 & m) + (p10 & m); /* < 3 * 2^64 */
    *lo = (mid << 64) | (p00 & m);
    *hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
}

static int cmp_products(u128 a, u128 b, u128 c, u128 d) {
    u128 h1, l1, h2, l2;
    mul256(a, b, &h1, &l1);
    mul256(c, d, &h2, &l2);
    if (h1 != h2) return h1 < h2 ? -1 : 1;
    return l1 < l2 ? -1 : l1 > l2 ? 1 : 0;
}

static u128 mag(i128 v) {
    return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

/* The sign of m - sqrt(x) - sqrt(y) (x, y >= 0; |m| < 2^47, x, y < 2^94). */
static int sign_m_minus_roots(i128 m, i128 x, i128 y) {
    if (m <= 0) return m == 0 && x == 0 && y == 0 ? 0 : -1;
    /* m vs sqrt(x) + sqrt(y), both sides >= 0: m^2 - x - y vs 2 sqrt(xy) */
    i128 k = m * m - x - y;
    if (k < 0) return -1;
    if (k == 0) return x == 0 || y == 0 ? 0 : -1;
    return cmp_products(mag(k), mag(k), 4 * (u128)x, (u128)y);
}

/* The sign of m + sqrt(x) - sqrt(y) (x, y >= 0; |m| < 2^47, x, y < 2^94). */
static int sign_m_plus_root_minus_root(i128 m, i128 x, i128 y) {
    if (m >= 0) {
        /* m + sqrt(x) vs sqrt(y), both >= 0: 2 m sqrt(x) vs y - m^2 - x */
        i128 k = y - m * m - x;
        if (k < 0) return 1;
        return cmp_products(4 * mag(m) * mag(m), (u128)x, mag(k), mag(k));
    }
    /* sqrt(x) vs sqrt(y) + |m|: x - y - m^2 vs 2 |m| sqrt(y) */
    i128 k = x - y - m * m;
    if (k < 0) return -1;
    return cmp_products(mag(k), mag(k), 4 * mag(m) * mag(m), (u128)y);
}

/* round(v / sqrt(n)) for v >= 0, n > 0 (a half would go up, but never occurs: tabletop.h):
 * the largest k >= 0 with k = 0 or (2k - 1) sqrt(n) <= 2v (v < 2^46, n < 2^45: every square
 * below 2^96). */
static int64_t round_div_sqrt(i128 v, i128 n) {
    int64_t k = (int64_t)llroundl((long double)v / sqrtl((long double)n));
    if (k < 0) k = 0;
    while (k > 0 && (i128)(2 * k - 1) * (2 * k - 1) * n > 4 * v * v)
        k--;
    while ((i128)(2 * k + 1) * (2 * k + 1) * n <= 4 * v * v)
        k++;
    return k;
}

table_pt table_step_along(table_pt a, table_pt d, int64_t length) {
    a = guard(a);
    d = sweep_vector(d);
    length = clamp64(length, 0, TABLE_SWEEP_LENGTH);
    i128 n = (i128)d.x * d.x + (i128)d.y * d.y;
    if (n == 0) return a;
    int64_t kx = round_div_sqrt((i128)length * (d.x < 0 ? -d.x : d.x), n);
    int64_t ky = round_div_sqrt((i128)length * (d.y < 0 ? -d.y : d.y), n);
    return (table_pt){a.x + (d.x < 0 ? -kx : kx), a.y + (d.y < 0 ? -ky : ky)};
}

/* Where the centre moving from a along d first comes within `contact` of c, as the distance along
 * d times sqrt(n): dot - sqrt(q) (q = contact^2 n - cross^2). False when never (c not strictly
 * ahead, or passed farther off than `contact`). */
typedef struct sweep_hit {
    i128 dot, q, n;
} sweep_hit;

static bool sweep_hit_of(table_pt a, table_pt d, table_pt c, int64_t contact, sweep_hit *h) {
    a = sweep_point(a);
    c = sweep_point(c);
    d = sweep_vector(d);
    contact = clamp64(contact, 0, TABLE_SWEEP_LENGTH);
    int64_t wx = c.x - a.x, wy = c.y - a.y;
    h->n = (i128)d.x * d.x + (i128)d.y * d.y;
    h->dot = (i128)wx * d.x + (i128)wy * d.y;
    i128 cross = (i128)d.x * wy - (i128)d.y * wx;
    h->q = (i128)contact * contact * h->n - cross * cross;
    return h->n > 0 && h->dot > 0 && h->q >= 0;
}

bool table_sweep_touches(table_pt a, table_pt d, int64_t length, table_pt c, int64_t contact) {
    sweep_hit h;
    if (!sweep_hit_of(a, d, c, contact, &h)) return false;
    length = clamp64(length, 0, TABLE_SWEEP_LENGTH);
    /* first contact (dot - sqrt(q)) / sqrt(n) <= length  <=>  dot - sqrt(q) - sqrt(length^2 n)
     * <= 0 (a contact before the start, when the discs already overlap, is <= 0 too) */
    return sign_m_minus_roots(h.dot, h.q, (i128)length * length * h.n) <= 0;
}

int table_sweep_cmp(table_pt a, table_pt d, table_pt c1, table_pt c2, int64_t contact) {
    sweep_hit h1, h2;
    bool t1 = sweep_hit_of(a, d, c1, contact, &h1), t2 = sweep_hit_of(a, d, c2, contact, &h2);
    if (!t1 || !t2) return t1 == t2 ? 0 : t1 ? -1 : 1;
    /* touching at the start: dot - sqrt(q) <= 0 <=> dot^2 <= q (dot > 0) */
    bool s1 = h1.dot * h1.dot <= h1.q, s2 = h2.dot * h2.dot <= h2.q;
    if (s1 || s2) return s1 == s2 ? 0 : s1 ? -1 : 1;
    /* (dot1 - sqrt(q1)) - (dot2 - sqrt(q2)), over the same sqrt(n) */
    return sign_m_plus_root_minus_root(h1.dot - h2.dot, h2.q, h1.q);
}

void table_length_text(const table_measure *m, int64_t len, char *out, size_t cap) {
    if (!out || cap == 0) return;
    int res = m && m->resolution >= 1 && m->resolution <= 1000 ? m->resolution : 10;
    char unit[sizeof m->unit];
    snprintf(unit, sizeof unit, "%.*s", (int)sizeof unit - 1, m ? m->unit : "in");
    /* Thousandths of a unit, rounded half away from zero (exact: 1000 / res is at most 1000). */
    i128 v = len < 0 ? -(i128)len : (i128)len;
    i128 th = (v * 1000 + res / 2) / res;
    unsigned long long whole = (unsigned long long)(th / 1000);
    int frac = (int)(th % 1000);
    char digits[8] = "";
    if (frac) {
        snprintf(digits, sizeof digits, ".%03d", frac);
        for (size_t n = strlen(digits); digits[n - 1] == '0'; n--)
            digits[n - 1] = '\0';
    }
    snprintf(out, cap, "%s%llu%s%s%s", len < 0 && th != 0 ? "-" : "", whole, digits,
             unit[0] ? " " : "", unit);
}

/* ---- reading and writing --------------------------------------------------------------------- */

#define PT_EXPECTED "[x, y]: two integers from -1000000 to 1000000"

int table_pt_read(const json_t *obj, const char *prefix, const char *name, bool required,
                  table_pt *out, api_error *err) {
    const json_t *v = rules_in_present(obj, name);
    if (!v && !required) return 0;
    int64_t c[2];
    bool ok = json_is_array(v) && json_array_size(v) == 2;
    for (size_t i = 0; ok && i < 2; i++) {
        const json_t *n = json_array_get(v, i);
        ok = json_is_integer(n) && json_integer_value(n) >= -TABLE_COORD_MAX &&
             json_integer_value(n) <= TABLE_COORD_MAX;
        c[i] = ok ? (int64_t)json_integer_value(n) : 0;
    }
    if (!ok) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, name);
        api_error_field(err, path, PT_EXPECTED);
        return -1;
    }
    out->x = c[0];
    out->y = c[1];
    return 0;
}

json_t *table_pt_json(table_pt p) {
    return json_pack("[II]", (json_int_t)p.x, (json_int_t)p.y);
}

static const char *const measure_names[] = {"inch", "cm", NULL};
static const char *const measure_units[] = {"in", "cm"};

/* Index of options.measure in measure_names, or -1 (also for a string holding a NUL). */
static int measure_index(const json_t *v) {
    const char *s = json_string_value(v);
    if (!s || strlen(s) != json_string_length(v)) return -1;
    for (int i = 0; measure_names[i]; i++)
        if (strcmp(s, measure_names[i]) == 0) return i;
    return -1;
}

void table_measure_read(const json_t *options, table_measure *m) {
    int unit = measure_index(json_object_get(options, "measure"));
    snprintf(m->unit, sizeof m->unit, "%s", measure_units[unit < 0 ? 0 : unit]);
    const json_t *r = json_object_get(options, "resolution");
    json_int_t res = json_is_integer(r) ? json_integer_value(r) : 10;
    m->resolution = res >= 1 && res <= 1000 ? (int)res : 10;
}

int table_measure_check(const json_t *options, api_error *err) {
    const json_t *v = rules_in_present(options, "measure");
    if (v && measure_index(v) < 0) {
        api_error_field(err, "options.measure", "inch or cm");
        return -1;
    }
    int res = 10;
    return rules_in_int(options, "options", "resolution", false, 1, 1000, &res, err);
}
