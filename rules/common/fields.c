/* Field readers for rules modules (rules/common/fields.h). */
#include "rules/common/fields.h"

#include "protocol/json_in.h"

#include <stdio.h>
#include <string.h>

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

const json_t *rules_in_present(const json_t *obj, const char *name) {
    const json_t *v = json_object_get(obj, name);
    return v && !json_is_null(v) ? v : NULL;
}

/* The error text is built only on failure: units are read from the state on every action. */
static int enum_fail(const char *prefix, const char *name, const char *const *names,
                     api_error *err) {
    char path[JSON_IN_PATH_MAX], expected[200] = "one of";
    json_in_path(path, prefix, name);
    for (int i = 0; names[i]; i++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s %s",
                 i ? "," : "", names[i]);
    api_error_field(err, path, expected);
    return -1;
}

int rules_in_enum(const json_t *obj, const char *prefix, const char *name, bool required,
                  const char *const *names, int first_value, int *out, api_error *err) {
    const json_t *v = rules_in_present(obj, name);
    if (!v) return required ? enum_fail(prefix, name, names, err) : 0;
    const char *s = json_string_value(v);
    for (int i = 0; s && names[i]; i++)
        if (strcmp(s, names[i]) == 0 && strlen(s) == json_string_length(v)) {
            *out = first_value + i;
            return 0;
        }
    return enum_fail(prefix, name, names, err);
}

int rules_in_int(const json_t *obj, const char *prefix, const char *name, bool required, int lo,
                 int hi, int *out, api_error *err) {
    if (!required && !rules_in_present(obj, name)) return 0;
    int64_t v = *out;
    if (json_in_int(obj, prefix, name, required, lo, hi, &v) != 0) return take(err);
    *out = (int)v;
    return 0;
}

int rules_in_bool(const json_t *obj, const char *prefix, const char *name, bool *out,
                  api_error *err) {
    if (!rules_in_present(obj, name)) return 0;
    if (json_in_bool(obj, prefix, name, false, out) != 0) return take(err);
    return 0;
}

int rules_in_text(const json_t *obj, const char *prefix, const char *name, bool required, char *out,
                  size_t cap, api_error *err) {
    const char *s = NULL;
    if (!required && !rules_in_present(obj, name)) return 0;
    if (json_in_string(obj, prefix, name, required, cap - 1, &s) != 0) return take(err);
    if (!s) return 0;
    if (*s == '\0') {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, name);
        api_error_field(err, path, "a non-empty string");
        return -1;
    }
    /* json_in_string checked the length (< cap) and that there is no NUL inside; a copy, not
     * snprintf, which parses a format on every unit of every state read. */
    memcpy(out, s, strlen(s) + 1);
    return 0;
}
