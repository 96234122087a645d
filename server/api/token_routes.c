/* The token routes: the referee rotates any role's token (its own too) or revokes a side's
 *   POST /v1/sessions/{id}/tokens/rotate  {"role": "referee" | "side:<name>", "expect_version"?}
 *   POST /v1/sessions/{id}/tokens/revoke  {"role": "side:<name>", "expect_version"?}
 * The writer records the change as an event (server/store/session_write.c); once it commits,
 * this node forgets the old token before answering (server/api/token_cache.h), and the others
 * when PostgreSQL tells them.
 *
 * No Idempotency-Key: a stored answer would keep the new token in the database in clear, where
 * only digests are kept. A client unsure whether its rotation went through retries with
 * expect_version (409 version_conflict if it did) and, if it lost the new token, rotates again. */
#include "server/api/api_internal.h"

#include "protocol/json_in.h"

#include <stdlib.h>
#include <string.h>

/* Side names are at most 32 characters (the contract's bounds): "side:" and the name. */
#define ROLE_MAX (5 + 32)

/* The role asked for, in the shape of a role; existence is the writer's check (422). */
static bool role_shape_ok(const char *role, size_t len) {
    if (len != strlen(role)) return false; /* a NUL inside */
    if (strcmp(role, "referee") == 0) return true;
    return len > 5 && len <= ROLE_MAX && strncmp(role, "side:", 5) == 0;
}

static void on_tokens_done(write_job *job) {
    http_request *req = job->user;
    api_ctx *ctx = job->owner;
    if (job->status >= 200 && job->status < 300) {
        /* Committed: the old token is refused from the next request on. */
        token_cache_forget(ctx->tokens, job->session_id, job->token_role,
                           job->token_revoke ? NULL : job->token_digest);
        live_publish(ctx->live, job->session_id);
        webhooks_publish(ctx->webhooks, job->session_id);
    }
    /* A rotation's answer holds the new token: no cache may keep it. */
    http_respond_take(req, job->status, JSON_TYPE, "Cache-Control: no-store\r\n", job->body,
                      job->body_len);
    job->body = NULL;
    write_job_free(job);
}

static void post_token_change(api_ctx *ctx, http_request *req, const route_match *m, bool revoke) {
    const char *id = m->params[0];
    char role[48];
    if (!authorize(ctx, req, id, false, role, sizeof role)) return;
    if (strcmp(role, "referee") != 0) {
        respond_simple_error(req, 403, "forbidden",
                             "only the referee may rotate or revoke a session's tokens");
        return;
    }
    json_t *body = json_body_new(req);
    if (!body) return;
    static const char *const keys[] = {"role", "expect_version", NULL};
    api_error e = {0};
    const char *target = NULL;
    int64_t expect = 0;
    int bad = json_in_only_keys(body, "", keys, &e);
    if (!bad && (json_in_string(body, "", "role", true, ROLE_MAX, &target) != 0 ||
                 json_in_int(body, "", "expect_version", false, 0, INT64_MAX, &expect) != 0)) {
        json_in_take_error(&e);
        bad = -1;
    }
    if (bad) {
        json_decref(body);
        respond_error(req, &e);
        return;
    }
    if (!role_shape_ok(target, json_string_length(json_object_get(body, "role")))) {
        api_error_field(&e, "role", "\"referee\" or \"side:<name>\"");
        json_decref(body);
        respond_error(req, &e);
        return;
    }
    const json_t *ev = json_object_get(body, "expect_version");
    write_job *job = api_session_job_new(req, WRITE_TOKENS, id, role);
    if (!job) {
        json_decref(body);
        return;
    }
    api_copy_str(job->token_role, sizeof job->token_role, target);
    job->token_revoke = revoke;
    job->has_expect_version = ev && !json_is_null(ev);
    job->expect_version = expect;
    job->done = on_tokens_done;
    json_decref(body);
    api_submit(ctx, req, job);
}

void api_post_token_rotate(api_ctx *ctx, http_request *req, const route_match *m) {
    post_token_change(ctx, req, m, false);
}

void api_post_token_revoke(api_ctx *ctx, http_request *req, const route_match *m) {
    post_token_change(ctx, req, m, true);
}
