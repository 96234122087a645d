/* Strict request decoding: duplicate keys, depth, field paths, reals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "protocol/json_in.h"
#include "server/core/requests.h"

#include <stdlib.h>
#include <string.h>

static json_t *parse(const char *s, api_error *e) {
    return json_in_parse_object_new(s, strlen(s), e);
}

static void duplicate_keys_are_rejected(void **state) {
    (void)state;
    api_error e = {0};
    assert_null(parse("{\"a\":1,\"a\":2}", &e));
    assert_int_equal(e.status, 400);
    assert_string_equal(e.code, "invalid_json");
    api_error_clear(&e);
}

static void depth_is_capped(void **state) {
    (void)state;
    char deep[200], ok[200];
    memset(deep, 0, sizeof deep);
    memset(ok, 0, sizeof ok);
    /* {"a": [[[...]]]}: 1 + n levels */
    strcpy(deep, "{\"a\":");
    strcpy(ok, "{\"a\":");
    for (int i = 0; i < JSON_IN_MAX_DEPTH; i++)
        strcat(deep, "[");
    for (int i = 0; i < JSON_IN_MAX_DEPTH; i++)
        strcat(deep, "]");
    strcat(deep, "}");
    for (int i = 0; i < JSON_IN_MAX_DEPTH - 1; i++)
        strcat(ok, "[");
    for (int i = 0; i < JSON_IN_MAX_DEPTH - 1; i++)
        strcat(ok, "]");
    strcat(ok, "}");
    api_error e = {0};
    assert_null(parse(deep, &e));
    assert_int_equal(e.status, 400);
    api_error_clear(&e);
    json_t *v = parse(ok, &e);
    assert_non_null(v);
    json_decref(v);
    /* Brackets inside strings do not count. */
    v = parse("{\"a\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}",
              &e);
    assert_non_null(v);
    json_decref(v);
}

static void non_objects_and_garbage_are_rejected(void **state) {
    (void)state;
    api_error e = {0};
    assert_null(parse("[1,2]", &e));
    assert_string_equal(e.code, "invalid_json");
    assert_null(parse("{\"a\":", &e));
    assert_string_equal(e.code, "invalid_json");
    assert_non_null(json_object_get(e.details, "position"));
    api_error_clear(&e);
}

/* details.position: the offending token's last byte, or the length when the input ended. */
static void error_positions_point_at_the_offending_byte(void **state) {
    (void)state;
    static const struct {
        const char *text;
        int pos;
    } cases[] = {
        {"{\"a\": x}", 6}, {"{\"a\":1,}", 7}, {"{\"a\":1}x", 7}, {"{\"a\":", 5}, {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        api_error e = {0};
        assert_null(parse(cases[i].text, &e));
        assert_int_equal(json_integer_value(json_object_get(e.details, "position")), cases[i].pos);
        api_error_clear(&e);
    }
}

static void nul_in_a_string_is_a_field_error(void **state) {
    (void)state;
    api_error e = {0};
    json_t *v = parse("{\"ruleset\":\"generic\",\"title\":\"a\\u0000b\",\"sides\":[\"x\"]}", &e);
    assert_non_null(v);
    create_request cr;
    assert_int_equal(create_request_decode(v, &cr, &e), -1);
    assert_string_equal(e.code, "invalid_field");
    assert_string_equal(json_string_value(json_object_get(e.details, "field")), "title");
    api_error_clear(&e);
    json_decref(v);
    v = parse("{\"ruleset\":\"generic\",\"sides\":[\"x\\u0000y\"]}", &e);
    assert_int_equal(create_request_decode(v, &cr, &e), -1);
    assert_string_equal(json_string_value(json_object_get(e.details, "field")), "sides[0]");
    api_error_clear(&e);
    json_decref(v);
}

/* Found by fuzz_action_decode: jansson's message quotes the input ("near '...'"); with invalid
 * UTF-8 there the error body could not be built at all. */
static void error_body_survives_invalid_utf8_in_the_input(void **state) {
    (void)state;
    static const char input[] = "\"\\\xca\xab\xca\x9c";
    api_error e = {0};
    assert_null(json_in_parse_object_new(input, sizeof input - 1, &e));
    size_t len = 0;
    char *body = api_error_body_new(&e, &len);
    assert_non_null(body);
    json_t *back = json_loads(body, 0, NULL);
    assert_non_null(back);
    json_decref(back);
    free(body);
    api_error_clear(&e);
}

static void field_errors_name_the_path(void **state) {
    (void)state;
    api_error e = {0};
    json_t *v = parse("{\"ruleset\":\"generic\",\"sides\":[\"a\",\"a\"]}", &e);
    create_request cr;
    assert_int_equal(create_request_decode(v, &cr, &e), -1);
    assert_int_equal(e.status, 400);
    assert_string_equal(json_string_value(json_object_get(e.details, "field")), "sides[1]");
    json_decref(v);
    api_error_clear(&e);

    v = parse("{\"ruleset\":\"generic\",\"sides\":[\"a\"],\"setup\":{\"units\":[{\"id\":\"u\","
              "\"side\":\"b\"}]}}",
              &e);
    assert_int_equal(create_request_decode(v, &cr, &e), -1);
    assert_int_equal(e.status, 422);
    assert_string_equal(e.code, "invalid_setup");
    assert_string_equal(json_string_value(json_object_get(e.details, "field")),
                        "setup.units[0].side");
    json_decref(v);
    api_error_clear(&e);

    v = parse("{\"ruleset\":\"generic\",\"sides\":[\"a\"],\"setup\":{\"units\":[{\"id\":\"u\","
              "\"side\":\"a\",\"hp\":1.5}]}}",
              &e);
    assert_int_equal(create_request_decode(v, &cr, &e), -1);
    assert_string_equal(json_string_value(json_object_get(e.details, "field")),
                        "setup.units[0].hp");
    json_decref(v);
    api_error_clear(&e);
}

static void good_create_request_decodes(void **state) {
    (void)state;
    api_error e = {0};
    json_t *v = parse("{\"ruleset\":\"generic\",\"title\":\"T\",\"sides\":[\"a\",\"b\"],"
                      "\"dice\":{\"mode\":\"seeded\",\"seed\":\"" /* 64 hex digits */
                      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\"}}",
                      &e);
    create_request cr;
    assert_int_equal(create_request_decode(v, &cr, &e), 0);
    assert_int_equal(cr.mode, DICE_MODE_SEEDED);
    assert_int_equal(cr.seed[31], 0x1f);
    assert_string_equal(cr.title, "T");
    assert_non_null(cr.state);
    create_request_clear(&cr);
    json_decref(v);
}

static void action_envelope_splits_fields(void **state) {
    (void)state;
    api_error e = {0};
    json_t *v = parse("{\"type\":\"roll\",\"expect_version\":3,\"unit\":\"u1\",\"dice\":[4,2],"
                      "\"expr\":\"2d6\"}",
                      &e);
    action_envelope env;
    assert_int_equal(action_envelope_decode(v, &env, &e), 0);
    assert_string_equal(env.type, "roll");
    assert_true(env.has_expect_version);
    assert_int_equal(env.expect_version, 3);
    assert_string_equal(env.unit, "u1");
    assert_int_equal(env.ndice, 2);
    assert_int_equal(env.dice[1], 2);
    assert_int_equal(json_object_size(env.fields), 1);
    assert_non_null(json_object_get(env.fields, "expr"));
    action_envelope_clear(&env);
    json_decref(v);

    v = parse("{\"type\":\"roll\",\"dice\":[1,\"2\"]}", &e);
    assert_int_equal(action_envelope_decode(v, &env, &e), -1);
    assert_string_equal(json_string_value(json_object_get(e.details, "field")), "dice[1]");
    api_error_clear(&e);
    json_decref(v);
}

/* Expects the reader's error: status 400, the message and details.field / details.expected. */
static void expect_field_error(const char *message, const char *field, const char *expected) {
    api_error e = {0};
    json_in_take_error(&e);
    assert_int_equal(e.status, 400);
    assert_string_equal(e.code, "invalid_field");
    assert_string_equal(e.message, message);
    assert_string_equal(json_string_value(json_object_get(e.details, "field")), field);
    assert_string_equal(json_string_value(json_object_get(e.details, "expected")), expected);
    api_error_clear(&e);
}

/* The readers' messages are part of the contract (clients and tests match them): pinned here
 * word for word, for every reader, at the top level and under a prefix. */
static void reader_errors_are_exact(void **state) {
    (void)state;
    api_error e = {0};
    json_t *v = parse("{\"s\":1,\"n\":\"x\",\"b\":0,\"o\":[],\"a\":{},\"z\":\"a\\u0000\","
                      "\"big\":99,\"long\":\"abcdef\",\"many\":[1,2,3],\"nul\":null}",
                      &e);
    assert_non_null(v);
    const char *s = NULL;
    int64_t n = 0;
    bool b = false;
    json_t *o = NULL;

    assert_int_equal(json_in_string(v, "", "s", true, 10, &s), -1);
    expect_field_error("field 's' must be a string of at most 10 bytes", "s",
                       "a string of at most 10 bytes");
    assert_int_equal(json_in_string(v, "p.q[2]", "long", true, 5, &s), -1);
    expect_field_error("field 'p.q[2].long' must be a string of at most 5 bytes", "p.q[2].long",
                       "a string of at most 5 bytes");
    assert_int_equal(json_in_string(v, "", "missing", true, 7, &s), -1);
    expect_field_error("field 'missing' must be a string of at most 7 bytes", "missing",
                       "a string of at most 7 bytes");
    assert_int_equal(json_in_string(v, "", "z", true, 7, &s), -1);
    expect_field_error("field 'z' must be a string without NUL characters", "z",
                       "a string without NUL characters");
    s = "kept";
    assert_int_equal(json_in_string(v, "", "nul", false, 7, &s), 0);
    assert_string_equal(s, "kept");
    assert_int_equal(json_in_string(v, "", "nul", true, 7, &s), -1);
    expect_field_error("field 'nul' must be a string of at most 7 bytes", "nul",
                       "a string of at most 7 bytes");

    assert_int_equal(json_in_int(v, "", "n", true, 0, INT64_MAX, &n), -1);
    expect_field_error("field 'n' must be an integer from 0 to 9223372036854775807", "n",
                       "an integer from 0 to 9223372036854775807");
    assert_int_equal(json_in_int(v, "x", "big", false, -5, 10, &n), -1);
    expect_field_error("field 'x.big' must be an integer from -5 to 10", "x.big",
                       "an integer from -5 to 10");
    assert_int_equal(json_in_int(v, "", "gone", true, 1, 2, &n), -1);
    expect_field_error("field 'gone' must be an integer from 1 to 2", "gone",
                       "an integer from 1 to 2");
    assert_int_equal(json_in_int(v, "", "big", true, 0, 99, &n), 0);
    assert_int_equal(n, 99);

    assert_int_equal(json_in_bool(v, "", "b", true, &b), -1);
    expect_field_error("field 'b' must be true or false", "b", "true or false");
    assert_int_equal(json_in_bool(v, "", "gone", true, &b), -1);
    expect_field_error("field 'gone' must be true or false", "gone", "true or false");

    assert_int_equal(json_in_object(v, "", "o", true, &o), -1);
    expect_field_error("field 'o' must be an object", "o", "an object");
    assert_int_equal(json_in_object(v, "", "a", true, &o), 0);
    assert_true(json_is_object(o));

    assert_int_equal(json_in_array(v, "", "a", true, 4, &o), -1);
    expect_field_error("field 'a' must be an array of at most 4 items", "a",
                       "an array of at most 4 items");
    assert_int_equal(json_in_array(v, "", "many", true, 2, &o), -1);
    expect_field_error("field 'many' must be an array of at most 2 items", "many",
                       "an array of at most 2 items");
    assert_int_equal(json_in_array(v, "", "gone", true, 2, &o), -1);
    expect_field_error("field 'gone' must be an array of at most 2 items", "gone",
                       "an array of at most 2 items");
    o = NULL;
    assert_int_equal(json_in_array(v, "", "gone", false, 2, &o), 0);
    assert_null(o);
    json_decref(v);
}

/* The _take variant hands the parsed body itself over as the fields (no copy); the const one
 * leaves its body alone. Both give the same envelope. */
static void action_envelope_take_reuses_the_body(void **state) {
    (void)state;
    static const char text[] = "{\"type\":\"roll\",\"expect_version\":3,\"unit\":\"u1\","
                               "\"dice\":[4,2],\"expr\":\"2d6\",\"purpose\":\"hit\"}";
    api_error e = {0};
    json_t *body = parse(text, &e);
    action_envelope copied, taken;
    assert_int_equal(action_envelope_decode(body, &copied, &e), 0);
    assert_int_equal(json_object_size(body), 6);
    assert_ptr_not_equal(copied.fields, body);
    assert_int_equal(action_envelope_decode_take(body, &taken, &e), 0);
    assert_ptr_equal(taken.fields, body); /* owned by the envelope now */
    assert_true(json_equal(copied.fields, taken.fields));
    assert_int_equal(json_object_size(taken.fields), 2);
    assert_string_equal(taken.type, copied.type);
    assert_string_equal(taken.unit, "u1");
    assert_int_equal(taken.expect_version, 3);
    assert_int_equal(taken.ndice, 2);
    action_envelope_clear(&copied);
    action_envelope_clear(&taken);

    /* On failure the body is released too (the leak checker of the test build would see it). */
    body = parse("{\"type\":\"roll\",\"dice\":[1,\"2\"]}", &e);
    assert_int_equal(action_envelope_decode_take(body, &taken, &e), -1);
    assert_string_equal(json_string_value(json_object_get(e.details, "field")), "dice[1]");
    api_error_clear(&e);
    body = parse("{\"expr\":\"2d6\"}", &e);
    assert_int_equal(action_envelope_decode_take(body, &taken, &e), -1);
    assert_string_equal(e.message, "field 'type' must be a string of at most 48 bytes");
    assert_null(taken.fields);
    api_error_clear(&e);
}

/* A path cut to JSON_IN_PATH_MAX never splits a UTF-8 sequence: the details stay valid JSON
 * (fuzz_webhook_request found a 300-byte key ending in a two-byte character losing them). */
static void long_paths_are_cut_between_characters(void **state) {
    (void)state;
    char key[400];
    for (int shift = 0; shift < 3; shift++) {
        size_t n = 250 + (size_t)shift;
        memset(key, 'k', n);
        for (size_t i = n; i < n + 40; i += 2)
            key[i] = (char)0xc3, key[i + 1] = (char)0xa9; /* U+00E9 */
        key[n + 40] = '\0';
        json_t *obj = json_object();
        json_object_set_new(obj, key, json_integer(1));
        static const char *const allowed[] = {"x", NULL};
        api_error e = {0};
        assert_int_equal(json_in_only_keys(obj, "", allowed, &e), -1);
        const char *field = json_string_value(json_object_get(e.details, "field"));
        assert_non_null(field);
        assert_true(strlen(field) <= JSON_IN_PATH_MAX - 1);
        api_error_clear(&e);
        json_decref(obj);
    }
}

/* json_in_path_index writes what snprintf("%s[%zu]") wrote, and cuts a long ASCII prefix the same
 * (a UTF-8 one is cut between characters instead, like json_in_path). */
static void index_paths_match_snprintf(void **state) {
    (void)state;
    char got[JSON_IN_PATH_MAX], want[JSON_IN_PATH_MAX];
    const size_t indexes[] = {0, 7, 10, 4096, (size_t)-1};
    for (size_t k = 0; k < sizeof indexes / sizeof *indexes; k++) {
        json_in_path_index(got, "state.units", indexes[k]);
        snprintf(want, sizeof want, "state.units[%zu]", indexes[k]);
        assert_string_equal(got, want);
    }
    char prefix[JSON_IN_PATH_MAX + 8];
    for (size_t len = JSON_IN_PATH_MAX - 6; len < JSON_IN_PATH_MAX + 4; len++) {
        memset(prefix, 'p', len);
        prefix[len] = '\0';
        json_in_path_index(got, prefix, 123);
        char whole[2 * JSON_IN_PATH_MAX];
        snprintf(whole, sizeof whole, "%s[%zu]", prefix, (size_t)123);
        whole[JSON_IN_PATH_MAX - 1] = '\0'; /* where snprintf into the path would cut */
        assert_string_equal(got, whole);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(duplicate_keys_are_rejected),
        cmocka_unit_test(depth_is_capped),
        cmocka_unit_test(non_objects_and_garbage_are_rejected),
        cmocka_unit_test(error_positions_point_at_the_offending_byte),
        cmocka_unit_test(nul_in_a_string_is_a_field_error),
        cmocka_unit_test(error_body_survives_invalid_utf8_in_the_input),
        cmocka_unit_test(field_errors_name_the_path),
        cmocka_unit_test(good_create_request_decodes),
        cmocka_unit_test(action_envelope_splits_fields),
        cmocka_unit_test(reader_errors_are_exact),
        cmocka_unit_test(action_envelope_take_reuses_the_body),
        cmocka_unit_test(long_paths_are_cut_between_characters),
        cmocka_unit_test(index_paths_match_snprintf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
