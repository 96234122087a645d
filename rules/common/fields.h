/* Field readers for rules modules: protocol/json_in.h's readers with the error moved into the
 * caller's api_error at once, plus enumerations and bounded names. Every failure is a 400
 * invalid_field naming the field path. A null value reads as absent. */
#ifndef UMPIRE_RULES_FIELDS_H
#define UMPIRE_RULES_FIELDS_H

#include "protocol/api_error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* obj[name] unless it is missing or null (borrowed). */
const json_t *rules_in_present(const json_t *obj, const char *name);
/* One of the NULL-terminated names: *out = first_value + its index. */
int rules_in_enum(const json_t *obj, const char *prefix, const char *name, bool required,
                  const char *const *names, int first_value, int *out, api_error *err);
int rules_in_int(const json_t *obj, const char *prefix, const char *name, bool required, int lo,
                 int hi, int *out, api_error *err);
int rules_in_bool(const json_t *obj, const char *prefix, const char *name, bool *out,
                  api_error *err);
/* A string of 1..cap-1 bytes copied into out (cap bytes). */
int rules_in_text(const json_t *obj, const char *prefix, const char *name, bool required, char *out,
                  size_t cap, api_error *err);

#endif
