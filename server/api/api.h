/* The HTTP API: routes each request to its handler (a table, like Redis's command table),
 * authenticates, decodes bodies (protocol/), and answers — at once for reads, after the writer
 * committed for writes. Runs on the loop thread. */
#ifndef UMPIRE_API_H
#define UMPIRE_API_H

#include "server/api/assets.h"
#include "server/api/client_rates.h"
#include "server/api/token_cache.h"
#include "server/api/work_pool.h"
#include "server/http/http_server.h"
#include "server/live/live.h"
#include "server/live/webhooks.h"
#include "server/store/db_reads.h"
#include "server/store/store.h"
#include "server/store/writer.h"

#include <stdbool.h>
#include <stdint.h>

/* What one client may ask (config [limits] and [work]; main.c fills it from the configuration).
 * A client is http_request.client. */
typedef struct api_limits {
    bool session_creation_key; /* only the operator key may create sessions */
    const char *operator_key;  /* borrowed */
    int64_t clients_max;       /* clients remembered for rates */
    api_rate rates[API_RATE_COUNT];
    int64_t max_setup_bytes;
    int64_t odds_threads, odds_queue_max, verify_threads, verify_queue_max, work_per_client;
} api_limits;

typedef struct api_ctx {
    uv_loop_t *loop;
    api_limits limits;
    client_rates *rates; /* owned by main: per-client token buckets (server/api/client_rates.h) */
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
    /* Owned by main.c: odds and verify each on bounded threads of their own (limits
     * odds_threads, verify_threads, ...). */
    work_pool *odds_pool, *verify_pool;
} api_ctx;

/* An http_handler_fn; user is the api_ctx. */
void api_handle(http_request *req, void *user);

#endif
