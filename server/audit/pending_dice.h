/* The dice a verifier holds until their server seed is revealed, in bounded memory whatever the
 * session's length: 16 bytes a die (seq, sides, value; the nonces follow each other, so only the
 * first is kept; the players' entropy is written only where it changes), at most
 * PENDING_DICE_MEMORY bytes in memory, the rest spilled to an unnamed temporary file (tmpfile)
 * and read back in order when the seed is revealed. A session may hold 100,000 events of up to
 * 1,000 dice each, all under one seed: kept as JSON or even as a flat array in memory, that is
 * gigabytes per verify. Should no temporary file be available, the records stay in memory
 * (still 16 bytes a die). */
#ifndef UMPIRE_PENDING_DICE_H
#define UMPIRE_PENDING_DICE_H

#include <stddef.h>
#include <stdint.h>

#define PENDING_DICE_MEMORY (64 * 1024)

typedef struct pending_dice pending_dice;

pending_dice *pending_dice_new(void);
void pending_dice_free(pending_dice *p);

/* A die rolled at seq under entropy (64 hex digits, or "" for none). Its nonce must follow the
 * previous die's (the first is free). 0, or -1 (out of memory, a write error, a nonce out of
 * order): the die is not held. */
int pending_dice_add(pending_dice *p, int64_t seq, uint64_t nonce, int sides, int value,
                     const char *entropy);

size_t pending_dice_count(const pending_dice *p);

/* Called for each die, in the order added; a nonzero return stops the walk and is returned. */
typedef int (*pending_die_fn)(void *arg, int64_t seq, uint64_t nonce, int sides, int value,
                              const char *entropy);

/* Walks every die held, then holds none. 0, fn's nonzero return, or -1 when the spilled part
 * cannot be read back. */
int pending_dice_drain(pending_dice *p, pending_die_fn fn, void *arg);

#endif
