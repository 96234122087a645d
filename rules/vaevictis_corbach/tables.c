/* The published charts of Corbach 1760 (Vae Victis 142), shared/rules-sources/
 * vaevictis-142-corbach-1760-charts.txt, as data. The text was extracted from a PDF; the
 * Artillery Table's modifiers and the Combat Result Table's rows 4-7 are garbled there and are
 * read as shared/rules-notes.md (vaevictis-corbach-1760) says. */
#include "rules/vaevictis_corbach/vc.h"

#include <stdio.h>

/* ---- Terrain Effect Table ------------------------------------------------------------------
 * Columns: Cost (Infantry/Cavalry), Fire, Combat, Block the ZoC. "-" reads as 0 / no. */

const vc_terrain_row vc_hex_terrain[] = {
    [VC_CLEAR] = {"clear", 1, 1, 0, 0, false, "TET, Clear: 1, -, -, -"},
    /* Footnote 1: light cavalry may enter woods but is disorganised (move.c). */
    [VC_WOODS] = {"woods", 2, VC_FORBIDDEN, -1, -1, false, "TET, Woods: 2/Forb, -1, -1, -"},
    /* Observations: the flank hexes of infantry in a village count as front hexes (board.c). */
    [VC_VILLAGE] = {"village", 2, 2, -1, -1, true, "TET, Village: 2, -1, -1, Yes"},
};

/* Hexside features. Costs are supplements to the hex entered, except road and sunken road,
 * whose cost (1) replaces the hex's when the move follows them (footnote 2: they cancel the
 * supplementary cost, the disorganisation and the ban of non-clear terrain, facing changes
 * included). */
const vc_terrain_row vc_hexside_terrain[] = {
    [VC_ROAD] = {"road", 1, 1, 0, 0, false, "TET, Road: 1, terrain of the hex, -, -"},
    [VC_SUNKEN_ROAD] = {"sunken_road", 1, 1, 0, -1, false, "TET, Sunken road: 1, terrain, -1"},
    [VC_STREAM] = {"stream", 1, 1, 0, -1, true, "TET, Stream: +1, -, -1, Yes"},
    /* "There is a bridge where there is a road": crossing the stream by it costs nothing more. */
    [VC_BRIDGE] = {"bridge", 0, 0, 0, -2, false, "TET, Bridge: 0, -, -2, -"},
    /* Forbidden for artillery, automatic disorganisation (move.c). */
    [VC_SLOPE] = {"slope", 1, 2, 0, -2, true, "TET, Slope: +1/+2, -, -2, Yes"},
};

const vc_terrain_row vc_climb_one = {
    "climbing one level", 0, 0, -1, -1, false, "TET, Climbing one level: 0, -1, -1"};
/* Footnote 3: two levels in the same hex (1204 or 1104); a test for disorganisation. */
const vc_terrain_row vc_climb_two = {
    "climbing two levels", 1, 1, -1, -2, false, "TET, Climbing two levels: 1, -1, -2, test"};
const vc_terrain_row vc_going_down = {
    "going down", 0, 0, 0, 1, false, "TET, Going down one or two levels: 0, -, +1"};

static const char *const terrain_names[] = {"clear", "woods", "village", NULL};
static const char *const feature_names[] = {"road",   "sunken_road", "stream",
                                            "bridge", "slope",       NULL};
const hex_map_spec vc_map_spec = {terrain_names, feature_names, 0, 9};

/* ---- results --------------------------------------------------------------------------------
 * {code, steps, D, TM, TM modifier, retreat, *, E} */
#define NONE                                                                                       \
    { "-", 0, false, false, 0, 0, false, false }

/* Artillery Table: 1d6 + modifiers, rows "0 and -" to "9 and +". */
static const vc_result artillery_rows[10] = {
    NONE,                                          /* 0 and - */
    NONE,                                          /* 1 */
    {"TM", 0, false, true, 0, 0, false, false},    /* 2 */
    {"TM", 0, false, true, 0, 0, false, false},    /* 3 */
    {"TM+1", 0, false, true, 1, 0, false, false},  /* 4 */
    {"TM+2", 0, false, true, 2, 0, false, false},  /* 5 */
    {"D", 0, true, false, 0, 0, false, false},     /* 6 */
    {"1D-R1", 1, true, false, 0, 1, false, false}, /* 7 */
    {"1D-R2", 1, true, false, 0, 2, false, false}, /* 8 */
    {"2D-R2", 2, true, false, 0, 2, false, false}, /* 9 and + */
};

const vc_result *vc_artillery_result(int adjusted, int *row) {
    int r = adjusted < 0 ? 0 : adjusted > 9 ? 9 : adjusted;
    if (row) *row = r;
    return &artillery_rows[r];
}

/* Combat Result Table: 1d6 + modifiers, rows "-3 and -" to "11 and +", attacker / defender, as
 * rules-notes.md reads the garbled rows 4-7. */
static const vc_result crt_attacker[15] = {
    {"2D-R2*", 2, true, false, 0, 2, true, false},     /* -3 and - */
    {"1D-R1*", 1, true, false, 0, 1, true, false},     /* -2 */
    {"1-TM+2-R1", 1, false, true, 2, 1, false, false}, /* -1 */
    {"TM+2-R1", 0, false, true, 2, 1, false, false},   /* 0 */
    {"TM+2", 0, false, true, 2, 0, false, false},      /* 1 */
    {"TM+1", 0, false, true, 1, 0, false, false},      /* 2 */
    {"TM", 0, false, true, 0, 0, false, false},        /* 3 */
    {"TM", 0, false, true, 0, 0, false, false},        /* 4 */
    {"TM-1", 0, false, true, -1, 0, false, false},     /* 5 */
    {"TM-1", 0, false, true, -1, 0, false, false},     /* 6 */
    NONE,                                              /* 7 */
    NONE,                                              /* 8 */
    NONE,                                              /* 9 */
    NONE,                                              /* 10 */
    NONE,                                              /* 11 and + */
};
static const vc_result crt_defender[15] = {
    NONE,                                              /* -3 and - */
    NONE,                                              /* -2 */
    NONE,                                              /* -1 */
    NONE,                                              /* 0 */
    NONE,                                              /* 1 */
    {"TM", 0, false, true, 0, 0, false, false},        /* 2 */
    {"TM", 0, false, true, 0, 0, false, false},        /* 3 */
    {"TM+1", 0, false, true, 1, 0, false, false},      /* 4 */
    {"TM+2", 0, false, true, 2, 0, false, false},      /* 5 */
    {"1-TM+2", 1, false, true, 2, 0, false, false},    /* 6 */
    {"1-TM+2-R1", 1, false, true, 2, 1, false, false}, /* 7 */
    {"1D-R1", 1, true, false, 0, 1, false, false},     /* 8 */
    {"2D-R2*", 2, true, false, 0, 2, true, false},     /* 9 */
    {"3D-R2*", 3, true, false, 0, 2, true, false},     /* 10 */
    {"E", 0, false, false, 0, 0, false, true},         /* 11 and + */
};

void vc_crt_results(int adjusted, int *row, const vc_result **attacker,
                    const vc_result **defender) {
    int r = adjusted < -3 ? -3 : adjusted > 11 ? 11 : adjusted;
    if (row) *row = r;
    *attacker = &crt_attacker[r + 3];
    *defender = &crt_defender[r + 3];
}

/* CRT, Strength ratio (round in favour of the defender): the best column the real ratio reaches,
 * from 6/1 and more down to 1/3 and less. */
static const struct {
    int a, d, modifier;
} ratio_columns[] = {
    {6, 1, 6}, {5, 1, 5}, {4, 1, 4},  {3, 1, 3},  {2, 1, 2},
    {3, 2, 1}, {1, 1, 0}, {2, 3, -1}, {1, 2, -2}, {1, 3, -3},
};

int vc_ratio_modifier(int attack, int defence, char *label, size_t cap) {
    size_t n = sizeof ratio_columns / sizeof ratio_columns[0];
    for (size_t i = 0; i < n; i++)
        /* attack / defence >= a / d, in integers (strengths are small). */
        if ((long)attack * ratio_columns[i].d >= (long)defence * ratio_columns[i].a) {
            snprintf(label, cap, "%d:%d", ratio_columns[i].a, ratio_columns[i].d);
            return ratio_columns[i].modifier;
        }
    snprintf(label, cap, "1:3");
    return -3; /* 1/3 and - */
}
