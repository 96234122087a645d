/* The published tables of the Optional Combat Rules, as static const rows, and the names of the
 * module's enumerations. Sources: shared/rules-sources/magic-realm-optional-combat.txt. */
#include "rules/magic_realm/mr.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

typedef struct table_row {
    int lo, hi; /* adjusted die rolls this row covers */
    mr_effect_kind kind;
    int shift;
} table_row;

typedef struct harm_table {
    const table_row *rows;
    size_t nrows;
    int clamp_lo, clamp_hi; /* "convert it to 10 ... convert it to 1"; INT_MIN/INT_MAX: none */
} harm_table;

/* 5.4 OPTIONAL COMBAT TABLES: "These tables allow results from 1 to 10. If the adjusted die roll
 * exceeds 10, convert it to 10. If it is lower than 1, convert it to 1." */
#define OPT_LO 1
#define OPT_HI 10

static const table_row fumble_rows[] = {
    {1, 1, MR_EFFECT_SHIFT, +2},       /* 5.4 FUMBLE table, row 1: increase two levels */
    {2, 3, MR_EFFECT_SHIFT, +1},       /* 5.4 FUMBLE table, row 2-3: increase one level */
    {4, 6, MR_EFFECT_SHIFT, 0},        /* 5.4 FUMBLE table, row 4-6: no change */
    {7, 8, MR_EFFECT_SHIFT, -1},       /* 5.4 FUMBLE table, row 7-8: decrease one level */
    {9, 9, MR_EFFECT_SHIFT, -2},       /* 5.4 FUMBLE table, row 9: decrease two levels */
    {10, 10, MR_EFFECT_NEGLIGIBLE, 0}, /* 5.4 FUMBLE table, row 10: negligible */
};

static const table_row second_edition_rows[] = {
    {1, 1, MR_EFFECT_SHIFT, +3},       /* 5.4 MISSILE table (2nd edition), row 1: +3 levels */
    {2, 2, MR_EFFECT_SHIFT, +2},       /* 5.4 MISSILE table (2nd edition), row 2: +2 levels */
    {3, 3, MR_EFFECT_SHIFT, +1},       /* 5.4 MISSILE table (2nd edition), row 3: +1 level */
    {4, 4, MR_EFFECT_SHIFT, 0},        /* 5.4 MISSILE table (2nd edition), row 4: no change */
    {5, 5, MR_EFFECT_SHIFT, -1},       /* 5.4 MISSILE table (2nd edition), row 5: -1 level */
    {6, 6, MR_EFFECT_SHIFT, -2},       /* 5.4 MISSILE table (2nd edition), row 6: -2 levels */
    {7, 7, MR_EFFECT_SHIFT, -3},       /* 5.4 MISSILE table (2nd edition), row 7: -3 levels */
    {8, 9, MR_EFFECT_WOUND, 0},        /* 5.4 MISSILE table (2nd edition), row 8-9: wound */
    {10, 10, MR_EFFECT_NEGLIGIBLE, 0}, /* 5.4 MISSILE table (2nd edition), row 10: negligible */
};

static const table_row revised_rows[] = {
    {INT_MIN, -2, MR_EFFECT_SHIFT, +3}, /* 5.6 revised missile table, row 1: -2 or less, +3 */
    {-1, -1, MR_EFFECT_SHIFT, +2},      /* 5.6 revised missile table, row 2: -1, +2 levels */
    {0, 1, MR_EFFECT_SHIFT, +1},        /* 5.6 revised missile table, row 3: 0-1, +1 level */
    {2, 4, MR_EFFECT_SHIFT, 0},         /* 5.6 revised missile table, row 4: 2-4, no change */
    {5, 6, MR_EFFECT_SHIFT, -1},        /* 5.6 revised missile table, row 5: 5-6, -1 level */
    {7, 7, MR_EFFECT_SHIFT, -2},        /* 5.6 revised missile table, row 6: 7, -2 levels */
    {8, INT_MAX, MR_EFFECT_SHIFT, -3},  /* 5.6 revised missile table, row 7: 8 or more, -3 */
};

/* The basic game's Missile Table, as Situation 6 (STD) lists it for H harm (1 Kill, 2 T, 3 H,
 * 4 M, 5 L, 6 no effect) and Situations 8 and 9 (STD) confirm for M and T harm. It is rolled
 * without the optional time DRM. */
static const table_row standard_rows[] = {
    {1, 1, MR_EFFECT_SHIFT, +2}, /* Situation 6 STD, die roll 1: H harm -> Kill (+2 levels) */
    {2, 2, MR_EFFECT_SHIFT, +1}, /* Situation 6 STD, die roll 2: H harm -> T (+1 level) */
    {3, 3, MR_EFFECT_SHIFT, 0},  /* Situation 6 STD, die roll 3: H harm -> H (no change) */
    {4, 4, MR_EFFECT_SHIFT, -1}, /* Situation 6 STD, die roll 4: H harm -> M (-1 level) */
    {5, 5, MR_EFFECT_SHIFT, -2}, /* Situation 6 STD, die roll 5: H harm -> L (-2 levels) */
    {6, 6, MR_EFFECT_SHIFT, -3}, /* Situation 6 STD, die roll 6: H harm -> no effect (-3) */
};

#define ROWS(r) r, sizeof r / sizeof r[0]
static const harm_table fumble_table = {ROWS(fumble_rows), OPT_LO, OPT_HI};
static const harm_table second_edition_table = {ROWS(second_edition_rows), OPT_LO, OPT_HI};
/* The revised table has rows below 1 ("-2 or less"), so the 1-to-10 conversion does not apply. */
static const harm_table revised_table = {ROWS(revised_rows), INT_MIN, INT_MAX};
static const harm_table standard_table = {ROWS(standard_rows), 1, 6};

typedef struct stumble_row {
    int lo, hi;
    int completed;
} stumble_row;

static const stumble_row stumble_rows[] = {
    {1, 6, 1},  /* 5.4 STUMBLE table, row 1-6: completed (5.1.2) */
    {7, 10, 0}, /* 5.4 STUMBLE table, row 7-10: cancelled (5.1.2) */
};

static int clamp(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

mr_effect mr_table_effect(mr_table_id id, int adjusted) {
    const harm_table *t = id == MR_TABLE_FUMBLE     ? &fumble_table
                          : id == MR_TABLE_SECOND   ? &second_edition_table
                          : id == MR_TABLE_STANDARD ? &standard_table
                                                    : &revised_table;
    mr_effect e = {MR_EFFECT_SHIFT, 0, clamp(adjusted, t->clamp_lo, t->clamp_hi)};
    for (size_t i = 0; i < t->nrows; i++)
        if (e.table_roll >= t->rows[i].lo && e.table_roll <= t->rows[i].hi) {
            e.kind = t->rows[i].kind;
            e.shift = t->rows[i].shift;
            break;
        }
    return e;
}

int mr_stumble_completed(int adjusted, int *table_roll) {
    int r = clamp(adjusted, OPT_LO, OPT_HI);
    if (table_roll) *table_roll = r;
    for (size_t i = 0; i < sizeof stumble_rows / sizeof stumble_rows[0]; i++)
        if (r >= stumble_rows[i].lo && r <= stumble_rows[i].hi) return stumble_rows[i].completed;
    return 0;
}

void mr_effect_text(mr_effect e, char *out, size_t cap) {
    static const char *const words[] = {"", "one level", "two levels", "three levels"};
    if (e.kind == MR_EFFECT_WOUND)
        snprintf(out, cap, "wound");
    else if (e.kind == MR_EFFECT_NEGLIGIBLE)
        snprintf(out, cap, "negligible");
    else if (e.shift == 0)
        snprintf(out, cap, "no change");
    else
        snprintf(out, cap, "%s %s", e.shift > 0 ? "increase" : "decrease",
                 words[e.shift > 0 ? e.shift : -e.shift]);
}

/* ---- names ------------------------------------------------------------------------------- */

static const char *const level_names[] = {"NEGLIGIBLE", "L", "M", "H", "T", "KILL"};

const char *mr_level_name(int level) {
    return level_names[clamp(level, MR_NEGLIGIBLE, MR_BEYOND_T)];
}

int mr_level_parse(const char *s) {
    for (int i = MR_L; i <= MR_T; i++)
        if (s && strcmp(s, level_names[i]) == 0) return i;
    return 0;
}

const char *mr_table_name(mr_table_id t) {
    switch (t) {
    case MR_TABLE_SECOND:
        return "second-edition";
    case MR_TABLE_STANDARD:
        return "standard";
    case MR_TABLE_FUMBLE:
        return "fumble";
    default:
        return "revised";
    }
}

const char *mr_box_attack_name(int box) {
    static const char *const n[] = {"none", "thrust", "swing", "smash"};
    return n[clamp(box, 0, 3)];
}

const char *mr_box_maneuver_name(int box) {
    static const char *const n[] = {"none", "charge", "dodge", "duck"};
    return n[clamp(box, 0, 3)];
}

const char *mr_spell_name(int spell) {
    static const char *const n[] = {NULL, "fiery-blast", "lightning-bolt", "stones-fly"};
    return n[clamp(spell, 0, 3)];
}

const char *mr_hit_name(int hit) {
    static const char *const n[] = {"unset", "intercept", "undercut", "miss"};
    return n[clamp(hit, 0, 3)];
}

const char *mr_armor_state_name(int state) {
    static const char *const n[] = {"intact", "damaged", "destroyed"};
    return n[clamp(state, 0, 2)];
}

void mr_harm_text(int harm, int stars, char *out, size_t cap) {
    snprintf(out, cap, "%s%.*s", mr_level_name(harm), clamp(stars, 0, 3), "***");
}
