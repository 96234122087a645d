/* server/chain: the event hash of the contract (section "Events"), against hashes computed
 * independently in Python. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/audit/chain.h"

/* The known answers below were made with python3:
 *   def jcs(o): return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
 *   def h(prev, seq, ts, actor, typ, data):
 *       ev = {"seq": seq, "ts": ts, "actor": actor, "type": typ, "data": data}
 *       return hashlib.sha256((prev + "\n" + jcs(ev)).encode("utf-8")).hexdigest()
 *   h1 = h("0" * 64, 1, "2026-11-21T10:41:55.123Z", "server", "session_created", D1)
 *   h2 = h(h1, 2, "2026-11-21T10:42:00.000Z", "side:a", "roll", D2)
 * with D1 and D2 the JSON texts below (D1's commitment is hashlib.sha256(bytes(range(32)))). */
#define TS1 "2026-11-21T10:41:55.123Z"
#define TS2 "2026-11-21T10:42:00.000Z"
#define D1                                                                                         \
    "{\"ruleset\": \"generic\", \"title\": \"Caf\\u00e9 \\\"night\\\"\\n\", \"sides\": [\"a\", "   \
    "\"b\"], \"options\": {}, \"setup\": {\"units\": [{\"id\": \"u1\", \"side\": \"a\"}]}, "       \
    "\"dice\": {\"mode\": \"seeded\", \"seed\": "                                                  \
    "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\", \"commitment\": "       \
    "\"630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd\"}}"
#define D2                                                                                         \
    "{\"expr\": \"2d6+1\", \"total\": 8, \"dice\": [{\"purpose\": \"roll\", \"notation\": "        \
    "\"2d6\", \"values\": [3, 4], \"value\": 7, \"nonce\": 1}]}"
#define H1 "7ba3eb8729cfa509356aa7b2312400a116b34692cda0b9dd2ffd70ba784446e4"
#define H2 "d7fe188212999c0a54481114f94fd5910a9c51dd0950dd95b1ca16372e2527ab"

static json_t *load(const char *text) {
    json_t *v = json_loads(text, 0, NULL);
    assert_non_null(v);
    return v;
}

static void test_event1_known(void **state) {
    (void)state;
    json_t *d1 = load(D1);
    char out[65];
    assert_int_equal(
        chain_event_hash(CHAIN_ZERO_HASH, 1, TS1, "server", "session_created", d1, out), 0);
    assert_string_equal(out, H1);
    json_decref(d1);
}

static void test_two_events_chain(void **state) {
    (void)state;
    json_t *d1 = load(D1), *d2 = load(D2);
    char h1[65], h2[65];
    assert_int_equal(chain_event_hash(CHAIN_ZERO_HASH, 1, TS1, "server", "session_created", d1, h1),
                     0);
    assert_int_equal(chain_event_hash(h1, 2, TS2, "side:a", "roll", d2, h2), 0);
    assert_string_equal(h2, H2);
    /* The same event after another head hashes differently: the chain binds the order. */
    char other[65];
    assert_int_equal(chain_event_hash(CHAIN_ZERO_HASH, 2, TS2, "side:a", "roll", d2, other), 0);
    assert_string_not_equal(other, H2);
    /* data is left as it was (only referenced). */
    assert_int_equal(d2->refcount, 1);
    json_decref(d1);
    json_decref(d2);
}

/* Each hashed field, changed on its own, changes the hash. */
static void test_every_field_matters(void **state) {
    (void)state;
    json_t *d2 = load(D2);
    json_t *d2b = load("{\"expr\": \"2d6+1\", \"total\": 9, \"dice\": [{\"purpose\": \"roll\", "
                       "\"notation\": \"2d6\", \"values\": [3, 4], \"value\": 7, \"nonce\": 1}]}");
    char h[7][65];
    assert_int_equal(chain_event_hash(H1, 2, TS2, "side:a", "roll", d2, h[0]), 0);
    assert_string_equal(h[0], H2);
    assert_int_equal(chain_event_hash(H1, 3, TS2, "side:a", "roll", d2, h[1]), 0);
    assert_int_equal(
        chain_event_hash(H1, 2, "2026-11-21T10:42:00.001Z", "side:a", "roll", d2, h[2]), 0);
    assert_int_equal(chain_event_hash(H1, 2, TS2, "side:b", "roll", d2, h[3]), 0);
    assert_int_equal(chain_event_hash(H1, 2, TS2, "side:a", "rolled", d2, h[4]), 0);
    assert_int_equal(chain_event_hash(H1, 2, TS2, "side:a", "roll", d2b, h[5]), 0);
    char prev[65];
    memcpy(prev, H1, 65);
    prev[63] = prev[63] == '4' ? '5' : '4';
    assert_int_equal(chain_event_hash(prev, 2, TS2, "side:a", "roll", d2, h[6]), 0);
    for (int i = 0; i < 7; i++) {
        assert_int_equal(strlen(h[i]), 64);
        for (int j = i + 1; j < 7; j++)
            assert_string_not_equal(h[i], h[j]);
    }
    json_decref(d2);
    json_decref(d2b);
}

/* Key order inside data must not matter: the hash is of the canonical form. */
static void test_data_order_irrelevant(void **state) {
    (void)state;
    json_t *a = load("{\"x\": 1, \"y\": [\"b\", \"a\"], \"z\": {\"q\": true, \"p\": null}}");
    json_t *b = load("{\"z\": {\"p\": null, \"q\": true}, \"y\": [\"b\", \"a\"], \"x\": 1}");
    char ha[65], hb[65];
    assert_int_equal(chain_event_hash(H1, 5, TS2, "referee", "note", a, ha), 0);
    assert_int_equal(chain_event_hash(H1, 5, TS2, "referee", "note", b, hb), 0);
    assert_string_equal(ha, hb);
    json_decref(a);
    json_decref(b);
}

static void test_errors(void **state) {
    (void)state;
    json_t *real = load("{\"p\": 0.25}");
    json_t *ok = load("{}");
    char out[65] = "untouched";
    assert_int_equal(chain_event_hash(H1, 2, TS2, "server", "odds", real, out), -1);
    assert_int_equal(chain_event_hash(H1, 2, TS2, "server", "x", NULL, out), -1);
    assert_int_equal(chain_event_hash(NULL, 2, TS2, "server", "x", ok, out), -1);
    assert_int_equal(chain_event_hash("", 2, TS2, "server", "x", ok, out), -1);
    assert_int_equal(chain_event_hash("00", 2, TS2, "server", "x", ok, out), -1);
    /* Upper case hex, one digit short or one too many: not a hash the chain would have written. */
    assert_int_equal(
        chain_event_hash("7BA3EB8729CFA509356AA7B2312400A116B34692CDA0B9DD2FFD70BA784446E4", 2, TS2,
                         "server", "x", ok, out),
        -1);
    assert_int_equal(chain_event_hash(CHAIN_ZERO_HASH "0", 2, TS2, "server", "x", ok, out), -1);
    assert_int_equal(chain_event_hash(&CHAIN_ZERO_HASH[1], 2, TS2, "server", "x", ok, out), -1);
    assert_int_equal(chain_event_hash(H1, 2, NULL, "server", "x", ok, out), -1);
    assert_int_equal(chain_event_hash(H1, 2, TS2, NULL, "x", ok, out), -1);
    assert_int_equal(chain_event_hash(H1, 2, TS2, "server", NULL, ok, out), -1);
    assert_int_equal(chain_event_hash(H1, 2, TS2, "bad \xff utf-8", "x", ok, out), -1);
    assert_string_equal(out, "untouched");
    assert_int_equal(chain_event_hash(H1, 2, TS2, "server", "x", ok, out), 0);
    json_decref(real);
    json_decref(ok);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event1_known),
        cmocka_unit_test(test_two_events_chain),
        cmocka_unit_test(test_every_field_matters),
        cmocka_unit_test(test_data_order_irrelevant),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
