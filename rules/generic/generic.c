/* Ruleset `generic`: dice rolls in the contract's notation, for any game Umpire has no module
 * for. One action, `roll`; every die is logged; the state counts rolls and keeps the last. */
#include "protocol/decimal.h"
#include "protocol/json_in.h"
#include "rules/common/json_build.h"
#include "rules/common/notation.h"
#include "rules/common/sequence.h"
#include "rules/generic/choice.h"
#include "rules/ruleset.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PURPOSE_MAX 40

typedef struct generic_roll {
    char expr[NOTATION_MAX_LEN + 1];
    char purpose[PURPOSE_MAX + 1];
    notation parsed;
} generic_roll;

static const char *const roll_keys[] = {"expr", "purpose", NULL};

static int roll_decode(const json_t *fields, void *out, api_error *err) {
    generic_roll *r = out;
    const char *expr = NULL, *purpose = "roll";
    if (json_in_only_keys(fields, "", roll_keys, err) != 0) return -1;
    if (json_in_string(fields, "", "expr", true, NOTATION_MAX_LEN, &expr) != 0 ||
        json_in_string(fields, "", "purpose", false, PURPOSE_MAX, &purpose) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (*purpose == '\0') {
        api_error_field(err, "purpose", "a non-empty string");
        return -1;
    }
    snprintf(r->expr, sizeof r->expr, "%s", expr);
    snprintf(r->purpose, sizeof r->purpose, "%s", purpose);
    notation_error ne;
    if (notation_parse(r->expr, &r->parsed, &ne) != 0) {
        api_error_set(err, 422, "invalid_notation",
                      json_pack("{s:i, s:s}", "position", ne.pos, "expr", r->expr), "%s",
                      ne.message);
        return -1;
    }
    return 0;
}

static json_t *roll_encode(const void *action) {
    const generic_roll *r = action;
    return rules_set_str(rules_set_str(json_object(), "expr", r->expr), "purpose", r->purpose);
}

static int cmp_desc(const void *a, const void *b) {
    return *(const int *)b - *(const int *)a;
}

static int cmp_asc(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

/* Appends s to buf (cap bytes in all), truncating safely. */
static void say_str(char *buf, size_t cap, const char *s) {
    size_t len = strlen(buf), n = strlen(s);
    if (len + 1 >= cap) return;
    if (n > cap - len - 1) n = cap - len - 1;
    memcpy(buf + len, s, n);
    buf[len + n] = '\0';
}

/* Appends prefix and the decimal v (say's "%s%lld" without printf: this is per die). */
static void say_int(char *buf, size_t cap, const char *prefix, long long v) {
    char num[1 + DECIMAL_U64_MAX + 1];
    size_t n = 0;
    if (v < 0) num[n++] = '-';
    n += decimal_u64(num + n, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
    num[n] = '\0';
    say_str(buf, cap, prefix);
    say_str(buf, cap, num);
}

/* Appends printf output to the summary, truncating safely. */
static void say(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t cap, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* Rolls one dice term; fills its result object and its part of the summary. */
static int roll_term(dice_source *ds, const char *purpose, const notation_term *t, json_t *term,
                     char *parts, size_t cap, int64_t *value) {
    int values[NOTATION_MAX_DICE], kept[NOTATION_MAX_DICE];
    if (dice_roll(ds, purpose, t->text, t->count, t->sides, values) != 0) return -1;
    int nkept = t->count;
    memcpy(kept, values, sizeof(int) * (size_t)t->count);
    if (t->keep != NOTATION_KEEP_ALL) {
        qsort(kept, (size_t)t->count, sizeof(int),
              t->keep == NOTATION_KEEP_HIGH ? cmp_desc : cmp_asc);
        nkept = t->keep_n;
    }
    json_t *jvalues = json_array(), *jkept = json_array();
    *value = 0;
    say(parts, cap, "%s%s: [", t->sign < 0 ? "-" : "", t->text);
    for (int i = 0; i < t->count; i++) {
        json_array_append_new(jvalues, json_integer(values[i]));
        say_int(parts, cap, i ? "," : "", values[i]);
    }
    say_str(parts, cap, "]");
    if (t->keep != NOTATION_KEEP_ALL) say_str(parts, cap, " keep ");
    for (int i = 0; i < nkept; i++) {
        *value += kept[i];
        json_array_append_new(jkept, json_integer(kept[i]));
        if (t->keep != NOTATION_KEEP_ALL) say_int(parts, cap, i ? "+" : "", kept[i]);
    }
    say_int(parts, cap, " = ", (long long)*value);
    dice_set_value(ds, *value);
    json_object_set_new(term, "values", jvalues);
    if (t->keep != NOTATION_KEEP_ALL)
        json_object_set_new(term, "kept", jkept);
    else
        json_decref(jkept);
    return 0;
}

/* "referee" stays as is; "side:knight" reads as "knight" in a summary. */
static const char *actor_name(const char *actor) {
    return strncmp(actor, "side:", 5) == 0 ? actor + 5 : actor;
}

static int roll_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                        api_error *err) {
    const generic_roll *r = action;
    const notation *n = &r->parsed;
    json_t *terms = json_array();
    char parts[768] = "", canonical[NOTATION_MAX_LEN * 2] = "";
    int64_t total = 0;
    for (int i = 0; i < n->nterms; i++) {
        const notation_term *t = &n->terms[i];
        say(canonical, sizeof canonical, "%s%s", t->sign < 0 ? "-" : (i ? "+" : ""), t->text);
        if (i) say(parts, sizeof parts, "; ");
        json_t *term =
            rules_set_int(rules_set_str(json_object(), "term", t->text), "sign", t->sign);
        int64_t value;
        if (t->kind == NOTATION_TERM_DICE) {
            if (roll_term(ctx->dice, r->purpose, t, term, parts, sizeof parts, &value) != 0) {
                json_decref(term);
                json_decref(terms);
                api_error_set(err, 422, "invalid_notation", NULL,
                              "the roll asks for more dice than one action may roll");
                return -1;
            }
        } else {
            value = t->constant;
            say(parts, sizeof parts, "%s%lld", t->sign < 0 ? "-" : "+", (long long)value);
        }
        json_object_set_new(term, "value", json_integer(value));
        json_array_append_new(terms, term);
        total += t->sign * value;
    }
    out->result =
        rules_set_int(rules_set_str(json_object(), "expr", canonical), "total", (json_int_t)total);
    json_object_set_new_nocheck(out->result, "terms", terms);
    /* "knight rolled initiative 2d6+1 = 8 (2d6: [3,4] = 7; +1)"; a long roll is cut, never
     * overrun. */
    out->summary[0] = '\0';
    say(out->summary, sizeof out->summary, "%s rolled ", actor_name(ctx->actor));
    if (strcmp(r->purpose, "roll") != 0) say(out->summary, sizeof out->summary, "%s ", r->purpose);
    say(out->summary, sizeof out->summary, "%s = %lld (%s)", canonical, (long long)total, parts);

    /* Copy-on-write (rules/ruleset.h): a shallow copy shares units and the rest unchanged. */
    json_t *state = json_copy((json_t *)ctx->state);
    json_int_t rolls = json_integer_value(json_object_get(state, "rolls"));
    json_object_set_new(state, "rolls", json_integer(rolls + 1));
    json_t *last =
        rules_set_str(rules_set_str(json_object(), "actor", ctx->actor), "purpose", r->purpose);
    json_object_set_new(
        state, "last_roll",
        rules_set_int(rules_set_str(last, "expr", canonical), "total", (json_int_t)total));
    out->new_state = state;
    return out->result && state ? 0 : -1;
}

/* Odds of a roll: the distribution of its total. */
static json_t *roll_odds_key(const json_t *result, char *label, size_t cap) {
    json_int_t total = json_integer_value(json_object_get(result, "total"));
    snprintf(label, cap, "total %lld", (long long)total);
    return json_pack("{s:I}", "total", total);
}

static int by_total(const void *a, const void *b) {
    json_int_t x = json_integer_value(
                   json_object_get(json_object_get(*(json_t *const *)a, "result"), "total")),
               y = json_integer_value(
                   json_object_get(json_object_get(*(json_t *const *)b, "result"), "total"));
    return (x > y) - (x < y);
}

/* Outcomes in increasing total, and the mean beside them. */
static void roll_odds_finish(json_t *answer) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    size_t n = json_array_size(outcomes);
    json_t **rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) return;
    double mean = 0;
    for (size_t i = 0; i < n; i++) {
        rows[i] = json_incref(json_array_get(outcomes, i));
        mean += json_real_value(json_object_get(rows[i], "p")) *
                (double)json_integer_value(
                    json_object_get(json_object_get(rows[i], "result"), "total"));
    }
    qsort(rows, n, sizeof *rows, by_total);
    json_array_clear(outcomes);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(outcomes, rows[i]);
    free(rows);
    json_object_set_new(answer, "mean", json_real(mean));
}

/* ---- the sequence of play, when the setup asks for one ------------------------------------
 * The table plays its own rules, so by default anyone rolls at any time (the contract's generic
 * ruleset). A setup with `turn` ({} or {order?}) gets a house-default turn: each side in turn
 * has a Play phase in which it rolls and which it ends (end_phase); the referee rolls at any
 * time, out of sequence an override the log shows. */
static const seq_step generic_play[] = {{"roll", SEQ_PLAYER}, {NULL, 0}};
/* A sealed choice (issue 24: "generic: a sealed choice, e.g. secret bids"), house default: only
 * in a session whose setup.turn.phases names "choice"; once a turn every side chooses (choose)
 * and ends its part, or, with setup.turn.sealed, seals its choice, all revealed together. */
static const seq_step generic_choice_steps[] = {{"choose", SEQ_EVERY}, {NULL, 0}};
static const seq_phase generic_phases[] = {
    {"play", "Play", generic_play, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"choice", "Sealed choice", generic_choice_steps, SEQ_ONCE, SEQ_ENDS_EACH, true, NULL, true},
    {NULL, NULL, NULL, 0, 0, false, NULL, false},
};
static const seq_play generic_sequence = {
    generic_phases,
    "house default, only when the setup gives `turn`: each side in turn has a Play phase, in "
    "which it rolls, and ends it; without `turn` anyone rolls at any time; a Sealed choice "
    "(every side chooses, sealed with setup.turn.sealed) only when setup.turn.phases names "
    "\"choice\"",
    0,
};

static int generic_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                                     api_error *err) {
    (void)action;
    seq_turn turn;
    seq_change chg;
    if (seq_end_phase_begin(&generic_sequence, ctx, &turn, &chg, out, err) != 0) return -1;
    out->result = seq_end_phase_result_new(&generic_sequence, &turn, &chg);
    json_t *next = json_copy((json_t *)ctx->state);
    if (next) json_object_set_new(next, "turn", seq_turn_json(&generic_sequence, &turn));
    if (!out->result || !next) {
        json_decref(next);
        rules_outcome_clear(out);
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        return -1;
    }
    out->new_state = next;
    return 0;
}

static json_t *generic_init_state(const json_t *options, const json_t *setup, api_error *err) {
    static const char *const no_keys[] = {NULL};
    static const char *const setup_keys[] = {"units", "turn", NULL};
    if (json_in_only_keys(options, "options", no_keys, err) != 0 ||
        json_in_only_keys(setup, "setup", setup_keys, err) != 0)
        return NULL;
    json_t *units = json_object_get(setup, "units");
    json_t *state =
        json_pack("{s:o, s:i}", "units", units ? json_incref(units) : json_array(), "rolls", 0);
    if (state && json_object_get(setup, "turn")) {
        json_t *turn = seq_turn_init_new(&generic_sequence, setup, err);
        if (!turn) {
            json_decref(state);
            return NULL;
        }
        json_object_set_new(state, "turn", turn);
    }
    return state;
}

static const rules_field roll_fields[] = {
    {"expr", "string", 1,
     "dice notation: NdS, NdSkhK / NdSklK (keep highest / lowest K), integer constants, joined "
     "by + and -; at most 100 dice and 1000 sides"},
    {"purpose", "string", 0, "what the roll is for, as the log labels its dice (default \"roll\")"},
    {"unit", "string", 0, "the acting unit, if any (a side may roll only for its own units)"},
    {NULL, NULL, 0, NULL},
};

static const rules_field end_phase_fields[] = {{NULL, NULL, 0, NULL}};

static const rules_field choose_fields[] = {
    {"choice", "string", 1,
     "the side's choice, 1 to 200 bytes (a bid, a plan, a pick); sealed with the other sides' "
     "when the setup seals the Sealed choice phase"},
    {NULL, NULL, 0, NULL},
};

static const rules_action generic_actions[] = {
    {"roll", "Roll dice", roll_fields, sizeof(generic_roll), roll_decode, roll_encode, roll_resolve,
     roll_odds_key, roll_odds_finish},
    {"end_phase",
     "End your Play phase (only with setup.turn): the next side's begins; the referee ends any",
     end_phase_fields, 1, seq_end_phase_decode, seq_end_phase_encode, generic_end_phase_resolve,
     NULL, NULL},
    {"choose", "Make a choice (a side's; sealed in a sealed Sealed choice phase)", choose_fields,
     sizeof(generic_choice), generic_choose_decode, generic_choose_encode, generic_choose_resolve,
     NULL, NULL},
};

static const rules_field generic_options[] = {{NULL, NULL, 0, NULL}};
static const char *const generic_sources[] = {"shared/api-contract.md, Ruleset: generic", NULL};

/* For fuzzers and docs: generic keeps units as given (the core reads id and side only). */
static const char generic_sample_setup[] =
    "{\"units\": [{\"id\": \"hero\", \"side\": \"players\", \"name\": \"Hero\"}, "
    "{\"id\": \"orc\", \"side\": \"monsters\", \"name\": \"Orc\"}]}";

const ruleset ruleset_generic = {
    .id = "generic",
    .title = "Generic dice",
    /* Still 1: setup.turn (a sequence of play, end_phase) is new, and a session without it
     * resolves as before, so no history re-adjudicates differently. */
    .version = 1,
    .description =
        "Dice rolls in standard notation, logged and provably fair, for any game. Setup: "
        "units? [{id, side, ...}], turn? {order?: [sides], phases?, sealed?}: with turn, a "
        "house-default sequence of play (each side in turn has a Play phase in which it rolls, "
        "ended by end_phase; the referee rolls at any time, out of sequence an override); "
        "without it anyone rolls at any time. A Sealed choice phase (every side makes a choice "
        "with choose, e.g. a secret bid) only when turn.phases names \"choice\"; with "
        "turn.sealed the choices are sealed orders, revealed together (PUT "
        "/v1/sessions/{id}/orders/choice).",
    .actions = generic_actions,
    .nactions = sizeof generic_actions / sizeof generic_actions[0],
    .options_fields = generic_options,
    .sources = generic_sources,
    .init_state = generic_init_state,
    .sample_setup = generic_sample_setup,
    .sequence = &generic_sequence,
};
