#include "protocol/decimal.h"
#include "protocol/json_in.h"

#include <stdio.h>
#include <string.h>

/* Readers report through a thread-local error so decoders read as a list of fields. The loop
 * thread and the writer thread each have their own. */
static _Thread_local api_error last_error;

static int fail_field(const char *path, const char *expected) {
    api_error_field(&last_error, path, expected);
    return -1;
}

void json_in_take_error(api_error *err) {
    json_decref(err->details);
    *err = last_error;
    memset(&last_error, 0, sizeof last_error);
}

/* Appends s at out[n], keeping to cap bytes in all; the new length. A cut never splits a UTF-8
 * sequence: the path goes into an error's details, which must stay valid JSON text (a key of
 * 300 bytes ending in 'é' once made the details vanish; found by fuzz_webhook_request). */
static size_t path_append(char *out, size_t n, size_t cap, const char *s) {
    size_t len = strlen(s);
    if (len > cap - n) {
        len = cap - n;
        while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
            len--;
    }
    memcpy(out + n, s, len);
    return n + len;
}

/* "prefix.name" (or "name"), cut to JSON_IN_PATH_MAX - 1 bytes as snprintf would cut it, without
 * snprintf: rules modules build paths while reading every unit of a state. */
void json_in_path(char *out, const char *prefix, const char *name) {
    size_t cap = JSON_IN_PATH_MAX - 1, n = 0;
    if (prefix && *prefix) {
        n = path_append(out, n, cap, prefix);
        n = path_append(out, n, cap, ".");
    }
    n = path_append(out, n, cap, name);
    out[n] = '\0';
}

void json_in_path_index(char *out, const char *prefix, size_t i) {
    char index[DECIMAL_U64_MAX + 3];
    size_t k = 0;
    index[k++] = '[';
    k += decimal_u64(index + k, i);
    index[k++] = ']';
    index[k] = '\0';
    /* "prefix[i]" as snprintf wrote it, but cut between characters like json_in_path (built for
     * every unit of a state on each action, so without snprintf) */
    size_t cap = JSON_IN_PATH_MAX - 1, n = path_append(out, 0, cap, prefix);
    n = path_append(out, n, cap, index);
    out[n] = '\0';
}

/* Nesting depth of a JSON text, counted outside strings, stopping early past the cap. jansson
 * has only a compile-time cap (2048), too deep for a request. Returns the offset where the cap
 * is exceeded, or -1. */
static long depth_exceeded_at(const char *s, size_t len) {
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > JSON_IN_MAX_DEPTH) return (long)i;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return -1;
}

json_t *json_in_parse_object_new(const char *body, size_t len, api_error *err) {
    long at = depth_exceeded_at(body, len);
    if (at >= 0) {
        api_error_set(err, 400, "invalid_json", json_pack("{s:I}", "position", (json_int_t)at),
                      "JSON nests deeper than %d levels at position %ld", JSON_IN_MAX_DEPTH, at);
        return NULL;
    }
    json_error_t je;
    /* NUL is allowed by the parser so that the field readers, which refuse it, can name the
     * field (json_in_string); every string the core copies into C goes through them. */
    json_t *v = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!v) {
        /* jansson counts the bytes it read, up to and including the offending token: point at
         * that token's last byte, or at the end when the input stopped too soon. */
        long pos = json_error_code(&je) == json_error_premature_end_of_input || je.position <= 0
                       ? (long)len
                       : (long)je.position - 1;
        if ((size_t)pos > len) pos = (long)len;
        api_error_set(err, 400, "invalid_json", json_pack("{s:I}", "position", (json_int_t)pos),
                      "malformed JSON at position %ld: %s", pos, je.text);
        return NULL;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        api_error_set(err, 400, "invalid_json", json_pack("{s:i}", "position", 0),
                      "the request body must be a JSON object");
        return NULL;
    }
    return v;
}

/* Field paths and "expected" texts are built only when a failure is reported: decoding a good
 * request (every action, on both threads) formats nothing. */

/* Reports obj[name] under prefix as not what was expected. Returns -1. */
static int fail_at(const char *prefix, const char *name, const char *expected) {
    char path[JSON_IN_PATH_MAX];
    json_in_path(path, prefix, name);
    return fail_field(path, expected);
}

static int fail_string(const char *prefix, const char *name, size_t max_len) {
    char expected[64];
    snprintf(expected, sizeof expected, "a string of at most %zu bytes", max_len);
    return fail_at(prefix, name, expected);
}

static int fail_int(const char *prefix, const char *name, int64_t min, int64_t max) {
    char expected[96];
    snprintf(expected, sizeof expected, "an integer from %lld to %lld", (long long)min,
             (long long)max);
    return fail_at(prefix, name, expected);
}

static int fail_array(const char *prefix, const char *name, size_t max_items) {
    char expected[64];
    snprintf(expected, sizeof expected, "an array of at most %zu items", max_items);
    return fail_at(prefix, name, expected);
}

/* obj[name], or NULL when absent; a null value reads as absent. */
static json_t *field_borrow(const json_t *obj, const char *name) {
    json_t *v = json_object_get(obj, name);
    return v && !json_is_null(v) ? v : NULL;
}

int json_in_string(const json_t *obj, const char *prefix, const char *name, bool required,
                   size_t max_len, const char **out) {
    json_t *v = field_borrow(obj, name);
    if (!v) return required ? fail_string(prefix, name, max_len) : 0;
    if (!json_is_string(v) || json_string_length(v) > max_len)
        return fail_string(prefix, name, max_len);
    if (strlen(json_string_value(v)) != json_string_length(v))
        return fail_at(prefix, name, "a string without NUL characters");
    *out = json_string_value(v);
    return 0;
}

int json_in_int(const json_t *obj, const char *prefix, const char *name, bool required, int64_t min,
                int64_t max, int64_t *out) {
    json_t *v = field_borrow(obj, name);
    if (!v) return required ? fail_int(prefix, name, min, max) : 0;
    if (!json_is_integer(v)) return fail_int(prefix, name, min, max);
    json_int_t i = json_integer_value(v);
    if (i < min || i > max) return fail_int(prefix, name, min, max);
    *out = (int64_t)i;
    return 0;
}

int json_in_bool(const json_t *obj, const char *prefix, const char *name, bool required,
                 bool *out) {
    json_t *v = field_borrow(obj, name);
    if (!v) return required ? fail_at(prefix, name, "true or false") : 0;
    if (!json_is_boolean(v)) return fail_at(prefix, name, "true or false");
    *out = json_is_true(v);
    return 0;
}

int json_in_object(const json_t *obj, const char *prefix, const char *name, bool required,
                   json_t **out) {
    json_t *v = field_borrow(obj, name);
    if (!v) return required ? fail_at(prefix, name, "an object") : 0;
    if (!json_is_object(v)) return fail_at(prefix, name, "an object");
    *out = v;
    return 0;
}

int json_in_array(const json_t *obj, const char *prefix, const char *name, bool required,
                  size_t max_items, json_t **out) {
    json_t *v = field_borrow(obj, name);
    if (!v) return required ? fail_array(prefix, name, max_items) : 0;
    if (!json_is_array(v) || json_array_size(v) > max_items)
        return fail_array(prefix, name, max_items);
    *out = v;
    return 0;
}

int json_in_only_keys(const json_t *obj, const char *prefix, const char *const *allowed,
                      api_error *err) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        bool known = false;
        /* The first byte before strcmp: rules modules check every unit of a state this way on
         * each action, and most names differ at once. */
        for (const char *const *a = allowed; *a && !known; a++)
            known = (*a)[0] == key[0] && strcmp(*a, key) == 0;
        if (!known) {
            char path[JSON_IN_PATH_MAX];
            json_in_path(path, prefix, key);
            api_error_set(err, 400, "invalid_field",
                          json_pack("{s:s, s:s}", "field", path, "expected", "no such field"),
                          "unknown field '%s'", path);
            return -1;
        }
    }
    return 0;
}

int json_in_reject_reals(const json_t *v, const char *path, api_error *err) {
    char sub[JSON_IN_PATH_MAX];
    if (json_is_real(v)) {
        api_error_set(err, 400, "invalid_field",
                      json_pack("{s:s, s:s}", "field", path, "expected", "an integer"),
                      "field '%s' is a floating-point number; only integers are allowed", path);
        return -1;
    }
    if (json_is_object(v)) {
        const char *key;
        json_t *m;
        json_object_foreach((json_t *)v, key, m) {
            json_in_path(sub, path, key);
            if (json_in_reject_reals(m, sub, err) != 0) return -1;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m) {
            json_in_path_index(sub, path, i);
            if (json_in_reject_reals(m, sub, err) != 0) return -1;
        }
    }
    return 0;
}
