/* Units an action names, and the state after a resolution (rules/common/units.h). */
#include "rules/common/units.h"

#include <string.h>

const char *rules_acting_id(const rules_ctx *ctx, const char *needs, api_error *err) {
    const char *id = json_string_value(json_object_get(ctx->unit, "id"));
    if (!id)
        api_error_set(err, 422, "unit_required", json_pack("{s:s}", "field", "unit"),
                      "%s in field 'unit'", needs);
    return id;
}

void rules_unknown_unit(api_error *err, const char *field, const char *id) {
    api_error_set(err, 422, "unknown_unit", json_pack("{s:s, s:s}", "field", field, "unit", id),
                  "there is no unit '%s' in this session", id);
}

void rules_unit_gone(api_error *err, const char *code, const char *field, const char *noun,
                     const char *id, const char *how) {
    api_error_set(err, 409, code, json_pack("{s:s, s:s}", "field", field, "unit", id), "%s '%s' %s",
                  noun, id, how);
}

bool rules_actor_is_referee(const rules_ctx *ctx) {
    return ctx->actor && strcmp(ctx->actor, "referee") == 0;
}

int rules_check_owner(const char *actor, const char *id, const char *side, const char *field,
                      api_error *err) {
    if (!actor || strncmp(actor, "side:", 5) != 0) return 0; /* the referee */
    if (strcmp(actor + 5, side) == 0) return 0;
    api_error_set(err, 403, "forbidden", json_pack("{s:s, s:s}", "field", field, "unit", id),
                  "unit '%s' belongs to side '%s', not to %s", id, side, actor + 5);
    return -1;
}

json_t *rules_state_units_copy_new(const json_t *state, json_t **units) {
    json_t *next = json_copy((json_t *)state);
    json_t *copy = json_copy(json_object_get(state, "units"));
    if (!next || !copy || json_object_set_new(next, "units", copy) != 0) {
        json_decref(next);
        if (!next) json_decref(copy);
        return NULL;
    }
    *units = copy;
    return next;
}

int rules_outcome_take_state(rules_outcome *out, json_t *next_take, api_error *err) {
    out->new_state = next_take;
    if (out->result && out->new_state) return 0;
    rules_outcome_clear(out);
    api_error_set(err, 503, "out_of_memory", NULL, "out of memory while resolving");
    return -1;
}
