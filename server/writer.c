#include "server/writer.h"

#include "protocol/api_error.h"
#include "server/alloc_guard.h"
#include "server/checkpointer.h"
#include "server/log.h"
#include "server/session_cache.h"
#include "server/session_write.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct writer {
    uv_loop_t *loop;
    store_conn *conn;
    checkpointer *ckpt;   /* NULL: SQLite checkpoints inside the commits */
    session_cache *cache; /* writer thread only */
    int64_t group_max, queue_max;
    uv_thread_t thread;
    uv_async_t async;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    /* Guarded by mu. */
    write_job *queue_head, *queue_tail;
    int64_t queued;
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

/* Runs one batch in one transaction. Each job in its own savepoint; a job whose status is not
 * 2xx is rolled back alone. The session rows the batch changed are written at its end
 * (session_cache.h). If that or COMMIT fails, every job of the batch reports the failure. */
static void run_batch(writer *w, write_job *batch) {
    bool began = store_run(w->conn, ST_BEGIN) == 0, failed = !began;
    for (write_job *j = batch; j; j = j->next) {
        /* The job may load its session into a slot whose row has an unwritten change: that
         * change is written here, before the savepoint, so the job's rollback cannot undo it. */
        if (!failed && j->kind != WRITE_CREATE_SESSION && j->session_id[0] &&
            session_cache_make_room(w->cache, w->conn, j->session_id) != 0)
            failed = true;
        if (failed) {
            set_storage_error(j);
            continue;
        }
        if (store_run(w->conn, ST_SAVEPOINT) != 0) {
            set_storage_error(j);
            continue;
        }
        alloc_guard_reset();
        session_write_run(w->conn, w->cache, j);
        /* A jansson allocation that failed inside the job may have left an event incomplete:
         * never acknowledge it (session_write checks too, before touching its cache). */
        if (alloc_guard_failed() && j->status >= 200 && j->status <= 299) set_storage_error(j);
        if (j->status < 200 || j->status > 299 || j->replayed) store_run(w->conn, ST_ROLLBACK_TO);
        store_run(w->conn, ST_RELEASE);
    }
    if (!began) return;
    alloc_guard_reset();
    bool flushed = !failed && session_cache_flush(w->cache, w->conn) == 0 && !alloc_guard_failed();
    if (!flushed || store_run(w->conn, ST_COMMIT) != 0) {
        log_msg(LOG_ERROR, "%s failed: %s", flushed ? "commit" : "writing the session rows",
                sqlite3_errmsg(w->conn->db));
        store_run(w->conn, ST_ROLLBACK);
        /* Cached rows may hold changes of this batch that never reached the disk. */
        session_cache_clear(w->cache);
        for (write_job *j = batch; j; j = j->next)
            if (j->status >= 200 && j->status <= 299) set_storage_error(j);
    }
}

static void writer_thread(void *arg) {
    writer *w = arg;
    pthread_setname_np(pthread_self(), "umpire-writer"); /* for top, perf and gdb */
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->queue_head && !w->stopping)
            pthread_cond_wait(&w->cond, &w->mu);
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
    if (w->ckpt) checkpointer_watch(w->ckpt, w->conn->db);
    w->group_max = group_max > 0 ? group_max : 1;
    w->queue_max = queue_max > 0 ? queue_max : 1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cond, NULL);
    uv_async_init(loop, &w->async, on_async);
    w->async.data = w;
    if (uv_thread_create(&w->thread, writer_thread, w) != 0) {
        uv_close((uv_handle_t *)&w->async, NULL);
        if (ckpt_take) checkpointer_unwatch(conn_take->db);
        checkpointer_free(ckpt_take);
        store_conn_close(conn_take);
        session_cache_free(w->cache);
        free(w);
        return NULL;
    }
    return w;
}

int writer_submit(writer *w, write_job *job) {
    pthread_mutex_lock(&w->mu);
    if (w->stopping || w->queued >= w->queue_max) {
        pthread_mutex_unlock(&w->mu);
        return -1;
    }
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
    if (w->ckpt) checkpointer_unwatch(w->conn->db);
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
