/* No answer depends on a die that was not committed (rules/ruleset.h, above resolve()): a module
 * decides an action's legality before it draws its first die, and once a die is drawn the action
 * commits with whatever the dice decided. A refusal that came after a die would tell the caller
 * the next server die without spending it (issue 19: the Corbach climb test answered 422 with
 * its die in the message, so a side could read dice at will and pick which action got them).
 *
 * The property, checked for every ruleset of the registry: each (state, action) below, resolved
 * under STREAMS different seeded dice streams, either succeeds under all of them or is refused
 * under all of them with byte-identical error bodies (api_error_body_new). And, as
 * rules/ruleset.h states it, no refusal comes after a die was drawn (dice_source_die_count):
 * that finds late refusals too whose message happens not to carry the die.
 *
 * Actions come from
 * (a) every example scenario of the ruleset (scenarios/<name>.json): each step is resolved
 *     against the state the walk reached, acting as its "as" (a side, or the referee); the walk
 *     then advances with the step's outcome under one fixed reference stream (or under the
 *     step's own dice when a manual scenario lists them, so that the walk follows the scenario);
 * (b) every documented example: the `-d '{...}'` curl bodies, ```json blocks and inline
 *     `{...}` code spans of docs/rules/<id>.md (and of docs/api.md and README.md, for every
 *     ruleset) that parse as an object whose "type" is an action of the ruleset;
 * (c) every file of fuzz/corpus/fuzz_rules_resolve/ (JSON up to the first NUL byte), decoded as
 *     fuzz/fuzz_rules_resolve.c does.
 * (b) and (c) are resolved against the ruleset's sample_setup, the fuzzer's two bare units and
 * every state along the ruleset's scenario walks, acting as the named unit's side when that
 * unit is in the state, else as the referee (as the fuzzer does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dirent.h>

#include <cmocka.h>

#include "protocol/api_error.h"
#include "protocol/json_in.h"
#include "rules/dice_source.h"
#include "rules/ruleset.h"
#include "server/core/requests.h"
#include "server/dice/seeded_source.h"

#ifndef UMPIRE_SOURCE_DIR
#define UMPIRE_SOURCE_DIR "."
#endif

#define STREAMS    50 /* distinct seeded dice streams per (state, action) */
#define SESSION_ID "dice-independence"

/* ---- files ---------------------------------------------------------------------------------- */

static char *read_file_new(const char *path, size_t *len_out) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += n;
        if (len == cap) {
            char *grown = realloc(buf, cap * 2 + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(fp);
    if (!buf) return NULL;
    buf[len] = '\0';
    if (len_out) *len_out = len;
    return buf;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir ending in suffix (NULL: every regular name), sorted; *n set. */
static char **list_dir_new(const char *dir, const char *suffix, size_t *n) {
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) return NULL;
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
        if (suffix && (len < sl || strcmp(e->d_name + len - sl, suffix) != 0)) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*n) qsort(names, *n, sizeof *names, name_cmp);
    return names;
}

static void list_free(char **names, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- the cases --------------------------------------------------------------------------------
 */

typedef struct state_entry {
    json_t *state;   /* owned */
    json_t *options; /* owned */
    char origin[160];
} state_entry;

typedef struct action_entry {
    json_t *body; /* owned: the action body, envelope included */
    char source[200];
} action_entry;

typedef struct vec {
    void *items;
    size_t n, cap, size;
} vec;

static void *vec_push(vec *v) {
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 16;
        v->items = realloc(v->items, v->cap * v->size);
        assert_non_null(v->items);
    }
    void *slot = (char *)v->items + v->n++ * v->size;
    memset(slot, 0, v->size);
    return slot;
}

typedef struct counts {
    size_t cases;      /* (state, action) pairs resolved under every stream */
    size_t succeeded;  /* ... that succeeded under all of them */
    size_t rolled;     /* ... that succeeded and drew dice: the dice decided, never refused */
    size_t refused;    /* ... refused under all of them, with identical bodies */
    size_t violations; /* ... whose answer depended on the dice */
    size_t resolves;
} counts;

static uint8_t seeds[STREAMS][32];

static void seeds_init(void) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int s = 0; s < STREAMS; s++)
        for (int i = 0; i < 32; i++) {
            h ^= h << 13;
            h ^= h >> 7;
            h ^= h << 17;
            seeds[s][i] = (uint8_t)(h >> 24);
        }
}

static void seed_hex(int s, char out[65]) {
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", seeds[s][i]);
}

typedef struct answer {
    int rc;
    char *body;  /* the error body (refusals), or the summary (successes) */
    size_t dice; /* dice drawn before the answer */
} answer;

static answer resolve_once(const rules_action *a, const void *decoded, const rules_ctx *base,
                           dice_source *ds) {
    rules_ctx ctx = *base;
    ctx.dice = ds;
    rules_outcome out = {0};
    api_error err = {0};
    answer an = {0};
    an.rc = a->resolve(&ctx, decoded, &out, &err);
    an.dice = dice_source_die_count(ds);
    if (an.rc == 0) {
        an.body = strdup(out.summary);
    } else {
        size_t len = 0;
        char *b = api_error_body_new(&err, &len);
        size_t need = len + 16;
        an.body = malloc(need);
        snprintf(an.body, need, "%d %s", err.status, b ? b : "(no body)");
        free(b);
    }
    rules_outcome_clear(&out);
    api_error_clear(&err);
    return an;
}

static char *compact(const json_t *v) {
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* Resolves (state, body) under every stream; reports a violation. */
static void check_case(const ruleset *rs, const json_t *body, const char *source,
                       const state_entry *st, const char *actor, const json_t *unit, counts *c) {
    action_envelope env;
    api_error err = {0};
    if (action_envelope_decode(body, &env, &err) != 0) {
        api_error_clear(&err);
        return;
    }
    const rules_action *a = ruleset_action(rs, env.type);
    void *decoded = a ? calloc(1, a->decoded_size ? a->decoded_size : 1) : NULL;
    if (!a || a->decode(env.fields, decoded, &err) != 0) {
        api_error_clear(&err);
        free(decoded);
        action_envelope_clear(&env);
        return;
    }
    rules_ctx ctx = {
        .state = st->state, .options = st->options, .actor = actor, .unit = unit, .dice = NULL};
    answer first = {0};
    int differs = -1, late = -1; /* the first stream that answered otherwise / refused late */
    answer other = {0}, late_an = {0};
    for (int s = 0; s < STREAMS; s++) {
        dice_source *ds = dice_source_new_seeded(seeds[s], SESSION_ID, 1);
        assert_non_null(ds);
        answer an = resolve_once(a, decoded, &ctx, ds);
        dice_source_free(ds);
        c->resolves++;
        bool keep = false;
        if (an.rc != 0 && an.dice > 0 && late < 0) {
            late = s;
            late_an = an;
            keep = true;
        }
        if (s == 0) {
            first = an;
            continue;
        }
        bool same = an.rc == 0 ? first.rc == 0 : first.rc != 0 && strcmp(an.body, first.body) == 0;
        if (!same && differs < 0) {
            differs = s;
            other = an;
            keep = true;
        }
        if (!keep) free(an.body);
    }
    if (differs >= 0 || late >= 0) {
        char *text = compact(body);
        char h0[65], h1[65];
        seed_hex(0, h0);
        print_error("VIOLATION in %s\n  action source: %s\n  action: %s\n  actor: %s\n"
                    "  state: %s\n",
                    rs->id, source, text, actor, st->origin);
        if (differs >= 0) {
            seed_hex(differs, h1);
            print_error("  the answer depends on the dice:\n"
                        "    stream 0 (seed %s): %s %s\n    stream %d (seed %s): %s %s\n",
                        h0, first.rc == 0 ? "succeeded:" : "refused:", first.body, differs, h1,
                        other.rc == 0 ? "succeeded:" : "refused:", other.body);
        }
        if (late >= 0) {
            seed_hex(late, h1);
            print_error("  refused after %zu die(s) were drawn:\n    stream %d (seed %s): %s\n",
                        late_an.dice, late, h1, late_an.body);
        }
        free(text);
        c->violations++;
    } else if (first.rc == 0) {
        c->succeeded++;
        if (first.dice > 0) c->rolled++;
    } else {
        c->refused++;
    }
    c->cases++;
    if (other.body != first.body) free(other.body);
    if (late_an.body != first.body && late_an.body != other.body) free(late_an.body);
    free(first.body);
    free(decoded);
    action_envelope_clear(&env);
}

/* The actor and unit as the fuzzer picks them: the named unit's side when it is in the state,
 * else the referee acting without one. */
static void check_loose(const ruleset *rs, const action_entry *ae, const state_entry *st,
                        counts *c) {
    char actor[8 + SIDE_NAME_MAX] = "referee";
    const char *uid = json_string_value(json_object_get(ae->body, "unit"));
    const json_t *unit = uid ? rules_state_unit(st->state, uid) : NULL;
    if (unit)
        snprintf(actor, sizeof actor, "side:%s",
                 json_string_value(json_object_get(unit, "side")) ?: "");
    check_case(rs, ae->body, ae->source, st, actor, unit, c);
}

/* ---- sources of states and actions --------------------------------------------------------- */

static json_t *init_from(const ruleset *rs, const json_t *options, json_t *setup_take) {
    api_error err = {0};
    json_t *state = setup_take ? rs->init_state(options, setup_take, &err) : NULL;
    api_error_clear(&err);
    json_decref(setup_take);
    return state;
}

static void add_state(vec *states, json_t *state_take, const json_t *options, const char *origin) {
    state_entry *e = vec_push(states);
    e->state = state_take;
    e->options = json_deep_copy(options);
    snprintf(e->origin, sizeof e->origin, "%s", origin);
}

static void add_action(vec *actions, const json_t *body, const char *source) {
    action_entry *e = vec_push(actions);
    e->body = json_deep_copy(body);
    /* The odds endpoint's inline options and setup are not part of an action. */
    json_object_del(e->body, "options");
    json_object_del(e->body, "setup");
    snprintf(e->source, sizeof e->source, "%s", source);
}

/* Advances the walk by one step: the step's own dice when it lists them (manual scenarios),
 * else the reference stream, whose nonce runs on across the walk. The new state, or NULL. */
static json_t *advance(const rules_action *a, const void *decoded, const rules_ctx *base,
                       const action_envelope *env, uint64_t *ref_nonce) {
    static const uint8_t ref_seed[32] = "the reference dice stream, 2024";
    rules_ctx ctx = *base;
    for (int pass = env->has_dice ? 0 : 1; pass < 2; pass++) {
        dice_source *ds = pass == 0 ? dice_source_new_manual(env->dice, env->ndice)
                                    : dice_source_new_seeded(ref_seed, SESSION_ID, *ref_nonce);
        assert_non_null(ds);
        ctx.dice = ds;
        rules_outcome out = {0};
        api_error err = {0};
        int rc = a->resolve(&ctx, decoded, &out, &err);
        json_t *next = NULL;
        if (rc == 0 && !(pass == 0 && dice_source_unsatisfied(ds))) {
            next = out.new_state;
            out.new_state = NULL;
            if (pass == 1) *ref_nonce = dice_source_next_nonce(ds);
        }
        rules_outcome_clear(&out);
        api_error_clear(&err);
        dice_source_free(ds);
        if (next) return next;
    }
    return NULL;
}

/* (a): walks one scenario of rs, checking each step and collecting every state it reaches. */
static void walk_scenario(const ruleset *rs, const char *name, const json_t *scenario, vec *states,
                          counts *c) {
    const json_t *session = json_object_get(scenario, "session");
    json_t *options = json_incref(json_object_get(session, "options"));
    if (!options) options = json_object();
    json_t *state = init_from(rs, options, json_deep_copy(json_object_get(session, "setup")));
    if (!state) fail_msg("%s: scenarios/%s: its setup does not initialise", rs->id, name);
    char origin[160];
    snprintf(origin, sizeof origin, "scenarios/%s, at the start", name);
    add_state(states, json_incref(state), options, origin);
    uint64_t ref_nonce = 1;
    size_t i, stuck = 0;
    json_t *step;
    json_array_foreach(json_object_get(scenario, "actions"), i, step) {
        json_t *body = json_deep_copy(step);
        const char *as = json_string_value(json_object_get(step, "as"));
        char actor[8 + SIDE_NAME_MAX] = "referee";
        if (as && strcmp(as, "referee") != 0) snprintf(actor, sizeof actor, "side:%s", as);
        json_object_del(body, "as");
        char source[200];
        snprintf(source, sizeof source, "scenarios/%s, step %zu", name, i);
        state_entry here = {state, options, ""};
        snprintf(here.origin, sizeof here.origin, "scenarios/%s, before step %zu", name, i);

        action_envelope env;
        api_error err = {0};
        if (action_envelope_decode(body, &env, &err) != 0)
            fail_msg("%s: %s does not decode: %s", rs->id, source, err.message);
        const json_t *unit = env.has_unit ? rules_state_unit(state, env.unit) : NULL;
        /* A step naming a unit gone from the walk's state is the core's unknown_unit. */
        if (!env.has_unit || unit) check_case(rs, body, source, &here, actor, unit, c);

        const rules_action *a = ruleset_action(rs, env.type);
        void *decoded = a ? calloc(1, a->decoded_size ? a->decoded_size : 1) : NULL;
        json_t *next = NULL;
        if (a && (!env.has_unit || unit) && a->decode(env.fields, decoded, &err) == 0) {
            rules_ctx ctx = {
                .state = state, .options = options, .actor = actor, .unit = unit, .dice = NULL};
            next = advance(a, decoded, &ctx, &env, &ref_nonce);
        }
        api_error_clear(&err);
        free(decoded);
        action_envelope_clear(&env);
        json_decref(body);
        if (next) {
            json_decref(state);
            state = next;
            snprintf(origin, sizeof origin, "scenarios/%s, after step %zu", name, i);
            add_state(states, json_incref(state), options, origin);
        } else {
            stuck++;
        }
    }
    if (stuck)
        print_message("  %s: scenarios/%s: %zu of %zu steps did not advance under the reference "
                      "stream\n",
                      rs->id, name, stuck, json_array_size(json_object_get(scenario, "actions")));
    json_decref(state);
    json_decref(options);
}

/* (b): the action bodies a document shows: -d '...' bodies, ```json blocks, `{...}` spans. */
static void doc_try(const ruleset *rs, const char *doc, const char *text, size_t len,
                    const char *kind, vec *actions) {
    json_error_t je;
    json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    const char *type = json_string_value(json_object_get(v, "type"));
    if (json_is_object(v) && type && ruleset_action(rs, type)) {
        char source[200];
        snprintf(source, sizeof source, "%s, %s", doc, kind);
        add_action(actions, v, source);
    }
    json_decref(v);
}

static void doc_actions(const ruleset *rs, const char *doc, vec *actions) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", UMPIRE_SOURCE_DIR, doc);
    char *text = read_file_new(path, NULL);
    if (!text) return;
    for (const char *p = text; (p = strstr(p, "-d '")) != NULL;) {
        p += 4;
        const char *end = strchr(p, '\'');
        if (!end) break;
        doc_try(rs, doc, p, (size_t)(end - p), "curl body", actions);
        p = end + 1;
    }
    for (const char *p = text; (p = strstr(p, "```json\n")) != NULL;) {
        p += 8;
        const char *end = strstr(p, "```");
        if (!end) break;
        doc_try(rs, doc, p, (size_t)(end - p), "json block", actions);
        p = end + 3;
    }
    for (const char *p = text; (p = strstr(p, "`{")) != NULL;) {
        p += 1;
        const char *end = strchr(p, '`');
        if (!end) break;
        doc_try(rs, doc, p, (size_t)(end - p), "inline example", actions);
        p = end + 1;
    }
    free(text);
}

/* (c): every corpus file whose JSON (up to the first NUL) is an action of rs. */
static void corpus_actions(const ruleset *rs, vec *actions) {
    const char *dir = UMPIRE_SOURCE_DIR "/fuzz/corpus/fuzz_rules_resolve";
    size_t n;
    char **names = list_dir_new(dir, NULL, &n);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len = 0;
        char *data = read_file_new(path, &len);
        if (!data) continue;
        const char *nul = memchr(data, '\0', len);
        size_t jlen = nul ? (size_t)(nul - data) : len;
        api_error err = {0};
        json_t *body = json_in_parse_object_new(data, jlen, &err);
        api_error_clear(&err);
        action_envelope env;
        if (body && action_envelope_decode(body, &env, &err) == 0) {
            if (ruleset_action(rs, env.type)) {
                char source[200];
                snprintf(source, sizeof source, "fuzz/corpus/fuzz_rules_resolve/%s", names[i]);
                add_action(actions, body, source);
            }
            action_envelope_clear(&env);
        }
        api_error_clear(&err);
        json_decref(body);
        free(data);
    }
    list_free(names, n);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void every_answer_is_independent_of_uncommitted_dice(void **unused) {
    (void)unused;
    seeds_init();
    double t0 = now_s();
    size_t total_violations = 0, total_cases = 0;
    size_t nscen;
    char **scen = list_dir_new(UMPIRE_SOURCE_DIR "/scenarios", ".json", &nscen);
    assert_true(nscen > 0);

    for (size_t r = 0; r < ruleset_count(); r++) {
        const ruleset *rs = ruleset_at(r);
        counts c = {0};
        vec states = {.size = sizeof(state_entry)}, actions = {.size = sizeof(action_entry)};
        json_t *empty = json_object();

        /* The fuzzer's two states. */
        if (rs->sample_setup) {
            json_error_t je;
            json_t *st = init_from(rs, empty, json_loads(rs->sample_setup, 0, &je));
            if (!st) fail_msg("%s: sample_setup does not initialise", rs->id);
            add_state(&states, st, empty, "the ruleset's sample_setup");
        }
        json_t *bare = init_from(rs, empty,
                                 json_pack("{s:[{s:s, s:s}, {s:s, s:s}]}", "units", "id", "u1",
                                           "side", "red", "id", "u2", "side", "blue"));
        if (bare) add_state(&states, bare, empty, "two bare units (u1 red, u2 blue)");

        /* (a) */
        size_t walked = 0;
        for (size_t i = 0; i < nscen; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/scenarios/%s", UMPIRE_SOURCE_DIR, scen[i]);
            json_error_t je;
            json_t *sc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
            if (!sc) fail_msg("scenarios/%s: %s", scen[i], je.text);
            const char *id =
                json_string_value(json_object_get(json_object_get(sc, "session"), "ruleset"));
            if (id && strcmp(id, rs->id) == 0) {
                walk_scenario(rs, scen[i], sc, &states, &c);
                walked++;
            }
            json_decref(sc);
        }
        size_t scenario_cases = c.cases;

        /* (b) and (c) */
        char doc[256];
        snprintf(doc, sizeof doc, "docs/rules/%s.md", rs->id);
        doc_actions(rs, doc, &actions);
        doc_actions(rs, "docs/api.md", &actions);
        doc_actions(rs, "README.md", &actions);
        size_t ndoc = actions.n;
        corpus_actions(rs, &actions);

        state_entry *sts = states.items;
        action_entry *acts = actions.items;
        for (size_t k = 0; k < actions.n; k++)
            for (size_t s = 0; s < states.n; s++)
                check_loose(rs, &acts[k], &sts[s], &c);

        print_message("%s: %zu cases x %d dice streams (%zu resolves): %zu scenario steps in "
                      "%zu scenario(s); %zu documented and %zu corpus actions on %zu states; "
                      "%zu succeed under every stream (%zu of them rolling dice), %zu are "
                      "refused identically before any die, %zu violate the rule\n",
                      rs->id, c.cases, STREAMS, c.resolves, scenario_cases, walked, ndoc,
                      actions.n - ndoc, states.n, c.succeeded, c.rolled, c.refused, c.violations);
        /* Not vacuous: every ruleset has cases, scenario steps and examples among them, and
         * actions that roll dice (every ruleset has some). */
        if (c.cases == 0 || walked == 0 || actions.n == 0 || c.rolled == 0)
            fail_msg("%s: nothing to check (%zu cases, %zu scenarios, %zu actions, %zu rolling "
                     "dice)",
                     rs->id, c.cases, walked, actions.n, c.rolled);
        total_violations += c.violations;
        total_cases += c.cases;

        for (size_t s = 0; s < states.n; s++) {
            json_decref(sts[s].state);
            json_decref(sts[s].options);
        }
        for (size_t k = 0; k < actions.n; k++)
            json_decref(acts[k].body);
        free(states.items);
        free(actions.items);
        json_decref(empty);
    }
    list_free(scen, nscen);
    print_message("%zu cases in %.1f s\n", total_cases, now_s() - t0);
    if (total_violations)
        fail_msg("%zu (state, action) pairs were refused after a die or answered differently "
                 "under different dice streams (listed above)",
                 total_violations);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_answer_is_independent_of_uncommitted_dice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
