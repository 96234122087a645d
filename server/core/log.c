#include "server/core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static log_level min_level = LOG_INFO;
static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_set_level(log_level level) {
    min_level = level;
}

int log_set_level_name(const char *name) {
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            min_level = (log_level)i;
            return 0;
        }
    }
    return -1;
}

void log_now_rfc3339(char out[32]) {
    /* The formatted second is kept per thread: every event and access-log line asks for the
     * time, and gmtime_r + strftime + snprintf cost as much as hashing the event. */
    static _Thread_local time_t last_sec = -1;
    static _Thread_local char last_text[24];
    static _Thread_local size_t last_len;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != last_sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        last_len = strftime(last_text, sizeof last_text, "%Y-%m-%dT%H:%M:%S", &tm);
        last_sec = ts.tv_sec;
    }
    int ms = (int)(ts.tv_nsec / 1000000) % 1000;
    memcpy(out, last_text, last_len);
    char *p = out + last_len;
    p[0] = '.';
    p[1] = (char)('0' + ms / 100);
    p[2] = (char)('0' + ms / 10 % 10);
    p[3] = (char)('0' + ms % 10);
    p[4] = 'Z';
    p[5] = '\0';
}

uint64_t log_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Appends s to buf as the body of a JSON string (without quotes), truncating safely. */
static size_t append_escaped(char *buf, size_t pos, size_t cap, const char *s) {
    for (; *s && pos + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[pos++] = '\\';
            buf[pos++] = (char)c;
        } else if (c < 0x20) {
            pos += (size_t)snprintf(buf + pos, cap - pos, "\\u%04x", c);
        } else {
            buf[pos++] = (char)c;
        }
    }
    return pos;
}

static void emit(char *line, size_t len) {
    /* One write per line; a short write to stderr is not worth retrying here. */
    ssize_t n = write(STDERR_FILENO, line, len);
    (void)n;
}

void log_msg(log_level level, const char *fmt, ...) {
    if (level < min_level) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    char ts[32];
    log_now_rfc3339(ts);
    char line[2304];
    size_t pos = (size_t)snprintf(line, sizeof line, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"",
                                  ts, level_names[level]);
    pos = append_escaped(line, pos, sizeof line - 3, msg);
    line[pos++] = '"';
    line[pos++] = '}';
    line[pos++] = '\n';
    emit(line, pos);
}

void log_access(const char *method, const char *path, int status, size_t bytes, uint64_t micros,
                const char *remote) {
    if (LOG_INFO < min_level) return;
    char ts[32];
    log_now_rfc3339(ts);
    char line[1536];
    size_t pos =
        (size_t)snprintf(line, sizeof line,
                         "{\"ts\":\"%s\",\"level\":\"info\",\"msg\":\"access\",\"method\":\"", ts);
    pos = append_escaped(line, pos, 200, method ? method : "-");
    pos += (size_t)snprintf(line + pos, sizeof line - pos, "\",\"path\":\"");
    pos = append_escaped(line, pos, 1200, path ? path : "-");
    pos += (size_t)snprintf(line + pos, sizeof line - pos,
                            "\",\"status\":%d,\"bytes\":%zu,\"us\":%llu,\"remote\":\"", status,
                            bytes, (unsigned long long)micros);
    pos = append_escaped(line, pos, sizeof line - 3, remote ? remote : "-");
    line[pos++] = '"';
    line[pos++] = '}';
    line[pos++] = '\n';
    emit(line, pos);
}
