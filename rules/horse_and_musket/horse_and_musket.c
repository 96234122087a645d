/* Ruleset `horse-and-musket`: the action table, every field described, the options, odds and the
 * ruleset row. docs/rules/horse-and-musket.md is the long form. */
#include "rules/horse_and_musket/hm.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/combat_table.h"
#include "rules/common/fields.h"

#include <string.h>

static json_t *hm_init_state(const json_t *options, const json_t *setup, api_error *err) {
    static const char *const setup_keys[] = {
        "units", "terrain", "turn", "retreat_variation", "fire_table", "melee_table", NULL};
    /* Terrain areas are kept for the table and its clients: the morale rule has no terrain
     * effect, so no action reads them. */
    static const char *const terrain_types[] = {"difficult", "impassable", NULL};
    if (hm_options_check(options, err) != 0 ||
        json_in_only_keys(setup, "setup", setup_keys, err) != 0)
        return NULL;
    json_t *units = NULL;
    if (json_in_array(setup, "setup", "units", false, UNITS_MAX, &units) != 0) {
        json_in_take_error(err);
        return NULL;
    }
    json_t *terrain =
        table_terrain_new(json_object_get(setup, "terrain"), "setup.terrain", terrain_types, err);
    if (!terrain) return NULL;
    /* The retreat's "usual possible distance-variation adjustment" (the game's table, not in our
     * source): a dice notation in the setup, rolled by the umpire; none by default. */
    char variation[64] = "";
    if (rules_in_text(setup, "setup", "retreat_variation", false, variation, sizeof variation,
                      err) != 0 ||
        (variation[0] && hm_check_hits(variation, "setup.retreat_variation", err) != 0)) {
        json_decref(terrain);
        return NULL;
    }
    json_t *list = hm_units_from_setup(units, err);
    json_t *turn = list ? seq_turn_init_new(&hm_sequence, setup, err) : NULL;
    if (!turn) {
        json_decref(list);
        json_decref(terrain);
        return NULL;
    }
    /* "claims": 0 marks a session whose sides' hits are claims (rules/common/claims.h) */
    json_t *state = json_pack("{s:o, s:o, s:o, s:i}", "units", list, "terrain", terrain, "turn",
                              turn, "claims", 0);
    if (state && variation[0])
        json_object_set_new(state, "retreat_variation", json_string(variation));
    /* The firing and melee tables are the game's, not in our source: the setup may give them
     * (rules/common/combat_table.h), and then the umpire rolls every hit from them. */
    if (state && combat_tables_add(state, setup, hm_type_names, err) != 0) {
        json_decref(state);
        return NULL;
    }
    return state;
}

/* ---- odds: told apart by every unit's effectiveness and state after (and a test's pass) -------
 */

json_t *hm_odds_key(const json_t *result, char *label, size_t cap) {
    const json_t *after = json_object_get(result, "after");
    label[0] = '\0';
    if (!after) return json_incref((json_t *)result);
    size_t i;
    const json_t *u;
    json_array_foreach(after, i, u) {
        rules_say(label, cap, "%s%s %lld%% %s", i ? ", " : "",
                  json_string_value(json_object_get(u, "unit")),
                  (long long)json_integer_value(json_object_get(u, "effectiveness")),
                  json_string_value(json_object_get(u, "state")));
    }
    json_t *key = json_pack("{s:O}", "after", after);
    const json_t *passed = json_object_get(result, "passed");
    if (key && passed) {
        json_object_set(key, "passed", (json_t *)passed);
        rules_say(label, cap, json_is_true(passed) ? " (passes)" : " (fails)");
    }
    const json_t *outcome = json_object_get(result, "outcome");
    if (key && outcome) json_object_set(key, "outcome", (json_t *)outcome);
    return key;
}

void hm_odds_finish(json_t *answer) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    double p_pass = 0, p_retreat = 0, p_elim = 0;
    bool has_pass = false;
    size_t i;
    json_t *row;
    json_array_foreach(outcomes, i, row) {
        const json_t *r = json_object_get(row, "result");
        double p = json_real_value(json_object_get(row, "p"));
        if (json_object_get(r, "passed")) has_pass = true;
        if (json_is_true(json_object_get(r, "passed"))) p_pass += p;
        size_t j;
        const json_t *u;
        bool retreat = false, elim = false;
        json_array_foreach(json_object_get(r, "after"), j, u) {
            const char *s = json_string_value(json_object_get(u, "state"));
            if (s && strcmp(s, "retreating") == 0) retreat = true;
            if (s && strcmp(s, "eliminated") == 0) elim = true;
        }
        if (retreat) p_retreat += p;
        if (elim) p_elim += p;
    }
    if (has_pass) json_object_set_new(answer, "p_pass", json_real(p_pass));
    json_object_set_new(answer, "p_any_retreating", json_real(p_retreat));
    json_object_set_new(answer, "p_any_eliminated", json_real(p_elim));
}

/* ---- fields ---------------------------------------------------------------------------------- */

static const rules_field fire_fields[] = {
    {"unit", "string", 1, "the firing unit"},
    {"target", "string", 1, "the enemy unit fired at"},
    {"hits", "integer", 0,
     "without setup.fire_table (required then): hits on the target, an integer (options.hits "
     "given) or a dice notation (rolled); with one, refused: the umpire rolls the table's row"},
    {"hits_back", "integer", 0,
     "without setup.fire_table: hits of the target's return fire in the same exchange (the "
     "retreat exception)"},
    {"situation", "string", 0,
     "with setup.fire_table: the situation of the shot, as a row names it"},
    {"situation_back", "string", 0, "with setup.fire_table: the situation of the return fire"},
    {"exchange", "boolean", 0,
     "with setup.fire_table: the target fires back in the same exchange (its row rolled too)"},
    {NULL, NULL, 0, NULL},
};

static const rules_field melee_fields[] = {
    {"unit", "string", 1, "the attacking unit"},
    {"target", "string", 1, "the enemy unit"},
    {"hits", "integer", 0,
     "without setup.melee_table (required then): hits on the target (integer, or notation when "
     "rolled); with one, refused: the umpire rolls the attacker's row"},
    {"hits_back", "integer", 0,
     "without setup.melee_table (required then): hits on the attacker; with one, the target's "
     "row is rolled"},
    {"situation", "string", 0,
     "with setup.melee_table: the attacker's situation, as a row names it"},
    {"situation_back", "string", 0, "with setup.melee_table: the target's situation"},
    {NULL, NULL, 0, NULL},
};

static const rules_field move_fields[] = {
    {"unit", "string", 1, "the unit that moves (not one that is retreating)"},
    {"to", "array", 1, "[x, y] where it ends"},
    {"path", "array", 0, "[[x, y], ...] the points it passes; the length is measured"},
    {"facing", "integer", 0, "its facing at the end, 0-359"},
    {NULL, NULL, 0, NULL},
};

static const rules_field morale_fields[] = {
    {"unit", "string", 1, "the unit that tests"},
    {"reason", "string", 0, "why, for the log"},
    {NULL, NULL, 0, NULL},
};

static const rules_field attach_fields[] = {
    {"unit", "string", 1, "the unit the general joins"},
    {"general", "string", 1, "the general, now attached to another unit of the same side"},
    {NULL, NULL, 0, NULL},
};

static const rules_field end_phase_fields[] = {
    {NULL, NULL, 0, NULL},
};

static const rules_field hm_option_fields[] = {
    {"measure", "string", 0, "inch (default) or cm"},
    {"resolution", "integer", 0, "subdivisions of the measure in coordinates (default 10)"},
    {"hits", "string", 0, "given (default: the table sends hit counts) or rolled (dice notation)"},
    {"trust_claims", "boolean", 0, CLAIMS_OPTION_DESCRIPTION},
    {"base_radius", "integer", 0,
     "house default half an inch (1.5 cm), exactly at every resolution: a base is a disc of "
     "this radius, and a retreat is blocked by the first unit its base would touch"},
    {NULL, NULL, 0, NULL},
};

CLAIMS_ACCEPT_DECLARE(hm_accept_resolve);

static const rules_action hm_actions[] = {
    {"fire", "Fire: 25% lost means a test; a failure retreats", fire_fields,
     sizeof(hm_combat_action), hm_fire_decode, hm_combat_encode, hm_fire_resolve, hm_odds_key,
     hm_odds_finish},
    {"melee", "A round of melee: the most hits loses, tests and retreats", melee_fields,
     sizeof(hm_combat_action), hm_melee_decode, hm_combat_encode, hm_melee_resolve, hm_odds_key,
     hm_odds_finish},
    {"move", "A measured move", move_fields, sizeof(hm_simple_action), hm_move_decode,
     hm_move_encode, hm_move_resolve, hm_odds_key, hm_odds_finish},
    {"morale", "A morale test the table calls for", morale_fields, sizeof(hm_simple_action),
     hm_morale_decode, hm_morale_encode, hm_morale_resolve, hm_odds_key, hm_odds_finish},
    {"attach", "A general switches units", attach_fields, sizeof(hm_simple_action),
     hm_attach_decode, hm_attach_encode, hm_attach_resolve, hm_odds_key, hm_odds_finish},
    {"end_phase",
     "End the phase (its player, or the referee): the next phase, side or turn; a side's "
     "retreating units roll to recover as its turn begins",
     end_phase_fields, 1, seq_end_phase_decode, seq_end_phase_encode, hm_end_phase_resolve,
     hm_odds_key, hm_odds_finish},
    CLAIMS_ACTION_ROWS(hm_accept_resolve, hm_odds_key, hm_odds_finish),
};

/* accept resolves the claimed action from this table. */
CLAIMS_ACCEPT_RESOLVE(hm_accept_resolve, hm_actions)

static const char *const hm_sources[] = {
    "shared/rules-sources/horse-and-musket-morale.txt: MORALE (the test, generals, support), the "
    "melee rule (most hits retreats, ties fight on, blocked retreats), the firing addition "
    "(failed fire tests retreat, the exchange exception) and recovery (5+)",
    "house defaults (docs/rules/horse-and-musket.md): effectiveness in 25% steps of "
    "hits_per_quarter hits (1), hits from setup.fire_table / melee_table when the setup gives "
    "them (the game's tables are not in our source), else claimed by a side and accepted by the "
    "other (or the referee), directly behind = "
    "within 30 degrees, "
    "bases as discs of options.base_radius, a retreat blocked by the first unit its base would "
    "touch, the retreat variation from setup.retreat_variation (none), the sequence of play "
    "(each side in turn: Movement, Fire, Melee; recovery rolled as a side's turn begins)",
    NULL,
};

static const char hm_sample_setup[] =
    "{\"units\": ["
    "{\"id\": \"guards\", \"side\": \"french\", \"type\": \"line_infantry\", \"quality\": "
    "\"elite\", \"at\": [100, 100], \"facing\": 0, \"movement\": 60, \"general\": \"Ney\"}, "
    "{\"id\": \"line\", \"side\": \"french\", \"type\": \"line_infantry\", \"quality\": "
    "\"regular\", \"at\": [100, 40], \"facing\": 0, \"movement\": 60}, "
    "{\"id\": \"voltigeurs\", \"side\": \"french\", \"type\": \"light_infantry\", \"quality\": "
    "\"regular\", \"at\": [160, 100], \"facing\": 0, \"movement\": 80}, "
    "{\"id\": \"hussars\", \"side\": \"french\", \"type\": \"cavalry\", \"quality\": \"poor\", "
    "\"at\": [40, 60], \"facing\": 0, \"movement\": 120}, "
    "{\"id\": \"redcoats\", \"side\": \"british\", \"type\": \"line_infantry\", \"quality\": "
    "\"regular\", \"at\": [100, 160], \"facing\": 180, \"movement\": 60, \"general\": "
    "\"Picton\"}, "
    "{\"id\": \"militia\", \"side\": \"british\", \"type\": \"line_infantry\", \"quality\": "
    "\"militia\", \"at\": [100, 230], \"facing\": 180, \"movement\": 60, \"effectiveness\": 75}, "
    "{\"id\": \"battery\", \"side\": \"british\", \"type\": \"artillery\", \"quality\": "
    "\"regular\", \"at\": [180, 200], \"facing\": 180, \"movement\": 40}"
    "]}";

const ruleset ruleset_horse_and_musket = {
    .id = "horse-and-musket",
    .title = "Horse and musket: a morale rule for miniatures",
    /* 1: blocker nearest the line, radius rounded up, retreat to the degree; 2: no sequence of
     * play (new_turn, recover and the retreat variation sent by the table); 3: the setup's tables
     * and the sequence of play; 4: a side's hits without a table are a claim (accept, dispute) */
    .version = 4,
    .description =
        "A horse-and-musket morale rule on an open table: a unit losing 25% effectiveness to "
        "fire, or losing a melee, rolls a die (elite 3+, regular 4+, poor or militia 5+; +1 "
        "attached general, +1 supported from directly behind by a unit that is not light "
        "infantry or artillery); a failure costs a further 25%. The melee loser (most hits this "
        "turn, fire included) and a unit failing its fire test retreat a full move with their "
        "back to the enemy (not when the enemy it exchanged fire with also lost and failed); "
        "ties fight on next turn (the pair may not move apart or fire elsewhere); a retreat "
        "blocked by a unit other than light infantry or artillery eliminates the retreating unit "
        "and a friendly blocker tests (not cavalry retreated into by infantry); a general dies "
        "with his unit; retreating units roll 5+ (+1 general) to recover at the start of each "
        "move. Sequence of play (house default): each side in turn has a player-turn of Movement "
        "(move, attach), Fire (fire) and Melee (melee), a morale test the table calls for in any "
        "phase; end_phase (the player or the referee) moves on, and a side's retreating units "
        "roll to recover as its player-turn begins; a Melee phase is not ended while a pair tied "
        "in an earlier turn has not fought again; setup.turn {order?, phases?} overrides the "
        "order of the sides and the phases. Actions: fire, melee, move, morale, attach, "
        "end_phase, accept, dispute (without a setup table a side's hits are a claim the "
        "target's side or the referee accepts, resolving it, or disputes; options.trust_claims "
        "lets them stand). Setup: terrain? [{id, type: difficult|impassable, polygon}] (kept for "
        "the "
        "table; the rule has no terrain effect), retreat_variation? (a dice notation added to "
        "every retreat's full move, rolled by the umpire; default none), fire_table? and "
        "melee_table? [{unit?: a type, range?: [lo, hi] (fire), situation?, hits: a dice "
        "notation or 0-99, source?}] (the first matching row decides; with a table the umpire "
        "rolls every hit and an action sends none), units {id, side, type: "
        "line_infantry|light_infantry|cavalry|artillery, quality: elite|regular|poor|militia, "
        "at: [x, y], facing: 0-359, movement, effectiveness?: 25-100, hits_per_quarter?, "
        "general?, name?}. Details: docs/rules/horse-and-musket.md.",
    .actions = hm_actions,
    .nactions = sizeof hm_actions / sizeof hm_actions[0],
    .options_fields = hm_option_fields,
    .sources = hm_sources,
    .init_state = hm_init_state,
    .sample_setup = hm_sample_setup,
    .sequence = &hm_sequence,
};
