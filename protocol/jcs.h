/* RFC 8785 (JSON Canonicalization Scheme) serialisation of jansson values, for the event hash of
 * the contract (section "Events"). */
#ifndef UMPIRE_JCS_H
#define UMPIRE_JCS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* RFC 8785 canonical JSON of v: object members sorted by key in UTF-16 code-unit order, no white
 * space, strings with minimal escaping (only " \\ and control chars: \b \t \n \f \r, others as
 * \u00xx lowercase), integers in decimal, true/false/null. Returns a malloc'd NUL-terminated
 * string the caller frees, and its length in *len_out (if non-NULL); NULL when v holds a real
 * (floating-point) number anywhere (event data never holds reals), when v is NULL or contains
 * itself (a cycle), or on allocation failure.
 *
 * Integers are written exactly, e.g. 9223372036854775807; RFC 8785 proper would first round
 * integers beyond 2^53 to a double, so only integers within +-2^53 are portable to other JCS
 * implementations. Strings and keys are written as the bytes jansson holds (UTF-8, which jansson
 * validates unless a *_nocheck constructor was used); NUL inside a string is written \u0000.
 * Works without recursion, so nesting depth is limited only by memory. */
char *jcs_dump_new(const json_t *v, size_t *len_out);

/* Canonical text composed piece by piece, when the caller knows the shape: the writer builds an
 * event's data and its answer from parts it already holds in canonical form, instead of building
 * a jansson object only to serialise it. The caller writes object members in RFC 8785 order
 * itself (ASCII keys: plain byte order). Any failure (memory, invalid UTF-8, a real number)
 * sticks: later calls do nothing and jcs_out_take returns NULL.
 *
 *     jcs_out o = {0};
 *     jcs_out_lit(&o, "{\"a\":"); jcs_out_int(&o, 1); jcs_out_lit(&o, "}");
 *     char *text = jcs_out_take(&o, &len);   // "{\"a\":1}", or NULL */
typedef struct jcs_out {
    char *data;
    size_t len, cap;
    int failed;
} jcs_out;

void jcs_out_raw(jcs_out *out, const char *s, size_t n);
/* jcs_out_raw of a string literal, its length counted by the compiler. */
#define jcs_out_lit(out, literal) jcs_out_raw((out), "" literal, sizeof(literal) - 1)
/* A JSON string of s[0..n) (refused unless valid UTF-8). */
void jcs_out_string(jcs_out *out, const char *s, size_t n);
void jcs_out_int(jcs_out *out, int64_t v);
/* The canonical form of v, as jcs_dump_new writes it. */
void jcs_out_value(jcs_out *out, const json_t *v);
/* The text (malloc'd, NUL-terminated; length in *len_out if non-NULL), or NULL if anything
 * failed; out is empty again either way. */
char *jcs_out_take(jcs_out *out, size_t *len_out);
void jcs_out_discard(jcs_out *out);

#endif
