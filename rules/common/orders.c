/* Sealed orders: the gate, the check of a side's orders, and the reveal (rules/common/orders.h). */
#include "rules/common/orders.h"

#include "rules/common/terms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SALT_HEX 64

const char *orders_step_now(const ruleset *rs, const json_t *state, seq_turn *t) {
    api_error ignored = {0};
    memset(t, 0, sizeof *t);
    if (!rs->sequence) return NULL;
    int got = seq_turn_read(rs->sequence, state, t, &ignored);
    api_error_clear(&ignored);
    if (got <= 0 || !seq_sealed_now(rs->sequence, t)) return NULL;
    return seq_phase_name(rs->sequence, t);
}

static bool phase_action(const ruleset *rs, const seq_turn *t, const char *type) {
    if (strcmp(type, "end_phase") == 0) return true;
    for (int i = 0; i < t->norder; i++)
        if (seq_step_allows(rs->sequence, t, type, i)) return true;
    return false;
}

int orders_gate(const ruleset *rs, const json_t *state, const char *type, api_error *err) {
    seq_turn t;
    const char *step = orders_step_now(rs, state, &t);
    if (!step || !phase_action(rs, &t, type)) return 0;
    char now[160];
    seq_now_text(rs->sequence, &t, now, sizeof now);
    api_error_set(err, 409, "orders_sealed",
                  json_pack("{s:s, s:i}", "step", step, "turn", t.number),
                  "%s is played by sealed orders: each side seals its own with PUT "
                  "/v1/sessions/{id}/orders/%s, and the referee may close it with POST "
                  "/v1/sessions/{id}/orders/%s/close",
                  now, step, step);
    /* "the Plays phase of turn 1 is ...": the sentence starts with a capital. */
    if (err->message[0] >= 'a' && err->message[0] <= 'z') err->message[0] -= 'a' - 'A';
    return -1;
}

/* 422 invalid_orders around the rules' own refusal of order `index`. */
static void refuse_order(api_error *err, size_t index, api_error *inner) {
    json_t *e = json_pack("{s:s, s:s}", "code", inner->code, "message", inner->message);
    if (e && inner->details) json_object_set(e, "details", inner->details);
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg, "%s", inner->message);
    api_error_set(err, 422, "invalid_orders",
                  json_pack("{s:I, s:o*}", "index", (json_int_t)index, "error", e),
                  "orders[%zu]: %s", index, msg);
    api_error_clear(inner);
}

/* One order on the state `cur`: decoded, its unit found, and resolved by the module. 0 with *o
 * filled (the caller clears it) and, when rec is given, *rec the order as recorded ({type,
 * unit?, ...the ruleset's encoding of its fields}; new reference), or -1 with the refusal in
 * err. The sequence of play is not asked: the order was checked against it when sealed, and the
 * phase is the orders' own. */
static int run_order(const ruleset *rs, const json_t *cur, const json_t *options, const char *side,
                     const json_t *order, dice_source *ds, rules_outcome *o, json_t **rec,
                     api_error *err) {
    const char *type = json_string_value(json_object_get(order, "type"));
    const rules_action *a = type ? ruleset_action(rs, type) : NULL;
    if (!a) {
        api_error_set(err, 422, "unknown_action", NULL, "ruleset '%s' has no action '%s'", rs->id,
                      type ? type : "");
        return -1;
    }
    const json_t *jid = json_object_get(order, "unit");
    const json_t *unit = NULL;
    if (jid) {
        const char *id = json_string_value(jid);
        unit = id ? rules_state_unit(cur, id) : NULL;
        if (!unit) {
            api_error_set(err, 422, "unknown_unit", NULL, "there is no unit '%s' in this session",
                          id ? id : "");
            return -1;
        }
        const char *owner = json_string_value(json_object_get(unit, "side"));
        if (!owner || strcmp(owner, side) != 0) {
            api_error_set(err, 403, "forbidden", json_pack("{s:s}", "unit", id),
                          "unit '%s' belongs to side '%s', not to %s", id, owner ? owner : "?",
                          side);
            return -1;
        }
    }
    json_t *fields = json_copy((json_t *)order);
    void *decoded = calloc(1, a->decoded_size ? a->decoded_size : 1);
    char actor[5 + SEQ_SIDE_MAX];
    snprintf(actor, sizeof actor, "side:%s", side);
    int rc = -1;
    if (!fields || !decoded) {
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
    } else {
        json_object_del(fields, "type");
        json_object_del(fields, "unit");
        rules_ctx c = {.state = cur, .options = options, .actor = actor, .unit = unit, .dice = ds};
        if (a->decode(fields, decoded, err) == 0 && a->resolve(&c, decoded, o, err) == 0) rc = 0;
    }
    if (rc == 0 && rec) {
        *rec = a->encode(decoded);
        if (*rec) {
            json_object_set_new(*rec, "type", json_string(type));
            if (jid) json_object_set(*rec, "unit", (json_t *)jid);
        } else {
            rules_outcome_clear(o);
            api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
            rc = -1;
        }
    }
    free(decoded);
    json_decref(fields);
    return rc;
}

int orders_check(const ruleset *rs, const json_t *state, const json_t *options, const char *role,
                 const char *step, const json_t *orders, json_t **recorded, api_error *err) {
    *recorded = NULL;
    seq_turn t;
    const char *now = orders_step_now(rs, state, &t);
    if (!now) {
        api_error_set(err, 409, "no_sealed_step", NULL,
                      "no phase of sealed orders is being played now: actions go through POST "
                      "/v1/sessions/{id}/actions");
        return -1;
    }
    if (strcmp(now, step) != 0) {
        api_error_set(err, 409, "wrong_step",
                      json_pack("{s:s, s:i}", "step", now, "turn", t.number),
                      "the step being sealed now is '%s', not '%s'", now, step);
        return -1;
    }
    if (strncmp(role, "side:", 5) != 0) {
        api_error_set(err, 403, "forbidden", NULL,
                      "the referee seals no orders: each side seals its own (the referee may close "
                      "the step with POST /v1/sessions/{id}/orders/%s/close)",
                      step);
        return -1;
    }
    const char *side = role + 5;
    if (seq_side_steps_now(rs->sequence, &t, side) <= 0) {
        char said[160];
        seq_now_text(rs->sequence, &t, said, sizeof said);
        api_error_set(err, 409, "not_your_turn", json_pack("{s:s}", "step", step),
                      "%s has nothing to play in %s", side, said);
        return -1;
    }
    if (!json_is_array(orders) || json_array_size(orders) > ORDERS_MAX) {
        api_error_field(err, "orders", "an array of at most 32 actions of this step");
        return -1;
    }
    int at = seq_side_index(&t, side);
    json_t *list = json_array();
    json_t *cur = json_incref((json_t *)state);
    size_t i;
    const json_t *order;
    int rc = 0;
    json_array_foreach(orders, i, order) {
        char path[32];
        snprintf(path, sizeof path, "orders[%zu]", i);
        const char *type = json_string_value(json_object_get(order, "type"));
        const json_t *unit = json_object_get(order, "unit");
        if (!json_is_object(order) || !type || (unit && !json_is_string(unit))) {
            api_error_field(err, path, "an action {type, unit?, ...its fields}");
            rc = -1;
            break;
        }
        api_error inner = {0};
        if (strcmp(type, "end_phase") == 0 || !seq_step_allows(rs->sequence, &t, type, at)) {
            api_error_set(&inner, 422, "wrong_phase", json_pack("{s:s}", "action", type),
                          "'%s' is not an action %s plays in the %s phase", type, side,
                          seq_phase_title(rs->sequence, &t));
            refuse_order(err, i, &inner);
            rc = -1;
            break;
        }
        rules_outcome o = {0};
        json_t *rec = NULL;
        dice_source *ds = dice_source_new_enum(); /* no one's dice: legality only */
        if (!list || !ds) {
            api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
            rc = -1;
        } else if (run_order(rs, cur, options, side, order, ds, &o, &rec, &inner) != 0) {
            if (inner.status == 503) {
                *err = inner; /* out of memory: not the order's fault */
            } else {
                refuse_order(err, i, &inner);
            }
            rc = -1;
        } else {
            json_array_append_new(list, rec);
            json_decref(cur);
            cur = o.new_state;
            o.new_state = NULL;
        }
        rules_outcome_clear(&o);
        dice_source_free(ds);
        if (rc != 0) break;
    }
    json_decref(cur);
    if (rc != 0) {
        json_decref(list);
        return -1;
    }
    *recorded = list;
    return 0;
}

json_t *orders_sealed_state_new(const ruleset *rs, const json_t *state, const char *side) {
    seq_turn t;
    if (!orders_step_now(rs, state, &t)) return NULL;
    int at = seq_side_index(&t, side);
    if (at < 0) return NULL;
    t.done[at] = true;
    json_t *next = json_copy((json_t *)state);
    if (next) json_object_set_new(next, "turn", seq_turn_json(rs->sequence, &t));
    return next;
}

void orders_sealed_summary(const ruleset *rs, const json_t *state, const char *side, char *buf,
                           size_t cap) {
    seq_turn t;
    char now[160] = "a step that is not being sealed";
    if (orders_step_now(rs, state, &t)) seq_now_text(rs->sequence, &t, now, sizeof now);
    snprintf(buf, cap, "%s has sealed its orders for %s", side, now);
}

bool orders_all_sealed(const ruleset *rs, const json_t *state) {
    seq_turn t;
    return orders_step_now(rs, state, &t) && seq_all_done(rs->sequence, &t);
}

/* ---- the reveal --------------------------------------------------------------------------- */

typedef struct reveal_action {
    const json_t *fields; /* borrowed: the event's (or the writer's) fields, alive while resolved */
} reveal_action;

static bool salt_ok(const char *s) {
    if (!s || strlen(s) != SALT_HEX) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
    return true;
}

static int reveal_decode(const json_t *fields, void *out, api_error *err) {
    reveal_action *r = out;
    const json_t *orders = json_object_get(fields, "orders"),
                 *closed = json_object_get(fields, "closed");
    size_t known = 3 + (closed != NULL);
    if (!json_is_object(fields) || json_object_size(fields) != known ||
        !json_is_string(json_object_get(fields, "step")) ||
        !json_is_integer(json_object_get(fields, "turn")) || !json_is_array(orders) ||
        json_array_size(orders) > SEQ_SIDES_MAX || (closed && !json_is_boolean(closed))) {
        api_error_field(err, "", "{step, turn, orders: [{side, salt, actions}], closed?}");
        return -1;
    }
    size_t i;
    const json_t *e;
    json_array_foreach(orders, i, e) {
        const json_t *actions = json_object_get(e, "actions");
        if (!json_is_object(e) || json_object_size(e) != 3 ||
            !json_is_string(json_object_get(e, "side")) ||
            !salt_ok(json_string_value(json_object_get(e, "salt"))) || !json_is_array(actions) ||
            json_array_size(actions) > ORDERS_MAX) {
            api_error_field(err, "orders", "[{side, salt (64 hex digits), actions}]");
            return -1;
        }
    }
    r->fields = fields;
    return 0;
}

static json_t *reveal_encode(const void *action) {
    const reveal_action *r = action;
    return json_deep_copy(r->fields);
}

static int reveal_module_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                                 api_error *err) {
    (void)ctx;
    (void)action;
    (void)out;
    /* Reached only through rules_resolve, which knows the ruleset (orders_reveal_resolve). */
    api_error_set(err, 500, "internal_error", NULL, "the reveal is resolved with its ruleset");
    return -1;
}

static const rules_field reveal_fields[] = {
    {"step", "string", 1, "the sealed phase"},
    {"turn", "integer", 1, "its turn"},
    {"orders", "array", 1, "each side's orders and salt"},
    {"closed", "boolean", 0, "the referee closed the step"},
    {NULL, NULL, 0, NULL},
};

const rules_action orders_reveal_action = {
    ORDERS_REVEALED,
    "Sealed orders revealed",
    reveal_fields,
    sizeof(reveal_action),
    reveal_decode,
    reveal_encode,
    reveal_module_resolve,
    NULL,
    NULL,
};

static const json_t *entry_of(const json_t *orders, const char *side) {
    size_t i;
    const json_t *e;
    json_array_foreach(orders, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "side")), side) == 0) return e;
    }
    return NULL;
}

/* The plays of one side, applied in order to *cur: the results, each order's summary or why it
 * lapsed (a unit fallen since it sealed, say: the other orders go on). */
static json_t *apply_side(const ruleset *rs, const rules_ctx *ctx, json_t **cur, const char *side,
                          const json_t *actions, json_t *extras, int *lapsed) {
    json_t *items = json_array();
    size_t i;
    const json_t *order;
    json_array_foreach(actions, i, order) {
        rules_outcome o = {0};
        api_error e = {0};
        json_t *item = json_object();
        json_object_set(item, "type", json_object_get(order, "type"));
        if (json_object_get(order, "unit"))
            json_object_set(item, "unit", json_object_get(order, "unit"));
        if (run_order(rs, *cur, ctx->options, side, order, ctx->dice, &o, NULL, &e) != 0) {
            json_object_set_new(item, "lapsed", json_string(e.message));
            (*lapsed)++;
        } else {
            json_object_set_new(item, "summary", json_string(o.summary));
            json_object_set(item, "result", o.result);
            json_decref(*cur);
            *cur = o.new_state;
            o.new_state = NULL;
            if (o.extra_events) json_array_extend(extras, o.extra_events);
        }
        json_array_append_new(items, item);
        rules_outcome_clear(&o);
        api_error_clear(&e);
    }
    return items;
}

int orders_reveal_resolve(const ruleset *rs, const rules_ctx *ctx, const void *action,
                          rules_outcome *out, api_error *err) {
    const reveal_action *r = action;
    const json_t *orders = json_object_get(r->fields, "orders");
    const char *want = json_string_value(json_object_get(r->fields, "step"));
    seq_turn t;
    const char *step = orders_step_now(rs, ctx->state, &t);
    if (!step || strcmp(step, want) != 0 ||
        json_integer_value(json_object_get(r->fields, "turn")) != t.number) {
        api_error_set(err, 409, "wrong_step", NULL,
                      "these orders are for step '%s' of turn %lld, which is not being sealed",
                      want, (long long)json_integer_value(json_object_get(r->fields, "turn")));
        return -1;
    }
    size_t i;
    const json_t *e;
    json_array_foreach(orders, i, e) {
        const char *side = json_string_value(json_object_get(e, "side"));
        if (seq_side_steps_now(rs->sequence, &t, side) <= 0 || entry_of(orders, side) != e) {
            api_error_set(err, 422, "invalid_orders", NULL,
                          "'%s' has no orders to give in this step, or gives them twice", side);
            return -1;
        }
    }
    char now[160];
    seq_now_text(rs->sequence, &t, now, sizeof now);
    json_t *cur = json_incref((json_t *)ctx->state);
    json_t *sides = json_array(), *extras = json_array();
    char said[sizeof out->summary] = "", plays[sizeof out->summary] = "";
    rules_say(said, sizeof said, "Sealed orders revealed for %s:", now);
    rules_say(plays, sizeof plays, "Sealed orders revealed for %s:", now);
    int nsaid = 0;
    for (int s = 0; s < t.norder; s++) {
        const char *side = t.order[s];
        if (seq_side_steps_now(rs->sequence, &t, side) <= 0) continue;
        const json_t *entry = entry_of(orders, side);
        json_t *row = json_pack("{s:s}", "side", side);
        int lapsed = 0;
        size_t n = 0;
        if (entry) {
            const json_t *actions = json_object_get(entry, "actions");
            n = json_array_size(actions);
            json_t *items = apply_side(rs, ctx, &cur, side, actions, extras, &lapsed);
            /* What the diary reads: each order's own summary, or why it lapsed. */
            /* "knight: white-knight plays ...", but "red chooses: 12 gold" (it names itself). */
            const char *first =
                json_string_value(json_object_get(json_array_get(items, 0), "summary"));
            size_t sl = strlen(side);
            bool named = first && strncmp(first, side, sl) == 0 && first[sl] == ' ';
            rules_say(plays, sizeof plays, "%s%s%s", nsaid ? ";" : "", named ? "" : " ",
                      named ? "" : side);
            if (!named) rules_say(plays, sizeof plays, ":");
            size_t k;
            const json_t *item;
            json_array_foreach(items, k, item) {
                const char *text = json_string_value(json_object_get(item, "summary"));
                rules_say(plays, sizeof plays, "%s %s", k ? "," : "",
                          text ? text : "an order lapsed");
            }
            if (n == 0) rules_say(plays, sizeof plays, " nothing played");
            json_object_set_new(row, "actions", items);
        } else {
            json_object_set_new(row, "default", json_true());
            rules_say(plays, sizeof plays, "%s %s: no orders (the default: nothing played)",
                      nsaid ? ";" : "", side);
        }
        json_array_append_new(sides, row);
        if (!entry)
            rules_say(said, sizeof said, "%s %s no orders (the default: nothing played)",
                      nsaid ? ";" : "", side);
        else
            rules_say(said, sizeof said, "%s %s %zu order%s", nsaid ? ";" : "", side, n,
                      n == 1 ? "" : "s");
        if (lapsed) rules_say(said, sizeof said, " (%d lapsed)", lapsed);
        nsaid++;
    }
    /* The sealed phase ends for every side at once (seq_advance), then its `then`. */
    const seq_phase *phase = &rs->sequence->phases[t.phases[t.phase]];
    seq_turn next;
    seq_change chg = {0};
    json_t *state = json_copy(cur);
    json_decref(cur);
    int rc = -1;
    if (!state || !sides || !extras) {
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        goto done;
    }
    if (seq_turn_read(rs->sequence, state, &next, err) <= 0) goto done;
    memset(next.done, 0, sizeof next.done);
    if (seq_advance(rs->sequence, &next, &chg, err) != 0) goto done;
    json_object_set_new(state, "turn", seq_turn_json(rs->sequence, &next));
    out->result = json_pack("{s:s, s:i, s:o}", "step", step, "turn", t.number, "orders", sides);
    sides = NULL;
    if (json_is_true(json_object_get(r->fields, "closed")))
        json_object_set_new(out->result, "closed", json_true());
    const rules_action *then = phase->then ? ruleset_action(rs, phase->then) : NULL;
    if (then) {
        rules_outcome o = {0};
        api_error te = {0};
        json_t *none = json_object();
        void *decoded = calloc(1, then->decoded_size ? then->decoded_size : 1);
        rules_ctx c = *ctx;
        c.state = state;
        c.unit = NULL;
        if (decoded && none && then->decode(none, decoded, &te) == 0 &&
            then->resolve(&c, decoded, &o, &te) == 0) {
            /* The plays in full when they and the round fit one summary; else their count (each
             * play's own summary stays in the result). */
            if (strlen(plays) + strlen(o.summary) + 3 < sizeof plays)
                memcpy(said, plays, sizeof said);
            rules_say(said, sizeof said, ". %s", o.summary);
            json_object_set(out->result, "then", o.result);
            json_decref(state);
            state = o.new_state;
            o.new_state = NULL;
            if (o.extra_events) json_array_extend(extras, o.extra_events);
        } else {
            /* Nothing to resolve (no plays at all, say): the next phase waits for its actions. */
            memcpy(said, plays, sizeof said);
            rules_say(said, sizeof said, ". The %s waits: %s", phase->then, te.message);
        }
        free(decoded);
        json_decref(none);
        rules_outcome_clear(&o);
        api_error_clear(&te);
    }
    if (!then) memcpy(said, plays, sizeof said);
    snprintf(out->summary, sizeof out->summary, "%s", said);
    out->new_state = state;
    state = NULL;
    if (json_array_size(extras)) out->extra_events = json_incref(extras);
    rc = 0;
done:
    json_decref(state);
    json_decref(sides);
    json_decref(extras);
    return rc;
}

const rules_action *rules_action_find(const ruleset *rs, const char *type) {
    const rules_action *a = ruleset_action(rs, type);
    if (!a && rs->sequence && type && strcmp(type, ORDERS_REVEALED) == 0)
        return &orders_reveal_action;
    return a;
}
