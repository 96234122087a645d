/* Webhooks: after each commit, every event of a session is POSTed to the URLs its referee set
 * (PUT /v1/sessions/{id}/webhooks), as Discord's webhook body ({"content": summary}) or as the
 * raw event. Outbound HTTP is libcurl's multi socket interface driven by this libuv loop, so a
 * slow or dead receiver costs the game nothing: the loop never waits on it.
 *
 * Like live.c's subscribers, a hook holds no queue of events: it remembers the last seq it
 * delivered (or gave up on) and reads the next one from the database when it is free. One
 * request is in flight per hook, so a receiver sees events in order. The backlog is bounded by
 * queue_max: a hook further behind skips the oldest events (counted as dropped). Failures are
 * retried with exponential backoff (429's Retry-After honoured) up to max_attempts, then the
 * event is given up (counted as failed) and the next one goes.
 *
 * Delivery state lives in memory; the list of URLs is stored (store_webhooks_replace and
 * store_webhooks_each, server/store/store.h). After a restart a hook resumes from the session's
 * version at start-up. Loop thread only.
 *
 * The database is read through db_reads (server/store/db_reads.h): the session's version on
 * publish, and each event before it is sent (that read holds the hook's in-flight slot, as its
 * request then does). Inline for SQLite; on a reader thread for PostgreSQL, so the loop never waits
 * on the database either.
 *
 * Shares, so that nobody takes what everyone needs (docs/config.md, [webhooks]): a session holds
 * at most WEBHOOKS_MAX hooks, a client max_per_client (webhooks_reserve), every session together
 * max_total; the hooks of one host hold at most max_slots_per_host of the WEBHOOK_INFLIGHT_MAX
 * delivery slots, and a host that times out gets less time (server/live/webhook_hosts.h).
 *
 * Idle expiry: a session's hooks that have seen no event for idle_expire_ms (counted from the
 * later of their PUT and the session's last event) stop, in state "expired", and no longer count
 * towards max_total nor their client's share. The session's next event starts them again if there
 * is room for them then (from that event on); else they stay expired and say why. The clock is
 * this node's: a restart starts every stored hook afresh. */
#ifndef UMPIRE_WEBHOOKS_H
#define UMPIRE_WEBHOOKS_H

#include "protocol/webhook_request.h"
#include "server/live/webhook_policy.h"
#include "server/store/db_reads.h"
#include "server/store/store.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef struct webhooks_limits {
    int64_t timeout_ms;     /* per attempt */
    int64_t max_attempts;   /* per event */
    int64_t retry_base_ms;  /* first backoff; doubles per attempt, at most WEBHOOK_BACKOFF_MAX_MS */
    int64_t queue_max;      /* events a hook may fall behind before the oldest are dropped */
    int64_t max_total;      /* hooks over every session (about 0.6 KiB each) */
    int64_t max_per_client; /* hooks one client may have set (server/live/webhook_clients.h) */
    int64_t max_slots_per_host; /* delivery slots one host's hooks may hold at once */
    int64_t idle_expire_ms;     /* a session's hooks expire after no event for this long; 0 never */
} webhooks_limits;

#define WEBHOOK_BACKOFF_MAX_MS 60000
#define WEBHOOK_DISCORD_MAX    2000 /* characters of a Discord message's content */

typedef struct webhooks webhooks;

/* reads is borrowed: stop it (db_reads_stop, which answers every read still queued) only after
 * webhooks_stop. policy is borrowed and must outlive the dispatcher (it judges each connection's
 * address). NULL on failure. */
webhooks *webhooks_new(uv_loop_t *loop, db_reads *reads, const webhook_policy *policy,
                       const webhooks_limits *limits);
/* Replaces a session's hooks (an empty list removes them); each starts after `version`. Every
 * URL must have passed webhook_policy_check_url. 0, or -1 out of memory (nothing changed). */
int webhooks_set(webhooks *w, const char *session_id, const webhook_list *list, int64_t version);
/* As webhooks_set, the hooks counted as client's (http_request.client; NULL: no client's), for
 * max_per_client. */
int webhooks_set_by(webhooks *w, const char *session_id, const webhook_list *list, int64_t version,
                    const char *client);

/* Whether client may replace session_id's hooks by n hooks: the room over every session
 * (max_total) and the client's share (max_per_client). A list no longer than the session's
 * current (unexpired) one always has room. With room, it is held (counted as the client's and
 * in the total) until webhooks_unreserve, so that PUTs in flight together cannot pass a bound
 * between them: unreserve once the write is answered, before webhooks_set_by. */
typedef enum {
    WEBHOOKS_ROOM = 0,
    WEBHOOKS_FULL,        /* max_total */
    WEBHOOKS_CLIENT_FULL, /* max_per_client; *held is what the client holds */
} webhooks_room;
webhooks_room webhooks_reserve(webhooks *w, const char *client, const char *session_id, size_t n,
                               size_t *held);
void webhooks_unreserve(webhooks *w, const char *client, size_t n);
/* [webhooks] max_per_client. */
size_t webhooks_max_per_client(const webhooks *w);
/* The session committed events: hooks that are free send the next one (once its version is
 * read; a read the pool refuses is tried again shortly). */
void webhooks_publish(webhooks *w, const char *session_id);
/* As webhooks_publish when the caller knows the session's version (e.g. from a PostgreSQL
 * notification's payload): no read. */
void webhooks_publish_version(webhooks *w, const char *session_id, int64_t version);
/* Several nodes on one PostgreSQL database: only one of them sends webhooks
 * (server/store/pg_listen.h). In standby a node keeps its hooks (GET answers them, state "standby")
 * and follows each session's version, without sending; leaving standby, it sends what comes from
 * then on. */
void webhooks_set_standby(webhooks *w, bool standby);
/* True when the session's hooks are exactly list (the same URLs and formats, in order): a list
 * reloaded from the database that did not change keeps its hooks' delivery state. */
bool webhooks_same_list(webhooks *w, const char *session_id, const webhook_list *list);
/* Removes the hooks of every session not in ids[0..n) (sorted). */
void webhooks_remove_except(webhooks *w, const char (*ids)[33], size_t n);
/* [{"id", "url", "format", "delivery": {...}}] for the session (docs/api.md), new reference;
 * NULL out of memory. Reads nothing: "pending" counts up to the last version published. */
json_t *webhooks_describe_new(webhooks *w, const char *session_id);
/* Hooks registered and not expired, over every session; and of one session. */
size_t webhooks_count(const webhooks *w);
size_t webhooks_session_count(webhooks *w, const char *session_id);

/* The most hooks over every session ([webhooks] max_total): a PUT that would pass it gets 503.
 * Anyone may create sessions, so the total needs a bound of its own. */
size_t webhooks_max_total(const webhooks *w);
/* Cancels every transfer and timer and closes the handles (the loop then runs them out). */
void webhooks_stop(webhooks *w);
/* After webhooks_stop and the loop has run. Reads still in flight then (answered by
 * db_reads_stop) free w after the last of them. */
void webhooks_free(webhooks *w);

#endif
