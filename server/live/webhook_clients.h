/* Webhooks counted by the client that set them ([webhooks] max_per_client): one client (an
 * address, server/http/http_server.h's http_request.client) cannot take every hook of
 * max_total, however many sessions it creates.
 *
 * An IPv6 client counts by its /64: a single host is routinely given a whole /64, so its
 * addresses are one client. What is counted is what this node's clients set since it started
 * (the store keeps no client): hooks loaded at start-up or set through another node belong to no
 * client and count only towards max_total. Loop thread only. */
#ifndef UMPIRE_WEBHOOK_CLIENTS_H
#define UMPIRE_WEBHOOK_CLIENTS_H

#include <stddef.h>

#define WEBHOOK_CLIENT_MAX 64 /* a key: an IPv4 address, or an IPv6 /64 as "2001:db8::/64" */

typedef struct webhook_clients webhook_clients;

webhook_clients *webhook_clients_new(void);
void webhook_clients_free(webhook_clients *t);

/* The key client counts under, in out[WEBHOOK_CLIENT_MAX]: "" for NULL or "" (no client); an
 * IPv6 address's /64; any other text as it is (cut to fit). */
void webhook_client_key(const char *client, char out[WEBHOOK_CLIENT_MAX]);

/* Hooks (held and reserved) counted for key; 0 for "" or an unknown key. */
size_t webhook_clients_count(const webhook_clients *t, const char *key);
/* Adds delta (may be negative; the count never goes below 0) to key's count; a key counted 0 is
 * forgotten. "" is never counted. 0, or -1 out of memory (nothing changed). */
int webhook_clients_add(webhook_clients *t, const char *key, long delta);
/* Keys counted. */
size_t webhook_clients_size(const webhook_clients *t);

#endif
