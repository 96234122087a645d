#include "server/store_webhooks.h"

#include <stdlib.h>
#include <string.h>

int store_webhooks_replace(store_conn *c, const char *session_id, const webhook_list *list) {
    sqlite3_stmt *del = NULL, *ins = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(c->db, "DELETE FROM webhooks WHERE session_id = ?1", -1, &del, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(c->db,
                           "INSERT INTO webhooks (session_id, position, url, format) "
                           "VALUES (?1, ?2, ?3, ?4)",
                           -1, &ins, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(del, 1, session_id, -1, SQLITE_STATIC);
    if (sqlite3_step(del) != SQLITE_DONE) goto done;
    for (size_t i = 0; i < list->n; i++) {
        sqlite3_reset(ins);
        sqlite3_bind_text(ins, 1, session_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 2, (sqlite3_int64)i);
        sqlite3_bind_text(ins, 3, list->hooks[i].url, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 4, webhook_format_name(list->hooks[i].format), -1, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    return rc;
}

int store_webhooks_each(store_conn *c,
                        void (*fn)(void *arg, const char *session_id, const webhook_list *list,
                                   int64_t version),
                        void *arg) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->db,
                           "SELECT w.session_id, w.url, w.format, s.version FROM webhooks w "
                           "JOIN sessions s ON s.id = w.session_id "
                           "ORDER BY w.session_id, w.position",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    webhook_list *list = calloc(1, sizeof *list);
    char current[33] = "";
    int64_t version = 0;
    int rc = list ? 0 : -1, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sid = (const char *)sqlite3_column_text(st, 0);
        const char *url = (const char *)sqlite3_column_text(st, 1);
        const char *format = (const char *)sqlite3_column_text(st, 2);
        if (!sid || !url || !format || strlen(sid) != 32) continue;
        if (strcmp(sid, current) != 0) {
            if (current[0] && list->n) fn(arg, current, list, version);
            memset(list, 0, sizeof *list);
            memcpy(current, sid, 33);
            version = sqlite3_column_int64(st, 3);
        }
        webhook_format f;
        if (list->n == WEBHOOKS_MAX || strlen(url) > WEBHOOK_URL_MAX ||
            webhook_format_parse(format, &f) != 0)
            continue; /* not written by this daemon: skipped rather than trusted */
        memcpy(list->hooks[list->n].url, url, strlen(url) + 1);
        list->hooks[list->n].format = f;
        list->n++;
    }
    if (rc == 0 && step != SQLITE_DONE) rc = -1;
    if (rc == 0 && current[0] && list->n) fn(arg, current, list, version);
    free(list);
    sqlite3_finalize(st);
    return rc;
}
