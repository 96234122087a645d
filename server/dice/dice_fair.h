/* The provably fair die of the contract (section "Dice"). */
#ifndef UMPIRE_DICE_FAIR_H
#define UMPIRE_DICE_FAIR_H

#include <stdint.h>

/* Contract, Dice: a word w is accepted for S sides when w < 2^32 - (2^32 mod S); the face is
 * 1 + (w mod S). Returns 1 and sets *face when accepted, else 0 (*face untouched). sides >= 1;
 * sides == 0 rejects every word. Every face is then accepted by exactly floor(2^32 / S) words. */
int dice_fair_accept(uint32_t w, uint32_t sides, uint32_t *face);

/* The die with nonce n and S sides: HMAC-SHA256(key = seed, message = "<session_id>:<n>"), read
 * as eight big-endian uint32 words, the first accepted word wins; if none is, the message
 * "<session_id>:<n>:1", then ":2", ... Returns the face, 1..sides, for any sides in
 * 1..2^32-1 (at worst about 1.004 MACs per die on average). Returns 0 when sides == 0, or when
 * a session id longer than about 200 bytes needs a heap buffer and memory runs out. */
uint32_t dice_fair_roll(const uint8_t seed[32], const char *session_id, uint64_t nonce,
                        uint32_t sides);
/* The same die with the players' entropy in force (contract, Dice): entropy_digest is the hex
 * SHA-256 of the canonical JSON of every contribution in force, and the message becomes
 * "<session_id>:<n>:<entropy_digest>" (retries append ":<k>"). NULL or "": dice_fair_roll. */
uint32_t dice_fair_roll_mixed(const uint8_t seed[32], const char *session_id, uint64_t nonce,
                              const char *entropy_digest, uint32_t sides);

#endif
