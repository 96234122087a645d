/* RFC 8785 (JSON Canonicalization Scheme) serialisation of jansson values, for the event hash of
 * the contract (section "Events"). */
#ifndef UMPIRE_JCS_H
#define UMPIRE_JCS_H

#include <stddef.h>

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

#endif
