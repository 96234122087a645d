/* Structured logging to stderr: one JSON object per line, written with a single write(2)
 * so lines from the loop thread and the writer thread never interleave. */
#ifndef UMPIRE_LOG_H
#define UMPIRE_LOG_H

#include <stddef.h>
#include <stdint.h>

typedef enum { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR } log_level;

/* Sets the lowest level that is printed; returns -1 for an unknown name. */
int log_set_level_name(const char *name);
void log_set_level(log_level level);

/* printf-style message: {"ts":..., "level":..., "msg":"..."} */
void log_msg(log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The access-log line: one per answered request. `bytes` counts the response body. */
void log_access(const char *method, const char *path, int status, size_t bytes, uint64_t micros,
                const char *remote);

/* Formats the current UTC time as RFC 3339 with milliseconds, e.g. 2026-11-21T10:41:55.123Z.
 * `out` must hold at least 25 bytes. */
void log_now_rfc3339(char out[32]);

/* Monotonic clock in nanoseconds. */
uint64_t log_monotonic_ns(void);

#endif
