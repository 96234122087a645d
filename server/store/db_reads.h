/* Reads of the loop thread. The loop thread must never wait on a network database, so every
 * read it needs goes through here, written as two functions: `fn` runs the queries (given a
 * connection), `done` answers with what fn left in arg.
 *
 * - SQLite (a local file, reads in microseconds under WAL): inline. db_reads_submit calls fn
 *   with the loop's own reader connection and then done, both before it returns.
 * - PostgreSQL: a bounded pool of threads, each with a connection of its own. fn runs on one of
 *   them; done runs later on the loop thread (uv_async). At most queue_max reads wait; more are
 *   refused at once (the caller answers 503), so a slow database cannot grow the queue without
 *   bound.
 *
 * Callers must handle both: done may run before db_reads_submit returns (inline) or long
 * after (pool). Whatever fn and done touch must stay alive until done has run. */
#ifndef UMPIRE_DB_READS_H
#define UMPIRE_DB_READS_H

#include "server/store/store.h"

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef struct db_reads db_reads;

/* fn: on a pool thread (or the loop thread, inline). It must not touch loop-thread state. */
typedef void (*db_read_fn)(store_conn *conn, void *arg);
/* done: on the loop thread, once fn has returned. */
typedef void (*db_read_done)(void *arg);

/* Inline reads on reader (borrowed: the loop thread's connection). */
db_reads *db_reads_new_inline(store_conn *reader_borrow);
/* A pool of `threads` threads on db (each opens its own connection; NULL with a sentence in err
 * if one cannot). */
db_reads *db_reads_new_pool(uv_loop_t *loop, const char *db, int threads, int64_t queue_max,
                            char *err, size_t errlen);
/* True for the inline kind (done runs inside db_reads_submit). */
bool db_reads_inline(const db_reads *r);
/* 0: fn and done will run (inline: they already have). -1: the queue is full or the pool is
 * stopping; neither will run, arg is still the caller's. */
int db_reads_submit(db_reads *r, db_read_fn fn, db_read_done done, void *arg);
/* Runs what is queued, answers it, stops the threads, closes their connections and frees r;
 * `closed` runs on the loop thread once that is done (inline: at once). */
void db_reads_stop(db_reads *r, void (*closed)(void *arg), void *arg);

#endif
