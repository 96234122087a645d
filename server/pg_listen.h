/* PostgreSQL LISTEN umpire_events: how a node learns of other nodes' commits (server/writer.c
 * NOTIFYs inside each transaction that moved a session on; PostgreSQL delivers it on commit).
 *
 * A thread of its own holds the listening connection, so the loop thread never waits on the
 * network; it hands the loop the ids of sessions that changed (deduplicated, bounded: past
 * PG_LISTEN_PENDING_MAX ids it asks for "every session" instead). After a (re)connection it also
 * asks for every session: notifications sent while it was away are lost, and the callers catch
 * up by reading the database, so nothing is missed, only later. */
#ifndef UMPIRE_PG_LISTEN_H
#define UMPIRE_PG_LISTEN_H

#include <uv.h>

#define PG_LISTEN_PENDING_MAX 4096

typedef struct pg_listen pg_listen;

/* on_change runs on the loop thread: session_id, or NULL for "any session may have changed". */
typedef void (*pg_listen_fn)(void *arg, const char *session_id);

/* Starts the thread on uri. NULL on failure (no memory, no thread). It connects in the
 * background and keeps reconnecting (once a second) while the database is away. */
pg_listen *pg_listen_new(uv_loop_t *loop, const char *uri, pg_listen_fn on_change, void *arg);
/* Notifications received so far (for tests and logs). */
unsigned long pg_listen_received(pg_listen *l);
/* Stops the thread, closes its connection and frees l once its handle is closed. */
void pg_listen_stop(pg_listen *l);

#endif
