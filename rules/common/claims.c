/* Claims pending the other side's acceptance (rules/common/claims.h). */
#include "rules/common/claims.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"
#include "rules/common/terms.h"
#include "rules/common/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const rules_field claims_accept_fields[] = {
    {"claim", "integer", 1, "the number of the pending claim (state.claim.number)"},
    {NULL, NULL, 0, NULL},
};

const rules_field claims_dispute_fields[] = {
    {"claim", "integer", 1, "the number of the pending claim (state.claim.number)"},
    {"reason", "string", 0, "why, for the log (at most 200 bytes)"},
    {NULL, NULL, 0, NULL},
};

static const char *side_of(const char *actor) {
    return actor && strncmp(actor, "side:", 5) == 0 ? actor + 5 : NULL;
}

bool claims_trusted(const rules_ctx *ctx) {
    /* A state without "claims" is a session created before claims (or an inline odds state):
     * its sides' word stands as it did, so its log still verifies. */
    return rules_actor_is_referee(ctx) || ctx->accepted_by ||
           !json_object_get(ctx->state, "claims") ||
           json_is_true(json_object_get(ctx->options, "trust_claims"));
}

int claims_option_check(const json_t *options, api_error *err) {
    const json_t *v = json_object_get(options, "trust_claims");
    if (v && !json_is_boolean(v)) {
        api_error_field(err, "options.trust_claims", "true or false");
        return -1;
    }
    return 0;
}

int claims_pend(const rules_ctx *ctx, const char *action, json_t *fields_take, const char *awaiting,
                const char *text, rules_outcome *out, api_error *err) {
    const char *by = side_of(ctx->actor);
    if (!by) by = "the referee"; /* (the referee's word needs no claim: claims_trusted) */
    const char *unit = json_string_value(json_object_get(ctx->unit, "id"));
    json_int_t number = json_integer_value(json_object_get(ctx->state, "claims")) + 1;
    json_t *claim =
        json_pack("{s:I, s:s, s:o, s:s, s:s}", "number", number, "action", action, "fields",
                  fields_take ? fields_take : json_object(), "by", by, "text", text);
    if (claim && unit) json_object_set_new(claim, "unit", json_string(unit));
    if (claim && awaiting) json_object_set_new(claim, "awaiting", json_string(awaiting));
    json_t *next = json_copy((json_t *)ctx->state);
    if (next && claim) {
        json_object_set(next, "claim", claim);
        json_object_set_new(next, "claims", json_integer(number));
    }
    out->result =
        claim ? json_pack("{s:s, s:b, s:O}", "action", action, "pending", 1, "claim", claim) : NULL;
    json_decref(claim);
    snprintf(out->summary, sizeof out->summary,
             "%s claims: %s. Waiting for %s%s to accept or dispute it (claim %lld)", by, text,
             awaiting ? awaiting : "", awaiting ? " or the referee" : "the referee",
             (long long)number);
    return rules_outcome_take_state(out, next, err);
}

static json_t *pending_details(const json_t *claim) {
    return json_pack("{s:O}", "claim", (json_t *)claim);
}

int claims_gate(const json_t *state, const char *action, api_error *err) {
    bool answer = strcmp(action, "accept") == 0 || strcmp(action, "dispute") == 0;
    const json_t *claim = json_object_get(state, "claim");
    if (answer) return 1;
    if (!claim) return 0;
    const char *awaiting = json_string_value(json_object_get(claim, "awaiting"));
    api_error_set(err, 409, "claim_pending", pending_details(claim),
                  "claim %lld is pending (%s claims: %s): %s%s accepts or disputes it first",
                  (long long)json_integer_value(json_object_get(claim, "number")),
                  json_string_value(json_object_get(claim, "by")),
                  json_string_value(json_object_get(claim, "text")), awaiting ? awaiting : "",
                  awaiting ? " or the referee" : "the referee");
    return -1;
}

static int answer_decode(const json_t *fields, claims_answer *a, bool dispute, api_error *err) {
    static const char *const accept_keys[] = {"claim", NULL};
    static const char *const dispute_keys[] = {"claim", "reason", NULL};
    return json_in_only_keys(fields, "", dispute ? dispute_keys : accept_keys, err) != 0 ||
                   rules_in_int(fields, "", "claim", true, 1, 1 << 30, &a->claim, err) != 0 ||
                   (dispute && rules_in_text(fields, "", "reason", false, a->reason,
                                             sizeof a->reason, err) != 0)
               ? -1
               : 0;
}

int claims_accept_decode(const json_t *fields, void *out, api_error *err) {
    return answer_decode(fields, out, false, err);
}

int claims_dispute_decode(const json_t *fields, void *out, api_error *err) {
    return answer_decode(fields, out, true, err);
}

json_t *claims_answer_encode(const void *action) {
    const claims_answer *a = action;
    json_t *o = json_pack("{s:i}", "claim", a->claim);
    if (o && a->reason[0]) json_object_set_new(o, "reason", json_string(a->reason));
    return o;
}

/* The pending claim that `a` answers, and who answers it; NULL with the error. */
static const json_t *claim_answered(const rules_ctx *ctx, const claims_answer *a, bool withdraw_ok,
                                    api_error *err) {
    const json_t *claim = json_object_get(ctx->state, "claim");
    if (!claim) {
        api_error_set(err, 409, "no_claim", NULL, "no claim is pending in this session");
        return NULL;
    }
    json_int_t number = json_integer_value(json_object_get(claim, "number"));
    if (number != a->claim) {
        api_error_set(err, 422, "claim_mismatch", pending_details(claim),
                      "claim %lld is the one pending, not %d", (long long)number, a->claim);
        return NULL;
    }
    const char *side = side_of(ctx->actor);
    if (!side) return claim; /* the referee answers any */
    const char *by = json_string_value(json_object_get(claim, "by"));
    const char *awaiting = json_string_value(json_object_get(claim, "awaiting"));
    if (by && strcmp(side, by) == 0) {
        if (withdraw_ok) return claim;
        api_error_set(err, 403, "own_claim", pending_details(claim),
                      "%s cannot accept its own claim: %s%s accepts it", side,
                      awaiting ? awaiting : "", awaiting ? " or the referee" : "the referee");
        return NULL;
    }
    if (!awaiting || strcmp(side, awaiting) != 0) {
        api_error_set(err, 403, "forbidden", pending_details(claim),
                      "claim %lld waits for %s%s, not %s", (long long)number,
                      awaiting ? awaiting : "", awaiting ? " or the referee" : "the referee", side);
        return NULL;
    }
    return claim;
}

static const char *answerer(const rules_ctx *ctx) {
    const char *side = side_of(ctx->actor);
    return side ? side : "the referee";
}

int claims_accept_resolve(const rules_ctx *ctx, const rules_action *actions, size_t n,
                          const void *answer, rules_outcome *out, api_error *err) {
    const json_t *claim = claim_answered(ctx, answer, false, err);
    if (!claim) return -1;
    const char *type = json_string_value(json_object_get(claim, "action"));
    const rules_action *row = NULL;
    for (size_t i = 0; type && i < n; i++)
        if (strcmp(actions[i].type, type) == 0) row = &actions[i];
    const char *by = json_string_value(json_object_get(claim, "by"));
    const char *unit_id = json_string_value(json_object_get(claim, "unit"));
    const json_t *unit = unit_id ? rules_state_unit(ctx->state, unit_id) : NULL;
    if (!row || !by || (unit_id && !unit)) {
        api_error_set(err, 422, "invalid_state", pending_details(claim),
                      "the pending claim names an action or unit this session does not have");
        return -1;
    }
    void *decoded = calloc(1, row->decoded_size ? row->decoded_size : 1);
    json_t *before = json_copy((json_t *)ctx->state);
    char actor[80];
    snprintf(actor, sizeof actor, "side:%s", by);
    int rc = -1;
    if (!decoded || !before) {
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        goto done;
    }
    json_object_del(before, "claim");
    if (row->decode(json_object_get(claim, "fields"), decoded, err) != 0) goto done;
    /* The claim was checked against this very state (nothing happens while it is pending), so
     * the action resolves as it would have: only the claimed word now stands. */
    rules_ctx run = *ctx;
    run.state = before;
    run.actor = actor;
    run.unit = unit;
    run.accepted_by = ctx->actor;
    if (row->resolve(&run, decoded, out, err) != 0) goto done;
    if (json_is_object(out->result))
        json_object_set_new(out->result, "claim",
                            json_pack("{s:O, s:s, s:s}", "number", json_object_get(claim, "number"),
                                      "by", by, "accepted_by", answerer(ctx)));
    char said[sizeof out->summary];
    int len =
        snprintf(said, sizeof said, "%s accepts %s's claim %lld: %s", answerer(ctx), by,
                 (long long)json_integer_value(json_object_get(claim, "number")), out->summary);
    if (len >= 0) memcpy(out->summary, said, sizeof said); /* the acceptance first, if cut */
    rc = 0;
done:
    json_decref(before);
    free(decoded);
    return rc;
}

int claims_dispute_resolve(const rules_ctx *ctx, const void *answer, rules_outcome *out,
                           api_error *err) {
    const claims_answer *a = answer;
    const json_t *claim = claim_answered(ctx, a, true, err);
    if (!claim) return -1;
    const char *by = json_string_value(json_object_get(claim, "by"));
    const char *side = side_of(ctx->actor);
    bool withdrawn = side && by && strcmp(side, by) == 0;
    const char *text = json_string_value(json_object_get(claim, "text"));
    if (withdrawn)
        snprintf(out->summary, sizeof out->summary, "%s withdraws its claim %d (%s)", by, a->claim,
                 text);
    else
        snprintf(out->summary, sizeof out->summary,
                 "%s disputes %s's claim %d (%s); nothing is resolved", answerer(ctx), by, a->claim,
                 text);
    if (a->reason[0]) rules_say(out->summary, sizeof out->summary, ": %s", a->reason);
    out->result = json_pack("{s:s, s:i, s:s, s:b}", "action", "dispute", "claim", a->claim, "by",
                            answerer(ctx), "withdrawn", withdrawn);
    if (out->result && a->reason[0])
        json_object_set_new(out->result, "reason", json_string(a->reason));
    json_t *next = json_copy((json_t *)ctx->state);
    if (next) json_object_del(next, "claim");
    return rules_outcome_take_state(out, next, err);
}
