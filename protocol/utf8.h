/* UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
#ifndef UMPIRE_UTF8_H
#define UMPIRE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* True when s[0..len) is valid UTF-8; otherwise *bad (if non-NULL) is the first bad offset. */
bool utf8_valid(const char *s, size_t len, size_t *bad);
/* Replaces every byte of an invalid sequence in the NUL-terminated s with '?', in place. */
void utf8_sanitize(char *s);

#endif
