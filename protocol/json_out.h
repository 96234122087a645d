/* Compact JSON text of a jansson value, for answers built on the loop thread.
 *
 * The text is byte for byte what json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) writes (members in
 * insertion order, the same escapes, integers and reals written the same way), without what
 * json_dumps spends on top of writing it: a hash table of the containers being written (one
 * snprintf("%p") and one insertion per container, to detect cycles), a callback per token and a
 * final copy. That was more than half of the cost of reading a session. Cycles, which no value
 * of ours has, are caught by a depth limit instead. */
#ifndef UMPIRE_JSON_OUT_H
#define UMPIRE_JSON_OUT_H

#include <jansson.h>
#include <stddef.h>

/* Deeper values are refused (NULL), as jansson's parser refuses deeper text. */
#define JSON_OUT_MAX_DEPTH 2048

#include <stdbool.h>

/* The text (malloc'd, NUL-terminated; the caller frees it) and its length in *len (if len is
 * not NULL). NULL where json_dumps fails too (NULL value, a string that is not valid UTF-8, a
 * cycle) or without memory. */
char *json_out_compact_new(const json_t *v, size_t *len);

/* Writing a text piece by piece, for an answer whose outer members are C values (written
 * directly instead of being packed into jansson values first):
 *     json_out o = {0};
 *     json_out_text(&o, "{\"id\":");
 *     json_out_string(&o, id);
 *     json_out_text(&o, "}");
 *     char *text = json_out_finish(&o, &len);
 * A failure anywhere (memory, invalid UTF-8) makes json_out_finish return NULL. */
typedef struct json_out {
    char *buf;
    size_t len, cap;
    bool failed;
} json_out;

/* JSON text written as it is: punctuation and member names known to need no escaping. */
void json_out_text(json_out *o, const char *text);
/* A string value (NUL-terminated), quoted and escaped as json_dumps would. */
void json_out_string(json_out *o, const char *s);
void json_out_integer(json_out *o, json_int_t v);
/* Any jansson value, as json_out_compact_new writes it. */
void json_out_value(json_out *o, const json_t *v);
/* The text (the caller frees it) and its length, or NULL if anything failed; o is reset. */
char *json_out_finish(json_out *o, size_t *len);

#endif
