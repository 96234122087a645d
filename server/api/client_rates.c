#include "server/api/client_rates.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CLIENT_MAX 48 /* an IPv6 address as text, NUL included */
#define NIL        UINT32_MAX

typedef struct client_entry {
    char client[CLIENT_MAX];
    uint32_t hnext;        /* the next entry of its hash chain */
    uint32_t older, newer; /* the recency list */
    double tokens[API_RATE_COUNT];
    uint64_t refilled_ms[API_RATE_COUNT];
    bool seen[API_RATE_COUNT]; /* tokens/refilled_ms set: a first request finds a full bucket */
} client_entry;

struct client_rates {
    api_rate rates[API_RATE_COUNT];
    client_entry *entries;
    size_t cap, count;
    uint32_t *heads; /* hash chains, nbuckets of them (a power of two) */
    size_t nbuckets;
    uint32_t newest, oldest;
};

client_rates *client_rates_new(size_t max_clients, const api_rate rates[API_RATE_COUNT]) {
    if (max_clients < 1 || max_clients >= NIL) return NULL;
    client_rates *cr = calloc(1, sizeof *cr);
    if (!cr) return NULL;
    memcpy(cr->rates, rates, sizeof cr->rates);
    cr->cap = max_clients;
    cr->nbuckets = 16;
    while (cr->nbuckets < max_clients)
        cr->nbuckets *= 2;
    /* calloc: pages of the table are only touched as clients come. */
    cr->entries = calloc(max_clients, sizeof *cr->entries);
    cr->heads = malloc(cr->nbuckets * sizeof *cr->heads);
    if (!cr->entries || !cr->heads) {
        client_rates_free(cr);
        return NULL;
    }
    for (size_t i = 0; i < cr->nbuckets; i++)
        cr->heads[i] = NIL;
    cr->newest = cr->oldest = NIL;
    return cr;
}

void client_rates_free(client_rates *cr) {
    if (!cr) return;
    free(cr->entries);
    free(cr->heads);
    free(cr);
}

size_t client_rates_count(const client_rates *cr) {
    return cr->count;
}

/* FNV-1a over the address text. */
static size_t bucket_of(const client_rates *cr, const char *client) {
    uint64_t h = 1469598103934665603u;
    for (; *client; client++)
        h = (h ^ (unsigned char)*client) * 1099511628211u;
    return (size_t)h & (cr->nbuckets - 1);
}

static void list_unlink(client_rates *cr, uint32_t i) {
    client_entry *e = &cr->entries[i];
    if (e->older != NIL)
        cr->entries[e->older].newer = e->newer;
    else
        cr->oldest = e->newer;
    if (e->newer != NIL)
        cr->entries[e->newer].older = e->older;
    else
        cr->newest = e->older;
}

static void list_push_newest(client_rates *cr, uint32_t i) {
    client_entry *e = &cr->entries[i];
    e->older = cr->newest;
    e->newer = NIL;
    if (cr->newest != NIL) cr->entries[cr->newest].newer = i;
    cr->newest = i;
    if (cr->oldest == NIL) cr->oldest = i;
}

static void chain_remove(client_rates *cr, uint32_t i) {
    uint32_t *at = &cr->heads[bucket_of(cr, cr->entries[i].client)];
    while (*at != i)
        at = &cr->entries[*at].hnext;
    *at = cr->entries[i].hnext;
}

/* The client's entry, made (and the oldest forgotten when full) if it has none. */
static client_entry *entry_for(client_rates *cr, const char *client) {
    size_t b = bucket_of(cr, client);
    for (uint32_t i = cr->heads[b]; i != NIL; i = cr->entries[i].hnext)
        if (strcmp(cr->entries[i].client, client) == 0) {
            list_unlink(cr, i);
            list_push_newest(cr, i);
            return &cr->entries[i];
        }
    uint32_t i;
    if (cr->count < cr->cap) {
        i = (uint32_t)cr->count++;
    } else {
        i = cr->oldest;
        list_unlink(cr, i);
        chain_remove(cr, i);
    }
    client_entry *e = &cr->entries[i];
    memset(e, 0, sizeof *e);
    strncpy(e->client, client, sizeof e->client - 1);
    e->hnext = cr->heads[b];
    cr->heads[b] = i;
    list_push_newest(cr, i);
    return e;
}

int64_t client_rates_take(client_rates *cr, const char *client, api_rate_kind kind,
                          uint64_t now_ms) {
    if (kind <= API_RATE_NONE || kind >= API_RATE_COUNT) return 0;
    const api_rate *r = &cr->rates[kind];
    if (r->per_minute <= 0 || r->burst <= 0) return 0;
    client_entry *e = entry_for(cr, client ? client : "");
    double burst = (double)r->burst, per_ms = (double)r->per_minute / 60000.0;
    if (!e->seen[kind]) {
        e->seen[kind] = true;
        e->tokens[kind] = burst;
    } else if (now_ms > e->refilled_ms[kind]) {
        e->tokens[kind] += (double)(now_ms - e->refilled_ms[kind]) * per_ms;
        if (e->tokens[kind] > burst) e->tokens[kind] = burst;
    }
    e->refilled_ms[kind] = now_ms;
    if (e->tokens[kind] >= 1.0) {
        e->tokens[kind] -= 1.0;
        return 0;
    }
    double wait_ms = (1.0 - e->tokens[kind]) / per_ms;
    int64_t secs = (int64_t)((wait_ms + 999.0) / 1000.0);
    return secs < 1 ? 1 : secs;
}
