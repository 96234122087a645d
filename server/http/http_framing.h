/* The line-framing checks llhttp's default (loose) build does not make on a request's head and
 * chunk framing: it accepts a bare LF ending the request line or a header line, and obs-fold
 * continuation lines, which other parsers on the path may frame differently (request
 * smuggling). Every byte outside a body must satisfy: LF only after CR, CR only before LF, and
 * no line starting with SP or HT. */
#ifndef UMPIRE_HTTP_FRAMING_H
#define UMPIRE_HTTP_FRAMING_H

/* Checks the bytes [from, to), which follow the byte *prev (0 when they start a message or
 * follow a body). Returns NULL and sets *prev to the last byte when they are fine; otherwise
 * the reason for the first offending byte: "bare CR", "bare LF" or "obsolete line folding"
 * (*prev is then unspecified). */
const char *http_framing_check(const char *from, const char *to, unsigned char *prev);

#endif
