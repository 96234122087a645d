#include "server/core/crypto.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

/* HMAC keys up to this length are remembered per thread so that repeated MACs under the same key
 * (every die of a session uses its seed) skip re-keying; longer keys are re-keyed every call. */
#define HMAC_KEY_CACHE 64

/* Per-thread OpenSSL contexts. OpenSSL 3.0 has no allocation-free one-shot SHA-256 or HMAC
 * (SHA256() and HMAC() fetch the algorithm on every call); reusing a context avoids the fetch,
 * leaving only the provider's own small per-init allocation. */
typedef struct crypto_thread {
    EVP_MD_CTX *md_ctx;
    EVP_MAC_CTX *mac_ctx;
    uint8_t key[HMAC_KEY_CACHE];
    size_t keylen;
    int keyed; /* mac_ctx currently holds key[0..keylen) */
} crypto_thread;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static int thread_key_ok;
static EVP_MD *sha256_md;
static EVP_MAC *hmac_mac;

static void thread_state_free(void *p) {
    crypto_thread *t = p;
    EVP_MD_CTX_free(t->md_ctx);
    EVP_MAC_CTX_free(t->mac_ctx);
    OPENSSL_cleanse(t, sizeof *t);
    free(t);
}

static void crypto_init(void) {
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    hmac_mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    thread_key_ok = pthread_key_create(&thread_key, thread_state_free) == 0;
}

/* The calling thread's contexts, created on first use; NULL if they cannot be (the callers then
 * take OpenSSL's slower one-shot path). */
static crypto_thread *thread_state(void) {
    pthread_once(&init_once, crypto_init);
    if (!thread_key_ok) return NULL;
    crypto_thread *t = pthread_getspecific(thread_key);
    if (t) return t;
    t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (pthread_setspecific(thread_key, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

static void crypto_fail(const char *what) {
    fprintf(stderr, "crypto: %s failed, aborting rather than producing a wrong digest\n", what);
    abort();
}

static int sha256_cached(crypto_thread *t, const void *data, size_t len, uint8_t out[32]) {
    if (!sha256_md) return 0;
    if (!t->md_ctx) t->md_ctx = EVP_MD_CTX_new();
    if (!t->md_ctx) return 0;
    unsigned int n = 0;
    return EVP_DigestInit_ex2(t->md_ctx, sha256_md, NULL) &&
           EVP_DigestUpdate(t->md_ctx, data, len) && EVP_DigestFinal_ex(t->md_ctx, out, &n) &&
           n == 32;
}

void crypto_sha256(const void *data, size_t len, uint8_t out[32]) {
    crypto_thread *t = thread_state();
    if (t && sha256_cached(t, data, len, out)) return;
    size_t n = 0;
    if (EVP_Q_digest(NULL, "SHA256", NULL, data, len, out, &n) && n == 32) return;
    crypto_fail("SHA-256");
}

static EVP_MAC_CTX *hmac_ctx_new(void) {
    if (!hmac_mac) return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(hmac_mac);
    if (!ctx) return NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    if (!EVP_MAC_CTX_set_params(ctx, params)) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* Keys the thread's MAC context with key, or only resets it when it already holds that key
 * (EVP_MAC_init with a NULL key re-initialises with the key it has). */
static int hmac_rekey(crypto_thread *t, const uint8_t *key, size_t keylen) {
    if (t->keyed && t->keylen == keylen && CRYPTO_memcmp(t->key, key, keylen) == 0)
        return EVP_MAC_init(t->mac_ctx, NULL, 0, NULL);
    t->keyed = 0;
    if (!EVP_MAC_init(t->mac_ctx, key, keylen, NULL)) return 0;
    if (keylen <= HMAC_KEY_CACHE) {
        memcpy(t->key, key, keylen);
        t->keylen = keylen;
        t->keyed = 1;
    }
    return 1;
}

static int hmac_cached(crypto_thread *t, const uint8_t *key, size_t keylen, const void *msg,
                       size_t msglen, uint8_t out[32]) {
    if (!t->mac_ctx) {
        t->mac_ctx = hmac_ctx_new();
        t->keyed = 0;
    }
    if (!t->mac_ctx) return 0;
    size_t n = 0;
    if (hmac_rekey(t, key, keylen) && EVP_MAC_update(t->mac_ctx, msg, msglen) &&
        EVP_MAC_final(t->mac_ctx, out, &n, 32) && n == 32)
        return 1;
    t->keyed = 0;
    return 0;
}

void crypto_hmac_sha256(const uint8_t *key, size_t keylen, const void *msg, size_t msglen,
                        uint8_t out[32]) {
    /* A NULL key would mean "keep the previous key" to EVP_MAC_init; an empty key is not that. */
    static const uint8_t empty_key[1];
    if (keylen == 0 || !key) {
        key = empty_key;
        keylen = 0;
    }
    static const uint8_t empty_msg[1];
    if (!msg) msg = empty_msg;
    crypto_thread *t = thread_state();
    if (t && hmac_cached(t, key, keylen, msg, msglen, out)) return;
    size_t n = 0;
    if (EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, keylen, msg, msglen, out, 32, &n) &&
        n == 32)
        return;
    crypto_fail("HMAC-SHA256");
}

int crypto_random_bytes(uint8_t *buf, size_t len) {
    while (len > 0) {
        int chunk = len > INT_MAX ? INT_MAX : (int)len;
        if (RAND_bytes(buf, chunk) != 1) return -1;
        buf += chunk;
        len -= (size_t)chunk;
    }
    return 0;
}

int crypto_ct_equal(const void *a, const void *b, size_t len) {
    return CRYPTO_memcmp(a, b, len) == 0;
}

void crypto_hex_encode(const uint8_t *in, size_t len, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 0x0f];
    }
    out[2 * len] = '\0';
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int crypto_hex_decode(const char *hex, uint8_t *out, size_t outlen) {
    if (!hex) return -1;
    /* Each digit is checked before the next is read, so a short string stops at its NUL. */
    for (size_t i = 0; i < outlen; i++) {
        int hi = hex_value(hex[2 * i]);
        if (hi < 0) return -1;
        int lo = hex_value(hex[2 * i + 1]);
        if (lo < 0) return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return hex[2 * outlen] == '\0' ? 0 : -1;
}
