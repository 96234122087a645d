/* Webhook receivers by host: each host's share of the delivery slots and the time its attempts
 * may take. A host that never answers (a tarpit) would otherwise hold every slot for the whole
 * timeout and starve the receivers that do answer; with a share it holds at most
 * [webhooks] max_slots_per_host, and each timeout halves its attempts' time (down to an eighth of
 * timeout_ms), which an answer doubles back. Loop thread only. */
#ifndef UMPIRE_WEBHOOK_HOSTS_H
#define UMPIRE_WEBHOOK_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#define WEBHOOK_HOST_TIMEOUT_SHRINK 8 /* a slow host's attempts get at least timeout_ms / 8 */

struct hook; /* server/live/webhooks.c's */

typedef struct webhook_host {
    struct webhook_host *next; /* in its bucket */
    size_t refs;               /* hooks naming this host */
    int64_t inflight;          /* slots its hooks hold */
    int64_t timeout_ms;        /* what its next attempt may take */
    /* Its hooks waiting for one of its slots, oldest first (webhooks.c links them). */
    struct hook *wait_head, *wait_tail;
    char name[]; /* lower case, as webhook_policy_check_url gives it */
} webhook_host;

typedef struct webhook_hosts webhook_hosts;

/* base_timeout_ms: [webhooks] timeout_ms. NULL out of memory. */
webhook_hosts *webhook_hosts_new(int64_t base_timeout_ms);
/* Every host must have been released. */
void webhook_hosts_free(webhook_hosts *t);
/* The host named name, one reference more (made on first use). NULL out of memory. */
webhook_host *webhook_hosts_acquire(webhook_hosts *t, const char *name);
/* One reference less; the host is forgotten with its last (its slots given back before). */
void webhook_hosts_release(webhook_hosts *t, webhook_host *h);
/* Hosts known. */
size_t webhook_hosts_count(const webhook_hosts *t);

/* An attempt to h timed out: its next attempts get half the time, at least base / 8. */
void webhook_host_timed_out(webhook_hosts *t, webhook_host *h);
/* h answered (any HTTP status): its attempts get twice the time, at most base. */
void webhook_host_answered(webhook_hosts *t, webhook_host *h);

#endif
