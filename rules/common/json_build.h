/* Building a module's JSON on the per-action path without json_pack, which parses its format
 * string on every call (it showed in the writer's profile: units written back to the state on
 * each action). Each setter adds key (a literal: not checked as UTF-8) and returns obj, so calls
 * nest: rules_set_int(rules_set_str(json_object(), "id", id), "strength", 4). A NULL obj passes
 * through and the value is freed; a value that could not be made (out of memory, which the
 * writer's allocation guard reports) is left out. */
#ifndef UMPIRE_RULES_JSON_BUILD_H
#define UMPIRE_RULES_JSON_BUILD_H

#include <jansson.h>

static inline json_t *rules_set_new(json_t *obj, const char *key, json_t *value_take) {
    json_object_set_new_nocheck(obj, key, value_take);
    return obj;
}

static inline json_t *rules_set_str(json_t *obj, const char *key, const char *value) {
    return rules_set_new(obj, key, json_string(value));
}

static inline json_t *rules_set_int(json_t *obj, const char *key, json_int_t value) {
    return rules_set_new(obj, key, json_integer(value));
}

#endif
