/* Who a request comes from: the peer's address, or, behind a trusted reverse proxy, the hop its
 * X-Forwarded-For names. Per-client rates and caps (server/api/, server/live/) count by it.
 *
 * A proxy list is what config's limits.trusted_proxies holds: comma-separated IPv4 or IPv6
 * addresses, each with an optional /prefix. */
#ifndef UMPIRE_CLIENT_ADDR_H
#define UMPIRE_CLIENT_ADDR_H

#include <stdbool.h>
#include <stddef.h>

#define CLIENT_ADDR_MAX    46 /* INET6_ADDRSTRLEN, NUL included */
#define CLIENT_PROXIES_MAX 64

typedef struct client_net {
    int family; /* AF_INET or AF_INET6 */
    unsigned char addr[16];
    int bits;
} client_net;

typedef struct client_proxies {
    client_net nets[CLIENT_PROXIES_MAX];
    size_t count;
} client_proxies;

/* 0, or -1 when list is not such a list (or holds more than CLIENT_PROXIES_MAX entries). NULL
 * or "": none. */
int client_proxies_parse(client_proxies *p, const char *list);
/* True when ip (text) is one of the proxies. */
bool client_proxies_match(const client_proxies *p, const char *ip);

/* Writes the client of a request into out[CLIENT_ADDR_MAX]: peer_ip when the peer is no trusted
 * proxy or xff is NULL; else the last address of xff (comma-separated, right to left) that is
 * not itself a trusted proxy, written in canonical form. A malformed hop ends the walk: the
 * client is then the hop after it (the last one a trusted proxy vouched for), or the peer when
 * there is none. */
void client_addr_resolve(const client_proxies *p, const char *peer_ip, const char *xff,
                         char out[CLIENT_ADDR_MAX]);

#endif
