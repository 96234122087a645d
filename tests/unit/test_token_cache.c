/* server/token_cache: hit, miss, eviction, bounds; what it never remembers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/api/token_cache.h"
#include "server/core/crypto.h"

static const char SID_A[] = "0123456789abcdef0123456789abcdef";
static const char SID_B[] = "fedcba9876543210fedcba9876543210";

static void digest_of(const char *token, uint8_t out[32]) {
    crypto_sha256(token, strlen(token), out);
}

static void hit_after_put(void **state) {
    (void)state;
    token_cache *c = token_cache_new(TOKEN_CACHE_SLOTS);
    assert_non_null(c);
    uint8_t d[32];
    digest_of("token-1", d);
    char role[48] = "untouched";
    assert_false(token_cache_get(c, SID_A, d, role, sizeof role)); /* empty: a miss */
    assert_string_equal(role, "untouched");
    token_cache_put(c, SID_A, d, "side:alice");
    assert_true(token_cache_get(c, SID_A, d, role, sizeof role));
    assert_string_equal(role, "side:alice");
    token_cache_free(c);
}

static void miss_for_another_token_or_session(void **state) {
    (void)state;
    token_cache *c = token_cache_new(TOKEN_CACHE_SLOTS);
    uint8_t d[32], other[32];
    digest_of("token-1", d);
    token_cache_put(c, SID_A, d, "referee");
    char role[48] = "";
    /* The same token for another session: not its token there. */
    assert_false(token_cache_get(c, SID_B, d, role, sizeof role));
    /* A digest that differs in its last byte only (same slot): not the same token. */
    memcpy(other, d, 32);
    other[31] ^= 1;
    assert_false(token_cache_get(c, SID_A, other, role, sizeof role));
    /* ...nor in its first byte. */
    memcpy(other, d, 32);
    other[0] ^= 0x80;
    assert_false(token_cache_get(c, SID_A, other, role, sizeof role));
    assert_string_equal(role, "");
    /* A session id that is not 32 characters never matches. */
    assert_false(token_cache_get(c, "0123", d, role, sizeof role));
    token_cache_free(c);
}

static void a_new_entry_evicts_the_slots_previous_one(void **state) {
    (void)state;
    token_cache *c = token_cache_new(1); /* one slot: every token maps to it */
    assert_non_null(c);
    uint8_t d1[32], d2[32];
    digest_of("token-1", d1);
    digest_of("token-2", d2);
    char role[48];
    token_cache_put(c, SID_A, d1, "referee");
    token_cache_put(c, SID_B, d2, "side:bob");
    assert_false(token_cache_get(c, SID_A, d1, role, sizeof role)); /* evicted */
    assert_true(token_cache_get(c, SID_B, d2, role, sizeof role));
    assert_string_equal(role, "side:bob");
    token_cache_free(c);

    /* With many slots, entries in different slots coexist; the table never grows. */
    c = token_cache_new(64);
    int kept = 0;
    for (int i = 0; i < 1000; i++) {
        char tok[32];
        uint8_t d[32];
        snprintf(tok, sizeof tok, "tok-%d", i);
        digest_of(tok, d);
        token_cache_put(c, SID_A, d, "referee");
    }
    for (int i = 0; i < 1000; i++) {
        char tok[32];
        uint8_t d[32];
        snprintf(tok, sizeof tok, "tok-%d", i);
        digest_of(tok, d);
        kept += token_cache_get(c, SID_A, d, role, sizeof role);
    }
    assert_true(kept > 0 && kept <= 64);
    token_cache_free(c);
}

static void only_what_fits_is_remembered(void **state) {
    (void)state;
    token_cache *c = token_cache_new(8);
    uint8_t d[32];
    digest_of("token-1", d);
    char role[48];
    char long_role[TOKEN_CACHE_ROLE_MAX + 1];
    memset(long_role, 'x', sizeof long_role - 1);
    long_role[sizeof long_role - 1] = '\0';
    token_cache_put(c, SID_A, d, long_role); /* would be truncated: not cached */
    assert_false(token_cache_get(c, SID_A, d, role, sizeof role));
    token_cache_put(c, "short", d, "referee"); /* not a session id */
    assert_false(token_cache_get(c, "short", d, role, sizeof role));
    /* A smaller role buffer gets the role truncated, as snprintf would. */
    token_cache_put(c, SID_A, d, "side:alice");
    char small[5];
    assert_true(token_cache_get(c, SID_A, d, small, sizeof small));
    assert_string_equal(small, "side");
    token_cache_free(c);
}

static void slots_must_be_a_power_of_two_and_null_caches_nothing(void **state) {
    (void)state;
    assert_null(token_cache_new(0));
    assert_null(token_cache_new(3));
    assert_null(token_cache_new(1000));
    token_cache *c = token_cache_new(1024);
    assert_non_null(c);
    token_cache_free(c);
    token_cache_free(NULL);
    /* No cache at all: nothing is remembered. */
    uint8_t d[32];
    char role[48];
    digest_of("token-1", d);
    token_cache_put(NULL, SID_A, d, "referee");
    assert_false(token_cache_get(NULL, SID_A, d, role, sizeof role));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hit_after_put),
        cmocka_unit_test(miss_for_another_token_or_session),
        cmocka_unit_test(a_new_entry_evicts_the_slots_previous_one),
        cmocka_unit_test(only_what_fits_is_remembered),
        cmocka_unit_test(slots_must_be_a_power_of_two_and_null_caches_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
