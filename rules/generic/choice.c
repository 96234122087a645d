/* generic's `choose` (rules/generic/choice.h). */
#include "rules/generic/choice.h"

#include "protocol/json_in.h"

#include <stdio.h>
#include <string.h>

int generic_choose_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"choice", NULL};
    generic_choice *c = out;
    const char *choice = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0) return -1;
    if (json_in_string(fields, "", "choice", true, CHOICE_MAX, &choice) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (*choice == '\0') {
        api_error_field(err, "choice", "a non-empty string of at most 200 bytes");
        return -1;
    }
    snprintf(c->choice, sizeof c->choice, "%s", choice);
    return 0;
}

json_t *generic_choose_encode(const void *action) {
    const generic_choice *c = action;
    return json_pack("{s:s}", "choice", c->choice);
}

int generic_choose_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                           api_error *err) {
    const generic_choice *c = action;
    if (!ctx->actor || strncmp(ctx->actor, "side:", 5) != 0) {
        api_error_set(err, 422, "rule_violation", json_pack("{s:s}", "field", "choice"),
                      "a choice is a side's own: the referee makes none");
        return -1;
    }
    const char *side = ctx->actor + 5;
    json_t *state = json_copy((json_t *)ctx->state);
    json_t *choices = json_copy(json_object_get(ctx->state, "choices"));
    if (!json_is_object(choices)) {
        json_decref(choices);
        choices = json_object();
    }
    out->result =
        json_pack("{s:s, s:s, s:s}", "action", "choose", "side", side, "choice", c->choice);
    if (!state || !choices || !out->result) {
        json_decref(state);
        json_decref(choices);
        rules_outcome_clear(out);
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        return -1;
    }
    json_object_set_new(choices, side, json_string(c->choice));
    json_object_set_new(state, "choices", choices);
    out->new_state = state;
    snprintf(out->summary, sizeof out->summary, "%s chooses: %s", side, c->choice);
    return 0;
}
