/* The webhooks table (migrations/0002_webhooks.sql). Rare statements, prepared per call. */
#ifndef UMPIRE_STORE_WEBHOOKS_H
#define UMPIRE_STORE_WEBHOOKS_H

#include "protocol/webhook_request.h"
#include "server/store.h"

#include <stdint.h>

/* Replaces the session's list (inside the caller's transaction). 0 or -1. */
int store_webhooks_replace(store_conn *c, const char *session_id, const webhook_list *list);

/* Calls fn once per session that has webhooks, with its list and its current version, in
 * session id order. 0, or -1 on a storage error (fn may have been called for some). */
int store_webhooks_each(store_conn *c,
                        void (*fn)(void *arg, const char *session_id, const webhook_list *list,
                                   int64_t version),
                        void *arg);

#endif
