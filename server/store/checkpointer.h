/* WAL checkpoints, mostly on a thread of their own.
 *
 * By default SQLite checkpoints inside the COMMIT that takes the WAL past 1000 pages: that
 * commit copies every page back into the database file and fsyncs it, and every action queued
 * behind it waits (several milliseconds: the durable p99). Here the writer connection's WAL
 * hook pokes this thread, which copies the bulk with a PASSIVE checkpoint on a connection of its
 * own, and fsyncs the database file, while the writer goes on committing; the writer then copies
 * the few frames that arrived meanwhile, which lets SQLite start the WAL over (see on_wal_commit),
 * so the WAL stays about as small as with automatic checkpoints. */
#ifndef UMPIRE_CHECKPOINTER_H
#define UMPIRE_CHECKPOINTER_H

#include "server/store/store.h"

#include <stdint.h>

/* SQLite's own autocheckpoint threshold, kept. */
#define CHECKPOINT_WAL_PAGES 1000

typedef struct checkpointer checkpointer;

/* Takes ownership of conn (a second connection to the writer's database) and starts the thread.
 * NULL on failure (conn is closed). */
checkpointer *checkpointer_new(store_conn *conn_take);
/* Installs the WAL hook on the writer's connection: after each commit that leaves at least
 * CHECKPOINT_WAL_PAGES pages in the WAL, the thread is woken. Call on the writer's thread (or
 * before it starts). */
void checkpointer_watch(checkpointer *cp, sqlite3 *writer_db);
/* For tests: checkpoints the thread ran, rounds the writer finished off, and the result of the
 * thread's last one (SQLITE_OK, SQLITE_BUSY...). */
void checkpointer_stats(checkpointer *cp, uint64_t *runs, uint64_t *finishes, int *last_rc);
/* Removes the hook from the writer's connection (before checkpointer_free). */
void checkpointer_unwatch(sqlite3 *writer_db);
/* Stops the thread (waiting for a running checkpoint) and closes its connection. Call after the
 * writer has stopped committing and its hook was removed. NULL is a no-op. */
void checkpointer_free(checkpointer *cp);

#endif
