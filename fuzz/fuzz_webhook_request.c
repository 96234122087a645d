/* fuzz_webhook_request: the body of PUT /v1/sessions/{id}/webhooks through
 * protocol/webhook_request.h, then every decoded URL through the daemon's policy
 * (server/live/webhook_policy.h, libcurl's URL parser).
 * Invariants: a decoded list has at most WEBHOOKS_MAX entries, each URL NUL-terminated within
 * WEBHOOK_URL_MAX and free of spaces and control bytes; a failure is a 400 naming a field; an
 * accepted URL's host is non-empty, lower-case, and listed. */
#include "protocol/webhook_request.h"
#include "server/live/webhook_policy.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_webhook_request: invariant failed: %s\n", #cond);                \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static webhook_policy policy;
    static int init;
    if (!init) {
        CHECK(webhook_policy_init(&policy, "discord.com,*.discord.com,127.0.0.1,[::1],example.org",
                                  false, NULL, 0) == 0);
        init = 1;
    }
    json_t *body = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!body) return 0;
    static webhook_list list;
    api_error e = {0};
    int rc = webhook_list_decode(body, &list, &e);
    json_decref(body);
    if (rc != 0) {
        CHECK(e.status == 400);
        CHECK(json_is_string(json_object_get(e.details, "field")));
        api_error_clear(&e);
        return 0;
    }
    CHECK(list.n <= WEBHOOKS_MAX);
    for (size_t i = 0; i < list.n; i++) {
        const char *url = list.hooks[i].url;
        size_t n = strnlen(url, WEBHOOK_URL_MAX + 1);
        CHECK(n > 0 && n <= WEBHOOK_URL_MAX);
        for (size_t j = 0; j < n; j++)
            CHECK((unsigned char)url[j] > 0x20 && (unsigned char)url[j] < 0x7f);
        char host[WEBHOOK_HOST_MAX];
        bool private_ok = false;
        webhook_url_verdict v =
            webhook_policy_check_url(&policy, url, host, sizeof host, &private_ok);
        CHECK(v == WEBHOOK_URL_OK || v == WEBHOOK_URL_BAD || v == WEBHOOK_URL_NOT_ALLOWED);
        if (v == WEBHOOK_URL_OK) {
            CHECK(host[0] != '\0');
            for (const char *c = host; *c; c++)
                CHECK(!(*c >= 'A' && *c <= 'Z'));
        }
    }
    return 0;
}
