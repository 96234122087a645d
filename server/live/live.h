/* Live events: Server-Sent Events subscribers of sessions' event streams.
 *
 * A subscriber holds no queue of its own: it remembers the last seq it was sent. The subscribers
 * of one session share a channel. When the session commits, the channel reads what follows the
 * oldest of its caught-up ("live") subscribers once, serialises each event once, and writes the
 * same bytes (an http_chunk, not a copy) to every live subscriber, after what each already has.
 * Commits published between two turns of the loop are read together (an idle handle), so a
 * batch of the writer's costs one read and one write per subscriber, however many events it
 * made; and the writes go out a slice of streams per turn, so that a thousand subscribers do not
 * hold up another session's request for the whole fan-out.
 *
 * A subscriber that is not live reads for itself from the database: a new or resumed one until
 * it has caught up, and one whose connection went over its write bound, once it drains. Such
 * subscribers queue and read a page each at their turn, a few pages per turn of the loop, so
 * many far behind never hold the others up; no subscriber can skip or repeat an event; its
 * memory is bounded by the HTTP layer's write queue, and a reader that stops reading is cut off
 * by that layer.
 *
 * Reads go through db_reads (server/store/db_reads.h), one in flight per subscriber and one per
 * channel: inline for SQLite, on a reader thread for PostgreSQL (sent when the read is
 * answered). A commit published while a read is in flight makes it read once more after it. */
#ifndef UMPIRE_LIVE_H
#define UMPIRE_LIVE_H

#include "server/http/http_server.h"
#include "server/store/db_reads.h"
#include "server/store/store.h"

#include <stdint.h>
#include <uv.h>

#define LIVE_HEARTBEAT_MS 15000

typedef struct live live;

/* reads is borrowed: stop it (db_reads_stop, which answers every read still queued) only after
 * every stream has ended. A subscriber whose stream closed during a read is freed when that read
 * is answered. */
live *live_new(uv_loop_t *loop, db_reads *reads);
/* What streams may hold (config [server]); 0 in a field: no bound of that kind. */
typedef struct live_limits {
    int64_t max_streams;            /* all streams: a share of the connection slots */
    int64_t max_streams_per_client; /* http_request.client */
    int64_t max_streams_per_session;
    int64_t max_streams_per_token;  /* a session's role: one token each */
    int64_t max_stream_lifetime_ms; /* then the stream ends; EventSource resumes it */
} live_limits;

/* Copied; applies to streams subscribed from now on (lifetime: to every stream). */
void live_set_limits(live *l, const live_limits *lim);
/* Answers req with a stream of the session's events after `after`, then live ones. role is the
 * reader's ("referee", "side:x", or "" for an anonymous reader of a public session), for the
 * per-token bound. Over a bound the answer is 429 too_many_streams (a client's, a session's or a
 * token's share) or 503 too_many_streams (every stream slot taken), details naming the bound. */
void live_subscribe(live *l, http_request *req, const char *session_id, const char *role,
                    int64_t after);
/* The session committed new events: send them to its subscribers. */
void live_publish(live *l, const char *session_id);
/* every_ms > 0: every every_ms, every subscriber with no read in flight and not waiting for its
 * connection to drain reads what follows its last event. With several nodes on one PostgreSQL
 * database a node learns of the others' commits by notification, which a listener reconnecting
 * can miss; this bounds how late such a subscriber can be. 0: no polling (one node). */
void live_poll(live *l, uint64_t every_ms);
size_t live_subscriber_count(const live *l);
/* What the node's streams cost since it started (logged at live_stop, which the fan-out tests
 * read). */
typedef struct live_stats {
    uint64_t frames_made;   /* events serialised: once per channel read, once per own read */
    uint64_t deliveries;    /* events written to a stream */
    uint64_t channel_reads; /* pages read for a whole channel */
    uint64_t own_reads;     /* pages read by one subscriber catching up */
} live_stats;
live_stats live_get_stats(const live *l);
/* Stops the heartbeat and the poll and retry timers (streams themselves are ended by the HTTP
 * layer's shutdown). */
void live_stop(live *l);
/* After live_stop and the end of every stream. */
void live_free(live *l);

#endif
