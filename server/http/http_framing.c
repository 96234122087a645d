#include "server/http/http_framing.h"

#include <stddef.h>
#include <string.h>

/* A head is a few lines of ordinary bytes: instead of looking at each byte against the one
 * before it, find the LFs (memchr) and check the few bytes around each, and that no CR hides
 * inside a line. Same verdicts, in the same order, as checking byte by byte. */
const char *http_framing_check(const char *from, const char *to, unsigned char *prev) {
    if (from == to) return NULL;
    /* The first byte against the last one of the previous call. */
    if (*prev == '\r' && *from != '\n') return "bare CR";
    if (*prev == '\n' && (*from == ' ' || *from == '\t')) return "obsolete line folding";
    for (const char *p = from; p < to;) {
        const char *lf = memchr(p, '\n', (size_t)(to - p));
        const char *stop = lf ? lf : to; /* the line: [p, stop) */
        /* A CR may only be the line's last byte (before its LF, or before the next call's
         * first byte, checked above then); one earlier is followed by a byte that is not LF. */
        if (stop - p > 1 && memchr(p, '\r', (size_t)(stop - p - 1))) return "bare CR";
        if (!lf) break;
        unsigned char before = lf > from ? (unsigned char)lf[-1] : *prev;
        if (before != '\r') return "bare LF";
        if (lf + 1 < to && (lf[1] == ' ' || lf[1] == '\t')) return "obsolete line folding";
        p = lf + 1;
    }
    *prev = (unsigned char)to[-1];
    return NULL;
}
