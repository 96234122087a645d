#include "protocol/utf8.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid sequence at s (1..4), or 0 when it is not valid UTF-8. */
static size_t sequence_length(const unsigned char *s, size_t left) {
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (n > left) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates, beyond Unicode */
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
        cp > 0x10ffff)
        return 0;
    return n;
}

bool utf8_valid(const char *s, size_t len, size_t *bad) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = sequence_length(u + i, len - i);
        if (n == 0) {
            if (bad) *bad = i;
            return false;
        }
        i += n;
    }
    return true;
}

void utf8_sanitize(char *s) {
    size_t len = strlen(s);
    unsigned char *u = (unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = sequence_length(u + i, len - i);
        if (n == 0) {
            u[i++] = '?';
            continue;
        }
        i += n;
    }
}
