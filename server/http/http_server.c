/* HTTP/1.1 over libuv + llhttp. See http_server.h for the contract.
 *
 * Shape of a connection:
 *   read buffer --llhttp--> c->cur (request being parsed) --dispatch--> queue of requests in
 *   arrival order --answered, in order--> uv_write --> socket
 * The parser is paused after every request head and after every complete request, so each
 * llhttp_execute call covers one phase of one request; that gives exact byte positions for the
 * checks llhttp does not make itself (scan_framing) and a natural point to stop parsing when
 * max_pipelined requests are in flight or the write queue is over its bound.
 *
 * A response is one uv_write of (head, body). A streaming response (http_stream_start) is a
 * request in state "streaming": it sits in the queue like any answer; its chunks are collected in
 * blocks (out_head) and, once it is at the head of the queue and its head is written, handed to
 * libuv whenever libuv's queue is empty (so a stalled reader costs one uv_write plus the blocks,
 * not one uv_write per chunk); it leaves the queue when it has ended. on_close is never called
 * from inside an API call: the server queues it and a zero timer (notify) delivers it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, SOCK_NONBLOCK, SOCK_CLOEXEC */
#endif
#include "server/http/http_server.h"

#include "protocol/decimal.h"
#include "server/core/log.h"
#include "server/http/client_addr.h"
#include "server/http/http_framing.h"
#include "server/http/peer_counts.h"

#include <llhttp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    READ_BUF_SIZE = 16384,
    MAX_HEADERS = 100,
    LINGER_MAX_MS = 2000,
    ACCEPT_RETRY_MS = 100,
    ACCEPT_BATCH = 64,
    CONN_LINE_ROOM = 32, /* room left in a response head for the Connection line + CRLF */
    BLOCK_MIN = 4096,    /* a stream's buffered chunks are coalesced into blocks this big */
};

#define JSON_TYPE "application/json; charset=utf-8"

typedef enum { PH_HEAD, PH_BODY } parse_phase;
typedef enum { SEG_NONE, SEG_URL, SEG_NAME, SEG_VALUE } segment;
typedef enum { PAUSE_HEADERS, PAUSE_MESSAGE } pause_reason;
typedef enum { DL_NONE, DL_HEADER, DL_BODY, DL_WRITE, DL_IDLE, DL_LINGER } deadline_kind;

typedef struct req_impl req_impl;
typedef struct http_conn http_conn;

/* A chunk written to many streams: its bytes once, framing included (http_stream_write_shared).
 * Loop thread only, so the count needs no atomics. */
struct http_chunk {
    size_t refs;
    size_t head_len; /* "<hex length>\r\n" before the data */
    size_t data_len; /* the data; "\r\n" follows it */
    char bytes[];
};

/* Bytes of a stream not handed to libuv yet, as they go on the wire (chunk framing included).
 * A block either holds its bytes (data, coalesced small chunks) or refers to a shared chunk's
 * (shared, len bytes from base), holding one reference until libuv has written it. */
typedef struct out_block {
    struct out_block *next;
    size_t len, cap;
    http_chunk *shared;
    const char *base; /* shared: where the bytes start in it */
    char data[];
} out_block;

struct req_impl {
    http_request pub; /* first member: the handler's pointer converts back to req_impl */
    http_server *srv;
    http_conn *conn; /* NULL once the client is gone: the request is then an orphan */
    req_impl *next;  /* the connection's queue, in request order */
    /* The head's strings, NUL-terminated one after the other. Offsets, not pointers, while
     * parsing, because the arena moves when it grows. */
    char *arena;
    size_t alen, acap;
    segment seg;
    size_t seg_start;
    size_t target_off;
    size_t nhdr; /* headers complete (name and value) */
    http_header *headers;
    char *body;
    size_t body_cap;
    int keep_alive, is_head, handed, answered, close_after;
    int http_minor;
    /* The answer: head without the Connection line (added when written), and body. */
    int status;
    char *resp_head;
    size_t resp_head_len;
    char *resp_body;
    size_t resp_body_len;
    /* A streaming answer: `answered` is set when the handler ends it. */
    int streaming, st_chunked, st_head_sent;
    int st_closed;     /* on_close is due or delivered: writes are refused */
    int st_want_drain; /* http_stream_write returned 1; on_drain not called since */
    int st_over;       /* over write_queue_max_bytes since over_since_ns */
    uint64_t over_since_ns;
    http_stream_callbacks cbs;
    void *cb_arg;
    out_block *out_head, *out_tail;
    size_t out_bytes;             /* bytes in out_head.. */
    size_t st_body_bytes;         /* body bytes streamed, for the access log */
    char remote[64];              /* for the access log of a stream that outlives its connection */
    char client[CLIENT_ADDR_MAX]; /* pub.client */
    req_impl *n_prev, *n_next;    /* the server's list of on_close calls to make */
    int n_queued;
    int queued;  /* in its connection's queue: held counts there */
    size_t held; /* what it holds of its connection's write bound (req_hold) */
};

typedef struct write_ctx {
    uv_write_t req; /* first member */
    http_conn *conn;
    char *head;
    char *body;
    out_block *blocks;
    int is_stream;       /* written for the stream at the head of the queue */
    size_t stream_bytes; /* bytes of blocks */
    size_t bytes;        /* an answer's bytes: held (conn->writing) until libuv is done with it */
} write_ctx;

struct http_conn {
    uv_tcp_t tcp;
    uv_timer_t timer;
    uv_shutdown_t shut;
    int open_handles;
    http_server *srv;
    http_conn *prev, *next;
    llhttp_t parser;
    char remote[64];
    char peer_ip[CLIENT_ADDR_MAX];
    unsigned counted : 1; /* peer_ip is counted in srv->peers */

    char *rbuf; /* READ_BUF_SIZE bytes; [rpos, rlen) not parsed yet */
    size_t rpos, rlen;
    uint64_t parse_now_ns; /* when the bytes being parsed were read */

    req_impl *cur;             /* request being parsed */
    req_impl *q_head, *q_tail; /* dispatched or answered, not yet written */
    size_t inflight;
    size_t writes_pending;
    size_t st_nwrites;  /* of writes_pending, the ones written for a stream */
    size_t st_inflight; /* their stream_bytes */
    /* Memory by bytes: what the connection holds of answers, counted before they are produced.
     * held: its queued requests' req_hold (a request in flight counts as a share of the bound,
     * an answer as its size); writing: the bytes of its writes libuv has not completed. */
    size_t held, writing;
    size_t largest_answer; /* the biggest answer it has produced (answer_bytes) */

    parse_phase phase;
    pause_reason pause_why;
    int exec_pending; /* run llhttp once more even with no new bytes (after a pause) */
    int err_status;   /* set by a callback that fails: status to answer, -1 to just close */
    const char *err_reason;
    const char *scan_pos;    /* first byte of this execute call not checked by scan_framing */
    unsigned char scan_prev; /* last byte checked */
    const char *exec_end;    /* the end of the bytes of this execute call */
    uint64_t chunk_left;     /* bytes of the current chunk's data still to come */
    int crlf_due;            /* after a chunk's data, bytes of its CRLF not yet read: 2, 1, 0 */
    size_t head_raw;         /* raw bytes of the current request head */
    size_t trailer_bytes, ntrailers;

    int head_started; /* a request head is under way (or the connection is fresh) */
    uint64_t head_start_ns;
    uint64_t body_start_ns; /* the end of the headers of a request with a body */
    uint64_t last_read_ns;
    uint64_t idle_since_ns;
    uint64_t write_progress_ns;
    size_t unsent_mark; /* conn_unsent at the last sign of write progress */
    uint64_t linger_deadline_ns;
    uint64_t timer_at_ns; /* the deadline the timer is armed for, while it is active */

    unsigned reading : 1;
    unsigned in_parse : 1;
    unsigned closing : 1;
    unsigned no_more : 1;    /* parse no further requests */
    unsigned final_sent : 1; /* a "Connection: close" answer was written */
    unsigned close_when_written : 1;
    unsigned eof : 1;
    unsigned lingering : 1;
    unsigned draining : 1;    /* idle, but the client is still reading the last answer */
    unsigned budget_wait : 1; /* stopped parsing for the server's write budget */
};

struct http_server {
    uv_loop_t *loop;
    http_server_limits lim;
    client_proxies proxies; /* lim.trusted_proxies, parsed */
    peer_counts *peers;     /* open connections per peer address (not trusted proxies') */
    http_handler_fn handler;
    void *user;
    llhttp_settings_t settings;

    int lfd;
    int port;
    uv_poll_t lpoll;
    uv_timer_t accept_timer;
    int open_handles;

    http_conn *conns;
    size_t nconns;
    size_t nlingering;  /* of nconns, closing after their last answer (conn_linger) */
    size_t outstanding; /* requests handed to the handler and not answered yet */

    int shutting_down, done_called;
    void (*done)(void *arg);
    void *done_arg;

    uv_timer_t notify; /* delivers on_close calls (open from listen until done) */
    int notify_open;
    req_impl *notify_head, *notify_tail;

    uint64_t last_full_warn_ns, last_accept_warn_ns;
    time_t date_sec;
    char date[40];
    size_t date_len;
    char reject_resp[320];
    size_t reject_len;
    char reject_peer_resp[384];
    size_t reject_peer_len;
    uint64_t last_peer_warn_ns;

    /* The write budget: every connection's held + writing, and the connections waiting for it
     * to fall (woken from a zero timer, never from inside another connection's callback). */
    size_t held_total, peak_total, peak_conn;
    size_t nbudget_wait;
    uv_timer_t budget_timer;
    int budget_open;
};

static void conn_pump(http_conn *c);
static void conn_close(http_conn *c);
static void conn_flush(http_conn *c);
static void req_hold(req_impl *r, size_t bytes);
static size_t answer_bytes(const req_impl *r);

/* ---- small helpers ---------------------------------------------------------------------- */

static uint64_t ms_to_ns(int64_t ms) {
    return (uint64_t)ms * 1000000u;
}

static int64_t or_default(int64_t v, int64_t dflt) {
    return v > 0 ? v : dflt;
}

/* Rate limit for warnings: true at most once a second per slot. */
static int warn_due(uint64_t *last_ns) {
    uint64_t now = log_monotonic_ns();
    if (*last_ns && now - *last_ns < 1000000000u) return 0;
    *last_ns = now;
    return 1;
}

static const char *status_reason(int status) {
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 304:
        return "Not Modified";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 411:
        return "Length Required";
    case 412:
        return "Precondition Failed";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 417:
        return "Expectation Failed";
    case 422:
        return "Unprocessable Content";
    case 428:
        return "Precondition Required";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    default:
        break;
    }
    if (status < 200) return "Informational";
    if (status < 300) return "Success";
    if (status < 400) return "Redirection";
    if (status < 500) return "Client Error";
    return "Server Error";
}

static const char *error_code(int status) {
    switch (status) {
    case 400:
        return "bad_request";
    case 408:
        return "request_timeout";
    case 413:
        return "body_too_large";
    case 431:
        return "headers_too_large";
    case 503:
        return "shutting_down";
    default:
        return "internal_error";
    }
}

static const char *error_message(int status) {
    switch (status) {
    case 400:
        return "The request is not valid HTTP/1.1";
    case 408:
        return "The request was not received in time.";
    case 413:
        return "The request body is larger than the server accepts.";
    case 431:
        return "The request head is larger than the server accepts.";
    case 503:
        return "The server is shutting down.";
    default:
        return "The server failed to handle the request.";
    }
}

/* Appends s as the inside of a JSON string. out must hold 6 * strlen(s) + 1 bytes. */
static size_t json_escape(char *out, const char *s) {
    size_t n = 0;
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
    out[n] = '\0';
    return n;
}

/* The contract's error envelope. detail (400 only) names what was wrong. */
static char *error_body(int status, const char *detail, size_t *len) {
    char msg[512];
    if (status == 400)
        snprintf(msg, sizeof msg, "%s (%s).", error_message(status),
                 detail ? detail : "parse error");
    else
        snprintf(msg, sizeof msg, "%s", error_message(status));
    char esc[sizeof msg * 6];
    json_escape(esc, msg);
    size_t cap = strlen(esc) + 128;
    char *body = malloc(cap);
    if (!body) return NULL;
    int n = snprintf(body, cap, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\",\"details\":{}}}",
                     error_code(status), esc);
    *len = (size_t)n;
    return body;
}

/* The Date header's value, formatted once a second; its length in *len. */
static const char *server_date(http_server *s, size_t *len) {
    time_t now = time(NULL);
    if (now != s->date_sec) {
        struct tm tm;
        gmtime_r(&now, &tm);
        s->date_len = strftime(s->date, sizeof s->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        s->date_sec = now;
    }
    *len = s->date_len;
    return s->date;
}

/* ---- building a response head ------------------------------------------------------------
 * Every answer's head is built here, byte by byte, instead of with snprintf: formatting three
 * or four header lines with snprintf cost more than the rest of answering a request. */

/* A head holds at most HEAD_FIXED_MAX bytes besides the Content-Type value and the extra
 * header lines: "HTTP/1.1 " 9, status 11, " " 1, reason <= 31, CRLF 2, "Date: " 6, date < 40,
 * CRLF 2, "Content-Type: " 14, CRLF 2, "Content-Length: " 16, 20 digits, CRLF 2 (156), or the
 * "Transfer-Encoding: chunked" line (28) instead of Content-Length. */
enum { HEAD_FIXED_MAX = 200 };

static char *put_mem(char *p, const char *s, size_t n) {
    memcpy(p, s, n);
    return p + n;
}

static char *put_str(char *p, const char *s) {
    return put_mem(p, s, strlen(s));
}

#define PUT_LIT(p, lit) put_mem((p), (lit), sizeof(lit) - 1)

/* v in decimal, as printf's %llu writes it. */
static char *put_u64(char *p, uint64_t v) {
    return p + decimal_u64(p, v);
}

/* v in decimal, as printf's %d writes it. */
static char *put_int(char *p, int v) {
    if (v >= 0) return put_u64(p, (uint64_t)v);
    *p++ = '-';
    return put_u64(p, (uint64_t)(-(int64_t)v));
}

/* Allocates a head with room for cap bytes plus the Connection line and writes its status and
 * Date lines; *end is where the next line goes. NULL without memory. */
static char *head_begin(http_server *s, int status, size_t cap, char **end) {
    char *head = malloc(cap + CONN_LINE_ROOM);
    if (!head) return NULL;
    size_t dlen;
    const char *date = server_date(s, &dlen);
    char *p = PUT_LIT(head, "HTTP/1.1 ");
    p = put_int(p, status);
    *p++ = ' ';
    p = put_str(p, status_reason(status));
    p = PUT_LIT(p, "\r\nDate: ");
    p = put_mem(p, date, dlen);
    *end = PUT_LIT(p, "\r\n");
    return head;
}

static int is_tchar(unsigned char ch) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) return 1;
    return ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* Header names are tokens; llhttp's default build lets spaces (e.g. "Host :") and empty names
 * through. */
static int is_token(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!is_tchar((unsigned char)*s)) return 0;
    return 1;
}

/* llhttp's default build accepts HT and bytes >= 0x80 in the request-target. */
static int target_ok(const char *t) {
    for (; *t; t++) {
        unsigned char ch = (unsigned char)*t;
        if (ch <= 0x20 || ch >= 0x7f) return 0;
    }
    return 1;
}

/* ---- requests --------------------------------------------------------------------------- */

static req_impl *req_new(http_conn *c) {
    req_impl *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->srv = c->srv;
    r->conn = c;
    r->pub.start_ns = c->parse_now_ns;
    r->keep_alive = 1;
    return r;
}

static void blocks_free(out_block *b) {
    while (b) {
        out_block *next = b->next;
        if (b->shared) http_chunk_free(b->shared);
        free(b);
        b = next;
    }
}

static void req_free(req_impl *r) {
    blocks_free(r->out_head);
    free(r->arena);
    free(r->headers);
    free(r->body);
    free(r->resp_head);
    free(r->resp_body);
    free(r);
}

static int arena_reserve(req_impl *r, size_t extra) {
    if (r->alen + extra + 1 <= r->acap) return 0;
    size_t cap = r->acap ? r->acap : 512;
    while (cap < r->alen + extra + 1)
        cap *= 2;
    char *p = realloc(r->arena, cap);
    if (!p) return -1;
    r->arena = p;
    r->acap = cap;
    return 0;
}

/* Appends to the string being built (llhttp may deliver one in several pieces). */
static int seg_append(req_impl *r, segment kind, const char *at, size_t len, int lower) {
    if (r->seg == SEG_NONE) r->seg_start = r->alen;
    r->seg = kind;
    if (arena_reserve(r, len)) return -1;
    char *dst = r->arena + r->alen;
    if (lower) {
        for (size_t i = 0; i < len; i++) {
            char ch = at[i];
            dst[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
        }
    } else {
        memcpy(dst, at, len);
    }
    r->alen += len;
    return 0;
}

/* Ends the string being built (possibly empty) and returns its offset; -1 without memory. */
static long seg_finish(req_impl *r, int trim_ows) {
    if (r->seg == SEG_NONE) r->seg_start = r->alen;
    r->seg = SEG_NONE;
    if (arena_reserve(r, 0)) return -1;
    while (trim_ows && r->alen > r->seg_start &&
           (r->arena[r->alen - 1] == ' ' || r->arena[r->alen - 1] == '\t'))
        r->alen--;
    r->arena[r->alen++] = '\0';
    return (long)r->seg_start;
}

/* The NUL-terminated string at *p, moving *p past it; NULL when none ends before end. */
static const char *arena_next(const char **p, const char *end) {
    const char *s = *p;
    if (s >= end) return NULL;
    size_t room = (size_t)(end - s);
    size_t n = strnlen(s, room);
    if (n == room) return NULL;
    *p = s + n + 1;
    return s;
}

/* Points r->headers at the names and values. The callbacks finish the head's strings one after
 * the other in the arena: the target, then each header's name and its value. Walking them keeps
 * no table of offsets in req_impl (a table for MAX_HEADERS made every request a >1 KiB
 * allocation, which glibc serves by consolidating its fast bins first). -1 if the arena does
 * not hold exactly that. */
static int req_index_headers(req_impl *r, size_t head_end) {
    const char *p = r->arena + r->target_off, *end = r->arena + head_end;
    if (!arena_next(&p, end)) return -1; /* the target */
    for (size_t i = 0; i < r->nhdr; i++) {
        r->headers[i].name = arena_next(&p, end);
        r->headers[i].value = arena_next(&p, end);
        if (!r->headers[i].name || !r->headers[i].value) return -1;
    }
    return p == end ? 0 : -1;
}

/* Turns the arena's offsets into the public pointers, adding path and query. */
static int req_finish_head(req_impl *r) {
    if (arena_reserve(r, 0)) return -1;
    if (r->alen == 0) r->arena[r->alen++] = '\0'; /* no target at all: "" */
    size_t head_end = r->alen;
    size_t tlen = strlen(r->arena + r->target_off);
    if (arena_reserve(r, tlen + 2)) return -1;
    const char *target = r->arena + r->target_off;
    size_t plen = strcspn(target, "?");
    size_t path_off = r->alen;
    memcpy(r->arena + r->alen, target, plen);
    r->alen += plen;
    r->arena[r->alen++] = '\0';
    size_t query_off = r->alen;
    size_t qlen = plen < tlen ? tlen - plen - 1 : 0;
    memcpy(r->arena + r->alen, target + tlen - qlen, qlen);
    r->alen += qlen;
    r->arena[r->alen++] = '\0';

    r->headers = calloc(r->nhdr ? r->nhdr : 1, sizeof *r->headers);
    if (!r->headers || req_index_headers(r, head_end) < 0) return -1;
    r->pub.target = r->arena + r->target_off;
    r->pub.path = r->arena + path_off;
    r->pub.query = r->arena + query_off;
    r->pub.headers = r->headers;
    r->pub.nheaders = r->nhdr;
    r->pub.body = "";
    client_addr_resolve(&r->srv->proxies, r->conn ? r->conn->peer_ip : "?",
                        http_request_header(&r->pub, "x-forwarded-for"), r->client);
    r->pub.client = r->client;
    return 0;
}

static int body_reserve(req_impl *r, size_t need, size_t max) {
    if (need + 1 <= r->body_cap) return 0;
    size_t cap = r->body_cap ? r->body_cap * 2 : 1024;
    if (cap < need + 1) cap = need + 1;
    if (cap > max + 1) cap = max + 1;
    char *p = realloc(r->body, cap);
    if (!p) return -1;
    r->body = p;
    r->body_cap = cap;
    return 0;
}

/* Builds the answer's head (without the Connection line) and keeps the body, or drops it for
 * HEAD, 1xx, 204 and 304. Takes ownership of body in every case. */
static int req_set_answer(req_impl *r, int status, const char *ctype, const char *extra, char *body,
                          size_t len) {
    int informational = status < 200 || status == 204;
    int bodiless = informational || status == 304 || r->is_head;
    int has_ctype = ctype && len > 0;
    size_t ctype_len = has_ctype ? strlen(ctype) : 0;
    size_t extra_len = extra ? strlen(extra) : 0;
    char *p = NULL;
    char *head = !bodiless && len > UINT_MAX
                     ? NULL
                     : head_begin(r->srv, status, HEAD_FIXED_MAX + ctype_len + extra_len, &p);
    if (!head) {
        free(body);
        return -1;
    }
    if (has_ctype) {
        p = PUT_LIT(p, "Content-Type: ");
        p = put_mem(p, ctype, ctype_len);
        p = PUT_LIT(p, "\r\n");
    }
    if (!informational) {
        p = PUT_LIT(p, "Content-Length: ");
        p = put_u64(p, len);
        p = PUT_LIT(p, "\r\n");
    }
    if (extra) p = put_mem(p, extra, extra_len);
    r->status = status;
    r->resp_head = head;
    r->resp_head_len = (size_t)(p - head);
    if (bodiless || len == 0) {
        free(body);
        body = NULL;
        len = 0;
    }
    r->resp_body = body;
    r->resp_body_len = len;
    r->answered = 1;
    http_conn *c = r->conn;
    if (c && answer_bytes(r) > c->largest_answer) c->largest_answer = answer_bytes(r);
    req_hold(r, answer_bytes(r));
    return 0;
}

/* ---- the connection's queue and writes --------------------------------------------------- */

/* What a request taken now is counted as until its answer is produced: the connection's share
 * of its bound per request in flight, or its biggest answer so far if that is more, but never
 * more than the bound. So once a client has asked for big answers, its next requests are taken
 * one at a time as the bound has room for another such answer; an answer produced as its
 * request is taken (most reads) counts before the next request is parsed. */
static size_t share_bytes(const http_server *s) {
    size_t n = (size_t)s->lim.write_queue_max_bytes / (size_t)s->lim.max_pipelined;
    return n ? n : 1;
}

static size_t reserve_bytes(const http_conn *c) {
    size_t bound = (size_t)c->srv->lim.write_queue_max_bytes;
    size_t n = share_bytes(c->srv);
    if (n < c->largest_answer) n = c->largest_answer < bound ? c->largest_answer : bound;
    return n;
}

static void server_budget_freed(http_server *s);

/* The most one connection and all of them have held (http_server_get_memory). */
static void note_peaks(const http_conn *c) {
    http_server *s = c->srv;
    if (c->held + c->writing > s->peak_conn) s->peak_conn = c->held + c->writing;
    if (s->held_total > s->peak_total) s->peak_total = s->held_total;
}

/* Sets what r holds of its connection's bound (and of the server's budget): a request in flight
 * holds its reserve (reserve_bytes) from when it is handed to the handler, so answers are
 * counted before they are produced; an answer, its size until it is
 * handed to libuv (then conn->writing counts it); a stream, nothing (its blocks have their own
 * bound). */
static void req_hold(req_impl *r, size_t bytes) {
    http_conn *c = r->conn;
    if (!c || !r->queued || r->held == bytes) return;
    http_server *s = r->srv;
    int freed = bytes < r->held;
    c->held = c->held - r->held + bytes;
    s->held_total = s->held_total - r->held + bytes;
    r->held = bytes;
    note_peaks(c);
    if (freed) server_budget_freed(s);
}

static size_t answer_bytes(const req_impl *r) {
    return r->resp_head_len + r->resp_body_len + CONN_LINE_ROOM;
}

static void queue_push(http_conn *c, req_impl *r) {
    r->queued = 1;
    req_hold(r, r->answered ? answer_bytes(r) : reserve_bytes(c));
    r->next = NULL;
    if (c->q_tail)
        c->q_tail->next = r;
    else
        c->q_head = r;
    c->q_tail = r;
    c->inflight++;
}

static req_impl *queue_pop(http_conn *c) {
    req_impl *r = c->q_head;
    req_hold(r, 0);
    r->queued = 0;
    c->q_head = r->next;
    if (!c->q_head) c->q_tail = NULL;
    r->next = NULL;
    c->inflight--;
    return r;
}

static size_t write_queue_size(const http_conn *c) {
    return uv_stream_get_write_queue_size((const uv_stream_t *)&c->tcp);
}

/* Bytes the client has not received yet: libuv's queue plus the kernel's send queue. libuv's
 * queue alone moves in big steps (the socket only turns writable again once a good part of a
 * multi-megabyte send buffer has drained), so a slow but steady reader would look stalled. */
static size_t conn_unsent(http_conn *c) {
    size_t total = write_queue_size(c);
    uv_os_fd_t fd;
    int queued = 0;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0 && ioctl(fd, SIOCOUTQ, &queued) == 0 &&
        queued > 0)
        total += (size_t)queued;
    return total;
}

static void write_ctx_free(write_ctx *w) {
    free(w->head);
    free(w->body);
    blocks_free(w->blocks);
    free(w);
}

static void stream_maybe_drain(http_conn *c);

/* A write completed: the marks the write and idle deadlines measure progress from. */
static void conn_wrote(http_conn *c) {
    uint64_t now = log_monotonic_ns();
    c->write_progress_ns = now;
    c->unsent_mark = conn_unsent(c);
    c->draining = 0;
    if (c->writes_pending == 0) c->idle_since_ns = now;
}

static void on_write(uv_write_t *req, int status) {
    write_ctx *w = (write_ctx *)req;
    http_conn *c = w->conn;
    if (w->is_stream) {
        c->st_nwrites--;
        c->st_inflight -= w->stream_bytes;
    } else {
        c->writing -= w->bytes;
        c->srv->held_total -= w->bytes;
        server_budget_freed(c->srv);
    }
    write_ctx_free(w);
    c->writes_pending--;
    if (c->closing) return;
    if (status < 0) {
        conn_close(c);
        return;
    }
    conn_wrote(c);
    conn_flush(c); /* hands a stream's buffered blocks to libuv, then pumps */
    stream_maybe_drain(c);
}

/* Queues w (owned from here on) with bufs pointing into it. */
static int conn_submit(http_conn *c, write_ctx *w, const uv_buf_t *bufs, unsigned nbufs) {
    w->conn = c;
    if (c->writes_pending == 0) c->write_progress_ns = log_monotonic_ns();
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, bufs, nbufs, on_write) < 0) {
        write_ctx_free(w);
        return -1;
    }
    c->writes_pending++;
    if (w->is_stream) { /* a stream's writes are bounded as the stream's (stream_pending) */
        c->st_nwrites++;
        c->st_inflight += w->stream_bytes;
    } else {
        for (unsigned i = 0; i < nbufs; i++)
            w->bytes += bufs[i].len;
        c->writing += w->bytes;
        c->srv->held_total += w->bytes;
        note_peaks(c);
    }
    c->unsent_mark = conn_unsent(c);
    return 0;
}

/* Writes what the socket takes of bufs right now, when nothing is queued before them: the
 * bytes written (0 if none), bufs advanced past them; -1 when the connection failed. */
static ssize_t conn_try_write(http_conn *c, uv_buf_t *bufs, unsigned *nbufs) {
    if (c->writes_pending) return 0;
    int n = uv_try_write((uv_stream_t *)&c->tcp, bufs, *nbufs);
    if (n == UV_EAGAIN) return 0;
    if (n < 0) return -1;
    size_t left = (size_t)n;
    unsigned whole = 0; /* the buffers written whole: dropped with one move (a lagging stream
                         * hands over a buffer per event, up to libuv's 1024 at a time) */
    while (whole < *nbufs && left >= bufs[whole].len)
        left -= bufs[whole++].len;
    *nbufs -= whole;
    if (whole && *nbufs) memmove(bufs, bufs + whole, *nbufs * sizeof *bufs);
    if (*nbufs) {
        bufs[0].base += left;
        bufs[0].len -= left;
    }
    return n;
}

/* Sends head + body (both malloc'd, owned from here on) on the socket. An answer goes out at
 * once when the socket takes all of it (the usual case), with no write request, completion
 * callback or second round of conn_pump; whatever is left is queued with uv_write. */
static int conn_write(http_conn *c, char *head, size_t head_len, char *body, size_t body_len,
                      int is_stream) {
    uv_buf_t bufs[2];
    unsigned nbufs = 0;
    bufs[nbufs++] = uv_buf_init(head, (unsigned)head_len);
    if (body && body_len) bufs[nbufs++] = uv_buf_init(body, (unsigned)body_len);
    /* A stream's head goes by uv_write (its drain and deadline accounting starts from a write
     * request); its blocks try the socket first (stream_submit). */
    ssize_t sent = is_stream ? 0 : conn_try_write(c, bufs, &nbufs);
    if (sent < 0 || nbufs == 0) {
        free(head);
        free(body);
        if (sent < 0) return -1;
        conn_wrote(c);
        return 0;
    }
    write_ctx *w = calloc(1, sizeof *w);
    if (!w) {
        free(head);
        free(body);
        return -1;
    }
    w->head = head;
    w->body = body;
    w->is_stream = is_stream;
    return conn_submit(c, w, bufs, nbufs);
}

static void log_answer(http_conn *c, const req_impl *r) {
    if (!c->srv->lim.access_log) return;
    uint64_t now = log_monotonic_ns();
    uint64_t us = now > r->pub.start_ns ? (now - r->pub.start_ns) / 1000u : 0;
    log_access(r->pub.method ? r->pub.method : "-", r->pub.path ? r->pub.path : "-", r->status,
               r->resp_body_len, us, c->remote);
}

/* Writes one answer, adding the Connection line decided now that its position is known. */
static int conn_send_answer(http_conn *c, req_impl *r, int close) {
    const char *line = close ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n";
    size_t n = strlen(line);
    memcpy(r->resp_head + r->resp_head_len, line, n);
    log_answer(c, r);
    char *head = r->resp_head;
    char *body = r->resp_body;
    r->resp_head = NULL;
    r->resp_body = NULL;
    return conn_write(c, head, r->resp_head_len + n, body, r->resp_body_len, 0);
}

/* ---- streams ----------------------------------------------------------------------------- */

/* The stream at the head of the queue whose head is written, if it has not ended. */
static req_impl *active_stream(const http_conn *c) {
    req_impl *r = c->q_head;
    return r && r->streaming && r->st_head_sent && !r->answered ? r : NULL;
}

/* The stream's unwritten bytes: its blocks, plus its writes libuv has not completed (all of
 * each such write: that memory is held until it completes). So what a stream holds is what this
 * says, and it stays within write_queue_max_bytes plus what one write added (a chunk, or a page of
 * shared ones). */
static size_t stream_pending(const http_conn *c, const req_impl *r) {
    size_t n = r->out_bytes;
    if (c && c->q_head == r && r->st_head_sent) n += c->st_inflight;
    return n;
}

/* Appends one chunk to the stream's blocks, coalescing small chunks. */
static int stream_append(req_impl *r, const char *pre, size_t plen, const void *data, size_t len,
                         const char *post, size_t slen) {
    if (len > SIZE_MAX - sizeof(out_block) - plen - slen - BLOCK_MIN) return -1;
    size_t need = plen + len + slen;
    out_block *b = r->out_tail;
    if (!b || b->cap - b->len < need) {
        /* The first block is likely handed to libuv at once: no room to spare in it. */
        size_t cap = r->out_head && need < BLOCK_MIN ? BLOCK_MIN : need;
        b = malloc(sizeof *b + cap);
        if (!b) return -1;
        b->next = NULL;
        b->len = 0;
        b->cap = cap;
        b->shared = NULL;
        b->base = NULL;
        if (r->out_tail)
            r->out_tail->next = b;
        else
            r->out_head = b;
        r->out_tail = b;
    }
    memcpy(b->data + b->len, pre, plen);
    memcpy(b->data + b->len + plen, data, len);
    memcpy(b->data + b->len + plen + len, post, slen);
    b->len += need;
    r->out_bytes += need;
    return 0;
}

/* Hands all of the stream's blocks to libuv as one write. */
static int stream_submit(http_conn *c, req_impl *r) {
    if (!r->out_head) return 0;
    size_t n = 0;
    for (const out_block *b = r->out_head; b; b = b->next)
        n++;
    uv_buf_t small[8];
    uv_buf_t *bufs = n <= 8 ? small : malloc(n * sizeof *bufs);
    write_ctx *w = calloc(1, sizeof *w);
    if (!bufs || !w) {
        if (bufs != small) free(bufs);
        free(w);
        return -1;
    }
    size_t i = 0;
    for (out_block *b = r->out_head; b; b = b->next, i++) {
        bufs[i].base = b->shared ? (char *)b->base : b->data;
        bufs[i].len = b->len;
    }
    w->blocks = r->out_head;
    w->is_stream = 1;
    w->stream_bytes = r->out_bytes;
    r->out_head = r->out_tail = NULL;
    r->out_bytes = 0;
    /* What the socket takes at once needs no write request, nor its callback on a later turn
     * of the loop (a live event goes to every subscriber: that callback was most of the cost of
     * a delivery). With nothing queued, nothing is over the bound, so no drain is due. */
    unsigned nleft = (unsigned)n;
    ssize_t sent = conn_try_write(c, bufs, &nleft);
    int rc;
    if (sent < 0) {
        write_ctx_free(w);
        rc = -1;
    } else if (nleft == 0) {
        write_ctx_free(w);
        uint64_t now = log_monotonic_ns();
        c->write_progress_ns = now;
        if (c->writes_pending == 0) c->idle_since_ns = now;
        rc = 0;
    } else {
        rc = conn_submit(c, w, bufs, nleft); /* libuv copies bufs */
    }
    if (bufs != small) free(bufs);
    return rc;
}

/* Writes the stream's head (at the head of the queue: its Connection line is decided now). */
static int stream_send_head(http_conn *c, req_impl *r) {
    int close = r->close_after || ((c->srv->shutting_down || c->no_more) && r->next == NULL);
    if (close) {
        r->close_after = 1;
        c->no_more = 1; /* nothing after this stream will be answered */
    }
    const char *line = close ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n";
    size_t n = strlen(line);
    memcpy(r->resp_head + r->resp_head_len, line, n);
    char *head = r->resp_head;
    r->resp_head = NULL;
    r->st_head_sent = 1;
    if (r->st_over) r->over_since_ns = log_monotonic_ns();
    return conn_write(c, head, r->resp_head_len + n, NULL, 0, 1);
}

static void on_notify(uv_timer_t *t);

/* Queues the stream's on_close call (once). */
static void stream_notify_close(req_impl *r) {
    http_server *s = r->srv;
    if (r->st_closed) return;
    r->st_closed = 1;
    r->st_want_drain = 0;
    r->n_prev = s->notify_tail;
    r->n_next = NULL;
    if (s->notify_tail)
        s->notify_tail->n_next = r;
    else
        s->notify_head = r;
    s->notify_tail = r;
    r->n_queued = 1;
    if (s->notify_open && !uv_is_active((uv_handle_t *)&s->notify))
        uv_timer_start(&s->notify, on_notify, 0, 0);
}

static void notify_unlink(http_server *s, req_impl *r) {
    if (!r->n_queued) return;
    if (r->n_prev)
        r->n_prev->n_next = r->n_next;
    else
        s->notify_head = r->n_next;
    if (r->n_next)
        r->n_next->n_prev = r->n_prev;
    else
        s->notify_tail = r->n_prev;
    r->n_prev = r->n_next = NULL;
    r->n_queued = 0;
}

static void on_notify(uv_timer_t *t) {
    http_server *s = t->data;
    req_impl *r;
    /* Each call may end its stream (freeing r) or any other; the list stays consistent. */
    while ((r = s->notify_head) != NULL) {
        notify_unlink(s, r);
        r->cbs.on_close(&r->pub, r->cb_arg);
    }
}

/* After a write completed: on_drain, if the stream at the head of the queue waits for it. */
static void stream_maybe_drain(http_conn *c) {
    if (c->closing) return;
    req_impl *r = active_stream(c);
    if (!r || r->st_closed) return;
    size_t pending = stream_pending(c, r);
    size_t max = (size_t)c->srv->lim.write_queue_max_bytes;
    if (pending <= max) r->st_over = 0;
    if (!r->st_want_drain || pending > max / 2) return;
    r->st_want_drain = 0;
    if (r->cbs.on_drain) r->cbs.on_drain(&r->pub, r->cb_arg);
}

/* The stream r at the head of the queue: writes its head once, and its blocks when libuv's queue
 * is empty (or it has ended). Then, if it has ended: the zero chunk, and it leaves the queue.
 * Returns 1 when r has left the queue, 0 when it stays, -1 on failure. */
static int stream_flush(http_conn *c, req_impl *r) {
    if (!r->st_head_sent && stream_send_head(c, r) < 0) return -1;
    if (!r->answered) {
        if (write_queue_size(c) == 0 && stream_submit(c, r) < 0) return -1;
        return 0;
    }
    queue_pop(c);
    int rc = 0;
    if (r->st_chunked && !r->is_head && stream_append(r, "0\r\n\r\n", 5, "", 0, "", 0) < 0) rc = -1;
    if (rc == 0) rc = stream_submit(c, r);
    int close = r->close_after || ((c->srv->shutting_down || c->no_more) && c->q_head == NULL);
    if (close) {
        c->final_sent = 1;
        c->no_more = 1;
    }
    req_free(r);
    return rc < 0 ? -1 : 1;
}

/* Writes every answer at the head of the queue, in request order. */
static void conn_flush(http_conn *c) {
    while (!c->closing && !c->final_sent && c->q_head) {
        if (c->q_head->streaming) {
            int rc = stream_flush(c, c->q_head);
            if (rc < 0) {
                conn_close(c);
                return;
            }
            if (rc == 0) break;
            continue;
        }
        if (!c->q_head->answered) break;
        req_impl *r = queue_pop(c);
        int last = c->q_head == NULL;
        /* The last answer before the connection ends says so. */
        int close = r->close_after || ((c->srv->shutting_down || c->no_more) && last);
        if (close) {
            c->final_sent = 1;
            c->no_more = 1;
        }
        int rc = conn_send_answer(c, r, close);
        req_free(r);
        if (rc < 0) {
            conn_close(c);
            return;
        }
    }
    conn_pump(c);
}

/* Answers the request being parsed (or a synthetic one) with a layer error and ends the
 * connection after it. */
static void conn_fail(http_conn *c, int status, const char *detail) {
    req_impl *r = c->cur;
    c->cur = NULL;
    if (!r) {
        r = req_new(c);
        if (r) r->pub.start_ns = c->head_started ? c->head_start_ns : log_monotonic_ns();
    }
    if (!r) {
        conn_close(c);
        return;
    }
    c->no_more = 1;
    r->close_after = 1;
    size_t len = 0;
    char *body = error_body(status, detail, &len);
    if (!body || req_set_answer(r, status, JSON_TYPE, NULL, body, len) < 0) {
        req_free(r);
        conn_close(c);
        return;
    }
    queue_push(c, r);
    conn_flush(c);
}

/* ---- closing ----------------------------------------------------------------------------- */

static void on_server_handle_closed(uv_handle_t *h);

static void server_maybe_done(http_server *s) {
    if (!s->shutting_down || s->done_called) return;
    if (s->nconns || s->outstanding) return;
    /* No stream is left (each one is outstanding until it ends), so no on_close is due. */
    if (s->notify_open) {
        s->notify_open = 0;
        uv_close((uv_handle_t *)&s->notify, on_server_handle_closed);
    }
    if (s->budget_open) {
        s->budget_open = 0;
        uv_close((uv_handle_t *)&s->budget_timer, on_server_handle_closed);
    }
    if (s->open_handles) return;
    s->done_called = 1;
    if (s->done) s->done(s->done_arg);
}

static void on_conn_handle_closed(uv_handle_t *h) {
    http_conn *c = h->data;
    if (--c->open_handles > 0) return;
    http_server *s = c->srv;
    if (c->counted) peer_counts_remove(s->peers, c->peer_ip);
    if (c->lingering) s->nlingering--;
    free(c->rbuf);
    free(c);
    s->nconns--;
    server_maybe_done(s);
}

/* Frees what the connection owns; requests the handler still holds become orphans, freed
 * when answered; streams not ended yet also get their on_close. */
static void conn_drop_requests(http_conn *c) {
    if (c->cur) req_free(c->cur);
    c->cur = NULL;
    c->srv->held_total -= c->held; /* its writes still count until libuv completes them */
    c->held = 0;
    if (c->budget_wait) {
        c->budget_wait = 0;
        c->srv->nbudget_wait--;
    }
    server_budget_freed(c->srv);
    req_impl *r = c->q_head;
    while (r) {
        req_impl *next = r->next;
        r->next = NULL;
        r->queued = 0;
        r->held = 0;
        if (r->handed && !r->answered) {
            r->conn = NULL;
            if (r->streaming) {
                blocks_free(r->out_head);
                r->out_head = r->out_tail = NULL;
                r->out_bytes = 0;
                stream_notify_close(r);
            }
        } else {
            req_free(r);
        }
        r = next;
    }
    c->q_head = c->q_tail = NULL;
    c->inflight = 0;
}

static void conn_unlink(http_conn *c) {
    if (c->prev)
        c->prev->next = c->next;
    else
        c->srv->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void conn_close(http_conn *c) {
    if (c->closing) return;
    c->closing = 1;
    conn_unlink(c);
    conn_drop_requests(c);
    uv_close((uv_handle_t *)&c->timer, on_conn_handle_closed);
    uv_close((uv_handle_t *)&c->tcp, on_conn_handle_closed);
}

static void on_shutdown(uv_shutdown_t *req, int status) {
    http_conn *c = req->data;
    if (status < 0 && !c->closing) conn_close(c);
}

static uint64_t linger_ns(const http_server *s) {
    int64_t ms = s->lim.idle_timeout_ms < LINGER_MAX_MS ? s->lim.idle_timeout_ms : LINGER_MAX_MS;
    return ms_to_ns(ms);
}

static void conn_update_reading(http_conn *c);
static void conn_update_timer(http_conn *c);

/* After the last answer: send FIN, then read and discard until the client closes (or a short
 * deadline), so that unread request bytes do not turn our close into a reset that could destroy
 * the answer before the client reads it. */
static void conn_linger(http_conn *c) {
    if (!c->lingering) c->srv->nlingering++;
    c->lingering = 1;
    c->rpos = c->rlen = 0;
    c->linger_deadline_ns = log_monotonic_ns() + linger_ns(c->srv);
    if (uv_shutdown(&c->shut, (uv_stream_t *)&c->tcp, on_shutdown) < 0) {
        conn_close(c);
        return;
    }
    conn_update_reading(c);
    conn_update_timer(c);
}

static int conn_is_idle(const http_conn *c) {
    return c->inflight == 0 && c->writes_pending == 0;
}

/* True when the connection has written everything it is going to write. */
static int conn_done_writing(const http_conn *c) {
    if (c->writes_pending) return 0;
    if (c->final_sent) return 1;
    return c->close_when_written && c->inflight == 0;
}

/* ---- timers ------------------------------------------------------------------------------ */

static void pick(uint64_t *best, deadline_kind *kind, uint64_t at, deadline_kind k) {
    if (*kind == DL_NONE || at < *best) {
        *best = at;
        *kind = k;
    }
}

/* The earliest deadline that applies in the connection's current state. */
static uint64_t conn_deadline(const http_conn *c, deadline_kind *kind) {
    const http_server_limits *lim = &c->srv->lim;
    uint64_t best = 0;
    *kind = DL_NONE;
    if (c->lingering) {
        pick(&best, kind, c->linger_deadline_ns, DL_LINGER);
        return best;
    }
    if (!c->no_more && c->phase == PH_HEAD && c->head_started)
        pick(&best, kind, c->head_start_ns + ms_to_ns(lim->header_timeout_ms), DL_HEADER);
    if (!c->no_more && c->phase == PH_BODY) {
        pick(&best, kind, c->last_read_ns + ms_to_ns(lim->idle_timeout_ms), DL_BODY);
        /* Whatever trickles: a byte every few seconds keeps the idle deadline away, not this. */
        pick(&best, kind, c->body_start_ns + ms_to_ns(lim->body_timeout_ms), DL_BODY);
    }
    if (c->writes_pending) {
        /* A stream is exempt while it is within its bound (a silent SSE stream, or a reader
         * that is merely slow); over it, without progress for idle_timeout_ms, it is dead. */
        const req_impl *st = active_stream(c);
        uint64_t from = c->write_progress_ns;
        if (st && st->st_over && st->over_since_ns > from) from = st->over_since_ns;
        if (!st || c->writes_pending > c->st_nwrites ||
            stream_pending(c, st) > (size_t)lim->write_queue_max_bytes)
            pick(&best, kind, from + ms_to_ns(lim->idle_timeout_ms), DL_WRITE);
    }
    if (conn_is_idle(c) && c->phase == PH_HEAD && !c->head_started)
        pick(&best, kind, c->idle_since_ns + ms_to_ns(lim->idle_timeout_ms), DL_IDLE);
    return best;
}

static void on_conn_timer(uv_timer_t *t);

/* Keeps the timer armed no later than the connection's next deadline. A timer already armed for
 * that deadline or an earlier one is left alone: when it fires early, on_conn_timer finds no
 * deadline reached and comes back here. Re-arming on every change instead (a libuv heap removal
 * and insertion, once or twice per request, as the deadline moves on with each request) cost
 * more than parsing a small request. */
static void conn_update_timer(http_conn *c) {
    if (c->closing) return;
    deadline_kind kind;
    uint64_t at = conn_deadline(c, &kind);
    if (uv_is_active((const uv_handle_t *)&c->timer) && (kind == DL_NONE || c->timer_at_ns <= at))
        return;
    if (kind == DL_NONE) return;
    uint64_t now = log_monotonic_ns();
    uint64_t ms = at > now ? (at - now + 999999u) / 1000000u : 0;
    uv_timer_start(&c->timer, on_conn_timer, ms, 0);
    c->timer_at_ns = at;
}

/* For the write deadline: true (and the deadline moved) if the client took bytes since the
 * last look. */
static int conn_write_progressed(http_conn *c, uint64_t now) {
    size_t unsent = conn_unsent(c);
    if (unsent >= c->unsent_mark) return 0;
    c->unsent_mark = unsent;
    c->write_progress_ns = now;
    return 1;
}

/* For the idle deadline: true (and the deadline moved) if the connection is not really idle
 * because the client is still reading its last answer out of the kernel's send queue, or
 * finished doing so during the last period (it may be about to send its next request). */
static int conn_still_draining(http_conn *c, uint64_t now) {
    size_t unsent = conn_unsent(c);
    int was_draining = c->draining;
    c->draining = unsent > 0 && unsent < c->unsent_mark;
    if (!c->draining && !(was_draining && unsent == 0)) return 0;
    c->unsent_mark = unsent;
    c->idle_since_ns = now;
    return 1;
}

static void on_conn_timer(uv_timer_t *t) {
    http_conn *c = t->data;
    deadline_kind kind;
    uint64_t at = conn_deadline(c, &kind);
    uint64_t now = log_monotonic_ns();
    if (kind == DL_NONE) return;
    if (at > now) { /* armed for an earlier deadline since moved on, or the loop's clock */
        conn_update_timer(c);
        return;
    }
    switch (kind) {
    case DL_HEADER:
    case DL_BODY:
        conn_fail(c, 408, NULL);
        break;
    case DL_WRITE:
        if (conn_write_progressed(c, now))
            conn_update_timer(c);
        else
            conn_close(c);
        break;
    case DL_IDLE:
        if (conn_still_draining(c, now))
            conn_update_timer(c);
        else
            conn_close(c);
        break;
    default:
        conn_close(c);
        break;
    }
}

/* ---- reading ----------------------------------------------------------------------------- */

/* Whether the next request may be parsed, and so handed to the handler: within max_pipelined,
 * and with room for its answer, counted before it is produced (req_hold): in the connection's
 * write_queue_max_bytes, and in the server's write_budget_bytes, which all connections share.
 * A connection that holds nothing may always take one request, so every client progresses and
 * one that does not read gets no more than that. */
static int conn_may_parse(http_conn *c) {
    http_server *s = c->srv;
    const http_server_limits *lim = &s->lim;
    if (c->closing || c->lingering || c->no_more || c->inflight >= (size_t)lim->max_pipelined)
        return 0;
    if (c->held == 0 && c->writing == 0) return 1;
    size_t reserve = reserve_bytes(c);
    if (c->held + c->writing + reserve > (size_t)lim->write_queue_max_bytes) return 0;
    if (s->held_total + reserve > (size_t)lim->write_budget_bytes) {
        if (!c->budget_wait) {
            c->budget_wait = 1;
            s->nbudget_wait++;
        }
        return 0;
    }
    return 1;
}

static void on_budget(uv_timer_t *t) {
    http_server *s = t->data;
    for (http_conn *c = s->conns, *next; c && s->nbudget_wait; c = next) {
        next = c->next;
        if (!c->budget_wait) continue;
        c->budget_wait = 0;
        s->nbudget_wait--;
        conn_pump(c); /* may wait again */
    }
}

/* Something held was let go: wake the connections waiting for the budget, if it has room. */
static void server_budget_freed(http_server *s) {
    if (!s->nbudget_wait || !s->budget_open || uv_is_active((uv_handle_t *)&s->budget_timer))
        return;
    if (s->held_total + share_bytes(s) <= (size_t)s->lim.write_budget_bytes)
        uv_timer_start(&s->budget_timer, on_budget, 0, 0);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
    http_conn *c = h->data;
    (void)suggested;
    if (c->lingering) c->rpos = c->rlen = 0; /* discarding */
    if (c->rpos > 0) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
        c->rlen -= c->rpos;
        c->rpos = 0;
    }
    *buf = uv_buf_init(c->rbuf + c->rlen, (unsigned)(READ_BUF_SIZE - c->rlen));
}

static void conn_on_eof(http_conn *c) {
    c->eof = 1;
    c->reading = 0; /* libuv stops reading at EOF */
    c->no_more = 1;
    if (c->lingering || conn_is_idle(c)) {
        conn_close(c);
        return;
    }
    c->close_when_written = 1; /* answer what is in flight (the client half-closed) */
    conn_pump(c);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
    http_conn *c = stream->data;
    (void)buf;
    if (c->closing) return;
    if (nread > 0) {
        if (c->lingering) return;
        c->rlen += (size_t)nread;
        c->last_read_ns = log_monotonic_ns();
        conn_pump(c);
    } else if (nread == UV_EOF) {
        conn_on_eof(c);
    } else if (nread == UV_ENOBUFS) {
        conn_pump(c); /* buffer full: conn_update_reading stops reading */
    } else if (nread < 0) {
        conn_close(c);
    }
}

static void conn_update_reading(http_conn *c) {
    if (c->closing) return;
    int room = c->rlen - c->rpos < READ_BUF_SIZE;
    int want = !c->eof && (c->lingering || (conn_may_parse(c) && room));
    if (want && !c->reading) {
        if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) < 0) {
            conn_close(c);
            return;
        }
        c->reading = 1;
    } else if (!want && c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = 0;
    }
}

/* ---- llhttp callbacks -------------------------------------------------------------------- */

static http_conn *conn_of(llhttp_t *p) {
    return p->data;
}

static int cb_fail(http_conn *c, int status, const char *reason) {
    c->err_status = status;
    c->err_reason = reason;
    return HPE_USER;
}

static int scan_fail(http_conn *c, int status, const char *reason) {
    cb_fail(c, status, reason);
    return 0;
}

/* Every byte outside the body goes through the framing checks llhttp's loose build does not
 * make (server/http/http_framing.h), once. Also counts the head's raw size. */
static int scan_framing(http_conn *c, const char *from, const char *to) {
    const char *bad = http_framing_check(from, to, &c->scan_prev);
    if (bad) return scan_fail(c, 400, bad);
    if (c->phase != PH_HEAD || from == to) return 1;
    if (!c->head_started) {
        c->head_started = 1;
        c->head_start_ns = c->parse_now_ns;
    }
    c->head_raw += (size_t)(to - from);
    if (c->head_raw > (size_t)c->srv->lim.max_header_bytes)
        return scan_fail(c, 431, "request head too large");
    return 1;
}

static int on_message_begin(llhttp_t *p) {
    http_conn *c = conn_of(p);
    if (c->cur) req_free(c->cur);
    c->cur = req_new(c);
    return c->cur ? 0 : cb_fail(c, -1, "out of memory");
}

static int on_url(llhttp_t *p, const char *at, size_t len) {
    http_conn *c = conn_of(p);
    return seg_append(c->cur, SEG_URL, at, len, 0) ? cb_fail(c, -1, "out of memory") : 0;
}

static int on_url_complete(llhttp_t *p) {
    http_conn *c = conn_of(p);
    long off = seg_finish(c->cur, 0);
    if (off < 0) return cb_fail(c, -1, "out of memory");
    c->cur->target_off = (size_t)off;
    return 0;
}

/* Trailers (after a chunked body) are counted against the head limits and dropped. */
static int trailer_bytes(http_conn *c, size_t len) {
    c->trailer_bytes += len;
    if (c->trailer_bytes > (size_t)c->srv->lim.max_header_bytes)
        return cb_fail(c, 431, "trailers too large");
    return 0;
}

static int on_header_field(llhttp_t *p, const char *at, size_t len) {
    http_conn *c = conn_of(p);
    req_impl *r = c->cur;
    if (c->phase == PH_BODY) return trailer_bytes(c, len);
    if (r->seg == SEG_NONE && r->nhdr >= MAX_HEADERS)
        return cb_fail(c, 431, "too many header fields");
    return seg_append(r, SEG_NAME, at, len, 1) ? cb_fail(c, -1, "out of memory") : 0;
}

static int on_header_field_complete(llhttp_t *p) {
    http_conn *c = conn_of(p);
    req_impl *r = c->cur;
    if (c->phase == PH_BODY)
        return ++c->ntrailers > MAX_HEADERS ? cb_fail(c, 431, "too many trailer fields") : 0;
    if (r->nhdr >= MAX_HEADERS) return cb_fail(c, 431, "too many header fields");
    long off = seg_finish(r, 0);
    if (off < 0) return cb_fail(c, -1, "out of memory");
    if (!is_token(r->arena + off)) return cb_fail(c, 400, "invalid header field name");
    return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t len) {
    http_conn *c = conn_of(p);
    if (c->phase == PH_BODY) return trailer_bytes(c, len);
    return seg_append(c->cur, SEG_VALUE, at, len, 0) ? cb_fail(c, -1, "out of memory") : 0;
}

static int on_header_value_complete(llhttp_t *p) {
    http_conn *c = conn_of(p);
    req_impl *r = c->cur;
    if (c->phase == PH_BODY) return 0;
    if (seg_finish(r, 1) < 0) return cb_fail(c, -1, "out of memory");
    r->nhdr++;
    return 0;
}

static int on_headers_complete(llhttp_t *p) {
    conn_of(p)->pause_why = PAUSE_HEADERS;
    return HPE_PAUSED;
}

/* The bytes of a chunk's CRLF still due, from q (at most to end): 1 when they are CR, LF. */
static int crlf_check(http_conn *c, const char *q, const char *end) {
    for (; c->crlf_due && q < end; q++, c->crlf_due--)
        if (*q != (c->crlf_due == 2 ? '\r' : '\n'))
            return scan_fail(c, 400, "chunk data not followed by CRLF");
    return 1;
}

static int on_body(llhttp_t *p, const char *at, size_t len) {
    http_conn *c = conn_of(p);
    req_impl *r = c->cur;
    size_t max = (size_t)c->srv->lim.max_body_bytes;
    if (!scan_framing(c, c->scan_pos, at)) return HPE_USER; /* chunk framing before this */
    c->scan_pos = at + len;
    c->scan_prev = 0;
    if (c->parser.flags & F_CHUNKED) c->chunk_left = len < c->chunk_left ? c->chunk_left - len : 0;
    if ((c->parser.flags & F_CHUNKED) && c->chunk_left == 0) {
        /* RFC 9112 7.1: chunk-data is followed by exactly CRLF. llhttp's loose build skips any
         * two bytes there ("<data>ZZ0\r\n\r\n"), which another parser on the path may frame
         * differently: they are checked here, or (split across reads) as the next read
         * begins (parse_step). */
        c->crlf_due = 2;
        if (!crlf_check(c, at + len, c->exec_end)) return HPE_USER;
    }
    if (r->pub.body_len + len > max) return cb_fail(c, 413, "body too large");
    if (body_reserve(r, r->pub.body_len + len, max)) return cb_fail(c, -1, "out of memory");
    memcpy(r->body + r->pub.body_len, at, len);
    r->pub.body_len += len;
    return 0;
}

/* A chunk's size line is read: its data (content_length bytes) comes next. */
static int on_chunk_header(llhttp_t *p) {
    conn_of(p)->chunk_left = p->content_length;
    return 0;
}

static int on_message_complete(llhttp_t *p) {
    conn_of(p)->pause_why = PAUSE_MESSAGE;
    return HPE_PAUSED;
}

static void settings_init(llhttp_settings_t *st) {
    llhttp_settings_init(st);
    st->on_message_begin = on_message_begin;
    st->on_url = on_url;
    st->on_url_complete = on_url_complete;
    st->on_header_field = on_header_field;
    st->on_header_field_complete = on_header_field_complete;
    st->on_header_value = on_header_value;
    st->on_header_value_complete = on_header_value_complete;
    st->on_headers_complete = on_headers_complete;
    st->on_body = on_body;
    st->on_chunk_header = on_chunk_header;
    st->on_message_complete = on_message_complete;
}

/* ---- the parse loop ---------------------------------------------------------------------- */

/* Clients that send "Expect: 100-continue" wait for this before sending the body. Only sent
 * when nothing earlier is waiting to be answered, so it cannot overtake a final response. */
static void maybe_send_continue(http_conn *c, req_impl *r) {
    const llhttp_t *p = &c->parser;
    int has_body = (p->flags & F_CHUNKED) || ((p->flags & F_CONTENT_LENGTH) && p->content_length);
    const char *expect = http_request_header(&r->pub, "expect");
    if (p->http_minor != 1 || c->q_head || !has_body || !expect ||
        strcasecmp(expect, "100-continue") != 0)
        return;
    static const char msg[] = "HTTP/1.1 100 Continue\r\n\r\n";
    char *copy = malloc(sizeof msg);
    if (!copy) {
        conn_close(c);
        return;
    }
    memcpy(copy, msg, sizeof msg);
    if (conn_write(c, copy, sizeof msg - 1, NULL, 0, 0) < 0) conn_close(c);
}

/* Ends parsing on this connection with a layer error; returns 0 for parse_step. */
static int stop_with(http_conn *c, int status, const char *detail) {
    conn_fail(c, status, detail);
    return 0;
}

static int stop_closing(http_conn *c) {
    conn_close(c);
    return 0;
}

/* How many header fields of the request have this (lowercase) name. */
static size_t header_count(const http_request *req, const char *lowercase_name) {
    size_t n = 0;
    for (size_t i = 0; i < req->nheaders; i++)
        n += strcmp(req->headers[i].name, lowercase_name) == 0;
    return n;
}

/* The head of c->cur is complete: checks that need all of it, then on to the body. */
static int head_done(http_conn *c) {
    req_impl *r = c->cur;
    const llhttp_t *p = &c->parser;
    const http_server_limits *lim = &c->srv->lim;
    c->phase = PH_BODY;
    c->body_start_ns = c->parse_now_ns;
    c->exec_pending = 1;
    c->last_read_ns = c->parse_now_ns;
    r->pub.method = llhttp_method_name((llhttp_method_t)p->method);
    if (req_finish_head(r) < 0) return stop_closing(c);
    if (p->http_major != 1 || p->http_minor > 1)
        return stop_with(c, 400, "unsupported HTTP version");
    if (!target_ok(r->pub.target))
        return stop_with(c, 400, "invalid character in the request target");
    /* RFC 9112 3.2: an HTTP/1.1 request has exactly one Host (HTTP/1.0 may have none); and two
     * Authorization headers leave it open which one a proxy or this server would honour. */
    size_t hosts = header_count(&r->pub, "host");
    if (hosts > 1 || (hosts == 0 && p->http_minor == 1))
        return stop_with(c, 400, hosts ? "more than one Host header" : "no Host header");
    if (header_count(&r->pub, "authorization") > 1)
        return stop_with(c, 400, "more than one Authorization header");
    r->is_head = p->method == HTTP_HEAD;
    r->http_minor = p->http_minor;
    /* Upgrades and CONNECT are not supported: answered like any request, then closed. */
    r->keep_alive = llhttp_should_keep_alive(p) && !p->upgrade && p->method != HTTP_CONNECT;
    if (c->srv->shutting_down) return stop_with(c, 503, NULL);
    if (p->flags & F_CONTENT_LENGTH) {
        if (p->content_length > (uint64_t)lim->max_body_bytes) return stop_with(c, 413, NULL);
        if (p->content_length &&
            body_reserve(r, (size_t)p->content_length, (size_t)lim->max_body_bytes) < 0)
            return stop_closing(c);
    }
    maybe_send_continue(c, r);
    return !c->closing;
}

/* c->cur is complete: hand it to the handler. */
static int message_done(http_conn *c) {
    req_impl *r = c->cur;
    http_server *s = c->srv;
    c->cur = NULL;
    c->phase = PH_HEAD;
    c->head_started = 0;
    c->head_raw = 0;
    c->scan_prev = 0;
    c->chunk_left = 0;
    c->crlf_due = 0;
    c->trailer_bytes = c->ntrailers = 0;
    c->idle_since_ns = c->parse_now_ns;
    if (r->body) {
        r->body[r->pub.body_len] = '\0';
        r->pub.body = r->body;
    }
    if (!r->keep_alive) {
        r->close_after = 1;
        c->no_more = 1;
    }
    r->handed = 1;
    queue_push(c, r);
    s->outstanding++;
    s->handler(&r->pub, s->user); /* may answer (and free r) right away */
    return 1;
}

static void parse_failed(http_conn *c) {
    if (c->err_status < 0) {
        conn_close(c);
        return;
    }
    if (c->err_status > 0)
        conn_fail(c, c->err_status, c->err_reason);
    else
        conn_fail(c, 400, llhttp_get_error_reason(&c->parser));
}

/* One llhttp_execute over the unparsed bytes; returns 1 to keep going. */
static int parse_step(http_conn *c) {
    const char *data = c->rbuf + c->rpos;
    const char *end = c->rbuf + c->rlen;
    c->exec_pending = 0;
    c->err_status = 0;
    c->scan_pos = data;
    c->exec_end = end;
    if (!crlf_check(c, data, end)) { /* a chunk's CRLF begun in the previous read */
        parse_failed(c);
        return 0;
    }
    llhttp_errno_t err = llhttp_execute(&c->parser, data, (size_t)(end - data));
    if (err != HPE_OK) {
        const char *pos = llhttp_get_error_pos(&c->parser);
        if (pos && pos >= data && pos <= end) end = pos;
    }
    c->rpos += (size_t)(end - data);
    if ((err == HPE_OK || err == HPE_PAUSED) && !scan_framing(c, c->scan_pos, end)) err = HPE_USER;
    switch (err) {
    case HPE_OK:
        return 0;
    case HPE_PAUSED:
        llhttp_resume(&c->parser);
        return c->pause_why == PAUSE_HEADERS ? head_done(c) : message_done(c);
    case HPE_PAUSED_UPGRADE: /* not reached: upgrade requests end the connection */
        c->no_more = 1;
        return 0;
    case HPE_PAUSED_H2_UPGRADE: /* the HTTP/2 connection preface */
        return stop_with(c, 400, "HTTP/2 is not supported");
    default:
        parse_failed(c);
        return 0;
    }
}

static void conn_parse(http_conn *c) {
    c->in_parse = 1;
    c->parse_now_ns = log_monotonic_ns();
    while (conn_may_parse(c) && (c->rpos < c->rlen || c->exec_pending)) {
        if (!parse_step(c)) break;
    }
    c->in_parse = 0;
    if (c->rpos == c->rlen) c->rpos = c->rlen = 0;
}

/* Re-evaluates the connection after anything happened to it: parse what can be parsed, finish
 * it if everything is written, and set reading and the timer for the new state. */
static void conn_pump(http_conn *c) {
    if (c->closing || c->in_parse) return;
    if (!c->lingering) {
        conn_parse(c);
        if (c->closing) return;
        if (conn_done_writing(c)) {
            if (c->eof)
                conn_close(c);
            else
                conn_linger(c);
            return;
        }
        if (c->srv->shutting_down && conn_is_idle(c)) {
            conn_close(c);
            return;
        }
    }
    conn_update_reading(c);
    conn_update_timer(c);
}

/* ---- accepting --------------------------------------------------------------------------- */

/* The peer's address alone, as text (what per-client counts go by). */
static void format_peer_ip(const struct sockaddr_storage *ss, char out[CLIENT_ADDR_MAX]) {
    snprintf(out, CLIENT_ADDR_MAX, "?");
    if (ss->ss_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, out, CLIENT_ADDR_MAX);
    else if (ss->ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, out, CLIENT_ADDR_MAX);
}

static void format_remote(const struct sockaddr_storage *ss, char *out, size_t n) {
    char ip[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof ip);
        snprintf(out, n, "%s:%u", ip, (unsigned)ntohs(sin->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof ip);
        snprintf(out, n, "[%s]:%u", ip, (unsigned)ntohs(sin6->sin6_port));
    } else {
        snprintf(out, n, "-");
    }
}

/* ip: the peer's address (format_peer_ip); counted: whether it counts against
 * max_connections_per_client (no trusted proxy). */
static void conn_open(http_server *s, int fd, const struct sockaddr_storage *peer, const char *ip,
                      bool counted) {
    http_conn *c = calloc(1, sizeof *c);
    char *rbuf = malloc(READ_BUF_SIZE);
    if (!c || !rbuf) {
        free(c);
        free(rbuf);
        close(fd);
        return;
    }
    c->srv = s;
    c->rbuf = rbuf;
    uv_tcp_init(s->loop, &c->tcp);
    uv_timer_init(s->loop, &c->timer);
    c->tcp.data = c->timer.data = c->shut.data = c;
    c->open_handles = 2;
    c->next = s->conns;
    if (s->conns) s->conns->prev = c;
    s->conns = c;
    s->nconns++;
    llhttp_init(&c->parser, HTTP_REQUEST, &s->settings);
    c->parser.data = c;
    format_remote(peer, c->remote, sizeof c->remote);
    snprintf(c->peer_ip, sizeof c->peer_ip, "%s", ip);
    if (counted) c->counted = peer_counts_add(s->peers, c->peer_ip) == 0;
    uint64_t now = log_monotonic_ns();
    c->head_started = 1; /* the header deadline runs from accept */
    c->head_start_ns = c->idle_since_ns = c->last_read_ns = now;
    if (uv_tcp_open(&c->tcp, fd) < 0) {
        close(fd);
        conn_close(c);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    conn_pump(c);
}

/* At max_connections: a short 503 written straight to the socket, then close. */
static void reject_over_limit(http_server *s, int fd) {
    ssize_t n = send(fd, s->reject_resp, s->reject_len, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)n;
    close(fd);
    if (warn_due(&s->last_full_warn_ns))
        log_msg(LOG_WARN, "http: at max_connections (%lld); refusing new connections",
                (long long)s->lim.max_connections);
}

/* A peer holding max_connections_per_client already: a short 429 straight to the socket. */
static void reject_peer(http_server *s, int fd, const char *ip) {
    ssize_t n = send(fd, s->reject_peer_resp, s->reject_peer_len, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)n;
    close(fd);
    if (warn_due(&s->last_peer_warn_ns))
        log_msg(LOG_WARN,
                "http: %s holds %lld connections (max_connections_per_client); "
                "refusing more from it",
                ip, (long long)s->lim.max_connections_per_client);
}

/* Closes one lingering connection at once (the oldest found first in the list is as good as
 * any: each has sent everything it will send). */
static void end_a_lingering(http_server *s) {
    for (http_conn *c = s->conns; c; c = c->next)
        if (c->lingering && !c->closing) {
            conn_close(c);
            return;
        }
}

/* True when one more connection from ip (a counted peer: no trusted proxy) would pass its
 * address's bound. */
static int peer_over_limit(const http_server *s, const char *ip) {
    return peer_counts_get(s->peers, ip) >= (size_t)s->lim.max_connections_per_client;
}

static void on_listen_readable(uv_poll_t *h, int status, int events);

static void on_accept_timer(uv_timer_t *t) {
    http_server *s = t->data;
    if (s->lfd >= 0) uv_poll_start(&s->lpoll, UV_READABLE, on_listen_readable);
}

/* Out of descriptors (or memory): stop polling the listener for a while instead of spinning on
 * a readable socket we cannot accept from. */
static void accept_pause(http_server *s, int err) {
    uv_poll_stop(&s->lpoll);
    uv_timer_start(&s->accept_timer, on_accept_timer, ACCEPT_RETRY_MS, 0);
    if (warn_due(&s->last_accept_warn_ns))
        log_msg(LOG_WARN, "http: accept failed (%s); pausing accepts for %d ms", strerror(err),
                ACCEPT_RETRY_MS);
}

/* Returns 1 when accepting should go on at once. */
static int accept_failed(http_server *s, int err) {
    switch (err) {
    case EAGAIN:
        return 0;
    case EINTR:
    case ECONNABORTED:
    case EPROTO:
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH:
        return 1; /* the pending connection failed; the next one may be fine */
    default:
        accept_pause(s, err);
        return 0;
    }
}

static void on_listen_readable(uv_poll_t *h, int status, int events) {
    http_server *s = h->data;
    (void)events;
    if (status < 0) {
        accept_pause(s, -status);
        return;
    }
    for (int i = 0; i < ACCEPT_BATCH && s->lfd >= 0; i++) {
        struct sockaddr_storage peer;
        socklen_t plen = sizeof peer;
        memset(&peer, 0, sizeof peer);
        int fd = accept4(s->lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (accept_failed(s, errno)) continue;
            return;
        }
        char ip[CLIENT_ADDR_MAX];
        format_peer_ip(&peer, ip);
        bool counted = !client_proxies_match(&s->proxies, ip); /* proxies speak for many */
        /* A lingering connection has had its last answer: it gives its slot to a new one
         * (closed now, gone once libuv has closed it), so that connections refused in a burst
         * (a stream over its bounds, answered and closed) do not keep the slots of new ones. */
        if (s->nconns >= (size_t)s->lim.max_connections && s->nlingering > 0) end_a_lingering(s);
        if (s->nconns - s->nlingering >= (size_t)s->lim.max_connections)
            reject_over_limit(s, fd);
        else if (counted && peer_over_limit(s, ip))
            reject_peer(s, fd, ip);
        else
            conn_open(s, fd, &peer, ip, counted);
    }
}

static void on_server_handle_closed(uv_handle_t *h) {
    http_server *s = h->data;
    s->open_handles--;
    server_maybe_done(s);
}

static void listener_close(http_server *s) {
    if (s->lfd < 0) return;
    uv_close((uv_handle_t *)&s->lpoll, on_server_handle_closed);
    uv_close((uv_handle_t *)&s->accept_timer, on_server_handle_closed);
    close(s->lfd); /* safe: uv_close stopped polling it */
    s->lfd = -1;
}

static int resolve_host(const char *host, int port, struct sockaddr_storage *ss) {
    memset(ss, 0, sizeof *ss);
    if (strcmp(host, "localhost") == 0) host = "127.0.0.1";
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)ss) == 0) return 0;
    if (uv_ip6_addr(host, port, (struct sockaddr_in6 *)ss) == 0) return 0;
    return -1;
}

static int bound_port(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    memset(&ss, 0, sizeof ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) return -1;
    if (ss.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* socket + bind + listen; returns the descriptor or -1 with errno set. */
static int open_listener(const struct sockaddr_storage *ss) {
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    socklen_t len =
        ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, (const struct sockaddr *)ss, len) < 0 || listen(fd, SOMAXCONN) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* ---- public API -------------------------------------------------------------------------- */

const char *http_request_header(const http_request *req, const char *lowercase_name) {
    for (size_t i = 0; i < req->nheaders; i++)
        if (strcmp(req->headers[i].name, lowercase_name) == 0) return req->headers[i].value;
    return NULL;
}

void http_request_close_after(http_request *req) {
    req_impl *r = (req_impl *)req;
    r->close_after = 1;
    if (r->conn) r->conn->no_more = 1;
}

int http_request_abandoned(const http_request *req) {
    const req_impl *r = (const req_impl *)req;
    /* A client that closed its side while waiting (EOF) is taken as gone, as nginx takes it
     * (499): its answers are still written should it only have half-closed, but long work for
     * it may stop (server/api/work_pool.c). */
    return r->conn == NULL || r->conn->eof || r->srv->shutting_down;
}

static void limits_init(http_server_limits *dst, const http_server_limits *src) {
    http_server_limits zero = {0};
    if (!src) src = &zero;
    dst->max_connections = or_default(src->max_connections, 1024);
    dst->max_header_bytes = or_default(src->max_header_bytes, 16384);
    dst->max_body_bytes = or_default(src->max_body_bytes, 1048576);
    dst->header_timeout_ms = or_default(src->header_timeout_ms, 10000);
    dst->body_timeout_ms = or_default(src->body_timeout_ms, 30000);
    dst->max_connections_per_client = or_default(src->max_connections_per_client, 64);
    dst->idle_timeout_ms = or_default(src->idle_timeout_ms, 60000);
    dst->write_queue_max_bytes = or_default(src->write_queue_max_bytes, 1048576);
    dst->max_pipelined = or_default(src->max_pipelined, 16);
    dst->write_budget_bytes = or_default(src->write_budget_bytes, 67108864);
    dst->access_log = src->access_log;
}

static void reject_init(http_server *s) {
    const char *msg = "{\"error\":{\"code\":\"too_many_connections\",\"message\":\"The server has "
                      "too many open connections; try again later.\",\"details\":{}}}";
    size_t blen = strlen(msg);
    int n = snprintf(s->reject_resp, sizeof s->reject_resp,
                     "HTTP/1.1 503 Service Unavailable\r\nContent-Type: " JSON_TYPE
                     "\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     blen, msg);
    s->reject_len = (size_t)n < sizeof s->reject_resp ? (size_t)n : 0;
}

static void reject_peer_init(http_server *s) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "{\"error\":{\"code\":\"too_many_connections\",\"message\":\"Your address holds "
             "as many connections as it may; close one and retry.\",\"details\":{\"limit\":%lld}}}",
             (long long)s->lim.max_connections_per_client);
    int n = snprintf(s->reject_peer_resp, sizeof s->reject_peer_resp,
                     "HTTP/1.1 429 Too Many Requests\r\nContent-Type: " JSON_TYPE
                     "\r\nContent-Length: %zu\r\nRetry-After: 5\r\nConnection: close\r\n\r\n%s",
                     strlen(msg), msg);
    s->reject_peer_len = (size_t)n < sizeof s->reject_peer_resp ? (size_t)n : 0;
}

http_server *http_server_new(uv_loop_t *loop, const http_server_limits *lim,
                             http_handler_fn handler, void *user) {
    http_server *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->loop = loop;
    limits_init(&s->lim, lim);
    if (client_proxies_parse(&s->proxies, lim ? lim->trusted_proxies : NULL) != 0) {
        free(s); /* config refuses such a list before it gets here */
        return NULL;
    }
    s->lim.trusted_proxies = NULL; /* parsed; the caller's string is not kept */
    s->peers = peer_counts_new((size_t)s->lim.max_connections);
    if (!s->peers) {
        free(s);
        return NULL;
    }
    s->handler = handler;
    s->user = user;
    s->lfd = -1;
    settings_init(&s->settings);
    reject_init(s);
    reject_peer_init(s);
    return s;
}

int http_server_listen(http_server *s, const char *host, int port, char *err, size_t errlen) {
    struct sockaddr_storage ss;
    if (s->lfd >= 0 || s->shutting_down) {
        snprintf(err, errlen, "The server is already listening or shutting down.");
        return -1;
    }
    if (port < 0 || port > 65535) {
        snprintf(err, errlen, "Cannot listen on port %d: the port must be between 0 and 65535.",
                 port);
        return -1;
    }
    if (resolve_host(host, port, &ss) < 0) {
        snprintf(err, errlen,
                 "Cannot listen on %s: the host must be an IPv4 or IPv6 address or localhost.",
                 host);
        return -1;
    }
    int fd = open_listener(&ss);
    if (fd < 0) {
        snprintf(err, errlen, "Cannot listen on %s port %d: %s.", host, port, strerror(errno));
        return -1;
    }
    signal(SIGPIPE, SIG_IGN);
    s->lfd = fd;
    s->port = bound_port(fd);
    uv_poll_init_socket(s->loop, &s->lpoll, fd);
    uv_timer_init(s->loop, &s->accept_timer);
    uv_timer_init(s->loop, &s->notify);
    uv_timer_init(s->loop, &s->budget_timer);
    s->lpoll.data = s->accept_timer.data = s->notify.data = s->budget_timer.data = s;
    s->open_handles = 4;
    s->notify_open = 1;
    s->budget_open = 1;
    uv_poll_start(&s->lpoll, UV_READABLE, on_listen_readable);
    return 0;
}

int http_server_port(const http_server *s) {
    return s->port;
}

size_t http_server_connection_count(const http_server *s) {
    return s->nconns;
}

http_server_memory http_server_get_memory(const http_server *s) {
    http_server_memory m = {s->held_total, s->peak_conn, s->peak_total};
    return m;
}

void http_respond_take(http_request *req, int status, const char *content_type,
                       const char *extra_headers, char *body, size_t body_len) {
    req_impl *r = (req_impl *)req;
    http_server *s = r->srv;
    http_conn *c = r->conn;
    if (r->streaming) {
        log_msg(LOG_ERROR, "http_respond_take called for a streaming answer; ignored");
        free(body);
        return;
    }
    s->outstanding--;
    if (!c) { /* the client left while the handler worked */
        free(body);
        req_free(r);
        server_maybe_done(s);
        return;
    }
    if (req_set_answer(r, status, content_type, extra_headers, body, body_len) < 0) {
        r->answered = 1; /* so that conn_close frees it */
        conn_close(c);
        return;
    }
    conn_flush(c);
}

void http_server_shutdown(http_server *s, void (*done)(void *arg), void *arg) {
    if (s->shutting_down) return;
    s->shutting_down = 1;
    s->done = done;
    s->done_arg = arg;
    listener_close(s);
    http_conn *c = s->conns;
    while (c) {
        http_conn *next = c->next;
        for (req_impl *r = c->q_head; r; r = r->next)
            if (r->streaming && !r->answered) stream_notify_close(r);
        if (conn_is_idle(c)) conn_close(c);
        c = next;
    }
    server_maybe_done(s);
}

/* The stream's head, without the Connection line (added when it is written). */
static int stream_build_head(req_impl *r, int status, const char *ctype, const char *extra) {
    size_t ctype_len = ctype ? strlen(ctype) : 0;
    size_t extra_len = extra ? strlen(extra) : 0;
    char *p;
    char *head = head_begin(r->srv, status, HEAD_FIXED_MAX + ctype_len + extra_len, &p);
    if (!head) return -1;
    if (ctype) {
        p = PUT_LIT(p, "Content-Type: ");
        p = put_mem(p, ctype, ctype_len);
        p = PUT_LIT(p, "\r\n");
    }
    if (r->st_chunked) p = PUT_LIT(p, "Transfer-Encoding: chunked\r\n");
    if (extra) p = put_mem(p, extra, extra_len);
    free(r->resp_head);
    r->resp_head = head;
    r->resp_head_len = (size_t)(p - head);
    return 0;
}

int http_stream_start(http_request *req, int status, const char *content_type,
                      const char *extra_headers, const http_stream_callbacks *cbs, void *arg) {
    req_impl *r = (req_impl *)req;
    if (!r || !cbs || !cbs->on_close) return -1;
    http_conn *c = r->conn;
    if (!r->handed || r->answered || r->streaming || !c || c->closing || r->srv->shutting_down)
        return -1;
    if (status < 200 || status > 999 || status == 204 || status == 304) return -1;
    r->st_chunked = r->http_minor >= 1;
    if (stream_build_head(r, status, content_type, extra_headers) < 0) return -1;
    r->streaming = 1;
    req_hold(r, 0); /* its blocks are bounded as a stream's */
    r->status = status;
    r->cbs = *cbs;
    r->cb_arg = arg;
    snprintf(r->remote, sizeof r->remote, "%s", c->remote);
    if (!r->st_chunked) { /* HTTP/1.0: the end of the body is the close */
        r->close_after = 1;
        c->no_more = 1;
    }
    conn_flush(c); /* writes the head if the stream is at the head of the queue */
    return 0;
}

/* After bytes were appended to r's blocks: hands them to libuv when nothing is in its queue,
 * and says whether the stream is now over its bound (http_stream_write's 0, 1 or -1). */
static int stream_wrote(http_conn *c, req_impl *r) {
    if (c->q_head == r && r->st_head_sent && write_queue_size(c) == 0 && stream_submit(c, r) < 0) {
        conn_close(c);
        return -1;
    }
    if (stream_pending(c, r) <= (size_t)c->srv->lim.write_queue_max_bytes) return 0;
    r->st_want_drain = 1;
    if (!r->st_over) {
        r->st_over = 1;
        r->over_since_ns = log_monotonic_ns();
        conn_update_timer(c);
    }
    return 1;
}

int http_stream_write(http_request *req, const void *data, size_t len) {
    req_impl *r = (req_impl *)req;
    http_conn *c = r->conn;
    if (!r->streaming || r->answered || r->st_closed || !c || c->closing) return -1;
    if (len > 0 && !r->is_head) {
        char pre[24];
        size_t plen = 0;
        if (r->st_chunked) plen = (size_t)snprintf(pre, sizeof pre, "%zx\r\n", len);
        if (stream_append(r, pre, plen, data, len, "\r\n", r->st_chunked ? 2 : 0) < 0) {
            conn_close(c); /* out of memory: on_close follows */
            return -1;
        }
        r->st_body_bytes += len;
    }
    return stream_wrote(c, r);
}

http_chunk *http_chunk_new(const void *data, size_t len) {
    char head[24];
    size_t head_len = (size_t)snprintf(head, sizeof head, "%zx\r\n", len);
    if (len > SIZE_MAX - sizeof(http_chunk) - head_len - 2) return NULL;
    http_chunk *ch = malloc(sizeof *ch + head_len + len + 2);
    if (!ch) return NULL;
    ch->refs = 1;
    ch->head_len = head_len;
    ch->data_len = len;
    memcpy(ch->bytes, head, head_len);
    if (len) memcpy(ch->bytes + head_len, data, len);
    memcpy(ch->bytes + head_len + len, "\r\n", 2);
    return ch;
}

void http_chunk_free(http_chunk *ch) {
    if (ch && --ch->refs == 0) free(ch);
}

size_t http_chunk_size(const http_chunk *ch) {
    return ch->head_len + ch->data_len + 2;
}

/* One block referring to ch (a reference of its own), appended to r's blocks. */
static int stream_append_shared(req_impl *r, http_chunk *ch) {
    out_block *b = malloc(sizeof *b);
    if (!b) return -1;
    b->next = NULL;
    b->shared = ch;
    /* HTTP/1.0 streams have no chunk framing: the data alone. */
    b->base = r->st_chunked ? ch->bytes : ch->bytes + ch->head_len;
    b->len = r->st_chunked ? http_chunk_size(ch) : ch->data_len;
    b->cap = b->len; /* full: stream_append never coalesces into it (it has no data[]) */
    ch->refs++;
    if (r->out_tail)
        r->out_tail->next = b;
    else
        r->out_head = b;
    r->out_tail = b;
    r->out_bytes += b->len;
    return 0;
}

int http_stream_write_shared(http_request *req, http_chunk *const *chunks, size_t n) {
    req_impl *r = (req_impl *)req;
    http_conn *c = r->conn;
    if (!r->streaming || r->answered || r->st_closed || !c || c->closing) return -1;
    if (!r->is_head) {
        for (size_t i = 0; i < n; i++) {
            if (chunks[i]->data_len == 0) continue; /* would read as the end of the stream */
            if (stream_append_shared(r, chunks[i]) < 0) {
                conn_close(c); /* out of memory: on_close follows */
                return -1;
            }
            r->st_body_bytes += chunks[i]->data_len;
        }
    }
    return stream_wrote(c, r);
}

size_t http_stream_pending(const http_request *req) {
    const req_impl *r = (const req_impl *)req;
    return r->streaming ? stream_pending(r->conn, r) : 0;
}

void http_stream_end(http_request *req) {
    req_impl *r = (req_impl *)req;
    http_server *s = r->srv;
    http_conn *c = r->conn;
    if (!r->streaming || r->answered) {
        log_msg(LOG_ERROR, "http_stream_end called for a request that is not an active stream");
        return;
    }
    s->outstanding--;
    notify_unlink(s, r); /* ended before its on_close was delivered: no on_close */
    r->answered = 1;
    if (s->lim.access_log) {
        uint64_t now = log_monotonic_ns();
        uint64_t us = now > r->pub.start_ns ? (now - r->pub.start_ns) / 1000u : 0;
        log_access(r->pub.method, r->pub.path, r->status, r->st_body_bytes, us, r->remote);
    }
    if (!c) { /* the client left */
        req_free(r);
        server_maybe_done(s);
        return;
    }
    conn_flush(c); /* the zero chunk if the stream is at the head of the queue */
}

void http_server_free(http_server *s) {
    if (!s) return;
    if (s->open_handles || s->nconns || s->outstanding) {
        /* Freeing now would leave libuv or a handler with dangling pointers. */
        log_msg(LOG_ERROR, "http_server_free called before shutdown finished; leaking it");
        return;
    }
    peer_counts_free(s->peers);
    free(s);
}
