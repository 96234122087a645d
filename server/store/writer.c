#include "server/store/writer.h"

#include "protocol/api_error.h"
#include "server/core/alloc_guard.h"
#include "server/core/log.h"
#include "server/store/checkpointer.h"
#include "server/store/session_cache.h"
#include "server/store/session_write.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct writer {
    uv_loop_t *loop;
    store_conn *conn;
    checkpointer *ckpt;   /* NULL: SQLite checkpoints inside the commits */
    session_cache *cache; /* writer thread only */
    int64_t group_max, queue_max;
    writer_limits limits; /* set before the first job */
    bool shared;          /* PostgreSQL: other nodes write the same database */
    /* store_fault: written by the writer thread (and writer_new), read by any thread. */
    atomic_int storage;
    store_fault batch_fault; /* writer thread: the first fault the running batch met */
    char (*ids)[33];         /* group_max: the sessions of the batch being run */
    int64_t *versions;       /* group_max: their versions, under lock */
    uv_thread_t thread;
    uv_async_t async;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    /* Guarded by mu. */
    write_job *queue_head, *queue_tail;
    int64_t queued;
    int64_t queued_bytes; /* the queued jobs' queued_bytes */
    write_job *done_head, *done_tail;
    bool stopping;
    uint64_t commits, jobs;
    /* Loop thread only. */
    void (*closed)(void *arg);
    void *closed_arg;
};

write_job *write_job_new(write_kind kind) {
    write_job *job = calloc(1, sizeof *job);
    if (job) job->kind = kind;
    return job;
}

void write_job_free(write_job *job) {
    if (!job) return;
    create_request_clear(&job->create);
    action_envelope_clear(&job->action);
    free(job->webhooks);
    free(job->body);
    free(job);
}

static void set_storage_error(write_job *job) {
    api_error e = {0};
    api_error_set(&e, 503, "storage_unavailable", NULL,
                  "the database could not commit the change; nothing was written, try again");
    free(job->body);
    job->status = e.status;
    job->body = api_error_body_new(&e, &job->body_len);
    api_error_clear(&e);
}

/* Writer thread: the store's state changes; logged once per change. */
static void set_storage(writer *w, store_fault f, const char *why) {
    store_fault old = (store_fault)atomic_exchange(&w->storage, (int)f);
    if (old == f) return;
    if (f == STORE_FAULT_NONE)
        log_msg(LOG_INFO, "storage: writable again (%s); /v1/health answers ok", why);
    else
        log_msg(LOG_ERROR,
                "storage: the database is %s (%s); /v1/health answers 503 until a write "
                "succeeds",
                f == STORE_FAULT_READ_ONLY ? "read-only"
                : f == STORE_FAULT_FULL    ? "full (no space left)"
                                           : "failing (I/O errors or the server lost)",
                why);
}

/* Writer thread: a statement of the running batch failed; what the connection says of it. */
static void note_fault(writer *w) {
    if (w->batch_fault == STORE_FAULT_NONE) w->batch_fault = store_last_fault(w->conn);
}

/* Writer thread: asks the store whether it would take a write. A probe cannot see a full disk
 * (nothing is written): that state waits for a commit. */
static void probe(writer *w) {
    store_fault f = store_probe_write(w->conn);
    store_fault now = (store_fault)atomic_load(&w->storage);
    if (f != STORE_FAULT_NONE)
        set_storage(w, f, store_errmsg(w->conn));
    else if (now != STORE_FAULT_FULL)
        set_storage(w, f, "probe");
}

/* The batch's sessions, sorted and distinct, into ids (at most n of them); their count. */
static size_t batch_sessions(const write_job *batch, char (*ids)[33], size_t n) {
    size_t k = 0;
    for (const write_job *j = batch; j && k < n; j = j->next)
        if (j->session_id[0]) memcpy(ids[k++], j->session_id, 33);
    qsort(ids, k, 33, (int (*)(const void *, const void *))strcmp);
    size_t out = 0;
    for (size_t i = 0; i < k; i++)
        if (out == 0 || strcmp(ids[out - 1], ids[i]) != 0) memmove(ids[out++], ids[i], 33);
    return out;
}

/* PostgreSQL, several nodes: locks the batch's sessions for the transaction (in id order, so
 * two nodes' batches never deadlock), and forgets cached rows another node has moved on from.
 * Under the lock, the version read is the last committed one: a session's actions are
 * serialised across every node, and its sequence numbers cannot gap, repeat or fork. */
static int lock_batch(writer *w, char (*ids)[33], size_t n) {
    int64_t *versions = w->versions;
    if (store_lock_sessions(w->conn, (const char(*)[33])ids, n, versions) != 0) return -1;
    for (size_t i = 0; i < n; i++) {
        const session_row *cached = session_cache_borrow(w->cache, ids[i]);
        if (cached && cached->version != versions[i]) session_cache_forget(w->cache, ids[i]);
    }
    return 0;
}

/* PostgreSQL: tells the other nodes (LISTEN umpire_events) which sessions this batch moved on;
 * the notifications are delivered only if it commits. */
static int notify_batch(writer *w, const write_job *batch, char (*ids)[33], size_t n) {
    for (size_t i = 0; i < n; i++) {
        /* The version each job reached (not the cached row's: a later job of the batch may
         * have evicted it from its slot). */
        int64_t version = -1;
        for (const write_job *j = batch; j; j = j->next)
            if (j->status >= 200 && j->status <= 299 && !j->replayed &&
                strcmp(j->session_id, ids[i]) == 0 && j->version > version)
                version = j->version;
        if (version >= 0 && store_notify(w->conn, ids[i], version) != 0) return -1;
    }
    return 0;
}

/* PostgreSQL: the connection was lost while COMMIT ran, so the server may have committed. The
 * client must not be told "nothing was written": a retry without its Idempotency-Key could
 * then resolve the action twice. */
static void set_outcome_unknown(write_job *job) {
    api_error e = {0};
    api_error_set(&e, 503, "storage_unavailable", json_pack("{s:s}", "outcome", "unknown"),
                  "the connection to the database was lost while the change was committing: it "
                  "may or may not have been recorded; read the session (its version), or retry "
                  "with the same Idempotency-Key, which answers the recorded result if there is "
                  "one");
    free(job->body);
    job->status = e.status;
    job->body = api_error_body_new(&e, &job->body_len);
    api_error_clear(&e);
}

/* Runs one batch in one transaction. Each job in its own savepoint; a job whose status is not
 * 2xx is rolled back alone. The session rows the batch changed are written at its end
 * (session_cache.h). If that or COMMIT fails, every job of the batch reports the failure.
 *
 * PostgreSQL: no savepoints. Each SAVEPOINT and RELEASE is a round trip to the server, and the
 * writer waits on every one (they were half of an action's round trips). They are not needed
 * for a job answered 4xx or replayed: session_write.c writes nothing before it knows the job
 * succeeds. Only a job that fails while writing (5xx: storage, memory) may leave part of its
 * changes; then the whole batch is rolled back and every job of it answered 503. */
static void run_batch(writer *w, write_job *batch) {
    w->batch_fault = STORE_FAULT_NONE;
    bool began = store_tx(w->conn, STORE_TX_BEGIN) == 0, failed = !began;
    if (!began) note_fault(w);
    bool savepoints = !w->shared;
    size_t nids = 0;
    if (began && w->shared) {
        nids = batch_sessions(batch, w->ids, (size_t)w->group_max);
        if (lock_batch(w, w->ids, nids) != 0) failed = true;
    }
    for (write_job *j = batch; j; j = j->next) {
        /* The job may load its session into a slot whose row has an unwritten change: that
         * change is written here, before the savepoint, so the job's rollback cannot undo it. */
        if (!failed && j->kind != WRITE_CREATE_SESSION && j->session_id[0] &&
            session_cache_make_room(w->cache, w->conn, j->session_id) != 0) {
            failed = true;
            note_fault(w);
        }
        if (failed) {
            set_storage_error(j);
            continue;
        }
        if (savepoints && store_tx(w->conn, STORE_TX_SAVEPOINT) != 0) {
            /* The transaction itself may be gone (a lost connection): nothing of the batch
             * commits, so no job of it may be answered 2xx. */
            failed = true;
            set_storage_error(j);
            continue;
        }
        alloc_guard_reset();
        session_write_run(w->conn, w->cache, &w->limits, j);
        if (j->fault != STORE_FAULT_NONE && w->batch_fault == STORE_FAULT_NONE)
            w->batch_fault = j->fault;
        /* A jansson allocation that failed inside the job may have left an event incomplete:
         * never acknowledge it (session_write checks too, before touching its cache). */
        if (alloc_guard_failed() && j->status >= 200 && j->status <= 299) set_storage_error(j);
        if (!savepoints) {
            /* it may have written part of its changes */
            if (j->status >= 500 && !j->untouched) failed = true;
            continue;
        }
        if ((j->status < 200 || j->status > 299 || j->replayed) &&
            store_tx(w->conn, STORE_TX_ROLLBACK_TO) != 0)
            failed = true; /* the job's writes could not be undone: the batch must not commit */
        if (store_tx(w->conn, STORE_TX_RELEASE) != 0) failed = true;
    }
    if (!began) {
        if (w->batch_fault != STORE_FAULT_NONE) set_storage(w, w->batch_fault, "BEGIN failed");
        return;
    }
    alloc_guard_reset();
    bool flushed = !failed && session_cache_flush(w->cache, w->conn) == 0 && !alloc_guard_failed();
    if (flushed && w->shared && notify_batch(w, batch, w->ids, nids) != 0) flushed = false;
    bool committed = flushed && store_tx(w->conn, STORE_TX_COMMIT) == 0;
    if (!committed) {
        note_fault(w);
        log_msg(LOG_ERROR, "%s failed: %s",
                flushed ? "commit" : "writing the session rows (or notifying)",
                store_errmsg(w->conn));
        if (w->batch_fault != STORE_FAULT_NONE)
            set_storage(w, w->batch_fault, store_errmsg(w->conn));
        store_tx(w->conn, STORE_TX_ROLLBACK);
        /* Cached rows may hold changes of this batch that never reached the disk. */
        session_cache_clear(w->cache);
        for (write_job *j = batch; j; j = j->next)
            if (j->status >= 200 && j->status <= 299) {
                if (w->conn->commit_unknown)
                    set_outcome_unknown(j);
                else
                    set_storage_error(j);
            }
        return;
    }
    /* Committed: the store took writes, unless a job of the batch met a fault of its own. A
     * batch of refusals only wrote nothing, which proves nothing (a read-only file commits an
     * empty transaction). */
    bool wrote = false;
    for (const write_job *j = batch; j && !wrote; j = j->next)
        wrote = j->status >= 200 && j->status <= 299 && !j->replayed;
    if (w->batch_fault != STORE_FAULT_NONE)
        set_storage(w, w->batch_fault, store_errmsg(w->conn));
    else if (wrote)
        set_storage(w, STORE_FAULT_NONE, "a commit succeeded");
    /* Every row is clean now: the cache may give back what passes its byte bound. */
    session_cache_trim(w->cache, w->limits.session_cache_max_bytes);
}

static void writer_thread(void *arg) {
    writer *w = arg;
    pthread_setname_np(pthread_self(), "umpire-writer"); /* for top, perf and gdb */
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->queue_head && !w->stopping) {
            store_fault f = (store_fault)atomic_load(&w->storage);
            if (f != STORE_FAULT_READ_ONLY && f != STORE_FAULT_FAILING) {
                pthread_cond_wait(&w->cond, &w->mu);
                continue;
            }
            /* Read-only or failing: the store is probed again now and then, so that /health
             * recovers without a client's write (a balancer may send none to a node it took
             * out). */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += WRITER_PROBE_MS / 1000;
            if (pthread_cond_timedwait(&w->cond, &w->mu, &until) == ETIMEDOUT && !w->queue_head &&
                !w->stopping) {
                pthread_mutex_unlock(&w->mu);
                probe(w);
                pthread_mutex_lock(&w->mu);
            }
        }
        if (!w->queue_head && w->stopping) {
            pthread_mutex_unlock(&w->mu);
            break;
        }
        /* Take up to group_max jobs: everything that arrived while the last commit ran. */
        write_job *batch = w->queue_head, *last = batch;
        int64_t n = 1;
        while (last->next && n < w->group_max) {
            last = last->next;
            n++;
        }
        w->queue_head = last->next;
        if (!w->queue_head) w->queue_tail = NULL;
        w->queued -= n;
        for (write_job *j = batch; j != last->next; j = j->next)
            w->queued_bytes -= (int64_t)j->queued_bytes;
        last->next = NULL;
        pthread_mutex_unlock(&w->mu);

        run_batch(w, batch);

        pthread_mutex_lock(&w->mu);
        if (w->done_tail)
            w->done_tail->next = batch;
        else
            w->done_head = batch;
        w->done_tail = last;
        w->commits++;
        w->jobs += (uint64_t)n;
        pthread_mutex_unlock(&w->mu);
        uv_async_send(&w->async);
    }
}

/* Loop thread: hands every finished job to its callback. */
static void on_async(uv_async_t *handle) {
    writer *w = handle->data;
    pthread_mutex_lock(&w->mu);
    write_job *job = w->done_head;
    w->done_head = w->done_tail = NULL;
    pthread_mutex_unlock(&w->mu);
    while (job) {
        write_job *next = job->next;
        job->next = NULL;
        job->done(job);
        job = next;
    }
}

writer *writer_new(uv_loop_t *loop, store_conn *conn_take, checkpointer *ckpt_take,
                   int64_t group_max, int64_t queue_max) {
    writer *w = calloc(1, sizeof *w);
    if (!w) {
        checkpointer_free(ckpt_take);
        store_conn_close(conn_take);
        return NULL;
    }
    w->loop = loop;
    w->conn = conn_take;
    w->ckpt = ckpt_take;
    w->cache = session_cache_new();
    if (!w->cache) {
        checkpointer_free(ckpt_take);
        store_conn_close(conn_take);
        free(w);
        return NULL;
    }
    if (w->ckpt) checkpointer_watch(w->ckpt, store_sqlite_handle(w->conn));
    w->group_max = group_max > 0 ? group_max : 1;
    w->shared = conn_take->backend == STORE_POSTGRES;
    w->ids = calloc((size_t)w->group_max, sizeof *w->ids);
    w->versions = calloc((size_t)w->group_max, sizeof *w->versions);
    if (!w->ids || !w->versions) {
        free(w->ids);
        free(w->versions);
        checkpointer_free(ckpt_take);
        store_conn_close(conn_take);
        session_cache_free(w->cache);
        free(w);
        return NULL;
    }
    w->queue_max = queue_max > 0 ? queue_max : 1;
    /* Before the first request: a read-only file is reported by /health from the start. */
    probe(w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cond, NULL);
    uv_async_init(loop, &w->async, on_async);
    w->async.data = w;
    if (uv_thread_create(&w->thread, writer_thread, w) != 0) {
        uv_close((uv_handle_t *)&w->async, NULL);
        if (ckpt_take) checkpointer_unwatch(store_sqlite_handle(conn_take));
        checkpointer_free(ckpt_take);
        store_conn_close(conn_take);
        session_cache_free(w->cache);
        free(w->ids);
        free(w->versions);
        free(w);
        return NULL;
    }
    return w;
}

void writer_set_limits(writer *w, const writer_limits *lim) {
    pthread_mutex_lock(&w->mu); /* the writer thread reads them after taking a job under mu */
    w->limits = *lim;
    pthread_mutex_unlock(&w->mu);
}

store_fault writer_storage(writer *w) {
    return (store_fault)atomic_load(&w->storage);
}

int writer_submit(writer *w, write_job *job) {
    pthread_mutex_lock(&w->mu);
    /* A job bigger than the byte bound alone is still taken when the queue is empty: the bound
     * limits what waits, and max_body_bytes what one job holds. */
    int64_t bytes = (int64_t)job->queued_bytes;
    if (w->stopping || w->queued >= w->queue_max ||
        (w->queued > 0 && w->limits.queue_max_bytes > 0 &&
         w->queued_bytes + bytes > w->limits.queue_max_bytes)) {
        pthread_mutex_unlock(&w->mu);
        return -1;
    }
    w->queued_bytes += bytes;
    job->next = NULL;
    if (w->queue_tail)
        w->queue_tail->next = job;
    else
        w->queue_head = job;
    w->queue_tail = job;
    w->queued++;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

static void on_async_closed(uv_handle_t *handle) {
    writer *w = handle->data;
    void (*closed)(void *) = w->closed;
    void *arg = w->closed_arg;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cond);
    free(w->ids);
    free(w->versions);
    free(w);
    if (closed) closed(arg);
}

void writer_stop(writer *w, void (*closed)(void *arg), void *arg) {
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->mu);
    uv_thread_join(&w->thread);
    on_async(&w->async); /* answer what finished after the last wake-up */
    /* The checkpoint thread goes first; whichever connection closes last (the loop's reader)
     * checkpoints what is left. */
    if (w->ckpt) checkpointer_unwatch(store_sqlite_handle(w->conn));
    checkpointer_free(w->ckpt);
    w->ckpt = NULL;
    store_conn_close(w->conn);
    w->conn = NULL;
    session_cache_free(w->cache);
    w->cache = NULL;
    w->closed = closed;
    w->closed_arg = arg;
    uv_close((uv_handle_t *)&w->async, on_async_closed);
}

void writer_stats(writer *w, uint64_t *commits, uint64_t *jobs) {
    pthread_mutex_lock(&w->mu);
    *commits = w->commits;
    *jobs = w->jobs;
    pthread_mutex_unlock(&w->mu);
}
