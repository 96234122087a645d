/* Shared by rules modules: the answers every module gives about the units an action names, and
 * the copy-on-write state a resolution ends with (rules/ruleset.h: states are immutable; the
 * state after shares every unchanged unit with the state before). */
#ifndef UMPIRE_RULES_UNITS_H
#define UMPIRE_RULES_UNITS_H

#include "protocol/api_error.h"
#include "rules/ruleset.h"

#include <jansson.h>

/* The acting unit's id (ctx->unit.id, borrowed), or NULL with a 422 unit_required whose message
 * is "<needs> in field 'unit'" ("this action needs the acting unit"). */
const char *rules_acting_id(const rules_ctx *ctx, const char *needs, api_error *err);
/* A 422 unknown_unit: no unit `id` in the session (details: field, unit). */
void rules_unknown_unit(api_error *err, const char *field, const char *id);
/* A 409 `code` ("unit_eliminated", ...) for a unit no longer in play: "<noun> '<id>' <how>". */
void rules_unit_gone(api_error *err, const char *code, const char *field, const char *noun,
                     const char *id, const char *how);
/* Whether the action is the referee's (who may rule what a side may not give: raw stats, a
 * modifier's value, a cause). */
bool rules_actor_is_referee(const rules_ctx *ctx);
/* 0 when `actor` may act with a unit of `side`: the referee any, a side its own; else a 403. */
int rules_check_owner(const char *actor, const char *id, const char *side, const char *field,
                      api_error *err);

/* A shallow copy of state with a shallow copy of its "units" array (both new; *units is borrowed
 * from the copy), for a resolution to set its changed units into. NULL when out of memory. */
json_t *rules_state_units_copy_new(const json_t *state, json_t **units);
/* Ends a resolution: out->new_state = next_take. 0; or, when out->result or next_take is missing
 * (out of memory), -1 with out cleared and a 503. */
int rules_outcome_take_state(rules_outcome *out, json_t *next_take, api_error *err);

#endif
