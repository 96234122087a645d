#include "server/health_check.h"

#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Splits http://HOST[:PORT][/PATH]; IPv6 hosts in brackets. 0 or -1. */
static int split_url(const char *url, char *host, size_t hostlen, char *port, size_t portlen,
                     const char **path) {
    if (strncmp(url, "http://", 7) != 0) return -1;
    const char *h = url + 7, *end;
    if (*h == '[') {
        end = strchr(h, ']');
        if (!end) return -1;
        snprintf(host, hostlen, "%.*s", (int)(end - h - 1), h + 1);
        end++;
    } else {
        end = h + strcspn(h, ":/");
        snprintf(host, hostlen, "%.*s", (int)(end - h), h);
    }
    if (*end == ':') {
        const char *p = end + 1;
        end = p + strcspn(p, "/");
        snprintf(port, portlen, "%.*s", (int)(end - p), p);
    } else {
        snprintf(port, portlen, "80");
    }
    *path = *end ? end : "/";
    return host[0] ? 0 : -1;
}

static int wait_fd(int fd, short events, int timeout_ms) {
    struct pollfd p = {fd, events, 0};
    return poll(&p, 1, timeout_ms) == 1 ? 0 : -1;
}

int health_check(const char *url, int timeout_ms) {
    char host[256], port[16], req[1024], resp[64] = "";
    const char *path;
    if (split_url(url, host, sizeof host, port, sizeof port, &path) != 0) {
        fprintf(stderr, "check-health: not an http:// URL: %s\n", url);
        return 1;
    }
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &ai) != 0) {
        fprintf(stderr, "check-health: cannot resolve %s\n", host);
        return 1;
    }
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    int ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    freeaddrinfo(ai);
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                     path, host);
    ok = ok && n > 0 && (size_t)n < sizeof req && write(fd, req, (size_t)n) == n;
    ok = ok && wait_fd(fd, POLLIN, timeout_ms) == 0;
    ssize_t got = ok ? read(fd, resp, sizeof resp - 1) : -1;
    if (fd >= 0) close(fd);
    if (got <= 0) {
        fprintf(stderr, "check-health: no answer from %s\n", url);
        return 1;
    }
    resp[got] = '\0';
    /* "HTTP/1.1 200 OK": the status code is the second word. */
    const char *sp = strchr(resp, ' ');
    if (sp && strncmp(sp + 1, "200", 3) == 0) return 0;
    fprintf(stderr, "check-health: %s answered: %.*s\n", url, (int)strcspn(resp, "\r\n"), resp);
    return 1;
}
