/* PUT and GET /v1/sessions/{id}/webhooks: the referee's list of URLs told of each committed
 * event (server/live/webhooks.h), and their delivery state. */
#include "server/api/api_internal.h"

#include "protocol/webhook_request.h"
#include "server/core/alloc_guard.h"
#include "server/live/webhooks.h"
#include "server/live/webhooks_sync.h"
#include "server/store/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Answers {"webhooks": [...]} for the session. */
static void respond_list(api_ctx *ctx, http_request *req, const char *session_id) {
    json_t *list = webhooks_describe_new(ctx->webhooks, session_id);
    if (!list) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    respond_json(req, 200, json_pack("{s:o}", "webhooks", list), NULL);
}

/* 1 with the referee authenticated; 0 when it has answered. */
static int referee_only(api_ctx *ctx, http_request *req, const char *id) {
    char role[48];
    if (!authorize(ctx, req, id, false, role, sizeof role)) return 0;
    if (strcmp(role, "referee") != 0) {
        respond_simple_error(req, 403, "forbidden",
                             "only the referee's token may see or set webhooks");
        return 0;
    }
    return 1;
}

static void on_webhooks_stored(write_job *job) {
    http_request *req = job->user;
    api_ctx *ctx = job->owner;
    /* The room api_put_webhooks reserved becomes the hooks' own (or is given back). */
    webhooks_unreserve(ctx->webhooks, req->client, job->webhooks->n);
    if (job->status == 200) webhooks_sync_local_set(job->session_id);
    if (job->status != 200) {
        http_respond_take(req, job->status, JSON_TYPE, NULL, job->body, job->body_len);
        job->body = NULL;
    } else if (webhooks_set_by(ctx->webhooks, job->session_id, job->webhooks, job->version,
                               req->client) != 0) {
        respond_simple_error(req, 500, "internal_error",
                             "the webhooks were stored but could not be started (out of memory); "
                             "they start when the daemon restarts");
    } else {
        respond_list(ctx, req, job->session_id);
    }
    write_job_free(job);
}

void api_put_webhooks(api_ctx *ctx, http_request *req, const route_match *m) {
    const char *id = m->params[0];
    if (!referee_only(ctx, req, id)) return;
    json_t *body = json_body_new(req);
    if (!body) return;
    write_job *job = write_job_new(WRITE_WEBHOOKS);
    webhook_list *list = job ? malloc(sizeof *list) : NULL;
    if (!list) {
        write_job_free(job);
        json_decref(body);
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    job->webhooks = list;
    api_error e = {0};
    int rc = webhook_list_decode(body, list, &e);
    json_decref(body);
    for (size_t i = 0; rc == 0 && i < list->n; i++) {
        char host[WEBHOOK_HOST_MAX], field[64];
        bool private_ok;
        snprintf(field, sizeof field, "webhooks[%zu].url", i);
        switch (webhook_policy_check_url(ctx->webhook_policy, list->hooks[i].url, host, sizeof host,
                                         &private_ok)) {
        case WEBHOOK_URL_OK:
            break;
        case WEBHOOK_URL_BAD:
            api_error_field(&e, field,
                            "an http:// or https:// URL with a host and no user:password@");
            rc = -1;
            break;
        case WEBHOOK_URL_NOT_ALLOWED:
            api_error_set(&e, 422, "webhook_host_not_allowed",
                          json_pack("{s:s, s:s}", "field", field, "host", host),
                          "webhooks may only call the hosts the daemon's operator allows "
                          "(webhooks.allow_hosts); '%s' is not one of them",
                          host);
            rc = -1;
            break;
        }
    }
    /* The shares of max_total (server/live/webhooks.h): held from here until the write is
     * answered, so that PUTs in flight together cannot pass them. */
    size_t held = 0;
    switch (rc == 0 ? webhooks_reserve(ctx->webhooks, req->client, id, list->n, &held)
                    : WEBHOOKS_ROOM) {
    case WEBHOOKS_ROOM:
        break;
    case WEBHOOKS_FULL: {
        size_t max_total = webhooks_max_total(ctx->webhooks);
        api_error_set(&e, 503, "webhooks_full", json_pack("{s:I}", "limit", (json_int_t)max_total),
                      "the daemon already holds as many webhooks as it may (webhooks.max_total "
                      "= %zu); nothing was stored",
                      max_total);
        rc = -1;
        break;
    }
    case WEBHOOKS_CLIENT_FULL: {
        /* The client's own doing, so a 4xx; no Retry-After: the share frees up only when its
         * hooks are removed or expire (webhooks.idle_expire_ms). */
        size_t share = webhooks_max_per_client(ctx->webhooks);
        api_error_set(&e, 429, "webhooks_client_full",
                      json_pack("{s:I, s:I, s:I, s:s}", "limit", (json_int_t)share, "held",
                                (json_int_t)held, "asked", (json_int_t)list->n, "key",
                                "webhooks.max_per_client"),
                      "this client's sessions already hold as many webhooks as one client may "
                      "(webhooks.max_per_client = %zu); nothing was stored",
                      share);
        rc = -1;
        break;
    }
    }
    if (rc != 0) {
        write_job_free(job);
        respond_error(req, &e);
        return;
    }
    snprintf(job->session_id, sizeof job->session_id, "%s", id);
    snprintf(job->role, sizeof job->role, "referee");
    job->done = on_webhooks_stored;
    /* As api_submit, but a job the writer never takes must give its reservation back (its done
     * callback, which would, is not called then). */
    job->user = req;
    job->owner = ctx;
    bool no_memory = alloc_guard_failed();
    if (no_memory || writer_submit(ctx->writer, job) != 0) {
        webhooks_unreserve(ctx->webhooks, req->client, list->n);
        write_job_free(job);
        if (no_memory)
            respond_simple_error(
                req, 503, "out_of_memory",
                "the daemon ran out of memory reading the request; nothing was written");
        else
            respond_simple_error(
                req, 503, "overloaded",
                "the daemon has too many writes queued; nothing was written, retry");
    }
}

void api_get_webhooks(api_ctx *ctx, http_request *req, const route_match *m) {
    const char *id = m->params[0];
    if (!referee_only(ctx, req, id)) return;
    respond_list(ctx, req, id);
}
