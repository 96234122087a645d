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

/* The text (malloc'd, NUL-terminated; the caller frees it) and its length in *len (if len is
 * not NULL). NULL where json_dumps fails too (NULL value, a string that is not valid UTF-8, a
 * cycle) or without memory. */
char *json_out_compact_new(const json_t *v, size_t *len);

#endif
