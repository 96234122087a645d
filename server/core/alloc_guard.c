#include "server/core/alloc_guard.h"

#include <jansson.h>
#include <stdlib.h>

static void *(*inner_malloc)(size_t) = malloc;
static void (*inner_free)(void *) = free;
static _Thread_local bool failed;

static void *guard_malloc(size_t n) {
    void *p = inner_malloc(n);
    if (!p) failed = true;
    return p;
}

static void guard_free(void *p) {
    inner_free(p);
}

void alloc_guard_install(void) {
    json_set_alloc_funcs(guard_malloc, guard_free);
}

void alloc_guard_set_inner(void *(*m)(size_t), void (*f)(void *)) {
    inner_malloc = m;
    inner_free = f;
}

void alloc_guard_reset(void) {
    failed = false;
}

bool alloc_guard_failed(void) {
    return failed;
}
