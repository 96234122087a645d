/* Unit tests for server/live/webhook_policy.c: which URLs a webhook may name and which addresses it
 * may connect to, and for protocol/webhook_request.c: the shape of the PUT body. */
#include "protocol/webhook_request.h"
#include "server/live/webhook_policy.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

static webhook_policy policy(const char *hosts, bool allow_private) {
    webhook_policy p;
    char err[128];
    if (webhook_policy_init(&p, hosts, allow_private, err, sizeof err) != 0)
        fail_msg("policy '%s' refused: %s", hosts, err);
    return p;
}

static webhook_url_verdict check(const webhook_policy *p, const char *url, char *host,
                                 bool *private_ok) {
    static char h[WEBHOOK_HOST_MAX];
    bool po = false;
    webhook_url_verdict v =
        webhook_policy_check_url(p, url, host ? host : h, WEBHOOK_HOST_MAX, &po);
    if (private_ok) *private_ok = po;
    return v;
}

static void test_hosts_listed_and_wildcards(void **state) {
    (void)state;
    webhook_policy p = policy("discord.com, *.discord.com , Hooks.Example.org.", false);
    char host[WEBHOOK_HOST_MAX];
    assert_int_equal(check(&p, "https://discord.com/api/webhooks/1/x", host, NULL), WEBHOOK_URL_OK);
    assert_string_equal(host, "discord.com");
    assert_int_equal(check(&p, "https://ptb.discord.com/api/webhooks/1/x", NULL, NULL),
                     WEBHOOK_URL_OK);
    assert_int_equal(check(&p, "https://DISCORD.COM./x", NULL, NULL), WEBHOOK_URL_OK);
    assert_int_equal(check(&p, "http://hooks.example.org:8080/x", NULL, NULL), WEBHOOK_URL_OK);
    /* a suffix that is not a subdomain, and a look-alike */
    assert_int_equal(check(&p, "https://evildiscord.com/x", host, NULL), WEBHOOK_URL_NOT_ALLOWED);
    assert_string_equal(host, "evildiscord.com");
    assert_int_equal(check(&p, "https://discord.com.evil.net/x", NULL, NULL),
                     WEBHOOK_URL_NOT_ALLOWED);
    assert_int_equal(check(&p, "https://example.org/x", NULL, NULL), WEBHOOK_URL_NOT_ALLOWED);
    /* an empty list allows nothing */
    webhook_policy none = policy("", false);
    assert_int_equal(check(&none, "https://discord.com/x", NULL, NULL), WEBHOOK_URL_NOT_ALLOWED);
}

static void test_bad_urls(void **state) {
    (void)state;
    webhook_policy p = policy("discord.com", false);
    assert_int_equal(check(&p, "ftp://discord.com/x", NULL, NULL), WEBHOOK_URL_BAD);
    assert_int_equal(check(&p, "https://user:pw@discord.com/x", NULL, NULL), WEBHOOK_URL_BAD);
    assert_int_equal(check(&p, "https://user@discord.com/x", NULL, NULL), WEBHOOK_URL_BAD);
    assert_int_equal(check(&p, "http://:80/x", NULL, NULL), WEBHOOK_URL_BAD);
    assert_int_equal(check(&p, "discord.com/x", NULL, NULL), WEBHOOK_URL_BAD);
}

static void test_ip_literals_listed_may_be_inside(void **state) {
    (void)state;
    webhook_policy p = policy("127.0.0.1,[::1],localhost", false);
    bool po = false;
    assert_int_equal(check(&p, "http://127.0.0.1:9/x", NULL, &po), WEBHOOK_URL_OK);
    assert_true(po); /* the operator named the address itself */
    assert_int_equal(check(&p, "http://[::1]:9/x", NULL, &po), WEBHOOK_URL_OK);
    assert_true(po);
    assert_int_equal(check(&p, "http://localhost:9/x", NULL, &po), WEBHOOK_URL_OK);
    assert_false(po); /* a name: its address is checked when connecting */
    webhook_policy open = policy("localhost", true);
    assert_int_equal(check(&open, "http://localhost:9/x", NULL, &po), WEBHOOK_URL_OK);
    assert_true(po);
    /* a wildcard never matches an address */
    webhook_policy wild = policy("*.0.0.1", false);
    assert_int_equal(check(&wild, "http://127.0.0.1/x", NULL, NULL), WEBHOOK_URL_NOT_ALLOWED);
}

static bool inside4(const char *ip) {
    struct sockaddr_in a = {.sin_family = AF_INET};
    assert_int_equal(inet_pton(AF_INET, ip, &a.sin_addr), 1);
    return webhook_address_is_inside((const struct sockaddr *)&a);
}

static bool inside6(const char *ip) {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6};
    assert_int_equal(inet_pton(AF_INET6, ip, &a.sin6_addr), 1);
    return webhook_address_is_inside((const struct sockaddr *)&a);
}

static void test_inside_addresses(void **state) {
    (void)state;
    const char *in4[] = {"127.0.0.1",   "10.1.2.3",        "172.16.0.1", "172.31.255.255",
                         "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
                         "224.0.0.1",   "255.255.255.255"};
    for (size_t i = 0; i < sizeof in4 / sizeof in4[0]; i++)
        if (!inside4(in4[i])) fail_msg("%s should be inside", in4[i]);
    const char *out4[] = {"8.8.8.8", "172.32.0.1", "100.128.0.1", "162.159.135.232", "11.0.0.1"};
    for (size_t i = 0; i < sizeof out4 / sizeof out4[0]; i++)
        if (inside4(out4[i])) fail_msg("%s should be outside", out4[i]);
    const char *in6[] = {"::1",
                         "::",
                         "fe80::1",
                         "fc00::1",
                         "fd12:3456::1",
                         "ff02::1",
                         "::ffff:127.0.0.1",
                         "::ffff:10.0.0.1",
                         "::127.0.0.1",
                         "64:ff9b::a9fe:a9fe",
                         "64:ff9b:1::8.8.8.8",
                         "2002:7f00:1::1",
                         "2002:a00:1::",
                         "fec0::1"};
    for (size_t i = 0; i < sizeof in6 / sizeof in6[0]; i++)
        if (!inside6(in6[i])) fail_msg("%s should be inside", in6[i]);
    const char *out6[] = {"2606:4700::6810:84e5", "::ffff:8.8.8.8", "64:ff9b::808:808",
                          "2002:808:808::1"};
    for (size_t i = 0; i < sizeof out6 / sizeof out6[0]; i++)
        if (inside6(out6[i])) fail_msg("%s should be outside", out6[i]);
}

static void test_policy_refuses_bad_entries(void **state) {
    (void)state;
    webhook_policy p;
    char err[128];
    assert_int_equal(webhook_policy_init(&p, "ok.com,bad host", false, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad host"));
    assert_int_equal(webhook_policy_init(&p, "a.*.com", false, err, sizeof err), -1);
    assert_int_equal(webhook_policy_init(&p, "*", false, err, sizeof err), -1);
}

/* ---- the PUT body ---- */

static int decode(const char *text, webhook_list *out, const char *field_expected) {
    json_t *body = json_loads(text, 0, NULL);
    assert_non_null(body);
    api_error e = {0};
    int rc = webhook_list_decode(body, out, &e);
    json_decref(body);
    if (field_expected) {
        assert_int_equal(rc, -1);
        assert_int_equal(e.status, 400);
        const char *field = json_string_value(json_object_get(e.details, "field"));
        if (!field || strcmp(field, field_expected) != 0)
            fail_msg("expected field %s, got %s", field_expected, field ? field : "(none)");
    }
    api_error_clear(&e);
    return rc;
}

static void test_decode(void **state) {
    (void)state;
    static webhook_list l;
    assert_int_equal(decode("{\"webhooks\":[{\"url\":\"https://discord.com/a\"},"
                            "{\"url\":\"http://x/b\",\"format\":\"event\"}]}",
                            &l, NULL),
                     0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.hooks[0].url, "https://discord.com/a");
    assert_int_equal(l.hooks[0].format, WEBHOOK_DISCORD); /* the default */
    assert_int_equal(l.hooks[1].format, WEBHOOK_EVENT);
    assert_int_equal(decode("{\"webhooks\":[]}", &l, NULL), 0);
    assert_int_equal(l.n, 0);
    decode("{}", &l, "webhooks");
    decode("{\"webhooks\":[{\"url\":\"https://a/b\",\"format\":\"slack\"}]}", &l,
           "webhooks[0].format");
    decode("{\"webhooks\":[{\"url\":\"https://a/b c\"}]}", &l, "webhooks[0].url");
    decode("{\"webhooks\":[{\"url\":\"https://a/\\r\\nX: y\"}]}", &l, "webhooks[0].url");
    decode("{\"webhooks\":[{\"url\":\"javascript:alert(1)\"}]}", &l, "webhooks[0].url");
    decode("{\"webhooks\":[{\"url\":\"http:///x\"}]}", &l, "webhooks[0].url");
    decode("{\"webhooks\":[{\"url\":\"https://\"}]}", &l, "webhooks[0].url");
    decode("{\"webhooks\":[{\"url\":1}]}", &l, "webhooks[0].url");
    decode("{\"webhooks\":[1]}", &l, "webhooks[0]");
    decode("{\"webhooks\":[{\"url\":\"https://a/\",\"secret\":\"x\"}]}", &l, "webhooks[0].secret");
    decode("{\"webhooks\":[],\"extra\":1}", &l, "extra");
    char big[200];
    size_t pos = (size_t)snprintf(big, sizeof big, "{\"webhooks\":[");
    for (int i = 0; i < WEBHOOKS_MAX + 1; i++)
        pos += (size_t)snprintf(big + pos, sizeof big - pos, "%s{\"url\":\"http://a/\"}",
                                i ? "," : "");
    snprintf(big + pos, sizeof big - pos, "]}");
    decode(big, &l, "webhooks");
    /* a URL over WEBHOOK_URL_MAX bytes */
    static char longurl[WEBHOOK_URL_MAX + 100];
    int n = snprintf(longurl, sizeof longurl, "{\"webhooks\":[{\"url\":\"http://a/");
    memset(longurl + n, 'x', WEBHOOK_URL_MAX);
    snprintf(longurl + n + WEBHOOK_URL_MAX, 10, "\"}]}");
    decode(longurl, &l, "webhooks[0].url");
}

/* Discord counts characters: the cut keeps whole UTF-8 sequences. */
static void test_cut_chars(void **state) {
    (void)state;
    assert_int_equal(webhook_cut_chars("abc", 5), 3);
    assert_int_equal(webhook_cut_chars("abc", 2), 2);
    assert_int_equal(webhook_cut_chars("", 0), 0);
    /* "é" is two bytes, "€" three */
    assert_int_equal(webhook_cut_chars("a\xc3\xa9"
                                       "b",
                                       2),
                     3);
    assert_int_equal(webhook_cut_chars("\xe2\x82\xac\xe2\x82\xac", 1), 3);
    static char big[2001 * 2 + 1];
    for (int i = 0; i < 2001; i++)
        big[2 * i] = (char)0xc3, big[2 * i + 1] = (char)0xa9;
    assert_int_equal(webhook_cut_chars(big, 2000), 4000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hosts_listed_and_wildcards),
        cmocka_unit_test(test_bad_urls),
        cmocka_unit_test(test_ip_literals_listed_may_be_inside),
        cmocka_unit_test(test_inside_addresses),
        cmocka_unit_test(test_policy_refuses_bad_entries),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_cut_chars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
