/* Strict decoding of request JSON into typed C values. Every failure is a 400 whose details
 * name the field by its path (`setup.units[2].side`), so a bot author sees what to fix. */
#ifndef UMPIRE_JSON_IN_H
#define UMPIRE_JSON_IN_H

#include "protocol/api_error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define JSON_IN_MAX_DEPTH 64
#define JSON_IN_PATH_MAX  256

/* Parses a request body: one JSON object, no duplicate keys, nesting at most
 * JSON_IN_MAX_DEPTH. NULL with 400 invalid_json (details.position) otherwise. */
json_t *json_in_parse_object_new(const char *body, size_t len, api_error *err);

/* Writes "prefix.name" (or "name" when prefix is empty) into out. */
void json_in_path(char *out, const char *prefix, const char *name);
/* Writes "prefix[i]" into out. */
void json_in_path_index(char *out, const char *prefix, size_t i);

/* Field readers: obj[name] under the path prefix. A missing optional field leaves *out alone
 * and returns 0. Return 0, or -1 with 400 invalid_field in err. */
int json_in_string(const json_t *obj, const char *prefix, const char *name, bool required,
                   size_t max_len, const char **out);
int json_in_int(const json_t *obj, const char *prefix, const char *name, bool required, int64_t min,
                int64_t max, int64_t *out);
int json_in_bool(const json_t *obj, const char *prefix, const char *name, bool required, bool *out);
/* Borrowed references into obj. */
int json_in_object(const json_t *obj, const char *prefix, const char *name, bool required,
                   json_t **out);
int json_in_array(const json_t *obj, const char *prefix, const char *name, bool required,
                  size_t max_items, json_t **out);

/* -1 with 400 invalid_field when obj has a key not in the NULL-terminated list `allowed`. */
int json_in_only_keys(const json_t *obj, const char *prefix, const char *const *allowed,
                      api_error *err);
/* -1 with 400 invalid_field when v holds a floating-point number anywhere (event data holds
 * integers and strings only, per the contract). */
int json_in_reject_reals(const json_t *v, const char *path, api_error *err);

/* The error of the last failing reader on this thread (readers take no api_error to keep
 * call sites short; callers move it with json_in_take_error). */
void json_in_take_error(api_error *err);

#endif
