/* Configuration loading. One static table (`keys` below) describes every key: its dotted name,
 * type, field, range or allowed values and default. Defaults, loading, validation and comparison
 * are all loops over that table, so adding a key is one line here plus its documentation in
 * config.example.toml and docs/config.md (tests/unit/test_config.c checks the example).
 *
 * Parsing is done by toml++ through server/toml_shim.cpp, which reports each entry back here;
 * everything Umpire-specific stays in this file. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* inet_pton */
#endif

#include "server/config.h"

#include "protocol/utf8.h"
#include "server/live/webhook_policy.h"
#include "server/toml_shim.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { KEY_INT, KEY_STRING, KEY_BOOL, KEY_ENUM } key_type;

typedef struct config_key {
    const char *name; /* "table.key" */
    key_type type;
    size_t offset; /* of the field in umpire_config */
    size_t size;   /* of the field; for strings and enums the buffer size, NUL included */
    /* KEY_INT: the allowed values. KEY_STRING: the allowed length in bytes. */
    int64_t min, max;
    const char *const *allowed; /* KEY_ENUM: NULL-terminated */
    int64_t def_int;
    bool def_bool;
    const char *def_str; /* KEY_STRING, KEY_ENUM */
    /* KEY_STRING: optional further check returning 0 when the value is good, and what a good
     * value looks like, for the error message. */
    int (*check)(const char *value);
    const char *check_what;
} config_key;

/* _Generic makes a key whose declared type does not match its field a compile error instead of a
 * silent overwrite of the wrong bytes. Char arrays decay to char * in the controlling
 * expression. */
#define FIELD_OFFSET(field, type)                                                                  \
    _Generic(((umpire_config *)0)->field, type : offsetof(umpire_config, field))
#define FIELD_SIZE(field) sizeof(((umpire_config *)0)->field)

#define INT_KEY(key, field, def, lo, hi)                                                           \
    {                                                                                              \
        .name = key, .type = KEY_INT, .offset = FIELD_OFFSET(field, int64_t),                      \
        .size = FIELD_SIZE(field), .min = (lo), .max = (hi), .def_int = (def)                      \
    }
#define BOOL_KEY(key, field, def)                                                                  \
    {                                                                                              \
        .name = key, .type = KEY_BOOL, .offset = FIELD_OFFSET(field, bool),                        \
        .size = FIELD_SIZE(field), .def_bool = (def)                                               \
    }
#define STRING_KEY(key, field, def, fn, what)                                                      \
    {                                                                                              \
        .name = key, .type = KEY_STRING, .offset = FIELD_OFFSET(field, char *),                    \
        .size = FIELD_SIZE(field), .min = 1, .max = (int64_t)FIELD_SIZE(field) - 1,                \
        .def_str = (def), .check = (fn), .check_what = (what)                                      \
    }
/* A string that may be empty (empty meaning "built in"). */
#define STRING0_KEY(key, field, def, fn, what)                                                     \
    {                                                                                              \
        .name = key, .type = KEY_STRING, .offset = FIELD_OFFSET(field, char *),                    \
        .size = FIELD_SIZE(field), .min = 0, .max = (int64_t)FIELD_SIZE(field) - 1,                \
        .def_str = (def), .check = (fn), .check_what = (what)                                      \
    }
#define ENUM_KEY(key, field, def, values)                                                          \
    {                                                                                              \
        .name = key, .type = KEY_ENUM, .offset = FIELD_OFFSET(field, char *),                      \
        .size = FIELD_SIZE(field), .allowed = (values), .def_str = (def)                           \
    }

#define KIB    (INT64_C(1024))
#define MIB    (INT64_C(1024) * 1024)
#define DAY_MS (INT64_C(86400000))

static int check_listen(const char *value) {
    return config_parse_listen(value, NULL, 0, NULL);
}

/* Discord's webhook hosts: what a webhook is for out of the box. */
#define WEBHOOK_DEFAULT_HOSTS "discord.com,*.discord.com,discordapp.com,*.discordapp.com"

static int check_allow_hosts(const char *value) {
    static webhook_policy p; /* 16 KiB: not for the stack of whoever loads a config */
    return webhook_policy_init(&p, value, false, NULL, 0);
}

/* "10.0.0.1, 192.168.0.0/16, ::1, fd00::/8": IPv4 or IPv6 addresses, each with an optional
 * prefix length. */
static int check_proxies(const char *value) {
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p) break;
        size_t n = strcspn(p, ", ");
        char item[64], *slash;
        if (n >= sizeof item) return -1;
        memcpy(item, p, n);
        item[n] = '\0';
        p += n;
        long bits = -1;
        if ((slash = strchr(item, '/'))) {
            char *end;
            *slash = '\0';
            bits = strtol(slash + 1, &end, 10);
            if (!slash[1] || *end || bits < 0) return -1;
        }
        unsigned char buf[16];
        if (inet_pton(AF_INET, item, buf) == 1) {
            if (bits > 32) return -1;
        } else if (inet_pton(AF_INET6, item, buf) == 1) {
            if (bits > 128) return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

static const char *const synchronous_values[] = {"full", "normal", NULL};
static const char *const creation_values[] = {"open", "key", NULL};
/* The names server/core/log.c's log_set_level_name() accepts. */
static const char *const level_values[] = {"debug", "info", "warn", "error", NULL};

/* Ranges: everything is at least 1 (a zero limit or timeout would only ever mean "broken"); the
 * upper bounds are far above any sane setting and exist to catch typos such as an extra zero or a
 * value in the wrong unit. busy_timeout_ms stays well inside sqlite3_busy_timeout()'s int. */
static const config_key keys[] = {
    STRING_KEY("server.listen", listen, "127.0.0.1:8080", check_listen,
               "HOST:PORT or [IPV6]:PORT with a port from 0 to 65535"),
    INT_KEY("server.max_connections", max_connections, 1024, 1, 1048576),
    INT_KEY("server.max_header_bytes", max_header_bytes, 16 * KIB, 1, 1 * MIB),
    INT_KEY("server.max_body_bytes", max_body_bytes, 1 * MIB, 1, 64 * MIB),
    INT_KEY("server.header_timeout_ms", header_timeout_ms, 10000, 1, 3600000),
    INT_KEY("server.idle_timeout_ms", idle_timeout_ms, 60000, 1, 86400000),
    INT_KEY("server.write_queue_max_bytes", write_queue_max_bytes, 1 * MIB, 1, 256 * MIB),
    INT_KEY("server.max_pipelined", max_pipelined, 16, 1, 1024),
    INT_KEY("server.write_budget_bytes", write_budget_bytes, 64 * MIB, 1, 16384 * MIB),
    INT_KEY("server.shutdown_timeout_ms", shutdown_timeout_ms, 10000, 1, 600000),
    INT_KEY("server.body_timeout_ms", body_timeout_ms, 30000, 1, 3600000),
    INT_KEY("server.max_connections_per_client", max_connections_per_client, 64, 1, 1048576),
    INT_KEY("server.stream_share_percent", stream_share_percent, 75, 1, 100),
    INT_KEY("server.max_streams_per_client", max_streams_per_client, 16, 1, 1048576),
    INT_KEY("server.max_streams_per_session", max_streams_per_session, 256, 1, 1048576),
    INT_KEY("server.max_streams_per_token", max_streams_per_token, 8, 1, 1048576),
    INT_KEY("server.max_stream_lifetime_ms", max_stream_lifetime_ms, 3600000, 1000, 604800000),
    STRING_KEY("storage.db", db, "./data/umpire.db", NULL, NULL),
    ENUM_KEY("storage.synchronous", synchronous, "full", synchronous_values),
    INT_KEY("storage.busy_timeout_ms", busy_timeout_ms, 5000, 1, 600000),
    INT_KEY("storage.group_commit_max", group_commit_max, 64, 1, 65536),
    INT_KEY("storage.writer_queue_max", writer_queue_max, 4096, 1, 1048576),
    INT_KEY("storage.writer_queue_max_bytes", writer_queue_max_bytes, 64 * MIB, 1, 64 * 1024 * MIB),
    INT_KEY("storage.session_cache_max_bytes", session_cache_max_bytes, 64 * MIB, 1,
            64 * 1024 * MIB),
    INT_KEY("storage.read_threads", read_threads, 4, 1, 32),
    INT_KEY("storage.read_queue_max", read_queue_max, 4096, 1, 1048576),
    INT_KEY("storage.live_poll_ms", live_poll_ms, 1000, 1, 3600000),
    INT_KEY("storage.quick_check_ms", quick_check_ms, 10000, 0, 3600000),
    STRING0_KEY("web.root", web_root, "", NULL, NULL),
    STRING0_KEY("webhooks.allow_hosts", webhook_allow_hosts, WEBHOOK_DEFAULT_HOSTS,
                check_allow_hosts, "comma-separated host names, IP addresses or *.domain"),
    BOOL_KEY("webhooks.allow_private_addresses", webhook_allow_private, false),
    INT_KEY("webhooks.timeout_ms", webhook_timeout_ms, 10000, 1, 600000),
    INT_KEY("webhooks.max_attempts", webhook_max_attempts, 6, 1, 100),
    INT_KEY("webhooks.retry_base_ms", webhook_retry_base_ms, 1000, 1, 60000),
    INT_KEY("webhooks.queue_max", webhook_queue_max, 1000, 1, 1000000),
    INT_KEY("webhooks.max_total", webhook_max_total, 16384, 0, 1048576),
    INT_KEY("webhooks.max_per_client", webhook_max_per_client, 256, 1, 1048576),
    INT_KEY("webhooks.max_slots_per_host", webhook_max_slots_per_host, 64, 1, 256),
    INT_KEY("webhooks.idle_expire_ms", webhook_idle_expire_ms, 30 * DAY_MS, 0, 365 * DAY_MS),
    ENUM_KEY("limits.session_creation", session_creation, "open", creation_values),
    STRING0_KEY("limits.operator_key", operator_key, "", NULL, NULL),
    STRING0_KEY("limits.trusted_proxies", trusted_proxies, "", check_proxies,
                "comma-separated IP addresses, each with an optional /prefix"),
    INT_KEY("limits.clients_max", clients_max, 65536, 16, 16777216),
    INT_KEY("limits.create_per_minute", create_per_minute, 20, 1, 1000000),
    INT_KEY("limits.create_burst", create_burst, 10, 1, 1000000),
    INT_KEY("limits.actions_per_minute", actions_per_minute, 3000, 1, 100000000),
    INT_KEY("limits.actions_burst", actions_burst, 200, 1, 1000000),
    INT_KEY("limits.odds_per_minute", odds_per_minute, 60, 1, 1000000),
    INT_KEY("limits.odds_burst", odds_burst, 20, 1, 1000000),
    INT_KEY("limits.verify_per_minute", verify_per_minute, 30, 1, 1000000),
    INT_KEY("limits.verify_burst", verify_burst, 10, 1, 1000000),
    INT_KEY("limits.webhook_changes_per_minute", webhook_changes_per_minute, 10, 1, 1000000),
    INT_KEY("limits.webhook_changes_burst", webhook_changes_burst, 5, 1, 1000000),
    INT_KEY("limits.max_setup_bytes", max_setup_bytes, 256 * KIB, 1, 64 * MIB),
    INT_KEY("limits.max_state_bytes", max_state_bytes, 1 * MIB, 1, 256 * MIB),
    INT_KEY("limits.max_events_per_session", max_events_per_session, 100000, 1, 1000000000),
    INT_KEY("limits.max_session_bytes", max_session_bytes, 64 * MIB, 1, 64 * 1024 * MIB),
    INT_KEY("work.odds_threads", odds_threads, 2, 1, 64),
    INT_KEY("work.odds_queue_max", odds_queue_max, 16, 1, 65536),
    INT_KEY("work.verify_threads", verify_threads, 2, 1, 64),
    INT_KEY("work.verify_queue_max", verify_queue_max, 16, 1, 65536),
    INT_KEY("work.per_client", work_per_client, 2, 1, 1024),
    BOOL_KEY("log.access_log", access_log, true),
    ENUM_KEY("log.level", level, "info", level_values),
};

#define KEY_COUNT (sizeof keys / sizeof keys[0])

/* A configuration file is a few kilobytes; anything past this is the wrong file (say, the
 * database) and is refused before it is read into memory whole. */
#define CONFIG_FILE_MAX (1 * MIB)

static int64_t *int_field(umpire_config *cfg, const config_key *k) {
    return (int64_t *)(void *)((char *)cfg + k->offset);
}
static bool *bool_field(umpire_config *cfg, const config_key *k) {
    return (bool *)(void *)((char *)cfg + k->offset);
}
static char *str_field(umpire_config *cfg, const config_key *k) {
    return (char *)cfg + k->offset;
}
static const int64_t *int_field_c(const umpire_config *cfg, const config_key *k) {
    return (const int64_t *)(const void *)((const char *)cfg + k->offset);
}
static const bool *bool_field_c(const umpire_config *cfg, const config_key *k) {
    return (const bool *)(const void *)((const char *)cfg + k->offset);
}
static const char *str_field_c(const umpire_config *cfg, const config_key *k) {
    return (const char *)cfg + k->offset;
}

void config_set_defaults(umpire_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < KEY_COUNT; i++) {
        const config_key *k = &keys[i];
        switch (k->type) {
        case KEY_INT:
            *int_field(cfg, k) = k->def_int;
            break;
        case KEY_BOOL:
            *bool_field(cfg, k) = k->def_bool;
            break;
        case KEY_STRING:
        case KEY_ENUM:
            snprintf(str_field(cfg, k), k->size, "%s", k->def_str);
            break;
        }
    }
}

size_t config_key_count(void) {
    return KEY_COUNT;
}

const char *config_key_name(size_t i) {
    return i < KEY_COUNT ? keys[i].name : NULL;
}

int config_equal(const umpire_config *a, const umpire_config *b) {
    if (a == b) return 1;
    if (a == NULL || b == NULL) return 0;
    for (size_t i = 0; i < KEY_COUNT; i++) {
        const config_key *k = &keys[i];
        switch (k->type) {
        case KEY_INT:
            if (*int_field_c(a, k) != *int_field_c(b, k)) return 0;
            break;
        case KEY_BOOL:
            if (*bool_field_c(a, k) != *bool_field_c(b, k)) return 0;
            break;
        case KEY_STRING:
        case KEY_ENUM:
            /* Bounded: a field that lost its NUL must not make us read past it. */
            if (strncmp(str_field_c(a, k), str_field_c(b, k), k->size) != 0) return 0;
            break;
        }
    }
    return 1;
}

/* ---- listen addresses ---- */

static bool is_host_char(char c) {
    /* ASCII only and locale-independent, unlike isalnum(). */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
}

/* An IPv6 literal as written between brackets, optionally with a "%zone" (interface name or
 * number) as libuv's uv_ip6_addr() accepts it. */
static bool valid_ipv6(const char *s, size_t n) {
    char addr[64];
    if (n == 0 || n >= sizeof addr) return false;
    memcpy(addr, s, n);
    addr[n] = '\0';
    char *zone = strchr(addr, '%');
    if (zone != NULL) {
        *zone++ = '\0';
        if (*zone == '\0') return false;
        for (const char *z = zone; *z; z++)
            if (!is_host_char(*z)) return false;
    }
    unsigned char bin[16];
    return inet_pton(AF_INET6, addr, bin) == 1;
}

int config_parse_listen(const char *listen, char *host, size_t hostlen, int *port) {
    if (listen == NULL) return -1;
    const char *h, *hend, *p;
    if (listen[0] == '[') {
        h = listen + 1;
        hend = strchr(h, ']');
        if (hend == NULL || hend[1] != ':' || !valid_ipv6(h, (size_t)(hend - h))) return -1;
        p = hend + 2;
    } else {
        /* Without brackets the host holds no ':', which makes a bare "::1:8080" an error rather
         * than a guess. */
        const char *colon = strchr(listen, ':');
        if (colon == NULL || colon == listen || strchr(colon + 1, ':') != NULL) return -1;
        h = listen;
        hend = colon;
        if (hend - h > 253) /* the longest DNS name */
            return -1;
        for (const char *c = h; c < hend; c++)
            if (!is_host_char(*c)) return -1;
        p = colon + 1;
    }

    /* Digits only: no sign, no spaces, no trailing junk; at most 5 so the value cannot overflow. */
    long value = 0;
    size_t digits = 0;
    for (; p[digits] >= '0' && p[digits] <= '9'; digits++) {
        if (digits == 5) return -1;
        value = value * 10 + (p[digits] - '0');
    }
    if (digits == 0 || p[digits] != '\0' || value > 65535) return -1;

    if (host != NULL) {
        size_t n = (size_t)(hend - h);
        if (n >= hostlen) return -1;
        memcpy(host, h, n);
        host[n] = '\0';
    }
    if (port != NULL) *port = (int)value;
    return 0;
}

/* ---- loading ---- */

typedef struct load_ctx {
    umpire_config *cfg;
    const char *source;
    char *err;
    size_t errlen;
} load_ctx;

/* Copies s for an error message: control characters become '?', and a long s is cut (on a UTF-8
 * character boundary) and marked with "...", so a message always stays one readable line. */
static const char *printable(char *buf, size_t buflen, const char *s, size_t len) {
    size_t cut = len;
    bool truncated = false;
    if (cut > buflen - 4) {
        cut = buflen - 4;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
        truncated = true;
    }
    for (size_t i = 0; i < cut; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (truncated) {
        memcpy(buf + cut, "...", 3);
        cut += 3;
    }
    buf[cut] = '\0';
    return buf;
}

static void fail(load_ctx *ctx, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(load_ctx *ctx, uint32_t line, const char *fmt, ...) {
    if (ctx->err == NULL || ctx->errlen == 0) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line != 0)
        snprintf(ctx->err, ctx->errlen, "%s:%u: %s", ctx->source, (unsigned)line, msg);
    else
        snprintf(ctx->err, ctx->errlen, "%s: %s", ctx->source, msg);
}

static const char *kind_name(toml_shim_kind kind) {
    switch (kind) {
    case TOML_SHIM_TABLE:
        return "a table";
    case TOML_SHIM_ARRAY:
        return "an array";
    case TOML_SHIM_STRING:
        return "a string";
    case TOML_SHIM_INTEGER:
        return "an integer";
    case TOML_SHIM_FLOAT:
        return "a float";
    case TOML_SHIM_BOOLEAN:
        return "a boolean";
    case TOML_SHIM_DATE:
        return "a date";
    case TOML_SHIM_TIME:
        return "a time";
    case TOML_SHIM_DATE_TIME:
        return "a date-time";
    }
    return "a value of unknown type";
}

/* True when some key lives in table `name` (the part of a key before its '.'). */
static bool is_known_table(const char *name) {
    size_t n = strlen(name);
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (strncmp(keys[i].name, name, n) == 0 && keys[i].name[n] == '.') return true;
    return false;
}

static const config_key *find_key(const char *table, const char *key) {
    size_t n = strlen(table);
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (strncmp(keys[i].name, table, n) == 0 && keys[i].name[n] == '.' &&
            strcmp(keys[i].name + n + 1, key) == 0)
            return &keys[i];
    return NULL;
}

/* "[server], [storage] or [log]", built from the key table. */
static const char *table_list(char *buf, size_t buflen) {
    const char *names[KEY_COUNT] = {0};
    size_t count = 0;
    for (size_t i = 0; i < KEY_COUNT; i++) {
        size_t n = (size_t)(strchr(keys[i].name, '.') - keys[i].name);
        bool seen = false;
        for (size_t j = 0; j < count && !seen; j++)
            seen = strncmp(names[j], keys[i].name, n + 1) == 0;
        if (!seen) names[count++] = keys[i].name;
    }
    size_t pos = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < count && pos < buflen; j++) {
        const char *sep = j == 0 ? "" : j + 1 == count ? " or " : ", ";
        int n = (int)(strchr(names[j], '.') - names[j]);
        int w = snprintf(buf + pos, buflen - pos, "%s[%.*s]", sep, n, names[j]);
        if (w < 0) break;
        pos += (size_t)w;
    }
    return buf;
}

/* "full, normal" */
static const char *allowed_list(char *buf, size_t buflen, const char *const *allowed) {
    size_t pos = 0;
    buf[0] = '\0';
    for (size_t i = 0; allowed[i] != NULL && pos < buflen; i++) {
        int w = snprintf(buf + pos, buflen - pos, "%s%s", i == 0 ? "" : ", ", allowed[i]);
        if (w < 0) break;
        pos += (size_t)w;
    }
    return buf;
}

static int apply(load_ctx *ctx, const config_key *k, const toml_shim_value *v, uint32_t line) {
    char got[80], list[128];
    switch (k->type) {
    case KEY_INT:
        if (v->kind != TOML_SHIM_INTEGER) {
            fail(ctx, line, "key '%s' must be an integer, not %s", k->name, kind_name(v->kind));
            return -1;
        }
        if (v->integer < k->min || v->integer > k->max) {
            fail(ctx, line, "key '%s' must be between %lld and %lld (got %lld)", k->name,
                 (long long)k->min, (long long)k->max, (long long)v->integer);
            return -1;
        }
        *int_field(ctx->cfg, k) = v->integer;
        return 0;

    case KEY_BOOL:
        if (v->kind != TOML_SHIM_BOOLEAN) {
            fail(ctx, line, "key '%s' must be a boolean (true or false), not %s", k->name,
                 kind_name(v->kind));
            return -1;
        }
        *bool_field(ctx->cfg, k) = v->boolean;
        return 0;

    case KEY_ENUM:
        allowed_list(list, sizeof list, k->allowed);
        if (v->kind != TOML_SHIM_STRING) {
            fail(ctx, line, "key '%s' must be one of %s (a string, not %s)", k->name, list,
                 kind_name(v->kind));
            return -1;
        }
        for (size_t i = 0; k->allowed[i] != NULL; i++) {
            /* Lengths compared too, so "full\u0000x" does not pass as "full". */
            if (strlen(k->allowed[i]) == v->string_len && strcmp(k->allowed[i], v->string) == 0) {
                snprintf(str_field(ctx->cfg, k), k->size, "%s", k->allowed[i]);
                return 0;
            }
        }
        fail(ctx, line, "key '%s' must be one of %s (got '%s')", k->name, list,
             printable(got, sizeof got, v->string, v->string_len));
        return -1;

    case KEY_STRING:
        if (v->kind != TOML_SHIM_STRING) {
            fail(ctx, line, "key '%s' must be a string, not %s", k->name, kind_name(v->kind));
            return -1;
        }
        if (strlen(v->string) != v->string_len) {
            fail(ctx, line, "key '%s' must not contain a NUL character", k->name);
            return -1;
        }
        if (v->string_len < (size_t)k->min) {
            fail(ctx, line, "key '%s' must not be empty", k->name);
            return -1;
        }
        if (v->string_len > (size_t)k->max) {
            fail(ctx, line, "key '%s' is too long: %zu bytes, at most %lld are allowed", k->name,
                 v->string_len, (long long)k->max);
            return -1;
        }
        if (k->check != NULL && k->check(v->string) != 0) {
            fail(ctx, line, "key '%s' must be %s (got '%s')", k->name, k->check_what,
                 printable(got, sizeof got, v->string, v->string_len));
            return -1;
        }
        memcpy(str_field(ctx->cfg, k), v->string, v->string_len + 1);
        return 0;
    }
    return -1;
}

/* toml_shim callback: one entry of the root table (table == NULL) or of a root-level table. */
static int on_entry(void *p, const char *table, const char *key, const toml_shim_value *v,
                    uint32_t line) {
    load_ctx *ctx = p;
    char name[80], tname[80], list[128];

    if (table == NULL) {
        printable(name, sizeof name, key, strlen(key));
        if (is_known_table(key)) {
            if (v->kind == TOML_SHIM_TABLE) return 0;
            fail(ctx, line, "key '%s' must be a table, not %s", name, kind_name(v->kind));
        } else if (v->kind == TOML_SHIM_TABLE) {
            fail(ctx, line, "unknown table '%s' (known tables: %s)", name,
                 table_list(list, sizeof list));
        } else {
            fail(ctx, line, "unknown key '%s' (keys belong in %s)", name,
                 table_list(list, sizeof list));
        }
        return -1;
    }

    printable(tname, sizeof tname, table, strlen(table));
    if (!is_known_table(table)) {
        /* Unreachable while the shim reports a table before its entries; kept so that an entry
         * can never be applied without its table having been checked. */
        fail(ctx, line, "unknown table '%s'", tname);
        return -1;
    }
    const config_key *k = find_key(table, key);
    if (k == NULL) {
        char kname[80];
        printable(kname, sizeof kname, key, strlen(key));
        fail(ctx, line, "unknown %s '%s.%s'", v->kind == TOML_SHIM_TABLE ? "table" : "key", tname,
             kname);
        return -1;
    }
    return apply(ctx, k, v, line);
}

/* What toml++ 3.3 must never see, found by fuzz_config, checked before it does:
 *  - any byte outside ASCII: toml++'s generated whitespace classifier reaches
 *    __builtin_unreachable() (undefined behaviour) for whole ranges of code points, inside
 *    strings too, and that macro cannot be overridden. Config files are therefore ASCII; a
 *    non-ASCII value is written with TOML's \uXXXX escapes in a "basic string";
 *  - control characters other than tab, CR and LF (TOML forbids them everywhere anyway);
 *  - a table header that does not start with a key, e.g. "[@server]" (toml++ asserts). Our
 *    schema has only scalar keys, so a line starting with '[' is always a table header.
 * 0, or -1 with the line in err. */
static int check_text(const char *text, size_t len, load_ctx *ctx) {
    int line = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x80) {
            fail(ctx, line,
                 "configuration files must be ASCII; write other characters as \\uXXXX in a "
                 "\"quoted string\"");
            return -1;
        }
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
            fail(ctx, line, "control character 0x%02x is not allowed in TOML", c);
            return -1;
        }
        line += c == '\n';
    }
    line = 1;
    for (size_t i = 0; i < len; i++) {
        size_t p = i;
        while (p < len && (text[p] == ' ' || text[p] == '\t'))
            p++;
        if (p < len && text[p] == '[') {
            p++;
            if (p < len && text[p] == '[') p++;
            while (p < len && (text[p] == ' ' || text[p] == '\t'))
                p++;
            unsigned char c = p < len ? (unsigned char)text[p] : '\0';
            if (!(isalnum(c) || c == '_' || c == '-' || c == '"' || c == '\'')) {
                fail(ctx, line, "a table header must start with a table name, like [server]");
                return -1;
            }
        }
        while (i < len && text[i] != '\n')
            i++;
        line++;
    }
    return 0;
}

static int load_text(umpire_config *cfg, const char *text, size_t len, const char *source,
                     char *err, size_t errlen) {
    /* Entries are applied to a copy so that a file with an error changes nothing. */
    umpire_config work = *cfg;
    load_ctx ctx = {.cfg = &work, .source = source, .err = err, .errlen = errlen};
    if (check_text(text, len, &ctx) != 0) return -1;
    if (toml_shim_walk(text, len, source, on_entry, &ctx, err, errlen) != 0) return -1;
    *cfg = work;
    return 0;
}

int config_load_string(umpire_config *cfg, const char *toml, const char *source_name, char *err,
                       size_t errlen) {
    const char *source = source_name != NULL ? source_name : "<string>";
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (cfg == NULL || toml == NULL) {
        load_ctx ctx = {.source = source, .err = err, .errlen = errlen};
        fail(&ctx, 0, "no configuration given");
        return -1;
    }
    return load_text(cfg, toml, strlen(toml), source, err, errlen);
}

int config_load_file(umpire_config *cfg, const char *path, char *err, size_t errlen) {
    load_ctx ctx = {.source = path != NULL ? path : "<no path>", .err = err, .errlen = errlen};
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (cfg == NULL || path == NULL) {
        fail(&ctx, 0, "no configuration given");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail(&ctx, 0, "cannot open the configuration file: %s", strerror(errno));
        return -1;
    }
    char *buf = malloc((size_t)CONFIG_FILE_MAX + 1);
    if (buf == NULL) {
        fclose(f);
        fail(&ctx, 0, "out of memory while reading the configuration file");
        return -1;
    }
    /* One byte past the limit tells "exactly at the limit" from "over it". */
    errno = 0;
    size_t n = fread(buf, 1, (size_t)CONFIG_FILE_MAX + 1, f);
    bool read_failed = ferror(f) != 0;
    int read_errno = errno;
    fclose(f);
    int rc = -1;
    if (read_failed)
        fail(&ctx, 0, "cannot read the configuration file: %s",
             read_errno != 0 ? strerror(read_errno) : "read error");
    else if (n > (size_t)CONFIG_FILE_MAX)
        fail(&ctx, 0, "the file is larger than %lld bytes, too large for a configuration file",
             (long long)CONFIG_FILE_MAX);
    else
        rc = load_text(cfg, buf, n, path, err, errlen);
    free(buf);
    return rc;
}
