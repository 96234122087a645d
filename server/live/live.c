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
#define LIVE_RETRY_MS   100
#define CHANNEL_BUCKETS 256 /* channels are at most the streams: a few hundred by default */
/* Streams written per turn of the loop, over every channel: a page going to a thousand
 * subscribers is written in slices, and between two the loop serves other requests (another
 * session's action waits for one slice, not for the whole fan-out). */
#define LIVE_SLICE 16
/* Pages read by subscribers catching up for themselves, per turn of the loop (each up to
 * LIVE_PAGE events, serialised for that subscriber alone): hundreds of subscribers far behind
 * take their turns, a page each, instead of holding the loop while they all catch up. */
#define LIVE_CATCHUP_PAGES 2

typedef struct channel channel;

typedef struct subscriber {
    struct subscriber *prev, *next;   /* every stream of the node */
    struct subscriber *cprev, *cnext; /* the streams of its channel */
    struct subscriber *qprev, *qnext; /* the node's queue of subscribers to catch up */
    live *owner;
    channel *ch;
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
    bool queued;        /* in the catch-up queue: reads its next page at its turn */
    /* The read in flight. Set before db_reads_submit; the reader thread writes page; on_page
     * takes it. Nothing else of the subscriber is touched off the loop thread. */
    int64_t read_after;
    json_t *read_page; /* NULL: storage error */
} subscriber;

/* The subscribers of one session, and the one read that serves every one of them that is caught
 * up ("live", is_live: no read of its own in flight or queued, not waiting for its connection to
 * drain, not refused by the read pool, not closed). A channel
 * is idle, reading (one page, in flight), or delivering that page's frames, a slice of streams
 * per turn of the loop; then it reads again if the page was full or a commit came meanwhile. */
struct channel {
    channel *hnext; /* its bucket */
    live *owner;
    char session_id[33];
    subscriber *subs;
    size_t nsubs;
    bool dirty;      /* a commit was published (or the page was full): read when idle */
    bool reading;    /* the channel lives until on_channel_page has run */
    bool refused;    /* the pool refused the read: the retry timer marks it again */
    bool delivering; /* frames[0..nframes) are being written */
    bool page_full;  /* the page delivered was a whole one: more may follow at once */
    int64_t read_after;
    json_t *read_page;
    http_chunk *frames[LIVE_PAGE];
    int64_t seqs[LIVE_PAGE];
    size_t nframes;
};

struct live {
    uv_loop_t *loop;
    db_reads *reads;
    uv_timer_t heartbeat;
    uv_timer_t poll;     /* live_poll */
    uv_timer_t retry;    /* reads the pool refused */
    uv_timer_t lifetime; /* ends streams older than lim.max_stream_lifetime_ms */
    uv_idle_t flush;     /* the channels published since, read once each, written in slices */
    subscriber *head;
    size_t count;
    subscriber *cq_head, *cq_tail; /* to catch up, a page each at their turn (on_flush) */
    channel *buckets[CHANNEL_BUCKETS];
    http_chunk *heartbeat_chunk;
    bool stopped;
    size_t flush_from; /* the bucket on_flush starts at (fairness between channels) */
    bool in_flush;     /* inside on_flush, which stays active while work is left ... */
    bool flush_again;  /* ... or while flush_soon was called meanwhile */
    live_limits lim;
    live_stats stats;
};

/* ---- frames: events as Server-Sent Events, each serialised once -------------------------- */

/* One page of events as frames, in order: chunks[i] carries the event seqs[i]. Returns how many
 * were made; fewer than the page holds only when out of memory (the caller reads again for the
 * rest: a channel by its retry timer, a subscriber once live by its channel's next read). */
static size_t frames_new(live *l, const json_t *page, http_chunk **chunks, int64_t *seqs) {
    size_t i, n = 0;
    json_t *ev;
    json_array_foreach(page, i, ev) {
        if (n == LIVE_PAGE) break;
        char *data = json_dumps(ev, JSON_COMPACT);
        if (!data) break;
        json_int_t seq = json_integer_value(json_object_get(ev, "seq"));
        const char *type = json_string_value(json_object_get(ev, "type"));
        if (!type) type = "event";
        /* Compact JSON has no raw newline, so the event fits one data: line. */
        size_t len = strlen(data) + strlen(type) + 64;
        char *msg = malloc(len);
        http_chunk *c = NULL;
        if (msg) {
            int m =
                snprintf(msg, len, "id: %lld\nevent: %s\ndata: %s\n\n", (long long)seq, type, data);
            c = http_chunk_new(msg, (size_t)m);
        }
        free(msg);
        free(data);
        if (!c) break;
        chunks[n] = c;
        seqs[n] = seq;
        n++;
    }
    l->stats.frames_made += n;
    return n;
}

static void frames_free(http_chunk **chunks, size_t n) {
    for (size_t i = 0; i < n; i++)
        http_chunk_free(chunks[i]);
}

/* Writes the frames after s->last_seq, all at once. False when the stream cannot take more now
 * (over its write limit: waiting for drain; or closed). The HTTP layer calls on_close only from
 * a loop callback of its own, never from inside a write, so s stays valid throughout. */
static bool deliver(subscriber *s, http_chunk *const *chunks, const int64_t *seqs, size_t n) {
    size_t k = 0;
    while (k < n && seqs[k] <= s->last_seq)
        k++;
    if (k == n) return true;
    int rc = http_stream_write_shared(s->req, chunks + k, n - k);
    if (rc < 0) {
        s->dead = true; /* closed: on_close follows and frees the subscriber */
        return false;
    }
    s->last_seq = seqs[n - 1];
    s->owner->stats.deliveries += n - k;
    if (rc == 1) {
        s->waiting_drain = true;
        return false;
    }
    return true;
}

/* A subscriber the channel's read serves. */
static bool is_live(const subscriber *s) {
    return !s->reading && !s->waiting_drain && !s->dead && !s->refused && !s->queued;
}

/* ---- a subscriber's own reads: catching up from the store -------------------------------- */

/* Writes the page's events (read for s alone). True when a whole page went out with the
 * connection still within its limit, so more may follow at once. */
static bool send_page(subscriber *s, const json_t *page) {
    if (!page) {
        log_msg(LOG_ERROR, "live: cannot read events of %s", s->session_id);
        return false;
    }
    /* A heartbeat went over the limit while the read was in flight: send nothing now; the drain
     * reads the same events again from last_seq. */
    if (s->waiting_drain || s->dead) return false;
    http_chunk *chunks[LIVE_PAGE];
    int64_t seqs[LIVE_PAGE];
    size_t n = frames_new(s->owner, page, chunks, seqs);
    size_t total = json_array_size(page);
    bool open = deliver(s, chunks, seqs, n);
    frames_free(chunks, n);
    /* Out of memory part way: the next publish, drain or poll retries from last_seq. */
    return open && n == total && total == LIVE_PAGE;
}

/* The reader thread (inline: the loop thread, inside db_reads_submit). */
static void read_page(store_conn *conn, void *arg) {
    subscriber *s = arg;
    s->read_page = store_events_page_new(conn, s->session_id, s->read_after, LIVE_PAGE);
}

static void on_retry(uv_timer_t *t);
static void catch_up(subscriber *s);

static void start_retry(live *l) {
    if (!l->stopped && !uv_is_active((uv_handle_t *)&l->retry))
        uv_timer_start(&l->retry, on_retry, LIVE_RETRY_MS, 0);
}

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
    s->owner->stats.own_reads++;
    if (!page) { /* a storage error: the retry timer comes back for it, commit or not */
        s->refused = true;
        start_retry(s->owner);
    }
    bool more = send_page(s, page);
    json_decref(page);
    if (s->again && !s->dead) more = true; /* the page may have been read before that commit */
    if (more) catch_up(s); /* queued: the next page at its turn (inline too: no recursion) */
}

static void flush_soon(live *l);

static void queue_unlink(live *l, subscriber *s) {
    if (!s->queued) return;
    if (s->qprev)
        s->qprev->qnext = s->qnext;
    else
        l->cq_head = s->qnext;
    if (s->qnext)
        s->qnext->qprev = s->qprev;
    else
        l->cq_tail = s->qprev;
    s->qprev = s->qnext = NULL;
    s->queued = false;
}

/* The subscriber reads for itself what follows last_seq, a page at its turn (on_flush), until
 * caught up or its connection is over its write limit. With a read already in flight, only
 * notes that another must follow it. Once caught up the subscriber is live: its channel's reads
 * serve it from then on. */
static void catch_up(subscriber *s) {
    if (s->reading) {
        s->again = true;
        return;
    }
    if (s->queued || s->dead || s->waiting_drain) return;
    live *l = s->owner;
    s->queued = true;
    s->qprev = l->cq_tail;
    s->qnext = NULL;
    if (l->cq_tail)
        l->cq_tail->qnext = s;
    else
        l->cq_head = s;
    l->cq_tail = s;
    flush_soon(l);
}

/* One page for the subscriber at the head of the queue; on_page queues it again if there may be
 * more. */
static void catch_up_step(subscriber *s) {
    queue_unlink(s->owner, s);
    if (s->waiting_drain || s->dead) return;
    s->reading = true;
    s->again = s->refused = false;
    s->read_after = s->last_seq;
    if (db_reads_submit(s->owner->reads, read_page, on_page, s) != 0) {
        /* Refused (the pool's queue is full): nothing is lost, last_seq has not moved; the
         * retry timer comes back for it. */
        s->reading = false;
        s->refused = true;
        start_retry(s->owner);
    }
}

/* ---- channels: one read and one serialisation per commit, whatever the subscribers -------- */

static size_t bucket_of(const char *session_id) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)session_id; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h % CHANNEL_BUCKETS;
}

static channel *channel_find(live *l, const char *session_id) {
    for (channel *ch = l->buckets[bucket_of(session_id)]; ch; ch = ch->hnext)
        if (strcmp(ch->session_id, session_id) == 0) return ch;
    return NULL;
}

static channel *channel_get(live *l, const char *session_id) {
    channel *ch = channel_find(l, session_id);
    if (ch) return ch;
    ch = calloc(1, sizeof *ch);
    if (!ch) return NULL;
    ch->owner = l;
    snprintf(ch->session_id, sizeof ch->session_id, "%s", session_id);
    size_t b = bucket_of(session_id);
    ch->hnext = l->buckets[b];
    l->buckets[b] = ch;
    return ch;
}

/* Unhooks and frees a channel with no subscribers left, unless its read is in flight (then
 * on_channel_page does). */
static void channel_maybe_free(channel *ch) {
    if (ch->nsubs || ch->reading) return;
    live *l = ch->owner;
    for (channel **pp = &l->buckets[bucket_of(ch->session_id)]; *pp; pp = &(*pp)->hnext)
        if (*pp == ch) {
            *pp = ch->hnext;
            break;
        }
    frames_free(ch->frames, ch->nframes);
    free(ch);
}

static void channel_read_page(store_conn *conn, void *arg) {
    channel *ch = arg;
    ch->read_page = store_events_page_new(conn, ch->session_id, ch->read_after, LIVE_PAGE);
}

/* The loop thread, once channel_read_page has run (inline: inside db_reads_submit). The page is
 * serialised once here; on_flush writes it. */
static void on_channel_page(void *arg) {
    channel *ch = arg;
    live *l = ch->owner;
    json_t *page = ch->read_page;
    ch->read_page = NULL;
    ch->reading = false;
    bool failed = !page;
    if (!page) {
        log_msg(LOG_ERROR, "live: cannot read events of %s", ch->session_id);
    } else if (ch->nsubs) {
        l->stats.channel_reads++;
        size_t total = json_array_size(page);
        ch->nframes = frames_new(l, page, ch->frames, ch->seqs);
        ch->page_full = ch->nframes == total && total == LIVE_PAGE;
        ch->delivering = ch->nframes > 0;
        failed = ch->nframes < total; /* out of memory part way */
    }
    if (failed && ch->nsubs) {
        /* The events are in the store: come back for them, even if no commit follows. */
        ch->refused = true;
        start_retry(l);
    }
    json_decref(page);
    if (!ch->nsubs)
        channel_maybe_free(ch); /* its last subscriber went during the read */
    else
        flush_soon(l); /* deliver (inline: on_flush is the caller and carries on) */
}

/* Reads the page after the oldest last event of the live subscribers. No live subscriber:
 * nothing to read (the others read for themselves). */
static void channel_read(channel *ch) {
    if (ch->reading || ch->delivering) return; /* dirty stays: read when this is done */
    ch->dirty = false;
    bool any = false;
    int64_t after = 0;
    for (subscriber *s = ch->subs; s; s = s->cnext)
        if (is_live(s) && (!any || s->last_seq < after)) {
            after = s->last_seq;
            any = true;
        }
    if (!any) return;
    ch->reading = true;
    ch->refused = false;
    ch->read_after = after;
    if (db_reads_submit(ch->owner->reads, channel_read_page, on_channel_page, ch) != 0) {
        ch->reading = false;
        ch->refused = true; /* nothing is lost: the retry timer comes back for it */
        start_retry(ch->owner);
    }
}

/* Writes the channel's frames to at most `budget` live subscribers that lack them; a live one
 * with a gap before them (it turned live after the read began) is sent to catch up from the
 * store on its own. Returns how many it wrote to or sent. Once every subscriber has them, the
 * frames go, and the channel reads on if the page was full. Rescanning from the head is what makes
 * a slice safe against subscribers coming and going between two: one served already is skipped (it
 * has the last frame). */
static size_t channel_deliver(channel *ch, size_t budget) {
    size_t done = 0;
    int64_t first = ch->seqs[0], last = ch->seqs[ch->nframes - 1];
    for (subscriber *s = ch->subs; s; s = s->cnext) {
        if (!is_live(s) || s->last_seq >= last) continue;
        if (done == budget) return done;
        if (s->last_seq < first - 1)
            catch_up(s);
        else
            deliver(s, ch->frames, ch->seqs, ch->nframes);
        done++;
    }
    frames_free(ch->frames, ch->nframes);
    ch->nframes = 0;
    ch->delivering = false;
    if (ch->page_full) ch->dirty = true;
    return done;
}

/* An idle handle, so once per turn of the loop while there is work, and with the loop's poll
 * for I/O in between (a zero timer would not do: libuv 1.44 runs a timer restarted from its own
 * callback again in the same pass, before any I/O). Reads each channel published since (once,
 * however many commits and subscribers it had: a batch of the writer's publishes once per job),
 * and writes what was read to at most LIVE_SLICE streams in all. */
static void on_flush(uv_idle_t *t) {
    live *l = t->data;
    size_t budget = LIVE_SLICE;
    bool left = false;
    l->in_flush = true;
    l->flush_again = false;
    for (int i = 0; i < LIVE_CATCHUP_PAGES && l->cq_head; i++)
        catch_up_step(l->cq_head);
    /* The turn starts at the bucket after the one that used up the last turn's budget, so a
     * busy session's fan-out cannot keep another session's waiting turn after turn. */
    size_t start = l->flush_from;
    for (size_t i = 0; i < CHANNEL_BUCKETS; i++) {
        size_t b = (start + i) % CHANNEL_BUCKETS;
        for (channel *ch = l->buckets[b], *next; ch; ch = next) {
            next = ch->hnext; /* nothing here frees a channel that has subscribers */
            if (ch->dirty && !ch->reading && !ch->delivering) channel_read(ch);
            if (ch->delivering) {
                if (budget) {
                    budget -= channel_deliver(ch, budget);
                    if (!budget) l->flush_from = (b + 1) % CHANNEL_BUCKETS;
                }
                if (ch->delivering) left = true;
            }
            if (ch->dirty && !ch->reading && !ch->delivering) left = true;
        }
    }
    if (l->cq_head) left = true;
    l->in_flush = false;
    if (!left && !l->flush_again) uv_idle_stop(&l->flush);
}

static void flush_soon(live *l) {
    if (l->stopped) return;
    if (l->in_flush)
        l->flush_again = true;
    else
        uv_idle_start(&l->flush, on_flush); /* no-op when active */
}

static void channel_mark(channel *ch) {
    ch->dirty = true;
    flush_soon(ch->owner);
}

/* ---- streams ----------------------------------------------------------------------------- */

static void unlink_subscriber(live *l, subscriber *s) {
    queue_unlink(l, s);
    if (s->prev) s->prev->next = s->next;
    if (s->next) s->next->prev = s->prev;
    if (l->head == s) l->head = s->next;
    l->count--;
    channel *ch = s->ch;
    if (s->cprev) s->cprev->cnext = s->cnext;
    if (s->cnext) s->cnext->cprev = s->cprev;
    if (ch->subs == s) ch->subs = s->cnext;
    ch->nsubs--;
    s->ch = NULL;
    channel_maybe_free(ch);
}

static void on_drain(http_request *req, void *arg) {
    (void)req;
    subscriber *s = arg;
    s->waiting_drain = false;
    catch_up(s); /* it fell behind: from the store, on its own */
}

/* The subscriber goes: at once, or (a pool read still writes into it) when that read is in. */
static void subscriber_end(live *l, subscriber *s) {
    unlink_subscriber(l, s);
    http_stream_end(s->req);
    if (s->reading)
        s->closed = true;
    else
        free(s);
}

static void on_close(http_request *req, void *arg) {
    (void)req;
    subscriber *s = arg;
    subscriber_end(s->owner, s);
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

static void refuse_start(http_request *req) {
    static const char body[] = "{\"error\":{\"code\":\"shutting_down\",\"message\":\"the "
                               "stream could not start\",\"details\":{}}}";
    http_respond_take(req, 503, "application/json; charset=utf-8", NULL, strdup(body),
                      sizeof body - 1);
}

void live_subscribe(live *l, http_request *req, const char *session_id, const char *role,
                    int64_t after) {
    if (!l->stopped && check_bounds(l, req, session_id, role) != 0) return;
    subscriber *s = calloc(1, sizeof *s);
    channel *ch = s && !l->stopped ? channel_get(l, session_id) : NULL;
    static const http_stream_callbacks cbs = {on_drain, on_close};
    if (!ch ||
        http_stream_start(req, 200, "text/event-stream",
                          "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n", &cbs, s) != 0) {
        free(s);
        if (ch) channel_maybe_free(ch);
        refuse_start(req);
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
    s->ch = ch;
    s->cnext = ch->subs;
    if (ch->subs) ch->subs->cprev = s;
    ch->subs = s;
    ch->nsubs++;
    /* A comment first, so that the client sees the stream is open even before any event. */
    if (http_stream_write(req, ": stream open\n\n", 15) == 1) s->waiting_drain = true;
    catch_up(s);
}

/* A subscriber reading for itself reads once more (its read may predate the commit); the live
 * ones are served by one read of the channel at the next flush. */
void live_publish(live *l, const char *session_id) {
    channel *ch = channel_find(l, session_id);
    if (!ch) return;
    for (subscriber *s = ch->subs; s; s = s->cnext)
        if (s->reading) s->again = true;
    channel_mark(ch);
}

static void on_retry(uv_timer_t *t) {
    live *l = t->data;
    for (subscriber *s = l->head; s; s = s->next)
        if (s->refused) catch_up(s);
    for (size_t b = 0; b < CHANNEL_BUCKETS; b++)
        for (channel *ch = l->buckets[b]; ch; ch = ch->hnext)
            if (ch->refused) channel_mark(ch);
}

/* Another node's commits: every channel reads what its live subscribers lack. */
static void on_poll(uv_timer_t *t) {
    live *l = t->data;
    for (size_t b = 0; b < CHANNEL_BUCKETS; b++)
        for (channel *ch = l->buckets[b]; ch; ch = ch->hnext)
            channel_mark(ch);
}

/* Ends a stream that has lived its time: the client's EventSource reconnects with
 * Last-Event-ID and misses nothing. The subscriber goes as on_close would take it. */
static void end_stream(live *l, subscriber *s) {
    http_stream_write(s->req, ": stream lifetime reached; reconnect\n\n", 38);
    subscriber_end(l, s);
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
    http_chunk *hb = l->heartbeat_chunk;
    for (subscriber *s = l->head; s; s = s->next)
        if (!s->waiting_drain && http_stream_write_shared(s->req, &hb, 1) == 1)
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
    l->heartbeat_chunk = http_chunk_new(": heartbeat\n\n", 13);
    if (!l->heartbeat_chunk) {
        free(l);
        return NULL;
    }
    l->loop = loop;
    l->reads = reads;
    uv_timer_init(loop, &l->heartbeat);
    uv_timer_init(loop, &l->poll);
    uv_timer_init(loop, &l->retry);
    uv_timer_init(loop, &l->lifetime);
    uv_idle_init(loop, &l->flush);
    l->heartbeat.data = l->poll.data = l->retry.data = l->lifetime.data = l->flush.data = l;
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

live_stats live_get_stats(const live *l) {
    return l->stats;
}

void live_stop(live *l) {
    if (l->stopped) return;
    l->stopped = true;
    /* For operators (and the fan-out tests): sharing works when events serialised stay near
     * the events committed, far below the deliveries. */
    log_msg(LOG_INFO,
            "live: %" PRIu64 " events serialised for %" PRIu64 " deliveries (%" PRIu64
            " channel reads, %" PRIu64 " reads by one subscriber)",
            l->stats.frames_made, l->stats.deliveries, l->stats.channel_reads, l->stats.own_reads);
    uv_close((uv_handle_t *)&l->heartbeat, NULL);
    uv_close((uv_handle_t *)&l->poll, NULL);
    uv_close((uv_handle_t *)&l->retry, NULL);
    uv_close((uv_handle_t *)&l->lifetime, NULL);
    uv_close((uv_handle_t *)&l->flush, NULL);
}

void live_free(live *l) {
    if (!l) return;
    /* Every stream has ended and every read was answered, so no channel is left: each went with
     * its last subscriber, or with its read (on_channel_page). */
    http_chunk_free(l->heartbeat_chunk);
    free(l);
}
