#include "server/http/client_addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Parses "addr" or "addr/bits" (n bytes at s) into net. 0, or -1. */
static int parse_net(const char *s, size_t n, client_net *net, bool allow_prefix) {
    char item[64];
    if (n == 0 || n >= sizeof item) return -1;
    memcpy(item, s, n);
    item[n] = '\0';
    long bits = -1;
    char *slash = strchr(item, '/');
    if (slash) {
        if (!allow_prefix) return -1;
        char *end;
        *slash = '\0';
        bits = strtol(slash + 1, &end, 10);
        if (!slash[1] || *end || bits < 0) return -1;
    }
    memset(net, 0, sizeof *net);
    if (inet_pton(AF_INET, item, net->addr) == 1) {
        net->family = AF_INET;
        if (bits > 32) return -1;
        net->bits = bits < 0 ? 32 : (int)bits;
    } else if (inet_pton(AF_INET6, item, net->addr) == 1) {
        net->family = AF_INET6;
        if (bits > 128) return -1;
        net->bits = bits < 0 ? 128 : (int)bits;
    } else {
        return -1;
    }
    return 0;
}

int client_proxies_parse(client_proxies *p, const char *list) {
    memset(p, 0, sizeof *p);
    for (const char *s = list ? list : ""; *s;) {
        while (*s == ' ' || *s == ',')
            s++;
        if (!*s) break;
        size_t n = strcspn(s, ", ");
        if (p->count == CLIENT_PROXIES_MAX || parse_net(s, n, &p->nets[p->count], true) != 0)
            return -1;
        p->count++;
        s += n;
    }
    return 0;
}

static bool net_contains(const client_net *net, const client_net *ip) {
    if (net->family != ip->family) return false;
    int full = net->bits / 8, rest = net->bits % 8;
    if (memcmp(net->addr, ip->addr, (size_t)full) != 0) return false;
    if (rest == 0) return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (net->addr[full] & mask) == (ip->addr[full] & mask);
}

static bool matches(const client_proxies *p, const client_net *ip) {
    for (size_t i = 0; i < p->count; i++)
        if (net_contains(&p->nets[i], ip)) return true;
    return false;
}

bool client_proxies_match(const client_proxies *p, const char *ip) {
    client_net n;
    return p->count && parse_net(ip, strlen(ip), &n, false) == 0 && matches(p, &n);
}

static void canonical(const client_net *n, char out[CLIENT_ADDR_MAX]) {
    if (!inet_ntop(n->family, n->addr, out, CLIENT_ADDR_MAX)) snprintf(out, CLIENT_ADDR_MAX, "?");
}

void client_addr_resolve(const client_proxies *p, const char *peer_ip, const char *xff,
                         char out[CLIENT_ADDR_MAX]) {
    snprintf(out, CLIENT_ADDR_MAX, "%s", peer_ip);
    if (!xff || !client_proxies_match(p, peer_ip)) return;
    /* Right to left: each hop was added by the proxy before it; the first hop no trusted proxy
     * could have added is the client. */
    const char *end = xff + strlen(xff);
    while (end > xff) {
        const char *start = end;
        while (start > xff && start[-1] != ',')
            start--;
        const char *a = start, *b = end;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        client_net hop;
        if (parse_net(a, (size_t)(b - a), &hop, false) != 0) return; /* out: the last good one */
        canonical(&hop, out);
        if (!matches(p, &hop)) return;
        end = start > xff ? start - 1 : xff;
    }
}
