/* Hit determination and the attack's DRM, fixed at hit determination (3rd edition ruling: "all
 * combat roll DRMs are set at the moment of hit determination and then never change").
 *
 * An attack intercepts when its box lines up with the maneuver (Thrust-Charge, Swing-Dodge,
 * Smash-Duck); otherwise it undercuts when its time is lower than the maneuver time; otherwise
 * it misses. A declared hit replaces the boxes. DRM (5.4.1, 5.4.2): for each maneuver the attack
 * meets, add the attack time, subtract the maneuver time, and add 4 when it does not intercept;
 * a character who played no maneuver counts as move time 8 (5.4.4), and every attack hits him. */
#include "rules/magic_realm/mr.h"

#include <stdio.h>
#include <string.h>

/* Hit of an attack (box, time) on one maneuver. Returns MR_HIT_*, or MR_HIT_UNSET with a 422
 * in err. */
static int hit_one(const mr_strike *s, const mr_maneuver *m, int declared, const char *whose,
                   char *why, size_t cap, const char *field, api_error *err) {
    if (!m->present) { /* a character who played no maneuver: nothing to intercept (5.4.4) */
        if (declared == MR_HIT_INTERCEPT) {
            mr_rule_error(err, field,
                          "%s played no maneuver: an attack cannot intercept it (5.4.4)", whose);
            return MR_HIT_UNSET;
        }
        return declared == MR_HIT_MISS ? MR_HIT_MISS : MR_HIT_UNDERCUT;
    }
    if (declared == MR_HIT_INTERCEPT || declared == MR_HIT_MISS) return declared;
    if (declared == MR_HIT_UNSET) {
        if (s->box == MR_BOX_NONE || m->box == MR_BOX_NONE) {
            mr_rule_error(err, field,
                          "the hit on %s needs the attack's box and the maneuver's box, or a "
                          "declared hit",
                          whose);
            return MR_HIT_UNSET;
        }
        if (s->box == m->box) return MR_HIT_INTERCEPT;
    }
    if (s->a.time < m->move_time) return MR_HIT_UNDERCUT;
    snprintf(why, cap, "attack time %d is not faster than %s move time %d: no undercut", s->a.time,
             whose, m->move_time);
    return MR_HIT_MISS;
}

/* The DRM terms of one maneuver the attack meets. */
static void terms_for(mr_terms *terms, int time, const mr_maneuver *m, int hit,
                      const char *prefix) {
    char name[40];
    mr_terms_add(terms, "time", time);
    if (!m->present) {
        /* 5.4.4: "as if he had played a move time of 8. EXAMPLE: An attack time of 1 would have
         * an advantage of 7, subtracting 7 from the roll" - the whole adjustment: a character
         * in no box has no direction to fail to intercept, so no undercut penalty. */
        snprintf(name, sizeof name, "%sno maneuver (as 8)", prefix);
        mr_terms_add(terms, name, -MR_NO_MANEUVER);
        return;
    }
    snprintf(name, sizeof name, "%smove", prefix);
    mr_terms_add(terms, name, -m->move_time);
    if (hit != MR_HIT_INTERCEPT) {
        snprintf(name, sizeof name, "%sundercut", prefix);
        mr_terms_add(terms, name, 4);
    }
}

int mr_hit_determine(mr_strike *s, const mr_hit_spec *declared, const char *field, api_error *err) {
    static const mr_hit_spec none = {0};
    const mr_hit_spec *d = declared ? declared : &none;
    mr_unit *t = s->target;
    char whose[MR_ID_MAX + 16];
    memset(&s->drm, 0, sizeof s->drm);
    s->why_miss[0] = '\0';
    s->hit_horse = s->hit_rider = MR_HIT_UNSET;

    if (d->pair && s->aim != MR_AIM_RIDER) {
        mr_rule_error(err, field,
                      "hit: a {horse, rider} hit applies to an attack on a rider (5.3.2)");
        return -1;
    }
    if (s->aim == MR_AIM_NONE) {
        snprintf(whose, sizeof whose, "%s", mr_unit_label(t));
        s->hit = hit_one(s, &t->man, d->simple, whose, s->why_miss, sizeof s->why_miss, field, err);
        if (s->hit == MR_HIT_UNSET) return -1;
        if (s->hit != MR_HIT_MISS) terms_for(&s->drm, s->a.time, &t->man, s->hit, "");
    } else if (s->aim == MR_AIM_HORSE) {
        snprintf(whose, sizeof whose, "%s's horse", mr_unit_label(t));
        s->hit = hit_one(s, &t->horse_man, d->simple, whose, s->why_miss, sizeof s->why_miss, field,
                         err);
        if (s->hit == MR_HIT_UNSET) return -1;
        if (s->hit != MR_HIT_MISS) terms_for(&s->drm, s->a.time, &t->horse_man, s->hit, "horse ");
    } else {
        /* 5.3.2: the attack must intercept or undercut the horse's maneuver to hit the rider;
         * the rider's own maneuver, if he played one, only alters the harm (5.4.2). */
        snprintf(whose, sizeof whose, "%s's horse", mr_unit_label(t));
        int on_horse = d->pair ? d->horse : d->simple;
        s->hit_horse =
            hit_one(s, &t->horse_man, on_horse, whose, s->why_miss, sizeof s->why_miss, field, err);
        if (s->hit_horse == MR_HIT_UNSET) return -1;
        s->hit = s->hit_horse;
        if (s->hit == MR_HIT_MISS) return 0;
        terms_for(&s->drm, s->a.time, &t->horse_man, s->hit_horse, "horse ");
        if (t->man.present) {
            if (d->pair)
                s->hit_rider = d->rider;
            else if (s->box != MR_BOX_NONE && t->man.box != MR_BOX_NONE)
                s->hit_rider = s->box == t->man.box ? MR_HIT_INTERCEPT : MR_HIT_UNDERCUT;
            else {
                mr_rule_error(err, field,
                              "%s played a maneuver of his own: give hit as {\"horse\", "
                              "\"rider\"} or the boxes (5.4.2)",
                              mr_unit_label(t));
                return -1;
            }
            if (s->hit_rider == MR_HIT_MISS) s->hit_rider = MR_HIT_UNDERCUT; /* not intercepted */
            terms_for(&s->drm, s->a.time, &t->man, s->hit_rider, "rider ");
        }
    }
    /* The basic game's table takes no time DRM; a red-side-up Tremendous monster rolls nothing. */
    if (s->table == MR_TABLE_STANDARD || s->red_side_up_kill) memset(&s->drm, 0, sizeof s->drm);
    return 0;
}
