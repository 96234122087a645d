/* SPI Dark Ages (1976) with its official errata (shared/rules-sources/spi-dark-ages-errata.txt,
 * "From Moves 12"): the charts as data.
 *
 * The errata corrects the game's charts but does not print them: the Terrain Effects Chart, the
 * Combat Results Table, the Combat Unit Capability Chart and the unit values come from the
 * scenario's setup ("charts"), validated here at session creation. What the errata itself states
 * is built in, each value citing its paragraph (charts.c): the movement costs of roads, streams,
 * bridges and water hexsides, the Fire Protection cap, command units' 10 Victory Points and the
 * corrected scenario Point Values and Panic Levels.
 *
 * The ruleset's actions (rules/spi_dark_ages/da.h) read the normalised charts from the state.
 *
 * setup.charts (every part optional; an action needing a part the session lacks answers 422
 * chart_missing naming it):
 *   "units": {"<type>": {"class": "I".."V" | "command" | "fleet", "melee_attack", "melee_defense",
 *              "melee_defense_flank", "missile"?, "range"?, "movement", "stacking"?, "vp",
 *              "cavalry"?: "medium"|"heavy"|"cataphract", "dismounted"?: "<type>",
 *              "combat_bonus"? (command units)}}
 *   "terrain": {"<terrain>": {"move": COST | {"I": COST, ...}, "fps"?: 0-4, "keep"?: true,
 *                "defense"?: EFFECTS, "attack"?: EFFECTS, "blocks_fire"?: true (a hex of it
 *                blocks a line of fire traced through it)}}
 *        COST: an integer 0-20, "1/2", "P" (prohibited) or "road" (only along a road);
 *        EFFECTS: {"level"|"uphill"|"downhill": EFFECT | {"I": EFFECT, ...}},
 *        EFFECT: "x1", "x2", "x3", "x1/2", "x1/3" or "P" (may not attack from there)
 *   "crt": {"columns": ["1-3", "1-2", "1-1", "2-1", ...] (increasing odds),
 *           "rows": {"1": [result per column], ..., "6": [...]}}
 *   "capability": {"<attacking class>": {"<defending type>": EFFECT}}
 *   "stacking_limit": stacking points a hex holds
 *   "armies": {"<side>": {"point_value", "panic_level"}} (or "scenario" names a corrected one)
 *   "scenario"?: "tours" | "constantinople" | "balathusta" | "stamford-bridge" | "manzikert" */
#ifndef UMPIRE_DARK_AGES_CHARTS_H
#define UMPIRE_DARK_AGES_CHARTS_H

#include "protocol/api_error.h"

#include <jansson.h>
#include <stdbool.h>

/* Movement costs in half Movement Points: the errata's road and bridge costs are 1/2. */
#define DA_COST_PROHIBITED (-1)
#define DA_COST_ROAD_ONLY  (-2)

/* The errata's own numbers (TERRAIN EFFECTS CHART (Clarification), VICTORY CONDITIONS). */
typedef struct da_errata_costs {
    int road_half;                          /* a road hex through a road hexside: 1/2 MP */
    int stream_hex_half;                    /* entering a stream hex: 2 MP */
    int stream_crossing_half;               /* crossing a stream: +2 MP */
    int bridge_from_road_half, bridge_half; /* a bridge hex: 1/2 MP from a road hex, else 1 */
    int water_hexside_half;                 /* across a hexside covered by water: +2 MP */
    int fps_cap;    /* the greatest Fire Protection Strength but the Keep's: 4 */
    int command_vp; /* command units: 10 Victory Points apiece */
} da_errata_costs;
extern const da_errata_costs da_errata;

/* SCENARIO CHART (Correction): the corrected Point Value and Panic Level of an army, or NULL. */
typedef struct da_army_values {
    const char *scenario, *army;
    int point_value, panic_level;
} da_army_values;
const da_army_values *da_corrected_army(const char *scenario, const char *army);
/* Whether an army's name names a side: their letters and digits match, case aside, the
 * errata's printed spellings read as the army they print ("Seljuq Turks" is side "seljuq-turks"
 * and side "seljug-turks", SCENARIO CHART (Correction): "Manzikert Seljug Turks"). */
bool da_same_army(const char *a, const char *b);

/* Validates setup.charts (path "setup.charts") and returns it normalised (new reference): costs
 * as half Movement Points (DA_COST_* for "P" and "road"), armies filled from the corrected
 * scenario values. NULL with a 400 (wrong JSON type) or 422 invalid_setup whose details.field
 * names the bad entry. NULL setup_charts: {}. */
json_t *da_charts_new(const json_t *setup_charts, api_error *err);
/* With a scenario named in the normalised charts: every side (a JSON array of side names) must
 * be one of its armies, the errata's corrected ones or the setup's (charts.armies), else 422
 * invalid_setup naming setup.players[i].side, details.armies listing them. 0 or -1. */
int da_check_scenario_sides(const json_t *charts, const json_t *sides, api_error *err);
/* The chart part `name` ("units", "terrain", "crt", "capability", "armies") of normalised
 * charts, or NULL with a 422 chart_missing naming it (for an action that needs it). */
const json_t *da_chart_require(const json_t *charts, const char *name, api_error *err);
/* A normalised movement cost of terrain t for unit class c (half MP, or DA_COST_*); missing
 * terrain or class: DA_COST_PROHIBITED. */
int da_terrain_cost(const json_t *charts, const char *terrain, const char *unit_class);
/* The Movement Point cost (in half MP, or DA_COST_PROHIBITED) of one step into a hex, per the
 * Terrain Effects Chart errata:
 * - a hex of two terrain types costs "solely ... the more difficult terrain type" (a wooded
 *   slope 4, not 6); a terrain a class may enter only along a road ("road") or not at all ("P")
 *   prohibits the step unless a road hexside is followed;
 * - along a road hexside into a road hex: 1/2 (a "road" terrain opens; a "P" one stays shut);
 * - a river hex: never, unless it is a bridge hex (Viking Fleets excepted); a bridge hex: 1/2
 *   from a road hex, else 1; a ford hex: as clear; a stream hex: 2;
 * - crossing a stream (leaving a stream hex for its other bank, not at a bridge or ford): +2;
 *   across a hexside covered by water: +2. */
typedef struct da_step {
    const char *const *terrains; /* the hex entered: its chart terrain types */
    int nterrains;
    bool river, stream, bridge, ford; /* the hex entered */
    bool along_road;                  /* through a road hexside into a road hex */
    bool from_road;                   /* the hex left is a road hex */
    bool crossing_stream;             /* leaving a stream hex for its other bank */
    bool water_hexside;
} da_step;
int da_step_cost(const json_t *charts, const char *unit_class, bool fleet, const da_step *s);

/* A CRT result code, as the charts write them: "-" (no effect) or parts joined by "-":
 * "AD"/"DD" attacker/defender demoralized, "AE"/"DE" every attacking/defending unit eliminated,
 * "1E".."9E" that many defending units eliminated, "A1E".."A9E" that many attacking ones.
 * (The errata names DD, 1E and 2E; the rest is this umpire's notation for a chart's other
 * results. A code outside it is refused at session creation.) */
typedef struct da_result {
    char code[8];
    bool attacker_demoralized, defender_demoralized;
    bool attacker_eliminated, defender_eliminated;
    int attacker_losses, defender_losses;
} da_result;
bool da_result_parse(const char *code, da_result *out);

/* Fire Protection Strength of a hex of these terrains: their sum, at most the errata's cap (4)
 * unless one of them is the Keep (a wooded stream hex is 4, not 6). */
int da_hex_fps(const json_t *charts, const char *const *terrains, int n);

#endif
