/* What every rules module and the daemon share about a ruleset (rules/ruleset.h): looking up an
 * action, a unit of the state, clearing an outcome, and the descriptions GET /v1/rulesets
 * answers. The table of rulesets itself is rules/registry.c, which names every module; this file
 * names none, so the modules call into it and it never calls back into them. */
#include "rules/ruleset.h"

#include <string.h>

const rules_action *ruleset_action(const ruleset *rs, const char *type) {
    for (size_t i = 0; i < rs->nactions; i++)
        if (strcmp(rs->actions[i].type, type) == 0) return &rs->actions[i];
    return NULL;
}

const json_t *rules_state_unit(const json_t *state, const char *id) {
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(state, "units"), i, u) {
        const char *uid = json_string_value(json_object_get(u, "id"));
        if (uid && strcmp(uid, id) == 0) return u;
    }
    return NULL;
}

void rules_outcome_clear(rules_outcome *out) {
    json_decref(out->result);
    json_decref(out->extra_events);
    json_decref(out->new_state);
    memset(out, 0, sizeof *out);
}

json_t *ruleset_summary_new(const ruleset *rs) {
    json_t *actions = json_array();
    for (size_t i = 0; i < rs->nactions; i++)
        json_array_append_new(actions, json_string(rs->actions[i].type));
    return json_pack("{s:s, s:s, s:i, s:o}", "id", rs->id, "title", rs->title, "version",
                     rs->version, "actions", actions);
}

static json_t *fields_new(const rules_field *f) {
    json_t *list = json_array();
    for (; f && f->name; f++)
        json_array_append_new(list,
                              json_pack("{s:s, s:s, s:b, s:s}", "name", f->name, "type", f->type,
                                        "required", f->required, "description", f->description));
    return list;
}

json_t *ruleset_describe_new(const ruleset *rs) {
    json_t *actions = json_array();
    for (size_t i = 0; i < rs->nactions; i++) {
        const rules_action *a = &rs->actions[i];
        json_array_append_new(actions, json_pack("{s:s, s:s, s:o}", "type", a->type, "title",
                                                 a->title, "fields", fields_new(a->fields)));
    }
    json_t *sources = json_array();
    for (const char *const *s = rs->sources; s && *s; s++)
        json_array_append_new(sources, json_string(*s));
    return json_pack("{s:s, s:s, s:i, s:s, s:o, s:o, s:o}", "id", rs->id, "title", rs->title,
                     "version", rs->version, "description", rs->description, "actions", actions,
                     "options", fields_new(rs->options_fields), "sources", sources);
}
