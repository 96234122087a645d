/* Which hosts webhooks may call ([webhooks] allow_hosts, allow_private_addresses): a URL must
 * name a listed host, and a connection must not reach an inside address (loopback, private,
 * link-local, ...) unless the operator said so. The second check runs on the address actually
 * connected to, so a listed name that resolves inside cannot smuggle a request there. */
#ifndef UMPIRE_WEBHOOK_POLICY_H
#define UMPIRE_WEBHOOK_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define WEBHOOK_POLICY_HOSTS_MAX 64
#define WEBHOOK_HOST_MAX         256

typedef struct webhook_policy {
    /* lower-case names or IP literals (no brackets); "*.x" matches any name ending in ".x" */
    char hosts[WEBHOOK_POLICY_HOSTS_MAX][WEBHOOK_HOST_MAX];
    size_t nhosts;
    bool allow_private; /* allow_private_addresses */
} webhook_policy;

/* allow_hosts: comma-separated entries (spaces around them ignored; "" allows none). 0, or -1
 * with a sentence in err. */
int webhook_policy_init(webhook_policy *p, const char *allow_hosts, bool allow_private, char *err,
                        size_t errlen);

typedef enum {
    WEBHOOK_URL_OK = 0,
    WEBHOOK_URL_BAD = -1,         /* not an absolute http(s) URL with a host, or has user info */
    WEBHOOK_URL_NOT_ALLOWED = -2, /* the host is not listed */
} webhook_url_verdict;

/* Parses url (libcurl's URL parser, the one that will send it) and judges its host. host gets
 * the host in lower case without brackets; *private_ok whether connections for this URL may
 * reach inside addresses (allow_private, or the host is an IP literal the operator listed). */
webhook_url_verdict webhook_policy_check_url(const webhook_policy *p, const char *url, char *host,
                                             size_t hostlen, bool *private_ok);

/* True for addresses a webhook must not reach unless allowed: loopback, unspecified, private
 * (10/8, 172.16/12, 192.168/16), CGNAT (100.64/10), link-local (169.254/16, fe80::/10),
 * unique-local (fc00::/7), multicast, broadcast, and IPv4-mapped IPv6 forms of these. */
bool webhook_address_is_inside(const struct sockaddr *sa);

#endif
