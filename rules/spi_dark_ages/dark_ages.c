/* Ruleset `spi-dark-ages`: the action table, every field described, the options, the setup (map,
 * stream courses, charts, players, units) and the ruleset row. docs/rules/spi-dark-ages.md is the
 * long form of what GET /v1/rulesets/spi-dark-ages answers. */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

/* ---- setup ----------------------------------------------------------------------------------- */

static int options_check(const json_t *options, api_error *err) {
    static const char *const keys[] = {"facing_cost", NULL};
    int v;
    if (!options) return 0;
    if (!json_is_object(options)) {
        api_error_field(err, "options", "an object");
        return -1;
    }
    return json_in_only_keys(options, "options", keys, err) != 0 ||
                   rules_in_int(options, "options", "facing_cost", false, 0, 6, &v, err) != 0
               ? -1
               : 0;
}

/* setup.streams {"1204": ["n", "se"]}: every stream hex of the map may give its course. */
static json_t *streams_new(const json_t *v, const json_t *map, api_error *err) {
    json_t *out = json_object();
    if (!v) return out;
    if (!json_is_object(v)) {
        api_error_field(err, "setup.streams", "{\"<stream hex>\": [hexside, hexside]}");
        goto fail;
    }
    const char *k;
    json_t *c;
    json_object_foreach((json_t *)v, k, c) {
        char p[JSON_IN_PATH_MAX];
        json_in_path(p, "setup.streams", k);
        hex h;
        if (!hex_parse(k, &h) || !(hex_map_terrain(map, &da_map_spec, h) & DA_F(DA_STREAM))) {
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", p),
                          "'%s' is not a stream hex of setup.map", k);
            goto fail;
        }
        int a =
            json_array_size(c) == 2 ? hex_dir_parse(json_string_value(json_array_get(c, 0))) : -1;
        int b =
            json_array_size(c) == 2 ? hex_dir_parse(json_string_value(json_array_get(c, 1))) : -1;
        if (a < 0 || b < 0 || a == b) {
            api_error_field(err, p, "the two different hexsides the stream flows through");
            goto fail;
        }
        json_object_set_new(out, k, json_pack("[s, s]", hex_dir_name(a), hex_dir_name(b)));
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}

/* setup.players: [{"side", "ferocious"?, "byzantine"?}, {...}], the first listed deploying
 * first, the second moving first. */
static json_t *players_new(const json_t *v, json_t **armies, api_error *err) {
    static const char *const keys[] = {"side", "ferocious", "byzantine", NULL};
    if (!json_is_array(v) || json_array_size(v) != 2) {
        api_error_field(err, "setup.players",
                        "two players, in the Scenario Chart's order: [{\"side\", \"ferocious\"?, "
                        "\"byzantine\"?}, {...}]");
        return NULL;
    }
    json_t *order = json_array();
    *armies = json_object();
    for (size_t i = 0; i < 2; i++) {
        char p[JSON_IN_PATH_MAX], side[SIDE_NAME_MAX + 1] = "";
        bool ferocious = false, byzantine = false;
        json_in_path_index(p, "setup.players", i);
        const json_t *x = json_array_get(v, i);
        if (!json_is_object(x)) {
            api_error_field(err, p, "{\"side\", \"ferocious\"?, \"byzantine\"?}");
            goto fail;
        }
        if (json_in_only_keys(x, p, keys, err) != 0 ||
            rules_in_text(x, p, "side", true, side, sizeof side, err) != 0 ||
            rules_in_bool(x, p, "ferocious", &ferocious, err) != 0 ||
            rules_in_bool(x, p, "byzantine", &byzantine, err) != 0)
            goto fail;
        if (json_object_get(*armies, side)) {
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", p),
                          "side '%s' is listed twice", side);
            goto fail;
        }
        json_array_append_new(order, json_string(side));
        json_object_set_new(*armies, side,
                            json_pack("{s:i, s:b, s:i, s:b, s:b}", "losses", 0, "panicked", 0, "vp",
                                      0, "ferocious", ferocious, "byzantine", byzantine));
    }
    return order;
fail:
    json_decref(order);
    json_decref(*armies);
    *armies = NULL;
    return NULL;
}

static json_t *da_init_state(const json_t *options, const json_t *setup, api_error *err) {
    static const char *const setup_keys[] = {"units", "map", "streams", "charts", "players", NULL};
    json_t *map = NULL, *streams = NULL, *charts = NULL, *players = NULL, *armies = NULL,
           *units = NULL;
    if (options_check(options, err) != 0 || json_in_only_keys(setup, "setup", setup_keys, err) != 0)
        return NULL;
    json_t *setup_map = NULL, *setup_units = NULL;
    if (json_in_object(setup, "setup", "map", true, &setup_map) != 0 ||
        json_in_array(setup, "setup", "units", false, UNITS_MAX, &setup_units) != 0) {
        json_in_take_error(err);
        return NULL;
    }
    if (!(map = hex_map_new(setup_map, "setup.map", &da_map_spec, err))) goto fail;
    if (!(streams = streams_new(json_object_get(setup, "streams"), map, err))) goto fail;
    if (!(charts = da_charts_new(json_object_get(setup, "charts"), err))) goto fail;
    const char *k;
    json_t *t;
    json_object_foreach(json_object_get(charts, "terrain"), k, t) {
        bool known = false;
        for (int i = 0; da_terrain_names[i]; i++)
            known |= strcmp(da_terrain_names[i], k) == 0;
        if (!known) {
            char p[JSON_IN_PATH_MAX];
            json_in_path(p, "setup.charts.terrain", k);
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", p),
                          "'%s' is not a terrain of the map (clear, woods, swamp, slope, rough, "
                          "town, keep, stream, river, bridge, ford)",
                          k);
            goto fail;
        }
    }
    if (!(players = players_new(json_object_get(setup, "players"), &armies, err))) goto fail;
    /* SCENARIO CHART (Correction): with a scenario named, a side that is none of its armies would
     * silently never panic; it is refused. */
    if (da_check_scenario_sides(charts, players, err) != 0) goto fail;
    if (!(units = da_units_from_setup(setup_units, map, streams, charts, armies, err))) goto fail;
    json_t *turn = da_turn_first_new(players);
    if (!turn) {
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        goto fail;
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "map", map, "streams", streams,
                     "charts", charts, "players", players, "armies", armies, "turn", turn, "units",
                     units);
fail:
    json_decref(map);
    json_decref(streams);
    json_decref(charts);
    json_decref(players);
    json_decref(armies);
    json_decref(units);
    return NULL;
}

/* ---- fields ---------------------------------------------------------------------------------- */

static const rules_field move_fields[] = {
    {"unit", "string", 1, "the unit that moves (once a Movement Phase, to the full extent)"},
    {"path", "array", 0,
     "in order: hexes entered (\"1205\", each adjacent to the last, into the unit's front), "
     "changes of facing ({\"face\": \"ne\"}) and, for a panicked unit on its map edge, \"off\"; "
     "priced on the Terrain Effects Chart with the errata"},
    {"dismount", "boolean", 0,
     "cavalry dismounts (its chart's dismounted type; a riderless mount stays): its whole move"},
    {"remount", "boolean", 0, "a dismounted unit takes back its mount in its hex: its whole move"},
    {NULL, NULL, 0, NULL},
};

static const rules_field allocate_fields[] = {
    {"unit", "string", 1,
     "the attacking unit: beside a Friendly Command unit that is not demoralized, or in "
     "contact (COMMAND UNITS (B))"},
    {"target", "string", 1, "the hex it will attack (\"1305\")"},
    {"kind", "string", 1, "fire or melee"},
    {"cancel", "boolean", 0, "withdraw this kind of allocation instead"},
    {NULL, NULL, 0, NULL},
};

static const rules_field fire_fields[] = {
    {"unit", "string", 1,
     "the missile unit (Class IV or V): the phasing side's in the Fire Phase, allocated to this "
     "hex; the other side's in the Defensive Fire Phase, at units allocated against it"},
    {"target", "string", 1,
     "the hex fired at: every unit there but command units stacked with "
     "others"},
    {NULL, NULL, 0, NULL},
};

static const rules_field melee_fields[] = {
    {"unit", "string", 1,
     "the lead attacker (its class reads the capability chart; its hex the defence's slope "
     "column)"},
    {"attackers", "array", 0, "further attacking units (ids), each allocated to melee the hex"},
    {"defender", "string", 1, "the hex attacked (\"1305\"): every unit in it defends"},
    {NULL, NULL, 0, NULL},
};

static const rules_field rally_fields[] = {
    {"unit", "string", 1, "the rallying unit: a non-panicked command (1-5) or combat unit (1-3)"},
    {"target", "string", 1, "the adjacent panicked Friendly unit"},
    {NULL, NULL, 0, NULL},
};

static const rules_field end_phase_fields[] = {
    {NULL, NULL, 0, NULL},
};

static const rules_field da_option_fields[] = {
    {"facing_cost", "integer", 0,
     "house default 1: Movement Points a change of facing costs per hexside (0-6)"},
    {NULL, NULL, 0, NULL},
};

static const rules_action da_actions[] = {
    {"move", "Move one unit (Terrain Effects Chart and errata)", move_fields,
     sizeof(da_move_action), da_move_decode, da_move_encode, da_move_resolve, da_odds_key,
     da_odds_finish},
    {"allocate", "Allocate an attack (Attack Allocation Phase)", allocate_fields,
     sizeof(da_allocate_action), da_allocate_decode, da_allocate_encode, da_allocate_resolve,
     da_odds_key, da_odds_finish},
    {"fire", "Missile fire, offensive or defensive (CRT on Fire Protection)", fire_fields,
     sizeof(da_fire_action), da_fire_decode, da_fire_encode, da_fire_resolve, da_odds_key,
     da_odds_finish},
    {"melee", "Melee attack on a hex (CRT on adjusted totals)", melee_fields,
     sizeof(da_melee_action), da_melee_decode, da_melee_encode, da_melee_resolve, da_odds_key,
     da_odds_finish},
    {"rally", "Rally a panicked unit (end of the Movement Phase)", rally_fields,
     sizeof(da_rally_action), da_rally_decode, da_rally_encode, da_rally_resolve, da_odds_key,
     da_odds_finish},
    {"end_phase", "End the current phase (the phasing side or the referee)", end_phase_fields,
     sizeof(da_end_phase_action), da_end_phase_decode, da_end_phase_encode, da_end_phase_resolve,
     da_odds_key, da_odds_finish},
};

static const char *const da_sources[] = {
    "shared/rules-sources/spi-dark-ages-errata.txt: SPI Dark Ages errata (Moves 12) — movement, "
    "stacking, facing, combat, cavalry, demoralization and panic, command units, victory "
    "conditions, ferocity, Byzantine vitality, Viking fleets, dismounted cavalry, Terrain Effects "
    "Chart, Combat Unit Capability Chart, combat results, scenario PV/PL",
    "setup.charts: the Terrain Effects Chart, Combat Results Table, Combat Unit Capability Chart "
    "and unit values of the scenario (the errata does not print them)",
    "house defaults (docs/rules/spi-dark-ages.md): the order of the phases, front hexes, facing "
    "cost, short-charge penalty, loss order, line-of-fire blocking, fleet boarding, rows beyond "
    "the table",
    NULL,
};

/* A small illustrative battle for fuzzers and docs (charts invented, not the published ones). */
static const char da_sample_setup[] =
    "{\"map\": {\"columns\": [1, 10], \"rows\": [1, 8], "
    "\"hexes\": {\"0504\": {\"terrain\": \"clear\", \"level\": 2}, "
    "\"0503\": {\"terrain\": \"slope\", \"level\": 1}, \"0404\": {\"terrain\": \"slope\", "
    "\"level\": 1}, \"0403\": {\"terrain\": \"slope\", \"level\": 1}, \"0505\": {\"terrain\": "
    "\"slope\", \"level\": 1}, \"0604\": {\"terrain\": [\"woods\", \"slope\"], \"level\": 1}, "
    "\"0603\": {\"terrain\": \"slope\", \"level\": 1}, \"0306\": {\"terrain\": \"woods\"}, "
    "\"0705\": {\"terrain\": \"stream\"}, \"0805\": {\"terrain\": \"ford\"}, "
    "\"0802\": {\"terrain\": \"river\"}, \"0902\": {\"terrain\": [\"river\", \"bridge\"]}, "
    "\"0202\": {\"terrain\": \"swamp\"}}, "
    "\"hexsides\": [{\"hexes\": [\"0206\", \"0207\"], \"features\": [\"road\"]}, "
    "{\"hexes\": [\"0207\", \"0307\"], \"features\": [\"road\"]}]}, "
    "\"streams\": {\"0705\": [\"n\", \"s\"]}, "
    "\"charts\": {\"units\": {"
    "\"spearmen\": {\"class\": \"I\", \"melee_attack\": 4, \"melee_defense\": 4, "
    "\"melee_defense_flank\": 2, \"movement\": 4, \"stacking\": 1, \"vp\": 4}, "
    "\"archers\": {\"class\": \"IV\", \"melee_attack\": 1, \"melee_defense\": 1, "
    "\"melee_defense_flank\": 1, \"missile\": 3, \"range\": 3, \"movement\": 4, \"stacking\": 1, "
    "\"vp\": 3}, "
    "\"horsemen\": {\"class\": \"II\", \"cavalry\": \"medium\", \"melee_attack\": 4, "
    "\"melee_defense\": 3, \"melee_defense_flank\": 1, \"movement\": 8, \"stacking\": 2, "
    "\"vp\": 6, \"dismounted\": \"dismounted\"}, "
    "\"dismounted\": {\"class\": \"I\", \"melee_attack\": 2, \"melee_defense\": 2, "
    "\"melee_defense_flank\": 1, \"movement\": 4, \"stacking\": 1, \"vp\": 2}, "
    "\"earl\": {\"class\": \"command\", \"melee_attack\": 1, \"melee_defense\": 2, "
    "\"melee_defense_flank\": 1, \"movement\": 8, \"stacking\": 1, \"vp\": 10, "
    "\"combat_bonus\": 1}, "
    "\"longship\": {\"class\": \"fleet\", \"melee_attack\": 0, \"melee_defense\": 1, "
    "\"melee_defense_flank\": 1, \"movement\": 6, \"vp\": 5}}, "
    "\"terrain\": {\"clear\": {\"move\": {\"I\": 1, \"II\": 1, \"III\": 1, \"IV\": 1, \"V\": 1, "
    "\"command\": 1}}, "
    "\"woods\": {\"move\": {\"I\": 2, \"II\": \"road\", \"IV\": 2, \"V\": 2, \"command\": 2}, "
    "\"fps\": 2, \"blocks_fire\": true, \"defense\": {\"level\": \"x2\"}}, "
    "\"slope\": {\"move\": {\"I\": 2, \"II\": 3, \"IV\": 2, \"V\": 2, \"command\": 2}, \"fps\": 1, "
    "\"defense\": {\"downhill\": \"x2\"}, \"attack\": {\"uphill\": \"x1/2\"}}, "
    "\"swamp\": {\"move\": {\"I\": 3, \"II\": \"P\", \"IV\": 3, \"V\": 3, \"command\": 3}, "
    "\"defense\": {\"level\": \"x1/2\"}}, "
    "\"stream\": {\"move\": 2, \"fps\": 2, \"defense\": {\"level\": \"x1/2\"}}, "
    "\"river\": {\"move\": {\"fleet\": 1}}, \"bridge\": {\"move\": 1}}, "
    "\"crt\": {\"columns\": [\"1-3\", \"1-2\", \"1-1\", \"2-1\", \"3-1\", \"4-1\", \"5-1\", "
    "\"6-1\"], \"rows\": {"
    "\"1\": [\"AD\", \"DD\", \"DD\", \"1E\", \"1E\", \"2E\", \"DE\", \"DE\"], "
    "\"2\": [\"AD\", \"AD\", \"DD\", \"DD\", \"1E\", \"1E\", \"2E\", \"DE\"], "
    "\"3\": [\"AE\", \"AD\", \"-\", \"DD\", \"DD\", \"1E\", \"1E\", \"2E\"], "
    "\"4\": [\"AE\", \"AD\", \"AD\", \"-\", \"DD\", \"DD\", \"1E\", \"1E\"], "
    "\"5\": [\"AE\", \"AE\", \"AD\", \"AD\", \"-\", \"DD\", \"DD\", \"1E\"], "
    "\"6\": [\"AE\", \"AE\", \"AE\", \"AD\", \"AD\", \"-\", \"DD\", \"DD\"]}}, "
    "\"capability\": {\"II\": {\"archers\": \"x1/2\", \"spearmen\": \"x2\"}}, "
    "\"stacking_limit\": 3, "
    "\"armies\": {\"saxons\": {\"point_value\": 40, \"panic_level\": 12}, "
    "\"vikings\": {\"point_value\": 40, \"panic_level\": 12}}}, "
    "\"players\": [{\"side\": \"saxons\"}, {\"side\": \"vikings\", \"ferocious\": true}], "
    "\"units\": ["
    "{\"id\": \"v-spear\", \"side\": \"vikings\", \"type\": \"spearmen\", \"hex\": \"0507\", "
    "\"facing\": \"n\"}, "
    "{\"id\": \"v-earl\", \"side\": \"vikings\", \"type\": \"earl\", \"hex\": \"0507\", "
    "\"facing\": \"n\"}, "
    "{\"id\": \"v-horse\", \"side\": \"vikings\", \"type\": \"horsemen\", \"hex\": \"0207\", "
    "\"facing\": \"ne\"}, "
    "{\"id\": \"v-ship\", \"side\": \"vikings\", \"type\": \"longship\", \"hex\": \"0802\"}, "
    "{\"id\": \"s-archers\", \"side\": \"saxons\", \"type\": \"archers\", \"hex\": \"0504\", "
    "\"facing\": \"s\"}, "
    "{\"id\": \"s-spear\", \"side\": \"saxons\", \"type\": \"spearmen\", \"hex\": \"0505\", "
    "\"facing\": \"s\"}, "
    "{\"id\": \"s-earl\", \"side\": \"saxons\", \"type\": \"earl\", \"hex\": \"0505\", "
    "\"facing\": \"s\"}"
    "]}";

const ruleset ruleset_spi_dark_ages = {
    .id = "spi-dark-ages",
    .title = "SPI Dark Ages (1976) with the official errata, charts from the scenario",
    .version = 3,
    .description =
        "SPI's Dark Ages as corrected by its errata (Moves 12), the charts the errata does not "
        "print taken from setup.charts (validated at creation; an action needing a missing one "
        "answers 422 chart_missing). Sequence: Game-Turns of two Player-Turns (the second listed "
        "player first), each Movement, Allocation, Defensive Fire, Fire, Melee (end_phase "
        "advances). Actions: move (one unit, full extent; dearer terrain, roads 1/2, streams, "
        "rivers and bridges, fords, water hexsides; stop at enemy missile fronts; contact; "
        "fleets; panicked units to their edge; demoralized units by command; dismount/remount), "
        "allocate, fire (line of fire, hilltops, Fire Protection), melee (each strength adjusted, "
        "exact odds, command/ferocity/vitality modifiers, DD, 1E/2E, contact, panic, Victory "
        "Points), rally, end_phase. Setup: map (hex map, terrains clear|woods|swamp|slope|rough|"
        "town|keep|stream|river|bridge|ford, hexside features road|water, levels), streams? "
        "{hex: [hexside, hexside]}, charts (units, terrain, crt, capability, stacking_limit, "
        "armies, scenario), players [{side, ferocious?, byzantine?} x2], units {id, side, type, "
        "hex, facing, aboard?, bank?}. Details: docs/rules/spi-dark-ages.md.",
    .actions = da_actions,
    .nactions = sizeof da_actions / sizeof da_actions[0],
    .options_fields = da_option_fields,
    .sources = da_sources,
    .init_state = da_init_state,
    .sequence = &da_sequence,
    .sample_setup = da_sample_setup,
};
