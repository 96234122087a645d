/* Live events: Server-Sent Events subscribers of sessions' event streams.
 *
 * A subscriber holds no queue of its own: it remembers the last seq it was sent and, whenever
 * its session commits or its connection drains, reads what follows from the database. So a
 * resumed or slow subscriber can never skip or repeat an event, and its memory is bounded by
 * the HTTP layer's write queue; a reader that stops reading is cut off by that layer. */
#ifndef UMPIRE_LIVE_H
#define UMPIRE_LIVE_H

#include "server/http_server.h"
#include "server/store.h"

#include <stdint.h>
#include <uv.h>

#define LIVE_HEARTBEAT_MS 15000

typedef struct live live;

/* reader is borrowed (the loop thread's read connection). */
live *live_new(uv_loop_t *loop, store_conn *reader);
/* Answers req with a stream of the session's events after `after`, then live ones. */
void live_subscribe(live *l, http_request *req, const char *session_id, int64_t after);
/* The session committed new events: send them to its subscribers. */
void live_publish(live *l, const char *session_id);
size_t live_subscriber_count(const live *l);
/* Stops the heartbeat (streams themselves are ended by the HTTP layer's shutdown). */
void live_stop(live *l);
/* After live_stop and the end of every stream. */
void live_free(live *l);

#endif
