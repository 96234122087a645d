#include "server/dice/seeded_source.h"

#include "server/dice/dice_fair.h"

#include <stdio.h>
#include <string.h>

/* What a seeded source draws from, copied into the source (rules/dice_source.h). */
typedef struct seeded_drawer {
    uint8_t seed[32];
    char session_id[72];
    char entropy[65]; /* hex digest of the players' contributions in force, "" for none */
} seeded_drawer;

static int seeded_face(const void *ctx, uint64_t nonce, int sides) {
    const seeded_drawer *d = ctx;
    return (int)dice_fair_roll_mixed(d->seed, d->session_id, nonce, d->entropy, (uint32_t)sides);
}

dice_source *dice_source_new_seeded(const uint8_t seed[32], const char *session_id,
                                    uint64_t next_nonce) {
    seeded_drawer d;
    memset(&d, 0, sizeof d);
    memcpy(d.seed, seed, 32);
    strncpy(d.session_id, session_id, sizeof d.session_id - 1);
    return dice_source_new_drawn(seeded_face, &d, sizeof d, next_nonce);
}

void dice_source_set_entropy(dice_source *ds, const char *digest_hex) {
    seeded_drawer *d = dice_source_drawer_ctx(ds);
    snprintf(d->entropy, sizeof d->entropy, "%s", digest_hex ? digest_hex : "");
}
