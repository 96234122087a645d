/* Ruleset `magic-realm`: the action table, every field described, the options and the sources.
 * docs/rules/magic-realm.md is the long form of what GET /v1/rulesets/magic-realm answers. */
#include "rules/magic_realm/mr.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/sequence.h"

#include <stdio.h>
#include <string.h>

/* ---- initial state ----------------------------------------------------------------------- */

static json_t *mr_init_state(const json_t *options, const json_t *setup, api_error *err) {
    static const char *const setup_keys[] = {"units", "map", "turn", NULL};
    if (options && !json_is_object(options)) {
        api_error_field(err, "options", "an object");
        return NULL;
    }
    if (mr_options_check(options, err) != 0 ||
        json_in_only_keys(setup, "setup", setup_keys, err) != 0)
        return NULL;
    json_t *units = NULL;
    if (json_in_array(setup, "setup", "units", false, UNITS_MAX, &units) != 0) {
        json_in_take_error(err);
        return NULL;
    }
    json_t *out = json_array();
    size_t i;
    json_t *obj;
    json_array_foreach(units, i, obj) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "setup.units", i);
        mr_unit u;
        if (mr_unit_from_setup(obj, path, &u, err) != 0) {
            json_decref(out);
            return NULL;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(json_string_value(json_object_get(json_array_get(out, j), "id")), u.id) ==
                0) {
                api_error_set(err, 422, "invalid_setup", json_pack("{s:s+}", "field", path, ".id"),
                              "unit id '%s' is used twice", u.id);
                json_decref(out);
                return NULL;
            }
        json_array_append_new(out, mr_unit_to_json(&u));
    }
    /* The turn (one round of combat, sequence.c) when there are sides to play; inline odds
     * without a setup have none, and nothing is enforced. */
    if (json_array_size(out) == 0) {
        if (json_object_get(setup, "turn")) {
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", "setup.turn"),
                          "a turn needs units to play it");
            json_decref(out);
            return NULL;
        }
        return json_pack("{s:o}", "units", out);
    }
    json_t *turn = seq_turn_init_new(&mr_sequence, setup, err);
    if (!turn) {
        json_decref(out);
        return NULL;
    }
    /* "claims": 0 marks a session whose sides' declared hits are claims (rules/common/claims.h) */
    return json_pack("{s:o, s:o, s:i}", "units", out, "turn", turn, "claims", 0);
}

/* ---- field descriptions -------------------------------------------------------------------- */

#define ATTACK_FIELDS(p)                                                                           \
    {p "kind", "string", 0,                                                                        \
     "missile or striking (5.4: striking attacks roll on the Fumble table, "                       \
     "missiles on the Optional Missile table); the stats (kind, harm, sharpness, time, length, "   \
     "spell, alerted) are given only inline or by the referee: in a session an attack names one "  \
     "of the unit's kit by name"},                                                                 \
        {p "harm", "string", 0, "the harm letter: L, M, H or T"},                                  \
        {p "sharpness", "integer", 0, "sharpness stars, 0-3 (default 0); each adds one level"},    \
        {p "time", "integer", 0, "attack time, 0-12 (an alerted attack spell: 0)"},                \
        {p "length", "integer", 0, "weapon length, 0-20 (default 0): orders a round by length"},   \
        {p "spell", "string", 0,                                                                   \
         "null, fiery-blast, lightning-bolt or stones-fly (a prepared Fiery Blast or Lightning "   \
         "Bolt loses a star under Hamblen's kludge, 5.6)"},                                        \
        {p "alerted", "boolean", 0,                                                                \
         "the weapon or spell is alerted (an alerted spell has time 0)"},                          \
        {p "box", "string", 0, "the attack's direction: thrust, swing or smash"}, {                \
        p "name", "string", 0,                                                                     \
            "an attack of the unit's kit (setup attacks[].name, e.g. \"Great Sword, F H6\"): "     \
            "without stats, the umpire takes them from the kit (422 not_in_kit when it has none "  \
            "of that name); with stats, a name for the summary (at most 40 bytes)"                 \
    }

static const rules_field attack_fields[] = {
    {"table", "string", 0,
     "missiles: revised (5.6, the default), second-edition (5.4) or standard (the basic game's "
     "Missile Table, no time DRM); default options.missile_table"},
    {"kludge", "boolean", 0,
     "Hamblen's kludge (5.6) for this attack; default options.hamblens_kludge"},
    {"attack", "object", 0,
     "the attack: {\"name\", \"box\"?}, one of the acting character's kit; or its stats "
     "(inline odds, or the referee); omitted for a denizen (it attacks with its counter)"},
    ATTACK_FIELDS("attack."),
    {"attack.attacker", "string", 0,
     "inline attacks: character (default) or denizen (5.3: denizens attack the horse)"},
    {"attack.red_side_up", "boolean", 0,
     "inline attacks: a red-side-up Tremendous monster (never rolls on the Fumble table; a hit "
     "kills)"},
    {"target", "object", 1, "an inline target, or {\"unit\": id, ...} for a unit of the session"},
    {"target.unit", "string", 0,
     "a unit of the session: its vulnerability, armor, horse and state come from the session, "
     "and the result changes them"},
    {"target.kind", "string", 0, "inline: denizen or character"},
    {"target.vulnerability", "string", 0, "inline: L, M, H or T"},
    {"target.armored", "boolean", 0, "inline denizens: armored (an attack loses a star)"},
    {"target.red_side_up", "boolean", 0, "inline denizens: accepted for completeness"},
    {"target.armor", "array", 0,
     "inline characters: [{\"toughness\": M|H|T, \"state\"?: intact|damaged}] in the order an "
     "attack meets them"},
    {"target.move_time", "integer", 0,
     "the target's maneuver time; null: a character who played no maneuver (counts as 8, 5.4.4); "
     "a rider's own maneuver (null: none); denizens of the session: their counter's; a "
     "character of the session attacked by a side: its play's maneuver this round, and a "
     "move_time sent is 422 target_from_play (the referee may give one)"},
    {"target.horse", "object", 0,
     "the target rides: {\"move_time\", \"vulnerability\"? (needed to attack the horse), "
     "\"armored\"?}; for a unit of the session only move_time (its horse's side this round)"},
    {"target.aim", "string", 0,
     "horse or rider (5.3); required against a rider unless a denizen attacks (denizens attack "
     "the horse, red-side-up Tremendous monsters the rider); also accepted as top-level aim"},
    {"hit", "string", 1,
     "intercept, undercut or miss; against a rider {\"horse\": intercept|undercut|miss, "
     "\"rider\": intercept|undercut}. An undercut needs an attack time lower than the move time, "
     "else it misses"},
    {"unit", "string", 0, "the acting unit (a side acts only with its own units): the attacker"},
    {NULL, NULL, 0, NULL},
};

static const rules_field run_fields[] = {
    {"maneuver", "string", 0,
     "a maneuver of the runner's kit (setup maneuvers[].name): its move time, and MOVE chit or "
     "Boots card; in a session a side's run names one (or runs with the horse)"},
    {"move_time", "integer", 0,
     "the move time he plays to run away (5.1): inline odds or the referee only; with horse and "
     "no move_time, the horse's"},
    {"with", "string", 0,
     "move (a MOVE chit, default), boots (a Boots card) or horse (5.2: a rider runs with his "
     "horse only)"},
    {"flying", "boolean", 0,
     "he flies away: only flying attackers count (5.1.3); only a unit the setup makes flying "
     "(a side's for another: 422 not_flying)"},
    {"attackers", "array", 1,
     "the attackers on his sheet: unit ids of denizens, or (inline odds, the referee) "
     "{\"move_time\", \"flying\"?, \"red_side_up\"?} (a red-side-up Tremendous monster "
     "forbids a MOVE chit, 5.1)"},
    {"unit", "string", 0, "the character who runs (optional for inline odds)"},
    {NULL, NULL, 0, NULL},
};

static const rules_field round_fields[] = {
    {"order", "string", 0,
     "time (fastest first), length (longest weapon first, as in the first round) or listed; "
     "default options.order"},
    {"table", "string", 0, "missile table for this round's missiles; default options"},
    {"kludge", "boolean", 0, "Hamblen's kludge for this round; default options"},
    {"runs", "array", 0,
     "run attempts before the melee, in order: {\"unit\", \"maneuver\" (of his kit) or "
     "\"move_time\", \"with\"?, \"flying\"?, \"attackers\"?} (attackers default to the "
     "round's denizens attacking him)"},
    {"combatants", "array", 0,
     "one entry per unit that maneuvers or attacks this round; with neither combatants nor runs "
     "the round resolves the plays of state.plays (any side may call for it)"},
    {"combatants[].unit", "string", 1, "the unit"},
    {"combatants[].maneuver", "object", 0,
     "characters (required): {\"box\": charge|dodge|duck, \"name\"} (a maneuver of his kit) "
     "or {\"box\", \"move_time\"}, or null for none (8)"},
    {"combatants[].horse", "object", 0,
     "riders (required for a riding character, 5.2): {\"box\", \"move_time\"?}; default move "
     "time: the horse's"},
    {"combatants[].attacks", "array", 0,
     "characters: [{\"target\", \"aim\"?, \"hit\"?, \"name\", \"box\"?}] naming attacks of "
     "his kit, or with their stats (kind, harm, sharpness, time, length, spell, alerted); without "
     "hit, the boxes decide"},
    ATTACK_FIELDS("combatants[].attacks[]."),
    {"combatants[].attacks[].target", "string", 1, "the unit attacked"},
    {"combatants[].attacks[].aim", "string", 0, "horse or rider, against a rider (5.3)"},
    {"combatants[].attacks[].hit", "string", 0, "a declared hit (as in attack) instead of boxes"},
    {"combatants[].box", "string", 0,
     "denizens (required): the box it moves to, thrust, swing or smash (it attacks in that "
     "direction and maneuvers on the same line)"},
    {"combatants[].target", "string", 0, "denizens: the unit it attacks (none: no attack)"},
    {"combatants[].hit", "string", 0, "denizens: a declared hit instead of boxes"},
    {"combatants[].change_tactics", "boolean", 0,
     "denizens: turn to the other side (setup other_side) before hit determination"},
    {NULL, NULL, 0, NULL},
};

static const rules_field play_fields[] = {
    {"unit", "string", 1, "the unit whose plays these are (a side plays only its own units)"},
    {"maneuver", "object", 0,
     "characters (required): {\"name\" (a maneuver of his kit), \"box\": charge|dodge|duck}, "
     "or null for none (5.4.4: as move time 8)"},
    {"maneuver.name", "string", 0, "a maneuver of the unit's kit (setup maneuvers[].name)"},
    {"maneuver.box", "string", 0, "charge, dodge or duck"},
    {"horse", "object", 0, "riders (required, 5.2): {\"box\"}; the horse's own move time"},
    {"horse.box", "string", 0, "charge, dodge or duck"},
    {"attacks", "array", 0,
     "characters: [{\"name\" (an attack of his kit), \"box\"?: thrust|swing|smash, "
     "\"target\", \"aim\"?: horse|rider}]; the boxes decide each hit"},
    {"attacks[].name", "string", 1, "an attack of the unit's kit (setup attacks[].name)"},
    {"attacks[].box", "string", 0, "thrust, swing or smash"},
    {"attacks[].target", "string", 1, "the unit attacked"},
    {"attacks[].aim", "string", 0, "horse or rider, against a rider (5.3)"},
    {"run", "object", 0,
     "characters: a run attempt this round, rolled first in the round: {\"maneuver\" (of his "
     "kit), \"flying\"?} or {\"with\": \"horse\"}"},
    {"run.maneuver", "string", 0, "a maneuver of the unit's kit"},
    {"run.with", "string", 0, "horse: a rider runs with his horse (5.2), at its move time"},
    {"run.flying", "boolean", 0,
     "he flies away: only flying attackers count (5.1.3); only a unit the setup makes flying "
     "(a side's for another: 422 not_flying)"},
    {"box", "string", 0, "denizens (required): thrust, swing or smash"},
    {"target", "string", 0, "denizens: the unit it attacks"},
    {"change_tactics", "boolean", 0, "denizens: turn to the other side first"},
    {NULL, NULL, 0, NULL},
};

static const rules_field end_phase_fields[] = {
    {NULL, NULL, 0, NULL},
};

static const rules_field mr_option_fields[] = {
    {"missile_table", "string", 0,
     "revised (default: 5.6, the 3rd edition), second-edition (5.4) or standard (Situation 6 "
     "STD: the basic game's Missile Table, no time DRM, armor as for striking attacks)"},
    {"hamblens_kludge", "boolean", 0,
     "5.6: a prepared (time 0) Fiery Blast or Lightning Bolt loses one star; default: on with "
     "the revised table, off with the others"},
    {"beyond_t_vs_armor", "string", 0,
     "house default kill: a striking (or standard-table) hit beyond T on a character's armor "
     "kills him and destroys the piece; armor-absorbs: the piece is destroyed and he takes one "
     "wound (the article's Situation 8 reading)"},
    {"order", "string", 0,
     "house default time: a round resolves attacks fastest first (ties: longer weapon, then "
     "listed); length or listed"},
    {"trust_claims", "boolean", 0, CLAIMS_OPTION_DESCRIPTION},
    {NULL, NULL, 0, NULL},
};

CLAIMS_ACCEPT_DECLARE(mr_accept_resolve);

static const rules_action mr_actions[] = {
    {"attack", "One attack: hit, DRM, Fumble or missile table, harm", attack_fields,
     sizeof(mr_attack_action), mr_attack_decode, mr_attack_encode, mr_attack_resolve,
     mr_attack_odds_key, mr_attack_odds_finish},
    {"run", "Run away: the Stumble table", run_fields, sizeof(mr_run_spec), mr_run_decode,
     mr_run_encode, mr_run_resolve, mr_run_odds_key, mr_run_odds_finish},
    {"round", "A whole melee round: the plays of state.plays, or given whole by the referee",
     round_fields, sizeof(mr_round_action), mr_round_decode, mr_round_encode, mr_round_resolve,
     mr_round_odds_key, mr_round_odds_finish},
    {"play", "One unit's plays for the round: a maneuver and attacks of its kit, a box, a target",
     play_fields, sizeof(mr_play_action), mr_play_decode, mr_play_encode, mr_play_resolve, NULL,
     NULL},
    {"end_phase",
     "End the phase (each side its part of the Plays; the first side or the referee "
     "the Resolution)",
     end_phase_fields, 1, seq_end_phase_decode, seq_end_phase_encode, mr_end_phase_resolve, NULL,
     NULL},
    CLAIMS_ACTION_ROWS(mr_accept_resolve, NULL, NULL),
};

/* accept resolves the claimed action from this table. */
CLAIMS_ACCEPT_RESOLVE(mr_accept_resolve, mr_actions)

static const char *const mr_sources[] = {
    "shared/rules-sources/magic-realm-optional-combat.txt: 5.1-5.5 Optional Combat Rules "
    "(Stumble, riding horses, attacking rider or horse, Fumble and 2nd-edition Missile tables, "
    "penetrating armor)",
    "same text, 5.6: the revised Missile table and Hamblen's kludge; Notes on the 3rd Edition: "
    "DRMs are fixed at hit determination (a killed horse still sets the DRM of later hits on its "
    "rider)",
    "same text, Situation 6 (STD): the basic game's Missile Table (option standard)",
    "house defaults (documented in docs/rules/magic-realm.md): beyond_t_vs_armor kill, order "
    "time, a character's armor covers every direction unless setup says protects",
    "same text, Notes on the 3rd Edition (Hamblen: 1st reveals plays, 2nd calculates speeds, 3rd "
    "resolves attacks): the sequence of play, a turn per round of combat (Plays, Resolution); "
    "house defaults: run attempts in the Plays, any side may call for the round of the plays, "
    "unresolved plays lapse at the end of a Resolution",
    NULL,
};

/* For fuzzers and docs: one unit per path of the module. The Sharks with Wings cast
 * (white-knight, bat-1, bat-2, as in scenarios/) so that the article's rounds replay on it; a
 * mounted character with pieces that cover some directions only (one already damaged); an
 * unarmored one; a Tremendous monster that turns red side up when it hits and one already red
 * side up; a mounted denizen; an armored denizen with a missile attack. */
static const char mr_sample_setup[] =
    "{\"units\": ["
    "{\"id\": \"white-knight\", \"side\": \"knight\", \"kind\": \"character\", "
    "\"name\": \"White Knight\", \"vulnerability\": \"H\", "
    "\"armor\": [{\"toughness\": \"H\", \"name\": \"suit of armor\"}], "
    "\"attacks\": [{\"name\": \"Great Sword, F H6\", \"kind\": \"striking\", \"harm\": \"T\", "
    "\"time\": 6, \"length\": 8}, {\"name\": \"Great Sword, F H5*\", \"kind\": \"striking\", "
    "\"harm\": \"T\", \"time\": 5, \"length\": 8}, {\"name\": \"Light Bow, F H1\", "
    "\"kind\": \"missile\", \"harm\": \"L\", \"sharpness\": 2, \"time\": 1, \"alerted\": true}], "
    "\"maneuvers\": [{\"name\": \"Move H6\", \"move_time\": 6}, {\"name\": \"Move H5*\", "
    "\"move_time\": 5}, {\"name\": \"Move H4**\", \"move_time\": 4}, {\"name\": "
    "\"Boots of the Seven Leagues\", \"kind\": \"boots\", \"move_time\": 3}]}, "
    "{\"id\": \"bat-1\", \"side\": \"monsters\", \"kind\": \"denizen\", \"name\": \"Giant Bat\", "
    "\"vulnerability\": \"H\", \"move_time\": 3, \"attack\": {\"harm\": \"M\", \"time\": 2}, "
    "\"other_side\": {\"attack\": {\"harm\": \"M\", \"time\": 3}, \"move_time\": 2}, "
    "\"flying\": true}, "
    "{\"id\": \"bat-2\", \"side\": \"monsters\", \"kind\": \"denizen\", \"name\": \"Giant Bat\", "
    "\"vulnerability\": \"H\", \"move_time\": 3, \"attack\": {\"harm\": \"M\", \"time\": 2}, "
    "\"other_side\": {\"attack\": {\"harm\": \"M\", \"time\": 3}, \"move_time\": 2}, "
    "\"flying\": true}, "
    "{\"id\": \"black-knight\", \"side\": \"knight\", \"kind\": \"character\", "
    "\"name\": \"Black Knight\", \"vulnerability\": \"H\", \"armor\": ["
    "{\"toughness\": \"M\", \"protects\": [\"smash\"], \"name\": \"helmet\"}, "
    "{\"toughness\": \"M\", \"state\": \"damaged\", \"protects\": [\"thrust\", \"swing\"], "
    "\"name\": \"breastplate\"}, "
    "{\"toughness\": \"H\", \"protects\": [\"thrust\"], \"name\": \"shield\"}], "
    "\"horse\": {\"vulnerability\": \"M\", \"move_time\": 4, \"armored\": true, "
    "\"name\": \"warhorse\"}}, "
    "{\"id\": \"amazon\", \"side\": \"amazon\", \"kind\": \"character\", \"name\": \"Amazon\", "
    "\"vulnerability\": \"M\", \"wounds\": 1, \"attacks\": [{\"name\": \"Short Sword, F M4\", "
    "\"harm\": \"M\", \"sharpness\": 1, \"time\": 4, \"length\": 3}, {\"name\": "
    "\"Fiery Blast, M III0*\", \"kind\": \"missile\", \"harm\": \"H\", \"sharpness\": 1, "
    "\"time\": 0, \"spell\": \"fiery-blast\", \"alerted\": true}], "
    "\"maneuvers\": [{\"name\": \"Move M3*\", \"move_time\": 3}]}, "
    "{\"id\": \"troll\", \"side\": \"monsters\", \"kind\": \"denizen\", "
    "\"name\": \"Tremendous Troll\", \"vulnerability\": \"T\", \"armored\": true, "
    "\"move_time\": 5, \"attack\": {\"harm\": \"T\", \"time\": 5}, "
    "\"other_side\": {\"attack\": {\"harm\": \"T\", \"time\": 4}, \"move_time\": 6}, "
    "\"red_side_up\": false}, "
    "{\"id\": \"giant\", \"side\": \"monsters\", \"kind\": \"denizen\", "
    "\"name\": \"Tremendous Giant\", \"vulnerability\": \"T\", \"move_time\": 5, "
    "\"attack\": {\"kind\": \"striking\", \"harm\": \"T\", \"time\": 6, \"length\": 6}, "
    "\"red_side_up\": true}, "
    "{\"id\": \"lancer\", \"side\": \"natives\", \"kind\": \"denizen\", \"name\": \"Lancer\", "
    "\"vulnerability\": \"M\", \"move_time\": 4, "
    "\"attack\": {\"harm\": \"M\", \"sharpness\": 1, \"time\": 5, \"length\": 12}, "
    "\"horse\": {\"vulnerability\": \"M\", \"move_time\": 3, \"name\": \"pony\"}}, "
    "{\"id\": \"archer\", \"side\": \"natives\", \"kind\": \"denizen\", \"name\": \"Archer\", "
    "\"vulnerability\": \"M\", \"armored\": true, \"move_time\": 4, "
    "\"attack\": {\"kind\": \"missile\", \"harm\": \"L\", \"sharpness\": 2, \"time\": 3}}"
    "]}";

const ruleset ruleset_magic_realm = {
    .id = "magic-realm",
    .title = "Magic Realm: the Optional Combat Rules",
    /* 4: a side's declared hit is a claim the other side accepts (accept, dispute) */
    .version = 4,
    .description =
        "Magic Realm's Optional Combat Rules (2nd edition 5.1-5.5 with the 3rd edition's revised "
        "Missile table and Hamblen's kludge, 5.6): running away on the Stumble table, striking "
        "attacks on the Fumble table, missiles on the Optional Missile table (revised by default, "
        "2nd edition or the basic game's table as options), horse and rider, penetration of a "
        "character's armor by missiles, and whole melee rounds with every DRM fixed at hit "
        "determination. Sequence of play (Hamblen's formalism, Notes on the 3rd Edition: "
        "reveal plays, calculate speeds, resolve): each turn is one round of combat, Plays "
        "(every side plays its units with play and may run away with run, then ends its own "
        "part with end_phase) and Resolution (round: the round of the plays, which any side may "
        "call for and which begins the next round; attack: one attack with a declared hit); "
        "house defaults: run attempts in the Plays, the first side or the referee ends a "
        "Resolution without a round (its plays lapse); setup.turn {order?, phases?} overrides. "
        "Actions: play, run, end_phase, round (of the plays; given whole: the referee), attack "
        "(inline for odds, or between units of a session). In a session an attack, maneuver or "
        "run names one of the unit's kit and the umpire takes its stats from there (422 "
        "not_in_kit naming what the unit has; a side's raw stats: 422 kit_required; the "
        "referee, and the inline odds, may give stats). A side's attack declaring intercept or "
        "undercut is its word: a pending claim the target's side or the referee accepts "
        "(accept: it resolves) or disputes (dispute: nothing is resolved), unless "
        "options.trust_claims. Odds answer rolls r = 1..6 with "
        "p_kill / p_success. Setup units: characters {\"kind\": \"character\", vulnerability, "
        "armor?: [{toughness M|H|T, state?: intact|damaged|destroyed, protects?: [thrust, "
        "swing, smash], name?}], horse?: {vulnerability, move_time, armored?, name?}, "
        "attacks?: [{name, kind, harm, sharpness?, time, length?, spell?, alerted?}], "
        "maneuvers?: [{name, move_time, kind?: move|boots}], flying?, name?}; denizens {\"kind\": "
        "\"denizen\", vulnerability, armored?, move_time, attack: {kind?, harm, sharpness?, "
        "time, length?}, other_side?: {attack, move_time}, flying?, red_side_up? (Tremendous "
        "monsters), horse?, name?}; a unit without kind takes no part in combat. Details: "
        "docs/rules/magic-realm.md.",
    .actions = mr_actions,
    .nactions = sizeof mr_actions / sizeof mr_actions[0],
    .options_fields = mr_option_fields,
    .sources = mr_sources,
    .init_state = mr_init_state,
    .sample_setup = mr_sample_setup,
    .sequence = &mr_sequence,
};
