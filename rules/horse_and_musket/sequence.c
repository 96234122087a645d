/* The sequence of play of `horse-and-musket`: a house default (docs/rules/horse-and-musket.md). */
#include "rules/horse_and_musket/hm.h"

/* The morale rule speaks of turns ("a tie results in another round of meleeing on the following
 * turn", support "able to reach it in two turns by normal movement"), moves ("at the start of each
 * move of retreat"), firing (musketry and artillery) and rounds of meleeing, but gives no order.
 * House default: each side in turn (setup.turn.order, else the order of setup.units) has a
 * player-turn of Movement (its units move, its generals switch units), Fire (its units fire; a
 * target fires back in the same exchange) and Melee (its units fight a round). A morale test the
 * table calls for may come in any phase, for a unit of either side. A retreating unit is diced for
 * at the start of its side's player-turn, the start of its next move (the recovery rule).
 * setup.turn.phases may name fewer phases, or another order. */

static const seq_step hm_movement[] = {
    {"move", SEQ_PLAYER}, {"attach", SEQ_PLAYER}, {"morale", SEQ_EVERY}, {NULL, 0}};
static const seq_step hm_fire[] = {{"fire", SEQ_PLAYER}, {"morale", SEQ_EVERY}, {NULL, 0}};
static const seq_step hm_melee[] = {{"melee", SEQ_PLAYER}, {"morale", SEQ_EVERY}, {NULL, 0}};

static const seq_phase hm_phases[] = {
    {"movement", "Movement", hm_movement, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"fire", "Fire", hm_fire, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"melee", "Melee", hm_melee, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {NULL, NULL, NULL, 0, 0, false, NULL, false},
};

const seq_play hm_sequence = {
    hm_phases,
    "house default (the rule names turns, moves, firing and rounds of meleeing, not their "
    "order): each side in turn moves, fires and fights a round of melee; a morale test the table "
    "calls for in any phase; a retreating unit is diced for at the start of its side's turn",
    0,
};
