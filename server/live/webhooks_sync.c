#include "server/live/webhooks_sync.h"

#include "server/core/log.h"

#include <stdlib.h>
#include <string.h>

/* Reads of a session's list in flight. A read that began before this node set the list itself
 * (webhooks_sync_local_set) may have read the list before that commit, and its answer may come
 * after: applied, it would bring the older list back over the one the PUT answered (a GET then
 * saw the stale list). Likewise two reads of one session on two reader threads may answer out of
 * order. So one read per session is in flight: a notification meanwhile asks for another read
 * after it, and a local set also voids its answer. Loop thread only; one dispatcher per process
 * (the daemon's). */
typedef struct in_flight {
    struct in_flight *next;
    char id[33];
    bool again; /* read again once this read is answered */
    bool stale; /* this read may predate a local set: its answer is not applied */
} in_flight;

#define IN_FLIGHT_BUCKETS 64
/* A read of every list begun while the node set lists this many times is begun again, at most so
 * often (then applied, logged: a busy node's next notifications set things right). */
#define RELOAD_ALL_TRIES 8

static in_flight *in_flight_buckets[IN_FLIGHT_BUCKETS];
static uint64_t local_sets; /* lists this node set itself */

static in_flight **in_flight_link(const char *id) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    in_flight **pp = &in_flight_buckets[h % IN_FLIGHT_BUCKETS];
    while (*pp && strcmp((*pp)->id, id) != 0)
        pp = &(*pp)->next;
    return pp;
}

static void in_flight_remove(const char *id) {
    in_flight **pp = in_flight_link(id), *f = *pp;
    if (!f) return;
    *pp = f->next;
    free(f);
}

void webhooks_sync_local_set(const char *session_id) {
    local_sets++;
    in_flight *f = *in_flight_link(session_id);
    if (f) f->again = f->stale = true;
}

typedef struct reload_entry {
    char id[33];
    int64_t version;
    webhook_list *list; /* owned */
} reload_entry;

typedef struct reload {
    webhooks *w;
    db_reads *reads;
    bool all;
    int tries;           /* reads of every list begun so far */
    uint64_t local_sets; /* local_sets when the read of every list began */
    char id[33];
    int rc; /* store_webhooks_each's, then -1 if a copy ran out of memory */
    size_t n, cap;
    reload_entry *entries;
} reload;

/* The reader thread: copies the lists asked for. */
static void gather(void *arg, const char *session_id, const webhook_list *list, int64_t version) {
    reload *r = arg;
    if (!r->all && strcmp(session_id, r->id) != 0) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4;
        reload_entry *e = realloc(r->entries, cap * sizeof *e);
        if (!e) {
            r->rc = -1;
            return;
        }
        r->entries = e;
        r->cap = cap;
    }
    reload_entry *e = &r->entries[r->n];
    e->list = malloc(sizeof *e->list);
    if (!e->list) {
        r->rc = -1;
        return;
    }
    memcpy(e->id, session_id, 33);
    memcpy(e->list, list, sizeof *list);
    e->version = version;
    r->n++;
}

static void read_lists(store_conn *conn, void *arg) {
    reload *r = arg;
    int rc = store_webhooks_each(conn, gather, r);
    if (rc != 0) r->rc = rc;
}

static int submit(reload *r);

/* The answer of r's read is applied (only by set_lists); r is then read again or freed. */
static void apply_lists(reload *r) {
    if (r->rc != 0) {
        log_msg(LOG_ERROR, "webhooks: cannot read %s%s from the database",
                r->all ? "the lists" : "the list of ", r->all ? "" : r->id);
    } else {
        static const webhook_list none = {0};
        if (r->all) {
            /* Sessions whose lists are gone; the entries come in session id order. */
            char(*ids)[33] = r->n ? malloc(r->n * 33) : NULL;
            for (size_t i = 0; ids && i < r->n; i++)
                memcpy(ids[i], r->entries[i].id, 33);
            if (ids || !r->n) webhooks_remove_except(r->w, (const char(*)[33])ids, r->n);
            free(ids);
        } else if (r->n == 0) {
            webhooks_set(r->w, r->id, &none, 0); /* the list was emptied */
        }
        /* An unchanged list keeps its hooks and their delivery state: the node's own change
         * comes back by NOTIFY too, and must not restart its hooks behind an event. */
        for (size_t i = 0; i < r->n; i++) {
            reload_entry *e = &r->entries[i];
            if (webhooks_same_list(r->w, e->id, e->list)) {
                /* Its hooks go on; a notification lost meanwhile may have left them behind
                 * the session (a reconnection reloads every list). */
                webhooks_publish_version(r->w, e->id, e->version);
                continue;
            }
            if (r->all && *in_flight_link(e->id)) continue; /* its own read is newer */
            if (webhooks_set(r->w, e->id, e->list, e->version) != 0)
                log_msg(LOG_ERROR, "webhooks of %s: out of memory reloading them", e->id);
        }
    }
}

/* Forgets the answer of r's read, for another. */
static void clear_answer(reload *r) {
    for (size_t i = 0; i < r->n; i++)
        free(r->entries[i].list);
    free(r->entries);
    r->entries = NULL;
    r->n = r->cap = 0;
    r->rc = 0;
}

static void set_lists(void *arg) {
    reload *r = arg;
    in_flight *f = r->all ? NULL : *in_flight_link(r->id);
    bool again = false;
    if (r->all) {
        /* Lists this node set during the read may be newer than what it read. */
        again = local_sets != r->local_sets && r->tries < RELOAD_ALL_TRIES;
        if (!again) {
            if (local_sets != r->local_sets)
                log_msg(LOG_WARN, "webhooks: every list reloaded while this node was setting "
                                  "some; the next notifications bring them up to date");
            apply_lists(r);
        }
    } else {
        if (!f || !f->stale) apply_lists(r);
        again = f && f->again;
        if (f) f->again = f->stale = false;
    }
    clear_answer(r);
    if (again && submit(r) == 0) return;
    if (again)
        log_msg(LOG_WARN, "webhooks: the read queue is full; a list change waits for the next one");
    if (!r->all) in_flight_remove(r->id);
    free(r);
}

/* Begins r's read. 0, or -1 (the pool refused it). */
static int submit(reload *r) {
    if (r->all) {
        r->tries++;
        r->local_sets = local_sets;
    }
    return db_reads_submit(r->reads, read_lists, set_lists, r);
}

void webhooks_reload(webhooks *w, db_reads *reads, const char *session_id) {
    reload *r = calloc(1, sizeof *r);
    if (!r) {
        log_msg(LOG_ERROR, "webhooks: out of memory reloading a list");
        return;
    }
    r->w = w;
    r->reads = reads;
    r->all = session_id == NULL;
    if (session_id) {
        memcpy(r->id, session_id, 33);
        in_flight **link = in_flight_link(session_id);
        if (*link) { /* read again after the read in flight: its answer may predate this */
            (*link)->again = true;
            free(r);
            return;
        }
        in_flight *f = calloc(1, sizeof *f);
        if (!f) {
            log_msg(LOG_ERROR, "webhooks: out of memory reloading a list");
            free(r);
            return;
        }
        memcpy(f->id, session_id, 33);
        *link = f;
    }
    if (submit(r) != 0) {
        log_msg(LOG_WARN, "webhooks: the read queue is full; a list change waits for the next one");
        if (session_id) in_flight_remove(session_id);
        free(r);
    }
}
