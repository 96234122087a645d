/* Claims: a fact the sources leave to the table and the setup does not give, stated by the side
 * it favours, waits for the other side (issue 23: "no fact from the acting side alone").
 *
 * Without a setup firing or melee table a miniatures shot's hits are the shooter's word, and a
 * magic-realm attack's declared hit (intercept, undercut) the attacker's. A side's action that
 * rests on such a word does not resolve: once it is legal (every check made, no die drawn) it
 * becomes the session's pending claim,
 *
 *   "claim": {"number": 2, "action": "fire", "unit": "redcoats", "fields": {...as sent...},
 *             "by": "british", "actor": "side:british", "awaiting": "french",
 *             "text": "redcoats fires at fr-guard: 2 hits"}
 *
 * and the side it acts against (`awaiting`) or the referee answers it: `accept` resolves the
 * action as made, its dice drawn then, its result and summary saying who accepted; `dispute`
 * drops it (the claimant may withdraw it the same way) and nothing is resolved. While a claim is
 * pending nothing else happens in the session (409 claim_pending, rules_resolve): the state the
 * claim was checked against is the state it resolves on, so no refusal can follow its dice.
 *
 * The referee's own word needs no acceptance, and options.trust_claims (the referee's choice at
 * creation) lets every side's word stand, as before claims existed. */
#ifndef UMPIRE_RULES_CLAIMS_H
#define UMPIRE_RULES_CLAIMS_H

#include "protocol/api_error.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>

#define CLAIM_REASON_MAX 200 /* bytes of a dispute's reason */

/* Whether the acting side's word stands without the other side's: the referee's action, an
 * accepted claim being resolved (ctx->accepted_by), options.trust_claims, or a state without
 * "claims" (the module's init_state sets it to 0: a session created before claims keeps taking
 * the side's word, so its log re-adjudicates as it was written). */
bool claims_trusted(const rules_ctx *ctx);

/* Makes the action the session's pending claim instead of resolving it; the module calls it
 * once the action is legal and before its first die. `action` is the action type, `fields_take`
 * its encoding (the module's encode(), taken), `awaiting` the side it acts against (NULL: only
 * the referee may answer), `text` what is claimed ("redcoats fires at fr-guard: 2 hits"). Fills
 * out (result {"action", "claim": {...}, "pending": true}, summary, new_state with state.claim);
 * 0, or -1 with a 503 when out of memory. */
int claims_pend(const rules_ctx *ctx, const char *action, json_t *fields_take, const char *awaiting,
                const char *text, rules_outcome *out, api_error *err);

/* The gate rules_resolve applies before the sequence of play: -1 with a 409 claim_pending
 * (details: the claim) when a claim is pending and `action` does not answer it; 1 when `action`
 * answers one (accept, dispute: the sequence of play does not apply, the claim was checked when
 * made); 0 otherwise. */
int claims_gate(const json_t *state, const char *action, api_error *err);

/* The accept and dispute actions: {"claim": N, "reason"?} (reason: dispute only). */
typedef struct claims_answer {
    int claim;
    char reason[CLAIM_REASON_MAX + 1];
} claims_answer;

int claims_accept_decode(const json_t *fields, void *out, api_error *err);
int claims_dispute_decode(const json_t *fields, void *out, api_error *err);
json_t *claims_answer_encode(const void *action);

/* accept: the awaited side or the referee (403 own_claim for the claimant, 403 forbidden for
 * another side; 409 no_claim, 422 claim_mismatch when `claim` is not the pending one). Resolves
 * the claimed action of `actions` (the module's table, n rows) as its claimant made it, with
 * ctx->accepted_by set; its result gets "claim" and its summary starts "french accepts british's
 * claim: ". */
int claims_accept_resolve(const rules_ctx *ctx, const rules_action *actions, size_t n,
                          const void *answer, rules_outcome *out, api_error *err);
/* dispute: the awaited side, the referee, or the claimant withdrawing it. Drops the claim. */
int claims_dispute_resolve(const rules_ctx *ctx, const void *answer, rules_outcome *out,
                           api_error *err);

/* The rows every ruleset with claims adds to its action table (fields and titles). */
extern const rules_field claims_accept_fields[];
extern const rules_field claims_dispute_fields[];
#define CLAIMS_ACCEPT_TITLE                                                                        \
    "Accept the pending claim (the side it acts against, or the referee): the action resolves "    \
    "as claimed"
#define CLAIMS_DISPUTE_TITLE                                                                       \
    "Dispute the pending claim (or withdraw one's own): nothing is resolved, the referee may rule"

/* The accept and dispute rows of a module's action table, `accept` being the module's resolve
 * for accept (CLAIMS_ACCEPT_RESOLVE below), `key` and `finish` its odds functions. */
// clang-format off
#define CLAIMS_ACTION_ROWS(accept, key, finish)                                                    \
    {"accept", CLAIMS_ACCEPT_TITLE, claims_accept_fields, sizeof(claims_answer),                  \
     claims_accept_decode, claims_answer_encode, accept, key, finish},                           \
    {"dispute", CLAIMS_DISPUTE_TITLE, claims_dispute_fields, sizeof(claims_answer),               \
     claims_dispute_decode, claims_answer_encode, claims_dispute_resolve, key, finish}
// clang-format on

/* Defines `static int name(ctx, action, out, err)`, the accept of a module whose action table is
 * the array `table` (declared before it; the function is declared before the table with
 * CLAIMS_ACCEPT_DECLARE). */
#define CLAIMS_ACCEPT_DECLARE(name)                                                                \
    static int name(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err)
#define CLAIMS_ACCEPT_RESOLVE(name, table)                                                         \
    CLAIMS_ACCEPT_DECLARE(name) {                                                                  \
        return claims_accept_resolve(ctx, table, sizeof table / sizeof table[0], action, out,      \
                                     err);                                                         \
    }

/* The options.trust_claims field, for a module's option table and option check. */
#define CLAIMS_OPTION_DESCRIPTION                                                                  \
    "true: a side's word on hits (or a declared hit) stands without the other side's acceptance "  \
    "(default false: it is a claim the other side or the referee accepts or disputes)"
/* 0 when options.trust_claims is absent or a boolean; else a 400 invalid_field naming it. */
int claims_option_check(const json_t *options, api_error *err);

#endif
