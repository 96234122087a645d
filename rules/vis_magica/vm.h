/* Ruleset `vis-magica`: the official amendments to Vis Magica (shared/rules-sources/
 * vis-magica-amendments.txt): morale checks 10.1 and their results 10.2, shooting at flying
 * bases, and close order and mounted bases in bad terrain, on an open table
 * (rules/common/tabletop.h).
 *
 * Files: units.c (setup, reading and writing bases, options), morale.c (10.1, 10.2, rally),
 * sequence.c (the house-default sequence of play),
 * actions.c (move, shoot, melee, end_phase), odds.c (keys and p_pass), vis_magica.c (the action
 * table and the ruleset row). */
#ifndef UMPIRE_VIS_MAGICA_H
#define UMPIRE_VIS_MAGICA_H

#include "protocol/api_error.h"
#include "protocol/limits.h"
#include "rules/common/sequence.h"
#include "rules/common/tabletop.h"
#include "rules/common/terms.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define VM_NAME_MAX 40

typedef enum { VM_CLOSE_ORDER = 0, VM_OPEN_ORDER, VM_CAVALRY, VM_CHARIOTS, VM_OTHER } vm_type;
typedef enum { VM_GOOD = 0, VM_SHAKEN, VM_ROUTED, VM_REMOVED } vm_morale;
enum { VM_DIFFICULT = 0, VM_IMPASSABLE }; /* terrain types */
extern const char *const vm_terrain_types[];

typedef struct vm_base {
    char id[UNIT_ID_MAX + 1];
    char side[SIDE_NAME_MAX + 1];
    char name[VM_NAME_MAX + 1];
    char orders[8]; /* "H" after a rally from rout (10.2); "" when none recorded */
    vm_type type;
    bool flying;
    table_pt at;
    int facing;
    int strength;
    vm_morale morale;
    bool disordered;
    int64_t movement;                /* 0: not given (a move is then refused) */
    int64_t range_short, range_long; /* 0: does not shoot */
    int lost_this_phase;             /* strength lost in the phase now (end_phase clears it) */
    bool flank_rear_casualties;      /* since its last morale check (10.1) */
    bool flank_rear_in_melee;        /* ... or in this phase's melee, whatever checks since */
    bool changed;
} vm_base;

typedef struct vm_table {
    vm_base *bases; /* owned */
    size_t n;
} vm_table;

/* The base types' names, NULL-terminated, in vm_type order. */
extern const char *const vm_type_names[];
const char *vm_type_name(vm_type t);
const char *vm_morale_name(vm_morale m);
json_t *vm_bases_from_setup(const json_t *units, api_error *err);
int vm_table_load(const json_t *state, vm_table *t, api_error *err);
void vm_table_free(vm_table *t);
vm_base *vm_table_get(vm_table *t, const char *id, const char *field, api_error *err);
json_t *vm_base_to_json(const vm_base *b);
/* Sets out->new_state from ctx->state with changed bases; frees the table; 503 on failure. */
int vm_finish(const rules_ctx *ctx, vm_table *t, rules_outcome *out, api_error *err);
/* The acting base (ctx->unit), alive. */
vm_base *vm_acting(const rules_ctx *ctx, vm_table *t, api_error *err);
void vm_rule_error(api_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int vm_options_check(const json_t *options, api_error *err);

/* ---- morale (morale.c) ------------------------------------------------------------------- */
typedef struct vm_check_action {
    bool cause_given; /* "cause" sent: checked against what the state knows */
    bool combat;      /* as sent: the check follows casualties from shooting or a lost melee */
    int nmods;
    rules_term mods[8]; /* modifiers from the request */
    int napply;
    char apply[8][RULES_TERM_NAME_MAX]; /* names of options.modifiers to apply */
} vm_check_action;
int vm_check_decode(const json_t *fields, void *out, api_error *err);
json_t *vm_check_encode(const void *action);
int vm_morale_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int vm_rally_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

/* ---- actions (actions.c) ----------------------------------------------------------------- */
typedef table_move vm_move_action;
int vm_move_decode(const json_t *fields, void *out, api_error *err);
json_t *vm_move_encode(const void *action);
int vm_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct vm_hits_action {
    char target[UNIT_ID_MAX + 1];
    int hits;                /* on the target */
    int hits_back;           /* melee: on the acting base */
    bool has_hits, has_back; /* sent (refused when the setup's table decides them) */
    char situation[64];      /* the table row's situation for the hits, "" none */
    char situation_back[64]; /* melee: for the hits back */
} vm_hits_action;
int vm_fire_decode(const json_t *fields, void *out, api_error *err);
json_t *vm_fire_encode(const void *action);
int vm_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int vm_melee_decode(const json_t *fields, void *out, api_error *err);
json_t *vm_melee_encode(const void *action);
int vm_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int vm_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err);
/* The house-default sequence of play (vis_magica.c; docs/rules/vis-magica.md). */
extern const seq_play vm_sequence;

/* Casualties on base b from base `from` (flank or rear: the flag of 10.1). "" or a note. */
void vm_casualties(vm_base *b, const vm_base *from, int hits, bool melee, char *text, size_t cap);

json_t *vm_odds_key(const json_t *result, char *label, size_t cap);
void vm_odds_finish(json_t *answer);

#endif
