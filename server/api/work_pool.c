#include "server/api/work_pool.h"

#include "server/core/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A client with jobs in the pool, and how many (chained hash; an entry lives while count > 0). */
typedef struct client_count {
    struct client_count *next;
    int count;
    char client[WORK_POOL_CLIENT_MAX];
} client_count;

struct work_pool {
    uv_loop_t *loop;
    char name[16];
    int nthreads, queue_max, per_client;
    unsigned check_ms;
    uv_thread_t *threads;
    int started;
    bool stopped;
    int closed;         /* handles closed (async, timer) */
    bool free_on_close; /* a pool that never started frees itself once they are */
    /* Shared with the workers, under mu. */
    uv_mutex_t mu;
    uv_cond_t cv;
    work_job *q_head, *q_tail; /* waiting for a thread, in order */
    work_job *done_list;       /* returned from run(), newest first */
    bool quit;
    /* Loop thread only. */
    uv_async_t async;
    uv_timer_t timer;
    work_job *all; /* every job queued or running */
    size_t pending;
    client_count **buckets;
    size_t nbuckets; /* a power of two */
};

/* ---- clients ------------------------------------------------------------------------------ */

static size_t client_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return (size_t)h;
}

static client_count **client_slot(work_pool *p, const char *client) {
    client_count **e = &p->buckets[client_hash(client) & (p->nbuckets - 1)];
    while (*e && strcmp((*e)->client, client) != 0)
        e = &(*e)->next;
    return e;
}

static int client_count_of(work_pool *p, const char *client) {
    client_count **e = client_slot(p, client);
    return *e ? (*e)->count : 0;
}

/* 0, or -1 out of memory. */
static int client_add(work_pool *p, const char *client) {
    client_count **e = client_slot(p, client);
    if (!*e) {
        client_count *c = calloc(1, sizeof *c);
        if (!c) return -1;
        memcpy(c->client, client, strlen(client) + 1);
        *e = c;
    }
    (*e)->count++;
    return 0;
}

static void client_remove(work_pool *p, const char *client) {
    client_count **e = client_slot(p, client);
    if (*e && --(*e)->count == 0) {
        client_count *gone = *e;
        *e = gone->next;
        free(gone);
    }
}

/* ---- workers ------------------------------------------------------------------------------ */

static void worker_main(void *arg) {
    work_pool *p = arg;
    uv_mutex_lock(&p->mu);
    for (;;) {
        while (!p->q_head && !p->quit)
            uv_cond_wait(&p->cv, &p->mu);
        if (!p->q_head) break; /* quit, and nothing left to take */
        work_job *job = p->q_head;
        p->q_head = job->next_ready;
        if (!p->q_head) p->q_tail = NULL;
        job->running = true;
        uv_mutex_unlock(&p->mu);
        if (!work_job_cancelled(job)) job->run(job);
        uv_mutex_lock(&p->mu);
        job->next_ready = p->done_list;
        p->done_list = job;
        uv_mutex_unlock(&p->mu);
        uv_async_send(&p->async);
        uv_mutex_lock(&p->mu);
    }
    uv_mutex_unlock(&p->mu);
}

/* ---- the loop thread ---------------------------------------------------------------------- */

/* The job leaves the pool; its done() is called (which may free it). */
static void finish(work_pool *p, work_job *job) {
    if (job->prev)
        job->prev->next = job->next;
    else
        p->all = job->next;
    if (job->next) job->next->prev = job->prev;
    job->prev = job->next = NULL;
    client_remove(p, job->client);
    if (--p->pending == 0) uv_timer_stop(&p->timer);
    job->done(job, work_job_cancelled(job));
}

static void drain_done(work_pool *p) {
    uv_mutex_lock(&p->mu);
    work_job *list = p->done_list;
    p->done_list = NULL;
    uv_mutex_unlock(&p->mu);
    /* oldest first */
    work_job *rev = NULL;
    while (list) {
        work_job *next = list->next_ready;
        list->next_ready = rev;
        rev = list;
        list = next;
    }
    while (rev) {
        work_job *next = rev->next_ready;
        finish(p, rev);
        rev = next;
    }
}

static void on_async(uv_async_t *a) {
    drain_done(a->data);
}

/* Takes job out of the queue if no worker has it yet: true when taken. */
static bool unqueue(work_pool *p, work_job *job) {
    bool taken = false;
    uv_mutex_lock(&p->mu);
    if (!job->running) {
        work_job **q = &p->q_head, *last = NULL;
        while (*q && *q != job) {
            last = *q;
            q = &(*q)->next_ready;
        }
        if (*q) {
            *q = job->next_ready;
            if (p->q_tail == job) p->q_tail = last;
            taken = true;
        }
    }
    uv_mutex_unlock(&p->mu);
    return taken;
}

/* Marks the jobs nobody waits for any more; those still queued end at once, freeing their
 * places (a client that left gives its places back without waiting for a thread). */
static void on_check(uv_timer_t *t) {
    work_pool *p = t->data;
    work_job *job = p->all;
    while (job) {
        work_job *next = job->next;
        if (!work_job_cancelled(job) && job->abandoned && job->abandoned(job)) {
            atomic_store(&job->cancel, true);
            if (unqueue(p, job)) finish(p, job);
        }
        job = next;
    }
}

work_pool_rc work_pool_submit(work_pool *p, work_job *job, const char *client) {
    snprintf(job->client, sizeof job->client, "%s", client ? client : "");
    /* Every thread busy and queue_max waiting: the pool is full. */
    if (p->stopped || p->pending >= (size_t)p->nthreads + (size_t)p->queue_max)
        return WORK_POOL_FULL;
    if (client_count_of(p, job->client) >= p->per_client) return WORK_POOL_TOO_BUSY;
    if (client_add(p, job->client) != 0) return WORK_POOL_FULL;
    atomic_init(&job->cancel, false);
    job->running = false;
    job->prev = NULL;
    job->next = p->all;
    if (p->all) p->all->prev = job;
    p->all = job;
    if (p->pending++ == 0 && p->check_ms)
        uv_timer_start(&p->timer, on_check, p->check_ms, p->check_ms);
    uv_mutex_lock(&p->mu);
    job->next_ready = NULL;
    if (p->q_tail)
        p->q_tail->next_ready = job;
    else
        p->q_head = job;
    p->q_tail = job;
    uv_cond_signal(&p->cv);
    uv_mutex_unlock(&p->mu);
    return WORK_POOL_OK;
}

size_t work_pool_pending(const work_pool *p) {
    return p->pending;
}

/* ---- life ------------------------------------------------------------------------------- */

static void on_closed(uv_handle_t *h) {
    work_pool *p = h->data;
    if (++p->closed == 2 && p->free_on_close) work_pool_free(p);
}

work_pool *work_pool_new(uv_loop_t *loop, const char *name, int threads, int queue_max,
                         int per_client, unsigned check_ms) {
    if (threads < 1 || queue_max < 0 || per_client < 1) return NULL;
    work_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->loop = loop;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->nthreads = threads;
    p->queue_max = queue_max;
    p->per_client = per_client;
    p->check_ms = check_ms;
    /* At most threads + queue_max clients have jobs at once; a few per bucket is fine. */
    size_t want = ((size_t)threads + (size_t)queue_max) / 2 + 1;
    p->nbuckets = 16;
    while (p->nbuckets < want && p->nbuckets < 4096)
        p->nbuckets *= 2;
    p->buckets = calloc(p->nbuckets, sizeof *p->buckets);
    p->threads = calloc((size_t)threads, sizeof *p->threads);
    if (!p->buckets || !p->threads || uv_mutex_init(&p->mu) != 0) {
        free(p->buckets);
        free(p->threads);
        free(p);
        return NULL;
    }
    if (uv_cond_init(&p->cv) != 0) {
        uv_mutex_destroy(&p->mu);
        free(p->buckets);
        free(p->threads);
        free(p);
        return NULL;
    }
    uv_async_init(loop, &p->async, on_async);
    uv_timer_init(loop, &p->timer);
    p->async.data = p->timer.data = p;
    /* The async alone must not keep the loop running: jobs in flight keep the timer active. */
    uv_unref((uv_handle_t *)&p->async);
    for (; p->started < threads; p->started++) {
        if (uv_thread_create(&p->threads[p->started], worker_main, p) != 0) {
            log_msg(LOG_ERROR, "%s pool: cannot start thread %d", p->name, p->started + 1);
            p->free_on_close = true; /* the caller never sees it */
            work_pool_stop(p);
            return NULL;
        }
    }
    return p;
}

void work_pool_stop(work_pool *p) {
    if (!p || p->stopped) return;
    p->stopped = true;
    for (work_job *j = p->all; j; j = j->next)
        atomic_store(&j->cancel, true);
    uv_mutex_lock(&p->mu);
    work_job *queued = p->q_head;
    p->q_head = p->q_tail = NULL;
    p->quit = true;
    uv_cond_broadcast(&p->cv);
    uv_mutex_unlock(&p->mu);
    while (queued) {
        work_job *next = queued->next_ready;
        finish(p, queued);
        queued = next;
    }
    for (int i = 0; i < p->started; i++)
        uv_thread_join(&p->threads[i]);
    drain_done(p);
    uv_timer_stop(&p->timer);
    uv_close((uv_handle_t *)&p->async, on_closed);
    uv_close((uv_handle_t *)&p->timer, on_closed);
}

void work_pool_free(work_pool *p) {
    if (!p) return;
    for (size_t i = 0; i < p->nbuckets; i++) {
        while (p->buckets[i]) {
            client_count *next = p->buckets[i]->next;
            free(p->buckets[i]);
            p->buckets[i] = next;
        }
    }
    uv_cond_destroy(&p->cv);
    uv_mutex_destroy(&p->mu);
    free(p->buckets);
    free(p->threads);
    free(p);
}
