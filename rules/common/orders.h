/* Sealed orders (issue 24, item 1): a simultaneous phase (seq_phase.sealable) in a session whose
 * setup.turn.sealed is true is played by each acting side sealing its actions of the phase as
 * orders, which nobody reads until all are revealed together.
 *
 * What lives here is the pure part, shared by the writer and verify:
 *   - the gate: while a sealed phase is current, its own actions (its steps and end_phase) are
 *     not taken one by one (409 orders_sealed): they come as orders;
 *   - the check of a side's orders when it seals them: each is one of the phase's steps for the
 *     side, names one of its own units, decodes, and resolves on the state as it is (with dice
 *     that are no one's: legality is decided before the first die, rules/ruleset.h), each on the
 *     state the one before leaves; so a reveal cannot be refused;
 *   - the state after a side seals: state.turn.done gains it (everyone sees who has sealed);
 *   - the reveal, an action of its own ("orders_revealed", rules_action_find): every side's
 *     orders applied in the order of play, the phase ended, then the phase's `then` action
 *     (magic-realm: the round of the plays), dice rolled only now; re-adjudicated by verify as
 *     any action is.
 * The commitment (SHA-256 over a fresh 32-byte salt and the canonical JSON of the orders), the
 * private storage and the events are the daemon's (server/store/session_write.c); verify checks
 * every revealed side's orders against its last commitment (server/audit/verify.c). */
#ifndef UMPIRE_RULES_ORDERS_H
#define UMPIRE_RULES_ORDERS_H

#include "protocol/api_error.h"
#include "rules/common/sequence.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>

#define ORDERS_MAX      32 /* actions in one side's orders */
#define ORDERS_REVEALED "orders_revealed"

/* The sealed phase now, or NULL: the session seals it and it is current. t is filled either way
 * when the state has a turn record. */
const char *orders_step_now(const ruleset *rs, const json_t *state, seq_turn *t);

/* rules_resolve's gate: 0, or -1 with a 409 orders_sealed when the action is one of the sealed
 * phase's own (a step of it, or end_phase). */
int orders_gate(const ruleset *rs, const json_t *state, const char *type, api_error *err);

/* Checks `role`'s orders (the request's array) for `step` against the state: 409 no_sealed_step
 * (no sealed phase is current), wrong_step (another is: details.step), not_your_turn (the side
 * has no step in it); 403 forbidden (the referee seals no orders); 400 invalid_field (not an
 * array of at most ORDERS_MAX objects with a string type); 422 invalid_orders (details.index and
 * details.error, the rules' own refusal of that order). 0 with *recorded (new reference): the
 * orders as they are recorded, each {type, unit?, ...the ruleset's encoding}; the commitment is
 * over its canonical JSON. */
int orders_check(const ruleset *rs, const json_t *state, const json_t *options, const char *role,
                 const char *step, const json_t *orders, json_t **recorded, api_error *err);

/* The state after `side` sealed (new reference): state.turn.done gains it. NULL without memory or
 * when no sealed phase is current. */
json_t *orders_sealed_state_new(const ruleset *rs, const json_t *state, const char *side);

/* The orders_sealed event's summary: "<side> has sealed its orders for the Plays phase of turn
 * 1" (what the diary and webhooks show; verify checks it). */
void orders_sealed_summary(const ruleset *rs, const json_t *state, const char *side, char *buf,
                           size_t cap);

/* Every side with a step in the sealed phase has sealed. */
bool orders_all_sealed(const ruleset *rs, const json_t *state);

/* The reveal's action row (type ORDERS_REVEALED): fields {step, turn, orders: [{side, salt,
 * actions}], closed?}. rules_resolve resolves it (it needs the ruleset). Never a client's action:
 * POST /actions looks actions up with ruleset_action, which does not know it. */
extern const rules_action orders_reveal_action;
int orders_reveal_resolve(const ruleset *rs, const rules_ctx *ctx, const void *action,
                          rules_outcome *out, api_error *err);

/* The ruleset's action of that type, or the reveal's row (what a log's events may be). */
const rules_action *rules_action_find(const ruleset *rs, const char *type);

#endif
