#include "server/session_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct session_cache {
    session_row *slots[SESSION_CACHE_SLOTS];
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
    session_row *copy = malloc(sizeof *copy);
    if (!copy) {
        session_row_clear(row); /* not cached: the next read goes to the database */
        return;
    }
    *copy = *row;
    memset(row, 0, sizeof *row);
    drop(c, i);
    c->slots[i] = copy;
}
