#include "server/live/webhooks_sync.h"

#include "server/core/log.h"

#include <stdlib.h>
#include <string.h>

typedef struct reload_entry {
    char id[33];
    int64_t version;
    webhook_list *list; /* owned */
} reload_entry;

typedef struct reload {
    webhooks *w;
    bool all;
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

static void set_lists(void *arg) {
    reload *r = arg;
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
            if (webhooks_set(r->w, e->id, e->list, e->version) != 0)
                log_msg(LOG_ERROR, "webhooks of %s: out of memory reloading them", e->id);
        }
    }
    for (size_t i = 0; i < r->n; i++)
        free(r->entries[i].list);
    free(r->entries);
    free(r);
}

void webhooks_reload(webhooks *w, db_reads *reads, const char *session_id) {
    reload *r = calloc(1, sizeof *r);
    if (!r) {
        log_msg(LOG_ERROR, "webhooks: out of memory reloading a list");
        return;
    }
    r->w = w;
    r->all = session_id == NULL;
    if (session_id) memcpy(r->id, session_id, 33);
    if (db_reads_submit(reads, read_lists, set_lists, r) != 0) {
        log_msg(LOG_WARN, "webhooks: the read queue is full; a list change waits for the next one");
        free(r);
    }
}
