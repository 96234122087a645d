/* Ruleset `vaevictis-corbach-1760`: Corbach 1760 (Vae Victis 142) on its published charts
 * (shared/rules-sources/vaevictis-142-corbach-1760-charts.txt): the Terrain Effects Table, the
 * Artillery Table and the Combat Results Table with its modifiers, read as shared/rules-notes.md
 * says for the two garbled tables.
 *
 * The module's own types. The files under rules/vaevictis_corbach/ each do one job:
 *   tables.c    the three charts and the strength-ratio column (static const, rows cited)
 *   units.c     units: setup validation, reading them from the state, writing changed ones back
 *   board.c     the board around units: stacks, facing zones, zones of control, terrain terms
 *   morale.c    the morale test (TM), a house default, and the `morale` and `rally` actions
 *   results.c   applying a chart result (steps, D, TM, retreat, E, *) to units
 *   move.c      the `move` action: path, Terrain Effects Table costs, ZoC, disorganisation
 *   fire.c      the `fire` action: artillery on the Artillery Table
 *   melee.c     the `melee` action: the Combat Results Table
 *   retreat.c   pending retreats and the `retreat` action
 *   odds.c      odds keys and named probabilities for fire, melee, morale and rally
 *   corbach.c   the action table, field descriptions, options, init_state, the ruleset row */
#ifndef UMPIRE_VAEVICTIS_CORBACH_H
#define UMPIRE_VAEVICTIS_CORBACH_H

#include "protocol/api_error.h"
#include "protocol/limits.h"
#include "rules/common/hex.h"
#include "rules/common/sequence.h"
#include "rules/common/terms.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define VC_NAME_MAX      40
#define VC_PATH_MAX      32 /* steps in one move or retreat */
#define VC_ATTACKERS_MAX 8  /* units in one assault (six hexes around a stack of two, at most) */
#define VC_FORBIDDEN     (-1)

/* ---- units ------------------------------------------------------------------------------- */
typedef enum {
    VC_LINE_INFANTRY = 0,
    VC_LIGHT_INFANTRY,
    VC_HEAVY_CAVALRY,
    VC_LIGHT_CAVALRY,
    VC_ARTILLERY,
} vc_type;

typedef enum {
    VC_GOOD = 0, /* good order */
    VC_DISORGANIZED,
    VC_ROUTED,
    VC_MARCH_COLUMN,
    VC_ELIMINATED,
} vc_state;

typedef struct vc_unit {
    char id[UNIT_ID_MAX + 1];
    char side[SIDE_NAME_MAX + 1];
    char name[VC_NAME_MAX + 1];
    char formation[VC_NAME_MAX + 1]; /* "" when independent */
    char commander[VC_NAME_MAX + 1]; /* an attached commander's name, "" when none */
    int index;                       /* position in state.units */
    vc_type type;
    int calibre; /* artillery: pounds (3..24); 12 earns the Artillery Table's +1 */
    hex at;
    int facing;   /* HEX_N..HEX_NW */
    int strength; /* strength points; a step loss removes one, 0 eliminates */
    int morale;
    vc_state state;
    bool disorganized_by_combat; /* the CRT's *: such cavalry is eliminated by a starred result */
    bool bonus;                  /* heavy cavalry's "bonus" (CRT: +1 against cavalry) */
    int movement;                /* movement points (setup, or the house default of its type) */
    bool changed;
} vc_unit;

const char *vc_type_name(vc_type t);
const char *vc_state_name(vc_state s);
bool vc_is_cavalry(const vc_unit *u);
bool vc_is_infantry(const vc_unit *u);
/* Light units (light infantry, light cavalry): the Artillery Table's and the CRT's "light". */
bool vc_is_light(const vc_unit *u);
bool vc_alive(const vc_unit *u);

/* All units of a state, loaded once per action. */
typedef struct vc_army {
    vc_unit *units; /* owned */
    size_t n;
} vc_army;

/* Validates setup.units (formations: the setup's, to check unit.formation) into a state units
 * array (new reference), or NULL with 400/422 naming the unit. */
json_t *vc_units_from_setup(const json_t *units, const json_t *map, const json_t *formations,
                            const json_t *options, api_error *err);
/* Reads state.units (as vc_unit_to_json wrote them). 0, or -1 with a 422 (a state that is not
 * this module's). */
int vc_army_load(const json_t *state, vc_army *army, api_error *err);
void vc_army_free(vc_army *army);
/* The unit with this id, or NULL. */
vc_unit *vc_army_find(vc_army *army, const char *id);
/* The unit with id from `field` (a 422 unknown_unit naming field when there is none, a 409 when
 * it was eliminated). */
vc_unit *vc_army_get(vc_army *army, const char *id, const char *field, api_error *err);
json_t *vc_unit_to_json(const vc_unit *u);
/* The state after the action: a shallow copy of `state` with each changed unit replaced and
 * `pending` set to pending_take (NULL: unchanged). */
json_t *vc_state_after_new(const json_t *state, const vc_army *army, json_t *pending_take);
/* Finishes a resolution whose out->result is set: out->new_state = the state after (with
 * pending_take, NULL: unchanged), frees the army. 0, or -1 with a 503 when the result or the
 * state could not be built. */
int vc_outcome_finish(const rules_ctx *ctx, vc_army *army, json_t *pending_take, rules_outcome *out,
                      api_error *err);
/* The acting side may use this unit: the referee any, a side its own (a 403). */
int vc_check_owner(const char *actor, const vc_unit *u, const char *field, api_error *err);

/* ---- options ----------------------------------------------------------------------------- */
typedef struct vc_options {
    int morale_dice;        /* house default 1: TM rolls 1d6 (2: 2d6) */
    int stacking_limit;     /* house default 2 units a hex */
    int facing_change_cost; /* house default 1 movement point a change of facing */
    int max_range[4];       /* artillery range by calibre class: light (<=4), 6-8, 12, heavier */
} vc_options;
void vc_options_read(const json_t *options, vc_options *o);
int vc_options_check(const json_t *options, api_error *err);
/* The house default movement points of a type (setup unit.movement overrides). */
int vc_default_movement(vc_type t);
/* The start of every action but retreat: the options, no pending decision in the way (a 409),
 * every unit loaded. 0, or -1 with err. */
int vc_begin(const rules_ctx *ctx, vc_army *army, vc_options *o, api_error *err);

/* ---- the map (rules/common/hex.h with this game's terrain names) --------------------------- */
enum { VC_CLEAR = 0, VC_WOODS, VC_VILLAGE };
enum { VC_ROAD = 0, VC_SUNKEN_ROAD, VC_STREAM, VC_BRIDGE, VC_SLOPE };
#define VC_F(f) (1u << (f))
extern const hex_map_spec vc_map_spec;
/* The features of the hexside between adjacent hexes a and b, as the rules read them: a road or
 * a sunken road across a stream is a bridge (TET, Bridge: "There is a bridge where there is a
 * road"), for movement, combat and zones of control alike, whether or not the map marks it.
 * Every rule of this module reads hexsides through this, never hex_map_hexside directly. */
unsigned vc_hexside(const json_t *map, hex a, hex b);

/* ---- tables ------------------------------------------------------------------------------ */
typedef struct vc_terrain_row {
    const char *name;
    int cost_infantry; /* VC_FORBIDDEN where the table says Forb */
    int cost_cavalry;
    int fire;   /* the target's modifier on the Artillery Table */
    int combat; /* the defender's modifier on the CRT */
    bool blocks_zoc;
    const char *source;
} vc_terrain_row;
extern const vc_terrain_row vc_hex_terrain[];     /* by VC_CLEAR.. */
extern const vc_terrain_row vc_hexside_terrain[]; /* by VC_ROAD.. (costs are supplements) */
extern const vc_terrain_row vc_climb_one, vc_climb_two, vc_going_down;

/* A chart result such as "1-TM+2-R1" or "2D-R2*" as its parts. */
typedef struct vc_result {
    const char *code; /* as printed: "-", "TM+1", "1D-R1", "E" ... */
    int steps;        /* 1, 2, 3 step losses */
    bool disorganize; /* D */
    bool test;        /* TM */
    int test_mod;     /* TM+2 -> 2 */
    int retreat;      /* R1, R2 */
    bool star;        /* *: cavalry already disorganized by combat is eliminated */
    bool eliminate;   /* E */
} vc_result;

/* Artillery Table: the result of an adjusted die (clamped to the table's 0-and-less .. 9-and-
 * more rows; *row gets the row used). */
const vc_result *vc_artillery_result(int adjusted, int *row);
/* Combat Results Table: attacker's and defender's results of an adjusted die (rows -3 and less ..
 * 11 and more). */
void vc_crt_results(int adjusted, int *row, const vc_result **attacker, const vc_result **defender);
/* The CRT's strength-ratio modifier, rounded in favour of the defender; `label` gets "3:2". */
int vc_ratio_modifier(int attack, int defence, char *label, size_t cap);

/* ---- the board ---------------------------------------------------------------------------- */
enum { VC_FRONT = 0, VC_FLANK, VC_REAR };
/* Where `from` (adjacent) stands seen from unit u: front, flank or rear hex (house default
 * zones: the three hexes ahead are front, the two beside flank, the one behind rear). A village
 * makes an infantry unit's flank hexes front ones (Terrain Effects Table, Village). */
int vc_zone_of(const json_t *map, const vc_unit *u, hex from);
/* The same for a hex at any distance (artillery fire): by the bearing of its centre. */
int vc_zone_at_range(const json_t *map, const vc_unit *u, hex from);
/* Whether unit u exerts a zone of control into adjacent hex h (house default: its front hexes,
 * not when routed; the Terrain Effects Table's "Block the ZoC": not into a village, not across
 * a stream or a slope). */
bool vc_exerts_zoc(const json_t *map, const vc_unit *u, hex h);
/* Whether hex h is in a zone of control of a unit of another side than `side`. */
bool vc_in_enemy_zoc(const json_t *map, const vc_army *army, const char *side, hex h);
/* Living units in hex h, in state order, into out (at most cap); the count. */
size_t vc_stack(vc_army *army, hex h, vc_unit **out, size_t cap);
bool vc_enemy_in(const vc_army *army, const char *side, hex h);

/* ---- morale test: house default (the charts do not say how a TM is rolled) ------------------ */
typedef struct vc_test {
    char unit[UNIT_ID_MAX + 1];
    int modifier;
    int roll;
    bool passed;
    vc_state before, after;
    int steps_lost;
    char why[64]; /* "TM+2 (CRT)", "climbing two levels" */
} vc_test;
/* Rolls u's morale test with `modifier` (TM+n) and applies a failure: good order or march column
 * -> disorganized, disorganized -> routed, routed -> one step lost. by_combat marks a
 * disorganisation as the CRT's (for *). Returns 0, or -1 when the dice source refused. */
int vc_morale_test(dice_source *ds, const vc_options *o, vc_unit *u, int modifier, bool by_combat,
                   const char *why, vc_test *out);
json_t *vc_test_json_new(const vc_test *t);
/* "fr-1 TM+2: 4+2=6 > morale 3, fails: disorganized" */
void vc_test_text(const vc_test *t, const vc_unit *u, char *out, size_t cap);
extern const char vc_morale_procedure[];

/* ---- results ------------------------------------------------------------------------------ */
#define VC_TESTS_MAX 16
typedef struct vc_applied {
    const vc_result *r;
    vc_test tests[VC_TESTS_MAX];
    int ntests;
    int steps_lost;
    char text[400]; /* what happened, for the summary */
} vc_applied;
/* Applies result r to the units (the side that got it; step losses taken in this order).
 * by_combat: a CRT result, whose disorganisation counts for the starred rule (an Artillery Table
 * result is fire, not combat). Retreats are added to `pending` as {"unit", "side", "hexes",
 * "away_from": [hex names]}. Returns 0, or -1 when the dice source refused. */
int vc_apply_result(dice_source *ds, const vc_options *o, const vc_result *r, bool by_combat,
                    vc_unit **units, size_t n, const char *away_from[], size_t naway,
                    json_t *pending, vc_applied *out);
json_t *vc_applied_json_new(const vc_applied *a, vc_unit **units, size_t n);

/* ---- pending decisions --------------------------------------------------------------------- */
/* A 409 retreat_pending when state.pending holds anything and the action is not the retreat it
 * waits for (retreat_unit: the unit of a retreat action, else NULL). */
int vc_check_pending(const json_t *state, const char *retreat_unit, api_error *err);
/* A copy of state.pending (new reference, an empty array when none). */
json_t *vc_pending_copy(const json_t *state);

/* ---- actions ------------------------------------------------------------------------------ */
typedef struct vc_step {
    bool is_face; /* a change of facing, else a hex entered */
    int facing;
    hex to;
} vc_step;

typedef struct vc_move_action {
    int nsteps;
    vc_step steps[VC_PATH_MAX];
} vc_move_action;
int vc_move_decode(const json_t *fields, void *out, api_error *err);
json_t *vc_move_encode(const void *action);
int vc_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct vc_fire_action {
    char target[UNIT_ID_MAX + 1];
} vc_fire_action;
int vc_fire_decode(const json_t *fields, void *out, api_error *err);
json_t *vc_fire_encode(const void *action);
int vc_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct vc_melee_action {
    int nattackers;
    char attackers[VC_ATTACKERS_MAX][UNIT_ID_MAX + 1];
    hex defender;
    bool changed_order; /* CRT: change of order of a stack in an enemy ZoC, -2 */
} vc_melee_action;
int vc_melee_decode(const json_t *fields, void *out, api_error *err);
json_t *vc_melee_encode(const void *action);
int vc_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct vc_retreat_action {
    int nsteps;
    hex path[VC_PATH_MAX];
} vc_retreat_action;
int vc_retreat_decode(const json_t *fields, void *out, api_error *err);
json_t *vc_retreat_encode(const void *action);
int vc_retreat_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                       api_error *err);

typedef struct vc_morale_action {
    int modifier;
    char reason[64];
} vc_morale_action;
int vc_morale_decode(const json_t *fields, void *out, api_error *err);
json_t *vc_morale_encode(const void *action);
int vc_morale_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int vc_rally_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

/* The sequence of play (sequence.c): the chart's, and the end_phase action. */
extern const seq_play vc_sequence;
int vc_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err);

/* Odds (odds.c). */
json_t *vc_odds_key(const json_t *result, char *label, size_t cap);
void vc_odds_finish(json_t *answer);

/* A 422 rules_violation naming the field and the rule. */
void vc_rule_error(api_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The acting unit of an action (ctx->unit), loaded from the army; a 422 when the action has
 * none. */
vc_unit *vc_acting_unit(const rules_ctx *ctx, vc_army *army, api_error *err);

#endif
