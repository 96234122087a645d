/* protocol/json_out: the same bytes as json_dumps(JSON_COMPACT | JSON_ENCODE_ANY), on chosen and
 * on random values; NULL where json_dumps gives NULL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/json_out.h"

static void same_as_jansson(const json_t *v) {
    char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t len = 12345;
    char *got = json_out_compact_new(v, &len);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(got, want, len + 1);
    free(want);
    free(got);
}

static void chosen_values(void **state) {
    (void)state;
    static const char *const texts[] = {
        "{}",
        "[]",
        "{\"a\":[],\"b\":{},\"c\":[{}],\"d\":[[[]]]}",
        "{\"session\":{\"id\":\"0123\",\"version\":12,\"sides\":[\"a\",\"b\"]},\"state\":null}",
        "[true,false,null,0,-1,1,9223372036854775807,-9223372036854775808]",
        "[0.1,1e22,-0.0,1.5e-7,3.0,2.5,1e300,-1e-300,0.30000000000000004,123456789.125]",
        "[\"\",\"plain\",\"q\\\"uote\",\"back\\\\slash\",\"sl/ash\",\"\\b\\f\\n\\r\\t\"]",
        "[\"\\u0001\\u001f\\u001F\\u007f\\u0000x\",\"caf\\u00e9\",\"\\u20ac\",\"\\ud83d\\ude00\"]",
        "{\"k\\\"ey\":1,\"\\n\":2,\"\\u00e9\":[\"\\u2028\\u2029\"]}",
        "{\"z\":1,\"a\":2,\"m\":{\"y\":3,\"b\":4}}", /* insertion order, not sorted */
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_error_t e;
        json_t *v = json_loads(texts[i], JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
        assert_non_null(v);
        same_as_jansson(v);
        json_decref(v);
    }
    json_t *scalars[] = {json_integer(42), json_string("x"), json_true(), json_null(),
                         json_real(0.5)};
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        same_as_jansson(scalars[i]);
        json_decref(scalars[i]);
    }
}

static void refused_like_jansson(void **state) {
    (void)state;
    assert_null(json_out_compact_new(NULL, NULL));
    /* Not valid UTF-8 (only _nocheck can make such a string): json_dumps refuses it too. */
    json_t *bad = json_pack("{s:o}", "k", json_stringn_nocheck("a\xff", 2));
    same_as_jansson(bad);
    json_decref(bad);
    json_t *surrogate = json_pack("[o]", json_stringn_nocheck("\xed\xa0\x80", 3));
    same_as_jansson(surrogate);
    json_decref(surrogate);
    /* A cycle (jansson refuses only a direct self-insertion). */
    json_t *a = json_array(), *b = json_array();
    json_array_append(a, b);
    json_array_append(b, a);
    assert_null(json_out_compact_new(a, NULL));
    json_array_clear(b);
    json_decref(a);
    json_decref(b);
    /* A key with a NUL in it (json_object_setn). */
    json_t *o = json_object();
    json_object_setn_new(o, "k\0ey", 4, json_integer(1));
    same_as_jansson(o);
    json_decref(o);
}

/* Random values: nested objects and arrays of strings over bytes that need escaping, valid
 * multi-byte UTF-8, integers and reals. */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static json_t *random_string(void) {
    static const char *const pieces[] = {"a",
                                         "Z",
                                         " ",
                                         "\"",
                                         "\\",
                                         "/",
                                         "\x01",
                                         "\x1f",
                                         "\n",
                                         "\t",
                                         "\x7f",
                                         "\xc3\xa9",
                                         "\xe2\x82\xac",
                                         "\xf0\x9f\x98\x80",
                                         "\0"};
    char buf[64];
    size_t n = 0, count = next_rand() % 8;
    for (size_t i = 0; i < count; i++) {
        const char *p = pieces[next_rand() % (sizeof pieces / sizeof pieces[0])];
        size_t len = *p ? strlen(p) : 1;
        memcpy(buf + n, p, len);
        n += len;
    }
    return json_stringn(buf, n);
}

static json_t *random_value(int depth) {
    switch (next_rand() % (depth > 4 ? 5 : 7)) {
    case 0:
        return random_string();
    case 1:
        return json_integer((json_int_t)((uint64_t)next_rand() << 32 | next_rand()));
    case 2:
        return json_real((double)(int32_t)next_rand() / (double)(1 + next_rand() % 1000));
    case 3:
        return next_rand() % 2 ? json_true() : json_null();
    case 4:
        return json_integer((json_int_t)(next_rand() % 100));
    case 5: {
        json_t *a = json_array();
        for (uint32_t i = next_rand() % 5; i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (uint32_t i = next_rand() % 5; i > 0; i--) {
            json_t *k = random_string();
            json_object_setn_new(o, json_string_value(k), json_string_length(k),
                                 random_value(depth + 1));
            json_decref(k);
        }
        return o;
    }
    }
}

static void random_values(void **state) {
    (void)state;
    for (int i = 0; i < 3000; i++) {
        json_t *v = random_value(0);
        same_as_jansson(v);
        json_decref(v);
    }
}

/* Piece by piece: the same text as packing the members and serialising them. */
static void written_piece_by_piece(void **state) {
    (void)state;
    json_t *inner = json_pack("{s:[i,s], s:{}}", "a", -7, "b\n", "c", "d");
    json_t *packed = json_pack("{s:s, s:I, s:O, s:s}", "id", "x\"y", "n", (json_int_t)INT64_MIN,
                               "v", inner, "u", "\xc3\xa9");
    char *want = json_dumps(packed, JSON_COMPACT);
    json_out o = {0};
    json_out_text(&o, "{\"id\":");
    json_out_string(&o, "x\"y");
    json_out_text(&o, ",\"n\":");
    json_out_integer(&o, INT64_MIN);
    json_out_text(&o, ",\"v\":");
    json_out_value(&o, inner);
    json_out_text(&o, ",\"u\":");
    json_out_string(&o, "\xc3\xa9");
    json_out_text(&o, "}");
    size_t len = 0;
    char *got = json_out_finish(&o, &len);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    assert_null(o.buf); /* reset: the text is the caller's */
    free(got);
    free(want);
    json_decref(packed);
    json_decref(inner);

    /* One bad piece fails the whole text. */
    json_out_text(&o, "[");
    json_out_string(&o, "bad \xff");
    json_out_text(&o, "]");
    assert_null(json_out_finish(&o, &len));
    assert_null(o.buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chosen_values),
        cmocka_unit_test(refused_like_jansson),
        cmocka_unit_test(random_values),
        cmocka_unit_test(written_piece_by_piece),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
