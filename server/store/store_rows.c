/* What the storage interface and both backends share below them: the text of a JSON column and
 * a session row's lifetime. The backends call these and nothing else of server/store/store.c. */
#include "server/store/store_backend.h"

#include "protocol/jcs.h"

#include <string.h>

char *store_dump_json_new(const json_t *v) {
    char *s = jcs_dump_new(v, NULL);
    return s ? s : json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
}

void session_row_clear(session_row *row) {
    json_decref(row->sides);
    json_decref(row->options);
    json_decref(row->state);
    json_decref(row->entropy);
    memset(row, 0, sizeof *row);
}
