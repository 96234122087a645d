/* The HTTP/1.1 layer: accepts connections on a libuv loop, parses requests with llhttp, hands
 * each complete request to one handler and writes the answers back in request order.
 *
 * Threading: every function here runs on the loop thread. A handler that hands work to another
 * thread must come back to the loop (e.g. with uv_async_send or uv_queue_work's after_work)
 * before calling http_respond_take.
 *
 * Errors this layer answers by itself (malformed request, timeouts, limits, shutdown) use the
 * contract's error envelope and close the connection; the handler never sees those requests. */
#ifndef UMPIRE_HTTP_SERVER_H
#define UMPIRE_HTTP_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct http_server http_server;

typedef struct http_header {
    const char *name; /* lower-cased */
    const char *value;
} http_header;

typedef struct http_request {
    const char *method; /* "GET", "POST", ... */
    const char *target; /* raw request-target */
    const char *path;   /* target up to '?' (not percent-decoded) */
    const char *query;  /* after '?', or "" */
    const http_header *headers;
    size_t nheaders;
    const char *body; /* NUL-terminated for convenience; "" when there is none */
    size_t body_len;
    uint64_t start_ns; /* log_monotonic_ns() when the first byte of this request arrived */
    /* Who sent it, for per-client rates and caps: the peer's IP address as text ("127.0.0.1",
     * "::1"), or, when the peer is a trusted proxy (http_server_limits.trusted_proxies), the
     * last address of X-Forwarded-For that is not itself a trusted proxy. Never NULL. */
    const char *client;
    void *user; /* free for the handler */
} http_request;

/* First header with that (lower-case) name, or NULL. */
const char *http_request_header(const http_request *req, const char *lowercase_name);

/* Called once per complete request, on the loop thread. The request stays valid until
 * http_respond_take is called for it (or, for a streaming answer, http_stream_end). */
typedef void (*http_handler_fn)(http_request *req, void *user);

/* Every limit <= 0 takes its default (in parentheses). */
typedef struct http_server_limits {
    int64_t max_connections;   /* open connections (1024) */
    int64_t max_header_bytes;  /* raw request head: request line + header lines (16384) */
    int64_t max_body_bytes;    /* decoded body (1048576) */
    int64_t header_timeout_ms; /* first byte (or accept) to end of headers (10000) */
    int64_t body_timeout_ms;   /* end of headers to end of body, however it trickles (30000) */
    int64_t max_connections_per_client; /* open connections of one peer address (64); trusted
                                         * proxies are exempt (they speak for many clients) */
    int64_t idle_timeout_ms;            /* idle keep-alive, stalled body or stalled write (60000) */
    int64_t write_queue_max_bytes;      /* unwritten bytes before reading pauses (1048576) */
    int64_t max_pipelined;              /* requests in flight per connection (16) */
    /* What every connection's answers may hold together, in flight or unwritten (67108864). A
     * request is handed to the handler only while its connection and the server have room for
     * its answer: each request in flight counts as write_queue_max_bytes / max_pipelined (or
     * the connection's biggest answer so far, if more, up to write_queue_max_bytes) until
     * answered, then as its answer's size until libuv has written it; a connection holding
     * nothing may always take one request. Streams' chunks are bounded per stream instead. */
    int64_t write_budget_bytes;
    int access_log; /* 1: one log_access line per answered request */
    /* Reverse proxies whose X-Forwarded-For names the client: comma-separated IP addresses, each
     * with an optional /prefix (config limits.trusted_proxies). NULL or "": none. Copied. */
    const char *trusted_proxies;
} http_server_limits;

http_server *http_server_new(uv_loop_t *loop, const http_server_limits *lim,
                             http_handler_fn handler, void *user);

/* host: IPv4 or IPv6 literal or "localhost" (= 127.0.0.1); port 0 = any free port.
 * Returns 0, or -1 with a sentence in err. Also sets SIGPIPE to ignored: a peer that resets
 * must not kill the process. */
int http_server_listen(http_server *s, const char *host, int port, char *err, size_t errlen);

/* The bound port. */
int http_server_port(const http_server *s);

/* Answers req and takes ownership of body (malloc'd; may be NULL when body_len is 0).
 * content_type: NULL or e.g. "application/json; charset=utf-8" (sent only with a body).
 * extra_headers: NULL or complete "Name: value\r\n" lines. Call exactly once per request, on the
 * loop thread, inside the handler or later. After it returns req is gone. If the client
 * disconnected meanwhile the answer is dropped and req freed all the same. HEAD requests get the
 * headers only; 1xx and 204 get neither body nor Content-Length. */
void http_respond_take(http_request *req, int status, const char *content_type,
                       const char *extra_headers, char *body, size_t body_len);

/* The connection closes once req's answer is written (Connection: close), and no request after
 * it is read: for an answer that refuses what the connection came for (a live stream over its
 * bounds), so the refused connection does not sit idle in a slot. Before http_respond_take. */
void http_request_close_after(http_request *req);

/* True when req's client has gone (its connection closed, or it closed its side: EOF while the
 * request waits, which HTTP clients do only when they give up) or the server is shutting down:
 * whatever the handler is still computing for it is likely thrown away, so long work may stop.
 * Loop thread only; req must not have been answered yet. */
int http_request_abandoned(const http_request *req);

/* Graceful stop: closes the listener; requests parsed from now on get 503 shutting_down with
 * Connection: close; connections with nothing in flight are closed at once, the others after
 * their last answer is written. Every active stream gets on_close (from a loop callback, not
 * from inside this call) so that its handler ends it. When every connection is closed and every
 * request handed to the handler has been answered (streams: ended), done(arg) is called once
 * (never from inside this call unless the server never listened). After done no handle of the
 * server remains open. */
void http_server_shutdown(http_server *s, void (*done)(void *arg), void *arg);

/* After shutdown's done, or if listen failed (or was never called). */
void http_server_free(http_server *s);

/* Open connections, including ones still closing. */
size_t http_server_connection_count(const http_server *s);

/* What answers hold (write_budget_bytes): now, and the most one connection and all of them held
 * since the server started. */
typedef struct http_server_memory {
    size_t held;
    size_t peak_connection;
    size_t peak_total;
} http_server_memory;
http_server_memory http_server_get_memory(const http_server *s);

/* ---- streaming answers (Server-Sent Events, large downloads) ------------------------------
 *
 * A streaming answer is the answer of its request: requests pipelined behind it wait until it
 * has ended (they are still answered in order). Everything runs on the loop thread. The
 * callbacks are only ever called from a loop callback of their own, never from inside a call
 * into this layer, so a callback may call any function here (including http_stream_end).
 *
 * Timeouts: a stream within write_queue_max_bytes is never closed by a timeout (silent between
 * heartbeats, or a slow reader). One whose unwritten bytes stay over it without write progress
 * for idle_timeout_ms is dead: the connection is closed and on_close called. A client's EOF alone
 * does not end a stream (it may be a half-close); a client that has gone is noticed when a write
 * fails, i.e. by the next write or two (heartbeats bound this). */
typedef struct http_stream_callbacks {
    /* The stream's unwritten bytes fell to at most half of write_queue_max_bytes after
     * http_stream_write returned 1. Optional. */
    void (*on_drain)(http_request *req, void *arg);
    /* The client went away, or the server is shutting down (http_server_shutdown). The handler
     * must then call http_stream_end(req) exactly once (it may do so inside this callback). After
     * the client went away, writes are discarded. Required. Called at most once per stream, and
     * not at all for a stream the handler ended first. */
    void (*on_close)(http_request *req, void *arg);
} http_stream_callbacks;

/* Starts a streaming answer instead of http_respond_take: writes the status line and headers
 * with Transfer-Encoding: chunked (HTTP/1.1; for HTTP/1.0 clients: no length, Connection: close,
 * the end of the stream is the close). content_type and extra_headers as for http_respond_take.
 * cbs is copied; arg is passed back. HEAD requests get the headers only (writes are discarded).
 * Returns 0, or -1 (request invalid/gone: already answered or streaming, status 1xx/204/304, no
 * on_close, the client left, or the server is shutting down): nothing was started and the caller
 * must still answer with http_respond_take. */
int http_stream_start(http_request *req, int status, const char *content_type,
                      const char *extra_headers, const http_stream_callbacks *cbs, void *arg);

/* Queues len bytes (copied) as one chunk (len 0: nothing is queued). Returns 0 when queued and
 * the stream's unwritten bytes are within write_queue_max_bytes; 1 when queued but now over it
 * (producer should pause until on_drain, or give up on the reader); -1 when the stream is closed
 * (client gone or shutting down): nothing queued. The bound on memory relies on the producer
 * honouring 1. */
int http_stream_write(http_request *req, const void *data, size_t len);

/* A chunk built once and written to many streams without copying (one live event to every
 * subscriber of its session): its bytes and their chunk framing are made once, and each stream
 * it is written to holds a reference until libuv has written it. Loop thread only. */
typedef struct http_chunk http_chunk;

/* Copies len bytes (with their chunk framing) into a new chunk holding one reference, the
 * caller's. NULL when out of memory. */
http_chunk *http_chunk_new(const void *data, size_t len);
/* Drops the caller's reference; the chunk goes with the last one. NULL: nothing. */
void http_chunk_free(http_chunk *ch);
/* Bytes the chunk holds on the wire (framing included): what it counts for in a stream. */
size_t http_chunk_size(const http_chunk *ch);

/* Queues n chunks, in order, as http_stream_write would queue their bytes (same 0, 1 or -1),
 * but handed to libuv together and without copying them: each stream takes a reference of its
 * own to each chunk, so the caller keeps (borrows) its own. A chunk of 0 bytes is skipped. */
int http_stream_write_shared(http_request *req, http_chunk *const *chunks, size_t n);

/* The stream's unwritten bytes: queued and not yet taken by the kernel, chunk framing included
 * (what the stream holds in memory); 0 once the client is gone. */
size_t http_stream_pending(const http_request *req);

/* Ends the stream (the zero chunk), then the connection carries on (keep-alive) or closes. req
 * is gone after this call. Called exactly once per started stream, also after on_close. Writes
 * the access-log line (bytes = body bytes the handler streamed). */
void http_stream_end(http_request *req);

#endif
