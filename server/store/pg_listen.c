#include "server/store/pg_listen.h"

#include "server/core/log.h"
#include "server/store/store_backend.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The advisory lock of webhook delivery: an arbitrary constant of Umpire's ("umpw" in ASCII),
 * distinct from the migration lock's. */
#define WEBHOOK_LEADER_KEY "1970106743"

typedef struct pending {
    pg_listen_what what;
    char id[33];
    int64_t version;
} pending;

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
    pending *pending;
    size_t npending;
    bool everything; /* PG_LISTEN_ALL: after a reconnection, or past PG_LISTEN_PENDING_MAX */
    bool leader, leader_reported;
    bool ready; /* the first connection (and lock attempt) is done, or failed */
    pthread_cond_t ready_cond;
    bool stopping;
};

/* Thread: records a change for the loop (deduplicated by kind and session, newest version). */
static void push(pg_listen *l, pg_listen_what what, const char *id, int64_t version) {
    pthread_mutex_lock(&l->mu);
    if (what == PG_LISTEN_ALL) {
        l->everything = true;
    } else {
        size_t i = 0;
        while (i < l->npending && (l->pending[i].what != what || strcmp(l->pending[i].id, id)))
            i++;
        if (i < l->npending) {
            if (version > l->pending[i].version) l->pending[i].version = version;
        } else if (l->npending == PG_LISTEN_PENDING_MAX) {
            l->everything = true;
        } else {
            pending *p = &l->pending[l->npending++];
            p->what = what;
            memcpy(p->id, id, 33);
            p->version = version;
        }
    }
    pthread_mutex_unlock(&l->mu);
    uv_async_send(&l->async);
}

static void set_leader(pg_listen *l, bool leader) {
    pthread_mutex_lock(&l->mu);
    bool changed = l->leader != leader;
    l->leader = leader;
    pthread_mutex_unlock(&l->mu);
    if (changed) {
        log_msg(LOG_INFO, "webhooks: this node %s",
                leader ? "now delivers them (it holds the lock)" : "leaves them to another node");
        uv_async_send(&l->async);
    }
}

static void mark_ready(pg_listen *l) {
    pthread_mutex_lock(&l->mu);
    l->ready = true;
    pthread_cond_broadcast(&l->ready_cond);
    pthread_mutex_unlock(&l->mu);
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

static bool exec_ok(PGconn *pg, const char *sql, ExecStatusType want) {
    PGresult *r = PQexec(pg, sql);
    bool ok = PQresultStatus(r) == want;
    PQclear(r);
    return ok;
}

static PGconn *connect_and_listen(pg_listen *l) {
    PGconn *pg = store_pg_connect(l->uri);
    /* Named, so that an operator (or a test) finds it in pg_stat_activity. */
    if (PQstatus(pg) == CONNECTION_OK &&
        exec_ok(pg, "SET application_name = 'umpired listener'", PGRES_COMMAND_OK) &&
        exec_ok(pg, "LISTEN umpire_events", PGRES_COMMAND_OK) &&
        exec_ok(pg, "LISTEN umpire_webhooks", PGRES_COMMAND_OK) &&
        exec_ok(pg, "LISTEN umpire_tokens", PGRES_COMMAND_OK))
        return pg;
    log_msg(LOG_WARN, "PostgreSQL LISTEN: %s; retrying in 1 s", PQerrorMessage(pg));
    PQfinish(pg);
    return NULL;
}

/* Tries for the webhook lock (held by this connection until it closes). Only called between
 * notifications: PQexec would consume any that arrive meanwhile, and PQnotifies still returns
 * them afterwards. */
static bool try_leader(PGconn *pg) {
    PGresult *r = PQexec(pg, "SELECT pg_try_advisory_lock(" WEBHOOK_LEADER_KEY ")");
    bool got = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
               strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    return got;
}

static void drain_notifications(pg_listen *l, PGconn *pg) {
    PGnotify *n;
    while ((n = PQnotifies(pg))) {
        /* Payloads: "<32 hex id> <version>" (events), "<32 hex id>" (webhooks, tokens). */
        if (n->extra && strlen(n->extra) >= 32) {
            char id[33];
            memcpy(id, n->extra, 32);
            id[32] = '\0';
            bool events = strcmp(n->relname, "umpire_events") == 0;
            int64_t version = events && n->extra[32] == ' ' ? strtoll(n->extra + 33, NULL, 10) : 0;
            push(l,
                 events                                     ? PG_LISTEN_EVENTS
                 : strcmp(n->relname, "umpire_tokens") == 0 ? PG_LISTEN_TOKENS
                                                            : PG_LISTEN_WEBHOOKS,
                 id, version);
        }
        PQfreemem(n);
    }
}

static void listen_thread(void *arg) {
    pg_listen *l = arg;
    pthread_setname_np(pthread_self(), "umpire-listen");
    PGconn *pg = NULL;
    bool leader = false;
    uint64_t last_try = 0;
    while (!stopping(l)) {
        if (!pg) {
            pg = connect_and_listen(l);
            if (!pg) {
                mark_ready(l);
                wait_readable(l, -1, 1000);
                continue;
            }
            /* Anything committed while no one listened (before the first connection too: the
             * lists were read at start-up) is read by a catch-up. */
            push(l, PG_LISTEN_ALL, NULL, 0);
        }
        /* A follower asks for the lock at most once a second, not once a notification. */
        if (!leader && (last_try == 0 || uv_hrtime() - last_try >= 1000000000ull)) {
            last_try = uv_hrtime();
            if ((leader = try_leader(pg))) set_leader(l, true);
            mark_ready(l);
        }
        drain_notifications(l, pg);
        if (!wait_readable(l, PQsocket(pg), 1000)) break;
        if (!PQconsumeInput(pg) || PQstatus(pg) != CONNECTION_OK) {
            log_msg(LOG_WARN, "PostgreSQL LISTEN: connection lost: %s", PQerrorMessage(pg));
            PQfinish(pg);
            pg = NULL;
            leader = false; /* the lock went with the connection */
            last_try = 0;
            set_leader(l, false);
            push(l, PG_LISTEN_ALL, NULL, 0);
            continue;
        }
        drain_notifications(l, pg);
    }
    PQfinish(pg);
}

static void on_async(uv_async_t *h) {
    pg_listen *l = h->data;
    pthread_mutex_lock(&l->mu);
    bool everything = l->everything;
    size_t n = l->npending;
    pending *items = n ? malloc(n * sizeof *items) : NULL;
    if (items) memcpy(items, l->pending, n * sizeof *items);
    if (n && !items) everything = true; /* no memory: catch everyone up */
    l->npending = 0;
    l->everything = false;
    bool leader = l->leader, report_leader = l->leader != l->leader_reported;
    l->leader_reported = l->leader;
    pthread_mutex_unlock(&l->mu);
    /* The role first: a new leader then delivers what the changes below announce. */
    if (report_leader)
        l->on_change(l->arg, leader ? PG_LISTEN_LEADER : PG_LISTEN_FOLLOWER, NULL, 0);
    for (size_t i = 0; items && i < n; i++)
        l->on_change(l->arg, items[i].what, items[i].id, items[i].version);
    if (everything) l->on_change(l->arg, PG_LISTEN_ALL, NULL, 0);
    free(items);
}

pg_listen *pg_listen_new(uv_loop_t *loop, const char *uri, pg_listen_fn on_change, void *arg) {
    pg_listen *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->loop = loop;
    l->on_change = on_change;
    l->arg = arg;
    l->uri = strdup(uri);
    l->pending = calloc(PG_LISTEN_PENDING_MAX, sizeof *l->pending);
    if (!l->uri || !l->pending || pipe(l->wake) != 0) {
        free(l->uri);
        free(l->pending);
        free(l);
        return NULL;
    }
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->ready_cond, NULL);
    uv_async_init(loop, &l->async, on_async);
    l->async.data = l;
    if (uv_thread_create(&l->thread, listen_thread, l) != 0) {
        pg_listen_stop(l);
        return NULL;
    }
    l->started = true;
    return l;
}

bool pg_listen_wait_ready(pg_listen *l, uint64_t timeout_ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(timeout_ms / 1000);
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&l->mu);
    while (!l->ready && pthread_cond_timedwait(&l->ready_cond, &l->mu, &until) == 0) {
    }
    bool leader = l->leader;
    l->leader_reported = leader; /* the caller sets the role from this answer */
    pthread_mutex_unlock(&l->mu);
    return leader;
}

static void on_closed(uv_handle_t *h) {
    pg_listen *l = h->data;
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->ready_cond);
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
