/* Reading the fields every part of an action shares: an enumeration, a harm level, a tri-state
 * flag, a unit id, a name. Each error is a 400 invalid_field naming the field path. spec.c (the
 * attack, hit and target objects) and unit.c (the units of the setup) both read through these. */
#include "rules/magic_realm/mr.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

static const json_t *present(const json_t *obj, const char *name) {
    return rules_in_present(obj, name);
}

int mr_in_enum(const json_t *obj, const char *prefix, const char *name, bool required,
               const char *const *names, int first_value, int *out, api_error *err) {
    return rules_in_enum(obj, prefix, name, required, names, first_value, out, err);
}

int mr_in_level(const json_t *obj, const char *prefix, const char *name, bool required, int lo,
                int *out, api_error *err) {
    static const char *const all[] = {"L", "M", "H", "T", NULL};
    return mr_in_enum(obj, prefix, name, required, all + (lo - MR_L), lo, out, err);
}

int mr_in_tri(const json_t *obj, const char *prefix, const char *name, int *out, api_error *err) {
    bool b = false;
    *out = MR_UNSET;
    if (json_in_bool(obj, prefix, name, false, &b) != 0) return take(err);
    if (present(obj, name)) *out = b;
    return 0;
}

int mr_in_id(const json_t *obj, const char *prefix, const char *name, bool required, char *out,
             api_error *err) {
    const char *s = NULL;
    if (json_in_string(obj, prefix, name, required, MR_ID_MAX, &s) != 0) return take(err);
    if (!s) return 0;
    if (*s == '\0') {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, name);
        api_error_field(err, path, "a unit id");
        return -1;
    }
    snprintf(out, MR_ID_MAX + 1, "%s", s);
    return 0;
}

int mr_in_name(const json_t *obj, const char *prefix, const char *name, char *out, api_error *err) {
    const char *s = NULL;
    if (json_in_string(obj, prefix, name, false, MR_NAME_MAX, &s) != 0) return take(err);
    if (s) snprintf(out, MR_NAME_MAX + 1, "%s", s);
    return 0;
}

int mr_in_int(const json_t *obj, const char *prefix, const char *name, bool required, int lo,
              int hi, int *out, api_error *err) {
    int64_t v = *out;
    if (json_in_int(obj, prefix, name, required, lo, hi, &v) != 0) return take(err);
    *out = (int)v;
    return 0;
}
