/* How the daemon, verify and re-adjudication resolve an action: the ruleset's sequence of play
 * (rules/common/sequence.h) first, then the module. Above rules/ruleset.h because the sequence is
 * shared code of the rulesets (rules/common), not part of the interface every module sees. */
#ifndef UMPIRE_RULES_RESOLVE_H
#define UMPIRE_RULES_RESOLVE_H

#include "protocol/api_error.h"
#include "rules/ruleset.h"

#include <jansson.h>

/* A pending claim's gate first (rules/common/claims.h: while one is pending only its accept or
 * dispute goes through, 409 claim_pending), then the sequence of play's check (before any die: a
 * side out of turn gets its 409 or 422 and the module never runs; an answer to a claim is not
 * checked, the claim was when made), then the module's resolve(). An action the referee makes out
 * of sequence resolves, and its result gets "override" (what the sequence expected) and its summary
 * starts with the ruling. Odds call resolve() directly: what an attack would do is worth knowing
 * before it is one's turn. */
int rules_resolve(const ruleset *rs, const rules_action *a, const rules_ctx *ctx,
                  const void *action, rules_outcome *out, api_error *err);

/* GET /v1/rulesets/{id}: ruleset_describe_new, with the sequence of play when there is one (new
 * reference). */
json_t *rules_describe_new(const ruleset *rs);

#endif
