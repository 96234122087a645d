/* The dice of server and seeded modes: a rules/dice_source.h source whose every die is the
 * contract's HMAC die (server/dice/dice_fair.h) of the session's seed and the die's nonce, with
 * the players' entropy in force mixed in. */
#ifndef UMPIRE_SEEDED_SOURCE_H
#define UMPIRE_SEEDED_SOURCE_H

#include "rules/dice_source.h"

#include <stdint.h>

/* Rolls from seed with nonces next_nonce, next_nonce + 1, ...; NULL when memory runs out. */
dice_source *dice_source_new_seeded(const uint8_t seed[32], const char *session_id,
                                    uint64_t next_nonce);
/* Mixes the players' contributions in force into every later die (the 64 hex digits of their
 * digest, server/dice/dice_fair.h); NULL or "" for none. ds must come from
 * dice_source_new_seeded. */
void dice_source_set_entropy(dice_source *ds, const char *digest_hex);

#endif
