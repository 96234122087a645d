#include "server/verify.h"

#include "protocol/api_error.h"
#include "rules/ruleset.h"
#include "server/chain.h"
#include "server/crypto.h"
#include "server/dice_fair.h"
#include "server/dice_source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A die rolled under a server seed not yet revealed: checked when the seed is. */
typedef struct pending_die {
    int64_t seq;
    uint64_t nonce;
    int sides, value;
} pending_die;

typedef enum { MODE_UNKNOWN, MODE_SERVER, MODE_SEEDED, MODE_MANUAL } dice_mode_v;

struct verifier {
    /* progress */
    int64_t events, last_seq;
    char head[65];          /* the chain so far: hash of the last event that linked */
    char verified_head[65]; /* hash of the last event that passed every check */
    bool failed;
    int64_t first_bad_seq;
    char reason[512];
    int64_t dice_checked, actions;
    bool expect_head, head_seen;
    char client_head[65];
    /* the session, from event 1 */
    char session_id[80];
    const ruleset *rs;
    json_t *options, *sides, *state;
    dice_mode_v mode;
    uint8_t seed[32];
    bool seed_known;
    char commitment[65];
    uint64_t next_nonce;
    pending_die *pending;
    size_t npending, cap_pending;
    /* events an action produced beyond its own, still to be matched */
    json_t *expected_extra;
    size_t extra_index;
};

verifier *verifier_new(void) {
    verifier *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    memcpy(v->head, CHAIN_ZERO_HASH, 65);
    memcpy(v->verified_head, CHAIN_ZERO_HASH, 65);
    v->next_nonce = 1;
    return v;
}

void verifier_free(verifier *v) {
    if (!v) return;
    json_decref(v->options);
    json_decref(v->sides);
    json_decref(v->state);
    json_decref(v->expected_extra);
    free(v->pending);
    free(v);
}

void verifier_expect_head(verifier *v, const char *head_hex) {
    v->expect_head = true;
    snprintf(v->client_head, sizeof v->client_head, "%s", head_hex);
}

static void fail(verifier *v, int64_t seq, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(verifier *v, int64_t seq, const char *fmt, ...) {
    if (v->failed) return;
    v->failed = true;
    v->first_bad_seq = seq;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
}

static const char *str(const json_t *obj, const char *key) {
    return json_string_value(json_object_get(obj, key));
}

/* ---- event 1 ------------------------------------------------------------------------------ */

static void start_session(verifier *v, int64_t seq, const json_t *data) {
    const char *id = str(data, "id"), *rs = str(data, "ruleset");
    const json_t *dice = json_object_get(data, "dice");
    const char *mode = str(dice, "mode"), *commitment = str(dice, "commitment");
    if (!id || !rs || !mode || !json_is_array(json_object_get(data, "sides"))) {
        fail(v, seq, "session_created lacks id, ruleset, sides or dice.mode");
        return;
    }
    snprintf(v->session_id, sizeof v->session_id, "%s", id);
    v->rs = ruleset_find(rs);
    if (!v->rs) {
        fail(v, seq, "ruleset '%s' is not known to this verifier", rs);
        return;
    }
    v->mode = strcmp(mode, "server") == 0   ? MODE_SERVER
              : strcmp(mode, "seeded") == 0 ? MODE_SEEDED
              : strcmp(mode, "manual") == 0 ? MODE_MANUAL
                                            : MODE_UNKNOWN;
    if (v->mode == MODE_UNKNOWN) {
        fail(v, seq, "unknown dice mode '%s'", mode);
        return;
    }
    if (v->mode != MODE_MANUAL) {
        if (!commitment || strlen(commitment) != 64) {
            fail(v, seq, "dice.commitment is missing");
            return;
        }
        memcpy(v->commitment, commitment, 65);
    }
    if (v->mode == MODE_SEEDED) {
        const char *seed = str(dice, "seed");
        uint8_t digest[32];
        char hex[65];
        if (!seed || crypto_hex_decode(seed, v->seed, 32) != 0) {
            fail(v, seq, "seeded mode without a 32-byte seed");
            return;
        }
        crypto_sha256(v->seed, 32, digest);
        crypto_hex_encode(digest, 32, hex);
        if (strcmp(hex, v->commitment) != 0) {
            fail(v, seq, "the seed does not hash to its commitment");
            return;
        }
        v->seed_known = true;
    }
    v->sides = json_incref(json_object_get(data, "sides"));
    v->options = json_incref(json_object_get(data, "options"));
    api_error err = {0};
    const json_t *setup = json_object_get(data, "setup");
    v->state = json_is_object(v->options) && json_is_object(setup)
                   ? v->rs->init_state(v->options, setup, &err)
                   : NULL;
    if (!v->state) fail(v, seq, "the setup does not initialise ruleset '%s': %s", rs, err.message);
    api_error_clear(&err);
}

/* ---- dice --------------------------------------------------------------------------------- */

static bool die_matches_seed(const verifier *v, const uint8_t seed[32], uint64_t nonce, int sides,
                             int value) {
    return (int)dice_fair_roll(seed, v->session_id, nonce, (uint32_t)sides) == value;
}

static int add_pending(verifier *v, int64_t seq, uint64_t nonce, int sides, int value) {
    if (v->npending == v->cap_pending) {
        size_t cap = v->cap_pending ? v->cap_pending * 2 : 64;
        pending_die *p = realloc(v->pending, cap * sizeof *p);
        if (!p) return -1;
        v->pending = p;
        v->cap_pending = cap;
    }
    v->pending[v->npending++] = (pending_die){seq, nonce, sides, value};
    return 0;
}

/* The dice a re-run just rolled: checked now (seed known) or when their seed is revealed. */
static void check_dice(verifier *v, int64_t seq, const dice_source *ds) {
    if (v->mode == MODE_MANUAL) return;
    for (size_t i = 0; i < dice_source_die_count(ds) && !v->failed; i++) {
        uint64_t nonce;
        int sides, value;
        dice_source_die(ds, i, &nonce, &sides, &value);
        if (v->seed_known) {
            if (!die_matches_seed(v, v->seed, nonce, sides, value))
                fail(v, seq, "die with nonce %llu shows %d, but the seed gives %d",
                     (unsigned long long)nonce, value,
                     (int)dice_fair_roll(v->seed, v->session_id, nonce, (uint32_t)sides));
            v->dice_checked++;
        } else if (add_pending(v, seq, nonce, sides, value) != 0) {
            fail(v, seq, "out of memory");
        }
    }
}

static void reveal(verifier *v, int64_t seq, const json_t *data) {
    const char *seed_hex = str(data, "seed"), *commitment = str(data, "commitment"),
               *next = str(data, "next_commitment");
    json_t *last = json_object_get(data, "last_nonce");
    uint8_t seed[32], digest[32];
    char hex[65];
    if (v->mode != MODE_SERVER) {
        fail(v, seq, "a dice seed is revealed in %s mode",
             v->mode == MODE_SEEDED ? "seeded" : "manual");
        return;
    }
    if (!seed_hex || !commitment || !next || strlen(next) != 64 || !json_is_integer(last) ||
        crypto_hex_decode(seed_hex, seed, 32) != 0) {
        fail(v, seq, "dice_seed_revealed lacks seed, commitment, last_nonce or next_commitment");
        return;
    }
    if (strcmp(commitment, v->commitment) != 0) {
        fail(v, seq, "the revealed commitment is not the one published before");
        return;
    }
    crypto_sha256(seed, 32, digest);
    crypto_hex_encode(digest, 32, hex);
    if (strcmp(hex, v->commitment) != 0) {
        fail(v, seq, "the revealed seed does not hash to its commitment");
        return;
    }
    if ((uint64_t)json_integer_value(last) != v->next_nonce - 1) {
        fail(v, seq, "last_nonce is %lld but the log used nonces up to %llu",
             (long long)json_integer_value(last), (unsigned long long)(v->next_nonce - 1));
        return;
    }
    for (size_t i = 0; i < v->npending; i++) {
        const pending_die *d = &v->pending[i];
        if (!die_matches_seed(v, seed, d->nonce, d->sides, d->value)) {
            fail(v, d->seq, "die with nonce %llu shows %d, but the revealed seed gives %d",
                 (unsigned long long)d->nonce, d->value,
                 (int)dice_fair_roll(seed, v->session_id, d->nonce, (uint32_t)d->sides));
            return;
        }
        v->dice_checked++;
    }
    v->npending = 0;
    memcpy(v->commitment, next, 65);
}

/* ---- actions ------------------------------------------------------------------------------ */

/* The logged dice values, in order, flattened. NULL (and *n = 0) when there are none. */
static int64_t *logged_values_new(const json_t *dice, size_t *n) {
    size_t total = 0, i, j;
    json_t *d, *x;
    json_array_foreach(dice, i, d) total += json_array_size(json_object_get(d, "values"));
    *n = 0;
    int64_t *out = total ? malloc(total * sizeof *out) : NULL;
    if (!out) return NULL;
    json_array_foreach(dice, i, d) {
        json_array_foreach(json_object_get(d, "values"), j, x) out[(*n)++] = json_integer_value(x);
    }
    return out;
}

/* The actor may act with this unit: the referee with any, a side with its own. */
static const char *check_actor(const verifier *v, const char *actor, const json_t *action,
                               const json_t **unit) {
    *unit = NULL;
    bool side = strncmp(actor, "side:", 5) == 0;
    if (strcmp(actor, "referee") != 0) {
        bool known = false;
        size_t i;
        json_t *s;
        json_array_foreach(v->sides, i, s) known |=
            side && strcmp(json_string_value(s), actor + 5) == 0;
        if (!known) return "the actor is neither the referee nor a side of the session";
    }
    const char *unit_id = str(action, "unit");
    if (!unit_id) return NULL;
    *unit = rules_state_unit(v->state, unit_id);
    if (!*unit) return "the action names a unit that is not in the session";
    if (side && strcmp(str(*unit, "side") ? str(*unit, "side") : "", actor + 5) != 0)
        return "a side acted with a unit of another side";
    return NULL;
}

static void readjudicate(verifier *v, int64_t seq, const char *type, const char *actor,
                         const json_t *data) {
    const json_t *action = json_object_get(data, "action");
    const rules_action *a = ruleset_action(v->rs, type);
    if (!a || !json_is_object(action) || !str(action, "type") ||
        strcmp(str(action, "type"), type)) {
        fail(v, seq, "event type '%s' is not an action of ruleset '%s'", type, v->rs->id);
        return;
    }
    const json_t *unit;
    const char *why = check_actor(v, actor, action, &unit);
    if (why) {
        fail(v, seq, "%s", why);
        return;
    }
    json_int_t logged_version = json_integer_value(json_object_get(data, "ruleset_version"));
    json_t *fields = json_deep_copy(action);
    json_object_del(fields, "type");
    json_object_del(fields, "unit");
    void *decoded = calloc(1, a->decoded_size);
    size_t nvalues;
    int64_t *values = logged_values_new(json_object_get(data, "dice"), &nvalues);
    dice_source *ds =
        dice_source_new_replay(values, nvalues, v->mode == MODE_MANUAL, v->next_nonce);
    api_error err = {0};
    rules_outcome out = {0};
    json_t *records = NULL;
    if (!decoded || !ds) {
        fail(v, seq, "out of memory");
    } else if (a->decode(fields, decoded, &err) != 0) {
        fail(v, seq, "the recorded action no longer decodes: %s", err.message);
    } else {
        rules_ctx ctx = {v->state, v->options, actor, unit, ds};
        if (a->resolve(&ctx, decoded, &out, &err) != 0)
            fail(v, seq, "re-adjudication refuses the action: %s", err.message);
        else if (dice_source_unsatisfied(ds))
            fail(v, seq, "the logged dice do not fit what the rules roll for this action");
        else if (!json_equal(records = dice_source_records_new(ds), json_object_get(data, "dice")))
            fail(v, seq,
                 "the logged dice differ from the dice the rules roll (purpose, notation, "
                 "nonce or value)");
        else if (!json_equal(out.result, json_object_get(data, "result")))
            fail(v, seq, "re-adjudication gives a different result");
        else if (!str(data, "summary") || strcmp(out.summary, str(data, "summary")) != 0)
            fail(v, seq, "re-adjudication gives a different summary");
    }
    if (v->failed && logged_version != v->rs->version) {
        size_t len = strlen(v->reason);
        snprintf(v->reason + len, sizeof v->reason - len,
                 " (logged under ruleset version %lld, checked with version %d)",
                 (long long)logged_version, v->rs->version);
    }
    if (!v->failed) {
        check_dice(v, seq, ds);
        if (v->mode != MODE_MANUAL) v->next_nonce = dice_source_next_nonce(ds);
        json_decref(v->state);
        v->state = out.new_state;
        out.new_state = NULL;
        if (json_array_size(out.extra_events)) {
            v->expected_extra = json_incref(out.extra_events);
            v->extra_index = 0;
        }
        v->actions++;
    }
    json_decref(records);
    rules_outcome_clear(&out);
    api_error_clear(&err);
    dice_source_free(ds);
    free(values);
    free(decoded);
    json_decref(fields);
}

/* An event an action produced beyond its own must be exactly the one re-adjudication gives. */
static void match_extra(verifier *v, int64_t seq, const char *type, const json_t *data) {
    const json_t *want = json_array_get(v->expected_extra, v->extra_index++);
    if (strcmp(str(want, "type") ? str(want, "type") : "", type) != 0 ||
        !json_equal(json_object_get(want, "data"), data))
        fail(v, seq, "re-adjudication gives a different '%s' event", type);
    if (v->extra_index >= json_array_size(v->expected_extra)) {
        json_decref(v->expected_extra);
        v->expected_extra = NULL;
    }
}

/* ---- the chain ---------------------------------------------------------------------------- */

void verifier_feed_unreadable(verifier *v, const char *why) {
    v->events++;
    fail(v, v->last_seq + 1, "entry after seq %lld is unreadable: %s", (long long)v->last_seq, why);
}

void verifier_feed(verifier *v, const json_t *event) {
    v->events++;
    const char *hash = str(event, "hash");
    if (hash && v->expect_head && strcmp(hash, v->client_head) == 0) v->head_seen = true;
    if (v->failed) return;
    json_t *jseq = json_object_get(event, "seq");
    const char *ts = str(event, "ts"), *actor = str(event, "actor"), *type = str(event, "type"),
               *prev = str(event, "prev");
    const json_t *data = json_object_get(event, "data");
    int64_t expected = v->last_seq + 1;
    if (!json_is_integer(jseq) || !ts || !actor || !type || !prev || !hash ||
        !json_is_object(data)) {
        fail(v, expected, "event %lld is malformed", (long long)expected);
        return;
    }
    int64_t seq = json_integer_value(jseq);
    if (seq != expected) {
        fail(v, expected, "event %lld is missing (the next stored event is %lld)",
             (long long)expected, (long long)seq);
        return;
    }
    if (strcmp(prev, v->head) != 0) {
        fail(v, seq, "prev does not link to the hash of event %lld", (long long)(seq - 1));
        return;
    }
    char computed[65];
    if (chain_event_hash(prev, seq, ts, actor, type, data, computed) != 0 ||
        strcmp(computed, hash) != 0) {
        fail(v, seq, "the hash does not match the event's content");
        return;
    }
    memcpy(v->head, hash, 65);
    v->last_seq = seq;

    if (seq == 1) {
        if (strcmp(type, "session_created") != 0)
            fail(v, seq, "event 1 is '%s', not session_created", type);
        else
            start_session(v, seq, data);
    } else if (v->expected_extra) {
        match_extra(v, seq, type, data);
    } else if (strcmp(type, "dice_seed_revealed") == 0) {
        reveal(v, seq, data);
    } else if (strcmp(type, "session_created") == 0) {
        fail(v, seq, "a second session_created");
    } else {
        readjudicate(v, seq, type, actor, data);
    }
    if (!v->failed) memcpy(v->verified_head, hash, 65);
}

void verifier_finish(verifier *v, int64_t stored_version, const char *stored_head) {
    if (v->events == 0) fail(v, 1, "the log is empty");
    if (v->expected_extra)
        fail(v, v->last_seq + 1, "events produced by the action at seq %lld are missing",
             (long long)v->last_seq);
    if (v->expect_head && !v->head_seen)
        fail(v, v->last_seq + 1,
             "the head the client holds is not in the log: it was truncated or rewritten after "
             "seq %lld",
             (long long)v->last_seq);
    if (stored_version >= 0 && stored_version != v->last_seq)
        fail(v, (stored_version < v->last_seq ? stored_version : v->last_seq) + 1,
             "the session claims version %lld but the log ends at seq %lld",
             (long long)stored_version, (long long)v->last_seq);
    if (stored_version >= 0 && stored_head && stored_version == v->last_seq &&
        strcmp(stored_head, v->head) != 0)
        fail(v, v->last_seq, "the session's head is not the hash of its last event");
}

bool verifier_ok(const verifier *v) {
    return !v->failed;
}

json_t *verifier_report_new(const verifier *v) {
    return json_pack("{s:b, s:I, s:s, s:o, s:o, s:I, s:I}", "ok", !v->failed, "events",
                     (json_int_t)v->events, "head", v->verified_head, "first_bad_seq",
                     v->failed ? json_integer(v->first_bad_seq) : json_null(), "reason",
                     v->failed ? json_string(v->reason) : json_null(), "dice_checked",
                     (json_int_t)v->dice_checked, "actions_readjudicated", (json_int_t)v->actions);
}
