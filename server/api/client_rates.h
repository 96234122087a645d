/* Per-client rates: a token bucket per client and kind of request (config [limits]). A client
 * is http_request.client. The table holds at most max_clients clients; when a new one comes and
 * it is full, the client seen longest ago is forgotten (its buckets start full again, which only
 * ever favours a client so quiet that a thousand others came after it). Loop thread only. */
#ifndef UMPIRE_CLIENT_RATES_H
#define UMPIRE_CLIENT_RATES_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    API_RATE_NONE,     /* a route no rate applies to (a route row's default) */
    API_RATE_CREATE,   /* POST /v1/sessions */
    API_RATE_ACTIONS,  /* actions, reveals, entropy */
    API_RATE_ODDS,     /* POST .../odds */
    API_RATE_VERIFY,   /* GET .../verify */
    API_RATE_WEBHOOKS, /* PUT .../webhooks */
    API_RATE_COUNT
} api_rate_kind;

typedef struct api_rate {
    int64_t per_minute; /* refill */
    int64_t burst;      /* bucket size */
} api_rate;

typedef struct client_rates client_rates;

/* rates is copied; a rate with per_minute or burst <= 0 never limits. NULL: out of memory. */
client_rates *client_rates_new(size_t max_clients, const api_rate rates[API_RATE_COUNT]);
void client_rates_free(client_rates *cr);

/* Takes one request of kind for client at now_ms (a monotonic clock): 0 when allowed, else the
 * whole seconds (at least 1) until the bucket holds a request again (nothing is taken). */
int64_t client_rates_take(client_rates *cr, const char *client, api_rate_kind kind,
                          uint64_t now_ms);

/* Clients remembered now. */
size_t client_rates_count(const client_rates *cr);

#endif
