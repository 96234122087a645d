/* rules/common/combat_table: a firing or melee table of the setup, checked row by row, and the
 * first row that matches a unit type, a range and a situation (issue 23, item 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rules/common/combat_table.h"

static const char *const TYPES[] = {"line_infantry", "cavalry", "artillery", NULL};

static json_t *setup_of(const char *text) {
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);
    if (!v) fail_msg("bad test JSON: %s", e.text);
    return v;
}

static json_t *table_ok(const char *text, bool ranged) {
    json_t *setup = setup_of(text), *t = NULL;
    api_error err = {0};
    if (combat_table_read(setup, "fire_table", TYPES, ranged, &t, &err) != 0)
        fail_msg("refused: %d %s: %s", err.status, err.code, err.message);
    json_decref(setup);
    return t;
}

static void table_refused(const char *text, bool ranged, int status, const char *field) {
    json_t *setup = setup_of(text), *t = NULL;
    api_error err = {0};
    if (combat_table_read(setup, "fire_table", TYPES, ranged, &t, &err) == 0)
        fail_msg("accepted: %s", text);
    assert_int_equal(err.status, status);
    assert_string_equal(json_string_value(json_object_get(err.details, "field")), field);
    assert_null(t);
    api_error_clear(&err);
    json_decref(setup);
}

static int picked(const json_t *t, const char *type, int64_t range, const char *situation) {
    combat_pick p;
    api_error err = {0};
    if (combat_table_pick(t, "fire_table", type, range, situation, &p, &err) != 0) {
        assert_int_equal(err.status, 422);
        assert_string_equal(err.code, "no_table_row");
        api_error_clear(&err);
        return -1;
    }
    return p.row;
}

static const char TABLE[] =
    "{\"fire_table\": ["
    "{\"unit\": \"line_infantry\", \"range\": [0, 100], \"situation\": \"cover\", \"hits\": "
    "\"1d6-4\"},"
    "{\"unit\": \"line_infantry\", \"range\": [0, 100], \"hits\": \"1d6-3\", \"source\": \"p. 2\"},"
    "{\"unit\": \"line_infantry\", \"range\": [101, 300], \"hits\": \"1d6-5\"},"
    "{\"hits\": 1}]}";

static void the_first_matching_row_decides(void **unused) {
    (void)unused;
    json_t *t = table_ok(TABLE, true);
    assert_int_equal(picked(t, "line_infantry", 80, NULL), 1);
    assert_int_equal(picked(t, "line_infantry", 80, ""), 1); /* "" is no situation */
    assert_int_equal(picked(t, "line_infantry", 80, "cover"), 0);
    assert_int_equal(picked(t, "line_infantry", 100, NULL), 1); /* bands include their ends */
    assert_int_equal(picked(t, "line_infantry", 101, NULL), 2);
    assert_int_equal(picked(t, "line_infantry", 301, NULL), 3); /* the row for any unit */
    assert_int_equal(picked(t, "cavalry", 10, NULL), 3);
    /* a situation no row lists: refused, not read as none */
    assert_int_equal(picked(t, "cavalry", 10, "cover"), -1);
    assert_int_equal(picked(t, "line_infantry", 200, "cover"), -1);
    json_decref(t);
}

static void the_text_names_the_row(void **unused) {
    (void)unused;
    json_t *t = table_ok(TABLE, true);
    combat_pick p;
    api_error err = {0};
    assert_int_equal(combat_table_pick(t, "fire_table", "line_infantry", 80, NULL, &p, &err), 0);
    assert_false(p.fixed);
    assert_string_equal(p.hits, "1d6-3");
    char buf[160] = "";
    combat_pick_text(t, &p, "line_infantry", NULL, buf, sizeof buf);
    assert_string_equal(buf, "row 2: line infantry, 1d6-3, p. 2");
    assert_int_equal(combat_table_pick(t, "fire_table", "artillery", 5, NULL, &p, &err), 0);
    assert_true(p.fixed);
    assert_int_equal(p.fixed_hits, 1);
    buf[0] = '\0';
    combat_pick_text(t, &p, "artillery", NULL, buf, sizeof buf);
    assert_string_equal(buf, "row 4: artillery, 1 hit");
    json_decref(t);
}

static void a_bad_row_names_its_field(void **unused) {
    (void)unused;
    table_refused("{\"fire_table\": [{\"hits\": \"2d\"}]}", true, 422, "setup.fire_table[0].hits");
    table_refused("{\"fire_table\": [{\"hits\": 100}]}", true, 400, "setup.fire_table[0].hits");
    table_refused("{\"fire_table\": [{\"hits\": 1}, {\"unit\": \"dragoons\", \"hits\": 1}]}", true,
                  422, "setup.fire_table[1].unit");
    table_refused("{\"fire_table\": [{\"range\": [5, 2], \"hits\": 1}]}", true, 400,
                  "setup.fire_table[0].range");
    table_refused("{\"fire_table\": [{\"range\": [0, 5], \"hits\": 1}]}", false, 400,
                  "setup.fire_table[0].range");
    table_refused("{\"fire_table\": [{\"hits\": 1, \"modifier\": 2}]}", true, 400,
                  "setup.fire_table[0].modifier");
    table_refused("{\"fire_table\": []}", true, 400, "setup.fire_table");
    table_refused("{\"fire_table\": [3]}", true, 400, "setup.fire_table[0]");
    /* bounded: at most COMBAT_TABLE_ROWS_MAX rows */
    char big[8192] = "{\"fire_table\": [";
    for (int i = 0; i <= COMBAT_TABLE_ROWS_MAX; i++)
        strcat(big, i ? ", {\"hits\": 1}" : "{\"hits\": 1}");
    strcat(big, "]}");
    table_refused(big, true, 400, "setup.fire_table");
}

static void no_table_is_no_table(void **unused) {
    (void)unused;
    json_t *setup = setup_of("{}"), *t = (json_t *)1;
    api_error err = {0};
    assert_int_equal(combat_table_read(setup, "fire_table", TYPES, true, &t, &err), 0);
    assert_null(t);
    json_decref(setup);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_first_matching_row_decides),
        cmocka_unit_test(the_text_names_the_row),
        cmocka_unit_test(a_bad_row_names_its_field),
        cmocka_unit_test(no_table_is_no_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
