/* server/crypto: SHA-256 (FIPS 180-2 examples), HMAC-SHA256 (RFC 4231 cases 1-7), hex, constant
 * time comparison and the CSPRNG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "server/core/crypto.h"

/* Hex of the first len bytes of a digest, for readable assertions. */
static void hex_of(const uint8_t *d, size_t len, char *out) {
    crypto_hex_encode(d, len, out);
}

static void test_sha256_known(void **state) {
    (void)state;
    uint8_t d[32];
    char hex[65];
    crypto_sha256("", 0, d);
    hex_of(d, 32, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    crypto_sha256("abc", 3, d);
    hex_of(d, 32, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    crypto_sha256(NULL, 0, d);
    hex_of(d, 32, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

typedef struct hmac_case {
    uint8_t key[131];
    size_t keylen;
    uint8_t data[160];
    size_t datalen;
    const char *mac_hex; /* RFC 4231 "HMAC-SHA-256" line; case 5 is truncated to 128 bits */
} hmac_case;

static void fill(uint8_t *buf, uint8_t byte, size_t n) {
    memset(buf, byte, n);
}

static void set_text(uint8_t *buf, size_t *len, const char *s) {
    *len = strlen(s);
    memcpy(buf, s, *len);
}

/* RFC 4231 section 4, test cases 1 to 7. */
static void rfc4231_cases(hmac_case c[7]) {
    memset(c, 0, 7 * sizeof *c);
    fill(c[0].key, 0x0b, c[0].keylen = 20);
    set_text(c[0].data, &c[0].datalen, "Hi There");
    c[0].mac_hex = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7";

    set_text(c[1].key, &c[1].keylen, "Jefe");
    set_text(c[1].data, &c[1].datalen, "what do ya want for nothing?");
    c[1].mac_hex = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

    fill(c[2].key, 0xaa, c[2].keylen = 20);
    fill(c[2].data, 0xdd, c[2].datalen = 50);
    c[2].mac_hex = "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe";

    for (int i = 0; i < 25; i++)
        c[3].key[i] = (uint8_t)(i + 1);
    c[3].keylen = 25;
    fill(c[3].data, 0xcd, c[3].datalen = 50);
    c[3].mac_hex = "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b";

    fill(c[4].key, 0x0c, c[4].keylen = 20);
    set_text(c[4].data, &c[4].datalen, "Test With Truncation");
    c[4].mac_hex = "a3b6167473100ee06e0c796c2955552b";

    fill(c[5].key, 0xaa, c[5].keylen = 131);
    set_text(c[5].data, &c[5].datalen, "Test Using Larger Than Block-Size Key - Hash Key First");
    c[5].mac_hex = "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54";

    fill(c[6].key, 0xaa, c[6].keylen = 131);
    set_text(c[6].data, &c[6].datalen,
             "This is a test using a larger than block-size key and a larger than block-size "
             "data. The key needs to be hashed before being used by the HMAC algorithm.");
    c[6].mac_hex = "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2";
}

static void check_case(const hmac_case *c) {
    uint8_t mac[32];
    char hex[65];
    crypto_hmac_sha256(c->key, c->keylen, c->data, c->datalen, mac);
    size_t n = strlen(c->mac_hex) / 2;
    hex_of(mac, n, hex);
    assert_string_equal(hex, c->mac_hex);
}

static void test_hmac_rfc4231(void **state) {
    (void)state;
    hmac_case c[7];
    rfc4231_cases(c);
    for (int i = 0; i < 7; i++)
        check_case(&c[i]);
}

/* The per-thread context remembers the last key: alternating keys, repeating a key, and keys
 * longer than the cache must all still give the RFC answers. */
static void test_hmac_key_changes(void **state) {
    (void)state;
    hmac_case c[7];
    rfc4231_cases(c);
    static const int order[] = {0, 0, 1, 0, 5, 5, 6, 2, 2, 3, 4, 1, 6, 0};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        check_case(&c[order[i]]);
}

static void test_hmac_empty_key_and_message(void **state) {
    (void)state;
    uint8_t mac[32];
    char hex[65];
    /* python3: hmac.new(b"", b"", hashlib.sha256).hexdigest() */
    const char *want = "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad";
    crypto_hmac_sha256((const uint8_t *)"", 0, "", 0, mac);
    hex_of(mac, 32, hex);
    assert_string_equal(hex, want);
    crypto_hmac_sha256(NULL, 0, NULL, 0, mac);
    hex_of(mac, 32, hex);
    assert_string_equal(hex, want);
}

static void *thread_body(void *arg) {
    hmac_case *c = arg;
    uint8_t d[32];
    char hex[65];
    crypto_hmac_sha256(c->key, c->keylen, c->data, c->datalen, d);
    hex_of(d, 32, hex);
    int ok = strcmp(hex, c->mac_hex) == 0;
    crypto_sha256("abc", 3, d);
    hex_of(d, 32, hex);
    ok = ok && strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0;
    return ok ? arg : NULL;
}

/* Other threads get their own contexts, freed when they exit (LeakSanitizer checks that). */
static void test_threads(void **state) {
    (void)state;
    hmac_case c[7];
    rfc4231_cases(c);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_body, &c[i == 3 ? 6 : i]), 0);
    for (int i = 0; i < 4; i++) {
        void *ret = NULL;
        assert_int_equal(pthread_join(th[i], &ret), 0);
        assert_non_null(ret);
    }
}

static void test_hex_round_trip(void **state) {
    (void)state;
    uint8_t in[256], back[256];
    char hex[513];
    for (int i = 0; i < 256; i++)
        in[i] = (uint8_t)i;
    crypto_hex_encode(in, 256, hex);
    assert_int_equal(strlen(hex), 512);
    assert_memory_equal(hex, "000102030405060708090a0b0c0d0e0f", 32);
    assert_string_equal(hex + 480, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    assert_int_equal(crypto_hex_decode(hex, back, 256), 0);
    assert_memory_equal(in, back, 256);

    uint8_t b[4];
    assert_int_equal(crypto_hex_decode("DEADbeef", b, 4), 0);
    assert_memory_equal(b, "\xde\xad\xbe\xef", 4);
    assert_int_equal(crypto_hex_decode("", b, 0), 0);
    crypto_hex_encode(b, 0, hex);
    assert_string_equal(hex, "");
}

static void test_hex_bad(void **state) {
    (void)state;
    uint8_t b[4];
    assert_int_equal(crypto_hex_decode("deadbee", b, 4), -1);    /* too short (odd) */
    assert_int_equal(crypto_hex_decode("deadbe", b, 4), -1);     /* too short */
    assert_int_equal(crypto_hex_decode("deadbeef00", b, 4), -1); /* too long */
    assert_int_equal(crypto_hex_decode("deadbeeg", b, 4), -1);   /* not hex */
    assert_int_equal(crypto_hex_decode("dead beef", b, 4), -1);
    assert_int_equal(crypto_hex_decode(" deadbeef", b, 4), -1);
    assert_int_equal(crypto_hex_decode("0xdeadbe", b, 4), -1);
    assert_int_equal(crypto_hex_decode("", b, 4), -1);
    assert_int_equal(crypto_hex_decode("00", b, 0), -1);
    assert_int_equal(crypto_hex_decode(NULL, b, 4), -1);
}

static void test_ct_equal(void **state) {
    (void)state;
    uint8_t a[32], b[32];
    memset(a, 0x5a, sizeof a);
    memcpy(b, a, sizeof a);
    assert_int_equal(crypto_ct_equal(a, b, 32), 1);
    b[31] ^= 1;
    assert_int_equal(crypto_ct_equal(a, b, 32), 0);
    assert_int_equal(crypto_ct_equal(a, b, 31), 1);
    b[31] ^= 1;
    b[0] ^= 0x80;
    assert_int_equal(crypto_ct_equal(a, b, 32), 0);
    assert_int_equal(crypto_ct_equal(a, b, 0), 1);
}

static void test_random_bytes(void **state) {
    (void)state;
    uint8_t a[32], b[32], zero[32] = {0};
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    assert_int_equal(crypto_random_bytes(a, sizeof a), 0);
    assert_int_equal(crypto_random_bytes(b, sizeof b), 0);
    assert_false(crypto_ct_equal(a, b, sizeof a));
    assert_false(crypto_ct_equal(a, zero, sizeof a));
    assert_int_equal(crypto_random_bytes(a, 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_known),     cmocka_unit_test(test_hmac_rfc4231),
        cmocka_unit_test(test_hmac_key_changes), cmocka_unit_test(test_hmac_empty_key_and_message),
        cmocka_unit_test(test_threads),          cmocka_unit_test(test_hex_round_trip),
        cmocka_unit_test(test_hex_bad),          cmocka_unit_test(test_ct_equal),
        cmocka_unit_test(test_random_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
