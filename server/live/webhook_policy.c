#include "server/live/webhook_policy.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Copies s[0..n) lower-cased without surrounding brackets and a trailing dot. 0, -1 too long. */
static int normalise_host(const char *s, size_t n, char *out, size_t cap) {
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') s++, n -= 2;
    if (n && s[n - 1] == '.') n--;
    if (n >= cap) return -1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)s[i]);
    out[n] = '\0';
    return 0;
}

static bool is_ip_literal(const char *host) {
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int webhook_policy_init(webhook_policy *p, const char *allow_hosts, bool allow_private, char *err,
                        size_t errlen) {
    memset(p, 0, sizeof *p);
    p->allow_private = allow_private;
    const char *s = allow_hosts;
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        char host[WEBHOOK_HOST_MAX];
        if (normalise_host(s, n, host, sizeof host) != 0) {
            snprintf(err, errlen, "webhooks.allow_hosts: an entry is over %d bytes",
                     WEBHOOK_HOST_MAX - 1);
            return -1;
        }
        if (host[0]) {
            if (p->nhosts == WEBHOOK_POLICY_HOSTS_MAX) {
                snprintf(err, errlen, "webhooks.allow_hosts: more than %d entries",
                         WEBHOOK_POLICY_HOSTS_MAX);
                return -1;
            }
            for (const char *c = host; *c; c++)
                if (!(isalnum((unsigned char)*c) || strchr(".-_:*", *c))) {
                    snprintf(err, errlen, "webhooks.allow_hosts: '%s' is not a host name or IP",
                             host);
                    return -1;
                }
            if (strchr(host, '*') && (strncmp(host, "*.", 2) != 0 || strchr(host + 1, '*'))) {
                snprintf(err, errlen, "webhooks.allow_hosts: '%s': a wildcard is only '*.domain'",
                         host);
                return -1;
            }
            memcpy(p->hosts[p->nhosts++], host, strlen(host) + 1);
        }
        if (!comma) break;
        s = comma + 1;
    }
    return 0;
}

static bool host_listed(const webhook_policy *p, const char *host) {
    size_t hl = strlen(host);
    for (size_t i = 0; i < p->nhosts; i++) {
        const char *e = p->hosts[i];
        if (strcmp(e, host) == 0) return true;
        if (e[0] == '*') { /* "*.x": a name ending in ".x", never x itself or an IP literal */
            size_t el = strlen(e + 1);
            if (hl > el && strcmp(host + hl - el, e + 1) == 0 && !is_ip_literal(host)) return true;
        }
    }
    return false;
}

webhook_url_verdict webhook_policy_check_url(const webhook_policy *p, const char *url, char *host,
                                             size_t hostlen, bool *private_ok) {
    webhook_url_verdict v = WEBHOOK_URL_BAD;
    CURLU *u = curl_url();
    char *scheme = NULL, *h = NULL, *user = NULL, *password = NULL;
    if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) goto done;
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0))
        goto done;
    /* user:password@ would be sent as Basic credentials: a secret does not belong in a URL the
     * session shows its referee, so it is refused rather than silently used. */
    if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
        curl_url_get(u, CURLUPART_PASSWORD, &password, 0) == CURLUE_OK)
        goto done;
    if (curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK || !h[0]) goto done;
    if (normalise_host(h, strlen(h), host, hostlen) != 0 || !host[0]) goto done;
    if (!host_listed(p, host)) {
        v = WEBHOOK_URL_NOT_ALLOWED;
        goto done;
    }
    *private_ok = p->allow_private || is_ip_literal(host);
    v = WEBHOOK_URL_OK;
done:
    curl_free(scheme);
    curl_free(h);
    curl_free(user);
    curl_free(password);
    curl_url_cleanup(u);
    return v;
}

static bool v4_inside(uint32_t a) {
    uint8_t b0 = (uint8_t)(a >> 24), b1 = (uint8_t)(a >> 16);
    return b0 == 0 || b0 == 10 || b0 == 127 ||                 /* this network, private, loopback */
           (b0 == 100 && (b1 & 0xc0) == 64) ||                 /* 100.64/10 CGNAT */
           (b0 == 169 && b1 == 254) ||                         /* link-local */
           (b0 == 172 && (b1 & 0xf0) == 16) ||                 /* 172.16/12 */
           (b0 == 192 && b1 == 168) ||                         /* 192.168/16 */
           (b0 == 192 && b1 == 0 && (uint8_t)(a >> 8) == 0) || /* 192.0.0/24 IETF */
           (b0 == 198 && (b1 & 0xfe) == 18) ||                 /* 198.18/15 benchmarking */
           b0 >= 224;                                          /* multicast, reserved, broadcast */
}

bool webhook_address_is_inside(const struct sockaddr *sa) {
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        return v4_inside(ntohl(in->sin_addr.s_addr));
    }
    if (sa->sa_family == AF_INET6) {
        const uint8_t *b = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
        static const uint8_t zero[16];
        static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(b, v4mapped, 12) == 0) /* ::ffff:a.b.c.d is a.b.c.d */
            return v4_inside((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 |
                             b[15]);
        if (memcmp(b, zero, 15) == 0 && (b[15] == 0 || b[15] == 1)) return true; /* :: and ::1 */
        /* Forms that carry an IPv4 address, judged by it: IPv4-compatible ::a.b.c.d, NAT64
         * 64:ff9b::/96 and 64:ff9b:1::/48 (on a DNS64 network 64:ff9b::a9fe:a9fe is
         * 169.254.169.254), and 6to4 2002:AABB:CCDD::/16. */
        static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
        static const uint8_t nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
        if (memcmp(b, zero, 12) == 0 || memcmp(b, nat64, 12) == 0 || memcmp(b, nat64_local, 6) == 0)
            return v4_inside((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 |
                             b[15]) ||
                   memcmp(b, nat64_local, 6) == 0; /* local-use NAT64: inside by definition */
        if (b[0] == 0x20 && b[1] == 0x02)
            return v4_inside((uint32_t)b[2] << 24 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 8 |
                             b[5]);
        if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return true; /* fec0::/10 site-local */
        if ((b[0] & 0xfe) == 0xfc) return true;                 /* fc00::/7 unique-local */
        if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true; /* fe80::/10 link-local */
        if (b[0] == 0xff) return true;                          /* multicast */
        return false;
    }
    return true; /* anything but IP is not for webhooks */
}
