#include "server/store/db_transfer.h"

#include "server/audit/verify.h"
#include "server/store/store.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (256L * 1024 * 1024) /* a session's state is far smaller */
#define VERIFY_PAGE    500

typedef struct export_ctx {
    FILE *out;
    const char *table;
    long rows;
} export_ctx;

static int export_row(void *arg, const json_t *row) {
    export_ctx *x = arg;
    json_t *line = json_pack("{s:s, s:O}", "table", x->table, "row", row);
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(line);
    int rc = text && fprintf(x->out, "%s\n", text) > 0 ? 0 : -1;
    free(text);
    if (rc == 0) x->rows++;
    return rc;
}

int db_export(const char *db, FILE *out, FILE *report, char *err, size_t errlen) {
    store_conn *c = store_conn_open(db, "full", 5000, err, errlen);
    if (!c) return -1;
    int rc = -1;
    /* One snapshot: a daemon writing meanwhile cannot tear a session between two tables. */
    if (store_migrate(c, err, errlen) < 0) goto done;
    if (store_tx(c, STORE_TX_SNAPSHOT) != 0) {
        snprintf(err, errlen, "cannot start a read transaction: %s", store_errmsg(c));
        goto done;
    }
    json_t *tables = json_array();
    for (int i = 0; store_dump_tables[i]; i++)
        json_array_append_new(tables, json_string(store_dump_tables[i]));
    json_t *head = json_pack("{s:i, s:o}", "umpire_export", 1, "tables", tables);
    char *text = head ? json_dumps(head, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(head);
    if (!text || fprintf(out, "%s\n", text) < 0) {
        free(text);
        snprintf(err, errlen, "cannot write the export");
        goto done;
    }
    free(text);
    export_ctx x = {.out = out};
    for (int i = 0; store_dump_tables[i]; i++) {
        x.table = store_dump_tables[i];
        long before = x.rows;
        if (store_dump_table(c, x.table, export_row, &x) != 0) {
            snprintf(err, errlen, "cannot export table %s: %s", x.table, store_errmsg(c));
            goto done;
        }
        fprintf(report, "exported %s: %ld rows\n", x.table, x.rows - before);
    }
    if (fprintf(out, "{\"end\":true,\"rows\":%ld}\n", x.rows) < 0 || fflush(out) != 0) {
        snprintf(err, errlen, "cannot write the export");
        goto done;
    }
    rc = 0;
done:
    if (c) store_tx(c, STORE_TX_COMMIT);
    store_conn_close(c);
    return rc;
}

/* Audits one imported session as GET /verify does, reading it back from the target. */
static int verify_session(store_conn *c, const char *id, FILE *report, char *err, size_t errlen) {
    session_row s;
    if (store_session_get(c, id, &s) != 1) {
        snprintf(err, errlen, "session %s cannot be read back", id);
        return -1;
    }
    verifier *v = verifier_new();
    int64_t after = 0;
    for (;;) {
        json_t *page = v ? store_events_page_new(c, id, after, VERIFY_PAGE) : NULL;
        if (!page) {
            snprintf(err, errlen, "session %s: its events cannot be read back", id);
            verifier_free(v);
            session_row_clear(&s);
            return -1;
        }
        size_t i, n = json_array_size(page);
        json_t *ev;
        json_array_foreach(page, i, ev) {
            verifier_feed(v, ev);
            after = json_integer_value(json_object_get(ev, "seq"));
        }
        json_decref(page);
        if (n < VERIFY_PAGE) break;
    }
    verifier_finish(v, s.version, s.head);
    verifier_check_dice_state(v, s.next_nonce, s.entropy_digest,
                              strcmp(s.manual_by, "referee") == 0);
    int rc = 0;
    if (!verifier_ok(v)) {
        json_t *r = verifier_report_new(v);
        snprintf(err, errlen, "session %s does not verify: %s (event %lld)", id,
                 json_string_value(json_object_get(r, "reason")) ?: "?",
                 (long long)json_integer_value(json_object_get(r, "first_bad_seq")));
        json_decref(r);
        rc = -1;
    } else {
        fprintf(report, "session %s: version %lld, head %s verified\n", id, (long long)s.version,
                s.head);
    }
    verifier_free(v);
    session_row_clear(&s);
    return rc;
}

int db_import(const char *db, FILE *in, FILE *report, char *err, size_t errlen) {
    store_conn *c = store_conn_open(db, "full", 5000, err, errlen);
    if (!c) return -1;
    int rc = -1;
    bool began = false, ended = false, headed = false;
    long rows = 0, lineno = 0;
    json_t *ids = json_array();       /* imported sessions, in file order */
    json_t *imported = json_object(); /* the same, as a set */
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    if (store_migrate(c, err, errlen) < 0) goto done;
    if (store_tx(c, STORE_TX_BEGIN) != 0) {
        snprintf(err, errlen, "cannot start a transaction: %s", store_errmsg(c));
        goto done;
    }
    began = true;
    while ((len = getline(&line, &cap, in)) > 0) {
        lineno++;
        if (ended) {
            snprintf(err, errlen, "line %ld: data after the end line", lineno);
            goto done;
        }
        if (len > LINE_MAX_BYTES) {
            snprintf(err, errlen, "line %ld: longer than %ld bytes", lineno, LINE_MAX_BYTES);
            goto done;
        }
        json_error_t je;
        json_t *obj = json_loadb(line, (size_t)len, 0, &je);
        if (!json_is_object(obj)) {
            json_decref(obj);
            snprintf(err, errlen, "line %ld: not a JSON object (%s)", lineno, je.text);
            goto done;
        }
        if (!headed) {
            headed = json_integer_value(json_object_get(obj, "umpire_export")) == 1;
            json_decref(obj);
            if (!headed) {
                snprintf(err, errlen, "line 1: not an umpired export (no \"umpire_export\": 1)");
                goto done;
            }
            continue;
        }
        if (json_is_true(json_object_get(obj, "end"))) {
            long want = (long)json_integer_value(json_object_get(obj, "rows"));
            json_decref(obj);
            if (want != rows) {
                snprintf(err, errlen, "the end line counts %ld rows, the file has %ld", want, rows);
                goto done;
            }
            ended = true;
            continue;
        }
        const char *table = json_string_value(json_object_get(obj, "table"));
        const json_t *row = json_object_get(obj, "row");
        const char *owner = json_string_value(json_object_get(row, "session_id"));
        /* Every row belongs to a session of this file: a token, an event or a key added to a
         * session already in the target would bypass the audit below. */
        if (table && strcmp(table, "sessions") != 0 &&
            (!owner || !json_object_get(imported, owner))) {
            snprintf(err, errlen,
                     "line %ld: a %s row of session %.40s, which this file does not create", lineno,
                     table, owner ? owner : "(none)");
            json_decref(obj);
            goto done;
        }
        if (!table || store_load_row(c, table, row) != 0) {
            snprintf(err, errlen, "line %ld: cannot import this %s row: %s", lineno,
                     table ? table : "(no table)", table ? store_errmsg(c) : "no \"table\"");
            json_decref(obj);
            goto done;
        }
        const char *sid = json_string_value(json_object_get(row, "id"));
        if (strcmp(table, "sessions") == 0 && sid) {
            json_array_append_new(ids, json_string(sid));
            json_object_set_new(imported, sid, json_true());
        }
        rows++;
        json_decref(obj);
    }
    if (!ended) {
        snprintf(err, errlen, "the file ends before its end line (cut off?): nothing imported");
        goto done;
    }
    size_t i;
    json_t *id;
    json_array_foreach(ids, i, id) {
        /* The bytes a session's events hold are counted here, whatever the file said (an
         * export made before migration 0004 says nothing): limits.max_session_bytes reads them. */
        if (store_session_recount_bytes(c, json_string_value(id)) != 0) {
            snprintf(err, errlen, "session %s: cannot count its bytes: %s", json_string_value(id),
                     store_errmsg(c));
            goto done;
        }
        if (verify_session(c, json_string_value(id), report, err, errlen) != 0) goto done;
    }
    if (store_tx(c, STORE_TX_COMMIT) != 0) {
        snprintf(err, errlen, "commit failed: %s", store_errmsg(c));
        began = false;
        goto done;
    }
    began = false;
    fprintf(report, "imported %ld rows, %zu sessions, every chain verified\n", rows,
            json_array_size(ids));
    rc = 0;
done:
    if (began) store_tx(c, STORE_TX_ROLLBACK);
    free(line);
    json_decref(ids);
    json_decref(imported);
    store_conn_close(c);
    return rc;
}
