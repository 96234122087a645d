/* The writer thread's cache of session rows. The writer is the only writer of the database, so
 * a row it has read stays true until it writes it again — and it updates the cached row itself,
 * only after the job's changes succeeded. If a whole transaction fails to commit, the writer
 * clears the cache: the rows may hold changes that never reached the disk.
 * Direct-mapped (slot = hash of the id): a bounded number of rows, no eviction bookkeeping.
 *
 * Deferred row writes: an action changes its session's row (version, head, state, nonce) only
 * in the cache and marks it dirty; the writer writes each dirty row once, just before the batch
 * commits (session_cache_flush). A batch of 20 actions on one session then serialises its state
 * once instead of 20 times. A dirty row that another session's row would evict is written first
 * (session_cache_make_room), outside any job's savepoint so that no job's rollback undoes it.
 *
 * Bounded by bytes as well as slots: after each batch, session_cache_trim drops clean rows while
 * their states come to more than storage.session_cache_max_bytes. */
#ifndef UMPIRE_SESSION_CACHE_H
#define UMPIRE_SESSION_CACHE_H

#include "server/store/store.h"

#define SESSION_CACHE_SLOTS 1024

typedef struct session_cache session_cache;

session_cache *session_cache_new(void);
void session_cache_free(session_cache *c);
/* The cached row of id (borrowed; valid until the next put or clear), or NULL. */
session_row *session_cache_borrow(session_cache *c, const char *id);
/* Caches row (taken: the cache owns its JSON values now), replacing whatever held its slot. */
void session_cache_put_take(session_cache *c, session_row *row);
/* Drops every row, dirty or not: after a rollback they may hold changes that were never
 * committed. */
void session_cache_clear(session_cache *c);

/* Drops id's row if it is cached and has no unwritten change: another node changed the session
 * (PostgreSQL, server/store/writer.c). */
void session_cache_forget(session_cache *c, const char *id);

/* Marks id's cached row as changed since it was last written (it must be cached). */
void session_cache_mark_dirty(session_cache *c, const char *id);
/* Writes the dirty row that holds the slot id needs, if it is another session's. 0 or -1. */
int session_cache_make_room(session_cache *c, store_conn *conn, const char *id);
/* Drops clean rows until the states the cache holds (their state_bytes) come to at most
 * max_bytes, the biggest first (each above an even share of max_bytes, then any): a few huge
 * states cannot pin the cache's memory. Dirty rows stay. max_bytes <= 0: no bound. */
void session_cache_trim(session_cache *c, int64_t max_bytes);
/* The state bytes the cached rows hold (for tests). */
int64_t session_cache_bytes(const session_cache *c);
/* Writes every dirty row (inside the open transaction). 0, or -1 when a write failed (the
 * caller rolls the transaction back and clears the cache). */
int session_cache_flush(session_cache *c, store_conn *conn);

#endif
