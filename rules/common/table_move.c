/* A measured move on the open table (rules/common/tabletop.h): decoding, encoding, measuring.
 * Shared by the miniatures rulesets, whose move actions take the same fields. */
#include "rules/common/tabletop.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

int table_move_decode(const json_t *fields, table_move *m, api_error *err) {
    static const char *const keys[] = {"to", "path", "facing", NULL};
    json_t *path = NULL;
    m->facing = -1;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        table_pt_read(fields, "", "to", true, &m->to, err) != 0 ||
        rules_in_int(fields, "", "facing", false, 0, 359, &m->facing, err) != 0)
        return -1;
    if (json_in_array(fields, "", "path", false, TABLE_MOVE_POINTS, &path) != 0) {
        json_in_take_error(err);
        return -1;
    }
    for (size_t i = 0; i < json_array_size(path); i++) {
        /* read as a one-key object so that the point's checks apply; the error names the item */
        json_t *holder = json_pack("{s:O}", "p", json_array_get(path, i));
        int rc = holder ? table_pt_read(holder, "", "p", true, &m->path[i], err) : -1;
        json_decref(holder);
        if (rc != 0) {
            char p[JSON_IN_PATH_MAX];
            json_in_path_index(p, "path", i);
            api_error_field(err, p, "[x, y]: two integers");
            return -1;
        }
    }
    m->npath = (int)json_array_size(path);
    return 0;
}

json_t *table_move_encode(const table_move *m) {
    json_t *o = json_pack("{s:o}", "to", table_pt_json(m->to));
    if (!o) return NULL;
    if (m->npath) {
        json_t *path = json_array();
        for (int i = 0; i < m->npath; i++)
            json_array_append_new(path, table_pt_json(m->path[i]));
        json_object_set_new(o, "path", path);
    }
    if (m->facing >= 0) json_object_set_new(o, "facing", json_integer(m->facing));
    return o;
}

int64_t table_move_length(table_pt from, const table_move *m) {
    table_pt legs[TABLE_MOVE_POINTS + 1];
    for (int i = 0; i < m->npath; i++)
        legs[i] = m->path[i];
    legs[m->npath] = m->to;
    return table_path_length(from, legs, m->npath + 1);
}
