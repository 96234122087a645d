/* fuzz_http: the HTTP request path — llhttp plus server/http/http_server.c's callbacks, limits,
 * pipelining and streaming — fed raw bytes from a real client socket.
 *
 * One static libuv loop runs an http_server on 127.0.0.1:0 with small limits. Per input: a
 * non-blocking client connects, writes the input in 1-3 pieces (offsets derived from the input's
 * hash, with loop turns in between so the server sees separate reads), shuts down its write
 * side, and reads and discards until the server closes; the loop is run (UV_RUN_NOWAIT, polling
 * in between) until the client is closed, the server's connection count is back to 0 and no
 * deferred answer is pending. A connection still open after CONN_DEADLINE_MS is a finding
 * (abort): every timeout here is a few hundred ms.
 *
 * The handler, by the first letter after '/' in the path: s = streaming answer (1-3 chunks),
 * d = answered later from a uv_timer (out of order with pipelining), n = 204, e = 500 with an
 * extra header, anything else = 200 with a small JSON body. It checks what the layer promises
 * about the request (NUL-terminated body within max_body_bytes, lower-case header names, path a
 * prefix of the target). */
#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HEADER_BYTES 4096
#define MAX_BODY_BYTES   8192
#define CONN_DEADLINE_MS 5000

static uv_loop_t loop;
static http_server *srv;
static int port;
static size_t deferred; /* answers waiting on a timer */

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_http: invariant failed: %s\n", #cond);                           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static char *dup_body(const char *s, size_t *len) {
    *len = strlen(s);
    char *b = malloc(*len + 1);
    CHECK(b != NULL);
    memcpy(b, s, *len + 1);
    return b;
}

static void answer_200(http_request *req) {
    char json[96];
    snprintf(json, sizeof json, "{\"ok\":true,\"body_length\":%zu,\"headers\":%zu}", req->body_len,
             req->nheaders);
    size_t n;
    char *b = dup_body(json, &n);
    http_respond_take(req, 200, "application/json; charset=utf-8", NULL, b, n);
}

typedef struct later {
    uv_timer_t timer;
    http_request *req;
} later;

static void later_closed(uv_handle_t *h) {
    free(h->data);
    deferred--;
}

static void later_fired(uv_timer_t *t) {
    later *l = t->data;
    answer_200(l->req);
    uv_close((uv_handle_t *)t, later_closed);
}

static void stream_on_close(http_request *req, void *arg) {
    (void)arg;
    http_stream_end(req);
}

static void handler(http_request *req, void *user) {
    (void)user;
    CHECK(req->method && req->target && req->path && req->query && req->body);
    CHECK(req->body[req->body_len] == '\0');
    CHECK(req->body_len <= MAX_BODY_BYTES);
    CHECK(strncmp(req->target, req->path, strlen(req->path)) == 0 || req->path[0] != '\0');
    for (size_t i = 0; i < req->nheaders; i++) {
        CHECK(req->headers[i].name && req->headers[i].value);
        for (const char *p = req->headers[i].name; *p; p++)
            CHECK(!(*p >= 'A' && *p <= 'Z'));
    }
    if (req->nheaders > 0)
        CHECK(http_request_header(req, req->headers[0].name) == req->headers[0].value);
    (void)http_request_header(req, "content-length");
    /* The client is an address, whatever X-Forwarded-For held: one parsed back by inet_pton. */
    CHECK(req->client != NULL);
    unsigned char addr[16];
    CHECK(inet_pton(AF_INET, req->client, addr) == 1 ||
          inet_pton(AF_INET6, req->client, addr) == 1);

    char kind = req->path[0] == '/' ? req->path[1] : '\0';
    if (kind == 's') {
        static const http_stream_callbacks cbs = {NULL, stream_on_close};
        if (http_stream_start(req, 200, "text/plain", "Cache-Control: no-store\r\n", &cbs, NULL) <
            0) {
            answer_200(req);
            return;
        }
        int chunks = 1 + (int)(req->body_len % 3);
        for (int i = 0; i < chunks; i++) {
            char chunk[64];
            int n = snprintf(chunk, sizeof chunk, "chunk %d of %d\n", i + 1, chunks);
            if (http_stream_write(req, chunk, (size_t)n) < 0) break;
            (void)http_stream_pending(req);
        }
        http_stream_end(req);
    } else if (kind == 'd') {
        later *l = calloc(1, sizeof *l);
        CHECK(l != NULL);
        l->req = req;
        uv_timer_init(&loop, &l->timer);
        l->timer.data = l;
        deferred++;
        uv_timer_start(&l->timer, later_fired, req->body_len % 3, 0);
    } else if (kind == 'n') {
        http_respond_take(req, 204, NULL, NULL, NULL, 0);
    } else if (kind == 'e') {
        size_t n;
        char *b = dup_body("{\"error\":{\"code\":\"x\",\"message\":\"m\",\"details\":{}}}", &n);
        http_respond_take(req, 500, "application/json", "X-Fuzz: 1\r\n", b, n);
    } else {
        answer_200(req);
    }
}

static void setup(void) {
    CHECK(uv_loop_init(&loop) == 0);
    http_server_limits lim = {
        .max_connections = 16,
        .max_header_bytes = MAX_HEADER_BYTES,
        .max_body_bytes = MAX_BODY_BYTES,
        .header_timeout_ms = 300,
        .idle_timeout_ms = 300,
        .write_queue_max_bytes = 65536,
        .max_pipelined = 4,
        .access_log = 0,
        /* The fuzzer's own address is a trusted proxy: X-Forwarded-For in an input is parsed
         * (server/http/client_addr.c) and its result checked by the handler. */
        .trusted_proxies = "127.0.0.1",
    };
    srv = http_server_new(&loop, &lim, handler, NULL);
    CHECK(srv != NULL);
    char err[256];
    if (http_server_listen(srv, "127.0.0.1", 0, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_http: listen: %s\n", err);
        abort();
    }
    port = http_server_port(srv);
    CHECK(port > 0);
}

static void wait_a_little(int fd) {
    struct pollfd p[2] = {{uv_backend_fd(&loop), POLLIN, 0}, {fd, POLLIN, 0}};
    (void)poll(p, fd >= 0 ? 2 : 1, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!srv) setup();
    static int verbose = -1; /* FUZZ_HTTP_VERBOSE=1: the server's answers go to stderr */
    if (verbose < 0) verbose = getenv("FUZZ_HTTP_VERBOSE") != NULL;

    /* Split points from the input's hash, so that corpus files stay plain HTTP. */
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 1099511628211ULL;
    size_t cut[3] = {size, size, size};
    int pieces = size > 2 ? 1 + (int)(h % 3) : 1;
    if (pieces >= 2) cut[0] = 1 + (size_t)((h >> 8) % (size - 1));
    if (pieces == 3) cut[1] = cut[0] + (size_t)((h >> 32) % (size - cut[0] + 1));
    if (pieces == 2) cut[1] = size;
    int piece = 0;

    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK(fd >= 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
        perror("fuzz_http: connect");
        abort();
    }

    size_t written = 0;
    int shut = 0, connected = 0;
    uint64_t deadline = now_ms() + CONN_DEADLINE_MS;
    char buf[16384];
    for (;;) {
        uv_run(&loop, UV_RUN_NOWAIT);
        int progress = 0;
        if (fd >= 0) {
            if (!connected) {
                int e = 0;
                socklen_t el = sizeof e;
                struct pollfd p = {fd, POLLOUT, 0};
                if (poll(&p, 1, 0) == 1) {
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
                    CHECK(e == 0);
                    connected = 1;
                }
            }
            if (connected && written < size) {
                size_t end = piece < 3 ? cut[piece] : size;
                if (end > size) end = size;
                ssize_t n = send(fd, data + written, end - written, MSG_NOSIGNAL);
                if (n > 0) {
                    written += (size_t)n;
                    progress = 1;
                    while (piece < 3 && written >= cut[piece])
                        piece++;
                } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    written = size; /* the server closed on us: stop writing */
                }
            } else if (connected && !shut) {
                shutdown(fd, SHUT_WR);
                shut = 1;
                progress = 1;
            }
            for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n > 0) {
                    if (verbose) fwrite(buf, 1, (size_t)n, stderr);
                    progress = 1;
                    continue;
                }
                if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                    close(fd);
                    fd = -1;
                    progress = 1;
                }
                break;
            }
        }
        if (fd < 0 && http_server_connection_count(srv) == 0 && deferred == 0) break;
        if (now_ms() > deadline) {
            fprintf(stderr,
                    "fuzz_http: connection not finished after %d ms (client %s, %zu/%zu bytes "
                    "written, %zu server connections, %zu deferred answers)\n",
                    CONN_DEADLINE_MS, fd >= 0 ? "open" : "closed", written, size,
                    http_server_connection_count(srv), deferred);
            abort();
        }
        if (!progress) wait_a_little(fd);
    }
    uv_run(&loop, UV_RUN_NOWAIT);
    CHECK(http_server_connection_count(srv) == 0);
    return 0;
}
