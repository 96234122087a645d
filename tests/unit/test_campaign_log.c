/* server/campaign_log: the three renderings of a fixed session against golden files, escaping,
 * the jsonl round trip, odd events, format names and content types.
 * UMPIRE_SOURCE_DIR (set with -D) locates tests/golden/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/audit/campaign_log.h"

#ifndef UMPIRE_SOURCE_DIR
#define UMPIRE_SOURCE_DIR "."
#endif
#define GOLDEN_DIR UMPIRE_SOURCE_DIR "/tests/golden/"

/* A session of the generic ruleset in server dice mode. The hashes are the real chain (made with
 * python3: sha256(prev + "\n" + json.dumps({seq, ts, actor, type, data}, sort_keys=True,
 * separators=(",", ":"), ensure_ascii=False))), and the dice are the contract's die function
 * under the seed bytes 00..1f that event 4 reveals. Event 3's result carries a "modifiers" list,
 * which generic never writes, to exercise that path of the renderers. */
#define SESSION_ID "8c1d4e0b2a7f49d3b6e5c0a1f2d3e4b5"
#define C0         "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
#define C1         "ae216c2ef5247a3782c135efa279a3e4cdc61094270f5d2be58c6204b7a612c9"
#define ZERO       "0000000000000000000000000000000000000000000000000000000000000000"
#define H1         "468567396ddf47e013983d36370080f70d25bee9344a7bd75c09f73a99156357"
#define H2         "070b92f46e67925ded4faa3e945db49b7ff7953ad4e5295c304b36973900f2ef"
#define H3         "4fa79eb5a9282e9ef3c4367de541e10275d791b84c76a9f2c90dd507f5bb51e6"
#define H4         "886df1f1db05e487544aa85cccfa3e8e43a830d6eff44c55504e9c145ae5e4a5"

static const char *const session_events[] = {
    "{\"seq\": 1, \"ts\": \"2026-11-21T19:30:00.000Z\", \"actor\": \"server\", \"type\": "
    "\"session_created\", \"data\": {\"id\": \"" SESSION_ID "\", \"ruleset\": \"generic\", "
    "\"ruleset_version\": 1, \"title\": \"Bats at the Crag\", \"sides\": [\"knight\", "
    "\"monsters\"], \"visibility\": \"private\", \"options\": {}, \"setup\": {\"units\": [{\"id\": "
    "\"sir-bors\", \"side\": \"knight\"}, {\"id\": \"bat-1\", \"side\": \"monsters\"}]}, \"dice\": "
    "{\"mode\": \"server\", \"commitment\": \"" C0 "\"}}, \"prev\": \"" ZERO "\", \"hash\": \"" H1
    "\"}",

    "{\"seq\": 2, \"ts\": \"2026-11-21T19:34:12.250Z\", \"actor\": \"side:knight\", \"type\": "
    "\"roll\", \"data\": {\"ruleset_version\": 1, \"action\": {\"expr\": \"2d6+1\", \"purpose\": "
    "\"attack\", \"type\": \"roll\", \"unit\": \"sir-bors\"}, \"dice\": [{\"purpose\": \"attack\", "
    "\"notation\": \"2d6\", \"values\": [4, 5], \"value\": 9, \"nonce\": 1}], \"result\": "
    "{\"expr\": \"2d6+1\", \"total\": 10, \"terms\": [{\"term\": \"2d6\", \"sign\": 1, \"values\": "
    "[4, 5], \"value\": 9}, {\"term\": \"1\", \"sign\": 1, \"value\": 1}]}, \"summary\": \"knight "
    "rolled attack 2d6+1 = 10 (2d6: [4,5] = 9; +1)\"}, \"prev\": \"" H1 "\", \"hash\": \"" H2 "\"}",

    "{\"seq\": 3, \"ts\": \"2026-11-21T19:36:40.005Z\", \"actor\": \"referee\", \"type\": "
    "\"roll\", \"data\": {\"ruleset_version\": 1, \"action\": {\"expr\": \"3d6kh2-1\", "
    "\"purpose\": \"bite\", \"type\": \"roll\", \"unit\": \"bat-1\"}, \"dice\": [{\"purpose\": "
    "\"bite\", \"notation\": \"3d6kh2\", \"values\": [4, 6, 6], \"value\": 12, \"nonce\": 3}], "
    "\"result\": {\"expr\": \"3d6kh2-1\", \"total\": 11, \"terms\": [{\"term\": \"3d6kh2\", "
    "\"sign\": 1, \"values\": [4, 6, 6], \"kept\": [6, 6], \"value\": 12}, {\"term\": \"1\", "
    "\"sign\": -1, \"value\": 1}], \"modifiers\": [{\"name\": \"darkness\", \"value\": -1}, \"bats "
    "swarm\"]}, \"summary\": \"referee rolled bite 3d6kh2-1 = 11 (3d6kh2: [4,6,6] keep 6+6 = 12; "
    "-1)\"}, \"prev\": \"" H2 "\", \"hash\": \"" H3 "\"}",

    "{\"seq\": 4, \"ts\": \"2026-11-21T19:58:03.900Z\", \"actor\": \"referee\", \"type\": "
    "\"dice_seed_revealed\", \"data\": {\"seed\": "
    "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\", \"commitment\": \"" C0
    "\", \"last_nonce\": 5, \"next_commitment\": \"" C1 "\"}, \"prev\": \"" H3 "\", \"hash\": \"" H4
    "\"}",
};
#define NSESSION_EVENTS (sizeof session_events / sizeof session_events[0])

static json_t *load(const char *text) {
    json_error_t e;
    json_t *v = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    if (!v) fail_msg("fixture does not parse: %s at %d", e.text, e.position);
    return v;
}

static json_t *session_new(void) {
    json_t *events = json_array();
    for (size_t i = 0; i < NSESSION_EVENTS; i++)
        json_array_append_new(events, load(session_events[i]));
    return events;
}

/* Appends one chunk to the whole output (and frees it), checking that *lenp is its length. */
static void take_chunk(char **all, size_t *all_len, char *chunk, const size_t *lenp) {
    assert_non_null(chunk);
    size_t len = *lenp;
    assert_int_equal(len, strlen(chunk));
    char *grown = realloc(*all, *all_len + len + 1);
    assert_non_null(grown);
    memcpy(grown + *all_len, chunk, len + 1);
    *all = grown;
    *all_len += len;
    free(chunk);
}

/* The whole rendering of events (a JSON array) in format f: begin, each event, end. */
static char *render(campaign_log_format f, const char *session_id, const json_t *events) {
    campaign_log *log = campaign_log_new(f, session_id);
    assert_non_null(log);
    char *all = NULL;
    size_t all_len = 0, len = 99;
    take_chunk(&all, &all_len, campaign_log_begin_new(log, &len), &len);
    for (size_t i = 0; i < json_array_size(events); i++)
        take_chunk(&all, &all_len, campaign_log_event_new(log, json_array_get(events, i), &len),
                   &len);
    take_chunk(&all, &all_len, campaign_log_end_new(log, &len), &len);
    campaign_log_free(log);
    return all;
}

static char *render_session(campaign_log_format f) {
    json_t *events = session_new();
    char *out = render(f, SESSION_ID, events);
    json_decref(events);
    return out;
}

/* The file's contents, or NULL when it cannot be read. */
static char *read_file_new(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *grown = realloc(buf, cap);
            assert_non_null(grown);
            buf = grown;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(fp);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

static void assert_golden(const char *actual, const char *name) {
    char golden_path[512], actual_path[512];
    snprintf(golden_path, sizeof golden_path, "%s%s", GOLDEN_DIR, name);
    snprintf(actual_path, sizeof actual_path, "/tmp/%s.actual", name);
    char *golden = read_file_new(golden_path);
    bool same = golden && strcmp(golden, actual) == 0;
    free(golden);
    if (same) return;
    FILE *fp = fopen(actual_path, "wb");
    if (fp) {
        fputs(actual, fp);
        fclose(fp);
    }
    fail_msg("the rendering differs from the golden file %s; the actual output is in %s",
             golden_path, actual_path);
}

static void test_golden_jsonl(void **state) {
    (void)state;
    char *out = render_session(CAMPAIGN_LOG_JSONL);
    assert_golden(out, "campaign.jsonl");
    free(out);
}

static void test_golden_markdown(void **state) {
    (void)state;
    char *out = render_session(CAMPAIGN_LOG_MARKDOWN);
    assert_golden(out, "campaign.md");
    free(out);
}

static void test_golden_html(void **state) {
    (void)state;
    char *out = render_session(CAMPAIGN_LOG_HTML);
    assert_golden(out, "campaign.html");
    free(out);
}

/* Each jsonl line parses back to a value equal to its event (json_equal), and starts with seq. */
static void test_jsonl_round_trip(void **state) {
    (void)state;
    json_t *events = session_new();
    /* One event with a member beyond the seven and non-ASCII text: still nothing lost. */
    json_t *extra =
        load("{\"seq\": 5, \"ts\": \"2026-11-21T20:00:00Z\", \"actor\": \"side:knight\", "
             "\"type\": \"roll\", \"data\": {\"summary\": \"Caf\\u00e9 \\u2694 "
             "\\\"x\\\"\\n\"}, \"prev\": \"" H4 "\", \"hash\": \"ff\", \"zz\": [1]}");
    json_array_append_new(events, extra);
    char *out = render(CAMPAIGN_LOG_JSONL, SESSION_ID, events);
    assert_non_null(strstr(out, "\"prev\":\"" H4 "\",\"hash\":\"ff\",\"zz\":[1]}"));
    assert_non_null(strstr(out, "Caf\xc3\xa9 \xe2\x9a\x94")); /* UTF-8, not \u escapes */
    char *line = out;
    size_t i = 0;
    for (char *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1, i++) {
        *nl = '\0';
        assert_true(i < json_array_size(events));
        json_t *back = load(line);
        assert_true(json_equal(back, json_array_get(events, i)));
        json_decref(back);
        assert_memory_equal(line, "{\"seq\":", 7);
    }
    assert_int_equal(i, json_array_size(events));
    assert_string_equal(line, "");
    free(out);
    json_decref(events);
}

#define EVIL_TITLE "<script>alert('x')</script> *bold* _it_ [link](http://x) # | ~ `c` &amp; \"q\""

static json_t *evil_session_new(void) {
    json_t *events = json_array();
    json_t *created =
        load("{\"seq\": 1, \"ts\": \"2026-11-21T19:30:00Z\", \"actor\": \"server\", "
             "\"type\": \"session_created\", \"data\": {\"ruleset\": \"generic\", "
             "\"sides\": [\"a\"], \"setup\": {\"units\": [{\"id\": \"- [u](v)\", "
             "\"side\": \"a\"}, {\"id\": \"[x]: /evil\", \"side\": \"a\"}, "
             "{\"id\": \"snake_case_\", \"side\": \"a\"}]}, \"dice\": {\"mode\": \"manual\"}}, "
             "\"hash\": \"h1\"}");
    json_object_set_new(json_object_get(created, "data"), "title", json_string(EVIL_TITLE));
    json_array_append_new(events, created);
    json_array_append_new(
        events, load("{\"seq\": 2, \"ts\": \"2026-11-21T19:31:00Z\", \"actor\": \"side:a\", "
                     "\"type\": \"roll\", \"data\": {\"summary\": \"  1. <b>hi</b>\\n# x\", "
                     "\"dice\": [{\"purpose\": \"p`q\", \"notation\": \"1d6\", \"values\": [2], "
                     "\"value\": 2, \"manual\": true}]}, \"hash\": \"h2\"}"));
    return events;
}

static void test_markdown_escaping(void **state) {
    (void)state;
    json_t *events = evil_session_new();
    char *md = render(CAMPAIGN_LOG_MARKDOWN, "s1", events);
    assert_non_null(strstr(md, "# \\<script\\>alert('x')\\</script\\> \\*bold\\* \\_it\\_ "
                               "[link\\](http://x) \\# \\| \\~ \\`c\\` \\&amp; \"q\"\n\n"));
    assert_null(strstr(md, "<script>"));
    assert_non_null(strstr(md, "\n- \\- [u\\](v) (a)\n"));             /* no nested list, no link */
    assert_non_null(strstr(md, "\n- \\[x]: /evil (a)\n"));             /* no link definition */
    assert_non_null(strstr(md, "\n- snake_case\\_ (a)\n"));            /* "_" only inside a word */
    assert_non_null(strstr(md, "\n1\\. \\<b\\>hi\\</b\\> \\# x\n\n")); /* no list, no heading */
    assert_non_null(strstr(md, "**Dice:** p\\`q `1d6` rolled 2 → 2 (entered by hand)"));
    assert_non_null(strstr(md, "**Dice:** manual mode"));
    free(md);
    json_decref(events);
}

static void test_html_escaping(void **state) {
    (void)state;
    json_t *events = evil_session_new();
    json_array_append_new(events,
                          json_pack("{s:i, s:s, s:s, s:{s:s}}", "seq", 3, "type", "roll", "actor",
                                    "referee", "data", "summary", "Caf\xc3\xa9 \xe2\x98\x95"));
    json_t *bad = json_object();
    json_object_set_new(bad, "summary", json_string_nocheck("bad \xff byte"));
    json_array_append_new(events, json_pack("{s:i, s:s, s:s, s:o}", "seq", 4, "type", "roll",
                                            "actor", "referee", "data", bad));
    char *html = render(CAMPAIGN_LOG_HTML, "s1", events);
    assert_null(strstr(html, "<script"));
    assert_non_null(strstr(html, "<h1>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; *bold* _it_ "
                                 "[link](http://x) # | ~ `c` &amp;amp; &quot;q&quot;</h1>"));
    assert_non_null(strstr(html, "<title>&lt;script&gt;"));
    assert_non_null(strstr(html, "<meta charset=\"utf-8\">"));
    assert_non_null(strstr(html, "<p>  1. &lt;b&gt;hi&lt;/b&gt; # x</p>"));
    assert_non_null(strstr(html, "<p>Caf\xc3\xa9 \xe2\x98\x95</p>")); /* UTF-8 passes */
    assert_non_null(strstr(html, "<p>bad \xef\xbf\xbd byte</p>"));    /* invalid: U+FFFD */
    assert_null(strstr(html, "http-equiv"));
    assert_null(strstr(html, "src="));
    assert_null(strstr(html, "href="));
    free(html);
    json_decref(events);
}

/* Odd events render something and never crash, in every format. */
static void test_odd_events(void **state) {
    (void)state;
    static const char *const odd[] = {
        "5",
        "\"text\"",
        "[]",
        "{}",
        "{\"seq\": \"x\", \"type\": 7, \"data\": 3, \"hash\": 4}",
        "{\"seq\": 2, \"type\": \"session_created\", \"data\": {\"title\": 5, \"sides\": "
        "\"x\", \"setup\": {\"units\": [3, {\"side\": 1}]}, \"dice\": []}}",
        "{\"seq\": 3, \"type\": \"roll\", \"ts\": \"yesterday\", \"actor\": 9, \"data\": "
        "{\"summary\": \"s\", \"dice\": [7, {\"values\": \"x\", \"nonce\": "
        "9223372036854775807, \"value\": \"v\"}, {\"values\": [1, \"a\"], \"nonce\": "
        "9223372036854775807}], \"result\": {\"modifiers\": [1, {\"value\": 2}, "
        "{\"name\": \"n\", \"value\": [1]}]}, \"action\": {\"unit\": 5}}}",
        "{\"seq\": 4, \"type\": \"roll\", \"data\": {\"summary\": 5}}",
        "{\"seq\": 5, \"type\": \"dice_seed_revealed\", \"data\": {\"last_nonce\": "
        "9223372036854775807, \"seed\": 1}}",
        "{\"seq\": 6, \"type\": \"dice_seed_revealed\"}",
        "{\"seq\": 7, \"ts\": \"2026-11-21T19:30:00.Z\", \"type\": \"roll\", \"data\": "
        "{\"summary\": \"\", \"result\": 1, \"dice\": {}}}",
    };
    const campaign_log_format formats[] = {CAMPAIGN_LOG_JSONL, CAMPAIGN_LOG_MARKDOWN,
                                           CAMPAIGN_LOG_HTML};
    for (size_t f = 0; f < 3; f++) {
        campaign_log *log = campaign_log_new(formats[f], NULL);
        char *all = NULL;
        size_t all_len = 0, len;
        take_chunk(&all, &all_len, campaign_log_begin_new(log, &len), &len);
        take_chunk(&all, &all_len, campaign_log_event_new(log, NULL, &len), &len);
        for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
            json_t *ev = json_loads(odd[i], JSON_DECODE_ANY, NULL);
            assert_non_null(ev);
            take_chunk(&all, &all_len, campaign_log_event_new(log, ev, &len), &len);
            json_decref(ev);
        }
        take_chunk(&all, &all_len, campaign_log_end_new(log, &len), &len);
        campaign_log_free(log);
        if (formats[f] == CAMPAIGN_LOG_HTML) assert_non_null(strstr(all, "</html>\n"));
        if (formats[f] == CAMPAIGN_LOG_MARKDOWN) {
            assert_non_null(strstr(all, "# Untitled session\n"));
            assert_non_null(strstr(all, "**Events:** 11\n"));
            assert_non_null(strstr(all, "(nonce 9223372036854775807)"));
        }
        free(all);
    }
    assert_null(campaign_log_event_new(NULL, NULL, NULL));
    campaign_log_free(NULL);
}

/* An event that is neither an action nor a reveal gets one short line. */
static void test_other_event_line(void **state) {
    (void)state;
    json_t *events = session_new();
    json_array_append_new(events, load("{\"seq\": 5, \"ts\": \"2026-11-21T20:01:02Z\", \"actor\": "
                                       "\"side:knight\", \"type\": \"unit_moved\", \"data\": {}, "
                                       "\"hash\": \"abc\"}"));
    char *md = render(CAMPAIGN_LOG_MARKDOWN, SESSION_ID, events);
    assert_non_null(strstr(md, "\n**5** · 2026-11-21 20:01:02 UTC · knight: `unit_moved`\n\n"));
    assert_non_null(strstr(md, "**Head hash:** `abc`\n"));
    assert_non_null(strstr(md, "**Events:** 5\n"));
    free(md);
    json_decref(events);
}

/* No events at all: a heading, and a footer that says so. */
static void test_empty_log(void **state) {
    (void)state;
    json_t *none = json_array();
    char *md = render(CAMPAIGN_LOG_MARKDOWN, SESSION_ID, none);
    assert_non_null(strstr(md, "# Untitled session\n\nCampaign log of Umpire session `" SESSION_ID
                               "`.\n\n## Log\n\n---\n\nThe log holds no events.\n"));
    char *jsonl = render(CAMPAIGN_LOG_JSONL, SESSION_ID, none);
    assert_string_equal(jsonl, "");
    free(md);
    free(jsonl);
    json_decref(none);
}

/* The heading waits for event 1; begin alone holds no session data. */
static void test_chunks_stream(void **state) {
    (void)state;
    json_t *events = session_new();
    campaign_log *log = campaign_log_new(CAMPAIGN_LOG_HTML, SESSION_ID);
    size_t len;
    char *begin = campaign_log_begin_new(log, &len);
    assert_memory_equal(begin, "<!DOCTYPE html>\n", 16);
    assert_null(strstr(begin, "Bats"));
    char *first = campaign_log_event_new(log, json_array_get(events, 0), &len);
    assert_non_null(strstr(first, "<title>Bats at the Crag · Umpire campaign log</title>"));
    char *second = campaign_log_event_new(log, json_array_get(events, 1), &len);
    assert_null(strstr(second, "<title>"));
    assert_non_null(strstr(second, "<article class=\"entry action\" id=\"e2\">"));
    free(begin);
    free(first);
    free(second);
    campaign_log_free(log);

    log = campaign_log_new(CAMPAIGN_LOG_MARKDOWN, NULL);
    begin = campaign_log_begin_new(log, &len);
    assert_string_equal(begin, "");
    assert_int_equal(len, 0);
    first = campaign_log_event_new(log, json_array_get(events, 0), &len);
    /* Without a session id given, event 1's data.id names the session. */
    assert_non_null(strstr(first, "session `" SESSION_ID "`"));
    free(begin);
    free(first);
    campaign_log_free(log);
    json_decref(events);
}

/* A player's entropy reads as a sentence naming who contributed, never as a raw event. */
static void test_entropy_entry(void **state) {
    (void)state;
    json_t *events = session_new();
    json_t *ev = load("{\"seq\": 5, \"ts\": \"2026-11-21T20:00:00Z\", \"actor\": \"side:knight\", "
                      "\"type\": \"entropy_contributed\", \"data\": {\"role\": \"side:knight\", "
                      "\"seed\": \"for *the* king\", \"in_force\": {\"referee\": \"r\", "
                      "\"side:knight\": \"for *the* king\", \"side:monsters\": \"m\"}, "
                      "\"digest\": \"" H4 "\"}, \"prev\": \"" H4 "\", \"hash\": \"" H4 "\"}");
    json_array_append_new(events, ev);
    char *md = render(CAMPAIGN_LOG_MARKDOWN, SESSION_ID, events);
    assert_non_null(strstr(md, "knight added their own entropy to the dice: `for *the* king`."));
    assert_non_null(strstr(md, "every die mixes in what the referee, knight and monsters "
                               "contributed, as the digest `" H4 "`."));
    assert_null(strstr(md, "`entropy_contributed`"));
    char *html = render(CAMPAIGN_LOG_HTML, SESSION_ID, events);
    assert_non_null(strstr(html, "<article class=\"entry entropy\" id=\"e5\">"));
    assert_non_null(strstr(html, "<code>for *the* king</code>"));
    free(md);
    free(html);
    json_decref(events);
}

static void test_format_names(void **state) {
    (void)state;
    campaign_log_format f = CAMPAIGN_LOG_HTML;
    assert_int_equal(campaign_log_format_parse("jsonl", &f), 0);
    assert_int_equal(f, CAMPAIGN_LOG_JSONL);
    assert_int_equal(campaign_log_format_parse("markdown", &f), 0);
    assert_int_equal(f, CAMPAIGN_LOG_MARKDOWN);
    assert_int_equal(campaign_log_format_parse("html", &f), 0);
    assert_int_equal(f, CAMPAIGN_LOG_HTML);
    static const char *const bad[] = {"", "HTML", "md", "json", "html ", "jsonl\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = CAMPAIGN_LOG_HTML;
        assert_int_equal(campaign_log_format_parse(bad[i], &f), -1);
        assert_int_equal(f, CAMPAIGN_LOG_HTML);
    }
    assert_int_equal(campaign_log_format_parse(NULL, &f), -1);
    assert_string_equal(campaign_log_content_type(CAMPAIGN_LOG_JSONL),
                        "application/x-ndjson; charset=utf-8");
    assert_string_equal(campaign_log_content_type(CAMPAIGN_LOG_MARKDOWN),
                        "text/markdown; charset=utf-8");
    assert_string_equal(campaign_log_content_type(CAMPAIGN_LOG_HTML), "text/html; charset=utf-8");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_jsonl),      cmocka_unit_test(test_golden_markdown),
        cmocka_unit_test(test_golden_html),       cmocka_unit_test(test_jsonl_round_trip),
        cmocka_unit_test(test_markdown_escaping), cmocka_unit_test(test_html_escaping),
        cmocka_unit_test(test_odd_events),        cmocka_unit_test(test_other_event_line),
        cmocka_unit_test(test_empty_log),         cmocka_unit_test(test_chunks_stream),
        cmocka_unit_test(test_format_names),      cmocka_unit_test(test_entropy_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
