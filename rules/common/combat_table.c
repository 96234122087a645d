/* Firing and melee tables of the setup (rules/common/combat_table.h). */
#include "rules/common/combat_table.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"
#include "rules/common/notation.h"
#include "rules/common/notation_roll.h"
#include "rules/common/terms.h"

#include <stdio.h>
#include <string.h>

#define RANGE_MAX                                                                                  \
    ((int64_t)1 << 22) /* beyond any distance on the table (rules/common/tabletop.h) */

static bool known(const char *const *names, const char *s) {
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return true;
    return false;
}

static int row_error(api_error *err, const char *path, const char *what) {
    api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", path), "%s: %s", path,
                  what);
    return -1;
}

/* One row, checked, as the state keeps it (new reference, or NULL with err). */
static json_t *row_new(const json_t *row, const char *path, const char *const *unit_types,
                       bool ranged, api_error *err) {
    static const char *const ranged_keys[] = {"unit", "range", "situation", "hits", "source", NULL};
    static const char *const melee_keys[] = {"unit", "situation", "hits", "source", NULL};
    char unit[COMBAT_TABLE_TEXT_MAX] = "", situation[COMBAT_TABLE_TEXT_MAX] = "",
         hits[COMBAT_TABLE_TEXT_MAX] = "", source[256] = "", p[JSON_IN_PATH_MAX];
    if (!json_is_object(row)) {
        api_error_field(err, path, "an object with hits, and unit, range, situation, source");
        return NULL;
    }
    if (json_in_only_keys(row, path, ranged ? ranged_keys : melee_keys, err) != 0 ||
        rules_in_text(row, path, "unit", false, unit, sizeof unit, err) != 0 ||
        rules_in_text(row, path, "situation", false, situation, sizeof situation, err) != 0 ||
        rules_in_text(row, path, "source", false, source, sizeof source, err) != 0)
        return NULL;
    if (unit[0] && !known(unit_types, unit)) {
        json_in_path(p, path, "unit");
        row_error(err, p, "not a unit type of this ruleset");
        return NULL;
    }
    json_t *out = json_object();
    if (unit[0]) json_object_set_new(out, "unit", json_string(unit));
    if (situation[0]) json_object_set_new(out, "situation", json_string(situation));
    if (source[0]) json_object_set_new(out, "source", json_string(source));
    const json_t *h = json_object_get(row, "hits");
    json_in_path(p, path, "hits");
    if (json_is_integer(h) && json_integer_value(h) >= 0 && json_integer_value(h) <= 99) {
        json_object_set_new(out, "hits", json_integer(json_integer_value(h)));
    } else if (json_is_string(h) &&
               rules_in_text(row, path, "hits", true, hits, sizeof hits, err) == 0) {
        notation n;
        notation_error ne;
        if (notation_parse(hits, &n, &ne) != 0) {
            json_decref(out);
            row_error(err, p, ne.message);
            return NULL;
        }
        json_object_set_new(out, "hits", json_string(hits));
    } else {
        json_decref(out);
        if (!err->status) api_error_field(err, p, "a dice notation (\"1d6-2\") or 0-99 hits");
        return NULL;
    }
    const json_t *r = json_object_get(row, "range");
    if (r) {
        json_in_path(p, path, "range");
        json_int_t lo = json_integer_value(json_array_get(r, 0)),
                   hi = json_integer_value(json_array_get(r, 1));
        if (json_array_size(r) != 2 || !json_is_integer(json_array_get(r, 0)) ||
            !json_is_integer(json_array_get(r, 1)) || lo < 0 || hi < lo || hi > RANGE_MAX) {
            json_decref(out);
            api_error_field(err, p, "[lo, hi]: a range band, 0 <= lo <= hi");
            return NULL;
        }
        json_object_set_new(out, "range", json_pack("[I, I]", (json_int_t)lo, (json_int_t)hi));
    }
    return out;
}

int combat_table_read(const json_t *setup, const char *key, const char *const *unit_types,
                      bool ranged, json_t **out, api_error *err) {
    *out = NULL;
    const json_t *v = rules_in_present(setup, key);
    if (!v) return 0;
    char path[JSON_IN_PATH_MAX];
    json_in_path(path, "setup", key);
    if (!json_is_array(v) || json_array_size(v) == 0 ||
        json_array_size(v) > COMBAT_TABLE_ROWS_MAX) {
        api_error_field(err, path, "an array of 1-64 rows {unit?, range?, situation?, hits}");
        return -1;
    }
    json_t *t = json_array();
    size_t i;
    const json_t *row;
    json_array_foreach(v, i, row) {
        char rp[JSON_IN_PATH_MAX];
        json_in_path_index(rp, path, i);
        json_t *r = row_new(row, rp, unit_types, ranged, err);
        if (!r) {
            json_decref(t);
            return -1;
        }
        json_array_append_new(t, r);
    }
    *out = t;
    return 0;
}

int combat_tables_add(json_t *state, const json_t *setup, const char *const *unit_types,
                      api_error *err) {
    json_t *fire = NULL, *melee = NULL;
    if (combat_table_read(setup, "fire_table", unit_types, true, &fire, err) != 0 ||
        combat_table_read(setup, "melee_table", unit_types, false, &melee, err) != 0) {
        json_decref(fire);
        return -1;
    }
    if (fire) json_object_set_new(state, "fire_table", fire);
    if (melee) json_object_set_new(state, "melee_table", melee);
    return 0;
}

static bool row_matches(const json_t *row, const char *unit_type, int64_t range,
                        const char *situation) {
    const char *u = json_string_value(json_object_get(row, "unit"));
    const char *s = json_string_value(json_object_get(row, "situation"));
    const json_t *r = json_object_get(row, "range");
    if (u && strcmp(u, unit_type) != 0) return false;
    if ((s != NULL) != (situation != NULL) || (s && strcmp(s, situation) != 0)) return false;
    if (r && range >= 0 &&
        (range < json_integer_value(json_array_get(r, 0)) ||
         range > json_integer_value(json_array_get(r, 1))))
        return false;
    return true;
}

int combat_table_pick(const json_t *table, const char *name, const char *unit_type, int64_t range,
                      const char *situation, combat_pick *out, api_error *err) {
    memset(out, 0, sizeof *out);
    if (situation && !situation[0]) situation = NULL;
    size_t i;
    const json_t *row;
    json_array_foreach(table, i, row) {
        if (!row_matches(row, unit_type, range, situation)) continue;
        const json_t *h = json_object_get(row, "hits");
        out->row = (int)i;
        out->fixed = json_is_integer(h);
        out->fixed_hits = (int)json_integer_value(h);
        out->hits = json_string_value(h);
        out->source = json_string_value(json_object_get(row, "source"));
        return 0;
    }
    json_t *details = json_pack("{s:s, s:s}", "table", name, "unit_type", unit_type);
    if (range >= 0) json_object_set_new(details, "range", json_integer(range));
    if (situation) json_object_set_new(details, "situation", json_string(situation));
    api_error_set(err, 422, "no_table_row", details,
                  "the setup's %s has no row for %s%s%s%s%s: the referee adds one, or the "
                  "action names a situation the table lists",
                  name, unit_type, range >= 0 ? " at this range" : "", situation ? " (" : "",
                  situation ? situation : "", situation ? ")" : "");
    return -1;
}

int combat_plan_make(const json_t *state, const char *key, const table_measure *m,
                     const char *unit_type, int64_t range, const char *situation, bool sent,
                     const char *field, combat_plan *out, api_error *err) {
    memset(out, 0, sizeof *out);
    const json_t *table = json_object_get(state, key);
    if (!table) {
        if (!situation || !situation[0]) return 0;
        api_error_set(err, 422, "no_table", json_pack("{s:s}", "field", field),
                      "a situation reads the setup's %s, which this session has not", key);
        return -1;
    }
    if (sent) {
        api_error_set(err, 422, "hits_from_table", json_pack("{s:s}", "field", field),
                      "the setup's %s decides the hits: send no %s (name the situation, if the "
                      "table lists one)",
                      key, field);
        return -1;
    }
    if (combat_table_pick(table, key, unit_type, range, situation, &out->pick, err) != 0) return -1;
    out->from_table = true;
    combat_pick_text(table, &out->pick, unit_type, m, out->text, sizeof out->text);
    return 0;
}

int combat_pick_roll(dice_source *ds, const combat_pick *p, const char *field, int *hits,
                     api_error *err) {
    if (p->fixed) {
        *hits = p->fixed_hits;
        return 0;
    }
    int64_t total = 0;
    if (notation_roll_total(ds, p->hits, field, "hits", &total, err) != 0) return -1;
    *hits = total < 0 ? 0 : total > 99 ? 99 : (int)total;
    return 0;
}

void combat_pick_text(const json_t *table, const combat_pick *p, const char *unit_type,
                      const table_measure *m, char *buf, size_t cap) {
    const json_t *row = json_array_get(table, (size_t)p->row);
    const json_t *r = json_object_get(row, "range");
    const char *s = json_string_value(json_object_get(row, "situation"));
    char type[COMBAT_TABLE_TEXT_MAX], len[48];
    snprintf(type, sizeof type, "%s", unit_type);
    for (char *c = type; *c; c++)
        if (*c == '_') *c = ' ';
    rules_say(buf, cap, "row %d: %s", p->row + 1, type);
    if (m && r) {
        table_length_text(m, json_integer_value(json_array_get(r, 0)), len, sizeof len);
        rules_say(buf, cap, ", %s", len);
        table_length_text(m, json_integer_value(json_array_get(r, 1)), len, sizeof len);
        rules_say(buf, cap, " to %s", len);
    }
    if (s) rules_say(buf, cap, ", %s", s);
    if (p->fixed)
        rules_say(buf, cap, ", %d hit%s", p->fixed_hits, p->fixed_hits == 1 ? "" : "s");
    else
        rules_say(buf, cap, ", %s", p->hits);
    if (p->source) rules_say(buf, cap, ", %s", p->source);
}
