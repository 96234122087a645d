/* server/audit/pending_dice: every die comes back in order with its seq, nonce, sides, value and
 * the entropy in force, past the in-memory bound (spilled) as below it; drained, it holds none;
 * a nonce out of order is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/audit/pending_dice.h"

static const char E1[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char E2[] = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

/* The die i of a run: its entropy changes every 1,000 dice (none, E1, E2, none, ...). */
static const char *entropy_of(size_t i) {
    static const char *const cycle[] = {"", E1, E2};
    return cycle[(i / 1000) % 3];
}

typedef struct expect {
    uint64_t first_nonce;
    size_t next;
    size_t stop_at; /* return 7 at this die (SIZE_MAX: never) */
} expect;

static int check_die(void *arg, int64_t seq, uint64_t nonce, int sides, int value,
                     const char *entropy) {
    expect *e = arg;
    size_t i = e->next++;
    if (i == e->stop_at) return 7;
    assert_int_equal(seq, (int64_t)(2 + i / 3));
    assert_int_equal(nonce, e->first_nonce + i);
    assert_int_equal(sides, (int)(i % 1000) + 1);
    assert_int_equal(value, (int)(i % 7));
    assert_string_equal(entropy, entropy_of(i));
    return 0;
}

static void fill(pending_dice *p, uint64_t first_nonce, size_t n) {
    for (size_t i = 0; i < n; i++)
        assert_int_equal(pending_dice_add(p, (int64_t)(2 + i / 3), first_nonce + i,
                                          (int)(i % 1000) + 1, (int)(i % 7), entropy_of(i)),
                         0);
    assert_int_equal(pending_dice_count(p), n);
}

static void run(size_t n) {
    pending_dice *p = pending_dice_new();
    assert_non_null(p);
    fill(p, 41, n);
    expect e = {41, 0, SIZE_MAX};
    assert_int_equal(pending_dice_drain(p, check_die, &e), 0);
    assert_int_equal(e.next, n);
    assert_int_equal(pending_dice_count(p), 0);
    /* and again after a drain, from another nonce */
    fill(p, 5000000, n);
    e = (expect){5000000, 0, SIZE_MAX};
    assert_int_equal(pending_dice_drain(p, check_die, &e), 0);
    assert_int_equal(e.next, n);
    pending_dice_free(p);
}

static void a_few_dice_come_back_in_order(void **state) {
    (void)state;
    run(10);
    run(2500); /* entropy changes, still in memory */
}

static void many_dice_come_back_in_order_past_the_memory_bound(void **state) {
    (void)state;
    /* 300,000 dice: 4.8 MB of records, 70 times PENDING_DICE_MEMORY */
    run(300000);
}

static void a_walk_stops_at_the_first_nonzero_answer_and_empties(void **state) {
    (void)state;
    pending_dice *p = pending_dice_new();
    fill(p, 1, 20000);
    expect e = {1, 0, 12345};
    assert_int_equal(pending_dice_drain(p, check_die, &e), 7);
    assert_int_equal(e.next, 12346);
    assert_int_equal(pending_dice_count(p), 0);
    pending_dice_free(p);
}

static void a_nonce_out_of_order_or_a_bad_die_is_refused(void **state) {
    (void)state;
    pending_dice *p = pending_dice_new();
    assert_int_equal(pending_dice_add(p, 2, 10, 6, 3, ""), 0);
    assert_int_equal(pending_dice_add(p, 2, 12, 6, 3, ""), -1); /* 11 skipped */
    assert_int_equal(pending_dice_add(p, 2, 10, 6, 3, ""), -1); /* 10 again */
    assert_int_equal(pending_dice_add(p, 2, 11, 0, 1, ""), -1); /* no sides */
    assert_int_equal(pending_dice_add(p, 2, 11, 6, 3, "not hex"), -1);
    assert_int_equal(pending_dice_count(p), 1);
    pending_dice_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_few_dice_come_back_in_order),
        cmocka_unit_test(many_dice_come_back_in_order_past_the_memory_bound),
        cmocka_unit_test(a_walk_stops_at_the_first_nonzero_answer_and_empties),
        cmocka_unit_test(a_nonce_out_of_order_or_a_bad_die_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
