/* `umpired --check-health URL`: a tiny blocking HTTP/1.1 client for the container's
 * HEALTHCHECK, so the image needs no curl. */
#ifndef UMPIRE_HEALTH_CHECK_H
#define UMPIRE_HEALTH_CHECK_H

/* GETs an http:// URL; 0 when it answers 200 within timeout_ms, else 1 (reason on stderr). */
int health_check(const char *url, int timeout_ms);

#endif
