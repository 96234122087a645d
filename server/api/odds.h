/* Exact odds: runs an action's handler over every combination of the dice it asks for (an
 * enumerating dice source) and aggregates identical outcomes. Writes nothing; pure like the
 * handler itself, so it runs on a worker thread.
 *
 * Refusals are decided before the work: a few probe resolutions (every die at 1, every die at
 * its highest, and ODDS_PROBES_RANDOM fixed pseudo-random ones) show the dice one resolution
 * rolls and the JSON values it builds. An action is refused (422 odds_too_large) at once when
 * one probed resolution alone rolls dice with more combinations than the limit; the limit is
 * max_combinations, lowered for an action whose resolutions are large so that the
 * enumeration's whole work (combinations times values built per run) stays within
 * max_combinations * ODDS_WORK_PER_COMBINATION. The enumeration itself never runs the handler
 * more than limit + 1 times. */
#ifndef UMPIRE_ODDS_H
#define UMPIRE_ODDS_H

#include "protocol/api_error.h"
#include "rules/ruleset.h"

#include <stdatomic.h>

#define ODDS_MAX_COMBINATIONS 1000000
/* Work units per allowed combination: a run's work is 1 + the JSON values its result, new
 * state and extra events hold (a generic 2d1000: 21, and a generic roll keeps max_combinations
 * up to 32; a magic-realm round of a knight and four bats: about 310, which allows about
 * 100,000 combinations). */
#define ODDS_WORK_PER_COMBINATION 32
#define ODDS_PROBES_RANDOM        8

/* ctx->dice is ignored (the enumerator is used). The answer:
 * {"outcomes":[{"p","count"?,"summary","result"}], "enumerated", "exact", "of"?}; NULL with a
 * 422 (odds_too_large, or the handler's own refusal) in err. odds_too_large details: "limit"
 * (max_combinations), "dice" and "dice_combinations" (the dice one resolution rolls, never 0
 * for an action that rolls, and the product of their sides), "combinations_at_least" (a proven
 * lower bound, when one above the limit applied is known), and "combinations_allowed" with
 * "work_per_combination" when the work bound lowered the limit for this action. */
json_t *odds_enumerate_new(const rules_action *a, const void *decoded, const rules_ctx *ctx,
                           long max_combinations, api_error *err);
/* As odds_enumerate_new, stopping between two resolutions once *cancel is true (the client has
 * gone: server/api/work_pool.h): NULL with 503 cancelled in err. cancel may be NULL. */
json_t *odds_enumerate_cancellable_new(const rules_action *a, const void *decoded,
                                       const rules_ctx *ctx, long max_combinations,
                                       const atomic_bool *cancel, api_error *err);

#endif
