/* fuzz_verify: the input as an exported JSONL event log, fed line by line to server/audit/verify.h as
 * umpire-verify does (a line that is not JSON is verifier_feed_unreadable). Never crashes; the
 * report always has exactly its 10 keys, "ok" agrees with verifier_ok, "head_checked" is false
 * when no head was expected, and "notes" is an array of strings (one says so when no head was
 * given).
 *
 * Optional first lines: "#<hex>" sets verifier_expect_head; "!" (rehash mode) makes the fuzzer
 * rewrite each event's prev and hash (server/audit/chain.h) before feeding it, so that mutated events
 * get past the chain check and reach the dice and rules re-adjudication. */
#include "server/audit/chain.h"
#include "server/audit/verify.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const report_keys[] = {
    "ok",           "events",         "head",         "first_bad_seq", "reason",
    "dice_checked", "dice_unchecked", "head_checked", "notes",         "actions_readjudicated"};
#define REPORT_KEYS (sizeof report_keys / sizeof report_keys[0])

/* Rehash mode: sets event.prev to the previous hash and event.hash to its own, when the fields
 * have the types chain_event_hash takes; prev becomes that hash. */
static void fix_chain(json_t *event, char prev[65]) {
    json_t *seq = json_object_get(event, "seq"), *data = json_object_get(event, "data");
    const char *ts = json_string_value(json_object_get(event, "ts"));
    const char *actor = json_string_value(json_object_get(event, "actor"));
    const char *type = json_string_value(json_object_get(event, "type"));
    char hash[65];
    if (!json_is_integer(seq) || !data || !ts || !actor || !type) return;
    if (chain_event_hash(prev, json_integer_value(seq), ts, actor, type, data, hash) != 0) return;
    json_object_set_new(event, "prev", json_string(prev));
    json_object_set_new(event, "hash", json_string(hash));
    memcpy(prev, hash, sizeof hash);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    verifier *v = verifier_new();
    if (!v) return 0;
    size_t off = 0;
    int rehash = 0;
    bool expect_head = false;
    char prev[65] = CHAIN_ZERO_HASH;
    if (size >= 2 && data[0] == '!' && data[1] == '\n') {
        rehash = 1;
        off = 2;
    }
    if (off < size && data[off] == '#') {
        const uint8_t *nl = memchr(data + off, '\n', size - off);
        size_t n = nl ? (size_t)(nl - (data + off)) : size - off;
        char head[80];
        size_t m = n - 1 < sizeof head - 1 ? n - 1 : sizeof head - 1;
        memcpy(head, data + off + 1, m);
        head[m] = '\0';
        verifier_expect_head(v, head);
        expect_head = true;
        off = nl ? off + n + 1 : size;
    }
    while (off < size) {
        const uint8_t *line = data + off;
        const uint8_t *nl = memchr(line, '\n', size - off);
        size_t n = nl ? (size_t)(nl - line) + 1 : size - off;
        off += n;
        if (n == 1 && line[0] == '\n') continue;
        json_error_t je;
        json_t *event = json_loadb((const char *)line, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
        if (!event)
            verifier_feed_unreadable(v, je.text);
        else {
            if (rehash) fix_chain(event, prev);
            verifier_feed(v, event);
        }
        json_decref(event);
    }
    verifier_finish(v, -1, NULL);
    json_t *report = verifier_report_new(v);
    if (!report || !json_is_object(report) || json_object_size(report) != REPORT_KEYS) {
        fprintf(stderr, "fuzz_verify: report is not an object of %zu keys\n", REPORT_KEYS);
        abort();
    }
    for (size_t i = 0; i < REPORT_KEYS; i++) {
        if (!json_object_get(report, report_keys[i])) {
            fprintf(stderr, "fuzz_verify: report lacks \"%s\"\n", report_keys[i]);
            abort();
        }
    }
    const json_t *notes = json_object_get(report, "notes");
    bool strings = json_is_array(notes) && json_array_size(notes) >= (expect_head ? 0 : 1);
    for (size_t i = 0; strings && i < json_array_size(notes); i++)
        strings = json_is_string(json_array_get(notes, i));
    if (!strings || json_integer_value(json_object_get(report, "dice_unchecked")) < 0 ||
        (!expect_head && json_is_true(json_object_get(report, "head_checked")))) {
        fprintf(stderr, "fuzz_verify: notes, dice_unchecked or head_checked are wrong\n");
        abort();
    }
    if (json_is_true(json_object_get(report, "ok")) != verifier_ok(v)) {
        fprintf(stderr, "fuzz_verify: report.ok disagrees with verifier_ok\n");
        abort();
    }
    char *dump = json_dumps(report, JSON_COMPACT);
    if (getenv("FUZZ_VERIFY_VERBOSE")) fprintf(stderr, "report: %s\n", dump ? dump : "?");
    free(dump);
    json_decref(report);
    verifier_free(v);
    return 0;
}
