#include "server/store/db_reads.h"

#include "server/core/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define POOL_MAX 32

typedef struct read_job {
    db_read_fn fn;
    db_read_done done;
    void *arg;
    struct read_job *next;
} read_job;

struct db_reads {
    store_conn *inline_conn; /* the inline kind: borrowed */
    uv_loop_t *loop;
    uv_async_t async;
    int nthreads;
    uv_thread_t threads[POOL_MAX];
    store_conn *conns[POOL_MAX]; /* one per thread, owned */
    int64_t queue_max;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    /* Guarded by mu. */
    read_job *queue_head, *queue_tail;
    read_job *done_head, *done_tail;
    int64_t queued; /* waiting for a thread: bounded by queue_max */
    bool stopping;
    /* Loop thread only. */
    void (*closed)(void *arg);
    void *closed_arg;
};

db_reads *db_reads_new_inline(store_conn *reader_borrow) {
    db_reads *r = calloc(1, sizeof *r);
    if (r) r->inline_conn = reader_borrow;
    return r;
}

bool db_reads_inline(const db_reads *r) {
    return r->inline_conn != NULL;
}

/* Pool thread: the thread's connection is conns[i]. */
typedef struct thread_arg {
    db_reads *r;
    int index;
} thread_arg;

static void pool_thread(void *p) {
    thread_arg *ta = p;
    db_reads *r = ta->r;
    store_conn *conn = r->conns[ta->index];
    free(ta);
    pthread_setname_np(pthread_self(), "umpire-reader");
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (!r->queue_head && !r->stopping)
            pthread_cond_wait(&r->cond, &r->mu);
        read_job *job = r->queue_head;
        if (!job) { /* stopping and nothing left */
            pthread_mutex_unlock(&r->mu);
            break;
        }
        r->queue_head = job->next;
        if (!r->queue_head) r->queue_tail = NULL;
        r->queued--;
        pthread_mutex_unlock(&r->mu);

        job->fn(conn, job->arg);

        pthread_mutex_lock(&r->mu);
        job->next = NULL;
        if (r->done_tail)
            r->done_tail->next = job;
        else
            r->done_head = job;
        r->done_tail = job;
        pthread_mutex_unlock(&r->mu);
        uv_async_send(&r->async);
    }
}

/* Loop thread: answers every finished read, in the order they finished. */
static void on_async(uv_async_t *handle) {
    db_reads *r = handle->data;
    pthread_mutex_lock(&r->mu);
    read_job *job = r->done_head;
    r->done_head = r->done_tail = NULL;
    pthread_mutex_unlock(&r->mu);
    while (job) {
        read_job *next = job->next;
        job->done(job->arg);
        free(job);
        job = next;
    }
}

db_reads *db_reads_new_pool(uv_loop_t *loop, const char *db, int threads, int64_t queue_max,
                            char *err, size_t errlen) {
    if (threads < 1) threads = 1;
    if (threads > POOL_MAX) threads = POOL_MAX;
    db_reads *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->loop = loop;
    r->queue_max = queue_max > 0 ? queue_max : 1;
    for (int i = 0; i < threads; i++) {
        r->conns[i] = store_conn_open(db, "full", 0, err, errlen);
        if (!r->conns[i]) {
            for (int j = 0; j < i; j++)
                store_conn_close(r->conns[j]);
            free(r);
            return NULL;
        }
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cond, NULL);
    uv_async_init(loop, &r->async, on_async);
    r->async.data = r;
    for (int i = 0; i < threads; i++) {
        thread_arg *ta = malloc(sizeof *ta);
        if (ta) *ta = (thread_arg){r, i};
        if (!ta || uv_thread_create(&r->threads[i], pool_thread, ta) != 0) {
            free(ta);
            /* Fewer threads than asked: the ones started serve; close the spare connections. */
            log_msg(LOG_WARN, "db reads: started %d of %d reader threads", i, threads);
            for (int j = i; j < threads; j++)
                store_conn_close(r->conns[j]), r->conns[j] = NULL;
            threads = i;
            break;
        }
    }
    r->nthreads = threads;
    if (threads == 0) {
        snprintf(err, errlen, "cannot start a reader thread");
        uv_close((uv_handle_t *)&r->async, NULL);
        /* The handle is closed on the next loop turn; r must outlive it. Leaked on purpose:
         * the daemon is about to exit with this error. */
        return NULL;
    }
    return r;
}

int db_reads_submit(db_reads *r, db_read_fn fn, db_read_done done, void *arg) {
    if (r->inline_conn) {
        fn(r->inline_conn, arg);
        done(arg);
        return 0;
    }
    read_job *job = malloc(sizeof *job);
    if (!job) return -1;
    *job = (read_job){fn, done, arg, NULL};
    pthread_mutex_lock(&r->mu);
    if (r->stopping || r->queued >= r->queue_max) {
        pthread_mutex_unlock(&r->mu);
        free(job);
        return -1;
    }
    if (r->queue_tail)
        r->queue_tail->next = job;
    else
        r->queue_head = job;
    r->queue_tail = job;
    r->queued++;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->mu);
    return 0;
}

static void on_async_closed(uv_handle_t *handle) {
    db_reads *r = handle->data;
    void (*closed)(void *) = r->closed;
    void *arg = r->closed_arg;
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cond);
    free(r);
    if (closed) closed(arg);
}

void db_reads_stop(db_reads *r, void (*closed)(void *arg), void *arg) {
    if (r->inline_conn) {
        free(r);
        if (closed) closed(arg);
        return;
    }
    pthread_mutex_lock(&r->mu);
    r->stopping = true;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->mu);
    for (int i = 0; i < r->nthreads; i++)
        uv_thread_join(&r->threads[i]);
    on_async(&r->async); /* answer what finished after the last wake-up */
    for (int i = 0; i < r->nthreads; i++)
        store_conn_close(r->conns[i]);
    r->closed = closed;
    r->closed_arg = arg;
    uv_close((uv_handle_t *)&r->async, on_async_closed);
}
