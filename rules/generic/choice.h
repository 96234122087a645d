/* generic's `choose` action: a side's choice (a bid, a plan, a pick), sealed when the session's
 * setup names the Sealed choice phase and seals it (setup.turn {phases: ["choice", ...], sealed:
 * true}; rules/common/orders.h). */
#ifndef UMPIRE_RULES_GENERIC_CHOICE_H
#define UMPIRE_RULES_GENERIC_CHOICE_H

#include "rules/ruleset.h"

#define CHOICE_MAX 200 /* bytes of a choice */

typedef struct generic_choice {
    char choice[CHOICE_MAX + 1];
} generic_choice;

int generic_choose_decode(const json_t *fields, void *out, api_error *err);
json_t *generic_choose_encode(const void *action);
/* The choice is the acting side's (the referee chooses for no one: 422); state.choices {side:
 * choice} keeps each side's last. No die. */
int generic_choose_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                           api_error *err);

#endif
