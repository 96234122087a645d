/* The Dark Ages errata's checkable rules as pure functions (rules/spi_dark_ages/errata.h). */
#include "rules/spi_dark_ages/errata.h"

#include <stdio.h>
#include <string.h>

/* ---- combat strengths ------------------------------------------------------------------------ */

static long gcd(long a, long b) {
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

static da_strength reduced(long num, long den) {
    long g = gcd(num, den);
    if (g > 1) {
        num /= g;
        den /= g;
    }
    return (da_strength){num, den};
}

da_strength da_whole(long n) {
    return (da_strength){n, 1};
}

da_strength da_add(da_strength a, da_strength b) {
    return reduced(a.num * b.den + b.num * a.den, a.den * b.den);
}

/* Divided by k: "any remaining fraction is lost", except that a defender's strength may fall
 * below 1 (the errata's 1/2), so a defender too small to keep a whole point divides exactly. */
static da_strength divide(da_strength s, long k, bool defender) {
    if (defender && s.num < k * s.den) return reduced(s.num, s.den * k);
    return da_whole(s.num / (s.den * k));
}

da_strength da_halve(da_strength s, bool defender) {
    return divide(s, 2, defender);
}

bool da_apply_effect(da_strength *s, const char *effect, bool defender) {
    if (strcmp(effect, "x1") == 0) return true;
    if (strcmp(effect, "x2") == 0 || strcmp(effect, "x3") == 0) {
        *s = reduced(s->num * (effect[1] - '0'), s->den);
        return true;
    }
    if (strcmp(effect, "x1/2") == 0 || strcmp(effect, "x1/3") == 0) {
        *s = divide(*s, effect[3] - '0', defender);
        return true;
    }
    return false; /* "P": the unit may not attack from there */
}

/* ---- odds --------------------------------------------------------------------------------------
 */

int da_odds_column(da_strength attack, da_strength defence, const char *const *columns, int n) {
    if (n <= 0) return -1;
    if (defence.num <= 0) return n - 1;
    int best = -1;
    for (int i = 0; i < n; i++) {
        int a = 0, d = 0;
        if (!columns[i] || sscanf(columns[i], "%d-%d", &a, &d) != 2 || a <= 0 || d <= 0) continue;
        /* attack / defence >= a / d, exactly */
        if (attack.num * defence.den * d >= defence.num * attack.den * a) best = i;
    }
    return best;
}

/* ---- melee die-roll modifiers
 * -------------------------------------------------------------------- */

int da_melee_drm(const da_melee_sides *s) {
    /* COMMAND UNITS (C): "applicable only in Melee combat"; ferocity and vitality speak of
     * Melee attacks too. */
    if (s->missile) return 0;
    int drm = s->defender_command_bonus - s->attacker_command_bonus;
    /* FEROCITY (B), (C) */
    if (s->attacker_ferocious) drm -= 1;
    if (s->defender_ferocious) drm += 1;
    /* ROMAN (BYZANTINE) VITALITY (A), (B) */
    if (s->attacker_byzantine) drm -= 1;
    if (s->defender_byzantine) drm += 1;
    return drm;
}

/* ---- demoralization and panic
 * -------------------------------------------------------------------- */

int da_movement_allowance(int ma, bool demoralized, bool panicked, bool near_command) {
    /* "Panicked units, however, retain their full Movement Allowance" and move "independent of
     * the Command unit movement restrictions". */
    if (panicked) return ma;
    if (!demoralized) return ma;
    /* COMMAND UNITS (A): half, and only from beside a Friendly Command unit. */
    return near_command ? ma / 2 : 0;
}

bool da_still_demoralized(da_when since, da_when now) {
    if (now.game_turn <= since.game_turn) return true;
    return now.game_turn == since.game_turn + 1 && now.phase <= since.phase;
}

bool da_panics(int cumulative_losses, int panic_level, bool panicked_before) {
    return !panicked_before && panic_level > 0 && cumulative_losses >= panic_level;
}

bool da_panic_exempt(bool is_command, bool with_or_next_to_command, int hexes_to_nearest_enemy) {
    return is_command || with_or_next_to_command || hexes_to_nearest_enemy > 10;
}

bool da_rallies(bool by_command, int die) {
    return by_command ? die >= 1 && die <= 5 : die >= 1 && die <= 3;
}

bool da_dd_eliminates(bool demoralized, bool panicked) {
    return demoralized || panicked;
}

/* ---- losses and victory points
 * -------------------------------------------------------------------- */

int da_command_losses(int losses, int combat_units) {
    return losses > combat_units ? losses - combat_units : 0;
}

int da_dismounted_vp(int cavalry_vp, int dismounted_vp, bool dismounted_eliminated,
                     bool mount_eliminated) {
    if (dismounted_eliminated && mount_eliminated) return cavalry_vp;
    if (dismounted_eliminated) return dismounted_vp;
    if (mount_eliminated) return cavalry_vp - dismounted_vp;
    return 0;
}

int da_min_charge(const char *cavalry) {
    if (!cavalry) return 0;
    /* "Medium cavalry must take a minimum straight charge of two hexes (not three as stated)" */
    if (strcmp(cavalry, "medium") == 0) return 2;
    /* "Byzantine Cataphracts must charge a minimum of three hexes" */
    if (strcmp(cavalry, "cataphract") == 0) return 3;
    return 0;
}
