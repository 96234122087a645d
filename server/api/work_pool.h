/* A bounded pool of worker threads for one kind of long work (exact odds, log verification), so
 * one kind never waits behind another and neither queues without bound (libuv's shared pool
 * has four threads and an unbounded queue: 16 pipelined odds requests held a verify for 50 s).
 *
 * A job is submitted on the loop thread with the client it works for; the pool refuses it at
 * once when its queue is full (WORK_POOL_FULL) or when that client already has per_client jobs
 * of this pool running or queued (WORK_POOL_TOO_BUSY). run() is called on a worker thread, then
 * done() back on the loop thread (through a uv_async), exactly once per accepted job.
 *
 * Cancellation: while jobs are in the pool, a loop-thread timer asks each job's abandoned()
 * (e.g. http_request_abandoned: the client has gone) and sets the job's cancel flag. A queued
 * job so marked never runs (done() comes with cancelled set); a running one sees the flag
 * through work_job_cancelled() between its steps and returns early. */
#ifndef UMPIRE_WORK_POOL_H
#define UMPIRE_WORK_POOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#define WORK_POOL_CLIENT_MAX 64 /* an IPv6 address as text is at most 45 bytes */
/* How often the daemon asks whether the clients of its jobs are still there: a job of a client
 * that has gone stops within about this long (a walk over at most threads + queue_max jobs). */
#define WORK_POOL_CHECK_MS 100

typedef struct work_pool work_pool;
typedef struct work_job work_job;

struct work_job {
    /* Set by the caller before work_pool_submit. */
    void (*run)(work_job *job);                  /* worker thread */
    void (*done)(work_job *job, bool cancelled); /* loop thread; may free the job */
    bool (*abandoned)(work_job *job);            /* loop thread: true once nobody waits */
    void *data;
    /* The pool's. */
    atomic_bool cancel;
    char client[WORK_POOL_CLIENT_MAX];
    work_job *prev, *next; /* in the pool's list of jobs (queued and running) */
    work_job *next_ready;  /* in the queue, or in the list of jobs done */
    bool running;
};

typedef enum { WORK_POOL_OK = 0, WORK_POOL_FULL = -1, WORK_POOL_TOO_BUSY = -2 } work_pool_rc;

/* threads >= 1; queue_max: jobs waiting for a thread; per_client: jobs (running and queued) of
 * one client; check_ms: how often abandoned() is asked. NULL when out of memory or threads could
 * not start. */
work_pool *work_pool_new(uv_loop_t *loop, const char *name, int threads, int queue_max,
                         int per_client, unsigned check_ms);

/* Loop thread. On WORK_POOL_OK the pool holds job until done(); otherwise nothing was taken.
 * client: who asked (copied, truncated to WORK_POOL_CLIENT_MAX - 1 bytes). */
work_pool_rc work_pool_submit(work_pool *p, work_job *job, const char *client);

/* Worker thread, inside run(): true once the job is cancelled; long work stops and returns. */
static inline bool work_job_cancelled(const work_job *job) {
    return atomic_load_explicit(&job->cancel, memory_order_relaxed);
}

/* Jobs queued and running (loop thread). */
size_t work_pool_pending(const work_pool *p);

/* Loop thread: cancels every job (queued ones are done() with cancelled, from this call),
 * waits for the running ones to return, joins the threads and closes the pool's handles. The
 * running jobs' done() is called from this call too. NULL-safe. */
void work_pool_stop(work_pool *p);
/* After work_pool_stop and a turn of the loop (its handles closed). NULL-safe. */
void work_pool_free(work_pool *p);

#endif
