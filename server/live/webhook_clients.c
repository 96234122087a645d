#include "server/live/webhook_clients.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLIENT_BUCKETS 1024

typedef struct client_count {
    struct client_count *next;
    size_t n;
    char key[WEBHOOK_CLIENT_MAX];
} client_count;

struct webhook_clients {
    size_t size;
    client_count *buckets[CLIENT_BUCKETS];
};

webhook_clients *webhook_clients_new(void) {
    return calloc(1, sizeof(webhook_clients));
}

void webhook_clients_free(webhook_clients *t) {
    for (size_t b = 0; t && b < CLIENT_BUCKETS; b++)
        while (t->buckets[b]) {
            client_count *c = t->buckets[b];
            t->buckets[b] = c->next;
            free(c);
        }
    free(t);
}

void webhook_client_key(const char *client, char out[WEBHOOK_CLIENT_MAX]) {
    unsigned char a[16];
    char text[INET6_ADDRSTRLEN];
    if (!client) client = "";
    if (strchr(client, ':') && inet_pton(AF_INET6, client, a) == 1) {
        memset(a + 8, 0, 8);
        if (inet_ntop(AF_INET6, a, text, sizeof text)) {
            snprintf(out, WEBHOOK_CLIENT_MAX, "%s/64", text);
            return;
        }
    }
    snprintf(out, WEBHOOK_CLIENT_MAX, "%s", client);
}

static size_t bucket_of(const char *key) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % CLIENT_BUCKETS;
}

size_t webhook_clients_count(const webhook_clients *t, const char *key) {
    if (!key[0]) return 0;
    for (const client_count *c = t->buckets[bucket_of(key)]; c; c = c->next)
        if (strcmp(c->key, key) == 0) return c->n;
    return 0;
}

int webhook_clients_add(webhook_clients *t, const char *key, long delta) {
    if (!key[0] || delta == 0) return 0;
    client_count **pp = &t->buckets[bucket_of(key)];
    while (*pp && strcmp((*pp)->key, key) != 0)
        pp = &(*pp)->next;
    client_count *c = *pp;
    if (!c) {
        if (delta < 0) return 0;
        c = calloc(1, sizeof *c);
        if (!c) return -1;
        snprintf(c->key, sizeof c->key, "%s", key);
        c->next = t->buckets[bucket_of(key)];
        t->buckets[bucket_of(key)] = c;
        t->size++;
        pp = &t->buckets[bucket_of(key)];
    }
    if (delta < 0 && (size_t)-delta >= c->n) {
        *pp = c->next;
        t->size--;
        free(c);
        return 0;
    }
    c->n = delta < 0 ? c->n - (size_t)-delta : c->n + (size_t)delta;
    return 0;
}

size_t webhook_clients_size(const webhook_clients *t) {
    return t->size;
}
