/* Unit tests for server/live/webhook_hosts.c (a host's share of the delivery slots and the time
 * its attempts get) and server/live/webhook_clients.c (hooks counted by client). */
#include "server/live/webhook_clients.h"
#include "server/live/webhook_hosts.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

static void test_a_host_is_one_entry_while_hooks_name_it(void **state) {
    (void)state;
    webhook_hosts *t = webhook_hosts_new(10000);
    assert_non_null(t);
    webhook_host *a = webhook_hosts_acquire(t, "discord.com");
    webhook_host *b = webhook_hosts_acquire(t, "discord.com");
    webhook_host *c = webhook_hosts_acquire(t, "hooks.example.org");
    assert_ptr_equal(a, b);
    assert_ptr_not_equal(a, c);
    assert_int_equal(webhook_hosts_count(t), 2);
    assert_int_equal(a->timeout_ms, 10000);
    webhook_hosts_release(t, a);
    assert_int_equal(webhook_hosts_count(t), 2);
    webhook_hosts_release(t, b);
    assert_int_equal(webhook_hosts_count(t), 1);
    webhook_hosts_release(t, c);
    assert_int_equal(webhook_hosts_count(t), 0);
    webhook_hosts_free(t);
}

static void test_timeouts_halve_to_an_eighth_and_answers_double_back(void **state) {
    (void)state;
    webhook_hosts *t = webhook_hosts_new(10000);
    webhook_host *h = webhook_hosts_acquire(t, "tarpit.example");
    int64_t want[] = {5000, 2500, 1250, 1250, 1250};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        webhook_host_timed_out(t, h);
        assert_int_equal(h->timeout_ms, want[i]);
    }
    webhook_host_answered(t, h);
    assert_int_equal(h->timeout_ms, 2500);
    webhook_host_answered(t, h);
    webhook_host_answered(t, h);
    assert_int_equal(h->timeout_ms, 10000);
    webhook_host_answered(t, h); /* never above timeout_ms */
    assert_int_equal(h->timeout_ms, 10000);
    webhook_host_timed_out(t, h);
    webhook_host_answered(t, h);
    assert_int_equal(h->timeout_ms, 10000);
    webhook_hosts_release(t, h);
    webhook_hosts_free(t);
    /* A tiny base never reaches 0. */
    t = webhook_hosts_new(3);
    h = webhook_hosts_acquire(t, "x");
    for (int i = 0; i < 4; i++)
        webhook_host_timed_out(t, h);
    assert_int_equal(h->timeout_ms, 1);
    webhook_host_answered(t, h);
    webhook_host_answered(t, h);
    assert_int_equal(h->timeout_ms, 3);
    webhook_hosts_release(t, h);
    webhook_hosts_free(t);
}

static void test_client_keys(void **state) {
    (void)state;
    char k[WEBHOOK_CLIENT_MAX];
    webhook_client_key("203.0.113.7", k);
    assert_string_equal(k, "203.0.113.7");
    webhook_client_key("2001:db8:7:7::1", k);
    assert_string_equal(k, "2001:db8:7:7::/64");
    webhook_client_key("2001:db8:7:7:ffff:1:2:3", k);
    assert_string_equal(k, "2001:db8:7:7::/64");
    webhook_client_key("2001:db8:7:8::1", k);
    assert_string_equal(k, "2001:db8:7:8::/64");
    webhook_client_key("::1", k);
    assert_string_equal(k, "::/64");
    webhook_client_key(NULL, k);
    assert_string_equal(k, "");
    webhook_client_key("", k);
    assert_string_equal(k, "");
}

static void test_client_counts(void **state) {
    (void)state;
    webhook_clients *t = webhook_clients_new();
    assert_non_null(t);
    assert_int_equal(webhook_clients_count(t, "a"), 0);
    assert_int_equal(webhook_clients_add(t, "a", 8), 0);
    assert_int_equal(webhook_clients_add(t, "b", 3), 0);
    assert_int_equal(webhook_clients_add(t, "a", 8), 0);
    assert_int_equal(webhook_clients_count(t, "a"), 16);
    assert_int_equal(webhook_clients_count(t, "b"), 3);
    assert_int_equal(webhook_clients_size(t), 2);
    assert_int_equal(webhook_clients_add(t, "a", -8), 0);
    assert_int_equal(webhook_clients_count(t, "a"), 8);
    /* Down to 0 (or below: never negative), the client is forgotten. */
    assert_int_equal(webhook_clients_add(t, "b", -5), 0);
    assert_int_equal(webhook_clients_count(t, "b"), 0);
    assert_int_equal(webhook_clients_size(t), 1);
    assert_int_equal(webhook_clients_add(t, "c", -1), 0);
    assert_int_equal(webhook_clients_size(t), 1);
    /* No client: never counted. */
    assert_int_equal(webhook_clients_add(t, "", 5), 0);
    assert_int_equal(webhook_clients_count(t, ""), 0);
    assert_int_equal(webhook_clients_size(t), 1);
    webhook_clients_free(t); /* with "a" still counted */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_host_is_one_entry_while_hooks_name_it),
        cmocka_unit_test(test_timeouts_halve_to_an_eighth_and_answers_double_back),
        cmocka_unit_test(test_client_keys),
        cmocka_unit_test(test_client_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
