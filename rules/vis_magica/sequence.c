/* The sequence of play of `vis-magica`: a house default (docs/rules/vis-magica.md). */
#include "rules/vis_magica/vm.h"

/* The amendments name a turn and its phases ("this turn's melee phase", "that phase") but give no
 * order. House default (docs/rules/vis-magica.md): each side in turn (setup.turn.order, else the
 * order of setup.units) has a player-turn of Movement, Shooting, Melee and Rally; the player
 * moves, shoots, fights and rallies; a morale check (10.1) may come in any phase, from whichever
 * side's base has to take it. setup.turn.phases may name fewer, or another order. */

static const seq_step vm_movement[] = {{"move", SEQ_PLAYER}, {"morale", SEQ_EVERY}, {NULL, 0}};
static const seq_step vm_shooting[] = {{"fire", SEQ_PLAYER}, {"morale", SEQ_EVERY}, {NULL, 0}};
static const seq_step vm_melee[] = {{"melee", SEQ_PLAYER}, {"morale", SEQ_EVERY}, {NULL, 0}};
static const seq_step vm_rally[] = {{"rally", SEQ_PLAYER}, {"morale", SEQ_EVERY}, {NULL, 0}};

static const seq_phase vm_phases[] = {
    {"movement", "Movement", vm_movement, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"shooting", "Shooting", vm_shooting, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"melee", "Melee", vm_melee, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"rally", "Rally", vm_rally, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {NULL, NULL, NULL, 0, 0, false, NULL, false},
};

const seq_play vm_sequence = {
    vm_phases,
    "house default (the amendments name turns and phases, not their order): each side in turn "
    "moves, shoots, fights in melee and rallies; a morale check in any phase, by the side whose "
    "base takes it",
    0,
};
