#include "server/live/live.h"

#include "server/core/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_PAGE 100
/* A read the pool refused (its queue was full) is tried again this much later: the events are
 * in the database, so a subscriber only has to come back for them, not wait for another commit
 * or drain that may never come. */
#define LIVE_RETRY_MS 100

typedef struct subscriber {
    struct subscriber *prev, *next;
    live *owner;
    http_request *req;
    char session_id[33]; /* fixed once subscribed: the reader thread reads it */
    char client[48];     /* req->client, for the per-client bound */
    char role[48];       /* "" for an anonymous reader */
    uint64_t started_ms; /* uv_now when subscribed, for the lifetime bound */
    int64_t last_seq;
    bool waiting_drain; /* over the write limit: resume on drain */
    bool dead;          /* a write found the stream closed: on_close follows, nothing to send */
    bool reading;       /* a read is in flight: the subscriber lives until on_page has run */
    bool again;         /* a commit was published during the read: read once more after it */
    bool closed;        /* on_close came during the read (pool): on_page frees the subscriber */
    bool refused;       /* the pool refused the read: the retry timer tries again */
    bool in_submit;     /* inside db_reads_submit: on_page leaves it to catch_up's loop ... */
    bool more;          /* ... telling it whether there may be more to read */
    /* The read in flight. Set before db_reads_submit; the reader thread writes page; on_page
     * takes it. Nothing else of the subscriber is touched off the loop thread. */
    int64_t read_after;
    json_t *read_page; /* NULL: storage error */
} subscriber;

struct live {
    uv_loop_t *loop;
    db_reads *reads;
    uv_timer_t heartbeat;
    uv_timer_t poll;     /* live_poll */
    uv_timer_t retry;    /* reads the pool refused */
    uv_timer_t lifetime; /* ends streams older than lim.max_stream_lifetime_ms */
    subscriber *head;
    size_t count;
    bool stopped;
    live_limits lim;
};

static void unlink_subscriber(live *l, subscriber *s) {
    if (s->prev) s->prev->next = s->next;
    if (s->next) s->next->prev = s->prev;
    if (l->head == s) l->head = s->next;
    l->count--;
}

/* Writes the page's events. True when a whole page went out with the connection still within
 * its limit, so more may follow at once. The HTTP layer calls on_close only from a loop callback
 * of its own, never from inside a write, so s stays valid throughout. */
static bool send_page(subscriber *s, const json_t *page) {
    if (!page) {
        log_msg(LOG_ERROR, "live: cannot read events of %s", s->session_id);
        return false;
    }
    /* A heartbeat went over the limit while the read was in flight: send nothing now; the drain
     * reads the same events again from last_seq. */
    if (s->waiting_drain) return false;
    size_t i, n = json_array_size(page);
    json_t *ev;
    json_array_foreach(page, i, ev) {
        char *data = json_dumps(ev, JSON_COMPACT);
        if (!data) return false; /* out of memory: the next publish, drain or poll retries */
        json_int_t seq = json_integer_value(json_object_get(ev, "seq"));
        const char *type = json_string_value(json_object_get(ev, "type"));
        /* Compact JSON has no raw newline, so the event fits one data: line. */
        size_t len = strlen(data) + strlen(type) + 64;
        char *msg = malloc(len);
        int rc = -1;
        if (msg) {
            int m =
                snprintf(msg, len, "id: %lld\nevent: %s\ndata: %s\n\n", (long long)seq, type, data);
            rc = http_stream_write(s->req, msg, (size_t)m);
        }
        free(msg);
        free(data);
        if (rc < 0) {
            s->dead = true; /* closed: on_close follows and frees the subscriber */
            return false;
        }
        s->last_seq = seq;
        if (rc == 1) {
            s->waiting_drain = true;
            return false;
        }
    }
    return n == LIVE_PAGE;
}

/* The reader thread (inline: the loop thread, inside db_reads_submit). */
static void read_page(store_conn *conn, void *arg) {
    subscriber *s = arg;
    s->read_page = store_events_page_new(conn, s->session_id, s->read_after, LIVE_PAGE);
}

static void on_retry(uv_timer_t *t);
static void catch_up(subscriber *s);

/* The loop thread, once read_page has run: inside db_reads_submit (inline), or later (pool). */
static void on_page(void *arg) {
    subscriber *s = arg;
    json_t *page = s->read_page;
    s->read_page = NULL;
    s->reading = false;
    if (s->closed) { /* only a pool read outlives its stream; s is unlinked already */
        json_decref(page);
        free(s);
        return;
    }
    bool more = send_page(s, page);
    json_decref(page);
    if (s->again && !s->dead) more = true; /* the page may have been read before that commit */
    if (s->in_submit)
        s->more = more; /* catch_up's loop goes on: no recursion however long the backlog */
    else if (more)
        catch_up(s);
}

/* Sends what follows last_seq until caught up or the connection is over its write limit, one
 * page per read. With a read already in flight, only notes that another must follow it. */
static void catch_up(subscriber *s) {
    if (s->reading) {
        s->again = true;
        return;
    }
    while (!s->waiting_drain && !s->dead) {
        s->reading = true;
        s->again = s->more = s->refused = false;
        s->read_after = s->last_seq;
        s->in_submit = true;
        int rc = db_reads_submit(s->owner->reads, read_page, on_page, s);
        s->in_submit = false;
        if (rc != 0) {
            /* Refused (the pool's queue is full): nothing is lost, last_seq has not moved; the
             * retry timer comes back for it (as would the next publish, drain or poll). */
            s->reading = false;
            s->refused = true;
            live *l = s->owner;
            if (!l->stopped && !uv_is_active((uv_handle_t *)&l->retry))
                uv_timer_start(&l->retry, on_retry, LIVE_RETRY_MS, 0);
            return;
        }
        if (s->reading || !s->more) return; /* pool: on_page carries on; inline: caught up */
    }
}

static void on_drain(http_request *req, void *arg) {
    (void)req;
    subscriber *s = arg;
    s->waiting_drain = false;
    catch_up(s);
}

static void on_close(http_request *req, void *arg) {
    subscriber *s = arg;
    unlink_subscriber(s->owner, s);
    http_stream_end(req);
    if (s->reading)
        s->closed = true; /* the reader thread still writes into s: on_page frees it */
    else
        free(s);
}

static void refuse(http_request *req, int status, const char *scope, int64_t limit) {
    char body[320];
    int n = snprintf(body, sizeof body,
                     "{\"error\":{\"code\":\"too_many_streams\",\"message\":\"%s holds as "
                     "many live event streams as it may (%lld); close one or retry later\","
                     "\"details\":{\"scope\":\"%s\",\"limit\":%lld}}}",
                     strcmp(scope, "server") == 0    ? "the server"
                     : strcmp(scope, "client") == 0  ? "your address"
                     : strcmp(scope, "session") == 0 ? "this session"
                                                     : "this token",
                     (long long)limit, scope, (long long)limit);
    /* The connection came for a stream: refused, it closes rather than hold a slot idle. */
    http_request_close_after(req);
    http_respond_take(req, status, "application/json; charset=utf-8",
                      status == 429 ? "Retry-After: 5\r\n" : NULL, strndup(body, (size_t)n),
                      (size_t)n);
}

/* 0 when a stream for (client, session, role) fits every bound; else answers and returns -1.
 * Streams are a share of the connection slots, so counting them is a walk of at most that
 * many. */
static int check_bounds(live *l, http_request *req, const char *session_id, const char *role) {
    const live_limits *lim = &l->lim;
    if (lim->max_streams > 0 && (int64_t)l->count >= lim->max_streams) {
        refuse(req, 503, "server", lim->max_streams);
        return -1;
    }
    int64_t by_client = 0, by_session = 0, by_token = 0;
    for (subscriber *s = l->head; s; s = s->next) {
        if (strcmp(s->client, req->client) == 0) by_client++;
        if (strcmp(s->session_id, session_id) != 0) continue;
        by_session++;
        if (role[0] && strcmp(s->role, role) == 0) by_token++;
    }
    if (lim->max_streams_per_client > 0 && by_client >= lim->max_streams_per_client) {
        refuse(req, 429, "client", lim->max_streams_per_client);
        return -1;
    }
    if (lim->max_streams_per_session > 0 && by_session >= lim->max_streams_per_session) {
        refuse(req, 429, "session", lim->max_streams_per_session);
        return -1;
    }
    if (lim->max_streams_per_token > 0 && by_token >= lim->max_streams_per_token) {
        refuse(req, 429, "token", lim->max_streams_per_token);
        return -1;
    }
    return 0;
}

void live_subscribe(live *l, http_request *req, const char *session_id, const char *role,
                    int64_t after) {
    if (!l->stopped && check_bounds(l, req, session_id, role) != 0) return;
    subscriber *s = calloc(1, sizeof *s);
    static const http_stream_callbacks cbs = {on_drain, on_close};
    if (!s || l->stopped ||
        http_stream_start(req, 200, "text/event-stream",
                          "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n", &cbs, s) != 0) {
        free(s);
        static const char body[] = "{\"error\":{\"code\":\"shutting_down\",\"message\":\"the "
                                   "stream could not start\",\"details\":{}}}";
        http_respond_take(req, 503, "application/json; charset=utf-8", NULL, strdup(body),
                          sizeof body - 1);
        return;
    }
    s->owner = l;
    s->req = req;
    snprintf(s->session_id, sizeof s->session_id, "%s", session_id);
    snprintf(s->client, sizeof s->client, "%s", req->client ? req->client : "");
    snprintf(s->role, sizeof s->role, "%s", role ? role : "");
    s->started_ms = uv_now(l->loop);
    s->last_seq = after;
    s->next = l->head;
    if (l->head) l->head->prev = s;
    l->head = s;
    l->count++;
    /* A comment first, so that the client sees the stream is open even before any event. */
    if (http_stream_write(req, ": stream open\n\n", 15) == 1) s->waiting_drain = true;
    catch_up(s);
}

/* Iterating while catching up is safe: neither on_page (s->closed is false for a linked
 * subscriber) nor the HTTP layer (on_close comes from a loop callback of its own) unlinks or
 * frees a subscriber from inside these calls. */
void live_publish(live *l, const char *session_id) {
    for (subscriber *s = l->head; s; s = s->next)
        if (strcmp(s->session_id, session_id) == 0) catch_up(s);
}

static void on_retry(uv_timer_t *t) {
    live *l = t->data;
    for (subscriber *s = l->head; s; s = s->next)
        if (s->refused) catch_up(s);
}

static void on_poll(uv_timer_t *t) {
    live *l = t->data;
    for (subscriber *s = l->head; s; s = s->next)
        if (!s->reading && !s->waiting_drain) catch_up(s);
}

/* Ends a stream that has lived its time: the client's EventSource reconnects with
 * Last-Event-ID and misses nothing. The subscriber goes as on_close would take it. */
static void end_stream(live *l, subscriber *s) {
    unlink_subscriber(l, s);
    http_stream_write(s->req, ": stream lifetime reached; reconnect\n\n", 38);
    http_stream_end(s->req);
    if (s->reading)
        s->closed = true; /* the read in flight frees it (on_page) */
    else
        free(s);
}

static void on_lifetime(uv_timer_t *t) {
    live *l = t->data;
    uint64_t now = uv_now(l->loop), lifetime = (uint64_t)l->lim.max_stream_lifetime_ms;
    for (subscriber *s = l->head, *next; s; s = next) {
        next = s->next;
        if (!s->dead && now - s->started_ms >= lifetime) end_stream(l, s);
    }
}

static void on_heartbeat(uv_timer_t *t) {
    live *l = t->data;
    for (subscriber *s = l->head; s; s = s->next)
        if (!s->waiting_drain && http_stream_write(s->req, ": heartbeat\n\n", 13) == 1)
            s->waiting_drain = true;
}

void live_set_limits(live *l, const live_limits *lim) {
    l->lim = *lim;
    if (l->stopped) return;
    /* A stream ends within a quarter of its lifetime past it (at least 250 ms apart). */
    uint64_t every = (uint64_t)lim->max_stream_lifetime_ms / 4;
    if (every < 250) every = 250;
    if (lim->max_stream_lifetime_ms > 0)
        uv_timer_start(&l->lifetime, on_lifetime, every, every);
    else
        uv_timer_stop(&l->lifetime);
}

live *live_new(uv_loop_t *loop, db_reads *reads) {
    live *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->loop = loop;
    l->reads = reads;
    uv_timer_init(loop, &l->heartbeat);
    uv_timer_init(loop, &l->poll);
    uv_timer_init(loop, &l->retry);
    uv_timer_init(loop, &l->lifetime);
    l->heartbeat.data = l->poll.data = l->retry.data = l->lifetime.data = l;
    uv_timer_start(&l->heartbeat, on_heartbeat, LIVE_HEARTBEAT_MS, LIVE_HEARTBEAT_MS);
    return l;
}

void live_poll(live *l, uint64_t every_ms) {
    if (l->stopped) return;
    if (every_ms > 0)
        uv_timer_start(&l->poll, on_poll, every_ms, every_ms);
    else
        uv_timer_stop(&l->poll);
}

size_t live_subscriber_count(const live *l) {
    return l->count;
}

void live_stop(live *l) {
    if (l->stopped) return;
    l->stopped = true;
    uv_close((uv_handle_t *)&l->heartbeat, NULL);
    uv_close((uv_handle_t *)&l->poll, NULL);
    uv_close((uv_handle_t *)&l->retry, NULL);
    uv_close((uv_handle_t *)&l->lifetime, NULL);
}

void live_free(live *l) {
    free(l);
}
