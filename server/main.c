/* umpired: the Umpire daemon.
 *
 *   umpired [--config FILE] [--listen HOST:PORT] [--db PATH] [--log-level LEVEL]
 *   umpired --check-health URL
 *   umpired --version
 *
 * Start-up: defaults, then the config file, then flags. Open the writer connection, apply
 * migrations, open the reader connection, start the writer thread, listen. SIGINT/SIGTERM:
 * stop accepting, finish in-flight requests (their writes commit first), stop the writer,
 * close the database, exit 0. */
#include "server/api/api.h"
#include "server/config.h"
#include "server/core/alloc_guard.h"
#include "server/core/log.h"
#include "server/health_check.h"
#include "server/http/http_server.h"
#include "server/live/webhooks.h"
#include "server/live/webhooks_sync.h"
#include "server/store/checkpointer.h"
#include "server/store/db_reads.h"
#include "server/store/db_transfer.h"
#include "server/store/migrate.h"
#include "server/store/pg_listen.h"
#include "server/store/store_check.h"
#include "server/store/store.h"
#include "server/store/writer.h"

#include <curl/curl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <uv.h>

#ifndef UMPIRE_VERSION
#define UMPIRE_VERSION "0.0.0"
#endif

typedef struct daemon_state {
    uv_loop_t *loop;
    umpire_config cfg;
    http_server *http;
    writer *writer;
    store_conn *reader; /* SQLite: the loop thread's read connection; NULL for PostgreSQL */
    db_reads *reads;    /* every read of the loop thread (server/store/db_reads.h) */
    pg_listen *listen;  /* PostgreSQL: other nodes' commits */
    live *live;
    token_cache *tokens;
    api_ctx api;
    api_assets assets;
    webhook_policy webhook_policy;
    webhooks *webhooks;
    uv_signal_t sigint, sigterm;
    uv_timer_t shutdown_timer;
    int stopping;
} daemon_state;

static void usage(FILE *out) {
    fprintf(out, "usage: umpired [--config FILE] [--listen HOST:PORT] [--db PATH|postgresql://URI] "
                 "[--log-level debug|info|warn|error]\n"
                 "       umpired export|import [--config FILE] [--db PATH|URI] [--file PATH]\n"
                 "       umpired --check-health URL\n"
                 "       umpired --version\n");
}

/* ---- shutdown: http drains, then the writer stops, then the handles close ---------------- */

static void on_handle_closed(uv_handle_t *h) {
    (void)h;
}

static void on_reads_closed(void *arg) {
    daemon_state *d = arg;
    d->reads = NULL;
}

static void on_writer_closed(void *arg) {
    daemon_state *d = arg;
    d->writer = NULL;
    pg_listen_stop(d->listen);
    d->listen = NULL;
    /* Deliveries still waiting are dropped: webhooks are told of commits while the daemon runs
     * (docs/api.md, Webhooks); the events themselves are safe in the database. First, so that
     * nothing submits a read once the reads stop. */
    webhooks_stop(d->webhooks);
    /* Reads still running finish and are answered (their streams are closed by now). */
    if (d->reads) db_reads_stop(d->reads, on_reads_closed, d);
    uv_close((uv_handle_t *)&d->sigint, on_handle_closed);
    uv_close((uv_handle_t *)&d->sigterm, on_handle_closed);
    uv_close((uv_handle_t *)&d->shutdown_timer, on_handle_closed);
    log_msg(LOG_INFO, "stopped");
}

/* Every request is answered by now, so no job is left in the pools: this joins their threads. */
static void stop_work_pools(daemon_state *d) {
    work_pool_stop(d->api.odds_pool);
    work_pool_stop(d->api.verify_pool);
}

static void free_work_pools(daemon_state *d) {
    work_pool_free(d->api.odds_pool);
    work_pool_free(d->api.verify_pool);
    d->api.odds_pool = d->api.verify_pool = NULL;
}

static void on_http_drained(void *arg) {
    daemon_state *d = arg;
    uv_timer_stop(&d->shutdown_timer);
    stop_work_pools(d);
    writer_stop(d->writer, on_writer_closed, d);
}

static void on_shutdown_timeout(uv_timer_t *t) {
    daemon_state *d = t->data;
    /* In-flight writes were already answered or will be by writer_stop; what is left are
     * clients that do not read their answers. Nothing acknowledged is at stake. */
    log_msg(LOG_WARN, "shutdown: clients still connected after %lld ms; closing the database",
            (long long)d->cfg.shutdown_timeout_ms);
    writer_stop(d->writer, NULL, NULL);
    store_conn_close(d->reader);
    exit(0);
}

static void on_signal(uv_signal_t *s, int signum) {
    daemon_state *d = s->data;
    if (d->stopping++) return;
    log_msg(LOG_INFO, "signal %d: stopping (finishing in-flight requests)", signum);
    uv_timer_start(&d->shutdown_timer, on_shutdown_timeout, (uint64_t)d->cfg.shutdown_timeout_ms,
                   0);
    live_stop(d->live); /* the HTTP layer's shutdown ends the streams themselves */
    http_server_shutdown(d->http, on_http_drained, d);
}

/* ---- start-up ------------------------------------------------------------------------------ */

/* Applies command-line flags over the config. 0 ok, 1 exit 0 (done), 2 usage error. */
static int parse_flags(int argc, char **argv, umpire_config *cfg) {
    const char *config_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--version") == 0) {
            printf("umpired %s\n", UMPIRE_VERSION);
            return 1;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (!v || (strcmp(a, "--config") && strcmp(a, "--listen") && strcmp(a, "--db") &&
                   strcmp(a, "--log-level") && strcmp(a, "--check-health"))) {
            fprintf(stderr, "umpired: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        i++;
        if (strcmp(a, "--check-health") == 0) exit(health_check(v, 3000));
        if (strcmp(a, "--config") == 0) config_path = v;
    }
    char err[512];
    if (config_path && config_load_file(cfg, config_path, err, sizeof err) != 0) {
        fprintf(stderr, "umpired: %s\n", err);
        return 2;
    }
    /* Flags override the file. */
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        size_t cap = 0;
        char *dst = NULL;
        if (strcmp(a, "--listen") == 0) dst = cfg->listen, cap = sizeof cfg->listen;
        if (strcmp(a, "--db") == 0) dst = cfg->db, cap = sizeof cfg->db;
        if (strcmp(a, "--log-level") == 0) dst = cfg->level, cap = sizeof cfg->level;
        if (!dst) continue;
        if (strlen(v) >= cap) {
            fprintf(stderr, "umpired: %s value is too long\n", a);
            return 2;
        }
        memcpy(dst, v, strlen(v) + 1);
    }
    return 0;
}

/* A database name for logs: a PostgreSQL URI without its password. */
static void db_display_name(const char *db, char *out, size_t cap) {
    const char *at = strchr(db, '@'), *scheme = strstr(db, "://");
    const char *colon = scheme && at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
    if (!store_db_is_postgres(db) || !colon)
        snprintf(out, cap, "%s", db);
    else
        snprintf(out, cap, "%.*s:***%s", (int)(colon - db), db, at);
}

/* The loop thread hears what another node did (server/store/pg_listen.h). "Anything may have
 * changed" leaves the live streams to live_poll, which catches each one up within
 * storage.live_poll_ms anyway, and reads every webhook list again. */
static void on_other_node(void *arg, pg_listen_what what, const char *session_id, int64_t version) {
    daemon_state *d = arg;
    switch (what) {
    case PG_LISTEN_EVENTS:
        live_publish(d->live, session_id);
        webhooks_publish_version(d->webhooks, session_id, version);
        break;
    case PG_LISTEN_WEBHOOKS:
        webhooks_reload(d->webhooks, d->reads, session_id);
        break;
    case PG_LISTEN_TOKENS:
        /* Another node rotated or revoked a token of the session: its old one is refused here
         * from now on (server/api/token_cache.h). */
        token_cache_forget(d->tokens, session_id, NULL, NULL);
        break;
    case PG_LISTEN_ALL:
        webhooks_reload(d->webhooks, d->reads, NULL);
        token_cache_clear(d->tokens); /* a token change may be among what was missed */
        break;
    case PG_LISTEN_LEADER:
    case PG_LISTEN_FOLLOWER:
        webhooks_set_standby(d->webhooks, what == PG_LISTEN_FOLLOWER);
        break;
    }
}

/* PostgreSQL: no connection on the loop thread. The writer thread's connection, a pool of
 * reader threads, and a listener for other nodes' commits. */
static int open_postgres(daemon_state *d, store_conn *w) {
    char err[512];
    d->reads = db_reads_new_pool(d->loop, d->cfg.db, (int)d->cfg.read_threads,
                                 d->cfg.read_queue_max, err, sizeof err);
    if (!d->reads) {
        log_msg(LOG_ERROR, "%s", err);
        store_conn_close(w);
        return -1;
    }
    d->writer = writer_new(d->loop, w, NULL, d->cfg.group_commit_max, d->cfg.writer_queue_max);
    if (!d->writer) {
        log_msg(LOG_ERROR, "cannot start the writer thread");
        return -1;
    }
    return 0;
}

/* SQLite: PRAGMA quick_check, bounded by storage.quick_check_ms, before anything reads or writes
 * the file. A corrupt database is refused (a chain extended over a damaged page would no longer
 * verify); a check that did not finish in time is logged and the daemon starts. -1 to refuse. */
static int check_storage(daemon_state *d, store_conn *w, const char *name) {
    char msg[512];
    uint64_t t0 = uv_hrtime();
    store_check_result r = store_quick_check(w, d->cfg.quick_check_ms, msg, sizeof msg);
    long long ms = (long long)((uv_hrtime() - t0) / 1000000u);
    switch (r) {
    case STORE_CHECK_OK:
        log_msg(LOG_INFO, "%s: quick_check ok (%lld ms)", name, ms);
        return 0;
    case STORE_CHECK_CORRUPT:
        log_msg(LOG_ERROR,
                "%s: the database is corrupt (PRAGMA quick_check: %s); refusing to start: restore "
                "it from a backup (or export what still reads: umpired export)",
                name, msg);
        return -1;
    case STORE_CHECK_UNFINISHED:
        log_msg(LOG_WARN,
                "%s: quick_check did not finish within storage.quick_check_ms (%lld ms); "
                "starting unchecked",
                name, (long long)d->cfg.quick_check_ms);
        return 0;
    case STORE_CHECK_FAILED:
        log_msg(LOG_WARN, "%s: quick_check could not run (%s); starting unchecked", name, msg);
        return 0;
    case STORE_CHECK_SKIPPED:
        break;
    }
    return 0;
}

static int open_storage(daemon_state *d) {
    char err[512], name[256];
    db_display_name(d->cfg.db, name, sizeof name);
    store_conn *w =
        store_conn_open(d->cfg.db, d->cfg.synchronous, d->cfg.busy_timeout_ms, err, sizeof err);
    if (!w) {
        log_msg(LOG_ERROR, "%s", err);
        return -1;
    }
    if (check_storage(d, w, name) != 0) {
        store_conn_close(w);
        return -1;
    }
    /* PostgreSQL: under an advisory lock, so nodes starting together migrate once. */
    int applied = store_migrate(w, err, sizeof err);
    if (applied < 0) {
        log_msg(LOG_ERROR, "%s: %s", name, err);
        store_conn_close(w);
        return -1;
    }
    if (applied) log_msg(LOG_INFO, "%s: applied %d migration(s)", name, applied);
    if (w->backend == STORE_POSTGRES) return open_postgres(d, w);
    d->reader =
        store_conn_open(d->cfg.db, d->cfg.synchronous, d->cfg.busy_timeout_ms, err, sizeof err);
    if (!d->reader) {
        log_msg(LOG_ERROR, "%s", err);
        store_conn_close(w);
        return -1;
    }
    /* A third connection checkpoints the WAL beside the writer (server/store/checkpointer.h). */
    store_conn *ck =
        store_conn_open(d->cfg.db, d->cfg.synchronous, d->cfg.busy_timeout_ms, err, sizeof err);
    checkpointer *ckpt = ck ? checkpointer_new(ck) : NULL;
    if (!ckpt) {
        log_msg(LOG_ERROR, "cannot start the checkpoint thread%s%s", ck ? "" : ": ", ck ? "" : err);
        store_conn_close(d->reader);
        d->reader = NULL;
        store_conn_close(w);
        return -1;
    }
    d->reads = db_reads_new_inline(d->reader);
    if (!d->reads) {
        log_msg(LOG_ERROR, "out of memory");
        checkpointer_free(ckpt);
        store_conn_close(d->reader);
        d->reader = NULL;
        store_conn_close(w);
        return -1;
    }
    d->writer = writer_new(d->loop, w, ckpt, d->cfg.group_commit_max, d->cfg.writer_queue_max);
    if (!d->writer) {
        log_msg(LOG_ERROR, "cannot start the writer thread");
        return -1;
    }
    return 0;
}

/* A session's stored webhooks, at start-up: they resume after the session's current version. */
static void on_stored_webhooks(void *arg, const char *session_id, const webhook_list *list,
                               int64_t version) {
    daemon_state *d = arg;
    if (webhooks_set(d->webhooks, session_id, list, version) != 0)
        log_msg(LOG_ERROR, "session %s: out of memory starting its webhooks", session_id);
}

static int start_http(daemon_state *d) {
    char host[256], err[512];
    int port;
    if (config_parse_listen(d->cfg.listen, host, sizeof host, &port) != 0) {
        log_msg(LOG_ERROR, "listen address '%s' is not HOST:PORT", d->cfg.listen);
        return -1;
    }
    http_server_limits lim = {
        .max_connections = d->cfg.max_connections,
        .max_header_bytes = d->cfg.max_header_bytes,
        .max_body_bytes = d->cfg.max_body_bytes,
        .header_timeout_ms = d->cfg.header_timeout_ms,
        .body_timeout_ms = d->cfg.body_timeout_ms,
        .max_connections_per_client = d->cfg.max_connections_per_client,
        .idle_timeout_ms = d->cfg.idle_timeout_ms,
        .write_queue_max_bytes = d->cfg.write_queue_max_bytes,
        .max_pipelined = d->cfg.max_pipelined,
        .write_budget_bytes = d->cfg.write_budget_bytes,
        .access_log = d->cfg.access_log,
        .trusted_proxies = d->cfg.trusted_proxies,
    };
    if (strcmp(d->cfg.session_creation, "key") == 0 && !d->cfg.operator_key[0]) {
        log_msg(LOG_ERROR, "limits.session_creation is \"key\" but limits.operator_key is empty: "
                           "nobody could create a session");
        return -1;
    }
    d->api.loop = d->loop;
    d->api.limits = (api_limits){
        .session_creation_key = strcmp(d->cfg.session_creation, "key") == 0,
        .operator_key = d->cfg.operator_key,
        .clients_max = d->cfg.clients_max,
        .rates =
            {
                [API_RATE_CREATE] = {d->cfg.create_per_minute, d->cfg.create_burst},
                [API_RATE_ACTIONS] = {d->cfg.actions_per_minute, d->cfg.actions_burst},
                [API_RATE_ODDS] = {d->cfg.odds_per_minute, d->cfg.odds_burst},
                [API_RATE_VERIFY] = {d->cfg.verify_per_minute, d->cfg.verify_burst},
                [API_RATE_WEBHOOKS] = {d->cfg.webhook_changes_per_minute,
                                       d->cfg.webhook_changes_burst},
            },
        .max_setup_bytes = d->cfg.max_setup_bytes,
        .odds_threads = d->cfg.odds_threads,
        .odds_queue_max = d->cfg.odds_queue_max,
        .verify_threads = d->cfg.verify_threads,
        .verify_queue_max = d->cfg.verify_queue_max,
        .work_per_client = d->cfg.work_per_client,
    };
    /* Odds and verify on threads of their own, each with a bounded queue; a job whose client
     * has gone is noticed within WORK_POOL_CHECK_MS and stops. */
    d->api.odds_pool =
        work_pool_new(d->loop, "odds", (int)d->cfg.odds_threads, (int)d->cfg.odds_queue_max,
                      (int)d->cfg.work_per_client, WORK_POOL_CHECK_MS);
    d->api.verify_pool =
        work_pool_new(d->loop, "verify", (int)d->cfg.verify_threads, (int)d->cfg.verify_queue_max,
                      (int)d->cfg.work_per_client, WORK_POOL_CHECK_MS);
    if (!d->api.odds_pool || !d->api.verify_pool) {
        log_msg(LOG_ERROR, "cannot start the odds and verify threads");
        return -1;
    }
    d->api.writer = d->writer;
    d->api.reads = d->reads;
    d->api.db_path = d->cfg.db;
    d->api.synchronous = d->cfg.synchronous;
    d->api.busy_timeout_ms = d->cfg.busy_timeout_ms;
    d->live = live_new(d->loop, d->reads);
    if (d->live) {
        /* Streams may hold a share of the connection slots; the rest stay for requests. */
        live_limits ll = {
            .max_streams = d->cfg.max_connections * d->cfg.stream_share_percent / 100,
            .max_streams_per_client = d->cfg.max_streams_per_client,
            .max_streams_per_session = d->cfg.max_streams_per_session,
            .max_streams_per_token = d->cfg.max_streams_per_token,
            .max_stream_lifetime_ms = d->cfg.max_stream_lifetime_ms,
        };
        if (ll.max_streams < 1) ll.max_streams = 1;
        live_set_limits(d->live, &ll);
    }
    d->api.live = d->live;
    if (api_assets_init(&d->assets, d->cfg.web_root, err, sizeof err) != 0) {
        log_msg(LOG_ERROR, "web client, scenarios or OpenAPI document: %s", err);
        return -1;
    }
    d->api.assets = &d->assets;
    if (webhook_policy_init(&d->webhook_policy, d->cfg.webhook_allow_hosts,
                            d->cfg.webhook_allow_private, err, sizeof err) != 0) {
        log_msg(LOG_ERROR, "%s", err);
        return -1;
    }
    webhooks_limits wl = {
        .timeout_ms = d->cfg.webhook_timeout_ms,
        .max_attempts = d->cfg.webhook_max_attempts,
        .retry_base_ms = d->cfg.webhook_retry_base_ms,
        .queue_max = d->cfg.webhook_queue_max,
        .max_total = d->cfg.webhook_max_total,
        .max_per_client = d->cfg.webhook_max_per_client,
        .max_slots_per_host = d->cfg.webhook_max_slots_per_host,
        .idle_expire_ms = d->cfg.webhook_idle_expire_ms,
    };
    d->webhooks = webhooks_new(d->loop, d->reads, &d->webhook_policy, &wl);
    /* Read once, before the loop runs: PostgreSQL gets a short-lived connection of its own. */
    store_conn *boot = d->reader ? d->reader
                                 : store_conn_open(d->cfg.db, d->cfg.synchronous,
                                                   d->cfg.busy_timeout_ms, err, sizeof err);
    int listed = d->webhooks && boot ? store_webhooks_each(boot, on_stored_webhooks, d) : -1;
    if (boot != d->reader) store_conn_close(boot);
    if (listed != 0) {
        log_msg(LOG_ERROR, "cannot start webhooks: %s",
                d->webhooks ? "storage error" : "no memory");
        return -1;
    }
    if (webhooks_count(d->webhooks))
        log_msg(LOG_INFO, "%zu webhook(s) resume from their sessions' current versions",
                webhooks_count(d->webhooks));
    d->api.webhooks = d->webhooks;
    d->api.webhook_policy = &d->webhook_policy;
    if (d->live && !d->reader) {
        /* Several nodes: other nodes' commits and webhook lists come by LISTEN, and a poll
         * bounds the delay should a notification be lost. Webhooks wait in standby until the
         * listener holds the delivery lock (server/store/pg_listen.h). */
        live_poll(d->live, (uint64_t)d->cfg.live_poll_ms);
        d->listen = pg_listen_new(d->loop, d->cfg.db, on_other_node, d);
        if (!d->listen) {
            log_msg(LOG_ERROR, "cannot start the PostgreSQL listener thread");
            return -1;
        }
        /* Before the first request: a node that holds the lock from the start sends every
         * event committed through it (a standby would skip what came before the lock). */
        webhooks_set_standby(d->webhooks, !pg_listen_wait_ready(d->listen, 5000));
    }
    d->tokens = token_cache_new(TOKEN_CACHE_SLOTS);
    d->api.tokens = d->tokens;
    d->api.rates = client_rates_new((size_t)d->cfg.clients_max, d->api.limits.rates);
    if (!d->live || !d->tokens || !d->api.rates) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    d->http = http_server_new(d->loop, &lim, api_handle, &d->api);
    if (!d->http || http_server_listen(d->http, host, port, err, sizeof err) != 0) {
        log_msg(LOG_ERROR, "cannot listen on %s: %s", d->cfg.listen, d->http ? err : "no memory");
        return -1;
    }
    char name[256];
    db_display_name(d->cfg.db, name, sizeof name);
    log_msg(LOG_INFO, "umpired %s listening on %s port %d, database %s", UMPIRE_VERSION, host,
            http_server_port(d->http), name);
    return 0;
}

/* umpired export|import [--config FILE] [--db DB] [--file PATH]: the database as JSON lines
 * (server/store/db_transfer.h), to or from PATH (default stdout / stdin). Exit 0, 1 failed, 2
 * usage. */
static int run_transfer(int argc, char **argv) {
    bool export = strcmp(argv[1], "export") == 0;
    const char *file = NULL;
    char *args[16];
    int nargs = 0;
    args[nargs++] = argv[0];
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--file") == 0 && i + 1 < argc) {
            file = argv[++i];
        } else if (nargs < 15 &&
                   (strcmp(argv[i], "--db") == 0 || strcmp(argv[i], "--config") == 0) &&
                   i + 1 < argc) {
            args[nargs++] = argv[i];
            args[nargs++] = argv[++i];
        } else {
            fprintf(stderr, "umpired %s: unknown or incomplete option '%s'\n", argv[1], argv[i]);
            usage(stderr);
            return 2;
        }
    }
    static umpire_config cfg;
    config_set_defaults(&cfg);
    int rc = parse_flags(nargs, args, &cfg);
    if (rc) return rc == 1 ? 0 : 2;
    json_object_seed(0);
    FILE *f = file ? fopen(file, export ? "w" : "r") : export ? stdout : stdin;
    if (!f) {
        fprintf(stderr, "umpired %s: cannot open %s: %s\n", argv[1], file, strerror(errno));
        return 1;
    }
    char err[512] = "";
    /* The report goes to stderr when the export itself is on stdout. */
    rc = export ? db_export(cfg.db, f, file ? stdout : stderr, err, sizeof err)
                : db_import(cfg.db, f, stdout, err, sizeof err);
    if (file && fclose(f) != 0 && rc == 0) {
        snprintf(err, sizeof err, "cannot write %s: %s", file, strerror(errno));
        rc = -1;
    }
    if (rc != 0) fprintf(stderr, "umpired %s: %s\n", argv[1], err);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
#ifdef UMPIRE_FAULT_INJECTION
    void fault_inject_install_from_env(
        void); /* server/core/fault_inject.h: before any allocation */
    fault_inject_install_from_env();
#endif
    alloc_guard_install(); /* before any jansson value exists */
    if (argc >= 2 && (strcmp(argv[1], "export") == 0 || strcmp(argv[1], "import") == 0))
        return run_transfer(argc, argv);
    static daemon_state d;
    config_set_defaults(&d.cfg);
    int rc = parse_flags(argc, argv, &d.cfg);
    if (rc) return rc == 1 ? 0 : 2;
    if (log_set_level_name(d.cfg.level) != 0) {
        fprintf(stderr, "umpired: unknown log level '%s'\n", d.cfg.level);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    /* jansson seeds its hash function on first use; do it before any worker thread exists. */
    json_object_seed(0);
    /* Not thread-safe, so before any thread: libcurl (webhooks) and its TLS library. */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        fprintf(stderr, "umpired: libcurl could not start\n");
        return 1;
    }
    d.loop = uv_default_loop();
    if (open_storage(&d) != 0) return 1;
    /* What one session may hold: before the first job (server/store/writer.h). */
    writer_set_limits(d.writer, &(writer_limits){
                                    .max_state_bytes = d.cfg.max_state_bytes,
                                    .max_events_per_session = d.cfg.max_events_per_session,
                                    .max_session_bytes = d.cfg.max_session_bytes,
                                    .queue_max_bytes = d.cfg.writer_queue_max_bytes,
                                    .session_cache_max_bytes = d.cfg.session_cache_max_bytes,
                                });
    uv_signal_init(d.loop, &d.sigint);
    uv_signal_init(d.loop, &d.sigterm);
    uv_timer_init(d.loop, &d.shutdown_timer);
    d.sigint.data = d.sigterm.data = d.shutdown_timer.data = &d;
    uv_signal_start(&d.sigint, on_signal, SIGINT);
    uv_signal_start(&d.sigterm, on_signal, SIGTERM);
    if (start_http(&d) != 0) {
        d.stopping = 1;
        webhooks_stop(d.webhooks);
        if (d.live) live_stop(d.live);
        writer_stop(d.writer, on_writer_closed, &d);
        if (d.http) http_server_free(d.http);
        d.http = NULL;
        stop_work_pools(&d);
        uv_run(d.loop, UV_RUN_DEFAULT);
        free_work_pools(&d);
        live_free(d.live);
        token_cache_free(d.tokens);
        client_rates_free(d.api.rates);
        api_assets_clear(&d.assets);
        webhooks_free(d.webhooks);
        store_conn_close(d.reader);
        uv_loop_close(d.loop);
        return 1;
    }
    uv_run(d.loop, UV_RUN_DEFAULT);
    http_server_free(d.http);
    free_work_pools(&d);
    live_free(d.live);
    token_cache_free(d.tokens);
    client_rates_free(d.api.rates);
    api_assets_clear(&d.assets);
    webhooks_free(d.webhooks);
    store_conn_close(d.reader);
    uv_loop_close(d.loop);
    curl_global_cleanup();
    return 0;
}
