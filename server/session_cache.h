/* The writer thread's cache of session rows. The writer is the only writer of the database, so
 * a row it has read stays true until it writes it again — and it updates the cached row itself,
 * only after the job's changes succeeded. If a whole transaction fails to commit, the writer
 * clears the cache: the rows may hold changes that never reached the disk.
 * Direct-mapped (slot = hash of the id): a bounded number of rows, no eviction bookkeeping. */
#ifndef UMPIRE_SESSION_CACHE_H
#define UMPIRE_SESSION_CACHE_H

#include "server/store.h"

#define SESSION_CACHE_SLOTS 1024

typedef struct session_cache session_cache;

session_cache *session_cache_new(void);
void session_cache_free(session_cache *c);
/* The cached row of id (borrowed; valid until the next put or clear), or NULL. */
session_row *session_cache_borrow(session_cache *c, const char *id);
/* Caches row (taken: the cache owns its JSON values now), replacing whatever held its slot. */
void session_cache_put_take(session_cache *c, session_row *row);
void session_cache_clear(session_cache *c);

#endif
