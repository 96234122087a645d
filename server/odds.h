/* Exact odds: runs an action's handler over every combination of the dice it asks for (an
 * enumerating dice source) and aggregates identical outcomes. Writes nothing; pure like the
 * handler itself, so it runs on a worker thread. */
#ifndef UMPIRE_ODDS_H
#define UMPIRE_ODDS_H

#include "protocol/api_error.h"
#include "rules/ruleset.h"

#define ODDS_MAX_COMBINATIONS 1000000

/* ctx->dice is ignored (the enumerator is used). The answer:
 * {"outcomes":[{"p","count"?,"summary","result"}], "enumerated", "exact", "of"?}; NULL with a
 * 422 (odds_too_large, or the handler's own refusal) in err. */
json_t *odds_enumerate_new(const rules_action *a, const void *decoded, const rules_ctx *ctx,
                           long max_combinations, api_error *err);

#endif
