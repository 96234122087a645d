/* The open table: exact integer geometry, measured lengths and their text, reading points and
 * the session's measure (rules/common/tabletop.h). Terrain areas are in tabletop_terrain.c.
 *
 * Every comparison is exact. Coordinates are bounded by TABLE_COORD_MAX, so differences are
 * below 2^22 and squares below 2^44; intermediate products (cross products squared, radius
 * squared times a squared length) are taken in 128 bits.
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
