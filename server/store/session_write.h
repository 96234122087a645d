/* The writes of a session — create, resolve an action, reveal the dice seed, contribute entropy,
 * rotate or revoke a token — each run by
 * the writer thread inside a transaction savepoint (server/store/writer.c). Each fills job->status
 * and job->body; on a non-2xx status the writer rolls the savepoint back, so nothing is written. */
#ifndef UMPIRE_SESSION_WRITE_H
#define UMPIRE_SESSION_WRITE_H

#include "server/store/session_cache.h"
#include "server/store/store.h"
#include "server/store/writer.h"

/* cache: the writer's session rows (server/store/session_cache.h), updated only on success; lim:
 * what one session may hold. */
void session_write_run(store_conn *conn, session_cache *cache, const writer_limits *lim,
                       write_job *job);

#endif
