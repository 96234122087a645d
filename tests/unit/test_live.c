/* Unit tests for server/live/live.c over both kinds of db_reads (server/store/db_reads.h): inline,
 * and a pool of reader threads (on SQLite here, so that the asynchronous path runs without a
 * PostgreSQL server). Real HTTP clients on threads of their own read the streams; each must see
 * every event exactly once and in order, however the reads are answered: late, refused by a
 * full queue, or after the stream has closed. */
#include "server/http/http_server.h"
#include "server/live/live.h"
#include "server/store/db_reads.h"
#include "server/store/store.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define SID         "0123456789abcdef0123456789abcdef"
#define MAX_CLIENTS 16

typedef struct client {
    pthread_t thread;
    int port;
    int64_t want;         /* read until this id (0: until the server closes) */
    int64_t last;         /* the last id seen (read after the join) */
    bool in_order;        /* every id was last + 1 (read after the join) */
    atomic_bool reached;  /* saw id want */
    atomic_size_t *ended; /* counts the threads that have ended */
} client;

typedef struct fixture {
    uv_loop_t loop;
    char dir[64], path[128];
    store_conn *writer; /* inserts events, on the loop thread */
    store_conn *reader; /* the inline kind's connection */
    db_reads *reads;
    live *live;
    http_server *srv;
    int port;
    int64_t version; /* events inserted */
    int64_t target;  /* the producer stops here */
    bool publish;    /* the producer calls live_publish */
    size_t nclients;
    client clients[MAX_CLIENTS];
    atomic_size_t ended;
    uv_timer_t producer;
    uv_timer_t watch; /* starts the shutdown, and ends the loop once every client has ended */
    bool shutting, drained;
    /* test_reads_answered_after_close: the shutdown starts once this many have subscribed. */
    size_t expect_subscribers;
    /* A read of the test's own (block_pool) holds the pool's one thread until gate is posted, so
     * that the subscribers' reads wait behind it. */
    sem_t gate;
    bool gate_closed; /* not posted yet: on_drained posts it */
} fixture;

/* ---- the database ------------------------------------------------------------------------- */

static void insert_event(fixture *f) {
    char sql[1024];
    f->version++;
    snprintf(sql, sizeof sql,
             "INSERT INTO events (session_id, seq, ts, actor, type, data, prev, hash) VALUES "
             "('%s', %lld, '2024-01-01T00:00:00Z', 'referee', 'note', "
             "'{\"n\":%lld,\"pad\":\"%0200d\"}', 'p', 'h');"
             "UPDATE sessions SET version = %lld WHERE id = '%s'",
             SID, (long long)f->version, (long long)f->version, 0, (long long)f->version, SID);
    assert_int_equal(store_exec(f->writer, sql), 0);
}

static void open_db(fixture *f) {
    char err[256];
    snprintf(f->dir, sizeof f->dir, "/tmp/umpire-live-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/t.db", f->dir);
    f->writer = store_conn_open(f->path, "normal", 5000, err, sizeof err);
    if (!f->writer) fail_msg("open: %s", err);
    if (store_migrate(f->writer, err, sizeof err) < 0) fail_msg("migrate: %s", err);
    assert_int_equal(store_exec(f->writer,
                                "INSERT INTO sessions (id, ruleset, ruleset_version, title, sides, "
                                "visibility, options, dice_mode, version, head, state, created_at) "
                                "VALUES ('" SID "', 'generic', 1, 't', '[]', 'public', '{}', "
                                "'server', 0, 'h', '{}', '2024-01-01T00:00:00Z')"),
                     0);
    f->reader = store_conn_open(f->path, "normal", 5000, err, sizeof err);
    if (!f->reader) fail_msg("open: %s", err);
}

static void remove_db(fixture *f) {
    store_conn_close(f->reader);
    store_conn_close(f->writer);
    char p[160];
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", f->path, suffixes[i]);
        unlink(p);
    }
    rmdir(f->dir);
}

/* ---- the clients (threads, blocking sockets) ---------------------------------------------- */

/* Reads the stream, checking the "id: N" lines (the chunk framing between them is ignored: no
 * event line starts with "id: " but the id line). */
static void *client_main(void *arg) {
    client *c = arg;
    c->in_order = true;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)c->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* Shorter than the heartbeat: a stream left behind fails the test instead of hanging it. */
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) goto out;
    static const char request[] = "GET /events HTTP/1.1\r\nHost: t\r\n\r\n";
    if (write(fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) goto out;
    char buf[65536];
    size_t have = 0;
    while (!(c->want && c->last >= c->want)) {
        ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += (size_t)n;
        buf[have] = '\0';
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n')) != NULL) {
            *nl = '\0';
            if (strncmp(line, "id: ", 4) == 0) {
                int64_t id = strtoll(line + 4, NULL, 10);
                if (id != c->last + 1) c->in_order = false;
                c->last = id;
            }
            line = nl + 1;
        }
        have = (size_t)(buf + have - line);
        memmove(buf, line, have);
    }
    atomic_store(&c->reached, c->want && c->last >= c->want);
out:
    close(fd);
    atomic_fetch_add(c->ended, 1);
    return NULL;
}

static void start_clients(fixture *f, size_t n, int64_t want) {
    f->nclients = n;
    for (size_t i = 0; i < n; i++) {
        client *c = &f->clients[i];
        *c = (client){.port = f->port, .want = want, .ended = &f->ended};
        assert_int_equal(pthread_create(&c->thread, NULL, client_main, c), 0);
    }
}

/* ---- the daemon's side, on the loop ------------------------------------------------------- */

static void handler(http_request *req, void *user) {
    fixture *f = user;
    live_subscribe(f->live, req, SID, "", 0);
}

static void on_reads_closed(void *arg) {
    (void)arg;
}

static void on_drained(void *arg) {
    fixture *f = arg;
    if (f->gate_closed) sem_post(&f->gate); /* the blocked pool thread goes on */
    /* Answers every read still queued: the subscribers closed during their reads are freed
     * here, inside db_reads_stop. */
    db_reads_stop(f->reads, on_reads_closed, NULL);
    f->reads = NULL;
    f->drained = true;
}

static void shutdown_all(fixture *f) {
    f->shutting = true;
    uv_timer_stop(&f->producer);
    uv_close((uv_handle_t *)&f->producer, NULL);
    live_stop(f->live);
    http_server_shutdown(f->srv, on_drained, f);
}

static void on_watch(uv_timer_t *t) {
    fixture *f = t->data;
    if (!f->shutting) {
        bool go = true;
        if (f->expect_subscribers) {
            /* Every subscriber has a read queued behind the blocked one: the shutdown closes
             * their streams during those reads. */
            go = live_subscriber_count(f->live) >= f->expect_subscribers;
        } else {
            for (size_t i = 0; i < f->nclients; i++)
                if (!atomic_load(&f->clients[i].reached)) go = false;
            if (atomic_load(&f->ended) == f->nclients) go = true; /* some gave up: failed */
        }
        if (go) shutdown_all(f);
    }
    if (f->drained && atomic_load(&f->ended) == f->nclients) uv_close((uv_handle_t *)t, NULL);
}

static void on_produce(uv_timer_t *t) {
    fixture *f = t->data;
    if (f->version >= f->target) return;
    for (int i = 0; i < 3 && f->version < f->target; i++)
        insert_event(f);
    if (f->publish) live_publish(f->live, SID);
}

/* threads 0: inline reads. */
static void setup_loop(fixture *f, int threads, int64_t queue_max, int64_t write_queue) {
    memset(f, 0, sizeof *f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    open_db(f);
    char err[256];
    f->reads = threads ? db_reads_new_pool(&f->loop, f->path, threads, queue_max, err, sizeof err)
                       : db_reads_new_inline(f->reader);
    if (!f->reads) fail_msg("reads: %s", err);
    f->live = live_new(&f->loop, f->reads);
    assert_non_null(f->live);
    http_server_limits lim = {.write_queue_max_bytes = write_queue};
    f->srv = http_server_new(&f->loop, &lim, handler, f);
    assert_non_null(f->srv);
    assert_int_equal(http_server_listen(f->srv, "127.0.0.1", 0, err, sizeof err), 0);
    f->port = http_server_port(f->srv);
    uv_timer_init(&f->loop, &f->producer);
    uv_timer_init(&f->loop, &f->watch);
    f->producer.data = f->watch.data = f;
    uv_timer_start(&f->watch, on_watch, 5, 5);
}

static void run_and_teardown(fixture *f) {
    uv_run(&f->loop, UV_RUN_DEFAULT);
    for (size_t i = 0; i < f->nclients; i++)
        pthread_join(f->clients[i].thread, NULL);
    http_server_free(f->srv);
    live_free(f->live);
    assert_int_equal(uv_loop_close(&f->loop), 0);
    remove_db(f);
}

/* A backlog of several pages, then events published while the clients read. */
static void backlog_then_live(int threads, int64_t queue_max, size_t nclients, bool publish,
                              uint64_t poll_ms) {
    static fixture f;
    setup_loop(&f, threads, queue_max, 2048);
    for (int i = 0; i < 250; i++)
        insert_event(&f);
    f.target = 400;
    f.publish = publish;
    if (poll_ms) live_poll(f.live, poll_ms);
    start_clients(&f, nclients, f.target);
    uv_timer_start(&f.producer, on_produce, 5, 5);
    run_and_teardown(&f);
    for (size_t i = 0; i < nclients; i++) {
        assert_true(f.clients[i].in_order);
        assert_true(f.clients[i].reached);
        assert_int_equal(f.clients[i].last, f.target);
    }
}

static void test_inline(void **state) {
    (void)state;
    backlog_then_live(0, 0, 3, true, 0);
}

static void test_pool(void **state) {
    (void)state;
    backlog_then_live(2, 1000, 3, true, 0);
}

/* A queue of one read for eight subscribers: most of each publish's reads are refused, and the
 * retry timer must bring every subscriber up to date all the same. */
static void test_pool_refusals(void **state) {
    (void)state;
    backlog_then_live(2, 1, 8, true, 0);
}

/* Nothing is published (another node's commits, its notification lost): the poll finds them. */
static void test_pool_poll_only(void **state) {
    (void)state;
    backlog_then_live(2, 1000, 2, false, 20);
}

/* ---- reads answered after their stream closed ---------------------------------------------- */

static void block_pool(store_conn *conn, void *arg) {
    (void)conn;
    fixture *f = arg;
    sem_wait(&f->gate);
}

static void block_pool_done(void *arg) {
    (void)arg;
}

static void test_reads_answered_after_close(void **state) {
    (void)state;
    static fixture f;
    setup_loop(&f, 1, 1000, 0); /* one reader thread, blocked until the streams are gone */
    for (int i = 0; i < 120; i++)
        insert_event(&f);
    assert_int_equal(sem_init(&f.gate, 0, 0), 0);
    f.gate_closed = true;
    assert_int_equal(db_reads_submit(f.reads, block_pool, block_pool_done, &f), 0);
    f.expect_subscribers = 4;
    start_clients(&f, 4, 0); /* until the server closes */
    run_and_teardown(&f);
    sem_destroy(&f.gate);
    for (size_t i = 0; i < 4; i++) {
        assert_true(f.clients[i].in_order);
        assert_int_equal(f.clients[i].last, 0); /* their reads were answered after the close */
    }
}

/* ---- a commit published while the read is in flight ----------------------------------------- */

/* The subscriber's first read is queued behind the blocked one. Let both run, wait until that
 * read has surely been answered by the database (not yet by the loop: this callback holds it),
 * then commit and publish: the page the subscriber gets lacks the new event, and only the
 * publish during the read can make it read again (nothing else is published or polled). */
static void on_trigger(uv_timer_t *t) {
    fixture *f = t->data;
    if (live_subscriber_count(f->live) < 1) return;
    uv_timer_stop(t);
    f->gate_closed = false;
    sem_post(&f->gate);
    usleep(200 * 1000);
    insert_event(f);
    live_publish(f->live, SID);
}

static void test_publish_during_read(void **state) {
    (void)state;
    static fixture f;
    setup_loop(&f, 1, 1000, 0);
    for (int i = 0; i < 5; i++)
        insert_event(&f);
    assert_int_equal(sem_init(&f.gate, 0, 0), 0);
    f.gate_closed = true;
    assert_int_equal(db_reads_submit(f.reads, block_pool, block_pool_done, &f), 0);
    start_clients(&f, 1, 6);
    uv_timer_start(&f.producer, on_trigger, 5, 5);
    run_and_teardown(&f);
    sem_destroy(&f.gate);
    assert_true(f.clients[0].in_order);
    assert_int_equal(f.clients[0].last, 6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_pool_refusals),
        cmocka_unit_test(test_pool_poll_only),
        cmocka_unit_test(test_reads_answered_after_close),
        cmocka_unit_test(test_publish_during_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
