/* Players' entropy (contract, Dice: "Players' entropy"). Any side or the referee may contribute
 * a seed of their own; while contributions are in force, every die's message carries the digest
 * c of all of them, so a die depends on the server's committed seed AND on what the players
 * chose after that commitment. The server cannot pick its seed to suit contributions it had not
 * seen, and the players cannot predict dice without the server's secret seed.
 *
 * The session keeps them as a JSON object {role: {"seed": "...", "nonce": n}}: the seed in force
 * for each role, and the session's next nonce when the role last contributed (a role changes its
 * contribution at most once between two dice: that bounds the events a client can append). A
 * reveal ends them all: the fresh seed was drawn after they were known. */
#ifndef UMPIRE_ENTROPY_H
#define UMPIRE_ENTROPY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENTROPY_SEED_MAX 64 /* bytes of one contribution */

/* 1 to ENTROPY_SEED_MAX printable ASCII bytes (0x20..0x7E), no NUL among the len bytes. */
bool entropy_seed_valid(const char *seed, size_t len);
/* {role: seed} of every contribution in force (new reference; an empty object for NULL). */
json_t *entropy_in_force_new(const json_t *entropy);
/* c: the lowercase hex SHA-256 of the RFC 8785 canonical JSON of entropy_in_force_new(entropy);
 * "" when none is in force. 0, or -1 when the stored value is malformed or memory runs out. */
int entropy_digest(const json_t *entropy, char out[65]);
/* The same digest of an {role: seed} object as given (the verifier checks logged ones). */
int entropy_digest_of_in_force(const json_t *in_force, char out[65]);
/* True when role contributed while the session's next nonce was next_nonce: no die has been
 * rolled since, so its contribution may not change yet. */
bool entropy_pending(const json_t *entropy, const char *role, int64_t next_nonce);
/* A copy of entropy (NULL: none) with role's contribution set to seed at next_nonce. New
 * reference, NULL on failure. */
json_t *entropy_with_new(const json_t *entropy, const char *role, const char *seed,
                         int64_t next_nonce);

#endif
