/* rules_resolve: the sequence of play's check, then the module (rules/common/resolve.h). */
#include "rules/common/resolve.h"

#include "rules/common/claims.h"
#include "rules/common/orders.h"
#include "rules/common/sequence.h"

#include <stdio.h>
#include <string.h>

int rules_resolve(const ruleset *rs, const rules_action *a, const rules_ctx *ctx,
                  const void *action, rules_outcome *out, api_error *err) {
    char why[256] = "";
    int in_sequence = 0;
    /* The reveal of sealed orders checks its step itself and runs each order as its side's. */
    if (a == &orders_reveal_action) return orders_reveal_resolve(rs, ctx, action, out, err);
    /* A pending claim holds the session until it is answered (rules/common/claims.h); an answer
     * is outside the sequence of play, which the claim was checked against when made. */
    int answer = claims_gate(ctx->state, a->type, err);
    if (answer < 0) return -1;
    /* A sealed phase's own actions come as orders (rules/common/orders.h). */
    if (orders_gate(rs, ctx->state, a->type, err) != 0) return -1;
    if (rs->sequence && answer == 0) {
        seq_turn t;
        int got = seq_turn_read(rs->sequence, ctx->state, &t, err);
        if (got < 0) return -1;
        const char *side = ctx->unit ? json_string_value(json_object_get(ctx->unit, "side")) : NULL;
        if (got > 0 &&
            (in_sequence = seq_check(rs->sequence, &t, a->type, ctx->actor ? ctx->actor : "", side,
                                     why, sizeof why, err)) < 0)
            return -1;
    }
    if (a->resolve(ctx, action, out, err) != 0) return -1;
    if (in_sequence == 1) {
        if (json_is_object(out->result))
            json_object_set_new(out->result, "override", json_string(why));
        char ruled[sizeof out->summary];
        int n = snprintf(ruled, sizeof ruled, "Referee's ruling, out of sequence (%s): %s", why,
                         out->summary);
        if (n >= 0) memcpy(out->summary, ruled, sizeof ruled); /* the ruling first, if cut */
    }
    return 0;
}

json_t *rules_describe_new(const ruleset *rs) {
    json_t *d = ruleset_describe_new(rs);
    if (d && rs->sequence) json_object_set_new(d, "sequence", seq_describe_new(rs->sequence));
    return d;
}
