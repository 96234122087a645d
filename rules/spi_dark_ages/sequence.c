/* The sequence of play of `spi-dark-ages` as the shared table (rules/common/sequence.h), which
 * rules_resolve checks before any action: HOW TO SET-UP THE GAME (Clarification) "the second
 * Player listed always moves first"; each Player-Turn is the Movement, Attack Allocation and
 * Defensive Fire Phases the errata names, then fire and melee (their order a house default,
 * docs/rules/spi-dark-ages.md). The table's order is turn.c's DA_PH_* numbering, which
 * demoralization's "the same Phase ... in the following Game-Turn" counts in. */
#include "rules/spi_dark_ages/da.h"

static const seq_step da_movement[] = {{"move", SEQ_PLAYER}, {"rally", SEQ_PLAYER}, {NULL, 0}};
static const seq_step da_allocation[] = {{"allocate", SEQ_PLAYER}, {NULL, 0}};
/* "Defensive Fire Phase": the non-phasing Player fires at the units allocated against his. */
static const seq_step da_defensive_fire[] = {{"fire", SEQ_OPPONENT}, {NULL, 0}};
static const seq_step da_fire[] = {{"fire", SEQ_PLAYER}, {NULL, 0}};
static const seq_step da_melee[] = {{"melee", SEQ_PLAYER}, {NULL, 0}};

static const seq_phase da_phases[] = {
    {"movement", "Movement", da_movement, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"allocation", "Attack Allocation", da_allocation, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL,
     false},
    {"defensive_fire", "Defensive Fire", da_defensive_fire, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false,
     NULL, false},
    {"fire", "Fire", da_fire, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {"melee", "Melee", da_melee, SEQ_EACH_SIDE, SEQ_ENDS_DEFAULT, false, NULL, false},
    {NULL, NULL, NULL, 0, 0, false, NULL, false},
};

const seq_play da_sequence = {
    da_phases,
    "HOW TO SET-UP THE GAME (Clarification): a Game-Turn is two Player-Turns, the second listed "
    "Player's first; each is the Movement (then rally rolls), Attack Allocation and Defensive "
    "Fire Phases the errata names, then Fire and Melee (that order a house default); the "
    "non-phasing Player fires in the Defensive Fire Phase and ends it",
    DA_GAME_TURN_MAX,
};
