/* The HTTP API: routes each request to its handler (a table, like Redis's command table),
 * authenticates, decodes bodies (protocol/), and answers — at once for reads, after the writer
 * committed for writes. Runs on the loop thread. */
#ifndef UMPIRE_API_H
#define UMPIRE_API_H

#include "server/api/assets.h"
#include "server/api/token_cache.h"
#include "server/http/http_server.h"
#include "server/live/live.h"
#include "server/live/webhooks.h"
#include "server/store/db_reads.h"
#include "server/store/store.h"
#include "server/store/writer.h"

typedef struct api_ctx {
    uv_loop_t *loop;
    writer *writer;      /* borrowed */
    db_reads *reads;     /* borrowed: every read of a handler goes through it (db_reads.h) */
    const char *db_path; /* for worker threads, which open read connections of their own */
    const char *synchronous;
    int64_t busy_timeout_ms;
    live *live;               /* borrowed: SSE subscribers */
    token_cache *tokens;      /* borrowed: roles of tokens already authenticated (loop thread) */
    const api_assets *assets; /* borrowed: web client, scenarios (read-only) */
    webhooks *webhooks;       /* borrowed: outbound deliveries */
    const webhook_policy *webhook_policy; /* borrowed: which webhook hosts may be called */
    struct session_view *view; /* the running handler's prefetched reads (api_internal.h) */
} api_ctx;

/* An http_handler_fn; user is the api_ctx. */
void api_handle(http_request *req, void *user);

#endif
