/* protocol/jcs: RFC 8785 canonical JSON (the examples without floating point), the UTF-16 key
 * order, escaping, integers, and the cases that must fail (reals, cycles). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/jcs.h"

/* Parses text with jansson (escapes decoded), canonicalises it and compares with want. */
static void check_text(const char *text, const char *want) {
    json_error_t err;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &err);
    assert_non_null(v);
    size_t len = 0;
    char *got = jcs_dump_new(v, &len);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    free(got);
    json_decref(v);
}

static void check_null(json_t *v) {
    size_t len = 777;
    char *got = jcs_dump_new(v, &len);
    assert_null(got);
    assert_int_equal(len, 777);
}

/* RFC 8785 section 3.2.3, "Sorting of Object Properties": U+1F600 (a surrogate pair in UTF-16)
 * sorts before U+FB33, unlike in UTF-8 byte or code-point order. */
static void test_rfc8785_sorting(void **state) {
    (void)state;
    check_text(
        "{\"\\u20ac\": \"Euro Sign\", \"\\r\": \"Carriage Return\","
        " \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\", \"1\": \"One\","
        " \"\\ud83d\\ude00\": \"Emoji: Grinning Face\", \"\\u0080\": \"Control\","
        " \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"}",
        "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xc2\x80\":\"Control\","
        "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\",\"\xe2\x82\xac\":\"Euro Sign\","
        "\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\","
        "\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

/* The only place UTF-16 order differs from byte order: characters above U+FFFF against
 * U+E000..U+FFFF. Also prefixes (shorter first) and ordinary ASCII order. */
static void test_utf16_order(void **state) {
    (void)state;
    check_text("{\"\\uffff\":4,\"\\ue000\":3,\"\\ud800\\udc00\":1,\"\\udbff\\udfff\":2,"
               "\"\\ud7ff\":0,\"ab\":-1,\"a\":-2,\"B\":-3,\"\":-4}",
               "{\"\":-4,\"B\":-3,\"a\":-2,\"ab\":-1,\"\xed\x9f\xbf\":0,\"\xf0\x90\x80\x80\":1,"
               "\"\xf4\x8f\xbf\xbf\":2,\"\xee\x80\x80\":3,\"\xef\xbf\xbf\":4}");
    /* Two keys sharing a surrogate lead unit differ in the trail unit: code-point order. */
    check_text("{\"\\ud83d\\ude01\":2,\"\\ud83d\\ude00\":1,\"\\ud83c\\udfff\":0}",
               "{\"\xf0\x9f\x8f\xbf\":0,\"\xf0\x9f\x98\x80\":1,\"\xf0\x9f\x98\x81\":2}");
}

/* RFC 8785 section 3.2.2.2, the string example. */
static void test_rfc8785_string(void **state) {
    (void)state;
    check_text("{\"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\"}",
               "{\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

/* RFC 8785 section 3.2.2.1: the literals. */
static void test_rfc8785_literals(void **state) {
    (void)state;
    check_text("{\"literals\": [null, true, false]}", "{\"literals\":[null,true,false]}");
    check_text("null", "null");
    check_text("true", "true");
    check_text("\"\"", "\"\"");
}

/* Every C0 control, the short forms, DEL passed through, '/' not escaped, U+2028 and U+2029 raw,
 * and a NUL inside a string. */
static void test_escaping(void **state) {
    (void)state;
    char raw[40];
    for (int i = 0; i < 32; i++)
        raw[i] = (char)i;
    memcpy(raw + 32, "\x7f\"\\/", 4);
    json_t *s = json_stringn(raw, 36);
    assert_non_null(s);
    size_t len = 0;
    char *got = jcs_dump_new(s, &len);
    const char *want =
        "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b"
        "\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
        "\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\x7f\\\"\\\\/\"";
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    free(got);
    json_decref(s);

    check_text("[\"\\u2028\\u2029\"]", "[\"\xe2\x80\xa8\xe2\x80\xa9\"]");
    check_text("\"caf\\u00e9 \\ud83c\\udfb2 \xe6\x97\xa5\"",
               "\"caf\xc3\xa9 \xf0\x9f\x8e\xb2 \xe6\x97\xa5\"");
}

/* A key holding a NUL (jansson 2.14 allows it via json_object_setn) is escaped and sorts after
 * its prefix. */
static void test_key_with_nul(void **state) {
    (void)state;
    json_t *o = json_object();
    assert_int_equal(json_object_setn_new(o, "a\0b", 3, json_integer(2)), 0);
    assert_int_equal(json_object_set_new(o, "a", json_integer(1)), 0);
    assert_int_equal(json_object_set_new(o, "a\x01", json_integer(3)), 0);
    size_t len = 0;
    char *got = jcs_dump_new(o, &len);
    assert_non_null(got);
    assert_string_equal(got, "{\"a\":1,\"a\\u0000b\":2,\"a\\u0001\":3}");
    free(got);
    json_decref(o);
}

static void test_nesting(void **state) {
    (void)state;
    check_text("[]", "[]");
    check_text("{}", "{}");
    check_text(
        " { \"b\" : [ 1 , [ ] , { } , [ [ 2 ] ] ] , \"a\" : { \"d\" : { } , \"c\" : [ ] } } ",
        "{\"a\":{\"c\":[],\"d\":{}},\"b\":[1,[],{},[[2]]]}");
    /* Made with python3: json.dumps(doc, sort_keys=True, separators=(",", ":"),
     * ensure_ascii=False) for doc = {"b": [1, -2, {"z": None, "a": True}], "a": {"y":
     * "x\u00e9\u2028\U0001F600", "x": [[], {}, False]}, "c": 9007199254740993, "A": "tab\there"} */
    check_text("{\"b\": [1, -2, {\"z\": null, \"a\": true}], \"a\": {\"y\": "
               "\"x\\u00e9\\u2028\\ud83d\\ude00\", \"x\": [[], {}, false]}, "
               "\"c\": 9007199254740993, \"A\": \"tab\\there\"}",
               "{\"A\":\"tab\\there\",\"a\":{\"x\":[[],{},false],\"y\":\"x\xc3\xa9\xe2\x80\xa8"
               "\xf0\x9f\x98\x80\"},\"b\":[1,-2,{\"a\":true,\"z\":null}],\"c\":9007199254740993}");
}

/* Much deeper than the stack would allow if each level were a recursive call in a small thread;
 * the serialiser's own stack is on the heap. */
static void test_deep_nesting(void **state) {
    (void)state;
    enum { DEPTH = 5000 };
    json_t *root = json_array();
    json_t *cur = root;
    for (int i = 1; i < DEPTH; i++) {
        json_t *next = i % 2 ? json_object() : json_array();
        if (json_is_array(cur))
            json_array_append_new(cur, next);
        else
            json_object_set_new(cur, "k", next);
        cur = next;
    }
    size_t len = 0;
    char *got = jcs_dump_new(root, &len);
    assert_non_null(got);
    /* Half the levels are arrays ("[" + "]"), half objects ("{\"k\":" + "}"), the last empty. */
    assert_int_equal(len, (size_t)DEPTH / 2 * 2 + (size_t)DEPTH / 2 * 6 - 4);
    assert_memory_equal(got, "[{\"k\":[{\"k\":[", 13);
    free(got);
    json_decref(root);
}

static void test_integers(void **state) {
    (void)state;
    check_text("[0, -0, 1, -1, 42, 1000000, -1000000]", "[0,0,1,-1,42,1000000,-1000000]");
    json_t *a = json_array();
    json_array_append_new(a, json_integer(INT64_MAX));
    json_array_append_new(a, json_integer(INT64_MIN));
    json_array_append_new(a, json_integer((json_int_t)1 << 53));
    size_t len = 0;
    char *got = jcs_dump_new(a, &len);
    assert_non_null(got);
    assert_string_equal(got, "[9223372036854775807,-9223372036854775808,9007199254740992]");
    free(got);
    json_decref(a);
    check_text("{\"n\": 123456789012}", "{\"n\":123456789012}");
}

static void test_reals_rejected(void **state) {
    (void)state;
    json_t *r = json_real(1.0);
    check_null(r);
    json_decref(r);
    /* RFC 8785 section 3.2.4's example holds numbers: not canonicalised here. */
    json_t *v = json_loads("{\"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, "
                           "0.000000000000000000000000001], \"string\": \"\\u20ac$\\u000F\","
                           " \"literals\": [null, true, false]}",
                           0, NULL);
    assert_non_null(v);
    check_null(v);
    json_decref(v);
    v = json_loads("{\"a\": [1, 2, {\"b\": [{\"c\": 0.5}]}], \"z\": 1}", 0, NULL);
    check_null(v);
    json_decref(v);
    v = json_loads("[1, 2, 3, 1e0]", 0, NULL);
    check_null(v);
    json_decref(v);
}

static void test_null_and_cycle(void **state) {
    (void)state;
    check_null(NULL);
    json_t *a = json_array(), *o = json_object();
    json_object_set(o, "a", a);
    json_array_append(a, o);
    check_null(o);
    check_null(a);
    json_array_clear(a); /* break the cycle so both are freed */
    json_decref(a);
    json_decref(o);
    /* The same value twice, side by side, is not a cycle. */
    json_t *shared = json_pack("{s:i}", "x", 1);
    json_t *pair = json_pack("[OO]", shared, shared);
    char *got = jcs_dump_new(pair, NULL);
    assert_non_null(got);
    assert_string_equal(got, "[{\"x\":1},{\"x\":1}]");
    free(got);
    json_decref(pair);
    json_decref(shared);
}

/* got (taken) equals want. */
static void expect_text(char *got, const char *want) {
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* More members than the insertion-sort limit: the qsort path orders them the same way. */
static void test_many_members(void **state) {
    (void)state;
    json_t *obj = json_object();
    char key[16];
    for (int i = 59; i >= 0; i--) {
        snprintf(key, sizeof key, "k%02d", i);
        json_object_set_new(obj, key, json_integer(i));
    }
    json_object_set_new(obj, "\xc3\xa9", json_integer(-1)); /* U+00E9 sorts after ASCII */
    char *text = jcs_dump_new(obj, NULL);
    assert_non_null(text);
    const char *head = "{\"k00\":0,\"k01\":1,";
    assert_true(strncmp(text, head, strlen(head)) == 0);
    assert_non_null(strstr(text, "\"k58\":58,\"k59\":59,\"\xc3\xa9\":-1}"));
    free(text);
    json_decref(obj);
}

/* A key that is a prefix of another, and ASCII beside non-ASCII at the same position: the
 * ASCII fast path of the comparison hands over to the UTF-16 comparison correctly. */
static void test_prefix_and_mixed_keys(void **state) {
    (void)state;
    json_t *obj = json_pack("{s:i, s:i, s:i, s:i}", "ab", 1, "a", 2, "a\xef\xbf\xbd", 3,
                            "a\xf0\x9f\x98\x80", 4);
    /* "a" < "ab" < "a"+U+1F600 (surrogate D83D) < "a"+U+FFFD (in UTF-16 order). */
    expect_text(jcs_dump_new(obj, NULL),
                "{\"a\":2,\"ab\":1,\"a\xf0\x9f\x98\x80\":4,\"a\xef\xbf\xbd\":3}");
    json_decref(obj);
}

/* Composing by hand gives the same text as canonicalising the same value. */
static void test_out_composes(void **state) {
    (void)state;
    jcs_out o = {0};
    json_t *inner = json_pack("{s:i, s:[i, s]}", "z", 1, "a", 2, "x\n");
    jcs_out_lit(&o, "{\"a\":");
    jcs_out_value(&o, inner);
    jcs_out_lit(&o, ",\"b\":");
    jcs_out_int(&o, INT64_MIN);
    jcs_out_lit(&o, ",\"c\":");
    jcs_out_string(&o, "q\"\x01", 3);
    jcs_out_lit(&o, "}");
    size_t len = 0;
    char *text = jcs_out_take(&o, &len);
    json_t *whole =
        json_pack("{s:O, s:I, s:s}", "a", inner, "b", (json_int_t)INT64_MIN, "c", "q\"\x01");
    char *want = jcs_dump_new(whole, NULL);
    assert_non_null(text);
    assert_string_equal(text, want);
    assert_int_equal(len, strlen(want));
    assert_null(o.data); /* taken: the buffer is empty again */
    free(text);
    free(want);
    json_decref(whole);
    json_decref(inner);
}

/* Any failure sticks: invalid UTF-8, a real, or a NULL value make take return NULL. */
static void test_out_failure_sticks(void **state) {
    (void)state;
    jcs_out o = {0};
    jcs_out_lit(&o, "[");
    jcs_out_string(&o, "\xff", 1);
    jcs_out_lit(&o, "]");
    assert_null(jcs_out_take(&o, NULL));
    json_t *real = json_real(1.5);
    jcs_out_value(&o, real);
    jcs_out_int(&o, 3);
    assert_null(jcs_out_take(&o, NULL));
    jcs_out_value(&o, NULL);
    assert_null(jcs_out_take(&o, NULL));
    json_decref(real);
    /* After a failure the buffer is usable again. */
    jcs_out_int(&o, 7);
    expect_text(jcs_out_take(&o, NULL), "7");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc8785_sorting),
        cmocka_unit_test(test_utf16_order),
        cmocka_unit_test(test_rfc8785_string),
        cmocka_unit_test(test_rfc8785_literals),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_key_with_nul),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_reals_rejected),
        cmocka_unit_test(test_null_and_cycle),
        cmocka_unit_test(test_many_members),
        cmocka_unit_test(test_prefix_and_mixed_keys),
        cmocka_unit_test(test_out_composes),
        cmocka_unit_test(test_out_failure_sticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
