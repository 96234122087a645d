/* Pending retreats in the state (state.pending, rules/vaevictis_corbach/retreat.c): copying them
 * into a new state, and the 409 retreat_pending every other action gets while one waits. Below
 * both the units (vc_begin checks it) and the retreat action, which call it. */
#include "rules/vaevictis_corbach/vc.h"

#include <string.h>

json_t *vc_pending_copy(const json_t *state) {
    json_t *p = json_object_get(state, "pending");
    return json_is_array(p) ? json_deep_copy(p) : json_array();
}

int vc_check_pending(const json_t *state, const char *retreat_unit, api_error *err) {
    const json_t *pending = json_object_get(state, "pending");
    size_t n = json_array_size(pending);
    if (n == 0) return 0;
    for (size_t i = 0; retreat_unit && i < n; i++) {
        const char *u = json_string_value(json_object_get(json_array_get(pending, i), "unit"));
        if (u && strcmp(u, retreat_unit) == 0) return 0;
    }
    const json_t *first = json_array_get(pending, 0);
    const char *u = json_string_value(json_object_get(first, "unit"));
    const char *side = json_string_value(json_object_get(first, "side"));
    api_error_set(err, 409, "retreat_pending", json_pack("{s:O}", "pending", (json_t *)pending),
                  "the session waits for %zu retreat%s: first unit '%s' of side '%s' must "
                  "retreat %lld hex(es) (action retreat)",
                  n, n > 1 ? "s" : "", u ? u : "?", side ? side : "?",
                  (long long)json_integer_value(json_object_get(first, "hexes")));
    return -1;
}
