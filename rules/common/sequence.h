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

typedef struct seq_phase {
    const char *name;      /* state.turn.phase */
    const char *title;     /* what players read: "Movement" */
    const seq_step *steps; /* what may be done in it; terminated by a NULL action */
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
} seq_turn;

/* What end_phase changed: the caller applies what its rules attach to each. */
typedef struct seq_change {
    bool new_player_turn; /* the next side's player-turn began */
    bool new_turn;        /* a new turn began (number + 1) */
    int from_phase;       /* the table index of the phase that ended */
} seq_change;

/* The initial turn record (new reference) for a setup: `order` from setup.turn.order when given
 * (each a side of setup.units), else the sides in the order their first unit is listed; phases
 * from setup.turn.phases when given (names of the table's phases, each once), else the table.
 * NULL with a 422 naming setup.turn when it does not fit. */
json_t *seq_turn_init_new(const seq_play *sp, const json_t *setup, api_error *err);
/* Reads state.turn. 1 when read, 0 when the state has none (a session created before its
 * ruleset had a sequence: nothing is enforced), -1 with a 422 invalid_state. */
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

/* The sequence as GET /v1/rulesets/{id} describes it (new reference): its source and its phases,
 * each with its name, title and steps ({"action", "who"}). */
json_t *seq_describe_new(const seq_play *sp);

#endif
