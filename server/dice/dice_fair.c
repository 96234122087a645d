#include "server/dice/dice_fair.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/crypto.h"

/* Messages for session ids up to about 200 bytes are built on the stack. */
#define DICE_MSG_STACK 256
/* ":" and the decimal digits of a uint64_t. */
#define DICE_U64_FIELD 21
/* The hex digest of the contributions in force. */
#define DICE_DIGEST_HEX 64

int dice_fair_accept(uint32_t w, uint32_t sides, uint32_t *face) {
    if (sides == 0) return 0;
    /* 2^32 - (2^32 mod S) is the largest multiple of S not above 2^32; below it every residue
     * occurs equally often, which is what makes the die fair. 2^32 mod S equals (2^32 - S) mod S,
     * which 32-bit arithmetic computes as (0 - S) % S, and w < 2^32 - r is w <= 2^32 - 1 - r. */
    uint32_t rem = (0u - sides) % sides;
    if (w > UINT32_MAX - rem) return 0;
    *face = 1 + w % sides;
    return 1;
}

static uint32_t word_be(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Appends ":<v>" at msg + len (room for DICE_U64_FIELD + 1 bytes) and returns the new length. */
static size_t append_u64(char *msg, size_t len, uint64_t v) {
    int n = snprintf(msg + len, DICE_U64_FIELD + 1, ":%" PRIu64, v);
    return len + (size_t)n;
}

/* One MAC of the contract's sequence; returns 1 and the face if one of its words is accepted. */
static int roll_once(const uint8_t seed[32], const char *msg, size_t len, uint32_t sides,
                     uint32_t *face) {
    uint8_t mac[32];
    crypto_hmac_sha256(seed, 32, msg, len, mac);
    for (int i = 0; i < 8; i++) {
        if (dice_fair_accept(word_be(mac + 4 * i), sides, face)) return 1;
    }
    return 0;
}

uint32_t dice_fair_roll(const uint8_t seed[32], const char *session_id, uint64_t nonce,
                        uint32_t sides) {
    return dice_fair_roll_mixed(seed, session_id, nonce, NULL, sides);
}

uint32_t dice_fair_roll_mixed(const uint8_t seed[32], const char *session_id, uint64_t nonce,
                              const char *entropy_digest, uint32_t sides) {
    if (sides == 0) return 0;
    size_t id_len = strlen(session_id);
    size_t mix_len = entropy_digest ? strlen(entropy_digest) : 0;
    size_t cap = id_len + 2 * DICE_U64_FIELD + (mix_len ? mix_len + 1 : 0) + 1;
    char stack[DICE_MSG_STACK + 2 * DICE_DIGEST_HEX];
    char *msg = cap <= sizeof stack ? stack : malloc(cap);
    if (!msg) return 0;
    memcpy(msg, session_id, id_len);
    size_t base = append_u64(msg, id_len, nonce); /* "<session_id>:<n>" */
    if (mix_len) {
        /* Players' entropy in force: "<session_id>:<n>:<c>" (contract, Dice). */
        msg[base++] = ':';
        memcpy(msg + base, entropy_digest, mix_len);
        base += mix_len;
    }
    uint32_t face = 0;
    /* Each retry is needed with probability below 1/256 (a word is rejected with probability
     * below 1/2), so in practice this takes one MAC, rarely two. */
    size_t len = base;
    uint64_t retry = 0;
    while (!roll_once(seed, msg, len, sides, &face))
        len = append_u64(msg, base, ++retry); /* "<session_id>:<n>[:<c>]:<retry>" */
    if (msg != stack) free(msg);
    return face;
}
