/* Several nodes on one PostgreSQL database: a node's webhooks (server/live/webhooks.h) follow the
 * lists other nodes store. When a notification says a session's list was replaced (or, after
 * the listener reconnected, that anything may have been), the list is read again through
 * db_reads and set anew; one read per session at a time, and never one that may predate the
 * node's own change (webhooks_sync_local_set). Loop thread only. */
#ifndef UMPIRE_WEBHOOKS_SYNC_H
#define UMPIRE_WEBHOOKS_SYNC_H

#include "server/live/webhooks.h"
#include "server/store/db_reads.h"

/* Reads session_id's list (NULL: every list) and sets it on w: an empty one removes the
 * session's hooks; every list replaces all of w's. A read the pool refuses is logged and left
 * to the next notification or reconnection. */
void webhooks_reload(webhooks *w, db_reads *reads, const char *session_id);
/* This node set session_id's list itself (PUT .../webhooks, answered from w): a reload whose read
 * began before must not bring back the list it may have read before that commit. */
void webhooks_sync_local_set(const char *session_id);

#endif
