/* Ruleset `vis-magica`: the action table, every field described, the options, odds and the
 * ruleset row. docs/rules/vis-magica.md is the long form. */
#include "rules/vis_magica/vm.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/combat_table.h"
#include "rules/common/fields.h"

#include <string.h>

static json_t *vm_init_state(const json_t *options, const json_t *setup, api_error *err) {
    static const char *const setup_keys[] = {"units",      "terrain",     "turn",
                                             "fire_table", "melee_table", NULL};
    if (vm_options_check(options, err) != 0 ||
        json_in_only_keys(setup, "setup", setup_keys, err) != 0)
        return NULL;
    json_t *units = NULL;
    if (json_in_array(setup, "setup", "units", false, UNITS_MAX, &units) != 0) {
        json_in_take_error(err);
        return NULL;
    }
    json_t *terrain = table_terrain_new(json_object_get(setup, "terrain"), "setup.terrain",
                                        vm_terrain_types, err);
    if (!terrain) return NULL;
    json_t *bases = vm_bases_from_setup(units, err);
    json_t *turn = bases ? seq_turn_init_new(&vm_sequence, setup, err) : NULL;
    if (!turn) {
        json_decref(bases);
        json_decref(terrain);
        return NULL;
    }
    /* "claims": 0 marks a session whose sides' hits are claims (rules/common/claims.h) */
    json_t *state = json_pack("{s:o, s:o, s:o, s:i}", "units", bases, "terrain", terrain, "turn",
                              turn, "claims", 0);
    /* The shooting and melee tables are the rulebook's, not among our sources: the setup may
     * give them (rules/common/combat_table.h), and then the umpire rolls every hit from them. */
    if (state && combat_tables_add(state, setup, vm_type_names, err) != 0) {
        json_decref(state);
        return NULL;
    }
    return state;
}

/* ---- odds: morale and rally told apart by pass/fail and the state after ---------------------- */

json_t *vm_odds_key(const json_t *result, char *label, size_t cap) {
    const char *action = json_string_value(json_object_get(result, "action"));
    label[0] = '\0';
    if (!action || (strcmp(action, "morale") != 0 && strcmp(action, "rally") != 0))
        return json_incref((json_t *)result);
    bool passed = json_is_true(json_object_get(result, "passed"));
    const char *after = json_string_value(json_object_get(result, "after"));
    rules_say(label, cap, "%s: %s", passed ? "passes" : "fails", after ? after : "?");
    return json_pack("{s:b, s:s, s:O}", "passed", passed, "after", after ? after : "?",
                     "modified_strength", json_object_get(result, "modified_strength"));
}

void vm_odds_finish(json_t *answer) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    json_t *after = json_object();
    double p_pass = 0;
    size_t i;
    json_t *row;
    json_array_foreach(outcomes, i, row) {
        const json_t *r = json_object_get(row, "result");
        double p = json_real_value(json_object_get(row, "p"));
        const char *state = json_string_value(json_object_get(r, "after"));
        if (!state) continue;
        if (json_is_true(json_object_get(r, "passed"))) p_pass += p;
        json_t *v = json_object_get(after, state);
        if (v)
            json_real_set(v, json_real_value(v) + p);
        else
            json_object_set_new(after, state, json_real(p));
    }
    if (json_object_size(after) == 0) {
        json_decref(after);
        return;
    }
    json_object_set_new(answer, "p_pass", json_real(p_pass));
    json_object_set_new(answer, "p_after", after);
}

/* ---- fields
 * --------------------------------------------------------------------------------------- */

static const rules_field check_fields[] = {
    {"unit", "string", 1, "the base that checks"},
    {"cause", "string", 0,
     "derived by the umpire: combat when the base lost strength to shooting or melee this "
     "phase (10.2's half-strength rule applies), else other; a side's cause that says otherwise "
     "is refused (422 cause_mismatch), the referee's stands"},
    {"modifiers", "array", 0,
     "the referee's only: [{\"name\", \"value\"}], modifiers ruled for the situation (a side "
     "names them in apply: 422 modifiers_by_name)"},
    {"apply", "array", 0,
     "names of modifiers in options.modifiers (the session's table of the rulebook's morale "
     "modifiers) that apply: the umpire sums them"},
    {NULL, NULL, 0, NULL},
};

static const rules_field move_fields[] = {
    {"unit", "string", 1, "the base that moves"},
    {"to", "array", 1, "[x, y]: where it ends (in 1/resolution of the measure)"},
    {"path", "array", 0, "[[x, y], ...]: the points it passes on the way; the length is measured"},
    {"facing", "integer", 0, "its facing at the end, 0-359 degrees clockwise from north"},
    {NULL, NULL, 0, NULL},
};

static const rules_field fire_fields[] = {
    {"unit", "string", 1, "the shooting base (it needs setup range {short, long})"},
    {"target", "string", 1, "the base shot at"},
    {"hits", "integer", 0,
     "without setup.fire_table: the hits scored (the rulebook's shooting table; default 0); "
     "with one, refused: the umpire rolls the table's row"},
    {"situation", "string", 0,
     "with setup.fire_table: the situation of the shot, as a row names it"},
    {NULL, NULL, 0, NULL},
};

static const rules_field melee_fields[] = {
    {"unit", "string", 1, "the base that fights"},
    {"target", "string", 1, "the enemy base (a routed one is removed, 10.2)"},
    {"hits", "integer", 0,
     "without setup.melee_table: hits on the target; with one, refused: the acting base's row "
     "is rolled"},
    {"hits_back", "integer", 0,
     "without setup.melee_table: hits on the acting base; with one, the target's row is rolled"},
    {"situation", "string", 0, "with setup.melee_table: the acting base's situation"},
    {"situation_back", "string", 0, "with setup.melee_table: the target's situation"},
    {NULL, NULL, 0, NULL},
};

static const rules_field end_phase_fields[] = {
    {NULL, NULL, 0, NULL},
};

static const rules_field vm_option_fields[] = {
    {"measure", "string", 0, "inch (default) or cm"},
    {"resolution", "integer", 0, "subdivisions of the measure in coordinates (default 10)"},
    {"modifiers", "object", 0,
     "named morale modifiers the table uses, e.g. {\"flank_or_rear_casualties\": -2} (applied "
     "by itself to a base with casualties from the flank or rear since its last check)"},
    {"trust_claims", "boolean", 0, CLAIMS_OPTION_DESCRIPTION},
    {NULL, NULL, 0, NULL},
};

CLAIMS_ACCEPT_DECLARE(vm_accept_resolve);

static const rules_action vm_actions[] = {
    {"morale", "A morale check (10.1, 10.2)", check_fields, sizeof(vm_check_action),
     vm_check_decode, vm_check_encode, vm_morale_resolve, vm_odds_key, vm_odds_finish},
    {"rally", "Rolling to rally (10.2)", check_fields, sizeof(vm_check_action), vm_check_decode,
     vm_check_encode, vm_rally_resolve, vm_odds_key, vm_odds_finish},
    {"move", "A measured move (amendment to page 48)", move_fields, sizeof(vm_move_action),
     vm_move_decode, vm_move_encode, vm_move_resolve, vm_odds_key, vm_odds_finish},
    {"fire", "Shooting: range bands, flying targets (correction to page 45)", fire_fields,
     sizeof(vm_hits_action), vm_fire_decode, vm_fire_encode, vm_fire_resolve, vm_odds_key,
     vm_odds_finish},
    {"melee", "Melee casualties; a routed base forced into melee is removed", melee_fields,
     sizeof(vm_hits_action), vm_melee_decode, vm_melee_encode, vm_melee_resolve, vm_odds_key,
     vm_odds_finish},
    {"end_phase", "End the phase (its player, or the referee): the next phase, side or turn",
     end_phase_fields, 1, seq_end_phase_decode, seq_end_phase_encode, vm_end_phase_resolve,
     vm_odds_key, vm_odds_finish},
    CLAIMS_ACTION_ROWS(vm_accept_resolve, vm_odds_key, vm_odds_finish),
};

/* accept resolves the claimed action from this table. */
CLAIMS_ACCEPT_RESOLVE(vm_accept_resolve, vm_actions)

static const char *const vm_sources[] = {
    "shared/rules-sources/vis-magica-amendments.txt: 10.1 Performing a Morale Check, 10.2 Morale "
    "Check Results, Shooting at Flying Bases (page 45), Close Order and Mounted Bases in Bad "
    "Terrain (page 48)",
    "house defaults (docs/rules/vis-magica.md): hits from the setup table, else claimed by a side "
    "and accepted by the other; flank or rear means "
    "more than 45 degrees off the target's facing; a routed base does not charge",
    NULL,
};

static const char vm_sample_setup[] =
    "{\"terrain\": [{\"id\": \"bog\", \"type\": \"difficult\", \"polygon\": [[100, 100], "
    "[200, 100], [200, 200], [100, 200]]}, {\"id\": \"cliffs\", \"type\": \"impassable\", "
    "\"polygon\": [[300, 0], [400, 0], [350, 80]]}], "
    "\"units\": ["
    "{\"id\": \"legion\", \"side\": \"empire\", \"type\": \"close_order\", \"at\": [150, 60], "
    "\"facing\": 0, \"strength\": 8, \"movement\": 60}, "
    "{\"id\": \"archers\", \"side\": \"empire\", \"type\": \"open_order\", \"at\": [60, 60], "
    "\"facing\": 0, \"strength\": 6, \"movement\": 60, \"range\": {\"short\": 120, \"long\": "
    "240}}, "
    "{\"id\": \"harpies\", \"side\": \"horde\", \"type\": \"other\", \"flying\": true, "
    "\"at\": [60, 150], \"facing\": 180, \"strength\": 4, \"movement\": 120}, "
    "{\"id\": \"wolves\", \"side\": \"horde\", \"type\": \"cavalry\", \"at\": [150, 250], "
    "\"facing\": 180, \"strength\": 6, \"movement\": 100, \"morale\": \"shaken\"}, "
    "{\"id\": \"goblins\", \"side\": \"horde\", \"type\": \"close_order\", \"at\": [250, 250], "
    "\"facing\": 180, \"strength\": 5, \"movement\": 50, \"morale\": \"routed\"}"
    "]}";

const ruleset ruleset_vis_magica = {
    .id = "vis-magica",
    .title = "Vis Magica: the official amendments (morale, flying bases, bad terrain)",
    /* 2: the sequence of play; 3: the cause derived, a side's modifiers by name only; 4: a side's
     * hits without a table are a claim the other side accepts (accept, dispute) */
    .version = 4,
    .description =
        "Vis Magica's official amendments on an open table: morale checks (10.1: 2d6 against the "
        "modified strength, double one passes, double six fails; 10.2: good, shaken, routed, "
        "removed, with the half-strength rule after combat, rallying and removal of a routed "
        "base forced into melee), shooting at flying bases (only at short range, counted as "
        "long), and close order troops, cavalry and chariots disordered on ending a move in "
        "difficult or impassable terrain. Sequence of play (house default): each side in turn "
        "has a player-turn of Movement (move), Shooting (fire), Melee (melee) and Rally (rally), "
        "a morale check in any phase by the side whose base takes it; end_phase (the player or "
        "the referee) moves on; setup.turn {order?, phases?} overrides the order of the sides "
        "and the phases. Actions: morale, rally, move, fire (shooting), melee, end_phase, accept, "
        "dispute (without a setup table a side's hits are a claim the target's side or the "
        "referee accepts or disputes, unless options.trust_claims). Setup: "
        "terrain [{id, type: difficult|impassable, polygon: [[x, y], ...]}], "
        "units {id, side, type: close_order|open_order|cavalry|chariots|other, at: [x, y], "
        "facing: 0-359, strength, flying?, morale?, disordered?, orders?, movement?, range?: "
        "{short, long}}; lengths in 1/resolution of options.measure. The modifier table is the "
        "rulebook's: modifiers come with the request or from options.modifiers. Details: "
        "docs/rules/vis-magica.md.",
    .actions = vm_actions,
    .nactions = sizeof vm_actions / sizeof vm_actions[0],
    .options_fields = vm_option_fields,
    .sources = vm_sources,
    .init_state = vm_init_state,
    .sample_setup = vm_sample_setup,
    .sequence = &vm_sequence,
};
