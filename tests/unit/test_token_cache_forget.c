/* server/api/token_cache: forgetting a rotated or revoked token (issue 22, item 8). A change
 * forgets the role's cached tokens (or every role's, for another node's change), and for a while
 * refuses to cache that role again, except the new token of a rotation made here: a lookup that
 * began before the change must not put the old token back. */
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

static bool cached(token_cache *c, const char *sid, const uint8_t d[32]) {
    char role[48];
    return token_cache_get(c, sid, d, role, sizeof role);
}

static void forget_a_role(void **state) {
    (void)state;
    token_cache *c = token_cache_new(TOKEN_CACHE_SLOTS);
    uint8_t alice[32], bob[32], other[32];
    digest_of("alice-1", alice);
    digest_of("bob-1", bob);
    digest_of("alice-of-b", other);
    token_cache_put(c, SID_A, alice, "side:alice");
    token_cache_put(c, SID_A, bob, "side:bob");
    token_cache_put(c, SID_B, other, "side:alice");
    token_cache_forget(c, SID_A, "side:alice", NULL);
    assert_false(cached(c, SID_A, alice));
    assert_true(cached(c, SID_A, bob));   /* another role */
    assert_true(cached(c, SID_B, other)); /* the same role of another session */
    token_cache_free(c);
}

static void old_token_is_not_put_back(void **state) {
    (void)state;
    token_cache *c = token_cache_new(TOKEN_CACHE_SLOTS);
    uint8_t old[32], fresh[32];
    digest_of("alice-1", old);
    digest_of("alice-2", fresh);
    token_cache_put(c, SID_A, old, "side:alice");
    token_cache_forget(c, SID_A, "side:alice", fresh);
    /* a lookup that read the old token before the rotation answers after it */
    token_cache_put(c, SID_A, old, "side:alice");
    assert_false(cached(c, SID_A, old));
    /* the rotation's own new token may be remembered at once */
    token_cache_put(c, SID_A, fresh, "side:alice");
    assert_true(cached(c, SID_A, fresh));
    /* other roles are cached as before */
    uint8_t bob[32];
    digest_of("bob-1", bob);
    token_cache_put(c, SID_A, bob, "side:bob");
    assert_true(cached(c, SID_A, bob));
    token_cache_free(c);
}

static void another_nodes_change_forgets_every_role(void **state) {
    (void)state;
    token_cache *c = token_cache_new(TOKEN_CACHE_SLOTS);
    uint8_t alice[32], ref[32], other[32];
    digest_of("alice-1", alice);
    digest_of("ref-1", ref);
    digest_of("ref-of-b", other);
    token_cache_put(c, SID_A, alice, "side:alice");
    token_cache_put(c, SID_A, ref, "referee");
    token_cache_put(c, SID_B, other, "referee");
    token_cache_forget(c, SID_A, NULL, NULL); /* NOTIFY umpire_tokens: which role is unknown */
    assert_false(cached(c, SID_A, alice));
    assert_false(cached(c, SID_A, ref));
    token_cache_put(c, SID_A, ref, "referee"); /* read before the change: not remembered */
    assert_false(cached(c, SID_A, ref));
    assert_true(cached(c, SID_B, other));
    token_cache_free(c);
}

static void clear_forgets_everything(void **state) {
    (void)state;
    token_cache *c = token_cache_new(TOKEN_CACHE_SLOTS);
    uint8_t a[32], b[32];
    digest_of("a", a);
    digest_of("b", b);
    token_cache_put(c, SID_A, a, "referee");
    token_cache_put(c, SID_B, b, "referee");
    token_cache_clear(c);
    assert_false(cached(c, SID_A, a));
    assert_false(cached(c, SID_B, b));
    token_cache_put(c, SID_A, a, "referee"); /* no change recorded: cached again */
    assert_true(cached(c, SID_A, a));
    token_cache_forget(NULL, SID_A, NULL, NULL); /* a NULL cache caches nothing */
    token_cache_clear(NULL);
    token_cache_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forget_a_role),
        cmocka_unit_test(old_token_is_not_put_back),
        cmocka_unit_test(another_nodes_change_forgets_every_role),
        cmocka_unit_test(clear_forgets_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
