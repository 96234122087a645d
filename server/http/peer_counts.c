#include "server/http/peer_counts.h"

#include "server/http/client_addr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct peer_entry {
    struct peer_entry *next;
    size_t count;
    char ip[CLIENT_ADDR_MAX];
} peer_entry;

struct peer_counts {
    size_t nbuckets; /* a power of two */
    peer_entry **buckets;
};

peer_counts *peer_counts_new(size_t buckets) {
    size_t n = 16;
    while (n < buckets && n < ((size_t)1 << 20))
        n *= 2;
    peer_counts *pc = calloc(1, sizeof *pc);
    if (!pc || !(pc->buckets = calloc(n, sizeof *pc->buckets))) {
        free(pc);
        return NULL;
    }
    pc->nbuckets = n;
    return pc;
}

void peer_counts_free(peer_counts *pc) {
    if (!pc) return;
    for (size_t i = 0; i < pc->nbuckets; i++)
        for (peer_entry *e = pc->buckets[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    free(pc->buckets);
    free(pc);
}

/* FNV-1a: addresses are short and chosen by no one but the peer's network. */
static size_t bucket_of(const peer_counts *pc, const char *ip) {
    uint64_t h = 1469598103934665603u;
    for (; *ip; ip++)
        h = (h ^ (unsigned char)*ip) * 1099511628211u;
    return (size_t)h & (pc->nbuckets - 1);
}

static peer_entry **find(const peer_counts *pc, const char *ip) {
    peer_entry **at = &pc->buckets[bucket_of(pc, ip)];
    while (*at && strcmp((*at)->ip, ip) != 0)
        at = &(*at)->next;
    return at;
}

size_t peer_counts_get(const peer_counts *pc, const char *ip) {
    peer_entry *e = *find(pc, ip);
    return e ? e->count : 0;
}

int peer_counts_add(peer_counts *pc, const char *ip) {
    peer_entry **at = find(pc, ip);
    if (!*at) {
        peer_entry *e = calloc(1, sizeof *e);
        if (!e) return -1;
        strncpy(e->ip, ip, sizeof e->ip - 1);
        *at = e;
    }
    (*at)->count++;
    return 0;
}

void peer_counts_remove(peer_counts *pc, const char *ip) {
    peer_entry **at = find(pc, ip);
    peer_entry *e = *at;
    if (!e) return;
    if (--e->count == 0) {
        *at = e->next;
        free(e);
    }
}
