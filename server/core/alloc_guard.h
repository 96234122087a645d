/* jansson reports a failed allocation deep inside json_pack, json_array_append_new or
 * json_object_set_new only by a missing element: the value is built, just incomplete. A 200
 * built on such a value would acknowledge a wrong event. So every jansson allocation goes
 * through this guard, which remembers, per thread, that one failed; the writer checks it for
 * each job (and rolls the job back), the loop thread for each request (and answers 503, not a
 * misleading 4xx). */
#ifndef UMPIRE_ALLOC_GUARD_H
#define UMPIRE_ALLOC_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Installs the guard as jansson's allocator. Call once, before any thread starts. */
void alloc_guard_install(void);
/* The allocator the guard calls (default malloc/free); the fault tests put theirs here. */
void alloc_guard_set_inner(void *(*inner_malloc)(size_t), void (*inner_free)(void *));
/* This thread: forget / tell whether a jansson allocation failed since the last reset. */
void alloc_guard_reset(void);
bool alloc_guard_failed(void);

#endif
