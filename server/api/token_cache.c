#include "server/api/token_cache.h"

#include "server/core/crypto.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SESSION_ID_LEN 32

typedef struct slot {
    char session_id[SESSION_ID_LEN]; /* not NUL-terminated; all zero: the slot is empty */
    uint8_t digest[32];
    char role[TOKEN_CACHE_ROLE_MAX];
} slot;

/* A recent change (token_cache_forget): puts of its roles are refused until `until`. */
typedef struct change {
    char session_id[SESSION_ID_LEN];
    char role[TOKEN_CACHE_ROLE_MAX]; /* "": every role of the session */
    bool has_digest;
    uint8_t digest[32]; /* the new token, which may be cached */
    uint64_t until_ms;
} change;

struct token_cache {
    size_t mask; /* slots - 1 */
    change changes[TOKEN_CACHE_CHANGES];
    size_t next_change; /* the ring's next (oldest) entry */
    slot slots[];
};

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

token_cache *token_cache_new(size_t slots) {
    if (slots == 0 || (slots & (slots - 1)) != 0) return NULL;
    token_cache *c = calloc(1, sizeof *c + slots * sizeof(slot));
    if (!c) return NULL;
    c->mask = slots - 1;
    return c;
}

void token_cache_free(token_cache *c) {
    free(c);
}

/* The digest's slot: its first bytes are as uniform as any hash of them would be. */
static size_t slot_of(const token_cache *c, const uint8_t digest[32]) {
    uint32_t x = (uint32_t)digest[0] | (uint32_t)digest[1] << 8 | (uint32_t)digest[2] << 16 |
                 (uint32_t)digest[3] << 24;
    return x & c->mask;
}

bool token_cache_get(const token_cache *c, const char *session_id, const uint8_t digest[32],
                     char *role, size_t rolelen) {
    if (!c || rolelen == 0 || strlen(session_id) != SESSION_ID_LEN) return false;
    const slot *s = &c->slots[slot_of(c, digest)];
    /* Both compared whatever the first says; the digest in constant time, as the database
     * lookup does. An empty slot's session id (zeros) matches no valid id. */
    int same_session = memcmp(s->session_id, session_id, SESSION_ID_LEN) == 0;
    int same_digest = crypto_ct_equal(s->digest, digest, 32);
    if (!(same_session & same_digest)) return false;
    size_t n = strnlen(s->role, rolelen - 1);
    memcpy(role, s->role, n);
    role[n] = '\0';
    return true;
}

/* True when a change of the last TOKEN_CACHE_FORGET_MS forbids caching digest for role. */
static bool changed_lately(const token_cache *c, const char *session_id, const uint8_t digest[32],
                           const char *role) {
    uint64_t now = now_ms();
    for (size_t i = 0; i < TOKEN_CACHE_CHANGES; i++) {
        const change *ch = &c->changes[i];
        if (ch->until_ms <= now || memcmp(ch->session_id, session_id, SESSION_ID_LEN) != 0 ||
            (ch->role[0] && strcmp(ch->role, role) != 0))
            continue;
        if (!(ch->has_digest && crypto_ct_equal(ch->digest, digest, 32))) return true;
    }
    return false;
}

void token_cache_put(token_cache *c, const char *session_id, const uint8_t digest[32],
                     const char *role) {
    size_t rlen = strlen(role);
    if (!c || strlen(session_id) != SESSION_ID_LEN || rlen >= TOKEN_CACHE_ROLE_MAX) return;
    if (changed_lately(c, session_id, digest, role)) return;
    slot *s = &c->slots[slot_of(c, digest)];
    memcpy(s->session_id, session_id, SESSION_ID_LEN);
    memcpy(s->digest, digest, 32);
    memcpy(s->role, role, rlen + 1);
}

void token_cache_forget(token_cache *c, const char *session_id, const char *role,
                        const uint8_t *new_digest) {
    if (!c || strlen(session_id) != SESSION_ID_LEN) return;
    size_t rlen = role ? strlen(role) : 0;
    if (rlen >= TOKEN_CACHE_ROLE_MAX) return;
    change *ch = &c->changes[c->next_change];
    c->next_change = (c->next_change + 1) % TOKEN_CACHE_CHANGES;
    memset(ch, 0, sizeof *ch);
    memcpy(ch->session_id, session_id, SESSION_ID_LEN);
    if (role) memcpy(ch->role, role, rlen + 1);
    ch->has_digest = new_digest != NULL;
    if (new_digest) memcpy(ch->digest, new_digest, 32);
    ch->until_ms = now_ms() + TOKEN_CACHE_FORGET_MS;
    /* Rare (a referee's request): every slot is looked at, the cache is indexed by digest. */
    for (size_t i = 0; i <= c->mask; i++) {
        slot *s = &c->slots[i];
        if (memcmp(s->session_id, session_id, SESSION_ID_LEN) == 0 &&
            (!role || strcmp(s->role, role) == 0))
            memset(s, 0, sizeof *s);
    }
}

void token_cache_clear(token_cache *c) {
    if (c) memset(c->slots, 0, (c->mask + 1) * sizeof(slot));
}
