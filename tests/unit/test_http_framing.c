/* server/http_framing: the same verdicts, in the same order, as the byte-by-byte check it
 * replaced, on every short input over the bytes that matter, split anywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/http/http_framing.h"

/* The original check, one byte at a time. */
static const char *reference(const char *from, const char *to, unsigned char *prev) {
    for (const char *p = from; p < to; p++) {
        unsigned char ch = (unsigned char)*p;
        if (*prev == '\r' && ch != '\n') return "bare CR";
        if (ch == '\n' && *prev != '\r') return "bare LF";
        if ((ch == ' ' || ch == '\t') && *prev == '\n') return "obsolete line folding";
        *prev = ch;
    }
    return NULL;
}

/* Runs a check over s in two calls, split at cut, as the parser's calls do. */
typedef const char *(*check_fn)(const char *, const char *, unsigned char *);
static const char *in_two_calls(check_fn f, const char *s, size_t len, size_t cut,
                                unsigned char start, unsigned char *prev) {
    *prev = start;
    const char *bad = f(s, s + cut, prev);
    return bad ? bad : f(s + cut, s + len, prev);
}

static void same_verdicts_as_byte_by_byte(void **state) {
    (void)state;
    static const char alphabet[] = {'a', ' ', '\t', '\r', '\n'};
    static const unsigned char starts[] = {0, 'a', ' ', '\r', '\n'};
    enum { K = sizeof alphabet, MAXLEN = 7 };
    char s[MAXLEN];
    long checked = 0;
    for (size_t len = 0; len <= MAXLEN; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= K;
        for (size_t code = 0; code < total; code++) {
            size_t x = code;
            for (size_t i = 0; i < len; i++, x /= K)
                s[i] = alphabet[x % K];
            for (size_t st = 0; st < sizeof starts; st++)
                for (size_t cut = 0; cut <= len; cut++) {
                    unsigned char p1, p2;
                    const char *want = in_two_calls(reference, s, len, cut, starts[st], &p1);
                    const char *got =
                        in_two_calls(http_framing_check, s, len, cut, starts[st], &p2);
                    if (want == NULL) {
                        assert_null(got);
                        assert_int_equal(p1, p2);
                    } else {
                        assert_non_null(got);
                        assert_string_equal(got, want);
                    }
                    checked++;
                }
        }
    }
    assert_true(checked > 1000000);
}

static void a_real_head_passes(void **state) {
    (void)state;
    static const char head[] = "POST /v1/sessions/x/actions HTTP/1.1\r\nHost: a\r\n"
                               "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n";
    unsigned char prev = 0;
    assert_null(http_framing_check(head, head + sizeof head - 1, &prev));
    assert_int_equal(prev, '\n');
    static const char bare_lf[] = "GET / HTTP/1.1\nHost: a\r\n\r\n";
    prev = 0;
    assert_string_equal(http_framing_check(bare_lf, bare_lf + sizeof bare_lf - 1, &prev),
                        "bare LF");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_verdicts_as_byte_by_byte),
        cmocka_unit_test(a_real_head_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
