#include "server/live/webhooks.h"

#include "protocol/json_out.h"
#include "server/core/log.h"
#include "server/live/discord_text.h"
#include "server/live/turn_calls.h"
#include "server/live/webhook_clients.h"
#include "server/live/webhook_hosts.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#ifndef UMPIRE_VERSION
#define UMPIRE_VERSION "0.0.0"
#endif

/* Transfers running at once over every hook. Beyond it, hooks with something to send wait in a
 * queue of our own (not curl's: a transfer's timeout starts only when it really starts), so a
 * burst of sessions cannot open an unbounded number of sockets, and hooks hanging on one dead
 * receiver hold at most this many slots for at most timeout_ms. */
#define WEBHOOK_INFLIGHT_MAX 256
/* How often idle hooks are looked for: idle_expire_ms / 4, within these bounds (a hook then
 * expires at most a quarter late, and a month-long setting costs one walk a minute). */
#define WEBHOOK_EXPIRE_SCAN_MIN_MS 50
#define WEBHOOK_EXPIRE_SCAN_MAX_MS 60000
/* A version read the pool refused (its queue was full) is tried again this much later, so a
 * hook does not wait for the session's next commit (which may never come) to learn of this one. */
#define WEBHOOK_READ_RETRY_MS 100

typedef enum {
    HOOK_IDLE,
    HOOK_READING, /* reading the event to send (db_reads): the request follows */
    HOOK_SENDING,
    HOOK_WAITING
} hook_state;

typedef struct hook {
    webhooks *owner;
    char session_id[33];
    int id;    /* 1.. in the order the referee listed them */
    char *url; /* owned */
    webhook_format format;
    bool private_ok; /* may connect to inside addresses (webhook_policy_check_url) */
    bool removed;    /* replaced or stopping: its timer is closing, then it is freed */
    bool blocked;    /* its host is no longer allowed (allow_hosts changed): never called */
    bool queued;     /* in the owner's ready queue, waiting for an in-flight slot, or (with
                      * host_queued) in its host's, waiting for one of the host's share */
    bool host_queued;
    bool expired;      /* its session was idle past idle_expire_ms: not counted, not called */
    bool slot;         /* holds an in-flight slot: from the read of the event to the end of its
                        * request */
    bool timer_closed; /* retry is closed: a removed hook is freed once it is not reading */
    struct hook *ready_next, *ready_prev;
    hook_state state;
    webhook_host *host; /* its URL's host (a reference); NULL for a blocked hook */
    int64_t cursor;     /* delivered_seq: the last seq delivered or given up */
    int64_t head;       /* the session's version when last looked at */
    int64_t attempts, delivered, failed, dropped;
    long last_status; /* 0: none yet */
    char last_error[192];
    uint64_t next_attempt_at; /* uv_now, while waiting */
    uv_timer_t retry;
    /* the transfer in flight */
    CURL *easy;
    char *body;
    long retry_after_s;
    char refused[96]; /* why the last connection was refused by the address check */
    /* The event read in flight (HOOK_READING). Set before db_reads_submit; the reader thread
     * writes page; on_event_read takes it. session_id is the only other field it reads. */
    int64_t read_seq;
    json_t *read_page;  /* NULL: storage error */
    json_t *read_first; /* event 1, read with the first event of a hook with mentions */
    /* A discord hook's mentions (protocol/webhook_request.h): the text as stored (owned, "" for
     * none) and parsed (owned, NULL for none); the session's ruleset and sides, from its event 1
     * once read (server/live/turn_calls.h says whom an event calls). */
    char *mentions_text;
    json_t *mentions;
    char ruleset[64];
    json_t *sides;
} hook;

/* A session's hooks, found by session id in the owner's hash table: publishing, describing and
 * replacing cost the same however many sessions have hooks. */
typedef struct session_hooks {
    struct session_hooks *next; /* in its bucket */
    char session_id[33];
    size_t n;
    bool stale;   /* a version read was refused: stale_timer publishes the session again */
    bool expired; /* its hooks expired (idle_expire_ms) */
    char client[WEBHOOK_CLIENT_MAX]; /* whose share the hooks count in ("": nobody's) */
    int64_t version;                 /* the session's highest version seen */
    uint64_t active_at;              /* uv_now of the PUT or the last new event */
    hook *hooks[WEBHOOKS_MAX];
} session_hooks;

#define WEBHOOK_BUCKETS 4096

typedef struct sock_ctx {
    uv_poll_t poll;
    curl_socket_t fd;
    webhooks *owner;
    struct sock_ctx *next, *prev;
} sock_ctx;

struct webhooks {
    uv_loop_t *loop;
    db_reads *reads;
    const webhook_policy *policy;
    webhooks_limits lim;
    CURLM *multi;
    uv_timer_t curl_timer;
    uv_timer_t ready_timer;  /* starts waiting hooks when slots free up */
    uv_timer_t stale_timer;  /* publishes again sessions whose version read was refused */
    uv_timer_t expire_timer; /* looks for idle sessions (idle_expire_ms) */
    webhook_hosts *hosts;
    webhook_clients *clients;
    size_t reserved; /* hooks of PUTs being written (webhooks_reserve) */
    struct curl_slist *headers;
    session_hooks *buckets[WEBHOOK_BUCKETS];
    size_t nhooks;                 /* not expired */
    size_t nexpired;               /* expired (kept for GET, counted nowhere) */
    hook *ready_head, *ready_tail; /* waiting for a slot, oldest first */
    size_t inflight;
    sock_ctx *socks;
    /* Reads submitted and not yet answered: their done callbacks use w, so webhooks_free leaves
     * w to the last of them (free_pending). */
    int64_t reads_in_flight;
    bool free_pending;
    bool standby; /* another node delivers (several nodes, server/store/pg_listen.h) */
    bool stopped;
};

static void webhooks_destroy(webhooks *w) {
    curl_slist_free_all(w->headers);
    webhook_hosts_free(w->hosts);
    webhook_clients_free(w->clients);
    free(w);
}

/* Every done callback ends here, after its last use of w. */
static void read_answered(webhooks *w) {
    if (--w->reads_in_flight == 0 && w->free_pending) webhooks_destroy(w);
}

/* ---- reading what to send ------------------------------------------------------------------ */

/* "the referee", or the side's name, for a role ("side:<name>"). */
static const char *role_words(const char *role) {
    if (!role) return "Someone";
    if (strcmp(role, "referee") == 0) return "The referee";
    return strncmp(role, "side:", 5) == 0 ? role + 5 : role;
}

/* A line for an event without a summary of its own (session_created, dice_seed_revealed,
 * entropy_contributed). */
static void fallback_line(const char *type, const json_t *data, int64_t seq, char *out,
                          size_t cap) {
    if (strcmp(type, "session_created") == 0)
        snprintf(out, cap, "Session created: %s (%s)",
                 json_string_value(json_object_get(data, "title")) ?: "untitled",
                 json_string_value(json_object_get(data, "ruleset")) ?: "?");
    else if (strcmp(type, "dice_seed_revealed") == 0)
        snprintf(out, cap,
                 "The dice seed was revealed (commitment %.16s...); dice up to nonce %lld can now "
                 "be checked",
                 json_string_value(json_object_get(data, "commitment")) ?: "?",
                 (long long)json_integer_value(json_object_get(data, "last_nonce")));
    else if (strcmp(type, "entropy_contributed") == 0)
        snprintf(out, cap, "%s added their own entropy to the dice, in force from the next die",
                 role_words(json_string_value(json_object_get(data, "role"))));
    else
        snprintf(out, cap, "%s (event %lld)", type, (long long)seq);
}

/* The reader thread (inline: the loop thread, inside db_reads_submit). The event is read as
 * GET /events reads it (store_events_page_new), so format "event" sends exactly the object that
 * endpoint lists. */
static void read_event(store_conn *conn, void *arg) {
    hook *h = arg;
    h->read_page = store_events_page_new(conn, h->session_id, h->read_seq - 1, 1);
    if (h->mentions && !h->sides) h->read_first = store_events_page_new(conn, h->session_id, 0, 1);
}

/* Keeps the ruleset and sides of event 1 (session_created) for the mentions. */
static void learn_session(hook *h, json_t *first) {
    const json_t *data = json_object_get(json_array_get(first, 0), "data");
    const json_t *sides = json_object_get(data, "sides");
    const char *ruleset = json_string_value(json_object_get(data, "ruleset"));
    if (!json_is_array(sides) || !ruleset) return;
    snprintf(h->ruleset, sizeof h->ruleset, "%s", ruleset);
    h->sides = json_incref((json_t *)sides);
}

/* Appends to content the mentions of the sides the event calls (turn_calls) that the hook maps,
 * one line each ("<@id> french: your turn: Fire, turn 2"), and lists their ids in users or
 * roles: allowed_mentions lets exactly those ping, and nothing a player typed. */
static void mention_lines(const hook *h, const json_t *ev, char *content, size_t cap, json_t *users,
                          json_t *roles) {
    turn_call calls[TURN_CALLS_MAX];
    size_t n = h->mentions && h->sides ? turn_calls(h->ruleset, h->sides, ev, calls) : 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *who = json_object_get(h->mentions, calls[i].side);
        const char *user = json_string_value(json_object_get(who, "user"));
        const char *role = json_string_value(json_object_get(who, "role"));
        if (!user && !role) continue;
        char line[640], side[WEBHOOK_MENTION_SIDE_MAX * 2 + 1];
        discord_escape(calls[i].side, side, sizeof side);
        char why[sizeof calls[i].why * 2];
        discord_escape(calls[i].why, why, sizeof why);
        snprintf(line, sizeof line, "\n<@%s%s> %s: %s", user ? "" : "&", user ? user : role, side,
                 why);
        size_t len = strlen(content);
        if (len + strlen(line) >= cap) break;
        memcpy(content + len, line, strlen(line) + 1);
        json_array_append_new(user ? users : roles, json_string(user ? user : role));
    }
}

/* The body of the delivery of event seq from the page read_event found (borrowed; NULL on a
 * storage error), malloc'd; NULL when there is no such event or no memory. */
static char *event_body_new(const hook *h, const json_t *page, int64_t seq) {
    json_t *ev = json_array_get(page, 0);
    if (!ev) return NULL;
    if (h->format == WEBHOOK_EVENT) return json_out_compact_new(ev, NULL);
    json_t *data = json_object_get(ev, "data");
    const char *summary = json_string_value(json_object_get(data, "summary"));
    char line[WEBHOOK_DISCORD_MAX * 4 + 1];
    if (summary)
        snprintf(line, sizeof line, "%s", summary);
    else
        fallback_line(json_string_value(json_object_get(ev, "type")) ?: "event", data, seq, line,
                      sizeof line);
    /* Players write parts of a summary (a roll's purpose, unit names, the title): Discord must
     * show them as typed, never as a masked link or other markdown (server/live/discord_text.h),
     * nor turn "@everyone" or "<@&role>" in them into pings (allowed_mentions). The escaped text is
     * at most twice as long, so it is never cut inside a character before the cut below. */
    char escaped[sizeof line * 2 + 1024];
    discord_escape(line, escaped, sizeof line * 2);
    /* Discord refuses content over 2000 characters: cut at a character boundary, leaving room
     * for the mentions after it. */
    json_t *users = json_array(), *roles = json_array();
    char calls[1024] = "";
    mention_lines(h, ev, calls, sizeof calls, users, roles);
    size_t call_chars = 0;
    for (const char *c = calls; *c; c++)
        if (((unsigned char)*c & 0xc0) != 0x80) call_chars++;
    escaped[webhook_cut_chars(escaped, WEBHOOK_DISCORD_MAX - call_chars)] = '\0';
    strcat(escaped, calls);
    json_t *allowed = json_pack("{s:[]}", "parse");
    if (allowed && json_array_size(users)) json_object_set(allowed, "users", users);
    if (allowed && json_array_size(roles)) json_object_set(allowed, "roles", roles);
    json_decref(users);
    json_decref(roles);
    json_out o = {0};
    json_out_text(&o, "{\"content\":");
    json_out_string(&o, escaped);
    json_out_text(&o, ",\"allowed_mentions\":");
    json_out_value(&o, allowed);
    json_decref(allowed);
    json_out_text(&o, "}");
    return json_out_finish(&o, NULL);
}

/* ---- one hook's delivery ------------------------------------------------------------------- */

static void kick(hook *h);
static void on_ready(uv_timer_t *t);
static void ready_unlink(hook *h);
static void ready_push_front(hook *h);
static void hook_free(hook *h);

static void set_error(hook *h, const char *fmt, const char *detail) {
    snprintf(h->last_error, sizeof h->last_error, fmt, detail);
}

static void on_retry(uv_timer_t *t) {
    hook *h = t->data;
    h->state = HOOK_IDLE;
    kick(h);
}

static void wait_retry(hook *h) {
    int64_t delay = h->owner->lim.retry_base_ms;
    for (int64_t i = 1; i < h->attempts && delay < WEBHOOK_BACKOFF_MAX_MS; i++)
        delay *= 2;
    if (h->retry_after_s > 0 && h->retry_after_s * 1000 > delay) delay = h->retry_after_s * 1000;
    if (delay > WEBHOOK_BACKOFF_MAX_MS) delay = WEBHOOK_BACKOFF_MAX_MS;
    h->state = HOOK_WAITING;
    h->next_attempt_at = uv_now(h->owner->loop) + (uint64_t)delay;
    uv_timer_start(&h->retry, on_retry, (uint64_t)delay, 0);
}

/* The current event is done with: delivered, or given up. */
static void next_event(hook *h, bool delivered) {
    if (delivered)
        h->delivered++;
    else
        h->failed++;
    h->cursor++;
    h->attempts = 0;
    h->state = HOOK_IDLE;
    kick(h);
}

/* An attempt failed in a way worth retrying. */
static void attempt_failed(hook *h) {
    if (h->attempts >= h->owner->lim.max_attempts) {
        log_msg(LOG_WARN, "webhook %d of session %s: gave up on event %lld after %lld attempts: %s",
                h->id, h->session_id, (long long)(h->cursor + 1), (long long)h->attempts,
                h->last_error);
        next_event(h, false);
    } else {
        wait_retry(h);
    }
}

static size_t discard_body(char *p, size_t size, size_t n, void *arg) {
    (void)p, (void)arg;
    return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg) {
    hook *h = arg;
    size_t len = size * n;
    if (len > 12 && strncasecmp(p, "retry-after:", 12) == 0) {
        char buf[32];
        size_t m = len - 12 < sizeof buf - 1 ? len - 12 : sizeof buf - 1;
        memcpy(buf, p + 12, m);
        buf[m] = '\0';
        long s = strtol(buf, NULL, 10); /* seconds; an HTTP date reads as 0: plain backoff */
        /* Clamped before any arithmetic (the wait is capped at 60 s anyway). */
        h->retry_after_s = s <= 0 ? 0 : s > 3600 ? 3600 : s;
    }
    return len;
}

/* Every connection a webhook opens passes here: an inside address is refused unless allowed,
 * whatever name led to it. */
static curl_socket_t open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a) {
    hook *h = arg;
    (void)purpose;
    if (!h->private_ok && webhook_address_is_inside(&a->addr)) {
        char ip[INET6_ADDRSTRLEN] = "?";
        const void *src =
            a->family == AF_INET6
                ? (const void *)&((const struct sockaddr_in6 *)(const void *)&a->addr)->sin6_addr
                : (const void *)&((const struct sockaddr_in *)(const void *)&a->addr)->sin_addr;
        inet_ntop(a->family, src, ip, sizeof ip);
        snprintf(h->refused, sizeof h->refused, "%s", ip);
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

/* Gives back h's in-flight slot, if it holds one. The hook waiting for it starts from the loop
 * (a zero timer), not from inside this call: the caller may be in the middle of changing the
 * hook list. */
static void slot_release(hook *h) {
    webhooks *w = h->owner;
    if (!h->slot) return;
    h->slot = false;
    w->inflight--;
    if (h->host) {
        webhook_host *host = h->host;
        host->inflight--;
        /* The oldest hook waiting for this host's share goes first in the daemon's queue: it
         * has waited already. */
        hook *next = host->wait_head;
        if (next && !w->stopped) {
            ready_unlink(next);
            ready_push_front(next);
        }
    }
    if (w->ready_head && !w->stopped) uv_timer_start(&w->ready_timer, on_ready, 0, 0);
}

/* A failure of ours, not the receiver's (the database, memory): retried by the timer (never
 * given up, never by recursion back into kick), and not counted as an attempt. */
static void own_failure(hook *h, const char *what) {
    free(h->body);
    h->body = NULL;
    slot_release(h);
    set_error(h, "%s", what);
    wait_retry(h);
}

/* POSTs h->body (set by the caller). h holds its slot. */
static void start_transfer(hook *h) {
    webhooks *w = h->owner;
    CURL *e = curl_easy_init();
    if (!e) {
        own_failure(h, "out of memory starting the request");
        return;
    }
    curl_easy_setopt(e, CURLOPT_URL, h->url);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, h->body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(h->body));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, w->headers);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "umpired/" UMPIRE_VERSION);
    /* A host that timed out gets less (server/live/webhook_hosts.h). */
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                     (long)(h->host ? h->host->timeout_ms : w->lim.timeout_ms));
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    /* Ending a transfer whose name lookup is still running (a timeout, a removed hook) must not
     * wait for curl's resolver thread: that wait would be on the loop thread. */
    curl_easy_setopt(e, CURLOPT_QUICK_EXIT, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    /* No proxy from the environment: the address check must see the receiver's address. */
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard_body);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, h);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, h);
    curl_easy_setopt(e, CURLOPT_PRIVATE, h);
    h->retry_after_s = 0;
    h->refused[0] = '\0';
    if (curl_multi_add_handle(w->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        own_failure(h, "the request could not be started");
        return;
    }
    h->attempts++;
    h->easy = e;
    h->state = HOOK_SENDING;
}

/* The loop thread, once read_event has run: inside db_reads_submit (inline), or later (pool). */
static void on_event_read(void *arg) {
    hook *h = arg;
    webhooks *w = h->owner;
    json_t *page = h->read_page, *first = h->read_first; /* both ours from here */
    h->read_page = NULL;
    h->read_first = NULL;
    h->state = HOOK_IDLE;
    if (!h->removed && !h->slot) {
        /* Its slot was taken back during the read (the session's hooks expired): void. */
        json_decref(page);
        kick(h);
    } else if (h->removed) {
        /* Replaced or stopping during the read (pool): hook_retire gave back the slot; h is
         * freed here, or by on_hook_closed if its timer is still closing. */
        json_decref(page);
        if (h->timer_closed) hook_free(h);
    } else {
        if (first && !h->sides) learn_session(h, first);
        h->body = event_body_new(h, page, h->read_seq);
        json_decref(page);
        if (h->body)
            start_transfer(h);
        else
            own_failure(h, "the event could not be read from the database");
    }
    json_decref(first); /* (h may be freed above: only locals from here) */
    read_answered(w);
}

/* Starts the delivery of the next event: takes a slot, reads the event, then (on_event_read)
 * POSTs it. */
static void start_delivery(hook *h) {
    webhooks *w = h->owner;
    h->slot = true;
    w->inflight++;
    if (h->host) h->host->inflight++;
    h->state = HOOK_READING;
    h->read_seq = h->cursor + 1;
    w->reads_in_flight++;
    if (db_reads_submit(w->reads, read_event, on_event_read, h) != 0) {
        /* Refused (the pool's queue is full): like a failed read, tried again after the backoff;
         * the cursor has not moved, so nothing is lost. */
        w->reads_in_flight--;
        h->state = HOOK_IDLE;
        own_failure(h, "the database was too busy to read the event");
    }
}

/* The queue h waits in: the daemon's, or its host's. */
static void queue_of(hook *h, hook ***head, hook ***tail) {
    if (h->host_queued) {
        *head = &h->host->wait_head;
        *tail = &h->host->wait_tail;
    } else {
        *head = &h->owner->ready_head;
        *tail = &h->owner->ready_tail;
    }
}

static void ready_unlink(hook *h) {
    if (!h->queued) return;
    hook **head, **tail;
    queue_of(h, &head, &tail);
    if (h->ready_prev)
        h->ready_prev->ready_next = h->ready_next;
    else
        *head = h->ready_next;
    if (h->ready_next)
        h->ready_next->ready_prev = h->ready_prev;
    else
        *tail = h->ready_prev;
    h->ready_next = h->ready_prev = NULL;
    h->queued = h->host_queued = false;
}

/* Queues h (not queued) at the tail of the daemon's queue, or of its host's when to_host. */
static void queue_push(hook *h, bool to_host) {
    if (h->queued) return;
    h->queued = true;
    h->host_queued = to_host;
    hook **head, **tail;
    queue_of(h, &head, &tail);
    h->ready_prev = *tail;
    h->ready_next = NULL;
    if (*tail)
        (*tail)->ready_next = h;
    else
        *head = h;
    *tail = h;
}

static void ready_push(hook *h) {
    queue_push(h, false);
}

/* At the head of the daemon's queue (a hook that waited for its host already). */
static void ready_push_front(hook *h) {
    webhooks *w = h->owner;
    if (h->queued) return;
    h->queued = true;
    h->ready_prev = NULL;
    h->ready_next = w->ready_head;
    if (w->ready_head)
        w->ready_head->ready_prev = h;
    else
        w->ready_tail = h;
    w->ready_head = h;
}

/* Ends the transfer in flight, if any (no verdict), and gives back the slot (of the transfer or
 * of a read in flight). */
static void drop_transfer(hook *h) {
    if (h->easy) {
        curl_multi_remove_handle(h->owner->multi, h->easy);
        curl_easy_cleanup(h->easy);
        h->easy = NULL;
    }
    slot_release(h);
    free(h->body);
    h->body = NULL;
}

static void transfer_done(hook *h, CURLcode res, long status) {
    drop_transfer(h);
    if (h->host && res == CURLE_OK)
        webhook_host_answered(h->owner->hosts, h->host);
    else if (h->host && res == CURLE_OPERATION_TIMEDOUT)
        webhook_host_timed_out(h->owner->hosts, h->host);
    if (res == CURLE_OK) {
        h->last_status = status;
        if (status >= 200 && status < 300) {
            h->last_error[0] = '\0';
            next_event(h, true);
            return;
        }
        char what[48];
        snprintf(what, sizeof what, "%ld", status);
        set_error(h, "the receiver answered HTTP %s", what);
        if (status == 429 || status >= 500 || status < 200) {
            attempt_failed(h);
        } else { /* another 4xx: asking again would get the same answer */
            log_msg(LOG_WARN, "webhook %d of session %s: event %lld refused with HTTP %ld", h->id,
                    h->session_id, (long long)(h->cursor + 1), status);
            next_event(h, false);
        }
        return;
    }
    if (h->refused[0])
        set_error(h,
                  "refused to connect to %s: an inside address, not allowed "
                  "(webhooks.allow_private_addresses)",
                  h->refused);
    else
        set_error(h, "%s", curl_easy_strerror(res));
    attempt_failed(h);
}

/* Starts h's next delivery if it is free and has one; from_queue: on_ready took h off the head
 * of the queue. Otherwise a hook goes behind those already waiting, so that the queue is oldest
 * first and a busy hook cannot take back the slot it has just freed. */
static void kick_from(hook *h, bool from_queue) {
    webhooks *w = h->owner;
    if (h->state != HOOK_IDLE || h->removed || h->blocked || h->expired || w->stopped) return;
    if (h->head <= h->cursor) return;
    if (w->standby) {
        /* Another node sends these: keep up with the session, so that should this node take
         * over it starts from there, not from the events the other node already sent. */
        h->cursor = h->head;
        return;
    }
    if (h->queued) return; /* already waiting its turn */
    if (w->inflight >= WEBHOOK_INFLIGHT_MAX || (w->ready_head && !from_queue)) {
        ready_push(h);
        if (w->inflight < WEBHOOK_INFLIGHT_MAX) uv_timer_start(&w->ready_timer, on_ready, 0, 0);
        return;
    }
    if (h->host && h->host->inflight >= w->lim.max_slots_per_host) {
        /* Its host holds its share: wait for one of the host's slots, not the daemon's, so
         * that the hooks behind it (other hosts') go on. */
        queue_push(h, true);
        return;
    }
    if (h->head - h->cursor > w->lim.queue_max) {
        int64_t skip = h->head - h->cursor - w->lim.queue_max;
        log_msg(LOG_WARN, "webhook %d of session %s: %lld events behind, dropping the oldest %lld",
                h->id, h->session_id, (long long)(h->head - h->cursor), (long long)skip);
        h->dropped += skip;
        h->cursor += skip;
        h->attempts = 0; /* a new event: its own attempts and backoff */
    }
    start_delivery(h);
}

static void kick(hook *h) {
    kick_from(h, false);
}

/* Slots freed: start waiting hooks, oldest first, while slots last. */
static void on_ready(uv_timer_t *t) {
    webhooks *w = t->data;
    while (w->ready_head && w->inflight < WEBHOOK_INFLIGHT_MAX) {
        hook *h = w->ready_head;
        ready_unlink(h);
        kick_from(h, true);
    }
}

/* ---- curl's multi socket interface on the loop ------------------------------------------- */

static void check_done(webhooks *w) {
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(w->multi, &left)) != NULL) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL *e = msg->easy_handle;
        CURLcode res = msg->data.result; /* msg is gone once the handle is removed */
        hook *h = NULL;
        long status = 0;
        curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&h);
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
        if (h && h->easy == e) transfer_done(h, res, status);
    }
}

static void on_poll(uv_poll_t *p, int status, int events) {
    sock_ctx *sc = p->data;
    webhooks *w = sc->owner;
    int flags = 0, running;
    if (status < 0) flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE) flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE) flags |= CURL_CSELECT_OUT;
    curl_multi_socket_action(w->multi, sc->fd, flags, &running);
    check_done(w);
}

static void on_sock_closed(uv_handle_t *hd) {
    free(hd->data);
}

static void sock_release(webhooks *w, sock_ctx *sc) {
    if (sc->prev)
        sc->prev->next = sc->next;
    else
        w->socks = sc->next;
    if (sc->next) sc->next->prev = sc->prev;
    uv_poll_stop(&sc->poll);
    uv_close((uv_handle_t *)&sc->poll, on_sock_closed);
}

static int on_socket(CURL *e, curl_socket_t fd, int what, void *arg, void *socketp) {
    (void)e;
    webhooks *w = arg;
    sock_ctx *sc = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (sc) {
            curl_multi_assign(w->multi, fd, NULL);
            sock_release(w, sc);
        }
        return 0;
    }
    if (!sc) {
        sc = calloc(1, sizeof *sc);
        if (!sc) return -1;
        if (uv_poll_init_socket(w->loop, &sc->poll, fd) != 0) {
            free(sc);
            return -1;
        }
        sc->fd = fd;
        sc->owner = w;
        sc->poll.data = sc;
        sc->next = w->socks;
        if (w->socks) w->socks->prev = sc;
        w->socks = sc;
        curl_multi_assign(w->multi, fd, sc);
    }
    int ev = 0;
    if (what & CURL_POLL_IN) ev |= UV_READABLE;
    if (what & CURL_POLL_OUT) ev |= UV_WRITABLE;
    uv_poll_start(&sc->poll, ev, on_poll);
    return 0;
}

static void on_curl_timeout(uv_timer_t *t) {
    webhooks *w = t->data;
    int running;
    curl_multi_socket_action(w->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(w);
}

static int on_curl_timer(CURLM *m, long timeout_ms, void *arg) {
    (void)m;
    webhooks *w = arg;
    if (w->stopped) return 0;
    if (timeout_ms < 0)
        uv_timer_stop(&w->curl_timer);
    else /* 0 means "now": from the next loop iteration, never from inside curl */
        uv_timer_start(&w->curl_timer, on_curl_timeout, (uint64_t)timeout_ms, 0);
    return 0;
}

/* ---- the registry -------------------------------------------------------------------------- */

static void on_expire_scan(uv_timer_t *t);

webhooks *webhooks_new(uv_loop_t *loop, db_reads *reads, const webhook_policy *policy,
                       const webhooks_limits *limits) {
    webhooks *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->loop = loop;
    w->reads = reads;
    w->policy = policy;
    w->lim = *limits;
    w->multi = curl_multi_init();
    w->hosts = webhook_hosts_new(limits->timeout_ms);
    w->clients = webhook_clients_new();
    w->headers = curl_slist_append(NULL, "Content-Type: application/json");
    /* No "Expect: 100-continue" round trip before the body. */
    struct curl_slist *h2 = w->headers ? curl_slist_append(w->headers, "Expect:") : NULL;
    if (h2) w->headers = h2;
    if (!w->multi || !h2 || !w->hosts || !w->clients) {
        curl_slist_free_all(w->headers);
        if (w->multi) curl_multi_cleanup(w->multi);
        webhook_hosts_free(w->hosts);
        webhook_clients_free(w->clients);
        free(w);
        return NULL;
    }
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETDATA, w);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERDATA, w);
    uv_timer_init(loop, &w->curl_timer);
    w->curl_timer.data = w;
    uv_timer_init(loop, &w->ready_timer);
    w->ready_timer.data = w;
    uv_timer_init(loop, &w->stale_timer);
    w->stale_timer.data = w;
    uv_timer_init(loop, &w->expire_timer);
    w->expire_timer.data = w;
    if (w->lim.idle_expire_ms > 0) {
        int64_t every = w->lim.idle_expire_ms / 4;
        every = every < WEBHOOK_EXPIRE_SCAN_MIN_MS   ? WEBHOOK_EXPIRE_SCAN_MIN_MS
                : every > WEBHOOK_EXPIRE_SCAN_MAX_MS ? WEBHOOK_EXPIRE_SCAN_MAX_MS
                                                     : every;
        uv_timer_start(&w->expire_timer, on_expire_scan, (uint64_t)every, (uint64_t)every);
    }
    return w;
}

static void hook_free(hook *h) {
    if (!h) return;
    if (h->host) webhook_hosts_release(h->owner->hosts, h->host);
    free(h->mentions_text);
    json_decref(h->mentions);
    json_decref(h->sides);
    json_decref(h->read_first);
    free(h->url);
    free(h);
}

static void on_hook_closed(uv_handle_t *hd) {
    hook *h = hd->data;
    h->timer_closed = true;
    if (h->state != HOOK_READING) hook_free(h); /* else on_event_read frees it */
}

/* Unlinks nothing: cancels h's transfer and timer and frees it once the timer is closed and no
 * read of its is in flight. */
static void hook_retire(hook *h) {
    h->removed = true;
    ready_unlink(h);
    drop_transfer(h);
    uv_timer_stop(&h->retry);
    uv_close((uv_handle_t *)&h->retry, on_hook_closed);
}

static size_t bucket_of(const char *session_id) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = session_id; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % WEBHOOK_BUCKETS;
}

/* The link that points at the session's group (*result is NULL when it has none). */
static session_hooks **group_link(webhooks *w, const char *session_id) {
    session_hooks **pp = &w->buckets[bucket_of(session_id)];
    while (*pp && strcmp((*pp)->session_id, session_id) != 0)
        pp = &(*pp)->next;
    return pp;
}

/* ---- shares and idle expiry ---------------------------------------------------------------- */

/* g's hooks stop counting (towards max_total and g's client's share): expired. */
static void group_uncount(webhooks *w, session_hooks *g) {
    if (g->expired) {
        w->nexpired -= g->n;
    } else {
        w->nhooks -= g->n;
        webhook_clients_add(w->clients, g->client, -(long)g->n);
    }
}

/* No event for idle_expire_ms: g's hooks stop (a delivery in flight is dropped), and the events
 * they had not sent are counted as dropped. */
static void group_expire(webhooks *w, session_hooks *g) {
    group_uncount(w, g);
    g->expired = true;
    w->nexpired += g->n;
    for (size_t i = 0; i < g->n; i++) {
        hook *h = g->hooks[i];
        ready_unlink(h);
        drop_transfer(h); /* a read in flight is voided by its slot's release (on_event_read) */
        uv_timer_stop(&h->retry);
        if (h->state != HOOK_READING) h->state = HOOK_IDLE;
        h->expired = true;
        h->attempts = 0;
        if (h->head > h->cursor) h->dropped += h->head - h->cursor;
        h->cursor = h->head;
        snprintf(h->last_error, sizeof h->last_error,
                 "expired: no event for %lld ms (webhooks.idle_expire_ms); the session's next "
                 "event starts it again if there is room, or PUT the list again",
                 (long long)w->lim.idle_expire_ms);
    }
    log_msg(LOG_INFO, "webhooks of session %s: expired after %lld ms without an event",
            g->session_id, (long long)w->lim.idle_expire_ms);
}

/* Whether n more hooks of the client key fit: max_total (reservations included) and the
 * client's share. */
static webhooks_room room_for(webhooks *w, const char *key, size_t n, size_t *held) {
    size_t total = w->nhooks + w->reserved;
    size_t mine = webhook_clients_count(w->clients, key);
    if (held) *held = mine;
    if (total + n > (size_t)w->lim.max_total) return WEBHOOKS_FULL;
    if (key[0] && mine + n > (size_t)w->lim.max_per_client) return WEBHOOKS_CLIENT_FULL;
    return WEBHOOKS_ROOM;
}

/* A new event on an expired session: its hooks start again from it if they fit. */
static void group_revive(webhooks *w, session_hooks *g, int64_t version) {
    webhooks_room room = room_for(w, g->client, g->n, NULL);
    for (size_t i = 0; i < g->n; i++) {
        hook *h = g->hooks[i];
        if (room != WEBHOOKS_ROOM) {
            h->cursor = h->head = version; /* not sent: the next event may find room */
            snprintf(h->last_error, sizeof h->last_error,
                     "expired, and not started again by event %lld: %s", (long long)version,
                     room == WEBHOOKS_FULL ? "the daemon holds webhooks.max_total webhooks"
                                           : "its client holds webhooks.max_per_client webhooks");
            continue;
        }
        h->expired = false;
        h->last_error[0] = '\0';
    }
    if (room != WEBHOOKS_ROOM) return;
    w->nexpired -= g->n;
    g->expired = false;
    w->nhooks += g->n;
    webhook_clients_add(w->clients, g->client, (long)g->n);
}

static void on_expire_scan(uv_timer_t *t) {
    webhooks *w = t->data;
    uint64_t now = uv_now(w->loop);
    for (size_t b = 0; w->nhooks && b < WEBHOOK_BUCKETS; b++)
        for (session_hooks *g = w->buckets[b]; g; g = g->next)
            if (!g->expired && g->n && now - g->active_at >= (uint64_t)w->lim.idle_expire_ms)
                group_expire(w, g);
}

webhooks_room webhooks_reserve(webhooks *w, const char *client, const char *session_id, size_t n,
                               size_t *held) {
    char key[WEBHOOK_CLIENT_MAX];
    webhook_client_key(client, key);
    session_hooks *g = *group_link(w, session_id);
    size_t now_total = g && !g->expired ? g->n : 0;
    size_t now_mine = g && !g->expired && strcmp(g->client, key) == 0 ? g->n : 0;
    if (held) *held = webhook_clients_count(w->clients, key);
    if (n > now_total) { /* a list no longer than the session's has room: it takes none more */
        if (w->nhooks + w->reserved - now_total + n > (size_t)w->lim.max_total)
            return WEBHOOKS_FULL;
        if (key[0] &&
            webhook_clients_count(w->clients, key) - now_mine + n > (size_t)w->lim.max_per_client)
            return WEBHOOKS_CLIENT_FULL;
    }
    /* Held whole (the session's current hooks are counted twice meanwhile: never too few). */
    if (webhook_clients_add(w->clients, key, (long)n) != 0) return WEBHOOKS_FULL;
    w->reserved += n;
    return WEBHOOKS_ROOM;
}

void webhooks_unreserve(webhooks *w, const char *client, size_t n) {
    char key[WEBHOOK_CLIENT_MAX];
    webhook_client_key(client, key);
    webhook_clients_add(w->clients, key, -(long)n);
    w->reserved -= n <= w->reserved ? n : w->reserved;
}

size_t webhooks_max_per_client(const webhooks *w) {
    return w ? (size_t)w->lim.max_per_client : 0;
}

/* ---- the lists ------------------------------------------------------------------------------ */

int webhooks_set(webhooks *w, const char *session_id, const webhook_list *list, int64_t version) {
    return webhooks_set_by(w, session_id, list, version, NULL);
}

int webhooks_set_by(webhooks *w, const char *session_id, const webhook_list *list, int64_t version,
                    const char *client) {
    if (w->stopped) return -1;
    char key[WEBHOOK_CLIENT_MAX];
    webhook_client_key(client, key);
    session_hooks **link = group_link(w, session_id);
    session_hooks *g = *link;
    /* Build the new hooks (and group) first, so that running out of memory changes nothing. */
    session_hooks *fresh_group = !g && list->n ? calloc(1, sizeof *fresh_group) : NULL;
    if (!g && list->n && !fresh_group) return -1;
    hook *fresh[WEBHOOKS_MAX] = {0};
    size_t made = 0;
    for (; made < list->n; made++) {
        hook *h = calloc(1, sizeof *h);
        char *url = h ? strdup(list->hooks[made].url) : NULL;
        char *mentions = url ? strdup(list->hooks[made].mentions) : NULL;
        if (!mentions) {
            free(url);
            free(h);
            break;
        }
        h->mentions_text = mentions;
        if (mentions[0]) h->mentions = json_loads(mentions, 0, NULL);
        char host[WEBHOOK_HOST_MAX] = "";
        h->owner = w;
        memcpy(h->session_id, session_id, 33);
        h->id = (int)made + 1;
        h->url = url;
        h->format = list->hooks[made].format;
        fresh[made] = h;
        if (webhook_policy_check_url(w->policy, h->url, host, sizeof host, &h->private_ok) !=
            WEBHOOK_URL_OK) {
            /* Stored under an earlier allow_hosts that listed it: the operator has since taken
             * the host off the list, so it is not called (and says why). */
            h->blocked = true;
            snprintf(h->last_error, sizeof h->last_error,
                     "not called: host '%.*s' is no longer in webhooks.allow_hosts", 100, host);
        } else if (!(h->host = webhook_hosts_acquire(w->hosts, host))) {
            made++;
            break;
        }
        h->cursor = h->head = version;
    }
    if (made < list->n || webhook_clients_add(w->clients, key, (long)list->n) != 0) {
        for (size_t j = 0; j < made; j++)
            hook_free(fresh[j]);
        free(fresh_group);
        return -1;
    }
    if (g) {
        group_uncount(w, g);
        for (size_t i = 0; i < g->n; i++)
            hook_retire(g->hooks[i]);
        g->n = 0;
        if (!list->n) { /* no hooks left: the group goes */
            *link = g->next;
            free(g);
            return 0;
        }
    } else if (fresh_group) {
        memcpy(fresh_group->session_id, session_id, 33);
        fresh_group->next = w->buckets[bucket_of(session_id)];
        w->buckets[bucket_of(session_id)] = fresh_group;
        g = fresh_group;
    } else {
        return 0; /* nothing before, nothing now */
    }
    g->expired = false;
    memcpy(g->client, key, sizeof key);
    g->version = version;
    g->active_at = uv_now(w->loop);
    for (size_t i = 0; i < list->n; i++) { /* in order: describe lists them as the referee did */
        uv_timer_init(w->loop, &fresh[i]->retry);
        fresh[i]->retry.data = fresh[i];
        g->hooks[g->n++] = fresh[i];
        w->nhooks++;
    }
    return 0;
}

void webhooks_publish_version(webhooks *w, const char *session_id, int64_t version) {
    if (!w || (!w->nhooks && !w->nexpired) || w->stopped) return;
    session_hooks *g = *group_link(w, session_id);
    if (!g) return;
    if (version > g->version) { /* a new event: the session is not idle */
        g->version = version;
        g->active_at = uv_now(w->loop);
        if (g->expired) group_revive(w, g, version);
    }
    for (size_t i = 0; i < g->n; i++) {
        hook *h = g->hooks[i];
        if (version > h->head) h->head = version;
        kick(h);
    }
}

/* A version read: the session is looked up again by id when it is answered, since its hooks may
 * have been replaced (and its group freed) meanwhile. */
typedef struct version_read {
    webhooks *owner;
    char session_id[33];
    int64_t version; /* store_session_version's answer */
    bool heap;       /* malloc'd (pool reads); an inline read uses the caller's stack */
} version_read;

/* The reader thread (inline: the loop thread, inside db_reads_submit). */
static void read_version(store_conn *conn, void *arg) {
    version_read *vr = arg;
    vr->version = store_session_version(conn, vr->session_id);
}

static void on_version(void *arg) {
    version_read *vr = arg;
    webhooks *w = vr->owner;
    /* -1 (the session is gone) sends nothing; -2 (a storage error): the next commit tries
     * again, as before reads were asynchronous. */
    if (vr->version >= 0) webhooks_publish_version(w, vr->session_id, vr->version);
    if (vr->heap) free(vr);
    read_answered(w);
}

static void on_stale(uv_timer_t *t);

/* Reads the version of g's session, then publishes it. Refused by the pool (or no memory): g is
 * marked stale and stale_timer reads it again shortly. */
static void read_version_of(webhooks *w, session_hooks *g) {
    version_read local, *vr = &local;
    bool heap = !db_reads_inline(w->reads);
    if (!heap || (vr = malloc(sizeof *vr)) != NULL) {
        vr->owner = w;
        memcpy(vr->session_id, g->session_id, 33);
        vr->version = -2;
        vr->heap = heap;
        w->reads_in_flight++; /* before submitting: inline, on_version runs inside it */
        if (db_reads_submit(w->reads, read_version, on_version, vr) == 0) return;
        w->reads_in_flight--;
        if (heap) free(vr);
    }
    g->stale = true;
    if (!uv_is_active((uv_handle_t *)&w->stale_timer))
        uv_timer_start(&w->stale_timer, on_stale, WEBHOOK_READ_RETRY_MS, 0);
}

/* Groups are not freed from inside read_version_of (on_version only kicks hooks), so the walk is
 * safe. */
static void on_stale(uv_timer_t *t) {
    webhooks *w = t->data;
    for (size_t b = 0; b < WEBHOOK_BUCKETS; b++)
        for (session_hooks *g = w->buckets[b]; g; g = g->next)
            if (g->stale) {
                g->stale = false;
                read_version_of(w, g);
            }
}

void webhooks_publish(webhooks *w, const char *session_id) {
    if (!w || (!w->nhooks && !w->nexpired) || w->stopped)
        return; /* the common case: no webhooks, no query */
    session_hooks *g = *group_link(w, session_id);
    if (g) read_version_of(w, g);
}

void webhooks_set_standby(webhooks *w, bool standby) {
    if (!w || w->standby == standby) return;
    w->standby = standby;
    /* A transfer in flight finishes; the next kick of its hook follows the new role. */
    for (size_t b = 0; !standby && b < WEBHOOK_BUCKETS; b++)
        for (session_hooks *g = w->buckets[b]; g; g = g->next)
            for (size_t i = 0; i < g->n; i++)
                kick(g->hooks[i]);
}

bool webhooks_same_list(webhooks *w, const char *session_id, const webhook_list *list) {
    session_hooks *g = w ? *group_link(w, session_id) : NULL;
    if ((g ? g->n : 0) != list->n) return false;
    for (size_t i = 0; i < list->n; i++)
        if (g->hooks[i]->format != list->hooks[i].format ||
            strcmp(g->hooks[i]->url, list->hooks[i].url) != 0 ||
            strcmp(g->hooks[i]->mentions_text, list->hooks[i].mentions) != 0)
            return false;
    return true;
}

static int by_id(const void *a, const void *b) {
    return strcmp(a, b);
}

void webhooks_remove_except(webhooks *w, const char (*ids)[33], size_t n) {
    static const webhook_list none = {0};
    for (size_t b = 0; w && b < WEBHOOK_BUCKETS; b++) {
        session_hooks **link = &w->buckets[b];
        while (*link) {
            if (bsearch((*link)->session_id, ids, n, 33, by_id)) {
                link = &(*link)->next;
                continue;
            }
            webhooks_set(w, (*link)->session_id, &none, 0); /* unlinks *link */
        }
    }
}

size_t webhooks_session_count(webhooks *w, const char *session_id) {
    session_hooks *g = w ? *group_link(w, session_id) : NULL;
    return g && !g->expired ? g->n : 0;
}

static const char *state_name(const hook *h) {
    if (h->blocked) return "blocked";
    if (h->expired) return "expired";
    if (h->owner->standby && h->state == HOOK_IDLE) return "standby";
    if (h->queued) return "queued";
    /* Reading the event is the first step of sending it. */
    return h->state == HOOK_SENDING || h->state == HOOK_READING ? "sending"
           : h->state == HOOK_WAITING                           ? "waiting_retry"
                                                                : "idle";
}

json_t *webhooks_describe_new(webhooks *w, const char *session_id) {
    json_t *list = json_array();
    if (!list) return NULL;
    session_hooks *g = *group_link(w, session_id);
    for (size_t i = 0; g && i < g->n; i++) {
        hook *h = g->hooks[i];
        json_t *next_in = json_null();
        if (h->state == HOOK_WAITING) {
            uint64_t now = uv_now(w->loop);
            next_in =
                json_integer(h->next_attempt_at > now ? (json_int_t)(h->next_attempt_at - now) : 0);
        }
        json_t *d =
            json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}", "state", state_name(h),
                      "delivered_seq", (json_int_t)h->cursor, "pending",
                      (json_int_t)(h->head > h->cursor ? h->head - h->cursor : 0), "attempts",
                      (json_int_t)h->attempts, "delivered", (json_int_t)h->delivered, "failed",
                      (json_int_t)h->failed, "dropped", (json_int_t)h->dropped, "last_status",
                      h->last_status ? json_integer(h->last_status) : json_null(), "last_error",
                      h->last_error[0] ? json_string(h->last_error) : json_null(),
                      "next_attempt_in_ms", next_in);
        json_t *row = d ? json_pack("{s:i, s:s, s:s, s:o}", "id", h->id, "url", h->url, "format",
                                    webhook_format_name(h->format), "delivery", d)
                        : NULL;
        if (row && h->mentions) json_object_set(row, "mentions", h->mentions);
        if (!row || json_array_append_new(list, row) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

size_t webhooks_max_total(const webhooks *w) {
    return w ? (size_t)w->lim.max_total : 0;
}

size_t webhooks_count(const webhooks *w) {
    return w ? w->nhooks : 0;
}

void webhooks_stop(webhooks *w) {
    if (!w || w->stopped) return;
    w->stopped = true;
    for (size_t b = 0; b < WEBHOOK_BUCKETS; b++) {
        while (w->buckets[b]) {
            session_hooks *g = w->buckets[b];
            w->buckets[b] = g->next;
            for (size_t i = 0; i < g->n; i++)
                hook_retire(g->hooks[i]);
            free(g);
        }
    }
    w->nhooks = w->nexpired = 0;
    uv_timer_stop(&w->curl_timer);
    uv_close((uv_handle_t *)&w->curl_timer, NULL);
    uv_timer_stop(&w->ready_timer);
    uv_close((uv_handle_t *)&w->ready_timer, NULL);
    uv_timer_stop(&w->stale_timer);
    uv_close((uv_handle_t *)&w->stale_timer, NULL);
    uv_timer_stop(&w->expire_timer);
    uv_close((uv_handle_t *)&w->expire_timer, NULL);
    curl_multi_cleanup(w->multi); /* closes cached connections (their sockets leave on_socket) */
    w->multi = NULL;
    while (w->socks)
        sock_release(w, w->socks);
}

void webhooks_free(webhooks *w) {
    if (!w) return;
    if (w->reads_in_flight)
        w->free_pending = true; /* the last read answered frees it (read_answered) */
    else
        webhooks_destroy(w);
}
