/* The sealed-orders routes (rules/common/orders.h, docs/api.md "Sealed orders"):
 *   PUT  /v1/sessions/{id}/orders/{step}        a side seals (or replaces) its orders:
 *                                               {"orders": [action, ...], "expect_version"?}
 *   POST /v1/sessions/{id}/orders/{step}/close  the referee closes the step: {"expect_version"?}
 * Only the shape is checked here; the writer checks the orders against the session's state and
 * the sequence of play (server/store/session_write.c, run_orders). No Idempotency-Key: a seal is
 * replaced by the next one until the reveal, so a client unsure whether it went through seals
 * again (or sends expect_version). */
#include "server/api/api_internal.h"

#include "protocol/json_in.h"
#include "rules/common/orders.h"

#include <string.h>

static bool step_shape_ok(const char *step) {
    size_t n = strlen(step);
    if (n == 0 || n > ACTION_TYPE_MAX) return false;
    for (const char *p = step; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
    return true;
}

static void submit_orders(api_ctx *ctx, http_request *req, const route_match *m, bool close) {
    const char *id = m->params[0], *step = m->params[1];
    char role[48];
    if (!authorize(ctx, req, id, false, role, sizeof role)) return;
    if (!step_shape_ok(step)) {
        respond_simple_error(req, 404, "not_found", "there is no such step");
        return;
    }
    json_t *body = json_body_new(req);
    if (!body) return;
    static const char *const seal_keys[] = {"orders", "expect_version", NULL};
    static const char *const close_keys[] = {"expect_version", NULL};
    api_error e = {0};
    int64_t expect = 0;
    json_t *orders = NULL;
    int bad = json_in_only_keys(body, "", close ? close_keys : seal_keys, &e);
    if (!bad && (json_in_int(body, "", "expect_version", false, 0, INT64_MAX, &expect) != 0 ||
                 (!close && json_in_array(body, "", "orders", true, ORDERS_MAX, &orders) != 0))) {
        json_in_take_error(&e);
        bad = -1;
    }
    if (bad) {
        json_decref(body);
        respond_error(req, &e);
        return;
    }
    const json_t *ev = json_object_get(body, "expect_version");
    write_job *job = api_session_job_new(req, WRITE_ORDERS, id, role);
    if (!job) {
        json_decref(body);
        return;
    }
    api_copy_str(job->action.type, sizeof job->action.type, step);
    job->action.has_expect_version = ev && !json_is_null(ev);
    job->action.expect_version = expect;
    job->action.fields = close ? NULL : json_incref(orders);
    job->orders_close = close;
    json_decref(body);
    api_submit(ctx, req, job);
}

void api_put_orders(api_ctx *ctx, http_request *req, const route_match *m) {
    submit_orders(ctx, req, m, false);
}

void api_post_orders_close(api_ctx *ctx, http_request *req, const route_match *m) {
    submit_orders(ctx, req, m, true);
}
