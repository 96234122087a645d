/* server/dice_fair: the contract's die (section "Dice"). The word-to-face mapping is checked
 * exhaustively for S = 6 and by arithmetic at its edges for every S up to 1000; dice_fair_roll is
 * checked against answers computed independently in Python. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "server/dice/dice_fair.h"

#define SPAN (UINT64_C(1) << 32)

/* A quarter of the word space counted by one thread: faces 1..6 in counts[1..6], anything else
 * (face 0 or above 6) in counts[0]. */
typedef struct d6_quarter {
    uint32_t first;
    uint64_t counts[7];
    uint64_t rejected;
} d6_quarter;

static void *count_d6_quarter(void *arg) {
    d6_quarter *q = arg;
    uint64_t counts[7] = {0}, rejected = 0; /* local: no cache line shared between threads */
    uint32_t w = q->first;
    for (uint64_t i = 0; i < SPAN / 4; i++, w++) {
        uint32_t face = 0;
        if (dice_fair_accept(w, 6, &face))
            counts[face < 7 ? face : 0]++;
        else
            rejected++;
    }
    memcpy(q->counts, counts, sizeof counts);
    q->rejected = rejected;
    return NULL;
}

/* Every one of the 2^32 words through dice_fair_accept with S = 6: each face must be accepted
 * exactly (2^32 - 2^32 mod 6) / 6 times and exactly 2^32 mod 6 words rejected. Four threads
 * share the work: about 16 s of CPU with -O1 and ASan/UBSan, so about 8 s on two cores. */
static void test_accept_exhaustive_d6(void **state) {
    (void)state;
    d6_quarter q[4];
    pthread_t th[4];
    memset(q, 0, sizeof q);
    for (int i = 0; i < 4; i++) {
        q[i].first = (uint32_t)(i * (SPAN / 4));
        assert_int_equal(pthread_create(&th[i], NULL, count_d6_quarter, &q[i]), 0);
    }
    uint64_t counts[7] = {0}, rejected = 0;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        for (int f = 0; f < 7; f++)
            counts[f] += q[i].counts[f];
        rejected += q[i].rejected;
    }
    const uint64_t per_face = (SPAN - SPAN % 6) / 6;
    assert_int_equal(per_face, 715827882);
    assert_int_equal(counts[0], 0); /* no face 0 and none above 6 */
    for (int f = 1; f <= 6; f++)
        assert_int_equal(counts[f], per_face);
    assert_int_equal(rejected, SPAN % 6);
    assert_int_equal(rejected, 4);
    /* The four rejected words are the top four. */
    uint32_t face = 0;
    for (uint32_t w = UINT32_MAX - 3; w != 0; w++)
        assert_int_equal(dice_fair_accept(w, 6, &face), 0);
    assert_int_equal(dice_fair_accept(UINT32_MAX - 4, 6, &face), 1);
    assert_int_equal(face, 6);
}

/* Words checked one by one at each edge; all of them for S <= 1000, where the rejected tail is
 * shorter than S. */
#define EDGE 4096

/* The accept bound of S sides checked at its edges: it is a multiple of S, the S words just below
 * it are accepted with faces 1..S in order, the words from it to 2^32 - 1 are rejected, and the
 * first S words give faces 1..S. Since the face is 1 + (w mod S) below the bound, each face is
 * then accepted by exactly bound / S words: for face f, w = f - 1 + k*S for k < bound / S is
 * accepted and the next such word is not. (For S > EDGE only EDGE words at each edge.) */
static void check_sides(uint32_t sides) {
    const uint64_t bound = SPAN - SPAN % sides;
    const uint64_t per_face = bound / sides;
    assert_true(bound % sides == 0);
    assert_true(bound > SPAN / 2); /* a word is rejected with probability below 1/2 */
    assert_true(per_face * sides == bound);
    uint32_t face = 0;
    uint64_t below = sides < EDGE ? sides : EDGE;
    for (uint64_t w = bound - below; w < bound; w++) {
        assert_int_equal(dice_fair_accept((uint32_t)w, sides, &face), 1);
        assert_int_equal(face, 1 + w % sides);
    }
    assert_int_equal(face, sides); /* the last accepted word gives the top face */
    for (uint64_t w = bound; w < SPAN && w < bound + EDGE; w++) {
        face = 12345;
        assert_int_equal(dice_fair_accept((uint32_t)w, sides, &face), 0);
        assert_int_equal(face, 12345);
    }
    face = 0;
    assert_int_equal(dice_fair_accept(UINT32_MAX, sides, &face), bound == SPAN);
    for (uint32_t w = 0; w < below; w++) {
        assert_int_equal(dice_fair_accept(w, sides, &face), 1);
        assert_int_equal(face, w + 1);
    }
    for (uint32_t f = 1; f <= below; f++) {
        uint64_t last = (f - 1) + (per_face - 1) * sides;
        assert_int_equal(dice_fair_accept((uint32_t)last, sides, &face), 1);
        assert_int_equal(face, f);
        uint64_t next = last + sides;
        if (next < SPAN) assert_int_equal(dice_fair_accept((uint32_t)next, sides, &face), 0);
    }
}

static void test_accept_bounds_1_to_1000(void **state) {
    (void)state;
    for (uint32_t s = 1; s <= 1000; s++)
        check_sides(s);
    /* Powers of two divide 2^32: nothing is rejected. */
    uint32_t face = 0;
    assert_int_equal(dice_fair_accept(UINT32_MAX, 1, &face), 1);
    assert_int_equal(face, 1);
    assert_int_equal(dice_fair_accept(UINT32_MAX, 1024, &face), 1);
    assert_int_equal(face, 1024);
}

static void test_accept_large_sides(void **state) {
    (void)state;
    const uint32_t big[] = {0x80000000u, 0x80000001u, 0xC0000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        check_sides(big[i]);
    uint32_t face = 0;
    /* S = 2^31 + 1: 2^32 mod S = 2^31 - 1, so only words below 2^31 + 1 are accepted. */
    assert_int_equal(dice_fair_accept(0x80000000u, 0x80000001u, &face), 1);
    assert_int_equal(face, 0x80000001u);
    assert_int_equal(dice_fair_accept(0x80000001u, 0x80000001u, &face), 0);
    /* S = 2^32 - 1: only the all-ones word is rejected. */
    assert_int_equal(dice_fair_accept(0xFFFFFFFEu, 0xFFFFFFFFu, &face), 1);
    assert_int_equal(face, 0xFFFFFFFFu);
    assert_int_equal(dice_fair_accept(0xFFFFFFFFu, 0xFFFFFFFFu, &face), 0);
    assert_int_equal(dice_fair_accept(7, 0, &face), 0);
}

/* Known answers made with python3 (hmac, hashlib, struct), independent of this code:
 *   def roll(seed, sid, n, S):
 *       k = 0
 *       while True:
 *           msg = f"{sid}:{n}" if k == 0 else f"{sid}:{n}:{k}"
 *           mac = hmac.new(seed, msg.encode(), hashlib.sha256).digest()
 *           for w in struct.unpack(">8I", mac):
 *               if w < 2**32 - (2**32 % S):
 *                   return 1 + w % S, k
 *           k += 1
 *   seed = bytes(range(32)); sid = "s_test"
 *   [roll(seed, sid, n, S)[0] for n in range(1, 11)] for S in (6, 20, 1000, 2**32 - 1) */
static void seed_0_to_31(uint8_t seed[32]) {
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)i;
}

static void test_roll_known_answers(void **state) {
    (void)state;
    uint8_t seed[32];
    seed_0_to_31(seed);
    static const uint32_t d6[10] = {2, 4, 3, 1, 2, 2, 4, 6, 6, 1};
    static const uint32_t d20[10] = {12, 10, 13, 13, 4, 12, 8, 4, 12, 13};
    static const uint32_t d1000[10] = {992, 50, 373, 353, 464, 352, 808, 224, 932, 333};
    static const uint32_t dmax[10] = {944313992u,  4277375050u, 97154373u, 1558385353u, 915999464u,
                                      2138080352u, 12090808u,   57511224u, 792328932u,  302080333u};
    for (uint64_t n = 1; n <= 10; n++) {
        assert_int_equal(dice_fair_roll(seed, "s_test", n, 6), d6[n - 1]);
        assert_int_equal(dice_fair_roll(seed, "s_test", n, 20), d20[n - 1]);
        assert_int_equal(dice_fair_roll(seed, "s_test", n, 1000), d1000[n - 1]);
        assert_int_equal(dice_fair_roll(seed, "s_test", n, 0xFFFFFFFFu), dmax[n - 1]);
    }
    assert_int_equal(dice_fair_roll(seed, "s_test", 1, 1), 1);
    assert_int_equal(dice_fair_roll(seed, "s_test", 1, 0), 0);
}

/* The retry path. With S = 2^31 + 1 a word is rejected with probability just under 1/2, so about
 * one nonce in 256 needs "<sid>:<n>:1". Found with the python above over nonces 1..400000, same
 * seed and session id: nonce 88 is the first needing ":1" (its eight words from "s_test:88" are
 * 83341f91 a6594fff cce6d47a d8c46fd9 b0f6551d 84acd852 8ebd6a40 e0b1f651, all >= 0x80000001),
 * and nonce 33672 the first needing ":2". */
static void test_roll_retry(void **state) {
    (void)state;
    uint8_t seed[32];
    seed_0_to_31(seed);
    const uint32_t s = 0x80000001u;
    assert_int_equal(dice_fair_roll(seed, "s_test", 88, s), 597917169u);
    assert_int_equal(dice_fair_roll(seed, "s_test", 760, s), 1986682909u);
    assert_int_equal(dice_fair_roll(seed, "s_test", 33672, s), 1944271845u);
}

/* Session ids too long for the stack buffer take the heap path and still give the contract's
 * answers; made with the python above: roll(bytes(range(32)), "x" * 300, 7, S)[0] for S 6, 1000. */
static void test_roll_long_session_id(void **state) {
    (void)state;
    uint8_t seed[32];
    seed_0_to_31(seed);
    char sid[301];
    memset(sid, 'x', 300);
    sid[300] = '\0';
    assert_int_equal(dice_fair_roll(seed, sid, 7, 6), 3);
    assert_int_equal(dice_fair_roll(seed, sid, 7, 1000), 119);
}

/* Players' entropy in force (contract, Dice): the message is "<sid>:<n>:<c>", retries append
 * ":<k>". Made with the python above, the message built as f"{sid}:{n}:{c}" + (f":{k}" if k
 * else ""), c = "ab" * 32: d6 and d1000 for nonces 1..10, the first nonce needing a retry for
 * S = 2^31 + 1 (1072), and a session id long enough for the heap path. NULL and "" are the
 * plain formula. */
static void test_roll_with_players_entropy(void **state) {
    (void)state;
    uint8_t seed[32];
    seed_0_to_31(seed);
    char c[65];
    for (int i = 0; i < 32; i++)
        memcpy(c + 2 * i, "ab", 2);
    c[64] = '\0';
    static const uint32_t d6[10] = {6, 4, 5, 1, 5, 2, 3, 1, 3, 2};
    static const uint32_t d1000[10] = {570, 376, 795, 763, 97, 180, 689, 669, 947, 414};
    for (uint64_t n = 1; n <= 10; n++) {
        assert_int_equal(dice_fair_roll_mixed(seed, "s_test", n, c, 6), d6[n - 1]);
        assert_int_equal(dice_fair_roll_mixed(seed, "s_test", n, c, 1000), d1000[n - 1]);
        assert_int_equal(dice_fair_roll_mixed(seed, "s_test", n, NULL, 6),
                         dice_fair_roll(seed, "s_test", n, 6));
        assert_int_equal(dice_fair_roll_mixed(seed, "s_test", n, "", 1000),
                         dice_fair_roll(seed, "s_test", n, 1000));
    }
    assert_int_equal(dice_fair_roll_mixed(seed, "s_test", 1072, c, 0x80000001u), 982489592u);
    char sid[301];
    memset(sid, 'x', 300);
    sid[300] = '\0';
    assert_int_equal(dice_fair_roll_mixed(seed, sid, 7, c, 6), 4);
    assert_int_equal(dice_fair_roll_mixed(seed, sid, 7, c, 1000), 132);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roll_with_players_entropy),
        cmocka_unit_test(test_accept_exhaustive_d6),
        cmocka_unit_test(test_accept_bounds_1_to_1000),
        cmocka_unit_test(test_accept_large_sides),
        cmocka_unit_test(test_roll_known_answers),
        cmocka_unit_test(test_roll_retry),
        cmocka_unit_test(test_roll_long_session_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
