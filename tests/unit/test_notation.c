/* rules/generic/notation: the dice notation of the generic ruleset (contract, "Ruleset: generic"),
 * accepted forms and the exact error positions of rejected ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rules/common/notation.h"

/* Parses expr, which must succeed, and checks the canonical texts of its terms with their signs,
 * e.g. "+3d6kh2 +1d4 -1". */
static void check_ok(const char *expr, const char *want_terms, int want_dice) {
    notation n;
    notation_error err;
    int rc = notation_parse(expr, &n, &err);
    if (rc != 0) fail_msg("\"%s\" rejected: %d %s", expr, err.pos, err.message);
    char got[1024] = "";
    size_t len = 0;
    for (int i = 0; i < n.nterms; i++) {
        assert_true(n.terms[i].sign == 1 || n.terms[i].sign == -1);
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%c%s", i ? " " : "",
                                n.terms[i].sign > 0 ? '+' : '-', n.terms[i].text);
    }
    assert_string_equal(got, want_terms);
    assert_int_equal(n.total_dice, want_dice);
}

/* Parses expr, which must fail at want_pos; the message must name that position. */
static void check_bad(const char *expr, int want_pos) {
    notation n;
    notation_error err;
    int rc = notation_parse(expr, &n, &err);
    if (rc != -1) fail_msg("\"%s\" accepted", expr);
    if (err.pos != want_pos)
        fail_msg("\"%s\": position %d, want %d (%s)", expr, err.pos, want_pos, err.message);
    char at[32];
    snprintf(at, sizeof at, "at position %d", want_pos);
    if (!strstr(err.message, at))
        fail_msg("\"%s\": message \"%s\" lacks \"%s\"", expr, err.message, at);
    for (const char *c = err.message; *c; c++)
        assert_true(*c >= 0x20 && *c < 0x7f); /* plain ASCII, safe in a JSON error body */
}

static void check_message(const char *expr, const char *want) {
    notation n;
    notation_error err;
    assert_int_equal(notation_parse(expr, &n, &err), -1);
    assert_string_equal(err.message, want);
}

static void test_good(void **state) {
    (void)state;
    check_ok("2d6+1", "+2d6 +1", 2);
    check_ok("3d6kh2+1d4-1", "+3d6kh2 +1d4 -1", 4);
    check_ok("d20", "+1d20", 1);
    check_ok("-1d4+5", "-1d4 +5", 1);
    check_ok(" 2D6 + 1 ", "+2d6 +1", 2);
    check_ok("4d6kl3", "+4d6kl3", 4);
    check_ok("4D6KH3", "+4d6kh3", 4);
    check_ok("4d6Kl3-D8", "+4d6kl3 -1d8", 5);
    check_ok("100d1000", "+100d1000", 100);
    check_ok("50d6+50d6", "+50d6 +50d6", 100);
    check_ok("1d1", "+1d1", 1);
    check_ok("3d6kh3", "+3d6kh3", 3);
    check_ok("7", "+7", 0);
    check_ok("+7", "+7", 0);
    check_ok("- 0", "-0", 0);
    check_ok("1000000-1000000", "+1000000 -1000000", 0);
    check_ok("\t002d06 -\td6 ", "+2d6 -1d6", 3);
}

static void test_term_fields(void **state) {
    (void)state;
    notation n;
    notation_error err;
    assert_int_equal(notation_parse("  -3d6kh2 + 1d4-17", &n, &err), 0);
    assert_int_equal(n.nterms, 3);
    const notation_term *t = n.terms;
    assert_int_equal(t[0].kind, NOTATION_TERM_DICE);
    assert_int_equal(t[0].sign, -1);
    assert_int_equal(t[0].count, 3);
    assert_int_equal(t[0].sides, 6);
    assert_int_equal(t[0].keep, NOTATION_KEEP_HIGH);
    assert_int_equal(t[0].keep_n, 2);
    assert_int_equal(t[0].pos, 2);
    assert_string_equal(t[0].text, "3d6kh2");
    assert_int_equal(t[1].kind, NOTATION_TERM_DICE);
    assert_int_equal(t[1].sign, 1);
    assert_int_equal(t[1].keep, NOTATION_KEEP_ALL);
    assert_int_equal(t[1].keep_n, 1);
    assert_int_equal(t[1].pos, 10);
    assert_int_equal(t[2].kind, NOTATION_TERM_CONST);
    assert_int_equal(t[2].sign, -1);
    assert_int_equal(t[2].constant, 17); /* the magnitude; the sign is separate */
    assert_int_equal(t[2].count, 0);
    assert_int_equal(t[2].pos, 15);
    assert_string_equal(t[2].text, "17");
    assert_int_equal(n.total_dice, 4);

    assert_int_equal(notation_parse("d8kl1", &n, NULL), 0);
    assert_int_equal(n.terms[0].keep, NOTATION_KEEP_LOW);
    assert_int_equal(n.terms[0].pos, 0);
}

static void test_bad_positions(void **state) {
    (void)state;
    check_bad("2d6+x", 4);
    check_bad("2d0", 2);
    check_bad("2d1001", 2);
    check_bad("2d99999999999999999999", 2);
    check_bad("101d6", 0);
    check_bad("0d6", 0);
    check_bad("60d6+41d6", 5);
    check_bad("100d6+d4", 6);
    check_bad("3d6kh4", 5);
    check_bad("3d6kl0", 5);
    check_bad("3d6k2", 4);
    check_bad("3d6kx2", 4);
    check_bad("3d6kh", 5);
    check_bad("3d6k", 4);
    check_bad("2d6+", 4);
    check_bad("2d6+  ", 6);
    check_bad("", 0);
    check_bad("   ", 3);
    check_bad("+", 1);
    check_bad("-", 1);
    check_bad("++1", 1);
    check_bad("2d6++1", 4);
    check_bad("2d6+-1", 4);
    check_bad("2d6 1", 4);
    check_bad("2 d6", 2);
    check_bad("2d 6", 2);
    check_bad("2d", 2);
    check_bad("d", 1);
    check_bad("2d6d6", 3);
    check_bad("2d6x", 3);
    check_bad("2*3", 1);
    check_bad("1000001", 0);
    check_bad("99999999999999999999d6", 0);
    check_bad("1+99999999999999999999999999999999999999", 2);
    check_bad("2d6+\xc3\xa9", 4);
    check_bad("2d6\n", 3);
}

static void test_messages(void **state) {
    (void)state;
    check_message("2d6+x", "unexpected 'x' at position 4: expected a number or NdS");
    check_message("2d6+", "unexpected end of expression at position 4: expected a number or NdS");
    check_message("101d6", "too many dice at position 0: at most 100 dice in one roll");
    check_message("2d0", "bad number of sides at position 2: a die has 1 to 1000 sides");
    check_message("3d6kh4",
                  "bad number of dice to keep at position 5: between 1 and 3 can be kept");
    check_message("2d6+\xc3\xa9", "unexpected byte 0xc3 at position 4: expected a number or NdS");
}

/* 32 terms are fine, the 33rd is rejected at its sign. */
static void test_term_limit(void **state) {
    (void)state;
    char expr[NOTATION_MAX_LEN + 1] = "1";
    for (int i = 1; i < NOTATION_MAX_TERMS; i++)
        strcat(expr, "+1");
    notation n;
    notation_error err;
    assert_int_equal(notation_parse(expr, &n, &err), 0);
    assert_int_equal(n.nterms, 32);
    strcat(expr, "-1");
    check_bad(expr, 63);
    check_message(expr, "too many terms at position 63: at most 32 terms in one roll");
}

/* 256 characters are fine, a 257th is rejected at position 256 whatever it is. */
static void test_length_limit(void **state) {
    (void)state;
    char expr[NOTATION_MAX_LEN + 2];
    memset(expr, ' ', sizeof expr);
    expr[0] = '1';
    expr[NOTATION_MAX_LEN] = '\0';
    notation n;
    notation_error err;
    assert_int_equal(notation_parse(expr, &n, &err), 0);
    expr[NOTATION_MAX_LEN] = ' ';
    expr[NOTATION_MAX_LEN + 1] = '\0';
    check_bad(expr, 256);

    static char huge[100000];
    memset(huge, '9', sizeof huge - 1);
    check_bad(huge, 256);
}

static void test_null_input(void **state) {
    (void)state;
    notation n;
    notation_error err;
    assert_int_equal(notation_parse(NULL, &n, &err), -1);
    assert_int_equal(err.pos, 0);
    assert_int_equal(notation_parse("2d6+x", &n, NULL), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),          cmocka_unit_test(test_term_fields),
        cmocka_unit_test(test_bad_positions), cmocka_unit_test(test_messages),
        cmocka_unit_test(test_term_limit),    cmocka_unit_test(test_length_limit),
        cmocka_unit_test(test_null_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
