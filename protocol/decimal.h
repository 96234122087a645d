/* Unsigned integers in decimal without printf, for the paths that write one per request, per
 * unit or per die (response heads, JSON answers, field paths, summaries) and for a signal
 * handler (server/core/fault_inject.c), where printf is not allowed. */
#ifndef UMPIRE_DECIMAL_H
#define UMPIRE_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* The maximum length decimal_u64 writes: 18446744073709551615. */
#define DECIMAL_U64_MAX 20

/* Writes v as printf's %llu would, without a NUL, into out (DECIMAL_U64_MAX bytes at least);
 * returns the number of digits. */
static inline size_t decimal_u64(char *out, uint64_t v) {
    char rev[DECIMAL_U64_MAX];
    size_t n = 0;
    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

#endif
