/* Ruleset `spi-dark-ages`: SPI's Dark Ages (1976) with its official errata ("From Moves 12",
 * shared/rules-sources/spi-dark-ages-errata.txt), the charts taken from the scenario's setup.
 *
 * The module's own types. The files under rules/spi_dark_ages/ each do one job:
 *   charts.c    the charts as data: validation, chart_missing, the errata's own numbers
 *   errata.c    the errata's checkable rules as pure functions (strengths, odds, DRMs, panic...)
 *   units.c     units: setup validation, reading them from the state, writing changed ones back
 *   board.c     the map's vocabulary and the board around units: terrain of a hex, roads,
 *               streams and their banks, hilltops, front hexes, command units near, stacking
 *   turn.c      the sequence of play (a house default order of the phases the errata names),
 *               demoralization running out, and the `end_phase` action
 *   move.c      the `move` action, panicked units' forced movement, fleets, dismounting
 *   allocate.c  the `allocate` action (Attack Allocation Phase: who may attack whom)
 *   strength.c  each unit's strength adjusted individually, every adjustment named
 *   fire.c      the `fire` action: missile fire, line of fire, Fire Protection Strength
 *   melee.c     the `melee` action: odds of the adjusted totals, die roll modifiers
 *   results.c   applying a CRT result: DD, 1E/2E, contact, losses, panic, victory points
 *   rally.c     the `rally` action
 *   odds.c      odds keys and named probabilities for fire, melee and rally
 *   dark_ages.c the action table, field descriptions, options, init_state, the ruleset row */
#ifndef UMPIRE_DARK_AGES_H
#define UMPIRE_DARK_AGES_H

#include "protocol/api_error.h"
#include "protocol/limits.h"
#include "rules/common/hex.h"
#include "rules/common/sequence.h"
#include "rules/common/terms.h"
#include "rules/ruleset.h"
#include "rules/spi_dark_ages/charts.h"
#include "rules/spi_dark_ages/errata.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define DA_NAME_MAX      40
#define DA_PATH_MAX      40 /* steps in one move */
#define DA_CONTACT_MAX   12 /* enemy units one unit is in contact with */
#define DA_ATTACKERS_MAX 12 /* units in one melee attack */
#define DA_PHASES        5  /* phases in one Player-Turn */
#define DA_FLEET_LOAD    3  /* VIKING FLEETS (A): "a maximum of three combat units" */
#define DA_PANIC_SAFE    10 /* PANIC, exemption 3: "more than ten hexes distant" */
#define DA_GAME_TURN_MAX 1000000
#define DA_STACK_CAP     (UNITS_MAX + 1) /* units one hex may hold: every unit of a state */

/* ---- the map ------------------------------------------------------------------------------- */
/* Terrain types of a hex (a hex may hold several: "woods" on a "slope", a "bridge" over a
 * "river"). Their movement costs and combat effects come from setup.charts.terrain under the same
 * names; stream, river, bridge and ford follow the errata (charts.h: da_step_cost). */
enum {
    DA_CLEAR = 0,
    DA_WOODS,
    DA_SWAMP,
    DA_SLOPE,
    DA_ROUGH,
    DA_TOWN,
    DA_KEEP,
    DA_STREAM,
    DA_RIVER,
    DA_BRIDGE,
    DA_FORD,
    DA_TERRAIN_COUNT
};
/* Hexside features: a road crossing it, water covering it (TEC: "a hexside covered by water"). */
enum { DA_SIDE_ROAD = 0, DA_SIDE_WATER };
#define DA_F(f) (1u << (f))
extern const hex_map_spec da_map_spec;
extern const char *const da_terrain_names[]; /* by DA_CLEAR.., NULL-terminated */

/* ---- units --------------------------------------------------------------------------------- */
typedef enum {
    DA_CLASS_I = 0,
    DA_CLASS_II,
    DA_CLASS_III,
    DA_CLASS_IV,
    DA_CLASS_V,
    DA_COMMAND,
    DA_FLEET,
    DA_MOUNT, /* a riderless mount left by a dismounting cavalry unit */
} da_class;

/* The phases of a Player-Turn, in order (a house default sequence: the errata names the
 * Movement, Attack Allocation and Defensive Fire Phases and says fire and melee follow). */
typedef enum {
    DA_PH_MOVEMENT = 0,
    DA_PH_ALLOCATION,
    DA_PH_DEFENSIVE_FIRE,
    DA_PH_FIRE,
    DA_PH_MELEE,
} da_phase;
const char *da_phase_name(int phase);

typedef struct da_unit {
    char id[UNIT_ID_MAX + 1];
    char side[SIDE_NAME_MAX + 1];
    char type[DA_NAME_MAX + 1];
    char name[DA_NAME_MAX + 1];
    int index;           /* position in state.units */
    const json_t *chart; /* borrowed: setup.charts.units[type], NULL without the chart */
    da_class cls;
    hex at;
    int facing;
    bool demoralized;
    da_when demoralized_since;
    bool panicked;
    int panic_edge; /* the map edge it runs to (DA_EDGE_*), -1 */
    bool moved;     /* moved in this Movement Phase */
    hex moved_from; /* where it began this Movement Phase (when moved) */
    int charge;     /* hexes moved straight ahead at the end of its last move (cavalry charge) */
    bool fired, meleed;           /* attacks made in this Player-Turn (meleed: as a defender too) */
    bool missile_target;          /* fired at this Player-Turn (COMBAT (L): a participant) */
    bool alloc_fire, alloc_melee; /* attacks allocated this Player-Turn, and their targets */
    hex fire_target, melee_target;
    char contact[DA_CONTACT_MAX][UNIT_ID_MAX + 1];
    int ncontact;
    char aboard[UNIT_ID_MAX + 1]; /* the Viking Fleet carrying it, "" when none */
    int bank;                     /* in a stream hex: a hexside of the bank it stands on, or -1 */
    char mounted_type[DA_NAME_MAX + 1];  /* a dismounted cavalry unit: its mounted type */
    char mount_of[UNIT_ID_MAX + 1];      /* a riderless mount: the unit that dismounted */
    bool eliminated, off_map, remounted; /* remounted: a mount its rider took back */
    int rallied; /* the Player-Turn (game_turn * 2 + player_turn) it was rallied in, -1 */
    bool changed;
} da_unit;

bool da_alive(const da_unit *u);    /* on the map: not eliminated, not run off it */
bool da_combat(const da_unit *u);   /* a combat unit (classes I-V) */
bool da_missile(const da_unit *u);  /* a missile unit: Class IV or V (MOVEMENT (K)) */
bool da_cavalry(const da_unit *u);  /* chart "cavalry" set */
bool da_disabled(const da_unit *u); /* demoralized or panicked: may not initiate any attack */
int da_unit_value(const da_unit *u, const char *key, int dflt); /* its chart's integer */
const char *da_class_name(da_class c);

typedef struct da_army {
    da_unit *units; /* owned */
    size_t n;
    bool added; /* units were appended (a dismount) */
} da_army;

/* setup.units into the state's units (new reference), or NULL with a 400/422 naming the unit. */
json_t *da_units_from_setup(const json_t *units, const json_t *map, const json_t *streams,
                            const json_t *charts, const json_t *sides, api_error *err);
int da_army_load(const json_t *state, da_army *army, api_error *err);
void da_army_free(da_army *army);
da_unit *da_army_find(da_army *army, const char *id);
/* The unit with this id: a 422 unknown_unit naming field, a 409 unit_eliminated. */
da_unit *da_army_get(da_army *army, const char *id, const char *field, api_error *err);
/* A new unit at the end (dismounting); NULL when full. */
da_unit *da_army_append(da_army *army);
json_t *da_unit_to_json(const da_unit *u);
/* The acting unit (ctx->unit) checked for the actor's side. */
da_unit *da_acting_unit(const rules_ctx *ctx, da_army *army, api_error *err);
int da_check_owner(const char *actor, const da_unit *u, const char *field, api_error *err);

/* ---- the session around the units ----------------------------------------------------------- */
typedef struct da_turn {
    int game_turn;                /* 1.. */
    int player_turn;              /* 0: the second listed side's (it moves first), 1: the first's */
    int phase;                    /* da_phase */
    char side[SIDE_NAME_MAX + 1]; /* the phasing side */
    char other[SIDE_NAME_MAX + 1]; /* the other side */
    bool rallying;                 /* rally rolls began: this Movement Phase's movement is over */
} da_turn;
/* state.turn (new reference) for `dt`: with `seq` (its order and phases; number, player and
 * phase set from dt) the shared record plus this module's names for the same, else (a session
 * created before the shared record) those names alone. */
json_t *da_turn_json_new(const da_turn *dt, seq_turn *seq);
/* The first state.turn (new reference): Game-Turn 1, the Movement Phase of the second Player of
 * setup.players (state.players: their sides). */
json_t *da_turn_first_new(const json_t *players);
/* The time of the current phase, for demoralization (da_still_demoralized). */
da_when da_now(const da_turn *t);
int da_player_turn_index(const da_turn *t); /* game_turn * 2 + player_turn */

/* sequence.c: the phases as the shared table, which rules_resolve checks every action against. */
extern const seq_play da_sequence;

typedef struct da_game {
    const json_t *state, *map, *charts, *streams; /* borrowed */
    hex_grid grid;
    da_turn turn;
    /* The shared turn record (state.turn.number, player, acting, order) behind `turn`; a session
     * created before the ruleset had it (no state.turn.number) has none, and the phase checks
     * are this module's own (da_require_phase). */
    seq_turn seq;
    bool has_seq;
    da_army army;
    json_t *armies;         /* owned copy of state.armies, written back when changed */
    json_t *rally_attempts; /* owned copy of state.turn.rally_attempts */
    bool armies_changed, turn_changed;
} da_game;
/* The start of every action: the state read, every unit loaded (expired demoralization
 * dropped). 0, or -1 with err. */
int da_begin(const rules_ctx *ctx, da_game *g, api_error *err);
void da_game_free(da_game *g);
/* Finishes a resolution whose out->result is set: out->new_state built, the game freed. */
int da_finish(const rules_ctx *ctx, da_game *g, rules_outcome *out, api_error *err);
/* A 422 wrong_phase unless it is `phase` of side `side` (NULL: either side). */
int da_require_phase(const da_game *g, int phase, const char *side, const char *what,
                     api_error *err);
/* state.armies[side] (borrowed from g->armies; created when missing). */
json_t *da_army_state(da_game *g, const char *side);
/* The chart's panic level of a side (charts.armies, names compared without case), -1: none. */
int da_panic_level(const da_game *g, const char *side);

/* ---- the board ------------------------------------------------------------------------------ */
typedef struct da_hex_info {
    unsigned terrain; /* DA_F(DA_CLEAR).. bits */
    const char *names[HEX_TERRAINS_MAX + 1];
    int nnames;
    int level;
    bool road; /* a road hex: a road crosses one of its hexsides */
} da_hex_info;
void da_hex_read(const da_game *g, hex h, da_hex_info *out);
bool da_road_side(const da_game *g, hex a, hex b);
bool da_water_side(const da_game *g, hex a, hex b);
/* The stream's course through a stream hex: the two hexsides it flows through, or false. */
bool da_stream_course(const da_game *g, hex h, int course[2]);
/* The bank (0 or 1) hexside dir of a stream hex lies on; -1 for the course's own hexsides. */
int da_stream_bank(const int course[2], int dir);
/* HILLTOP (COMBAT (D)): a non-slope hex every line from which to any edge of the map must pass
 * through a slope hex: no path of non-slope hexes reaches the edge. */
bool da_hilltop(const da_game *g, hex h);
/* Whether `from` (adjacent) is one of the three hexes adjacent to u's front (relative 5, 0, 1).
 * A fleet has no facing: every side is front. */
bool da_front_hex(const da_game *g, const da_unit *u, hex from);
/* Living units in h, in state order (not counting those aboard a fleet unless with_aboard). */
size_t da_stack(da_game *g, hex h, bool with_aboard, da_unit **out, size_t cap);
bool da_enemy_in(const da_game *g, const char *side, hex h);
/* The enemy missile unit (not demoralized, MOVEMENT (K); DEMORALIZATION) to whose front h is
 * adjacent, or NULL. */
const da_unit *da_missile_front(const da_game *g, const char *side, hex h);
/* The best combat bonus of a friendly command unit stacked with or adjacent to h (not
 * demoralized when `for_combat`), and its id in *who; -1 when there is none at all. `at_start`:
 * command units where they began this Movement Phase. */
int da_command_near(const da_game *g, const char *side, hex h, bool for_combat, bool at_start,
                    const char **who);
/* Hexes from h to the nearest living enemy unit (a large number when none). */
int da_nearest_enemy(const da_game *g, const char *side, hex h);
/* The map edge nearest h and hexes to it (ties: north, east, south, west in that order). */
enum { DA_EDGE_N = 0, DA_EDGE_E, DA_EDGE_S, DA_EDGE_W };
int da_nearest_edge(const da_game *g, hex h, int *distance);
int da_edge_distance(const da_game *g, hex h, int edge);
const char *da_edge_name(int edge);
/* PANIC: a panicked unit of side that has yet to make this Movement Phase's move (one that can
 * move: not aboard a fleet, a Movement Allowance above 0), or NULL. Panicked units move first,
 * and the rally rolls and the phase's end wait for them. */
const da_unit *da_panicked_to_move(const da_game *g, const char *side);
/* Whether any living enemy unit stands adjacent to h. */
bool da_next_to_enemy(const da_game *g, const char *side, hex h);

/* ---- strengths (strength.c) ---------------------------------------------------------------- */
#define DA_ADJ_MAX 8
typedef struct da_adjusted {
    char unit[UNIT_ID_MAX + 1];
    int base;
    da_strength value;
    char terms[DA_ADJ_MAX][48]; /* "x1/2 demoralized", "x2 capability vs MC" */
    int nterms;
    bool prohibited; /* an attack the chart marks "P" */
    char why[96];
} da_adjusted;
/* The slope column of a unit at `from` attacking (or defending against one at) `to` (TEC
 * Clarification): "downhill", "uphill" or "level". */
const char *da_slope_column(const da_game *g, hex attacker, hex defender, bool for_defender);
/* A melee attacker's strength: its Melee Attack Strength with the terrain of its hex (Attack
 * Strength section; Class V "P" in woods or swamp, halved on a road through them) and a short
 * charge (CAVALRY). */
void da_adjust_melee_attack(const da_game *g, const da_unit *a, hex defender_hex, da_adjusted *out);
/* A defender's strength against attacker `lead` (front or flank, TEC Defense section,
 * capability chart, road-only terrain, demoralization or panic). */
void da_adjust_melee_defence(const da_game *g, const da_unit *d, const da_unit *lead, bool flank,
                             bool water_side, da_adjusted *out);
/* A firer's missile strength with the terrain of its hex. */
void da_adjust_missile(const da_game *g, const da_unit *a, hex target, da_adjusted *out);
json_t *da_adjusted_json_new(const da_adjusted *a);
void da_adjusted_text(const da_adjusted *a, char *out, size_t cap);
void da_strength_text(da_strength s, char *out, size_t cap);
json_t *da_strength_json_new(da_strength s);

/* ---- results (results.c) ------------------------------------------------------------------- */
/* A CRT result code parsed (charts.h da_result_parse). */
typedef struct da_applied {
    char text[600];
    json_t *eliminated; /* owned: ids */
    json_t *demoralized;
    json_t *panicked; /* ids of units that panicked as a consequence */
    bool contact;
} da_applied;
/* Applies a parsed result to attackers and defenders (missile: attackers are the firers, never
 * affected; command units stacked with others untouched, EXPLANATION OF COMBAT RESULTS). */
int da_apply_result(da_game *g, const da_result *r, da_unit **att, size_t natt, da_unit **def,
                    size_t ndef, bool missile, da_applied *out);
void da_applied_free(da_applied *a);
/* Eliminates u: losses and Victory Points counted, contact ended. */
void da_eliminate(da_game *g, da_unit *u, da_applied *out);
void da_demoralize(da_game *g, da_unit *u);
/* Checks the panic of side after losses (PANIC): every unit not exempt panics. */
void da_check_panic(da_game *g, const char *side, da_applied *out);
/* The Victory Points a unit's elimination scores (Summary of Units Chart, command units 10,
 * DISMOUNTED CAVALRY). */
int da_unit_vp(const da_game *g, const da_unit *u);

/* ---- actions ------------------------------------------------------------------------------- */
typedef struct da_step_spec {
    enum { DA_STEP_HEX, DA_STEP_FACE, DA_STEP_OFF } kind;
    int facing;
    hex to;
} da_step_spec;

typedef struct da_move_action {
    int nsteps;
    da_step_spec steps[DA_PATH_MAX];
    bool dismount, remount;
} da_move_action;
int da_move_decode(const json_t *fields, void *out, api_error *err);
json_t *da_move_encode(const void *action);
int da_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct da_allocate_action {
    hex target;
    bool melee; /* else fire */
    bool cancel;
} da_allocate_action;
int da_allocate_decode(const json_t *fields, void *out, api_error *err);
json_t *da_allocate_encode(const void *action);
int da_allocate_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                        api_error *err);

typedef struct da_fire_action {
    hex target;
} da_fire_action;
int da_fire_decode(const json_t *fields, void *out, api_error *err);
json_t *da_fire_encode(const void *action);
int da_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct da_melee_action {
    int nattackers;
    char attackers[DA_ATTACKERS_MAX][UNIT_ID_MAX + 1];
    hex defender;
} da_melee_action;
int da_melee_decode(const json_t *fields, void *out, api_error *err);
json_t *da_melee_encode(const void *action);
int da_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct da_rally_action {
    char target[UNIT_ID_MAX + 1];
} da_rally_action;
int da_rally_decode(const json_t *fields, void *out, api_error *err);
json_t *da_rally_encode(const void *action);
int da_rally_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

typedef struct da_end_phase_action {
    int unused;
} da_end_phase_action;
int da_end_phase_decode(const json_t *fields, void *out, api_error *err);
json_t *da_end_phase_encode(const void *action);
int da_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err);

json_t *da_odds_key(const json_t *result, char *label, size_t cap);
void da_odds_finish(json_t *answer);

/* A 422 rules_violation naming the field and the rule. */
void da_rule_error(api_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A hex field ("1204"). */
int da_read_hex(const json_t *obj, const char *prefix, const char *name, hex *out, api_error *err);
/* The CRT of the charts as C arrays. */
typedef struct da_crt {
    const char *columns[20];
    int ncolumns;
    const json_t *rows;
} da_crt;
int da_crt_load(const json_t *charts, da_crt *crt, api_error *err);
/* The result code at die row (1..6) and column. */
const char *da_crt_result(const da_crt *crt, int row, int column);

#endif
