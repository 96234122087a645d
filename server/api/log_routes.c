/* GET /v1/sessions/{id}/log?format=jsonl|markdown|html: the campaign log, streamed page by page
 * (chunked), rendered by server/audit/campaign_log.c. It never holds more than one page of events
 * and the HTTP layer's write queue; it pauses while the client's connection is over its limit. Each
 * page is one db_reads read (server/store/db_reads.h): inline for SQLite, on a reader thread for
 * PostgreSQL, so the loop thread never waits on the database. */
#include "server/api/api_internal.h"
#include "server/audit/campaign_log.h"
#include "server/core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PAGE 200
/* A page read the pool refused (its queue was full) is tried again this much later. A refusal
 * says the database is busy, not that the log is over: ending the stream would hand the client
 * a log that looks complete but is not, so the stream waits instead. */
#define LOG_RETRY_MS 100

typedef struct log_stream {
    api_ctx *ctx;
    http_request *req;
    campaign_log *render;
    char id[33];               /* fixed once set: the reader thread reads it */
    int64_t last_seq, end_seq; /* the log as it stood when the request came */
    bool waiting_drain, ended;
    bool dead;      /* a write found the client gone: on_close follows */
    bool reading;   /* a page read is in flight: the stream lives until on_page has run */
    bool closed;    /* on_close came during the read (pool): on_page frees the stream */
    bool in_submit; /* inside db_reads_submit: on_page leaves it to pump_pages's loop */
    bool has_timer; /* retry is initialised (on the first refusal): freeing closes it first */
    uv_timer_t retry;
    /* The read in flight. Set before db_reads_submit; the reader thread writes page; on_page
     * takes it. Nothing else of the stream is touched off the loop thread. */
    int64_t read_after, read_limit;
    json_t *read_page; /* NULL: storage error */
} log_stream;

static void on_timer_closed(uv_handle_t *h) {
    log_stream *ls = h->data;
    campaign_log_free(ls->render);
    free(ls);
}

/* Frees the stream (once its retry timer, if it ever had one, is closed). Never with a read in
 * flight. */
static void log_stream_free(log_stream *ls) {
    if (ls->has_timer) {
        uv_close((uv_handle_t *)&ls->retry, on_timer_closed);
        return;
    }
    campaign_log_free(ls->render);
    free(ls);
}

/* Writes one rendered chunk (taken); false when the stream cannot take more now. Callers render
 * into a variable first: argument evaluation order is unspecified, so `put(ls, f(&len), len)`
 * could read len before f sets it. */
static bool put(log_stream *ls, char *chunk, size_t len) {
    int rc = chunk && len ? http_stream_write(ls->req, chunk, len) : 0;
    free(chunk);
    if (rc == 1) ls->waiting_drain = true;
    if (rc < 0) ls->dead = true;
    return rc == 0;
}

static void finish(log_stream *ls) {
    size_t len = 0;
    char *chunk = campaign_log_end_new(ls->render, &len);
    put(ls, chunk, len);
    ls->ended = true;
    http_stream_end(ls->req);
}

/* The reader thread (inline: the loop thread, inside db_reads_submit). */
static void read_page(store_conn *conn, void *arg) {
    log_stream *ls = arg;
    ls->read_page = store_events_page_new(conn, ls->id, ls->read_after, ls->read_limit);
}

static void pump(log_stream *ls);

/* The loop thread, once read_page has run: inside db_reads_submit (inline), or later (pool). */
static void on_page(void *arg) {
    log_stream *ls = arg;
    json_t *page = ls->read_page;
    ls->read_page = NULL;
    ls->reading = false;
    if (ls->closed) { /* only a pool read outlives its stream */
        json_decref(page);
        log_stream_free(ls);
        return;
    }
    if (!page || json_array_size(page) == 0) {
        /* The log ended early (or could not be read): end the stream where it is. */
        if (!page) log_msg(LOG_ERROR, "log %s: cannot read events", ls->id);
        finish(ls);
    } else {
        size_t i;
        json_t *ev;
        json_array_foreach(page, i, ev) {
            size_t len = 0;
            ls->last_seq = json_integer_value(json_object_get(ev, "seq"));
            char *chunk = campaign_log_event_new(ls->render, ev, &len);
            if (!put(ls, chunk, len)) break;
        }
    }
    json_decref(page);
    /* Inline, pump_pages's loop goes on (no recursion however long the log); a pool read's
     * answer comes from the loop, so it carries on from here. */
    if (!ls->in_submit) pump(ls);
}

static void on_retry(uv_timer_t *t) {
    pump(t->data);
}

/* Reads and sends pages until the log is sent, the connection is over its limit, or a read is
 * in flight (its on_page carries on). */
static void pump_pages(log_stream *ls) {
    while (!ls->waiting_drain && !ls->ended && !ls->dead && !ls->reading) {
        if (ls->last_seq >= ls->end_seq) {
            finish(ls);
            return;
        }
        ls->read_after = ls->last_seq;
        ls->read_limit =
            ls->end_seq - ls->last_seq < LOG_PAGE ? ls->end_seq - ls->last_seq : LOG_PAGE;
        ls->reading = ls->in_submit = true;
        int rc = db_reads_submit(ls->ctx->reads, read_page, on_page, ls);
        ls->in_submit = false;
        if (rc != 0) {
            ls->reading = false;
            if (!ls->has_timer) {
                uv_timer_init(ls->ctx->loop, &ls->retry);
                ls->retry.data = ls;
                ls->has_timer = true;
            }
            uv_timer_start(&ls->retry, on_retry, LOG_RETRY_MS, 0);
            return;
        }
    }
}

/* Runs the pump; frees the stream once it has ended (the HTTP layer never calls on_close from
 * inside a call into it, so ls stays valid throughout). */
static void pump(log_stream *ls) {
    pump_pages(ls);
    if (ls->ended) log_stream_free(ls);
}

static void on_drain(http_request *req, void *arg) {
    (void)req;
    log_stream *ls = arg;
    ls->waiting_drain = false;
    pump(ls);
}

/* The client went away or the daemon is stopping; called only while the stream is open. */
static void on_close(http_request *req, void *arg) {
    log_stream *ls = arg;
    http_stream_end(req);
    if (ls->reading)
        ls->closed = true; /* the reader thread still writes into ls: on_page frees it */
    else
        log_stream_free(ls);
}

/* The format query parameter: 0 with *f, -1 (answered 400). */
static int log_format(http_request *req, campaign_log_format *f) {
    char name[16] = "jsonl";
    const char *q = req->query;
    for (const char *p = q; p && *p;) {
        if (strncmp(p, "format=", 7) == 0) {
            size_t len = strcspn(p + 7, "&");
            snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1),
                     p + 7);
            if (len >= sizeof name) name[0] = '\0';
        }
        p = strchr(p, '&');
        if (p) p++;
    }
    if (campaign_log_format_parse(name, f) == 0) return 0;
    respond_bad_query(req, "format", "jsonl, markdown or html");
    return -1;
}

void api_get_log(api_ctx *ctx, http_request *req, const route_match *m) {
    campaign_log_format f;
    if (log_format(req, &f) != 0) return;
    session_row s;
    if (!load_readable_session(ctx, req, m->params[0], &s)) return;
    log_stream *ls = calloc(1, sizeof *ls);
    if (ls) ls->render = campaign_log_new(f, s.id);
    if (!ls || !ls->render) {
        session_row_clear(&s);
        if (ls) log_stream_free(ls);
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    ls->ctx = ctx;
    ls->req = req;
    snprintf(ls->id, sizeof ls->id, "%s", s.id);
    ls->end_seq = s.version;
    session_row_clear(&s);
    static const http_stream_callbacks cbs = {on_drain, on_close};
    if (http_stream_start(req, 200, campaign_log_content_type(f), NULL, &cbs, ls) != 0) {
        log_stream_free(ls);
        respond_simple_error(req, 503, "shutting_down", "the log could not be streamed");
        return;
    }
    size_t len = 0;
    char *chunk = campaign_log_begin_new(ls->render, &len);
    put(ls, chunk, len);
    pump(ls);
}
