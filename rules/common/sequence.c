/* The sequence of play (rules/common/sequence.h): the turn record, the check before an action and
 * the advance of end_phase, for every ruleset whose table it is given. */
#include "rules/common/sequence.h"

#include "protocol/json_in.h"
#include "rules/common/terms.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static size_t table_size(const seq_play *sp) {
    size_t n = 0;
    while (sp->phases[n].name)
        n++;
    return n;
}

static int table_index(const seq_play *sp, const char *name) {
    for (int i = 0; sp->phases[i].name; i++)
        if (strcmp(sp->phases[i].name, name) == 0) return i;
    return -1;
}

/* The phases of a session whose setup names none: the table's, in order, but its optional
 * ones. */
static void default_phases(const seq_play *sp, seq_turn *t) {
    t->nphases = 0;
    for (int i = 0; sp->phases[i].name; i++)
        if (!sp->phases[i].optional) t->phases[t->nphases++] = i;
}

static const seq_phase *phase_now(const seq_play *sp, const seq_turn *t) {
    return &sp->phases[t->phases[t->phase]];
}

const char *seq_phase_name(const seq_play *sp, const seq_turn *t) {
    return phase_now(sp, t)->name;
}

const char *seq_phase_title(const seq_play *sp, const seq_turn *t) {
    return phase_now(sp, t)->title;
}

const char *seq_player(const seq_turn *t) {
    return t->order[t->player];
}

static const char *const who_names[] = {"player", "opponent", "every side"};

static bool who_includes(seq_who who, const seq_turn *t, int side) {
    switch (who) {
    case SEQ_PLAYER:
        return side == t->player;
    case SEQ_OPPONENT:
        return side != t->player;
    case SEQ_EVERY:
        return true;
    }
    return false;
}

static int side_index(const seq_turn *t, const char *side) {
    for (int i = 0; i < t->norder; i++)
        if (strcmp(t->order[i], side) == 0) return i;
    return -1;
}

/* Whether the side (index) may do anything in the phase now: one of its steps, and its part
 * not ended (SEQ_ENDS_EACH). */
static bool acts_now(const seq_play *sp, const seq_turn *t, int side) {
    if (t->done[side]) return false;
    for (const seq_step *s = phase_now(sp, t)->steps; s->action; s++)
        if (who_includes(s->who, t, side)) return true;
    return false;
}

/* Who ends the phase: each acting side its part (SEQ_ENDS_EACH), else the player, unless only
 * the opponents act in it (defensive fire). */
static bool ends_phase(const seq_play *sp, const seq_turn *t, int side) {
    if (phase_now(sp, t)->ends == SEQ_ENDS_EACH) return acts_now(sp, t, side);
    bool only_opponents = true;
    for (const seq_step *s = phase_now(sp, t)->steps; s->action; s++)
        if (s->who != SEQ_OPPONENT) only_opponents = false;
    return only_opponents ? side != t->player : side == t->player;
}

static bool once_now(const seq_play *sp, const seq_turn *t) {
    return phase_now(sp, t)->scope == SEQ_ONCE;
}

void seq_now_text(const seq_play *sp, const seq_turn *t, char *buf, size_t cap) {
    if (once_now(sp, t))
        snprintf(buf, cap, "the %s phase of turn %d", seq_phase_title(sp, t), t->number);
    else
        snprintf(buf, cap, "the %s phase of %s's turn %d", seq_phase_title(sp, t), seq_player(t),
                 t->number);
}

static json_t *acting_new(const seq_play *sp, const seq_turn *t) {
    json_t *a = json_array();
    for (int i = 0; i < t->norder; i++)
        if (acts_now(sp, t, i)) json_array_append_new(a, json_string(t->order[i]));
    return a;
}

static json_t *allowed_new(const seq_play *sp, const seq_turn *t) {
    json_t *a = json_array();
    for (const seq_step *s = phase_now(sp, t)->steps; s->action; s++)
        json_array_append_new(a, json_string(s->action));
    json_array_append_new(a, json_string("end_phase"));
    return a;
}

json_t *seq_turn_json(const seq_play *sp, const seq_turn *t) {
    json_t *order = json_array();
    for (int i = 0; i < t->norder; i++)
        json_array_append_new(order, json_string(t->order[i]));
    json_t *turn =
        json_pack("{s:i, s:s, s:s, s:o, s:o}", "number", t->number, "player", seq_player(t),
                  "phase", seq_phase_name(sp, t), "acting", acting_new(sp, t), "order", order);
    json_t *done = json_array();
    for (int i = 0; i < t->norder; i++)
        if (t->done[i]) json_array_append_new(done, json_string(t->order[i]));
    if (json_array_size(done))
        json_object_set_new(turn, "done", done);
    else
        json_decref(done);
    if (t->sealed) json_object_set_new(turn, "sealed", json_true());
    /* The phases only when the setup chose them: the table's own are the ruleset's. */
    seq_turn by_default;
    default_phases(sp, &by_default);
    bool all = t->nphases == by_default.nphases;
    for (int i = 0; all && i < t->nphases; i++)
        all = t->phases[i] == by_default.phases[i];
    if (!all) {
        json_t *ph = json_array();
        for (int i = 0; i < t->nphases; i++)
            json_array_append_new(ph, json_string(sp->phases[t->phases[i]].name));
        json_object_set_new(turn, "phases", ph);
    }
    return turn;
}

/* The sides of setup.units in the order their first unit is listed. */
static int sides_of_units(const json_t *setup, seq_turn *t, api_error *err) {
    size_t i;
    const json_t *u;
    json_array_foreach(json_object_get(setup, "units"), i, u) {
        const char *side = json_string_value(json_object_get(u, "side"));
        if (!side || side_index(t, side) >= 0) continue;
        if (t->norder == SEQ_SIDES_MAX || strlen(side) >= SEQ_SIDE_MAX) {
            api_error_set(err, 422, "invalid_setup", NULL,
                          "a sequence of play takes at most %d sides of at most %d bytes each",
                          SEQ_SIDES_MAX, SEQ_SIDE_MAX - 1);
            return -1;
        }
        snprintf(t->order[t->norder++], SEQ_SIDE_MAX, "%s", side);
    }
    return 0;
}

static int bad_turn(api_error *err, const char *path, const char *expected) {
    api_error_field(err, path, expected);
    err->status = 422;
    return -1;
}

/* The module's default order: each a side of the units, each once. */
static int read_default_order(const json_t *order, seq_turn *t, api_error *err) {
    seq_turn by_units = *t;
    size_t i;
    const json_t *s;
    if (json_array_size(order) != (size_t)t->norder) goto bad;
    json_array_foreach(order, i, s) {
        const char *name = json_string_value(s);
        if (!name || side_index(&by_units, name) < 0) goto bad;
        snprintf(t->order[i], SEQ_SIDE_MAX, "%s", name);
    }
    return 0;
bad:
    api_error_set(err, 422, "invalid_setup", NULL,
                  "the order of play must name every side of the units once");
    return -1;
}

static bool any_sealable(const seq_play *sp) {
    for (int i = 0; sp->phases[i].name; i++)
        if (sp->phases[i].sealable) return true;
    return false;
}

/* setup.turn: {"order": [sides], "phases": [names], "sealed": bool}, all optional. */
static int read_setup_turn(const seq_play *sp, const json_t *st, seq_turn *t, api_error *err) {
    if (!st || json_is_null(st)) return 0;
    if (!json_is_object(st))
        return bad_turn(err, "setup.turn", "an object {order?, phases?, sealed?}");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)st, k, v) {
        if (strcmp(k, "order") != 0 && strcmp(k, "phases") != 0 && strcmp(k, "sealed") != 0)
            return bad_turn(err, "setup.turn", "only the members order, phases and sealed");
    }
    const json_t *sealed = json_object_get(st, "sealed");
    if (sealed && !json_is_boolean(sealed))
        return bad_turn(err, "setup.turn.sealed", "true or false");
    if (json_is_true(sealed) && !any_sealable(sp))
        return bad_turn(err, "setup.turn.sealed",
                        "false: this ruleset has no simultaneous phase to seal");
    t->sealed = json_is_true(sealed);
    const json_t *order = json_object_get(st, "order");
    if (order) {
        if (!json_is_array(order) || json_array_size(order) != (size_t)t->norder)
            return bad_turn(err, "setup.turn.order", "every side of the units, each once");
        seq_turn by_units = *t;
        size_t i;
        const json_t *s;
        json_array_foreach(order, i, s) {
            const char *name = json_string_value(s);
            int at = name ? side_index(&by_units, name) : -1;
            for (size_t j = 0; at >= 0 && j < i; j++)
                if (strcmp(t->order[j], name) == 0) at = -1;
            if (at < 0)
                return bad_turn(err, "setup.turn.order", "every side of the units, each once");
            snprintf(t->order[i], SEQ_SIDE_MAX, "%s", name);
        }
    }
    const json_t *phases = json_object_get(st, "phases");
    if (phases) {
        size_t n = json_array_size(phases);
        if (!json_is_array(phases) || n == 0 || n > table_size(sp))
            return bad_turn(err, "setup.turn.phases", "names of this ruleset's phases, each once");
        size_t i;
        const json_t *s;
        json_array_foreach(phases, i, s) {
            int at = json_is_string(s) ? table_index(sp, json_string_value(s)) : -1;
            for (size_t j = 0; at >= 0 && j < i; j++)
                if (t->phases[j] == at) at = -1;
            if (at < 0)
                return bad_turn(err, "setup.turn.phases",
                                "names of this ruleset's phases, each once");
            t->phases[i] = at;
        }
        t->nphases = (int)n;
    }
    return 0;
}

json_t *seq_turn_init_new(const seq_play *sp, const json_t *setup, api_error *err) {
    return seq_turn_init_order_new(sp, setup, NULL, err);
}

json_t *seq_turn_init_order_new(const seq_play *sp, const json_t *setup, const json_t *order,
                                api_error *err) {
    seq_turn t;
    memset(&t, 0, sizeof t);
    t.number = 1;
    default_phases(sp, &t);
    if (sides_of_units(setup, &t, err) != 0) return NULL;
    if (t.norder == 0) {
        api_error_set(err, 422, "invalid_setup", NULL,
                      "a sequence of play needs a side with units");
        return NULL;
    }
    if (order && read_default_order(order, &t, err) != 0) return NULL;
    if (read_setup_turn(sp, json_object_get(setup, "turn"), &t, err) != 0) return NULL;
    return seq_turn_json(sp, &t);
}

int seq_turn_read(const seq_play *sp, const json_t *state, seq_turn *t, api_error *err) {
    const json_t *turn = json_object_get(state, "turn");
    memset(t, 0, sizeof *t);
    /* No turn record, or a module's own from before this one (spi-dark-ages' game_turn, side,
     * phase): nothing is enforced here, the module checks as it did. */
    if (!turn || (json_is_object(turn) && !json_object_get(turn, "number"))) return 0;
    const json_t *order = json_object_get(turn, "order"), *phases = json_object_get(turn, "phases");
    const char *player = json_string_value(json_object_get(turn, "player")),
               *phase = json_string_value(json_object_get(turn, "phase"));
    json_int_t number = json_integer_value(json_object_get(turn, "number"));
    size_t n = json_array_size(order);
    if (!json_is_object(turn) || !player || !phase || number < 1 || number > 1000000 || n == 0 ||
        n > SEQ_SIDES_MAX)
        goto bad;
    t->number = (int)number;
    t->player = -1;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(order, i));
        if (!s || strlen(s) >= SEQ_SIDE_MAX) goto bad;
        snprintf(t->order[i], SEQ_SIDE_MAX, "%s", s);
        if (strcmp(s, player) == 0) t->player = (int)i;
    }
    t->norder = (int)n;
    if (t->player < 0) goto bad;
    if (phases) {
        size_t np = json_array_size(phases);
        if (np == 0 || np > table_size(sp)) goto bad;
        for (size_t i = 0; i < np; i++) {
            const char *name = json_string_value(json_array_get(phases, i));
            int at = name ? table_index(sp, name) : -1;
            if (at < 0) goto bad;
            t->phases[i] = at;
        }
        t->nphases = (int)np;
    } else {
        default_phases(sp, t);
    }
    t->phase = -1;
    for (int i = 0; i < t->nphases; i++)
        if (strcmp(sp->phases[t->phases[i]].name, phase) == 0) t->phase = i;
    if (t->phase < 0) goto bad;
    const json_t *sealed = json_object_get(turn, "sealed");
    if (sealed && !json_is_boolean(sealed)) goto bad;
    t->sealed = json_is_true(sealed);
    const json_t *done = json_object_get(turn, "done");
    if (done && !json_is_array(done)) goto bad;
    for (size_t i = 0; i < json_array_size(done); i++) {
        const char *s = json_string_value(json_array_get(done, i));
        int at = s ? side_index(t, s) : -1;
        if (at < 0) goto bad;
        t->done[at] = true;
    }
    return 1;
bad:
    api_error_set(err, 422, "invalid_state", NULL,
                  "the state's turn record does not fit the "
                  "ruleset's sequence of play");
    return -1;
}

/* What the sequence expects now, for a refusal: "it is the Movement phase of empire's turn 2,
 * in which empire acts". */
static void expected(const seq_play *sp, const seq_turn *t, char *buf, size_t cap) {
    json_t *acting = acting_new(sp, t);
    size_t n = json_array_size(acting);
    char now[160];
    seq_now_text(sp, t, now, sizeof now);
    int w = n ? snprintf(buf, cap, "it is %s, in which ", now)
              : snprintf(buf, cap, "it is %s, which only the referee can end", now);
    for (size_t i = 0; i < n && w >= 0 && (size_t)w < cap; i++)
        w += snprintf(buf + w, cap - (size_t)w, "%s%s",
                      i == 0       ? ""
                      : i + 1 == n ? " and "
                                   : ", ",
                      json_string_value(json_array_get(acting, i)));
    if (n && w >= 0 && (size_t)w < cap)
        snprintf(buf + w, cap - (size_t)w, " %s", n == 1 ? "acts" : "act");
    json_decref(acting);
}

static json_t *details_new(const seq_play *sp, const seq_turn *t) {
    return json_pack("{s:i, s:s, s:s, s:o, s:o}", "number", t->number, "player", seq_player(t),
                     "phase", seq_phase_name(sp, t), "acting", acting_new(sp, t), "allowed",
                     allowed_new(sp, t));
}

int seq_check(const seq_play *sp, const seq_turn *t, const char *action, const char *actor,
              const char *side, char *why, size_t why_cap, api_error *err) {
    bool referee = strncmp(actor, "side:", 5) != 0;
    const char *who = referee ? side : actor + 5;
    int at = who ? side_index(t, who) : -1;
    char exp[320];
    if (strcmp(action, "end_phase") == 0) {
        if (referee || (at >= 0 && ends_phase(sp, t, at))) return 0;
        expected(sp, t, exp, sizeof exp);
        api_error_set(err, 409, "not_your_turn", details_new(sp, t),
                      "%s cannot end the %s phase: %s", who, seq_phase_title(sp, t), exp);
        return -1;
    }
    /* A phase may list an action for more than one party (the player's fire and the opponent's
     * reaction fire): any of them will do. */
    bool in_phase = false, side_ok = false;
    for (const seq_step *s = phase_now(sp, t)->steps; s->action; s++) {
        if (strcmp(s->action, action) != 0) continue;
        in_phase = true;
        if (referee && !side) side_ok = true;
        if (at >= 0 && !t->done[at] && who_includes(s->who, t, at)) side_ok = true;
    }
    if (in_phase && side_ok) return 0;
    if (referee) {
        char now[160];
        seq_now_text(sp, t, now, sizeof now);
        if (!in_phase)
            snprintf(why, why_cap, "no %s in the %s phase", action, seq_phase_title(sp, t));
        else
            snprintf(why, why_cap, "%s does not %s in %s", side, action, now);
        return 1;
    }
    expected(sp, t, exp, sizeof exp);
    if (at < 0 || !acts_now(sp, t, at)) {
        api_error_set(err, 409, "not_your_turn", details_new(sp, t), "not %s's turn: %s", who, exp);
        return -1;
    }
    if (!in_phase) {
        api_error_set(err, 422, "wrong_phase", details_new(sp, t), "no %s in the %s phase (%s)",
                      action, seq_phase_title(sp, t), exp);
        return -1;
    }
    api_error_set(err, 409, "not_your_turn", details_new(sp, t), "%s does not %s in this phase: %s",
                  who, action, exp);
    return -1;
}

static bool each_side(const seq_play *sp, const seq_turn *t, int i) {
    return sp->phases[t->phases[i]].scope == SEQ_EACH_SIDE;
}

int seq_advance(const seq_play *sp, seq_turn *t, seq_change *chg, api_error *err) {
    memset(chg, 0, sizeof *chg);
    memset(t->done, 0, sizeof t->done);
    int cur = t->phase;
    chg->from_phase = t->phases[cur];
    if (each_side(sp, t, cur)) {
        /* The player's next phase of the block, or the next side's player-turn of it. */
        if (cur + 1 < t->nphases && each_side(sp, t, cur + 1)) {
            t->phase++;
            return 0;
        }
        if (t->player + 1 < t->norder) {
            int start = cur;
            while (start > 0 && each_side(sp, t, start - 1))
                start--;
            t->phase = start;
            t->player++;
            chg->new_player_turn = true;
            return 0;
        }
    }
    if (cur + 1 < t->nphases) {
        t->phase = cur + 1;
        t->player = 0;
        chg->new_player_turn = each_side(sp, t, t->phase);
        return 0;
    }
    if (sp->max_turns > 0 && t->number >= sp->max_turns) {
        api_error_set(err, 409, "game_over", json_pack("{s:i}", "max_turns", sp->max_turns),
                      "turn %d was the last of this game", sp->max_turns);
        return -1;
    }
    t->phase = 0;
    t->player = 0;
    t->number++;
    chg->new_turn = true;
    chg->new_player_turn = each_side(sp, t, 0);
    return 0;
}

int seq_end_phase(const seq_play *sp, seq_turn *t, const char *actor, seq_change *chg,
                  api_error *err) {
    int at = actor && strncmp(actor, "side:", 5) == 0 ? side_index(t, actor + 5) : -1;
    if (at >= 0 && phase_now(sp, t)->ends == SEQ_ENDS_EACH) {
        t->done[at] = true;
        bool all = true;
        for (int i = 0; i < t->norder; i++)
            if (acts_now(sp, t, i)) all = false;
        if (!all) {
            memset(chg, 0, sizeof *chg);
            chg->from_phase = t->phases[t->phase];
            chg->part_only = true;
            return 0;
        }
    }
    return seq_advance(sp, t, chg, err);
}

int seq_end_phase_begin(const seq_play *sp, const rules_ctx *ctx, seq_turn *t, seq_change *chg,
                        rules_outcome *out, api_error *err) {
    int got = seq_turn_read(sp, ctx->state, t, err);
    if (got < 0) return -1;
    if (got == 0) {
        api_error_set(err, 409, "no_sequence", NULL,
                      "this session was created before its ruleset had a sequence of play");
        return -1;
    }
    char from[160], to[160];
    seq_now_text(sp, t, from, sizeof from);
    if (seq_end_phase(sp, t, ctx->actor, chg, err) != 0) return -1;
    if (chg->part_only) {
        rules_say(out->summary, sizeof out->summary, "%s has ended its part of %s", ctx->actor + 5,
                  from);
        return 0;
    }
    seq_now_text(sp, t, to, sizeof to);
    from[0] = (char)toupper((unsigned char)from[0]);
    rules_say(out->summary, sizeof out->summary, "%s ends; %s begins", from, to);
    return 0;
}

json_t *seq_end_phase_result_new(const seq_play *sp, const seq_turn *t, const seq_change *chg) {
    return json_pack("{s:s, s:i, s:s, s:s, s:b}", "action", "end_phase", "number", t->number,
                     "player", seq_player(t), "phase", seq_phase_name(sp, t), "new_turn",
                     chg->new_turn);
}

int seq_end_phase_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {NULL};
    (void)out;
    return json_in_only_keys(fields, "", keys, err);
}

json_t *seq_end_phase_encode(const void *action) {
    (void)action;
    return json_object();
}

json_t *seq_describe_new(const seq_play *sp) {
    json_t *phases = json_array();
    for (const seq_phase *p = sp->phases; p->name; p++) {
        json_t *steps = json_array();
        for (const seq_step *s = p->steps; s->action; s++)
            json_array_append_new(
                steps, json_pack("{s:s, s:s}", "action", s->action, "who", who_names[s->who]));
        json_t *ph =
            json_pack("{s:s, s:s, s:o}", "name", p->name, "title", p->title, "steps", steps);
        if (p->scope == SEQ_ONCE) json_object_set_new(ph, "once", json_true());
        if (p->ends == SEQ_ENDS_EACH) json_object_set_new(ph, "ends", json_string("each side"));
        if (p->sealable) json_object_set_new(ph, "sealable", json_true());
        if (p->then) json_object_set_new(ph, "then", json_string(p->then));
        if (p->optional) json_object_set_new(ph, "optional", json_true());
        json_array_append_new(phases, ph);
    }
    json_t *d = json_pack("{s:s, s:o}", "source", sp->source, "phases", phases);
    if (sp->max_turns > 0) json_object_set_new(d, "max_turns", json_integer(sp->max_turns));
    return d;
}

bool seq_sealed_now(const seq_play *sp, const seq_turn *t) {
    return t->sealed && phase_now(sp, t)->sealable;
}

int seq_side_index(const seq_turn *t, const char *side) {
    return side_index(t, side);
}

bool seq_step_allows(const seq_play *sp, const seq_turn *t, const char *action, int side) {
    for (const seq_step *s = phase_now(sp, t)->steps; s->action; s++)
        if (strcmp(s->action, action) == 0 && who_includes(s->who, t, side)) return true;
    return false;
}

int seq_side_steps_now(const seq_play *sp, const seq_turn *t, const char *side) {
    int at = side_index(t, side);
    if (at < 0) return -1;
    for (const seq_step *s = phase_now(sp, t)->steps; s->action; s++)
        if (who_includes(s->who, t, at)) return 1;
    return 0;
}

bool seq_all_done(const seq_play *sp, const seq_turn *t) {
    for (int i = 0; i < t->norder; i++)
        if (acts_now(sp, t, i)) return false;
    return true;
}
