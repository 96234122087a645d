/* The sequence of play, shared by every ruleset that has one: a static table of phases, who acts
 * in each and which actions each allows (data in the module, citing its source or labelled a
 * house default), and the turn record every such state carries:
 *
 *   "turn": {"number": 1, "player": "empire", "phase": "movement", "acting": ["empire"],
 *            "order": ["empire", "horde"]}
 *
 * `number` counts turns from 1; `order` is the sides in their order of play; `player` is the side
 * whose player-turn it is (each side in turn has one of every phase); `acting` is who may act in
 * the phase now. rules_resolve (rules/ruleset.h) checks every action against it before the module
 * sees the action, so no module repeats the check and no die is drawn for an action out of turn:
 * a side that does not act now gets 409 not_your_turn, an action the phase does not allow 422
 * wrong_phase, each naming what is expected. The referee may act out of sequence: the action
 * goes through, its result says so ("override") and its summary starts with the referee's
 * ruling, so the diary shows it. `end_phase` advances (seq_end_phase, from the module's own
 * end_phase, which adds what the phase change means in its rules). */
#ifndef UMPIRE_RULES_SEQUENCE_H
#define UMPIRE_RULES_SEQUENCE_H

#include "protocol/api_error.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define SEQ_SIDE_MAX   64 /* bytes of a side's name, NUL included */
#define SEQ_SIDES_MAX  8
#define SEQ_PHASES_MAX 16

typedef enum {
    SEQ_PLAYER,   /* the side whose player-turn it is */
    SEQ_OPPONENT, /* every other side (defensive fire, a reaction) */
    SEQ_EVERY,    /* every side (a morale check of whoever lost the fight) */
} seq_who;

typedef struct seq_step {
    const char *action; /* an action type of the ruleset */
    seq_who who;
} seq_step;

/* How often a phase comes in a turn. Consecutive SEQ_EACH_SIDE phases form a block that each
 * side plays in turn (its player-turn); a SEQ_ONCE phase comes once a turn for every side
 * (Corbach's marching movement and rally, a magic-realm round's plays). In a SEQ_ONCE phase the
 * "player" is the first side of the order. */
typedef enum { SEQ_EACH_SIDE = 0, SEQ_ONCE } seq_scope;

/* Who ends a phase: by default the player, or the opponents when only they act in it (defensive
 * fire); SEQ_ENDS_EACH: every side acting in it ends its own part (state.turn.done lists those
 * who have), and the phase ends when the last has (simultaneous plays, a joint rally). The
 * referee ends any phase at once. */
typedef enum { SEQ_ENDS_DEFAULT = 0, SEQ_ENDS_EACH } seq_ends;

typedef struct seq_phase {
    const char *name;      /* state.turn.phase */
    const char *title;     /* what players read: "Movement" */
    const seq_step *steps; /* what may be done in it; terminated by a NULL action */
    seq_scope scope;
    seq_ends ends;
    /* Simultaneous (a SEQ_ONCE, SEQ_ENDS_EACH phase): in a session whose setup.turn.sealed is
     * true, each acting side seals its actions of the phase as orders (rules/common/orders.h),
     * and the phase is played when all are revealed together. */
    bool sealable;
    /* The module's action the umpire resolves once the sealed orders are revealed and applied
     * (magic-realm: "round", the round of the plays), or NULL. */
    const char *then;
    /* Only in a session whose setup.turn.phases names it (generic's sealed choice): a session
     * that names no phases, and every session made before the phase was added, plays without
     * it. */
    bool optional;
} seq_phase;

typedef struct seq_play {
    const seq_phase *phases; /* in order; terminated by a NULL name */
    const char *source;      /* where the table comes from, for the ruleset's description */
    int max_turns;           /* the last turn (0: no limit) */
} seq_play;

/* The turn record read from a state. */
typedef struct seq_turn {
    int number;
    int phase;  /* index into the table (or into `phases` when the setup chose them) */
    int player; /* index into order */
    char order[SEQ_SIDES_MAX][SEQ_SIDE_MAX];
    int norder;
    /* The phases of this session, as indexes into the module's table: all of them, or those
     * the setup named (setup.turn.phases), in that order. */
    int phases[SEQ_PHASES_MAX];
    int nphases;
    /* SEQ_ENDS_EACH: the sides (indexes into order) that have ended their part of the phase (in a
     * sealed phase: sealed their orders). */
    bool done[SEQ_SIDES_MAX];
    /* The session seals its sealable phases (state.turn.sealed, from setup.turn.sealed). */
    bool sealed;
} seq_turn;

/* What end_phase changed: the caller applies what its rules attach to each. */
typedef struct seq_change {
    bool part_only;       /* a side ended its part of a SEQ_ENDS_EACH phase; the phase goes on */
    bool new_player_turn; /* the next side's player-turn began */
    bool new_turn;        /* a new turn began (number + 1) */
    int from_phase;       /* the table index of the phase that ended */
} seq_change;

/* The initial turn record (new reference) for a setup: `order` from setup.turn.order when given
 * (each a side of setup.units), else the sides in the order their first unit is listed; phases
 * from setup.turn.phases when given (names of the table's phases, each once), else the table.
 * NULL with a 422 naming setup.turn when it does not fit. */
json_t *seq_turn_init_new(const seq_play *sp, const json_t *setup, api_error *err);
/* The same with the module's own default order (an array of the sides, e.g. Dark Ages' "the
 * second Player listed always moves first"), which setup.turn.order still overrides. */
json_t *seq_turn_init_order_new(const seq_play *sp, const json_t *setup, const json_t *order,
                                api_error *err);
/* Reads state.turn. 1 when read, 0 when the state has none, or one without `number` (a session
 * created before its ruleset had a sequence, or had only its own turn record: nothing is
 * enforced), -1 with a 422 invalid_state. */
int seq_turn_read(const seq_play *sp, const json_t *state, seq_turn *t, api_error *err);
json_t *seq_turn_json(const seq_play *sp, const seq_turn *t);
/* The phase's name and title now. */
const char *seq_phase_name(const seq_play *sp, const seq_turn *t);
const char *seq_phase_title(const seq_play *sp, const seq_turn *t);
/* The side whose player-turn it is. */
const char *seq_player(const seq_turn *t);

/* The check rules_resolve makes before an action: 0 in sequence, 1 out of sequence but by the
 * referee (*why says what the sequence expected, for the override), -1 with a 409 not_your_turn
 * or 422 wrong_phase. `side` is the acting unit's side, or NULL for an action with no unit. */
int seq_check(const seq_play *sp, const seq_turn *t, const char *action, const char *actor,
              const char *side, char *why, size_t why_cap, api_error *err);

/* Ends the phase: the next phase, player-turn or turn. -1 with a 409 game_over after the last
 * turn. The caller (the module's end_phase) has checked who may end it: seq_check with
 * "end_phase" allows the player whose phase it is and the referee. */
int seq_advance(const seq_play *sp, seq_turn *t, seq_change *chg, api_error *err);
/* end_phase by `actor` ("referee" or "side:<name>", as rules_ctx gives it): in a SEQ_ENDS_EACH
 * phase a side's end marks its part done (chg->part_only) until the last acting side's, which
 * advances; otherwise, and for the referee, seq_advance. */
int seq_end_phase(const seq_play *sp, seq_turn *t, const char *actor, seq_change *chg,
                  api_error *err);
/* What the phase now is, for a summary: "the Movement phase of empire's turn 2" or, for a
 * SEQ_ONCE phase, "the Rally phase of turn 2". */
void seq_now_text(const seq_play *sp, const seq_turn *t, char *buf, size_t cap);

/* The common part of a module's end_phase: reads the turn (409 no_sequence when the state has
 * none: a session created before its ruleset had a sequence), ends the phase for ctx->actor
 * (seq_end_phase) and writes to out->summary what ended and what begins ("The Movement phase of
 * empire's turn 1 ends; the Shooting phase of empire's turn 1 begins", or "horde has ended its
 * part of ..."). The module then applies what *chg means in its rules, sets out->result
 * (seq_end_phase_result_new adds to it) and state.turn (seq_turn_json). */
int seq_end_phase_begin(const seq_play *sp, const rules_ctx *ctx, seq_turn *t, seq_change *chg,
                        rules_outcome *out, api_error *err);
/* {"action": "end_phase", "number", "player", "phase", "new_turn"} (new reference). */
json_t *seq_end_phase_result_new(const seq_play *sp, const seq_turn *t, const seq_change *chg);

/* The end_phase action's fields: none. */
int seq_end_phase_decode(const json_t *fields, void *out, api_error *err);
json_t *seq_end_phase_encode(const void *action);

/* Sealed orders (rules/common/orders.h): the phase now is sealable and the session seals it. */
bool seq_sealed_now(const seq_play *sp, const seq_turn *t);
/* Whether the side has a step of its own in the phase now (whether or not it has ended its part);
 * -1 when it is no side of the order. */
int seq_side_steps_now(const seq_play *sp, const seq_turn *t, const char *side);
/* Whether the action type is one of the phase's steps for the side (index into order). */
bool seq_step_allows(const seq_play *sp, const seq_turn *t, const char *action, int side);
/* Whether every side with a step in the phase now has ended its part (sealed). */
bool seq_all_done(const seq_play *sp, const seq_turn *t);
/* The index of the side in the order, or -1. */
int seq_side_index(const seq_turn *t, const char *side);

/* The sequence as GET /v1/rulesets/{id} describes it (new reference): its source and its phases,
 * each with its name, title and steps ({"action", "who"}). */
json_t *seq_describe_new(const seq_play *sp);

#endif
