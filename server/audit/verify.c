#include "server/audit/verify.h"

#include "protocol/api_error.h"
#include "protocol/utf8.h"
#include "rules/dice_source.h"
#include "rules/common/orders.h"
#include "rules/common/resolve.h"
#include "rules/ruleset.h"
#include "server/audit/chain.h"
#include "server/audit/pending_dice.h"
#include "server/core/crypto.h"
#include "server/dice/dice_fair.h"
#include "server/dice/entropy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    bool manual_by_referee;
    /* players' entropy in force: {role: seed} and its digest (server/dice/entropy.h), and the next
     * nonce when each role last contributed ({role: n}) */
    json_t *in_force, *contributed_at;
    char entropy[65];
    /* dice rolled under a server seed not yet revealed: checked when the seed is */
    pending_dice *pending;
    const atomic_bool *cancel; /* verifier_set_cancel */
    /* events an action produced beyond its own, still to be matched */
    json_t *expected_extra;
    size_t extra_index;
    /* sealed orders: each side's last commitment, {side: {"commitment", "step", "turn"}} */
    json_t *seals;
};

verifier *verifier_new(void) {
    verifier *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    memcpy(v->head, CHAIN_ZERO_HASH, 65);
    memcpy(v->verified_head, CHAIN_ZERO_HASH, 65);
    v->next_nonce = 1;
    v->pending = pending_dice_new();
    if (!v->pending) {
        free(v);
        return NULL;
    }
    return v;
}

void verifier_free(verifier *v) {
    if (!v) return;
    json_decref(v->options);
    json_decref(v->sides);
    json_decref(v->state);
    json_decref(v->in_force);
    json_decref(v->contributed_at);
    json_decref(v->expected_extra);
    json_decref(v->seals);
    pending_dice_free(v->pending);
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
    /* The reason quotes the log (a parser's message about a line, a name): bytes that are not
     * UTF-8, or a character cut at the end, would make the report unrepresentable in JSON. */
    utf8_sanitize(v->reason);
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
    size_t i;
    json_t *side;
    json_array_foreach(json_object_get(data, "sides"), i, side) {
        if (!json_is_string(side)) {
            fail(v, seq, "session_created lists a side that is not a name");
            return;
        }
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
    const json_t *manual_by = json_object_get(dice, "manual_by");
    if (manual_by) {
        if (v->mode != MODE_MANUAL || !json_is_string(manual_by) ||
            strcmp(json_string_value(manual_by), "referee") != 0) {
            fail(v, seq, "dice.manual_by is set, but not to \"referee\" in manual mode");
            return;
        }
        v->manual_by_referee = true;
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

/* The die the seed gives for this nonce, with the entropy that was in force. */
static int fair_die(const verifier *v, const uint8_t seed[32], uint64_t nonce, int sides,
                    const char *entropy) {
    return (int)dice_fair_roll_mixed(seed, v->session_id, nonce, entropy, (uint32_t)sides);
}

static bool cancelled(const verifier *v) {
    return v->cancel && atomic_load_explicit(v->cancel, memory_order_relaxed);
}

void verifier_set_cancel(verifier *v, const atomic_bool *cancel) {
    v->cancel = cancel;
}

bool verifier_cancelled(const verifier *v) {
    return cancelled(v);
}

/* The dice a re-run just rolled: checked now (seed known) or when their seed is revealed. */
static void check_dice(verifier *v, int64_t seq, const dice_source *ds) {
    if (v->mode == MODE_MANUAL) return;
    for (size_t i = 0; i < dice_source_die_count(ds) && !v->failed; i++) {
        uint64_t nonce;
        int sides, value;
        dice_source_die(ds, i, &nonce, &sides, &value);
        if (v->seed_known) {
            int want = fair_die(v, v->seed, nonce, sides, v->entropy);
            if (want != value)
                fail(v, seq, "die with nonce %llu shows %d, but the seed gives %d",
                     (unsigned long long)nonce, value, want);
            v->dice_checked++;
        } else if (pending_dice_add(v->pending, seq, nonce, sides, value, v->entropy) != 0) {
            fail(v, seq, "the dice awaiting their seed could not be kept (out of memory or disk)");
        }
    }
}

/* Each die held since the last reveal against the revealed seed (pending_dice_drain). */
typedef struct reveal_check {
    verifier *v;
    const uint8_t *seed;
} reveal_check;

static int check_pending_die(void *arg, int64_t seq, uint64_t nonce, int sides, int value,
                             const char *entropy) {
    reveal_check *ck = arg;
    verifier *v = ck->v;
    /* a long list is minutes of HMAC: stop when nobody waits for the verdict */
    if ((v->dice_checked & 1023) == 0 && cancelled(v)) {
        fail(v, seq, "the verification was cancelled");
        return 1;
    }
    int want = fair_die(v, ck->seed, nonce, sides, entropy);
    if (want != value) {
        fail(v, seq, "die with nonce %llu shows %d, but the revealed seed gives %d",
             (unsigned long long)nonce, value, want);
        return 1;
    }
    v->dice_checked++;
    return 0;
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
    reveal_check ck = {v, seed};
    int rc = pending_dice_drain(v->pending, check_pending_die, &ck);
    if (rc < 0) fail(v, seq, "the dice awaiting their seed could not be read back");
    if (rc) return;
    memcpy(v->commitment, next, 65);
    /* The fresh seed was drawn after the contributions were known: they end here. */
    json_decref(v->in_force);
    v->in_force = NULL;
    json_decref(v->contributed_at);
    v->contributed_at = NULL;
    v->entropy[0] = '\0';
}

/* ---- players' entropy --------------------------------------------------------------------- */

static bool actor_known(const verifier *v, const char *actor) {
    if (strcmp(actor, "referee") == 0) return true;
    size_t i;
    json_t *s;
    json_array_foreach(v->sides, i, s) {
        if (strncmp(actor, "side:", 5) == 0 && json_is_string(s) &&
            strcmp(json_string_value(s), actor + 5) == 0)
            return true;
    }
    return false;
}

/* token_rotated / token_revoked {role}: the referee changed a role's token (never in the log);
 * dice and state are untouched. A side's token only is revoked. */
static void token_changed(verifier *v, int64_t seq, const char *type, const char *actor,
                          const json_t *data) {
    const char *role = str(data, "role");
    if (strcmp(actor, "referee") != 0)
        fail(v, seq, "%s by '%s', not the referee", type, actor);
    else if (!role || json_object_size(data) != 1 || !actor_known(v, role))
        fail(v, seq, "%s names no role of the session", type);
    else if (strcmp(type, "token_revoked") == 0 && strcmp(role, "referee") == 0)
        fail(v, seq, "the referee's token is revoked");
}

/* entropy_contributed {role, seed, in_force, digest}: the actor's own contribution, added to
 * those in force, with the digest every later die's message carries. */
static void contribute(verifier *v, int64_t seq, const char *actor, const json_t *data) {
    static const char *const members[] = {"role", "seed", "in_force", "digest", NULL};
    const char *role = str(data, "role"), *seed = str(data, "seed"), *digest = str(data, "digest");
    const json_t *in_force = json_object_get(data, "in_force");
    if (v->mode == MODE_MANUAL) {
        fail(v, seq, "a contribution to the dice in manual mode");
        return;
    }
    size_t known = 0;
    for (size_t i = 0; members[i]; i++)
        known += json_object_get(data, members[i]) != NULL;
    if (!role || !seed || !digest || !json_is_object(in_force) || json_object_size(data) != known) {
        fail(v, seq, "entropy_contributed has other members than role, seed, in_force, digest");
        return;
    }
    if (strcmp(role, actor) != 0 || !actor_known(v, actor)) {
        fail(v, seq, "a contribution is made by '%s' in the name of '%s'", actor, role);
        return;
    }
    if (!entropy_seed_valid(seed, json_string_length(json_object_get(data, "seed")))) {
        fail(v, seq, "a contribution is not 1 to 64 printable ASCII characters");
        return;
    }
    const json_t *at = json_object_get(v->contributed_at, role);
    if (at && (uint64_t)json_integer_value(at) == v->next_nonce) {
        fail(v, seq, "'%s' contributed twice with no die rolled between", role);
        return;
    }
    if (!v->contributed_at) v->contributed_at = json_object();
    if (!v->contributed_at ||
        json_object_set_new(v->contributed_at, role, json_integer((json_int_t)v->next_nonce))) {
        fail(v, seq, "out of memory");
        return;
    }
    json_t *expected = v->in_force ? json_copy(v->in_force) : json_object();
    if (!expected || json_object_set_new(expected, role, json_string(seed)) != 0) {
        json_decref(expected);
        fail(v, seq, "out of memory");
        return;
    }
    char want[65];
    if (!json_equal(expected, in_force)) {
        fail(v, seq, "in_force is not the contributions before it plus this one");
    } else if (entropy_digest_of_in_force(expected, want) != 0 || strcmp(want, digest) != 0) {
        fail(v, seq, "the digest is not the SHA-256 of the contributions in force");
    } else {
        json_decref(v->in_force);
        v->in_force = expected;
        expected = NULL;
        memcpy(v->entropy, want, sizeof want);
    }
    json_decref(expected);
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
    if (!actor_known(v, actor)) return "the actor is neither the referee nor a side of the session";
    const char *unit_id = str(action, "unit");
    if (!unit_id) return NULL;
    *unit = rules_state_unit(v->state, unit_id);
    if (!*unit) return "the action names a unit that is not in the session";
    if (side && strcmp(str(*unit, "side") ? str(*unit, "side") : "", actor + 5) != 0)
        return "a side acted with a unit of another side";
    return NULL;
}

/* dice.manual_by "referee": a side never types dice. */
static bool dice_typed_by_side(const verifier *v, const char *actor, const json_t *data) {
    return v->manual_by_referee && strcmp(actor, "referee") != 0 &&
           json_array_size(json_object_get(data, "dice")) > 0;
}

static void readjudicate(verifier *v, int64_t seq, const char *type, const char *actor,
                         const json_t *data) {
    const json_t *action = json_object_get(data, "action");
    const rules_action *a = rules_action_find(v->rs, type);
    if (!a || !json_is_object(action) || !str(action, "type") ||
        strcmp(str(action, "type"), type)) {
        fail(v, seq, "event type '%s' is not an action of ruleset '%s'", type, v->rs->id);
        return;
    }
    const json_t *unit;
    const char *why = check_actor(v, actor, action, &unit);
    if (!why && dice_typed_by_side(v, actor, data))
        why = "a side typed the dice in a session where only the referee types them";
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
        rules_ctx ctx = {
            .state = v->state, .options = v->options, .actor = actor, .unit = unit, .dice = ds};
        if (rules_resolve(v->rs, a, &ctx, decoded, &out, &err) != 0)
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

/* ---- sealed orders (rules/common/orders.h) ------------------------------------------------ */

/* orders_sealed {commitment, side, step, summary, turn}: by that side, for the step being sealed;
 * the state follows it (state.turn.done gains the side), and its commitment is the one the reveal
 * must match. */
static void orders_sealed(verifier *v, int64_t seq, const char *actor, const json_t *data) {
    const char *side = str(data, "side"), *step = str(data, "step"),
               *commitment = str(data, "commitment"), *summary = str(data, "summary");
    const json_t *turn = json_object_get(data, "turn");
    if (json_object_size(data) != 5 || !side || !step || !commitment || !summary ||
        !json_is_integer(turn) || strlen(commitment) != 64) {
        fail(v, seq, "orders_sealed is not {commitment, side, step, summary, turn}");
        return;
    }
    if (strncmp(actor, "side:", 5) != 0 || strcmp(actor + 5, side) != 0) {
        fail(v, seq, "orders_sealed for '%s' by '%s': a side seals only its own orders", side,
             actor);
        return;
    }
    seq_turn t;
    const char *now = orders_step_now(v->rs, v->state, &t);
    if (!now || strcmp(now, step) != 0 || json_integer_value(turn) != t.number ||
        seq_side_steps_now(v->rs->sequence, &t, side) <= 0) {
        fail(v, seq, "orders_sealed for step '%s' of turn %lld, which '%s' cannot seal now", step,
             (long long)json_integer_value(turn), side);
        return;
    }
    char want[300];
    orders_sealed_summary(v->rs, v->state, side, want, sizeof want);
    json_t *next = orders_sealed_state_new(v->rs, v->state, side);
    if (strcmp(want, summary) != 0) {
        fail(v, seq, "orders_sealed's summary is not the one the umpire writes");
    } else if (!next || (!v->seals && !(v->seals = json_object()))) {
        fail(v, seq, "out of memory");
    } else {
        json_object_set_new(v->seals, side,
                            json_pack("{s:s, s:s, s:I}", "commitment", commitment, "step", step,
                                      "turn", (json_int_t)json_integer_value(turn)));
        json_decref(v->state);
        v->state = next;
        next = NULL;
    }
    json_decref(next);
}

/* orders_revealed: every revealed side's salt and actions must give its last commitment for this
 * step and turn, every side that sealed must be revealed (the umpire drops no orders), and only
 * the referee's close reveals with a side's orders missing. Re-adjudication then checks the
 * rest. */
static void orders_revealed(verifier *v, int64_t seq, const char *actor, const json_t *data) {
    const json_t *action = json_object_get(data, "action");
    const json_t *orders = json_object_get(action, "orders");
    const char *step = str(action, "step");
    json_int_t turn = json_integer_value(json_object_get(action, "turn"));
    bool closed = json_is_true(json_object_get(action, "closed"));
    if (!json_is_array(orders) || !step) {
        fail(v, seq, "orders_revealed has no step or orders");
        return;
    }
    if (closed && strcmp(actor, "referee") != 0) {
        fail(v, seq, "a step of sealed orders closed by '%s', not the referee", actor);
        return;
    }
    size_t i, listed = 0;
    const json_t *e;
    json_array_foreach(orders, i, e) {
        const char *side = str(e, "side");
        const json_t *seal = side ? json_object_get(v->seals, side) : NULL;
        char got[65];
        if (!seal || strcmp(str(seal, "step"), step) != 0 ||
            json_integer_value(json_object_get(seal, "turn")) != turn) {
            fail(v, seq, "orders of '%s' are revealed that it never sealed for this step",
                 side ? side : "?");
            return;
        }
        if (chain_orders_commitment(str(e, "salt"), json_object_get(e, "actions"), got) != 0 ||
            strcmp(got, str(seal, "commitment")) != 0) {
            fail(v, seq,
                 "the orders revealed for '%s' do not match the commitment it sealed (salt and "
                 "canonical JSON of the actions)",
                 side);
            return;
        }
        listed++;
    }
    size_t sealed_now = 0;
    const char *k;
    const json_t *seal;
    json_object_foreach(v->seals, k, seal) {
        if (strcmp(str(seal, "step"), step) == 0 &&
            json_integer_value(json_object_get(seal, "turn")) == turn)
            sealed_now++;
    }
    if (sealed_now != listed) {
        fail(v, seq, "a side's sealed orders are missing from the reveal");
        return;
    }
    if (!closed && !orders_all_sealed(v->rs, v->state)) {
        fail(v, seq, "orders revealed before every acting side sealed, and not by the referee");
        return;
    }
    json_object_clear(v->seals);
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

/* True when a string anywhere in v (keys too) holds a NUL: C code, the hash among it, would read
 * such a string only up to the NUL, so "side:knight\u0000x" would verify as "side:knight". */
static bool holds_nul(const json_t *v) {
    if (json_is_string(v)) return strlen(json_string_value(v)) != json_string_length(v);
    size_t i;
    const char *key;
    json_t *x;
    if (json_is_array(v)) json_array_foreach(v, i, x) {
            if (holds_nul(x)) return true;
        }
    if (json_is_object(v)) json_object_foreach((json_t *)v, key, x) {
            if (holds_nul(x)) return true;
        }
    return false;
}

/* Exactly the members of an event line: anything else would be read by some readers and not
 * hashed. */
static bool only_event_members(const json_t *event) {
    static const char *const members[] = {"seq", "ts", "actor", "type", "data", "prev", "hash"};
    size_t known = 0;
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
        known += json_object_get(event, members[i]) != NULL;
    return json_is_object(event) && json_object_size(event) == known;
}

void verifier_feed(verifier *v, const json_t *event) {
    v->events++;
    const char *hash = str(event, "hash");
    if (hash && v->expect_head && strcmp(hash, v->client_head) == 0) v->head_seen = true;
    if (v->failed) return;
    if (!only_event_members(event)) {
        fail(v, v->last_seq + 1,
             "event %lld has a member other than seq, ts, actor, type, data, "
             "prev and hash",
             (long long)(v->last_seq + 1));
        return;
    }
    if (holds_nul(event)) {
        fail(v, v->last_seq + 1, "event %lld holds a NUL character in a string",
             (long long)(v->last_seq + 1));
        return;
    }
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
        if (!actor_known(v, actor))
            fail(v, seq, "the dice seed is revealed by '%s', not the referee or a side", actor);
        else
            reveal(v, seq, data);
    } else if (strcmp(type, "entropy_contributed") == 0) {
        contribute(v, seq, actor, data);
    } else if (strcmp(type, "token_rotated") == 0 || strcmp(type, "token_revoked") == 0) {
        token_changed(v, seq, type, actor, data);
    } else if (strcmp(type, "session_created") == 0) {
        fail(v, seq, "a second session_created");
    } else if (strcmp(type, "orders_sealed") == 0 && v->rs) {
        orders_sealed(v, seq, actor, data);
    } else if (strcmp(type, ORDERS_REVEALED) == 0 && v->rs && v->rs->sequence) {
        orders_revealed(v, seq, actor, data);
        if (!v->failed) readjudicate(v, seq, type, actor, data);
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

void verifier_check_dice_state(verifier *v, int64_t next_nonce, const char *entropy_digest,
                               bool manual_by_referee) {
    if (v->mode == MODE_UNKNOWN) return; /* no session_created: already failed */
    if (v->mode != MODE_MANUAL && (uint64_t)next_nonce != v->next_nonce)
        fail(v, v->last_seq, "the session's next nonce is %lld but the log used nonces up to %llu",
             (long long)next_nonce, (unsigned long long)(v->next_nonce - 1));
    else if (strcmp(entropy_digest ? entropy_digest : "", v->entropy) != 0)
        fail(v, v->last_seq,
             "the session's players' entropy in force is not the one its log leaves in force");
    else if (manual_by_referee != v->manual_by_referee)
        fail(v, v->last_seq,
             "the session's dice.manual_by is not the one its log was created with");
}

bool verifier_ok(const verifier *v) {
    return !v->failed;
}

json_t *verifier_report_new(const verifier *v) {
    /* What was NOT checked, said as plainly as what was. */
    json_t *notes = json_array();
    char line[256];
    if (!v->expect_head)
        json_array_append_new(notes,
                              json_string("No head was given: a log cut short or rewritten after "
                                          "you last saw it would still verify. Pass the head "
                                          "from your last answer."));
    size_t npending = pending_dice_count(v->pending);
    if (npending) {
        snprintf(line, sizeof line,
                 "%zu %s rolled under a seed not yet revealed; %s can be checked after the next "
                 "reveal.",
                 npending, npending == 1 ? "die was" : "dice were", npending == 1 ? "it" : "they");
        json_array_append_new(notes, json_string(line));
    }
    return json_pack("{s:b, s:I, s:s, s:o, s:o, s:I, s:I, s:I, s:b, s:o}", "ok", !v->failed,
                     "events", (json_int_t)v->events, "head", v->verified_head, "first_bad_seq",
                     v->failed ? json_integer(v->first_bad_seq) : json_null(), "reason",
                     v->failed ? json_string(v->reason) : json_null(), "dice_checked",
                     (json_int_t)v->dice_checked, "dice_unchecked", (json_int_t)npending,
                     "actions_readjudicated", (json_int_t)v->actions, "head_checked",
                     v->expect_head && v->head_seen, "notes", notes);
}
