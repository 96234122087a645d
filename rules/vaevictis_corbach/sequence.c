/* The sequence of play of `vaevictis-corbach-1760`, from the chart's SEQUENCE OF PLAY
 * (shared/rules-sources/vaevictis-142-corbach-1760-charts.txt;
 * docs/rules/vaevictis-corbach-1760.md).
 */
#include "rules/vaevictis_corbach/vc.h"

/* A pending retreat belongs to whichever side's unit retreats, and a morale test (TM) to whichever
 * side's unit takes it: both may come in any phase a result is applied in (house default). */

/* "A. MARCHING MOVEMENT": the chart names it for the turn, not for a player: both sides move
 * (house default: each ends its own part). */
static const seq_step vc_marching[] = {
    {"move", SEQ_EVERY}, {"retreat", SEQ_EVERY}, {"morale", SEQ_EVERY}, {NULL, 0}};
/* "B. PHASE DE RALLIEMENT: [p]layers attempts to rally their units in Rout (12.5) and their
 * Disorganised units in enemy ZoC and reorganise ... (12.2)": both sides, each its own units. */
static const seq_step vc_rally[] = {{"rally", SEQ_EVERY}, {"morale", SEQ_EVERY}, {NULL, 0}};
/* "C. ACTIVATIONS OF FORMATIONS ... Fire and Movement Phase": the active player fires with his
 * artillery (1b) and moves (2, 3a-3c); "The inactive player may: React to an enemy movement
 * [8.5]; Engage in reaction fire (9.3)". Activation tests and command checks (A) are not on the
 * chart: house default, the players settle them (no test is rolled by the server). */
static const seq_step vc_activations[] = {{"fire", SEQ_PLAYER},
                                          {"fire", SEQ_OPPONENT},
                                          {"move", SEQ_PLAYER},
                                          {"move", SEQ_OPPONENT},
                                          {"retreat", SEQ_EVERY},
                                          {"morale", SEQ_EVERY},
                                          {NULL, 0}};
/* "4 - Army commander's movement": the active player. */
static const seq_step vc_commander[] = {
    {"move", SEQ_PLAYER}, {"retreat", SEQ_EVERY}, {"morale", SEQ_EVERY}, {NULL, 0}};
/* "5 - Combat phase (see 10) Resolution of all combats": the active player's assaults; the
 * results' retreats and tests by whichever side takes them. */
static const seq_step vc_combat[] = {
    {"melee", SEQ_PLAYER}, {"retreat", SEQ_EVERY}, {"morale", SEQ_EVERY}, {NULL, 0}};
/* "D. END OF TURN": the chart names it and nothing done in it; pending retreats and tests may be
 * finished there. */
static const seq_step vc_end[] = {{"retreat", SEQ_EVERY}, {"morale", SEQ_EVERY}, {NULL, 0}};

/* C1/C2: "The second player becomes the active player and repeats the same operations": the
 * activations, commander and combat phases form each side's player-turn. */
static const seq_phase vc_phases[] = {
    {"marching", "Marching Movement", vc_marching, SEQ_ONCE, SEQ_ENDS_EACH, false, NULL, false},
    {"rally", "Rally", vc_rally, SEQ_ONCE, SEQ_ENDS_EACH, false, NULL, false},
    {"activations", "Activations of Formations (Fire and Movement)", vc_activations, SEQ_EACH_SIDE,
     SEQ_ENDS_DEFAULT, false, NULL, false},
    {"commander", "Army Commander's Movement", vc_commander, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false,
     NULL, false},
    {"combat", "Combat", vc_combat, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"end_of_turn", "End of Turn", vc_end, SEQ_ONCE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {NULL, NULL, NULL, 0, 0, false, NULL, false},
};

const seq_play vc_sequence = {
    vc_phases,
    "the chart's SEQUENCE OF PLAY: A. marching movement (both sides), B. rally (both sides), "
    "C. for each player in turn (first player: setup.turn.order, house default the order of "
    "setup.units) the activations of formations (fire and movement; the inactive player's "
    "reaction fire and reaction moves), the army commander's movement and the combat phase, "
    "D. end of turn",
    0,
};

/* ---- end_phase ---------------------------------------------------------------------------------
 */

/* The next phase, player-turn or turn (vc_sequence). A pending retreat is carried out first (409
 * retreat_pending, as for every other action): a phase does not end on a result half applied.
 * rules_resolve has checked that the phase's player, an acting side of a SEQ_ENDS_EACH phase, or
 * the referee ends it. The charts attach nothing to a new turn or player-turn. */
int vc_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err) {
    (void)action;
    if (vc_check_pending(ctx->state, NULL, err) != 0) return -1;
    seq_turn turn;
    seq_change chg;
    if (seq_end_phase_begin(&vc_sequence, ctx, &turn, &chg, out, err) != 0) return -1;
    out->result = seq_end_phase_result_new(&vc_sequence, &turn, &chg);
    json_object_set_new(out->result, "new_player_turn", json_boolean(chg.new_player_turn));
    out->new_state = json_copy((json_t *)ctx->state);
    json_object_set_new(out->new_state, "turn", seq_turn_json(&vc_sequence, &turn));
    return 0;
}
