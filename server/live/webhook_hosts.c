#include "server/live/webhook_hosts.h"

#include <stdlib.h>
#include <string.h>

/* Few hosts in practice (allow_hosts lists at most 64 entries, wildcards aside). */
#define HOST_BUCKETS 256

struct webhook_hosts {
    int64_t base_ms;
    size_t count;
    webhook_host *buckets[HOST_BUCKETS];
};

webhook_hosts *webhook_hosts_new(int64_t base_timeout_ms) {
    webhook_hosts *t = calloc(1, sizeof *t);
    if (t) t->base_ms = base_timeout_ms;
    return t;
}

void webhook_hosts_free(webhook_hosts *t) {
    free(t);
}

static size_t bucket_of(const char *name) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % HOST_BUCKETS;
}

webhook_host *webhook_hosts_acquire(webhook_hosts *t, const char *name) {
    webhook_host **b = &t->buckets[bucket_of(name)];
    for (webhook_host *h = *b; h; h = h->next)
        if (strcmp(h->name, name) == 0) {
            h->refs++;
            return h;
        }
    size_t len = strlen(name);
    webhook_host *h = calloc(1, sizeof *h + len + 1);
    if (!h) return NULL;
    memcpy(h->name, name, len + 1);
    h->refs = 1;
    h->timeout_ms = t->base_ms;
    h->next = *b;
    *b = h;
    t->count++;
    return h;
}

void webhook_hosts_release(webhook_hosts *t, webhook_host *h) {
    if (!h || --h->refs > 0) return;
    webhook_host **pp = &t->buckets[bucket_of(h->name)];
    while (*pp != h)
        pp = &(*pp)->next;
    *pp = h->next;
    t->count--;
    free(h);
}

size_t webhook_hosts_count(const webhook_hosts *t) {
    return t->count;
}

void webhook_host_timed_out(webhook_hosts *t, webhook_host *h) {
    int64_t floor = t->base_ms / WEBHOOK_HOST_TIMEOUT_SHRINK;
    if (floor < 1) floor = 1;
    h->timeout_ms /= 2;
    if (h->timeout_ms < floor) h->timeout_ms = floor;
}

void webhook_host_answered(webhook_hosts *t, webhook_host *h) {
    h->timeout_ms = h->timeout_ms > t->base_ms / 2 ? t->base_ms : h->timeout_ms * 2;
}
