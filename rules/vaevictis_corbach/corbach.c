/* Ruleset `vaevictis-corbach-1760`: the action table, every field described, the options, the
 * setup (map, units, formations) and the ruleset row. docs/rules/vaevictis-corbach-1760.md is the
 * long form of what GET /v1/rulesets/vaevictis-corbach-1760 answers. */
#include "rules/vaevictis_corbach/vc.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <string.h>

/* setup.formations: [{"id", "side"?, "demoralized"?}] -> state {"<id>": {"demoralized"}}. */
static json_t *formations_new(const json_t *list, api_error *err) {
    static const char *const keys[] = {"id", "side", "demoralized", NULL};
    json_t *out = json_object();
    if (!list) return out;
    if (!json_is_array(list) || json_array_size(list) > 64) {
        json_decref(out);
        api_error_field(err, "setup.formations",
                        "an array of at most 64 {\"id\", \"demoralized\"?}");
        return NULL;
    }
    size_t i;
    json_t *f;
    json_array_foreach(list, i, f) {
        char path[JSON_IN_PATH_MAX], id[VC_NAME_MAX + 1] = "", side[SIDE_NAME_MAX + 1] = "";
        bool demoralized = false;
        json_in_path_index(path, "setup.formations", i);
        if (!json_is_object(f)) {
            api_error_field(err, path, "an object with id");
            json_decref(out);
            return NULL;
        }
        if (json_in_only_keys(f, path, keys, err) != 0 ||
            rules_in_text(f, path, "id", true, id, sizeof id, err) != 0 ||
            rules_in_text(f, path, "side", false, side, sizeof side, err) != 0 ||
            rules_in_bool(f, path, "demoralized", &demoralized, err) != 0) {
            json_decref(out);
            return NULL;
        }
        if (json_object_get(out, id)) {
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s+}", "field", path, ".id"),
                          "formation '%s' is listed twice", id);
            json_decref(out);
            return NULL;
        }
        json_t *entry = json_pack("{s:b}", "demoralized", demoralized);
        if (side[0]) json_object_set_new(entry, "side", json_string(side));
        json_object_set_new(out, id, entry);
    }
    return out;
}

static json_t *vc_init_state(const json_t *options, const json_t *setup, api_error *err) {
    static const char *const setup_keys[] = {"units", "map", "formations", "turn", NULL};
    if (vc_options_check(options, err) != 0 ||
        json_in_only_keys(setup, "setup", setup_keys, err) != 0)
        return NULL;
    json_t *setup_map = NULL, *units = NULL;
    if (json_in_object(setup, "setup", "map", true, &setup_map) != 0 ||
        json_in_array(setup, "setup", "units", false, UNITS_MAX, &units) != 0) {
        json_in_take_error(err);
        return NULL;
    }
    json_t *map = hex_map_new(setup_map, "setup.map", &vc_map_spec, err);
    if (!map) return NULL;
    json_t *formations = formations_new(json_object_get(setup, "formations"), err);
    if (!formations) {
        json_decref(map);
        return NULL;
    }
    json_t *list = vc_units_from_setup(
        units, map, json_object_get(setup, "formations") ? formations : NULL, options, err);
    if (!list) {
        json_decref(map);
        json_decref(formations);
        return NULL;
    }
    json_t *turn = seq_turn_init_new(&vc_sequence, setup, err);
    if (!turn) {
        json_decref(map);
        json_decref(formations);
        json_decref(list);
        return NULL;
    }
    return json_pack("{s:o, s:o, s:o, s:[], s:o}", "map", map, "units", list, "formations",
                     formations, "pending", "turn", turn);
}

/* ---- fields ------------------------------------------------------------------------------------
 */

static const rules_field move_fields[] = {
    {"unit", "string", 1, "the unit that moves"},
    {"path", "array", 1,
     "in order: hexes entered (\"1205\", each adjacent to the last) and changes of facing "
     "({\"face\": \"ne\"}); priced on the Terrain Effects Table"},
    {NULL, NULL, 0, NULL},
};

static const rules_field fire_fields[] = {
    {"unit", "string", 1, "the artillery unit that fires"},
    {"target", "string", 1, "the enemy unit fired at (Artillery Table)"},
    {NULL, NULL, 0, NULL},
};

static const rules_field melee_fields[] = {
    {"unit", "string", 1, "the leading attacker"},
    {"attackers", "array", 0, "further attacking units (ids), adjacent to the defender's hex"},
    {"defender", "string", 1, "the hex assaulted (\"1305\"): every unit in it defends"},
    {"changed_order", "boolean", 0,
     "the attacking stack changed its order in an enemy ZoC (CRT, Miscellaneous: -2); refused "
     "(422) unless the acting unit stands in a stack of two or more units in an enemy ZoC"},
    {NULL, NULL, 0, NULL},
};

static const rules_field retreat_fields[] = {
    {"unit", "string", 1, "the unit with a pending retreat"},
    {"path", "array", 1,
     "exactly the pending number of hexes, each adjacent to the last and farther from the "
     "enemy; [] only when no such path exists (the unit is eliminated)"},
    {NULL, NULL, 0, NULL},
};

static const rules_field morale_fields[] = {
    {"unit", "string", 1, "the unit that tests"},
    {"modifier", "integer", 0, "the test's modifier, -6..6 (TM+2: 2); default 0"},
    {"reason", "string", 0, "why the test is taken, for the log (at most 63 bytes)"},
    {NULL, NULL, 0, NULL},
};

static const rules_field rally_fields[] = {
    {"unit", "string", 1,
     "a routed unit (12.5) or a disorganized one (12.2: tests in an enemy ZoC, reorganises "
     "without a test outside)"},
    {NULL, NULL, 0, NULL},
};

static const rules_field end_phase_fields[] = {
    {NULL, NULL, 0, NULL},
};

static const rules_field vc_option_fields[] = {
    {"morale_dice", "integer", 0,
     "house default 1: a morale test (TM) rolls 1d6 + its modifier and passes at most the "
     "unit's morale; 2 rolls 2d6"},
    {"stacking_limit", "integer", 0, "house default 2 units a hex (1-6)"},
    {"facing_change_cost", "integer", 0,
     "house default 1 movement point a change of facing (free on a road, TET footnote 2)"},
    {"max_range", "array", 0,
     "house default [5, 6, 7, 8]: artillery range in hexes for guns of up to 4 lb, 6-8 lb, 12 lb "
     "and heavier"},
    {NULL, NULL, 0, NULL},
};

static const rules_action vc_actions[] = {
    {"move", "Move one unit along a path (Terrain Effects Table)", move_fields,
     sizeof(vc_move_action), vc_move_decode, vc_move_encode, vc_move_resolve, vc_odds_key,
     vc_odds_finish},
    {"fire", "Artillery fire (Artillery Table)", fire_fields, sizeof(vc_fire_action),
     vc_fire_decode, vc_fire_encode, vc_fire_resolve, vc_odds_key, vc_odds_finish},
    {"melee", "Assault a hex (Combat Results Table)", melee_fields, sizeof(vc_melee_action),
     vc_melee_decode, vc_melee_encode, vc_melee_resolve, vc_odds_key, vc_odds_finish},
    {"retreat", "Carry out a pending retreat", retreat_fields, sizeof(vc_retreat_action),
     vc_retreat_decode, vc_retreat_encode, vc_retreat_resolve, vc_odds_key, vc_odds_finish},
    {"morale", "A morale test (TM), house default procedure", morale_fields,
     sizeof(vc_morale_action), vc_morale_decode, vc_morale_encode, vc_morale_resolve, vc_odds_key,
     vc_odds_finish},
    {"rally", "Rally a routed or disorganized unit (12.2, 12.5; house default)", rally_fields,
     sizeof(vc_morale_action), seq_end_phase_decode, seq_end_phase_encode, vc_rally_resolve,
     vc_odds_key, vc_odds_finish},
    {"end_phase",
     "End the phase (its player; in marching movement and rally each side its own part; or the "
     "referee): the next phase, player-turn or turn",
     end_phase_fields, 1, seq_end_phase_decode, seq_end_phase_encode, vc_end_phase_resolve, NULL,
     NULL},
};

static const char *const vc_sources[] = {
    "shared/rules-sources/vaevictis-142-corbach-1760-charts.txt: Terrain Effect Table, Artillery "
    "Table and its modifiers, Combat Result Table and its modifiers, sequence of play",
    "shared/rules-notes.md (vaevictis-corbach-1760): the reading of the garbled CRT rows and "
    "Artillery Table modifiers",
    "house defaults (docs/rules/vaevictis-corbach-1760.md): the morale test and rally procedure, "
    "movement points, front/flank/rear hexes, zones of control, facing-change cost, artillery "
    "range and line of fire, retreat paths, stacking limit",
    NULL,
};

/* A small engagement for fuzzers and docs: a village, woods, a stream with a bridge, a slope,
 * two levels; one unit of every type. */
static const char vc_sample_setup[] =
    "{\"map\": {\"columns\": [10, 15], \"rows\": [1, 8], "
    "\"hexes\": {\"1204\": {\"terrain\": \"village\", \"level\": 1}, "
    "\"1305\": {\"terrain\": \"woods\"}, \"1104\": {\"terrain\": \"clear\", \"level\": 2}}, "
    "\"hexsides\": [{\"hexes\": [\"1203\", \"1204\"], \"features\": [\"road\"]}, "
    "{\"hexes\": [\"1205\", \"1206\"], \"features\": [\"stream\"]}, "
    "{\"hexes\": [\"1204\", \"1205\"], \"features\": [\"stream\", \"bridge\", \"road\"]}, "
    "{\"hexes\": [\"1104\", \"1105\"], \"features\": [\"slope\"]}]}, "
    "\"formations\": [{\"id\": \"broglie\", \"side\": \"french\"}, "
    "{\"id\": \"ferdinand\", \"side\": \"allies\", \"demoralized\": true}], "
    "\"units\": ["
    "{\"id\": \"fr-line\", \"side\": \"french\", \"type\": \"line_infantry\", \"hex\": \"1206\", "
    "\"facing\": \"n\", \"strength\": 4, \"morale\": 3, \"formation\": \"broglie\", "
    "\"commander\": \"Broglie\"}, "
    "{\"id\": \"fr-light\", \"side\": \"french\", \"type\": \"light_infantry\", "
    "\"hex\": \"1306\", \"facing\": \"n\", \"strength\": 2, \"morale\": 3}, "
    "{\"id\": \"fr-heavy\", \"side\": \"french\", \"type\": \"heavy_cavalry\", \"hex\": \"1106\", "
    "\"facing\": \"n\", \"strength\": 3, \"morale\": 4, \"bonus\": true}, "
    "{\"id\": \"fr-guns\", \"side\": \"french\", \"type\": \"artillery\", \"calibre\": 12, "
    "\"hex\": \"1405\", \"facing\": \"nw\", \"strength\": 1, \"morale\": 3}, "
    "{\"id\": \"al-line\", \"side\": \"allies\", \"type\": \"line_infantry\", \"hex\": \"1204\", "
    "\"facing\": \"s\", \"strength\": 3, \"morale\": 3, \"formation\": \"ferdinand\"}, "
    "{\"id\": \"al-hussars\", \"side\": \"allies\", \"type\": \"light_cavalry\", "
    "\"hex\": \"1305\", \"facing\": \"s\", \"strength\": 2, \"morale\": 2, "
    "\"state\": \"disorganized\"}, "
    "{\"id\": \"al-column\", \"side\": \"allies\", \"type\": \"line_infantry\", "
    "\"hex\": \"1103\", \"facing\": \"s\", \"strength\": 3, \"morale\": 3, "
    "\"state\": \"march_column\"}"
    "]}";

const ruleset ruleset_vaevictis_corbach = {
    .id = "vaevictis-corbach-1760",
    .title = "Corbach 1760 (Vae Victis 142): the published charts",
    /* 2 (issue 20): a turn in place is applied to the state; a road across a stream is a
     * bridge; infantry in a village moves and assaults into its flank hexes; changed_order is
     * refused outside a stack in an enemy ZoC. Logs of version 1 may re-adjudicate otherwise. */
    /* 3 (issue 23): the chart's sequence of play; state.turn; end_phase. */
    .version = 3,
    .description =
        "Corbach 1760 on its published charts (Vae Victis 142): movement priced on the Terrain "
        "Effects Table, artillery fire on the Artillery Table and assaults on the Combat Results "
        "Table with every modifier named, results applied (step losses, disorganisation, morale "
        "tests, retreats left to the owning side, the starred cavalry rule, elimination). "
        "Sequence of play (the chart's): A. marching movement and B. rally, both sides, each "
        "ending its own part; C. each player in turn (setup.turn.order, house default the order "
        "of setup.units) plays the activations of formations (fire and move; the inactive "
        "player's reaction fire and reaction moves), the army commander's movement and combat; "
        "D. end of turn; a pending retreat or a morale test by the side whose unit takes it in "
        "any phase (house default); activation tests and command checks are left to the players "
        "(house default: not rolled); out-of-turn actions get 409 not_your_turn or 422 "
        "wrong_phase, the referee's are logged as overrides. "
        "Actions: move, fire, melee, retreat (a pending decision: other actions get 409 "
        "retreat_pending), morale, rally, end_phase. Setup: map {columns: [first, last], rows: "
        "[first, "
        "last], columns_shifted?: even|odd, default_terrain?, hexes?: {\"1204\": {terrain: "
        "clear|woods|village, level?: 0-9}}, hexsides?: [{hexes: [a, b], features: [road, "
        "sunken_road, stream, bridge, slope]}]}; units {id, side, type: line_infantry|"
        "light_infantry|heavy_cavalry|light_cavalry|artillery, calibre (artillery, pounds), hex, "
        "facing: n|ne|se|s|sw|nw, strength (steps), morale, state?: good|disorganized|routed|"
        "march_column, formation?, commander?, movement?, bonus? (heavy cavalry)}; formations? "
        "[{id, side?, demoralized?}]; turn? {order?, phases?}. What the charts leave out is a "
        "labelled house default "
        "(morale test, rally, movement points, facing zones, ZoC, ranges, retreats). Details: "
        "docs/rules/vaevictis-corbach-1760.md.",
    .actions = vc_actions,
    .nactions = sizeof vc_actions / sizeof vc_actions[0],
    .options_fields = vc_option_fields,
    .sources = vc_sources,
    .init_state = vc_init_state,
    .sequence = &vc_sequence,
    .sample_setup = vc_sample_setup,
};
