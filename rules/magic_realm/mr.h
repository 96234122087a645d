/* Ruleset `magic-realm`: the Optional Combat Rules (shared/rules-sources/
 * magic-realm-optional-combat.txt, sections 5.1-5.6 and the article's Situations 1-10).
 *
 * The module's own types. The files under rules/magic_realm/ each do one job:
 *   tables.c    the published tables (static const, each row citing its section)
 *   harm.c      sharpness, the table's effect on harm, and what a harm does to a target
 *   hit.c       hit determination (boxes or a declared hit) and the DRM terms (5.4.1-5.4.4)
 *   strike.c    one attack from hit determination to its result, JSON and summary
 *   stumble.c   running away (5.1): the STUMBLE table
 *   spec.c      decoding and encoding the shared action parts (attack, target, attackers)
 *   round_decode.c  decoding and encoding the `round` action
 *   unit.c      units: setup validation, reading them from the state, writing them back
 *   kit.c       each character's kit (setup attacks and maneuvers by name) and looking them up
 *   actions.c   the `attack` and `run` actions
 *   play.c      the `play` action: one unit's plays for the round, kept in state.plays
 *   round.c     the `round` action: a whole melee round (given whole, or from state.plays)
 *   sequence.c  the sequence of play: each turn is one round of combat (plays, resolution)
 *   odds.c      the contract's odds vocabulary (rolls, p_kill, p_success)
 *   text.c      summary helpers
 *   magic_realm.c  the action table, field descriptions, options and the ruleset row */
#ifndef UMPIRE_MAGIC_REALM_H
#define UMPIRE_MAGIC_REALM_H

#include "protocol/api_error.h"
#include "protocol/limits.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- bounds (each the largest a request may carry; a battle is far smaller) ------------- */
#define MR_ARMOR_MAX     8 /* armor pieces on one character: shield, helmet, breastplate, suit... */
#define MR_ATTACKERS_MAX 64 /* attackers on one sheet (Situation 1 has 18 Goblins) */
#define MR_RUNS_MAX      4  /* run attempts in one round */
#define MR_COMBAT_MAX    16 /* combatants in one round */
#define MR_ATTACKS_MAX   8  /* attacks of one character in one round (a spell on several targets) */
#define MR_ROSTER_MAX    (MR_COMBAT_MAX * (MR_ATTACKS_MAX + 1) + MR_RUNS_MAX * MR_ATTACKERS_MAX)
#define MR_NAME_MAX      40 /* a display name: "Light Bow", "Giant Bat" */
#define MR_TIME_MAX      12 /* attack and move times (the counters print 0 to 7; 8 is "no maneuver") */
#define MR_NO_MANEUVER   8 /* 5.4.4: a character who played no maneuver counts as move time 8 */
#define MR_TERMS_MAX     8
#define MR_ID_MAX        UNIT_ID_MAX
#define MR_KIT_MAX       16 /* attacks, and maneuvers, in one character's kit */

/* ---- levels ------------------------------------------------------------------------------ */
/* Harm, vulnerability and armor toughness share one scale: Negligible < L < M < H < T < beyond T.
 * A level below Negligible is "negligible or less" (the tables' no-harm result). */
enum { MR_NEGLIGIBLE = 0, MR_L = 1, MR_M = 2, MR_H = 3, MR_T = 4, MR_BEYOND_T = 5 };

enum { MR_STRIKING = 1, MR_MISSILE = 2 };

/* Boxes of the Melee Section: an attack direction and the maneuver on the same line intercept. */
enum { MR_BOX_NONE = 0, MR_BOX_THRUST_CHARGE = 1, MR_BOX_SWING_DODGE = 2, MR_BOX_SMASH_DUCK = 3 };

typedef enum {
    MR_TABLE_DEFAULT = 0, /* the session's options.missile_table */
    MR_TABLE_REVISED,     /* 5.6: the revised (3rd edition) Optional Missile table */
    MR_TABLE_SECOND,      /* 5.4: the 2nd-edition Optional Missile table */
    MR_TABLE_STANDARD,    /* Situation 6 (STD): the basic game's Missile Table, no time DRM */
    MR_TABLE_FUMBLE,      /* 5.4: striking attacks */
} mr_table_id;

enum { MR_SPELL_NONE = 0, MR_SPELL_FIERY_BLAST, MR_SPELL_LIGHTNING_BOLT, MR_SPELL_STONES_FLY };
enum { MR_HIT_UNSET = 0, MR_HIT_INTERCEPT, MR_HIT_UNDERCUT, MR_HIT_MISS };
enum { MR_AIM_NONE = 0, MR_AIM_HORSE, MR_AIM_RIDER };
enum { MR_KIND_BYSTANDER = 0, MR_KIND_CHARACTER, MR_KIND_DENIZEN };
enum { MR_ARMOR_INTACT = 0, MR_ARMOR_DAMAGED, MR_ARMOR_DESTROYED };
enum { MR_WITH_MOVE = 0, MR_WITH_BOOTS, MR_WITH_HORSE };
enum { MR_ORDER_DEFAULT = 0, MR_ORDER_TIME, MR_ORDER_LENGTH, MR_ORDER_LISTED };
#define MR_UNSET (-1) /* an optional integer or flag the request left out */

/* Names (tables.c). */
const char *mr_level_name(int level); /* "L".."T", "NEGLIGIBLE" (<= 0), "KILL" (> T) */
int mr_level_parse(const char *s);    /* "L".."T" -> 1..4, else 0 */
const char *mr_table_name(mr_table_id t);
const char *mr_box_attack_name(int box);   /* thrust, swing, smash */
const char *mr_box_maneuver_name(int box); /* charge, dodge, duck */
const char *mr_spell_name(int spell);      /* fiery-blast ...; NULL for none */
const char *mr_hit_name(int hit);          /* intercept, undercut, miss */
const char *mr_armor_state_name(int state);
/* "L**" for (L, 2). */
void mr_harm_text(int harm, int stars, char *out, size_t cap);

/* ---- tables ------------------------------------------------------------------------------ */
typedef enum { MR_EFFECT_SHIFT, MR_EFFECT_WOUND, MR_EFFECT_NEGLIGIBLE } mr_effect_kind;
typedef struct mr_effect {
    mr_effect_kind kind;
    int shift;      /* levels added to the harm (MR_EFFECT_SHIFT) */
    int table_roll; /* the adjusted roll after the table's own limits (1..10 where it has them) */
} mr_effect;

/* The effect of an adjusted die roll on a harm table (MR_TABLE_REVISED, _SECOND, _STANDARD,
 * _FUMBLE). */
mr_effect mr_table_effect(mr_table_id table, int adjusted);
/* The STUMBLE table (5.4 OPTIONAL COMBAT TABLES): 1 when the action is completed. */
int mr_stumble_completed(int adjusted, int *table_roll);
/* "increase two levels", "no change", "negligible", "wound". */
void mr_effect_text(mr_effect e, char *out, size_t cap);

/* ---- DRM terms --------------------------------------------------------------------------- */
typedef struct mr_term {
    char name[40];
    int value;
} mr_term;
typedef struct mr_terms {
    mr_term t[MR_TERMS_MAX];
    int n;
    int total;
} mr_terms;
void mr_terms_add(mr_terms *terms, const char *name, int value);
/* "time +1, move -3, undercut +4" (or "none"). */
void mr_terms_text(const mr_terms *terms, char *out, size_t cap);
json_t *mr_terms_json_new(const mr_terms *terms);

/* ---- units ------------------------------------------------------------------------------- */
typedef struct mr_armor {
    int toughness;     /* MR_M..MR_T */
    int state;         /* MR_ARMOR_* */
    unsigned protects; /* bit (1 << box) for each box it covers */
    char name[MR_NAME_MAX + 1];
} mr_armor;

typedef struct mr_horse {
    bool present;
    int vulnerability;
    bool armored;
    int move_time;
    bool dead;
    char name[MR_NAME_MAX + 1];
} mr_horse;

typedef struct mr_attack_stats {
    int kind; /* MR_STRIKING or MR_MISSILE */
    int harm; /* MR_L..MR_T */
    int sharpness;
    int time;
    int length;
} mr_attack_stats;

/* A maneuver for one round (hit determination): its box and move time. */
typedef struct mr_maneuver {
    bool present; /* false: a character who played none (5.4.4) */
    int box;      /* MR_BOX_NONE when unknown (declared hits only) */
    int move_time;
} mr_maneuver;

/* A character's kit (setup "attacks" and "maneuvers"): what he may play, by name. An attack is a
 * weapon with a FIGHT chit, or a spell with a MAGIC chit, as the player's board shows it
 * ("Broadsword, F M4**"); a maneuver a MOVE chit or a Boots card ("Move H4**"). */
typedef struct mr_kit_attack {
    char name[MR_NAME_MAX + 1];
    mr_attack_stats s;
    int spell;    /* MR_SPELL_* */
    bool alerted; /* listed as alerted (an alerted attack spell has time 0) */
} mr_kit_attack;

typedef struct mr_kit_maneuver {
    char name[MR_NAME_MAX + 1];
    int move_time;
    int with; /* MR_WITH_MOVE (a MOVE chit) or MR_WITH_BOOTS (a Boots card) */
} mr_kit_maneuver;

typedef struct mr_unit {
    char id[MR_ID_MAX + 1]; /* "" for an inline unit */
    char side[SIDE_NAME_MAX + 1];
    int index; /* position in state.units, or -1 (inline) */
    int kind;  /* MR_KIND_* */
    char name[MR_NAME_MAX + 1];
    int vulnerability;
    bool armored; /* denizens */
    int narmor;   /* characters */
    mr_armor armor[MR_ARMOR_MAX];
    mr_horse horse;
    bool flying;
    /* denizens: the side of the counter that is up */
    int move_time;
    bool has_attack;
    mr_attack_stats attack;
    bool has_other_side;
    mr_attack_stats other_attack;
    int other_move_time;
    /* characters: the kit (has_kit: setup listed attacks or maneuvers) */
    bool has_kit;
    int nkit_attacks, nkit_maneuvers;
    mr_kit_attack kit_attacks[MR_KIT_MAX];
    mr_kit_maneuver kit_maneuvers[MR_KIT_MAX];
    bool has_red_side; /* a Tremendous monster: it turns red side up when it hits */
    bool red_side_up;
    /* what the battle has done to it */
    bool dead;
    int wounds;
    bool changed; /* written back to the state */
    /* this round */
    mr_maneuver man;       /* its own maneuver */
    mr_maneuver horse_man; /* its horse's maneuver */
    bool escaped;
    bool in_round; /* has a combatant entry */
} mr_unit;

/* Validates one unit of setup.units (path "setup.units[i]") into u. 0, or -1 with 400/422. */
int mr_unit_from_setup(const json_t *obj, const char *path, mr_unit *u, api_error *err);
/* Reads a unit of state.units (as mr_unit_to_json wrote it). 0, or -1 with err. */
int mr_unit_from_state(const json_t *obj, int index, mr_unit *u, api_error *err);
/* The unit as the state holds it (new reference). */
json_t *mr_unit_to_json(const mr_unit *u);
/* The unit with this id from state.units into u; 0, or -1 with 422 unknown_unit. */
int mr_unit_load(const json_t *state, const char *id, const char *field, mr_unit *u,
                 api_error *err);
/* The state after the action: a shallow copy of `state` whose units array is a shallow copy
 * with each changed unit replaced (copy-on-write; nothing reachable from `state` is touched). */
json_t *mr_state_with_units_new(const json_t *state, const mr_unit *const *units, size_t n);
/* Whether the unit can be struck through armor pieces that protect `box` (0: every piece). */
bool mr_armor_protects(const mr_armor *a, int box);

/* ---- options ----------------------------------------------------------------------------- */
typedef struct mr_options {
    mr_table_id missile_table;
    int kludge;          /* MR_UNSET: by the table (on with the revised table) */
    bool beyond_t_kills; /* striking (and standard-table) harm beyond T through armor kills */
    int order;           /* MR_ORDER_TIME / _LENGTH / _LISTED */
} mr_options;
/* Reads (already validated) session options; NULL reads as the defaults. */
void mr_options_read(const json_t *options, mr_options *o);
/* Validates options (path "options"). 0, or -1 with 400. */
int mr_options_check(const json_t *options, api_error *err);

/* ---- the action parts -------------------------------------------------------------------- */
typedef struct mr_attack_spec {
    bool present;
    /* false: the attack is named ({"name", "box"?}) and its stats come from the attacker's kit */
    bool stats_given;
    mr_attack_stats s; /* length MR_UNSET when not given */
    bool sharpness_given;
    int spell;
    int alerted; /* MR_UNSET, 0, 1 */
    int box;     /* attack direction, MR_BOX_NONE when not given */
    char name[MR_NAME_MAX + 1];
    /* inline attacks: who attacks (5.3: denizens attack the horse; red-side-up T monsters
     * never roll on the Fumble table) */
    int attacker_denizen; /* MR_UNSET, 0, 1 */
    int red_side_up;      /* MR_UNSET, 0, 1 */
} mr_attack_spec;

typedef struct mr_hit_spec {
    int simple; /* MR_HIT_* or MR_HIT_UNSET */
    bool pair;  /* {"horse", "rider"} */
    int horse, rider;
} mr_hit_spec;

typedef struct mr_horse_spec {
    bool present;
    int move_time; /* MR_UNSET */
    int vulnerability;
    int armored; /* MR_UNSET, 0, 1 */
} mr_horse_spec;

typedef struct mr_target_spec {
    bool present;
    char unit[MR_ID_MAX + 1]; /* a unit of the session, or "" for an inline target */
    int kind;                 /* inline: MR_KIND_DENIZEN or MR_KIND_CHARACTER */
    int vulnerability;
    int armored;      /* MR_UNSET, 0, 1 */
    int move_time;    /* MR_UNSET when absent */
    bool no_maneuver; /* "move_time": null */
    int red_side_up;
    int narmor;
    mr_armor armor[MR_ARMOR_MAX];
    mr_horse_spec horse;
    int aim;
} mr_target_spec;

typedef struct mr_attacker_ref {
    char unit[MR_ID_MAX + 1]; /* a unit of the session, or "" inline */
    int move_time;
    bool flying;
    bool red_side_up;
} mr_attacker_ref;

typedef struct mr_run_spec {
    char unit[MR_ID_MAX + 1];       /* round entries: the runner */
    char maneuver[MR_NAME_MAX + 1]; /* a maneuver of the runner's kit ("" none) */
    int move_time;                  /* MR_UNSET: from the kit maneuver, or the horse */
    int with;
    bool flying;
    bool attackers_given;
    int nattackers;
    mr_attacker_ref attackers[MR_ATTACKERS_MAX];
} mr_run_spec;

typedef struct mr_attack_action {
    mr_table_id table;
    int kludge; /* MR_UNSET, 0, 1 */
    mr_attack_spec attack;
    mr_target_spec target;
    mr_hit_spec hit;
} mr_attack_action;

typedef struct mr_round_attack {
    char target[MR_ID_MAX + 1];
    int aim;
    mr_attack_spec attack; /* box is the attack's direction */
    mr_hit_spec hit;
} mr_round_attack;

typedef struct mr_combatant {
    char unit[MR_ID_MAX + 1];
    /* characters */
    bool maneuver_given; /* the key is there (null: no maneuver) */
    mr_maneuver maneuver;
    char maneuver_name[MR_NAME_MAX + 1]; /* a maneuver of the kit: its move time ("" none) */
    bool horse_given;
    int horse_box;
    int horse_move_time; /* MR_UNSET */
    int nattacks;
    mr_round_attack attacks[MR_ATTACKS_MAX];
    /* denizens */
    int box;
    char target[MR_ID_MAX + 1];
    mr_hit_spec hit;
    bool change_tactics;
} mr_combatant;

typedef struct mr_round_action {
    int order;
    mr_table_id table;
    int kludge;
    int nruns;
    mr_run_spec runs[MR_RUNS_MAX];
    int ncombatants;
    mr_combatant c[MR_COMBAT_MAX];
} mr_round_action;

/* spec.c: readers for the parts; each 0, or -1 with a 400 naming the field path. */
int mr_in_enum(const json_t *obj, const char *prefix, const char *name, bool required,
               const char *const *names, int first_value, int *out, api_error *err);
int mr_in_level(const json_t *obj, const char *prefix, const char *name, bool required, int lo,
                int *out, api_error *err);
int mr_in_tri(const json_t *obj, const char *prefix, const char *name, int *out, api_error *err);
int mr_in_id(const json_t *obj, const char *prefix, const char *name, bool required, char *out,
             api_error *err);
int mr_in_name(const json_t *obj, const char *prefix, const char *name, char *out, api_error *err);
/* An integer in [lo, hi]; *out is kept when the field is absent. */
int mr_in_int(const json_t *obj, const char *prefix, const char *name, bool required, int lo,
              int hi, int *out, api_error *err);
int mr_in_table(const json_t *obj, const char *prefix, mr_table_id *out, api_error *err);
int mr_in_box(const json_t *obj, const char *prefix, const char *name, bool maneuver, int *out,
              api_error *err);
/* The attack object's fields (kind, harm, sharpness, time, length, spell, alerted, box, name,
 * attacker, red_side_up) from obj; other keys are the caller's (it checks them). */
int mr_attack_spec_decode(const json_t *obj, const char *prefix, mr_attack_spec *a, api_error *err);
void mr_attack_spec_encode(const mr_attack_spec *a, json_t *obj);
int mr_hit_decode(const json_t *obj, const char *prefix, mr_hit_spec *h, api_error *err);
json_t *mr_hit_encode(const mr_hit_spec *h);
int mr_target_decode(const json_t *obj, const char *prefix, mr_target_spec *t, api_error *err);
json_t *mr_target_encode(const mr_target_spec *t);
int mr_armor_decode(const json_t *obj, const char *prefix, bool with_state, mr_armor *a,
                    api_error *err);
json_t *mr_armor_encode(const mr_armor *a, bool with_state);
int mr_run_spec_decode(const json_t *obj, const char *prefix, bool round_entry, mr_run_spec *r,
                       api_error *err);
void mr_run_spec_encode(const mr_run_spec *r, json_t *obj);

/* round_decode.c */
int mr_round_decode(const json_t *fields, void *out, api_error *err);
json_t *mr_round_encode(const void *action);
/* One combatant entry (a round's, or a play's: need_unit false, the unit is the envelope's). */
int mr_combatant_decode(const json_t *obj, const char *path, bool need_unit, mr_combatant *c,
                        api_error *err);
json_t *mr_combatant_encode(const mr_combatant *c);
/* A round with neither combatants nor runs resolves the plays in the state (state.plays). */
bool mr_round_from_plays(const mr_round_action *r);

/* ---- kit.c --------------------------------------------------------------------------------- */
/* Setup "attacks" / "maneuvers" of a character (path: the unit's), into u. 0, or -1 with err. */
int mr_kit_read(const json_t *obj, const char *path, mr_unit *u, api_error *err);
/* Writes u's kit into the unit's JSON object o. */
void mr_kit_write(const mr_unit *u, json_t *o);
/* The attack of u's kit named spec->name into s (stats, spell, alerted; name). 0, or -1 with a
 * 422 not_in_kit naming what the unit has. */
int mr_kit_attack_find(const mr_unit *u, const char *name, const char *field,
                       const mr_kit_attack **out, api_error *err);
int mr_kit_maneuver_find(const mr_unit *u, const char *name, const char *field,
                         const mr_kit_maneuver **out, api_error *err);
/* 5.1.3 "if he flies away": whether the runner can is the setup's (the unit's flying), not the
 * side's word; a side's flying run of a unit that does not fly is 422 not_flying on `field`. The
 * referee may rule it. */
int mr_flying_check(const rules_ctx *ctx, const mr_unit *runner, bool flying, const char *field,
                    api_error *err);
/* A side's attack or maneuver given by its stats: 422 kit_required, naming the unit's kit (no
 * fact from the acting side alone; the referee may). `what`: "attack" or "maneuver". */
int mr_kit_required(const mr_unit *u, const char *what, const char *field, api_error *err);

/* ---- one attack ---------------------------------------------------------------------------- */
typedef struct mr_strike {
    int listed;        /* position in the request (ties keep it) */
    mr_unit *attacker; /* NULL: an inline attack */
    mr_unit *target;
    int aim; /* MR_AIM_NONE (no horse), MR_AIM_HORSE, MR_AIM_RIDER */
    mr_attack_stats a;
    int box;
    int spell;
    bool alerted;
    char name[MR_NAME_MAX + 1];
    bool red_side_up_kill; /* a red-side-up Tremendous monster: no roll, a hit kills */
    mr_table_id table;
    int kludge_stars; /* stars lost to Hamblen's kludge (5.6) */
    /* hit determination (fixed for the round) */
    int hit;                  /* MR_HIT_INTERCEPT / _UNDERCUT (of the deciding maneuver) / _MISS */
    int hit_horse, hit_rider; /* MR_AIM_RIDER: against each maneuver (rider: 0 when none) */
    char why_miss[120];
    mr_terms drm;
} mr_strike;

typedef struct mr_penetration {
    int toughness;
    int harm_before;
    int result; /* 0 stopped, 1 stopped with one wound, 2 penetrated */
} mr_penetration;

typedef struct mr_strike_result {
    bool skipped;
    char why_skipped[120];
    bool rolled;
    int dice[2];
    int roll, adjusted;
    mr_effect effect;
    bool on_rider; /* MR_AIM_HORSE: the horse was dead, the rider was struck (3rd edition) */
    bool struck_horse;
    int stars, stars_lost_armor;
    int base_level;      /* harm + stars after losses */
    int harm_level;      /* after the table */
    const char *harm;    /* the contract's harm word */
    const char *outcome; /* killed, wounded, armor_damaged, armor_destroyed, no_effect */
    int wounds;
    int armor_piece; /* striking: the piece struck, -1 none */
    int armor_before, armor_after;
    int npen;
    mr_penetration pen[MR_ARMOR_MAX];
    int inflicted; /* missiles through armor: the harm that reached the character */
    bool killed;
    bool turned_red;
} mr_strike_result;

/* hit.c: the hit and DRM of s against its target's maneuvers (target->man, ->horse_man).
 * `declared` may be NULL (boxes decide). 0, or -1 with 422 in err (field names `field`). */
int mr_hit_determine(mr_strike *s, const mr_hit_spec *declared, const char *field, api_error *err);
/* strike.c */
void mr_strike_resolve(const mr_strike *s, const mr_options *o, dice_source *ds,
                       mr_strike_result *r);
json_t *mr_strike_json_new(const mr_strike *s, const mr_strike_result *r);
void mr_strike_say(const mr_strike *s, const mr_strike_result *r, char *buf, size_t cap);
/* The table a strike rolls on and its kludge, from the attack and the options/overrides. */
void mr_strike_pick_table(mr_strike *s, mr_table_id override, int kludge_override,
                          const mr_options *o);
/* Rules checks of one attack (spell kinds, alerted spells at time 0). 0 or -1 with 422. */
int mr_strike_check(const mr_strike *s, const char *field, api_error *err);
/* 5.3: who a strike is aimed at when its target rides (s->target, s->red_side_up_kill set).
 * requested: the request's aim (MR_AIM_NONE when not given). 0, or -1 with 422. */
int mr_pick_aim(mr_strike *s, int requested, bool attacker_denizen, const char *field,
                api_error *err);
/* kit.c */
/* The attack of a strike (stats, box, spell, alerted, name) from the request: a named attack
 * from the attacker's kit; raw stats only from the referee (inline odds act as the referee).
 * field: the attack object's path. 0, or -1 with a 422 before any die. */
int mr_strike_take_attack(const rules_ctx *ctx, const mr_unit *attacker, const mr_attack_spec *spec,
                          mr_strike *s, const char *field, api_error *err);
/* A run's move time: a named maneuver of the runner's kit (and its MOVE chit or Boots card),
 * the horse's for a run with the horse, or a raw move_time from the referee. */
int mr_run_take_move(const rules_ctx *ctx, const mr_unit *runner, mr_run_spec *r, const char *field,
                     api_error *err);
/* harm.c */
void mr_apply_harm(const mr_strike *s, const mr_options *o, mr_strike_result *r);

/* ---- running away ---------------------------------------------------------------------- */
typedef struct mr_stumble {
    int move_time;
    int with;
    bool flying;
    int nattackers;
    int counted;
    int fastest; /* move time of the fastest attacker counted, MR_UNSET when none */
    mr_terms drm;
    int dice[2];
    int roll, adjusted, table_roll;
    bool completed;
} mr_stumble;
/* The DRM of a run (5.1.1, 5.1.3). */
void mr_stumble_prepare(mr_stumble *st, const mr_attacker_ref *attackers, int n);
void mr_stumble_roll(mr_stumble *st, dice_source *ds);
json_t *mr_stumble_json_new(const mr_stumble *st, const char *runner);
void mr_stumble_say(const mr_stumble *st, const char *runner, char *buf, size_t cap);
/* Rules checks: 5.1 (no MOVE chit with a red-side-up Tremendous monster), 5.2 (a rider runs
 * with his horse). 0, or -1 with 422. */
int mr_stumble_check(const mr_run_spec *r, const mr_attacker_ref *attackers, int n,
                     const mr_unit *runner, const char *field, api_error *err);
/* Attackers of a run from the request: inline ones as given, session units from the state
 * (denizens: their move time and flying; red_side_up). 0, or -1 with 422. */
int mr_run_attackers(const mr_run_spec *r, const json_t *state, const char *field,
                     mr_attacker_ref *out, api_error *err);

/* ---- actions ------------------------------------------------------------------------------ */
int mr_attack_decode(const json_t *fields, void *out, api_error *err);
json_t *mr_attack_encode(const void *action);
int mr_attack_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int mr_run_decode(const json_t *fields, void *out, api_error *err);
json_t *mr_run_encode(const void *action);
int mr_run_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
int mr_round_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);

/* play.c */
typedef struct mr_play_action {
    mr_combatant c; /* c.unit: the envelope's unit (set by resolve) */
    bool has_run;
    mr_run_spec run;
} mr_play_action;
int mr_play_decode(const json_t *fields, void *out, api_error *err);
json_t *mr_play_encode(const void *action);
int mr_play_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
/* The round of state.plays, into r (the round's own order/table/kludge kept). 0, or -1 with a
 * 422 when there are none. */
int mr_round_of_plays(const json_t *state, mr_round_action *r, api_error *err);

/* sequence.c */
struct seq_play;
extern const struct seq_play mr_sequence;
int mr_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err);
/* After a round: state.plays cleared and the turn on to the next round's plays (new_state is
 * the round's; its summary and result say so). 0, or -1 with err. */
int mr_round_ends(const rules_ctx *ctx, rules_outcome *out, api_error *err);

/* odds.c */
json_t *mr_attack_odds_key(const json_t *result, char *label, size_t cap);
void mr_attack_odds_finish(json_t *answer);
json_t *mr_run_odds_key(const json_t *result, char *label, size_t cap);
void mr_run_odds_finish(json_t *answer);
json_t *mr_round_odds_key(const json_t *result, char *label, size_t cap);
void mr_round_odds_finish(json_t *answer);

/* text.c */
void mr_say(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "white-knight" for a unit, "the target" inline. */
const char *mr_unit_label(const mr_unit *u);
/* 0 when the outcome is complete (result and new state built), else -1 with 503 out_of_memory. */
int mr_finish(rules_outcome *out, api_error *err);
/* 422 rules error with details {"field": field} (and the rule in the message). */
void mr_rule_error(api_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
