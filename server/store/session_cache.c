#include "server/store/session_cache.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct session_cache {
    session_row *slots[SESSION_CACHE_SLOTS];
    bool dirty[SESSION_CACHE_SLOTS];
    /* The dirty slots, each once, in the order they became dirty. */
    uint16_t dirty_list[SESSION_CACHE_SLOTS];
    size_t ndirty;
};

/* FNV-1a over the id's characters: ids are random hex, any mix spreads them evenly. */
static size_t slot_of(const char *id) {
    uint32_t h = 2166136261u;
    for (; *id; id++)
        h = (h ^ (uint8_t)*id) * 16777619u;
    return h % SESSION_CACHE_SLOTS;
}

session_cache *session_cache_new(void) {
    return calloc(1, sizeof(session_cache));
}

static void drop(session_cache *c, size_t i) {
    if (!c->slots[i]) return;
    session_row_clear(c->slots[i]);
    free(c->slots[i]);
    c->slots[i] = NULL;
}

void session_cache_clear(session_cache *c) {
    for (size_t i = 0; i < SESSION_CACHE_SLOTS; i++)
        drop(c, i);
    memset(c->dirty, 0, sizeof c->dirty);
    c->ndirty = 0;
}

void session_cache_free(session_cache *c) {
    if (!c) return;
    session_cache_clear(c);
    free(c);
}

session_row *session_cache_borrow(session_cache *c, const char *id) {
    session_row *row = c->slots[slot_of(id)];
    return row && strcmp(row->id, id) == 0 ? row : NULL;
}

void session_cache_put_take(session_cache *c, session_row *row) {
    size_t i = slot_of(row->id);
    /* Never evict an unwritten change (the writer calls make_room first): the row is then
     * simply not cached, and the caller answers as for a lack of memory. */
    session_row *copy = c->dirty[i] ? NULL : malloc(sizeof *copy);
    if (!copy) {
        session_row_clear(row); /* not cached: the next read goes to the database */
        return;
    }
    *copy = *row;
    memset(row, 0, sizeof *row);
    drop(c, i);
    c->slots[i] = copy;
}

void session_cache_forget(session_cache *c, const char *id) {
    size_t i = slot_of(id);
    if (c->slots[i] && !c->dirty[i] && strcmp(c->slots[i]->id, id) == 0) drop(c, i);
}

void session_cache_mark_dirty(session_cache *c, const char *id) {
    size_t i = slot_of(id);
    if (!c->slots[i] || strcmp(c->slots[i]->id, id) != 0 || c->dirty[i]) return;
    c->dirty[i] = true;
    c->dirty_list[c->ndirty++] = (uint16_t)i;
}

static int write_row(store_conn *conn, session_row *r) {
    return store_session_write_row(conn, r);
}

int session_cache_make_room(session_cache *c, store_conn *conn, const char *id) {
    size_t i = slot_of(id);
    session_row *r = c->slots[i];
    if (!r || !c->dirty[i] || strcmp(r->id, id) == 0) return 0;
    if (write_row(conn, r) != 0) return -1;
    c->dirty[i] = false; /* stays in dirty_list; flush skips clean slots */
    return 0;
}

int session_cache_flush(session_cache *c, store_conn *conn) {
    for (size_t k = 0; k < c->ndirty; k++) {
        size_t i = c->dirty_list[k];
        if (!c->dirty[i]) continue;
        if (!c->slots[i] || write_row(conn, c->slots[i]) != 0) return -1;
        c->dirty[i] = false;
    }
    c->ndirty = 0;
    return 0;
}

int64_t session_cache_bytes(const session_cache *c) {
    int64_t total = 0;
    for (size_t i = 0; i < SESSION_CACHE_SLOTS; i++)
        if (c->slots[i]) total += c->slots[i]->state_bytes;
    return total;
}

void session_cache_trim(session_cache *c, int64_t max_bytes) {
    if (max_bytes <= 0) return;
    int64_t total = session_cache_bytes(c);
    if (total <= max_bytes) return;
    /* First the rows above an even share of the budget, then, if that was not enough, any
     * clean row: two walks of the slots at most, once per batch and only when over. */
    int64_t share = max_bytes / SESSION_CACHE_SLOTS;
    for (int pass = 0; pass < 2 && total > max_bytes; pass++)
        for (size_t i = 0; i < SESSION_CACHE_SLOTS && total > max_bytes; i++) {
            session_row *r = c->slots[i];
            if (!r || c->dirty[i] || (pass == 0 && r->state_bytes <= share)) continue;
            total -= r->state_bytes;
            drop(c, i);
        }
}
