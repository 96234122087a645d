/* Where a rules module's dice come from. The module asks for rolls; the source answers from the
 * session's seed (server and seeded modes: the contract's HMAC die function, one nonce per die)
 * or from the values the table rolled (manual mode), and records every roll for the event's
 * `dice` list. The same module code therefore resolves live actions, replays logged ones and
 * (with an enumerating source) computes exact odds. */
#ifndef UMPIRE_DICE_SOURCE_H
#define UMPIRE_DICE_SOURCE_H

#include "protocol/jcs.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICE_MAX_PER_ACTION 1000    /* dice one action may roll, all rolls together */
#define DICE_MAX_SIDES      1000000 /* sides of one die */

typedef struct dice_source dice_source;

/* Server and seeded modes draw each die from a function of its nonce: the contract's HMAC die,
 * which the daemon provides (server/dice/seeded_source.h: dice_source_new_seeded), so that the
 * rules, which only ask for rolls, depend on no cryptography. face() returns the face, 1..sides.
 * ctx_size bytes at ctx are copied into the source (at most DICE_DRAWER_CTX_MAX), so a drawer
 * costs no allocation of its own; dice_source_drawer_ctx() is that copy. */
#define DICE_DRAWER_CTX_MAX 256
typedef int (*dice_face_fn)(const void *ctx, uint64_t nonce, int sides);
/* Rolls with nonces next_nonce, next_nonce + 1, ...; NULL when ctx_size is too large or memory
 * runs out. */
dice_source *dice_source_new_drawn(dice_face_fn face, const void *ctx, size_t ctx_size,
                                   uint64_t next_nonce);
void *dice_source_drawer_ctx(dice_source *ds);
/* Rolls the given values in order (manual mode); values are copied. */
dice_source *dice_source_new_manual(const int64_t *values, size_t count);
/* Replays logged values in order (verification): from a seeded action with nonces first_nonce,
 * first_nonce + 1, ... (manual = false), or from a manual one (manual = true, no nonces). Records
 * exactly as the live source would, so a re-run can be compared with the log. A value outside the
 * sides the handler now asks for, or too few / too many values, marks it unsatisfied. */
dice_source *dice_source_new_replay(const int64_t *values, size_t count, bool manual,
                                    uint64_t first_nonce);
/* Enumerates every combination of the dice a handler asks for (exact odds). Run the handler, read
 * the leaf's probability, call dice_source_enum_advance, repeat while it returns 1. */
dice_source *dice_source_new_enum(void);
void dice_source_free(dice_source *ds);

/* Rolls `count` dice of `sides` faces for `purpose` ("roll", "fumble", ...), described by
 * `notation` ("2d6", "2d6h"), into values[0..count). Returns 0, or -1 when the action exceeds
 * DICE_MAX_PER_ACTION or a bound (the caller answers 422). In manual mode a missing or
 * out-of-range value is not an error here: the source substitutes 1, marks itself unsatisfied and
 * keeps recording, so the caller can list every roll the action needs. */
int dice_roll(dice_source *ds, const char *purpose, const char *notation, int count, int sides,
              int *values);
/* Sets the decisive value of the last roll (the total, the higher die, ...). */
void dice_set_value(dice_source *ds, int64_t value);

/* The event's `dice` list: [{"purpose","notation","values","value","nonce"}] (manual:
 * "manual": true and no nonce). New reference. */
json_t *dice_source_records_new(const dice_source *ds);
/* The same records appended to out in canonical form: byte for byte
 * jcs_dump_new(dice_source_records_new(ds)), without building the JSON values. */
void dice_source_records_jcs(const dice_source *ds, jcs_out *out);
/* The next unused nonce (seeded sources). */
uint64_t dice_source_next_nonce(const dice_source *ds);

/* Manual mode: true when the supplied values were too few, too many or out of range. */
bool dice_source_unsatisfied(const dice_source *ds);
/* Manual mode: [{"purpose","notation","count","sides"}] for every roll the action asked for. New
 * reference. */
json_t *dice_source_needed_new(const dice_source *ds);
size_t dice_source_supplied(const dice_source *ds);

/* Every die rolled so far, in order: its nonce (0 in manual mode), sides and value. */
size_t dice_source_die_count(const dice_source *ds);
void dice_source_die(const dice_source *ds, size_t i, uint64_t *nonce, int *sides, int *value);

/* Enumeration: the probability of the combination just run (the product of 1/sides). */
double dice_source_enum_probability(const dice_source *ds);
/* Moves to the next combination; 0 when every combination has been run. The records of the run
 * are cleared. */
int dice_source_enum_advance(dice_source *ds);
/* True when the handler asked for dice differently on the same prefix of values (it is not a
 * pure function of its dice): enumeration results are then meaningless. */
bool dice_source_enum_inconsistent(const dice_source *ds);

#endif
