/* Ruleset `horse-and-musket`: a horse-and-musket morale rule (shared/rules-sources/
 * horse-and-musket-morale.txt) on an open table (rules/common/tabletop.h): morale tests on
 * losing 25% effectiveness to fire or losing a melee, generals, support from behind, retreats
 * with their back to the enemy, blocked retreats, and recovery.
 *
 * Files: units.c (setup, reading and writing units, options), morale.c (the test, support,
 * retreats and recovery), sequence.c (the house-default sequence of play), actions.c (fire,
 * melee, move, morale, attach), turn.c (end_phase: a new turn, the recovery rolls at the start of
 * a side's turn, ties fought again), horse_and_musket.c (the action table, odds and the ruleset
 * row). */
#ifndef UMPIRE_HORSE_AND_MUSKET_H
#define UMPIRE_HORSE_AND_MUSKET_H

#include "protocol/api_error.h"
#include "protocol/limits.h"
#include "rules/common/sequence.h"
#include "rules/common/tabletop.h"
#include "rules/common/terms.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define HM_NAME_MAX 40

typedef enum { HM_LINE_INFANTRY = 0, HM_LIGHT_INFANTRY, HM_CAVALRY, HM_ARTILLERY } hm_type;
typedef enum { HM_ELITE = 0, HM_REGULAR, HM_POOR, HM_MILITIA } hm_quality;
typedef enum { HM_NORMAL = 0, HM_RETREATING, HM_ELIMINATED } hm_state;

typedef struct hm_unit {
    char id[UNIT_ID_MAX + 1];
    char side[SIDE_NAME_MAX + 1];
    char name[HM_NAME_MAX + 1];
    char general[HM_NAME_MAX + 1];    /* an attached general's name, "" when none */
    char supporting[UNIT_ID_MAX + 1]; /* the unit it supports this turn, "" when none */
    char engaged[UNIT_ID_MAX + 1];    /* a tied melee goes on next turn with this unit */
    int engaged_turn;                 /* the turn of the tie (0: the state has no turn) */
    hm_type type;
    hm_quality quality;
    table_pt at;
    int facing;
    int quarters;         /* effectiveness in 25% steps: 4 = 100%, 0 = eliminated */
    int hits_per_quarter; /* hits that cost 25% (setup; house default 1) */
    int hits;             /* hits carried toward the next quarter */
    int hits_this_turn;   /* every hit this turn, fire included (melee: the most hits loses) */
    int64_t movement;     /* a full move */
    hm_state state;
    table_pt retreat_from; /* the enemy it retreats from (HM_RETREATING) */
    bool changed;
} hm_unit;

typedef struct hm_army {
    hm_unit *units; /* owned */
    size_t n;
} hm_army;

/* The unit types' names, NULL-terminated, in hm_type order. */
extern const char *const hm_type_names[];
const char *hm_type_name(hm_type t);
const char *hm_quality_name(hm_quality q);
const char *hm_state_name(hm_state s);
json_t *hm_units_from_setup(const json_t *units, api_error *err);
int hm_army_load(const json_t *state, hm_army *a, api_error *err);
void hm_army_free(hm_army *a);
hm_unit *hm_army_get(hm_army *a, const char *id, const char *field, api_error *err);
hm_unit *hm_acting(const rules_ctx *ctx, hm_army *a, api_error *err);
json_t *hm_unit_to_json(const hm_unit *u);
int hm_finish(const rules_ctx *ctx, hm_army *a, rules_outcome *out, api_error *err);
void hm_rule_error(api_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int hm_options_check(const json_t *options, api_error *err);
/* options.hits: false "given" (default), true "rolled". */
bool hm_hits_rolled(const json_t *options);
/* How far apart two base centres are when the bases touch: twice options.base_radius, by the
 * house default twice half an inch (1.5 cm), exactly, at the session's resolution. */
int64_t hm_base_contact(const json_t *options);

/* ---- morale.c ---------------------------------------------------------------------------- */
/* One morale test: d6 + 1 attached general + 1 support against 3+ elite, 4+ regular, 5+ poor or
 * militia. A failure costs a further 25% (eliminating at 0). */
typedef struct hm_test {
    char unit[UNIT_ID_MAX + 1];
    char why[48];
    int roll, need;
    rules_terms terms;
    char supporter[UNIT_ID_MAX + 1];
    bool passed;
    bool eliminated;
} hm_test;
int hm_morale_test(const rules_ctx *ctx, hm_army *a, hm_unit *u, const char *why, hm_test *t);
json_t *hm_test_json_new(const hm_test *t);
void hm_test_text(const hm_test *t, char *out, size_t cap);
/* Loses n quarters (eliminating at 0: the general dies with the unit). */
void hm_lose_quarters(hm_unit *u, int n);
/* Applies hits; the quarters lost. */
int hm_take_hits(hm_unit *u, int hits);
/* Retreats u a full move (+ the setup's retreat_variation, rolled) exactly away from `enemy`
 * (along the vector from the enemy's centre to u's), ending with its back to it. The first unit
 * that is not light infantry or artillery its base would touch on the way eliminates it; a friendly
 * blocker then tests, unless it is cavalry retreated into by infantry. Text appended. -1: dice
 * refused. */
int hm_retreat(const rules_ctx *ctx, hm_army *a, hm_unit *u, table_pt enemy, json_t *log,
               char *text, size_t cap);
/* Checks hits given as a dice notation without rolling: 0, or -1 with 422 invalid_notation. */
int hm_check_hits(const char *expr, const char *field, api_error *err);
/* Rolls hits given as a dice notation ("2d6-3", floored at 0). Check it first (hm_check_hits):
 * an action's refusals come before its first die (rules/ruleset.h). */
int hm_roll_hits(dice_source *ds, const char *expr, const char *field, int *hits, api_error *err);
/* Rolls a dice notation checked before, as a signed total (the retreat variation: "1d6-3"). */
int hm_roll_total(dice_source *ds, const char *expr, const char *purpose, int64_t *total,
                  api_error *err);
/* The recovery roll of a retreating unit (5+, a general +1); a failure retreats it another full
 * move away from the enemy it retreats from. Text appended; the roll's record added to `log`.
 * -1: dice refused. */
int hm_recover(const rules_ctx *ctx, hm_army *a, hm_unit *u, json_t *log, json_t *retreats,
               char *text, size_t cap);

/* ---- actions.c ----------------------------------------------------------------------------- */
typedef struct hm_combat_action {
    char target[UNIT_ID_MAX + 1];
    bool has_hits, has_back;                /* sent (refused when a setup table decides them) */
    int hits, hits_back;                    /* given */
    char hits_expr[64], back_expr[64];      /* rolled: dice notation */
    char situation[64], situation_back[64]; /* the table rows' situations, "" none */
    bool exchange_asked;                    /* fire: "exchange": true (with a fire table) */
    bool exchange; /* fire: the target fired back in the same exchange (hits_back or asked) */
} hm_combat_action;
int hm_fire_decode(const json_t *fields, void *out, api_error *err);
int hm_melee_decode(const json_t *fields, void *out, api_error *err);
json_t *hm_combat_encode(const void *action);
int hm_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int hm_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct hm_simple_action {
    char text[HM_NAME_MAX + 1]; /* morale: the reason; attach: the general */
    table_move move;            /* move */
} hm_simple_action;
int hm_move_decode(const json_t *fields, void *out, api_error *err);
json_t *hm_move_encode(const void *action);
int hm_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int hm_morale_decode(const json_t *fields, void *out, api_error *err);
json_t *hm_morale_encode(const void *action);
int hm_morale_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int hm_attach_decode(const json_t *fields, void *out, api_error *err);
json_t *hm_attach_encode(const void *action);
int hm_attach_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
/* A unit locked in a tied melee (u->engaged): 409 engaged for anything but meleeing its
 * partner, and 409 melee_next_turn for that in the turn of the tie ("another round of meleeing
 * on the following turn"). `action` names what was tried, for the message. */
int hm_engaged_check(const rules_ctx *ctx, const hm_unit *u, const hm_unit *target,
                     const char *action, api_error *err);
/* The turn number now (0: the state has no turn). */
int hm_turn_number(const json_t *state);

/* ---- turn.c -------------------------------------------------------------------------------- */
int hm_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err);
/* The house-default sequence of play (sequence.c; docs/rules/horse-and-musket.md). */
extern const seq_play hm_sequence;

json_t *hm_odds_key(const json_t *result, char *label, size_t cap);
void hm_odds_finish(json_t *answer);

#endif
