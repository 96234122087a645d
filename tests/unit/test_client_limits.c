/* Who a request comes from (server/http/client_addr.h), how many connections each address holds
 * (server/http/peer_counts.h) and each client's token buckets (server/api/client_rates.h). */
#include "server/api/client_rates.h"
#include "server/http/client_addr.h"
#include "server/http/peer_counts.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static void resolve(const char *proxies, const char *peer, const char *xff, const char *want) {
    client_proxies p;
    assert_int_equal(client_proxies_parse(&p, proxies), 0);
    char out[CLIENT_ADDR_MAX];
    client_addr_resolve(&p, peer, xff, out);
    if (strcmp(out, want) != 0)
        fail_msg("proxies '%s', peer %s, X-Forwarded-For '%s': got %s, want %s", proxies, peer,
                 xff ? xff : "(none)", out, want);
}

static void test_the_client_behind_trusted_proxies(void **state) {
    (void)state;
    /* No trusted proxy: the header is the client's own word, and ignored. */
    resolve("", "192.0.2.1", "198.51.100.7", "192.0.2.1");
    /* The peer is a trusted proxy: the hop it appended, the last. */
    resolve("192.0.2.1", "192.0.2.1", "198.51.100.7", "198.51.100.7");
    resolve("192.0.2.1", "192.0.2.1", "203.0.113.5, 198.51.100.7", "198.51.100.7");
    /* Chains of trusted proxies are walked right to left. */
    resolve("192.0.2.0/24, 10.0.0.0/8", "192.0.2.1", "198.51.100.7, 10.1.2.3", "198.51.100.7");
    /* Every hop a trusted proxy: the leftmost. */
    resolve("192.0.2.0/24", "192.0.2.1", "192.0.2.9, 192.0.2.8", "192.0.2.9");
    /* Not the peer: a client cannot make itself trusted by naming a proxy. */
    resolve("192.0.2.1", "198.51.100.7", "192.0.2.1", "198.51.100.7");
    /* No header behind a proxy: the proxy itself. */
    resolve("192.0.2.1", "192.0.2.1", NULL, "192.0.2.1");
    /* A malformed hop ends the walk at the last good one. */
    resolve("192.0.2.1", "192.0.2.1", "198.51.100.7, not-an-ip", "192.0.2.1");
    resolve("192.0.2.1, 10.0.0.1", "192.0.2.1", "evil, 198.51.100.7, 10.0.0.1", "198.51.100.7");
    /* IPv6, written canonically whatever the header's spelling. */
    resolve("::1", "::1", " 2001:DB8:0:0::1 ", "2001:db8::1");
    resolve("fd00::/8", "fd12::3", "2001:db8::7", "2001:db8::7");
}

static void test_proxy_lists(void **state) {
    (void)state;
    client_proxies p;
    assert_int_equal(client_proxies_parse(&p, NULL), 0);
    assert_int_equal(p.count, 0);
    assert_int_equal(client_proxies_parse(&p, "10.0.0.0/8,::1 , 192.168.1.1"), 0);
    assert_int_equal(p.count, 3);
    assert_true(client_proxies_match(&p, "10.200.3.4"));
    assert_false(client_proxies_match(&p, "11.0.0.1"));
    assert_true(client_proxies_match(&p, "::1"));
    assert_false(client_proxies_match(&p, "::2"));
    assert_true(client_proxies_match(&p, "192.168.1.1"));
    assert_false(client_proxies_match(&p, "192.168.1.2"));
    assert_int_equal(client_proxies_parse(&p, "10.0.0.0/12"), 0);
    assert_true(client_proxies_match(&p, "10.15.255.255"));
    assert_false(client_proxies_match(&p, "10.16.0.0"));
    assert_int_equal(client_proxies_parse(&p, "0.0.0.0/0"), 0);
    assert_true(client_proxies_match(&p, "8.8.8.8"));
    assert_false(client_proxies_match(&p, "::1")); /* another family */
    static const char *const bad[] = {"10.0.0.1/33", "::1/129", "host", "10.0.0/8", "1.2.3.4/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(client_proxies_parse(&p, bad[i]), -1);
}

static void test_peer_counts(void **state) {
    (void)state;
    peer_counts *pc = peer_counts_new(4);
    assert_non_null(pc);
    for (int i = 0; i < 3; i++)
        assert_int_equal(peer_counts_add(pc, "192.0.2.1"), 0);
    assert_int_equal(peer_counts_add(pc, "::1"), 0);
    /* Many addresses in few buckets: chains. */
    char ip[32];
    for (int i = 0; i < 200; i++) {
        snprintf(ip, sizeof ip, "10.0.%d.%d", i / 250, i % 250);
        assert_int_equal(peer_counts_add(pc, ip), 0);
    }
    assert_int_equal(peer_counts_get(pc, "192.0.2.1"), 3);
    assert_int_equal(peer_counts_get(pc, "::1"), 1);
    assert_int_equal(peer_counts_get(pc, "10.0.0.199"), 1);
    assert_int_equal(peer_counts_get(pc, "192.0.2.2"), 0);
    peer_counts_remove(pc, "192.0.2.1");
    peer_counts_remove(pc, "::1");
    peer_counts_remove(pc, "never-counted"); /* harmless */
    assert_int_equal(peer_counts_get(pc, "192.0.2.1"), 2);
    assert_int_equal(peer_counts_get(pc, "::1"), 0);
    peer_counts_free(pc); /* frees what is still counted (ASan: no leak) */
}

static const api_rate rates[API_RATE_COUNT] = {
    [API_RATE_CREATE] = {60, 3},   /* one a second, three at once */
    [API_RATE_ACTIONS] = {600, 2}, /* one every 100 ms */
    [API_RATE_ODDS] = {0, 5},      /* never limits */
};

static void test_token_buckets(void **state) {
    (void)state;
    client_rates *cr = client_rates_new(100, rates);
    assert_non_null(cr);
    uint64_t t = 1000000;
    /* A burst of three, then wait a second for the next. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(client_rates_take(cr, "a", API_RATE_CREATE, t), 0);
    assert_int_equal(client_rates_take(cr, "a", API_RATE_CREATE, t), 1);
    assert_int_equal(client_rates_take(cr, "a", API_RATE_CREATE, t + 500), 1); /* half a token */
    assert_int_equal(client_rates_take(cr, "a", API_RATE_CREATE, t + 1000), 0);
    assert_int_equal(client_rates_take(cr, "a", API_RATE_CREATE, t + 1000), 1);
    /* Kinds and clients are apart. */
    assert_int_equal(client_rates_take(cr, "a", API_RATE_ACTIONS, t), 0);
    assert_int_equal(client_rates_take(cr, "b", API_RATE_CREATE, t), 0);
    /* Refill stops at the burst: a long silence buys no more than three. */
    t += 3600 * 1000;
    for (int i = 0; i < 3; i++)
        assert_int_equal(client_rates_take(cr, "b", API_RATE_CREATE, t), 0);
    assert_true(client_rates_take(cr, "b", API_RATE_CREATE, t) > 0);
    /* Retry-After rounds up to whole seconds: 2 tokens short at 10 a minute is 12 s. */
    const api_rate slow[API_RATE_COUNT] = {[API_RATE_VERIFY] = {10, 1}};
    client_rates *cs = client_rates_new(4, slow);
    assert_int_equal(client_rates_take(cs, "c", API_RATE_VERIFY, t), 0);
    assert_int_equal(client_rates_take(cs, "c", API_RATE_VERIFY, t), 6);
    /* No rate, or no route rate: never limited. */
    for (int i = 0; i < 100; i++) {
        assert_int_equal(client_rates_take(cr, "a", API_RATE_ODDS, t), 0);
        assert_int_equal(client_rates_take(cr, "a", API_RATE_NONE, t), 0);
    }
    client_rates_free(cs);
    client_rates_free(cr);
}

static void test_the_table_is_bounded_and_forgets_the_oldest(void **state) {
    (void)state;
    client_rates *cr = client_rates_new(16, rates);
    uint64_t t = 5000;
    char name[32];
    /* Client "old" spends its burst, then 16 others come: "old" is forgotten (its bucket is
     * full again), while the most recent ones are remembered. */
    for (int i = 0; i < 3; i++)
        client_rates_take(cr, "old", API_RATE_CREATE, t);
    assert_true(client_rates_take(cr, "old", API_RATE_CREATE, t) > 0);
    for (int i = 0; i < 16; i++) {
        snprintf(name, sizeof name, "client-%d", i);
        for (int k = 0; k < 3; k++)
            client_rates_take(cr, name, API_RATE_CREATE, t);
    }
    assert_int_equal(client_rates_count(cr), 16);
    assert_int_equal(client_rates_take(cr, "old", API_RATE_CREATE, t), 0);
    /* A recent client is still held to its bucket (client-0 went when "old" came back). */
    assert_true(client_rates_take(cr, "client-15", API_RATE_CREATE, t) > 0);
    /* Using a client keeps it: 10,000 newcomers, with client-15 seen in between, never
     * evict it. */
    for (int i = 0; i < 10000; i++) {
        snprintf(name, sizeof name, "n-%d", i);
        client_rates_take(cr, name, API_RATE_CREATE, t);
        if (i % 8 == 0) assert_true(client_rates_take(cr, "client-15", API_RATE_CREATE, t) > 0);
    }
    assert_int_equal(client_rates_count(cr), 16);
    client_rates_free(cr);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_client_behind_trusted_proxies),
        cmocka_unit_test(test_proxy_lists),
        cmocka_unit_test(test_peer_counts),
        cmocka_unit_test(test_token_buckets),
        cmocka_unit_test(test_the_table_is_bounded_and_forgets_the_oldest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
