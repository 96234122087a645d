#include "server/api/token_cache.h"

#include "server/core/crypto.h"

#include <stdlib.h>
#include <string.h>

#define SESSION_ID_LEN 32

typedef struct slot {
    char session_id[SESSION_ID_LEN]; /* not NUL-terminated; all zero: the slot is empty */
    uint8_t digest[32];
    char role[TOKEN_CACHE_ROLE_MAX];
} slot;

struct token_cache {
    size_t mask; /* slots - 1 */
    slot slots[];
};

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

void token_cache_put(token_cache *c, const char *session_id, const uint8_t digest[32],
                     const char *role) {
    size_t rlen = strlen(role);
    if (!c || strlen(session_id) != SESSION_ID_LEN || rlen >= TOKEN_CACHE_ROLE_MAX) return;
    slot *s = &c->slots[slot_of(c, digest)];
    memcpy(s->session_id, session_id, SESSION_ID_LEN);
    memcpy(s->digest, digest, 32);
    memcpy(s->role, role, rlen + 1);
}
