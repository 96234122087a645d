/* PostgreSQL LISTEN: how a node learns what other nodes did (several nodes on one database).
 *
 * - umpire_events "<session> <version>": a writer committed events (server/store/writer.c NOTIFYs
 *   inside each transaction that moved a session on; PostgreSQL delivers it on commit).
 * - umpire_webhooks "<session>": a session's webhook list was replaced.
 * - umpire_tokens "<session>": a token of the session was rotated or revoked; the node forgets
 *   the session's cached tokens (server/api/token_cache.h).
 * - Webhook delivery: one node at a time sends webhooks, the one whose listening connection
 *   holds a PostgreSQL advisory lock (server/live/webhooks.h, standby). The lock goes with the
 *   connection, so when that node stops (or loses the database), another node's listener,
 *   which tries for it every second, takes over. Safety first: a node that merely cannot reach
 *   the database while the server still holds its lock keeps everyone else waiting.
 *
 * A thread of its own holds the connection, so the loop thread never waits on the network; it
 * hands the loop what changed, deduplicated and bounded: past PG_LISTEN_PENDING_MAX it reports
 * PG_LISTEN_ALL instead. After a (re)connection it also reports PG_LISTEN_ALL: notifications
 * sent while it was away are lost, and the callers catch up by reading the database. */
#ifndef UMPIRE_PG_LISTEN_H
#define UMPIRE_PG_LISTEN_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#define PG_LISTEN_PENDING_MAX 4096

typedef enum {
    PG_LISTEN_EVENTS,   /* session_id committed events, up to version */
    PG_LISTEN_WEBHOOKS, /* session_id's webhook list changed */
    PG_LISTEN_TOKENS,   /* a token of session_id was rotated or revoked */
    PG_LISTEN_ALL,      /* anything may have changed (reconnected, or too much to list) */
    PG_LISTEN_LEADER,   /* this node now delivers webhooks */
    PG_LISTEN_FOLLOWER, /* another node does (or nobody can tell: the connection is gone) */
} pg_listen_what;

typedef struct pg_listen pg_listen;

/* Runs on the loop thread. session_id: for EVENTS and WEBHOOKS, else NULL. */
typedef void (*pg_listen_fn)(void *arg, pg_listen_what what, const char *session_id,
                             int64_t version);

/* Starts the thread on uri. NULL on failure (no memory, no thread). It connects in the
 * background and keeps reconnecting (once a second) while the database is away. */
pg_listen *pg_listen_new(uv_loop_t *loop, const char *uri, pg_listen_fn on_change, void *arg);
/* Start-up, before the loop runs: waits (at most timeout_ms) for the thread's first connection
 * and its first try for the webhook lock. True when this node holds it: the caller sets its
 * webhooks' role from the answer (later changes come through on_change). */
bool pg_listen_wait_ready(pg_listen *l, uint64_t timeout_ms);
/* Stops the thread, closes its connection (releasing the lock) and frees l once its handle is
 * closed. */
void pg_listen_stop(pg_listen *l);

#endif
