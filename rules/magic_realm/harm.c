/* What a hit does: sharpness, the table's effect, and the harm's effect on what it struck.
 *
 * - Each sharpness star adds one level; an attack that hits armor or an armored denizen (or
 *   horse) loses one star (5.4.3); a prepared (time 0) Fiery Blast or Lightning Bolt loses one
 *   more under Hamblen's kludge (5.6).
 * - Denizens and horses die when the harm reaches their vulnerability.
 * - Characters, striking attacks (and the basic game's missile table): an attack that meets armor
 *   strikes the first piece that covers its direction: Light harm or less has no effect, Medium or
 *   more gives one wound, harm equal to the toughness damages the piece (a damaged piece is
 *   destroyed), more destroys it. Harm beyond T kills through the armor (house default, see
 *   options.beyond_t_vs_armor).
 * - Characters, missiles on the optional tables (5.5): the armor is never damaged; harm beyond T
 *   ignores it and kills (5.5.1); otherwise each piece met in turn stops weaker harm, stops equal
 *   harm with one wound, or lets stronger harm through one level lower (5.5.2); what passes is
 *   inflicted as on an unarmored character.
 * - Unarmored characters: harm at or above the vulnerability kills; any other harm of L or more,
 *   or a "wound" result, gives one wound. */
#include "rules/magic_realm/mr.h"

#include <string.h>

static int met_pieces(const mr_unit *u, int box, int *idx) {
    int n = 0;
    for (int i = 0; i < u->narmor; i++)
        if (u->armor[i].state != MR_ARMOR_DESTROYED && mr_armor_protects(&u->armor[i], box))
            idx[n++] = i;
    return n;
}

/* Harm on an unarmored character (or what passed the armor). */
static void on_body(mr_unit *u, mr_effect_kind kind, int level, mr_strike_result *r) {
    if (kind == MR_EFFECT_WOUND) {
        r->wounds = 1;
        r->outcome = "wounded";
    } else if (kind == MR_EFFECT_NEGLIGIBLE || level < MR_L) {
        r->outcome = "no_effect";
    } else if (level >= u->vulnerability) {
        r->killed = true;
        r->outcome = "killed";
    } else {
        r->wounds = 1;
        r->outcome = "wounded";
    }
}

/* Striking attacks (and the basic missile table) on a piece of armor. */
static void on_piece(const mr_options *o, mr_unit *u, int piece, mr_effect_kind kind, int level,
                     mr_strike_result *r) {
    mr_armor *a = &u->armor[piece];
    r->armor_piece = piece;
    r->armor_before = a->state;
    r->outcome = "no_effect";
    if (kind == MR_EFFECT_SHIFT && level >= MR_BEYOND_T) {
        a->state = MR_ARMOR_DESTROYED;
        if (o->beyond_t_kills) {
            r->killed = true;
            r->outcome = "killed";
        } else {
            r->wounds = 1;
            r->outcome = "armor_destroyed";
        }
    } else if (kind == MR_EFFECT_SHIFT && level >= MR_M) {
        r->wounds = 1;
        r->outcome = "wounded";
        if (level > a->toughness || (level == a->toughness && a->state == MR_ARMOR_DAMAGED)) {
            a->state = MR_ARMOR_DESTROYED;
            r->outcome = "armor_destroyed";
        } else if (level == a->toughness) {
            a->state = MR_ARMOR_DAMAGED;
            r->outcome = "armor_damaged";
        }
    }
    r->armor_after = a->state;
}

/* 5.5 PENETRATING ARMOR. */
static void through_armor(mr_unit *u, const int *idx, int n, mr_effect_kind kind, int level,
                          mr_strike_result *r) {
    if (kind == MR_EFFECT_SHIFT && level >= MR_BEYOND_T) { /* 5.5.1: ignores the armor */
        r->killed = true;
        r->outcome = "killed";
        return;
    }
    if (kind != MR_EFFECT_SHIFT || level < MR_L) { /* a wound result hits armor: no effect */
        r->outcome = "no_effect";
        return;
    }
    for (int i = 0; i < n; i++) {
        mr_penetration *p = &r->pen[r->npen++];
        p->toughness = u->armor[idx[i]].toughness;
        p->harm_before = level;
        if (level < p->toughness) { /* 5.5.1: the armor exceeds the harm */
            p->result = 0;
            r->outcome = "no_effect";
            return;
        }
        if (level == p->toughness) { /* 5.5.1: one wound, no further effect */
            p->result = 1;
            r->wounds = 1;
            r->outcome = "wounded";
            return;
        }
        p->result = 2; /* 5.5.2: it penetrates, one level lower */
        level--;
    }
    r->inflicted = level;
    on_body(u, MR_EFFECT_SHIFT, level, r);
}

void mr_apply_harm(const mr_strike *s, const mr_options *o, mr_strike_result *r) {
    mr_unit *u = s->target;
    bool horse = s->aim == MR_AIM_HORSE && !u->horse.dead;
    r->struck_horse = horse;
    r->on_rider = s->aim == MR_AIM_HORSE && !horse;
    r->armor_piece = -1;
    r->inflicted = -1;
    int idx[MR_ARMOR_MAX], nmet = 0;
    bool armored;
    if (horse)
        armored = u->horse.armored;
    else if (u->kind == MR_KIND_CHARACTER)
        armored = (nmet = met_pieces(u, s->box, idx)) > 0;
    else
        armored = u->armored;

    int stars = s->a.sharpness - s->kludge_stars;
    if (stars < 0) stars = 0;
    r->stars_lost_armor = armored && stars > 0 ? 1 : 0;
    stars -= r->stars_lost_armor;
    r->stars = stars;
    r->base_level = s->a.harm + stars;

    if (s->red_side_up_kill) { /* never rolls on the Fumble table; a hit kills */
        r->harm_level = MR_BEYOND_T;
        r->harm = "KILL";
        r->killed = true;
        r->outcome = "killed";
    } else {
        mr_effect e = r->effect;
        r->harm_level = e.kind == MR_EFFECT_SHIFT ? r->base_level + e.shift : MR_NEGLIGIBLE;
        r->harm = e.kind == MR_EFFECT_WOUND ? "WOUND" : mr_level_name(r->harm_level);
        if (horse || u->kind != MR_KIND_CHARACTER) {
            int vuln = horse ? u->horse.vulnerability : u->vulnerability;
            r->killed = e.kind == MR_EFFECT_SHIFT && r->harm_level >= vuln;
            r->outcome = r->killed ? "killed" : "no_effect";
        } else if (nmet == 0) {
            on_body(u, e.kind, r->harm_level, r);
        } else if (s->a.kind == MR_MISSILE && s->table != MR_TABLE_STANDARD) {
            through_armor(u, idx, nmet, e.kind, r->harm_level, r);
        } else {
            on_piece(o, u, idx[0], e.kind, r->harm_level, r);
        }
    }
    if (r->killed) {
        if (horse)
            u->horse.dead = true;
        else
            u->dead = true;
    }
    u->wounds += r->wounds;
    if (r->killed || r->wounds || r->armor_piece >= 0) u->changed = true;
}
