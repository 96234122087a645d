#include "server/pg_listen.h"

#include "server/log.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_listen {
    uv_loop_t *loop;
    char *uri;
    pg_listen_fn on_change;
    void *arg;
    uv_thread_t thread;
    bool started;
    uv_async_t async;
    int wake[2]; /* a pipe: pg_listen_stop wakes the thread's poll */
    pthread_mutex_t mu;
    /* Guarded by mu. */
    char (*pending)[33];
    size_t npending;
    bool everything; /* "any session": after a reconnection, or past PG_LISTEN_PENDING_MAX */
    bool stopping;
    unsigned long received;
};

static void push(pg_listen *l, const char *id) {
    pthread_mutex_lock(&l->mu);
    if (!id) {
        l->everything = true;
    } else {
        l->received++;
        bool seen = false;
        for (size_t i = 0; i < l->npending && !seen; i++)
            seen = strcmp(l->pending[i], id) == 0;
        if (!seen && l->npending == PG_LISTEN_PENDING_MAX)
            l->everything = true;
        else if (!seen)
            memcpy(l->pending[l->npending++], id, 33);
    }
    pthread_mutex_unlock(&l->mu);
    uv_async_send(&l->async);
}

static bool stopping(pg_listen *l) {
    pthread_mutex_lock(&l->mu);
    bool s = l->stopping;
    pthread_mutex_unlock(&l->mu);
    return s;
}

/* Waits up to ms for fd (or the wake pipe). false once stopping. */
static bool wait_readable(pg_listen *l, int fd, int ms) {
    struct pollfd fds[2] = {{.fd = l->wake[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
    poll(fds, fd >= 0 ? 2 : 1, ms);
    return !stopping(l);
}

static PGconn *connect_and_listen(pg_listen *l) {
    PGconn *pg = PQconnectdb(l->uri);
    if (PQstatus(pg) == CONNECTION_OK) {
        PGresult *r = PQexec(pg, "LISTEN umpire_events");
        bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (ok) return pg;
    }
    log_msg(LOG_WARN, "PostgreSQL LISTEN: %s; retrying in 1 s", PQerrorMessage(pg));
    PQfinish(pg);
    return NULL;
}

static void listen_thread(void *arg) {
    pg_listen *l = arg;
    pthread_setname_np(pthread_self(), "umpire-listen");
    PGconn *pg = NULL;
    bool was_connected = false;
    while (!stopping(l)) {
        if (!pg) {
            pg = connect_and_listen(l);
            if (!pg) {
                wait_readable(l, -1, 1000);
                continue;
            }
            /* Anything committed while no one listened is read by a catch-up. */
            if (was_connected) push(l, NULL);
            was_connected = true;
        }
        if (!wait_readable(l, PQsocket(pg), 1000)) break;
        if (!PQconsumeInput(pg) || PQstatus(pg) != CONNECTION_OK) {
            log_msg(LOG_WARN, "PostgreSQL LISTEN: connection lost: %s", PQerrorMessage(pg));
            PQfinish(pg);
            pg = NULL;
            push(l, NULL);
            continue;
        }
        PGnotify *n;
        while ((n = PQnotifies(pg))) {
            /* Payload: "<32 hex id> <version>" (server/store_pg.c). */
            char id[33];
            if (n->extra && strlen(n->extra) >= 32) {
                memcpy(id, n->extra, 32);
                id[32] = '\0';
                push(l, id);
            }
            PQfreemem(n);
        }
    }
    PQfinish(pg);
}

static void on_async(uv_async_t *h) {
    pg_listen *l = h->data;
    pthread_mutex_lock(&l->mu);
    bool everything = l->everything;
    size_t n = l->npending;
    char(*ids)[33] = n && !everything ? malloc(n * 33) : NULL;
    if (ids) memcpy(ids, l->pending, n * 33);
    if (n && !everything && !ids) everything = true; /* no memory: catch everyone up */
    l->npending = 0;
    l->everything = false;
    pthread_mutex_unlock(&l->mu);
    if (everything) {
        l->on_change(l->arg, NULL);
    } else {
        for (size_t i = 0; i < n; i++)
            l->on_change(l->arg, ids[i]);
    }
    free(ids);
}

pg_listen *pg_listen_new(uv_loop_t *loop, const char *uri, pg_listen_fn on_change, void *arg) {
    pg_listen *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->loop = loop;
    l->on_change = on_change;
    l->arg = arg;
    l->uri = strdup(uri);
    l->pending = calloc(PG_LISTEN_PENDING_MAX, 33);
    if (!l->uri || !l->pending || pipe(l->wake) != 0) {
        free(l->uri);
        free(l->pending);
        free(l);
        return NULL;
    }
    pthread_mutex_init(&l->mu, NULL);
    uv_async_init(loop, &l->async, on_async);
    l->async.data = l;
    if (uv_thread_create(&l->thread, listen_thread, l) != 0) {
        pg_listen_stop(l);
        return NULL;
    }
    l->started = true;
    return l;
}

unsigned long pg_listen_received(pg_listen *l) {
    pthread_mutex_lock(&l->mu);
    unsigned long n = l->received;
    pthread_mutex_unlock(&l->mu);
    return n;
}

static void on_closed(uv_handle_t *h) {
    pg_listen *l = h->data;
    pthread_mutex_destroy(&l->mu);
    free(l->uri);
    free(l->pending);
    free(l);
}

void pg_listen_stop(pg_listen *l) {
    if (!l) return;
    pthread_mutex_lock(&l->mu);
    l->stopping = true;
    pthread_mutex_unlock(&l->mu);
    if (write(l->wake[1], "x", 1) < 0) { /* the thread also re-checks every second */
    }
    if (l->started) uv_thread_join(&l->thread);
    close(l->wake[0]);
    close(l->wake[1]);
    uv_close((uv_handle_t *)&l->async, on_closed);
}
