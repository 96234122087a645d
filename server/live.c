#include "server/live.h"

#include "server/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_PAGE 100

typedef struct subscriber {
    struct subscriber *prev, *next;
    live *owner;
    http_request *req;
    char session_id[33];
    int64_t last_seq;
    bool waiting_drain; /* over the write limit: resume on drain */
} subscriber;

struct live {
    uv_loop_t *loop;
    store_conn *reader;
    uv_timer_t heartbeat;
    subscriber *head;
    size_t count;
    bool stopped;
};

static void unlink_subscriber(live *l, subscriber *s) {
    if (s->prev) s->prev->next = s->next;
    if (s->next) s->next->prev = s->prev;
    if (l->head == s) l->head = s->next;
    l->count--;
}

/* Sends what follows last_seq until caught up or the connection is over its write limit. The
 * HTTP layer calls on_close only from a loop callback of its own, never from inside a write, so
 * s stays valid throughout. */
static void catch_up(subscriber *s) {
    while (!s->waiting_drain) {
        json_t *page =
            store_events_page_new(s->owner->reader, s->session_id, s->last_seq, LIVE_PAGE);
        if (!page) {
            log_msg(LOG_ERROR, "live: cannot read events of %s", s->session_id);
            return;
        }
        size_t i, n = json_array_size(page);
        json_t *ev;
        json_array_foreach(page, i, ev) {
            char *data = json_dumps(ev, JSON_COMPACT);
            if (!data) break;
            json_int_t seq = json_integer_value(json_object_get(ev, "seq"));
            const char *type = json_string_value(json_object_get(ev, "type"));
            /* Compact JSON has no raw newline, so the event fits one data: line. */
            size_t len = strlen(data) + strlen(type) + 64;
            char *msg = malloc(len);
            int rc = -1;
            if (msg) {
                int m = snprintf(msg, len, "id: %lld\nevent: %s\ndata: %s\n\n", (long long)seq,
                                 type, data);
                rc = http_stream_write(s->req, msg, (size_t)m);
            }
            free(msg);
            free(data);
            if (rc < 0) {
                json_decref(page);
                return; /* closed: on_close follows and frees the subscriber */
            }
            s->last_seq = seq;
            if (rc == 1) s->waiting_drain = true;
            if (rc != 0) break;
        }
        json_decref(page);
        if (n < LIVE_PAGE) return;
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
    free(s);
    http_stream_end(req);
}

void live_subscribe(live *l, http_request *req, const char *session_id, int64_t after) {
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
    s->last_seq = after;
    s->next = l->head;
    if (l->head) l->head->prev = s;
    l->head = s;
    l->count++;
    /* A comment first, so that the client sees the stream is open even before any event. */
    if (http_stream_write(req, ": stream open\n\n", 15) == 1) s->waiting_drain = true;
    catch_up(s);
}

void live_publish(live *l, const char *session_id) {
    for (subscriber *s = l->head; s; s = s->next)
        if (strcmp(s->session_id, session_id) == 0) catch_up(s);
}

static void on_heartbeat(uv_timer_t *t) {
    live *l = t->data;
    for (subscriber *s = l->head; s; s = s->next)
        if (!s->waiting_drain && http_stream_write(s->req, ": heartbeat\n\n", 13) == 1)
            s->waiting_drain = true;
}

live *live_new(uv_loop_t *loop, store_conn *reader) {
    live *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->loop = loop;
    l->reader = reader;
    uv_timer_init(loop, &l->heartbeat);
    l->heartbeat.data = l;
    uv_timer_start(&l->heartbeat, on_heartbeat, LIVE_HEARTBEAT_MS, LIVE_HEARTBEAT_MS);
    return l;
}

size_t live_subscriber_count(const live *l) {
    return l->count;
}

void live_stop(live *l) {
    if (l->stopped) return;
    l->stopped = true;
    uv_close((uv_handle_t *)&l->heartbeat, NULL);
}

void live_free(live *l) {
    free(l);
}
