/* A firing or melee table in the setup, for the rulesets whose sources do not print theirs (issue
 * 23, item 3: "a firing/melee table in the setup from which the umpire rolls hits itself"):
 *
 *   "fire_table": [{"unit": "line_infantry", "range": [0, 120], "situation": "cover",
 *                   "hits": "1d6-3", "source": "house table, p. 2"}, ...]
 *
 * Each row gives the hits a unit scores (a dice notation the umpire rolls, or a fixed integer)
 * for its unit type (`unit`, absent: any), the range band it shoots at (`range`, [lo, hi] in the
 * setup's coordinates, as `at` and `movement`, both included, the umpire measuring from centre
 * to centre; absent: any) and a
 * situation the action names (`situation`, absent: the row applies when the action names none).
 * The first row that matches is the one used, so a table lists its special cases first. No fact
 * comes from the acting side but the situation it names, which the row must list. */
#ifndef UMPIRE_RULES_COMBAT_TABLE_H
#define UMPIRE_RULES_COMBAT_TABLE_H

#include "protocol/api_error.h"
#include "rules/dice_source.h"
#include "rules/common/tabletop.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define COMBAT_TABLE_ROWS_MAX 64
#define COMBAT_TABLE_TEXT_MAX 64 /* bytes of a unit type, situation or hits notation */

/* setup[key], checked: 0 with *out a normalised copy (new reference; NULL when the setup has no
 * such table), or -1 with a 400/422 naming the row's field. `unit_types` (NULL-terminated) are
 * the ruleset's; `ranged` says whether rows may carry a range. */
int combat_table_read(const json_t *setup, const char *key, const char *const *unit_types,
                      bool ranged, json_t **out, api_error *err);

/* setup.fire_table (ranged) and setup.melee_table, checked, copied into state (as "fire_table",
 * "melee_table") when present. 0, or -1 with err (the state untouched). */
int combat_tables_add(json_t *state, const json_t *setup, const char *const *unit_types,
                      api_error *err);

/* The row that decides. */
typedef struct combat_pick {
    int row;          /* index into the table */
    const char *hits; /* the row's hits: a notation, or an integer as text (borrowed) */
    bool fixed;       /* hits is an integer, nothing to roll */
    int fixed_hits;
    const char *source; /* the row's citation, or NULL (borrowed) */
} combat_pick;

/* The first row of `table` (state copy, as combat_table_read made it) for a unit of `unit_type`
 * at `range` (-1: a melee, no range) in `situation` (NULL or "": none). 0, or -1 with a 422
 * no_table_row naming the table, the type, the range and the situation. Called before any die. */
int combat_table_pick(const json_t *table, const char *name, const char *unit_type, int64_t range,
                      const char *situation, combat_pick *out, api_error *err);

/* Where a side's hits come from, decided before any die: the state's table `key` ("fire_table",
 * "melee_table"), or none (the module's own way: hits given). */
typedef struct combat_plan {
    bool from_table;
    combat_pick pick;
    char text[160]; /* combat_pick_text of the row */
} combat_plan;

/* With state[key]: `sent` (the action gave hits itself) is 422 hits_from_table naming `field`,
 * else the row picked (combat_table_pick) and named (`m` formats a fire table's band; NULL for
 * melee). Without: a situation is 422 no_table; else *out says from_table false. 0, or -1. */
int combat_plan_make(const json_t *state, const char *key, const table_measure *m,
                     const char *unit_type, int64_t range, const char *situation, bool sent,
                     const char *field, combat_plan *out, api_error *err);

/* The hits of a picked row: its fixed number, or its notation rolled (purpose `hits`), floored at
 * 0 and capped at 99. Call only once the action is legal: the dice commit it. */
int combat_pick_roll(dice_source *ds, const combat_pick *p, const char *field, int *hits,
                     api_error *err);

/* "row 2: line infantry, 0 in to 12 in, target in cover, 1d6-3 (source)" for a summary; `m`
 * formats the band (NULL: a melee table, no range). */
void combat_pick_text(const json_t *table, const combat_pick *p, const char *unit_type,
                      const table_measure *m, char *buf, size_t cap);

#endif
