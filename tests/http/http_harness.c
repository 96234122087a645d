/* Serves the HTTP layer with test handlers, for tests/http/test_http_layer.py.
 *
 *   http_harness PORTFILE [header_timeout_ms idle_timeout_ms max_body max_header max_pipelined
 *                          max_connections write_queue_max write_budget]
 *
 * Listens on 127.0.0.1:0 and writes the bound port to PORTFILE. Routes:
 *   /echo           (any method) 200 JSON: method, path, query, body_length, header_count
 *   GET /delay?ms=N[&bytes=B]
 *                   200 after N ms (a uv_timer), to answer out of order; with bytes, the answer
 *                   is B bytes of text (an answer produced later than its request was taken)
 *   GET /big?bytes=N 200 with N bytes of text
 *   GET /stream?chunks=N&bytes=B&interval_ms=I[&burst=K]
 *                   streams N chunks of B bytes (chunk k is B times 'a' + k % 26), the first at
 *                   once, then one (K) every I ms, then ends
 *   GET /sse[?close_delay_ms=D]
 *                   text/event-stream: "data: tick N\n\n" every 50 ms until closed; on_close
 *                   ends it (after D ms when given, else inside on_close)
 *   GET /firehose   64 KiB chunks (chunk k is 'A' + k % 26) as fast as http_stream_write returns
 *                   0, pausing on 1 until on_drain, forever until closed
 *   GET /mixed?rounds=R&bytes=B
 *                   a stream written at once, R rounds of: one shared chunk (http_chunk, made
 *                   once and written to every /mixed stream) of B bytes of 'A' + k % 26, then a
 *                   copied write of the round's number and "\n"; then ends. Without a reader
 *                   the rounds pile up in the stream's blocks, shared and copied ones mixed
 *   GET /stats      200 JSON: connections, streams (active), streams_started, streams_closed
 *                   (on_close calls), drains (on_drain calls), max_pending (the largest
 *                   http_stream_pending seen by a firehose after a write), and what answers
 *                   hold (http_server_get_memory): held, peak_connection, peak_total
 *   anything else   404 in the error envelope
 * SIGTERM / SIGINT: graceful shutdown, exit 0 once it is done. */
#include "server/core/log.h"
#include "server/http/http_server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_TYPE      "application/json; charset=utf-8"
#define MAX_BIG        (64L * 1024 * 1024)
#define MAX_CHUNK      (1024L * 1024)
#define FIREHOSE_CHUNK (64 * 1024)
#define FIREHOSE_BURST 16 /* chunks per loop turn while writes return 0 */
#define SSE_INTERVAL   50

typedef struct harness {
    uv_loop_t *loop;
    http_server *srv;
    uv_signal_t sigterm, sigint;
    int stopping;
    size_t streams, streams_started, streams_closed, drains, max_pending;
} harness;

typedef enum { ST_CHUNKS, ST_SSE, ST_FIREHOSE } stream_kind;

typedef struct stream_ctx {
    uv_timer_t timer;
    http_request *req;
    stream_kind kind;
    long chunks, bytes, interval_ms, close_delay_ms, burst;
    long sent;
    int paused; /* firehose: waiting for on_drain */
    int closed; /* on_close came */
    char *buf;
} stream_ctx;

typedef struct delay {
    uv_timer_t timer;
    http_request *req;
    long ms, bytes;
} delay;

static harness H;

/* Returns the integer value of `name` in a query string, or dflt. */
static long query_long(const char *query, const char *name, long dflt) {
    size_t n = strlen(name);
    for (const char *p = query; p; p = strchr(p, '&')) {
        if (*p == '&') p++;
        if (strncmp(p, name, n) == 0 && p[n] == '=') return strtol(p + n + 1, NULL, 10);
    }
    return dflt;
}

/* A test program: running out of memory is a test failure, not a case to handle. */
static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "http_harness: out of memory\n");
        abort();
    }
    return p;
}

static char *json_string(const char *s) {
    char *out = xmalloc(strlen(s) * 6 + 3);
    size_t n = 0;
    out[n++] = '"';
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            out[n++] = '\\';
            out[n++] = (char)ch;
        } else if (ch < 0x20) {
            n += (size_t)sprintf(out + n, "\\u%04x", ch);
        } else {
            out[n++] = (char)ch;
        }
    }
    out[n++] = '"';
    out[n] = '\0';
    return out;
}

static void respond_json(http_request *req, int status, const char *json) {
    size_t n = strlen(json);
    char *body = xmalloc(n + 1);
    memcpy(body, json, n + 1);
    http_respond_take(req, status, JSON_TYPE, NULL, body, n);
}

static void handle_echo(http_request *req) {
    char *method = json_string(req->method);
    char *path = json_string(req->path);
    char *query = json_string(req->query);
    size_t cap = strlen(method) + strlen(path) + strlen(query) + 160;
    char *body = xmalloc(cap);
    int n = snprintf(body, cap,
                     "{\"method\":%s,\"path\":%s,\"query\":%s,\"body_length\":%zu,"
                     "\"header_count\":%zu}",
                     method, path, query, req->body_len, req->nheaders);
    free(method);
    free(path);
    free(query);
    http_respond_take(req, 200, JSON_TYPE, "Cache-Control: no-store\r\n", body, (size_t)n);
}

static void delay_closed(uv_handle_t *h) {
    free(h->data);
}

static void delay_fired(uv_timer_t *t) {
    delay *d = t->data;
    if (d->bytes > 0) {
        char *body = xmalloc((size_t)d->bytes);
        memset(body, 'x', (size_t)d->bytes);
        http_respond_take(d->req, 200, "text/plain; charset=utf-8", NULL, body, (size_t)d->bytes);
    } else {
        char json[64];
        snprintf(json, sizeof json, "{\"delayed_ms\":%ld}", d->ms);
        respond_json(d->req, 200, json);
    }
    uv_close((uv_handle_t *)t, delay_closed);
}

static void handle_delay(http_request *req) {
    delay *d = xmalloc(sizeof *d);
    d->req = req;
    d->ms = query_long(req->query, "ms", 0);
    if (d->ms < 0) d->ms = 0;
    d->bytes = query_long(req->query, "bytes", 0);
    if (d->bytes < 0 || d->bytes > MAX_BIG) d->bytes = 0;
    uv_timer_init(H.loop, &d->timer);
    d->timer.data = d;
    uv_timer_start(&d->timer, delay_fired, (uint64_t)d->ms, 0);
}

static void handle_big(http_request *req) {
    long n = query_long(req->query, "bytes", 0);
    if (n < 0 || n > MAX_BIG) n = 0;
    char *body = xmalloc((size_t)n + 1);
    memset(body, 'x', (size_t)n);
    http_respond_take(req, 200, "text/plain; charset=utf-8", NULL, body, (size_t)n);
}

static void handle_stats(http_request *req) {
    char json[384];
    http_server_memory m = http_server_get_memory(H.srv);
    snprintf(json, sizeof json,
             "{\"connections\":%zu,\"streams\":%zu,\"streams_started\":%zu,"
             "\"streams_closed\":%zu,\"drains\":%zu,\"max_pending\":%zu,\"held\":%zu,"
             "\"peak_connection\":%zu,\"peak_total\":%zu}",
             http_server_connection_count(H.srv), H.streams, H.streams_started, H.streams_closed,
             H.drains, H.max_pending, m.held, m.peak_connection, m.peak_total);
    respond_json(req, 200, json);
}

/* ---- streams ---------------------------------------------------------------------------- */

static void stream_ctx_closed(uv_handle_t *h) {
    stream_ctx *s = h->data;
    free(s->buf);
    free(s);
}

static void stream_finish(stream_ctx *s) {
    uv_timer_stop(&s->timer);
    http_stream_end(s->req);
    s->req = NULL;
    H.streams--;
    uv_close((uv_handle_t *)&s->timer, stream_ctx_closed);
}

static void chunks_tick(uv_timer_t *t) {
    stream_ctx *s = t->data;
    for (long i = 0; i < s->burst && s->sent < s->chunks; i++) {
        memset(s->buf, 'a' + (int)(s->sent % 26), (size_t)s->bytes);
        if (http_stream_write(s->req, s->buf, (size_t)s->bytes) < 0) return; /* on_close ends */
        s->sent++;
    }
    if (s->sent >= s->chunks)
        stream_finish(s);
    else
        uv_timer_start(t, chunks_tick, (uint64_t)s->interval_ms, 0);
}

static void sse_tick(uv_timer_t *t) {
    stream_ctx *s = t->data;
    char msg[64];
    int n = snprintf(msg, sizeof msg, "data: tick %ld\n\n", s->sent);
    if (http_stream_write(s->req, msg, (size_t)n) < 0) { /* on_close ends it */
        uv_timer_stop(t);
        return;
    }
    s->sent++;
}

static void firehose_tick(uv_timer_t *t);

/* Writes while the layer takes more; pauses on 1 (until on_drain), yields to the loop after a
 * burst so that a fast reader does not starve everything else. */
static void firehose_run(stream_ctx *s) {
    for (int i = 0; i < FIREHOSE_BURST; i++) {
        memset(s->buf, 'A' + (int)(s->sent % 26), FIREHOSE_CHUNK);
        int rc = http_stream_write(s->req, s->buf, FIREHOSE_CHUNK);
        if (rc < 0) return; /* on_close ends it */
        s->sent++;
        size_t pending = http_stream_pending(s->req);
        if (pending > H.max_pending) H.max_pending = pending;
        if (rc == 1) {
            s->paused = 1;
            return;
        }
    }
    uv_timer_start(&s->timer, firehose_tick, 0, 0);
}

static void firehose_tick(uv_timer_t *t) {
    firehose_run(t->data);
}

static void stream_on_drain(http_request *req, void *arg) {
    stream_ctx *s = arg;
    (void)req;
    H.drains++;
    if (s->kind == ST_FIREHOSE && s->paused && !s->closed) {
        s->paused = 0;
        firehose_run(s);
    }
}

static void delayed_finish(uv_timer_t *t) {
    stream_finish(t->data);
}

static void stream_on_close(http_request *req, void *arg) {
    stream_ctx *s = arg;
    H.streams_closed++;
    s->closed = 1;
    uv_timer_stop(&s->timer);
    /* The layer refuses writes from now on; the test fixture fails on this line. */
    if (http_stream_write(req, "late", 4) >= 0)
        fprintf(stderr, "HARNESS CHECK FAILED: a write after on_close was accepted\n");
    if (s->close_delay_ms > 0) { /* end it later */
        uv_timer_start(&s->timer, delayed_finish, (uint64_t)s->close_delay_ms, 0);
        return;
    }
    stream_finish(s); /* re-entrant: inside on_close */
}

static void handle_stream(http_request *req, stream_kind kind) {
    stream_ctx *s = xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->req = req;
    s->kind = kind;
    s->chunks = query_long(req->query, "chunks", 1);
    s->bytes = kind == ST_FIREHOSE ? FIREHOSE_CHUNK : query_long(req->query, "bytes", 16);
    s->interval_ms = query_long(req->query, "interval_ms", 0);
    s->close_delay_ms = query_long(req->query, "close_delay_ms", 0);
    s->burst = query_long(req->query, "burst", 1);
    if (s->chunks < 0 || s->burst < 1 || s->bytes < 0 || s->bytes > MAX_CHUNK ||
        s->interval_ms < 0 || s->close_delay_ms < 0) {
        free(s);
        respond_json(req, 400,
                     "{\"error\":{\"code\":\"bad_query\",\"message\":\"Bad parameters.\","
                     "\"details\":{}}}");
        return;
    }
    s->buf = xmalloc((size_t)s->bytes + 1);
    static const http_stream_callbacks cbs = {stream_on_drain, stream_on_close};
    const char *ctype = kind == ST_SSE ? "text/event-stream" : "application/octet-stream";
    if (http_stream_start(req, 200, ctype, "Cache-Control: no-store\r\n", &cbs, s) < 0) {
        free(s->buf);
        free(s);
        respond_json(req, 503,
                     "{\"error\":{\"code\":\"shutting_down\",\"message\":\"No stream.\","
                     "\"details\":{}}}");
        return;
    }
    H.streams++;
    H.streams_started++;
    uv_timer_init(H.loop, &s->timer);
    s->timer.data = s;
    if (kind == ST_CHUNKS)
        uv_timer_start(&s->timer, chunks_tick, 0, 0);
    else if (kind == ST_SSE)
        uv_timer_start(&s->timer, sse_tick, 0, SSE_INTERVAL);
    else
        firehose_run(s);
}

/* Shared chunks by letter, made on first use and kept until exit (one per size asked). */
static http_chunk *shared_chunk(int letter, long bytes) {
    static http_chunk *made[26];
    static long made_bytes[26];
    if (made[letter] && made_bytes[letter] != bytes) {
        http_chunk_free(made[letter]);
        made[letter] = NULL;
    }
    if (!made[letter]) {
        char *buf = xmalloc((size_t)bytes);
        memset(buf, 'A' + letter, (size_t)bytes);
        made[letter] = http_chunk_new(buf, (size_t)bytes);
        made_bytes[letter] = bytes;
        free(buf);
    }
    return made[letter];
}

static void mixed_closed(http_request *req, void *arg) {
    (void)req;
    (void)arg;
}

static void handle_mixed(http_request *req) {
    long rounds = query_long(req->query, "rounds", 0), bytes = query_long(req->query, "bytes", 1);
    if (rounds < 0 || rounds > 100000 || bytes < 1 || bytes > MAX_CHUNK) {
        respond_json(req, 400,
                     "{\"error\":{\"code\":\"bad_request\",\"message\":\"rounds or "
                     "bytes out of range\",\"details\":{}}}");
        return;
    }
    static const http_stream_callbacks cbs = {NULL, mixed_closed};
    if (http_stream_start(req, 200, "application/octet-stream", NULL, &cbs, NULL) != 0) {
        respond_json(req, 503,
                     "{\"error\":{\"code\":\"shutting_down\",\"message\":\"no "
                     "stream\",\"details\":{}}}");
        return;
    }
    for (long k = 0; k < rounds; k++) {
        http_chunk *ch = shared_chunk((int)(k % 26), bytes);
        char num[32];
        int n = snprintf(num, sizeof num, "%ld\n", k);
        if (!ch || http_stream_write_shared(req, &ch, 1) < 0 ||
            http_stream_write(req, num, (size_t)n) < 0)
            break;
    }
    http_stream_end(req);
}

static void handle(http_request *req, void *user) {
    (void)user;
    int get = strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0;
    if (strcmp(req->path, "/echo") == 0)
        handle_echo(req);
    else if (get && strcmp(req->path, "/delay") == 0)
        handle_delay(req);
    else if (get && strcmp(req->path, "/big") == 0)
        handle_big(req);
    else if (get && strcmp(req->path, "/stats") == 0)
        handle_stats(req);
    else if (get && strcmp(req->path, "/stream") == 0)
        handle_stream(req, ST_CHUNKS);
    else if (get && strcmp(req->path, "/sse") == 0)
        handle_stream(req, ST_SSE);
    else if (get && strcmp(req->path, "/firehose") == 0)
        handle_stream(req, ST_FIREHOSE);
    else if (get && strcmp(req->path, "/mixed") == 0)
        handle_mixed(req);
    else
        respond_json(req, 404,
                     "{\"error\":{\"code\":\"not_found\",\"message\":\"No such route.\","
                     "\"details\":{}}}");
}

static void on_shutdown_done(void *arg) {
    harness *h = arg;
    uv_close((uv_handle_t *)&h->sigterm, NULL);
    uv_close((uv_handle_t *)&h->sigint, NULL);
}

static void on_signal(uv_signal_t *sig, int signum) {
    (void)signum;
    harness *h = sig->data;
    if (h->stopping) return;
    h->stopping = 1;
    log_msg(LOG_INFO, "harness: shutting down");
    http_server_shutdown(h->srv, on_shutdown_done, h);
}

static int write_port_file(const char *path, int port) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0) return -1;
    return rename(tmp, path);
}

static int64_t arg_or(int argc, char **argv, int i, int64_t dflt) {
    return argc > i ? strtoll(argv[i], NULL, 10) : dflt;
}

static void parse_limits(int argc, char **argv, http_server_limits *lim) {
    lim->header_timeout_ms = arg_or(argc, argv, 2, 1000);
    lim->idle_timeout_ms = arg_or(argc, argv, 3, 1000);
    lim->max_body_bytes = arg_or(argc, argv, 4, 1024);
    lim->max_header_bytes = arg_or(argc, argv, 5, 4096);
    lim->max_pipelined = arg_or(argc, argv, 6, 4);
    lim->max_connections = arg_or(argc, argv, 7, 64);
    lim->write_queue_max_bytes = arg_or(argc, argv, 8, 256 * 1024);
    lim->write_budget_bytes = arg_or(argc, argv, 9, 0); /* 0: the layer's default */
    lim->access_log = 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr,
                "usage: %s PORTFILE [header_timeout_ms idle_timeout_ms max_body "
                "max_header max_pipelined max_connections write_queue_max write_budget]\n",
                argv[0]);
        return 2;
    }
    http_server_limits lim = {0};
    parse_limits(argc, argv, &lim);
    H.loop = uv_default_loop();
    H.srv = http_server_new(H.loop, &lim, handle, NULL);
    char err[256];
    if (!H.srv || http_server_listen(H.srv, "127.0.0.1", 0, err, sizeof err) < 0) {
        fprintf(stderr, "http_harness: %s\n", H.srv ? err : "out of memory");
        http_server_free(H.srv);
        return 1;
    }
    if (write_port_file(argv[1], http_server_port(H.srv)) < 0) {
        perror("http_harness: port file");
        return 1;
    }
    uv_signal_init(H.loop, &H.sigterm);
    uv_signal_init(H.loop, &H.sigint);
    H.sigterm.data = H.sigint.data = &H;
    uv_signal_start(&H.sigterm, on_signal, SIGTERM);
    uv_signal_start(&H.sigint, on_signal, SIGINT);
    uv_run(H.loop, UV_RUN_DEFAULT);
    http_server_free(H.srv);
    int rc = uv_loop_close(H.loop);
    if (rc != 0) fprintf(stderr, "http_harness: loop not empty at exit: %s\n", uv_strerror(rc));
    return rc == 0 ? 0 : 1;
}
