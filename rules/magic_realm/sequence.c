/* The sequence of play of `magic-realm`: each turn is one round of combat, as Hamblen's
 * formalism gives it (shared/rules-sources/magic-realm-optional-combat.txt, Notes on the 3rd
 * Edition, Hamblen's reply on horses):
 *
 *   "The formalism of the rule is that everyone:
 *    1st - reveals plays,
 *    2nd - calculates speeds of attacks and defenses, and their interaction,
 *    3rd - resolves attacks in appropriate order (i.e. length or time), using the interactions
 *          calculated in step 2 above."
 *
 * So two phases a round, each once for every side (docs/rules/magic-realm.md):
 *   Plays (step 1): every side plays its units (play: a maneuver and attacks of each unit's kit,
 *     a denizen's box and target, a run attempt) and may run away at once (run: Situation 10,
 *     "Knight plays Move H4** to run away ... rolls 4 and fails", before his maneuver); each side
 *     ends its own part (end_phase), and the phase ends when every side has.
 *   Resolution (steps 2 and 3): the round of those plays (round), or single attacks with a
 *     declared hit (attack). The round ends the round of combat itself: the next round's Plays
 *     begin (the module's own step, as end_phase would).
 * House defaults (labelled): the run attempts of the Plays phase (the article narrates them
 * first; the source names no step for them); any side may call for the round of the plays (it
 * takes no one's word); the first side ends a Resolution without a round (its plays lapse);
 * setup.turn {order?, phases?} overrides the sides' order and the phases. */
#include "rules/magic_realm/mr.h"

#include "rules/common/sequence.h"
#include "rules/common/terms.h"

#include <stdio.h>
#include <string.h>

static const seq_step mr_plays[] = {{"play", SEQ_EVERY}, {"run", SEQ_EVERY}, {NULL, 0}};
static const seq_step mr_resolution[] = {{"round", SEQ_EVERY}, {"attack", SEQ_EVERY}, {NULL, 0}};

static const seq_phase mr_phases[] = {
    {"plays", "Plays", mr_plays, SEQ_ONCE, SEQ_ENDS_EACH, true, "round", false},
    {"resolution", "Resolution", mr_resolution, SEQ_ONCE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {NULL, NULL, NULL, 0, 0, false, NULL, false},
};

const seq_play mr_sequence = {
    mr_phases,
    "Hamblen's formalism (Notes on the 3rd Edition): everyone reveals plays, then speeds and "
    "their interaction are calculated and the attacks resolved in order; a turn is one round of "
    "combat: Plays (every side plays its units and ends its own part; run attempts here, a house "
    "default after Situation 10), then Resolution (the round of the plays; the round ends it)",
    0,
};

int mr_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err) {
    (void)action;
    seq_turn turn;
    seq_change chg;
    if (seq_end_phase_begin(&mr_sequence, ctx, &turn, &chg, out, err) != 0) return -1;
    out->result = seq_end_phase_result_new(&mr_sequence, &turn, &chg);
    out->new_state = json_copy((json_t *)ctx->state);
    if (out->new_state) {
        json_object_set_new(out->new_state, "turn", seq_turn_json(&mr_sequence, &turn));
        /* A Resolution ended with no round: the plays of that round lapse (house default). */
        if (chg.new_turn && json_object_get(ctx->state, "plays")) {
            json_object_del(out->new_state, "plays");
            rules_say(out->summary, sizeof out->summary, "; the plays not resolved lapse");
        }
    }
    return mr_finish(out, err);
}

int mr_round_ends(const rules_ctx *ctx, rules_outcome *out, api_error *err) {
    if (json_object_get(ctx->state, "plays")) json_object_del(out->new_state, "plays");
    seq_turn t;
    int got = seq_turn_read(&mr_sequence, ctx->state, &t, err);
    if (got <= 0) return got; /* no turn (inline odds, an old session): nothing to advance */
    int round = t.number;
    seq_change chg = {0};
    for (int i = 0; i <= SEQ_PHASES_MAX && !chg.new_turn; i++)
        if (seq_advance(&mr_sequence, &t, &chg, err) != 0) return -1;
    json_object_set_new(out->new_state, "turn", seq_turn_json(&mr_sequence, &t));
    json_object_set_new(
        out->result, "turn",
        json_pack("{s:i, s:s}", "number", t.number, "phase", seq_phase_name(&mr_sequence, &t)));
    rules_say(out->summary, sizeof out->summary,
              "; round %d of combat ends, the %s of round %d "
              "begin",
              round, seq_phase_title(&mr_sequence, &t), t.number);
    return 0;
}
