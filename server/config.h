/* Umpire's configuration: a TOML file with the tables [server], [storage], [web], [webhooks],
 * [limits], [work] and [log].
 * Every key, its type, default and allowed range lives in one table in server/config.c; see
 * docs/config.md for the reference and config.example.toml for a file holding all defaults. */
#ifndef UMPIRE_CONFIG_H
#define UMPIRE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct umpire_config {
    /* [server] */
    char listen[272];              /* "HOST:PORT", default "127.0.0.1:8080"; IPv6 as "[::1]:8080" */
    int64_t max_connections;       /* 1024 */
    int64_t max_header_bytes;      /* 16384  (over it: 431) */
    int64_t max_body_bytes;        /* 1048576 (over it: 413, decided from Content-Length) */
    int64_t header_timeout_ms;     /* 10000 (408 and close) */
    int64_t idle_timeout_ms;       /* 60000 keep-alive idle */
    int64_t write_queue_max_bytes; /* 1048576 per connection */
    int64_t max_pipelined;         /* 16 requests in flight per connection */
    int64_t write_budget_bytes;    /* 67108864: answers of all connections together */
    int64_t shutdown_timeout_ms;   /* 10000 */
    int64_t body_timeout_ms;       /* 30000: end of headers to end of body, whatever trickles */
    int64_t max_connections_per_client; /* 64 open connections of one client */
    int64_t stream_share_percent;       /* 75: streams hold at most this share of the slots */
    int64_t max_streams_per_client;     /* 16 */
    int64_t max_streams_per_session;    /* 256 */
    int64_t max_streams_per_token;      /* 8 */
    int64_t max_stream_lifetime_ms;     /* 3600000: then the stream ends; clients resume */
    /* [storage] */
    char db[4096];                   /* "./data/umpire.db" */
    char synchronous[16];            /* "full" (default) or "normal" */
    int64_t busy_timeout_ms;         /* 5000 */
    int64_t group_commit_max;        /* 64 actions per transaction at most */
    int64_t writer_queue_max;        /* 4096 queued writes at most (beyond: 503) */
    int64_t writer_queue_max_bytes;  /* 67108864: request bytes of the queued writes */
    int64_t session_cache_max_bytes; /* 67108864: states the writer's cache keeps */
    int64_t read_threads;            /* PostgreSQL: 4 reader threads, a connection each */
    int64_t read_queue_max;          /* PostgreSQL: 4096 queued reads at most (beyond: 503) */
    int64_t live_poll_ms;            /* PostgreSQL: 1000 ms between catch-up reads of SSE streams */
    int64_t quick_check_ms; /* SQLite: 10000 ms for PRAGMA quick_check at start; 0 skips it */
    /* [web] */
    char web_root[4096]; /* "": the client built into the daemon; else a directory */
    /* [webhooks] */
    char webhook_allow_hosts[4096];     /* "discord.com,*.discord.com,discordapp.com,..." */
    bool webhook_allow_private;         /* false: no inside addresses unless listed as IPs */
    int64_t webhook_timeout_ms;         /* 10000 per attempt */
    int64_t webhook_max_attempts;       /* 6 per event */
    int64_t webhook_retry_base_ms;      /* 1000, doubling */
    int64_t webhook_queue_max;          /* 1000 events behind at most */
    int64_t webhook_max_total;          /* 16384 hooks over every session */
    int64_t webhook_max_per_client;     /* 256 hooks set by one client (an IPv6 /64) */
    int64_t webhook_max_slots_per_host; /* 64 of the 256 delivery slots for one host */
    int64_t webhook_idle_expire_ms;     /* 2592000000 (30 days) without an event; 0 never */
    /* [limits]: what one client may ask of the daemon */
    char session_creation[8];   /* "open" (default) or "key" (the operator key as bearer) */
    char operator_key[256];     /* "": none; needed when session_creation is "key" */
    char trusted_proxies[4096]; /* "": none; comma-separated IPs or CIDRs whose X-Forwarded-For
                                 * names the client */
    int64_t clients_max;        /* 65536 clients remembered for rates and caps */
    int64_t create_per_minute;  /* 20 sessions created */
    int64_t create_burst;       /* 10 */
    int64_t actions_per_minute; /* 3000 actions, reveals and entropy */
    int64_t actions_burst;      /* 200 */
    int64_t odds_per_minute;    /* 60 */
    int64_t odds_burst;         /* 20 */
    int64_t verify_per_minute;  /* 30 */
    int64_t verify_burst;       /* 10 */
    int64_t webhook_changes_per_minute; /* 10 PUT .../webhooks */
    int64_t webhook_changes_burst;      /* 5 */
    int64_t max_setup_bytes;            /* 262144: a session's setup, as canonical JSON */
    int64_t max_state_bytes;            /* 1048576: a session's state after any action */
    int64_t max_events_per_session;     /* 100000 */
    int64_t max_session_bytes;          /* 67108864: event data and state of one session */
    /* [work]: odds and verify, off the event loop */
    int64_t odds_threads;     /* 2 */
    int64_t odds_queue_max;   /* 16 waiting */
    int64_t verify_threads;   /* 2 */
    int64_t verify_queue_max; /* 16 waiting */
    int64_t work_per_client;  /* 2 odds and 2 verifies of one client at once */
    /* [log] */
    bool access_log; /* true */
    char level[16];  /* "info": debug | info | warn | error */
} umpire_config;

/* Sets every field to its built-in default (the values in config.example.toml). */
void config_set_defaults(umpire_config *cfg);

/* Both return 0 on success. On failure return -1 and write ONE human sentence into err naming the
 * source, the line and the key, e.g. "config.toml:12: unknown key 'server.lissten'" or
 * "config.toml:4: key 'server.max_connections' must be an integer" or
 * "config.toml:7: key 'storage.synchronous' must be one of full, normal". A TOML syntax error
 * reports toml++'s line and message. Values are only changed for keys present in the file.
 * On failure *cfg is left exactly as it was: a file is applied whole or not at all.
 * err may be NULL when errlen is 0; a message longer than errlen is truncated. */
int config_load_file(umpire_config *cfg, const char *path, char *err, size_t errlen);
int config_load_string(umpire_config *cfg, const char *toml, const char *source_name, char *err,
                       size_t errlen);

/* Splits "HOST:PORT" / "[v6]:PORT" (port 0..65535; 0 = any free port). 0 ok, -1 bad.
 * HOST is a host name or IPv4 address (letters, digits, '.', '-', '_'; no ':'), or between
 * brackets an IPv6 address, optionally with a "%zone". The host is returned without brackets;
 * a buffer of sizeof(cfg->listen) always suffices. host and port may be NULL to only validate. */
int config_parse_listen(const char *listen, char *host, size_t hostlen, int *port);

/* 1 when every field is equal (strings compared as strings), else 0. */
int config_equal(const umpire_config *a, const umpire_config *b);

/* Number of keys in the key table, and the dotted name of key i (for tests/docs); NULL when i is
 * out of range. */
size_t config_key_count(void);
const char *config_key_name(size_t i);

#endif
