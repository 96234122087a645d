/* One attack from hit determination to its result: the table it rolls on (5.4: Fumble for
 * striking attacks, an Optional Missile table for missiles), the roll, the harm, the result
 * object and the summary line. */
#include "rules/magic_realm/mr.h"

#include <stdio.h>
#include <string.h>

void mr_strike_pick_table(mr_strike *s, mr_table_id override, int kludge_override,
                          const mr_options *o) {
    s->kludge_stars = 0;
    if (s->a.kind == MR_STRIKING) {
        s->table = MR_TABLE_FUMBLE;
        return;
    }
    s->table = override != MR_TABLE_DEFAULT ? override : o->missile_table;
    int kludge = kludge_override != MR_UNSET ? kludge_override
                 : o->kludge != MR_UNSET     ? o->kludge
                                             : s->table == MR_TABLE_REVISED;
    /* 5.6 HAMBLEN'S KLUDGE: a prepared (time 0) Fiery Blast or Lightning Bolt loses one star. */
    if (kludge && s->a.time == 0 &&
        (s->spell == MR_SPELL_FIERY_BLAST || s->spell == MR_SPELL_LIGHTNING_BOLT))
        s->kludge_stars = 1;
}

int mr_strike_check(const mr_strike *s, const char *field, api_error *err) {
    if (s->spell != MR_SPELL_NONE && s->a.kind != MR_MISSILE) {
        mr_rule_error(err, field, "%s is a missile attack: kind must be missile",
                      mr_spell_name(s->spell));
        return -1;
    }
    if (s->spell != MR_SPELL_NONE && s->alerted && s->a.time != 0) {
        mr_rule_error(err, field,
                      "an alerted (prepared) attack spell attacks at time 0 (5.6), not %d",
                      s->a.time);
        return -1;
    }
    return 0;
}

void mr_strike_resolve(const mr_strike *s, const mr_options *o, dice_source *ds,
                       mr_strike_result *r) {
    memset(r, 0, sizeof *r);
    r->armor_piece = -1;
    r->inflicted = -1;
    if (s->hit == MR_HIT_MISS) { /* "misses are removed without being rolled for" (5.4.3) */
        r->harm = "NONE";
        r->outcome = "no_effect";
        return;
    }
    if (!s->red_side_up_kill) {
        int v[2] = {1, 1};
        /* Every Magic Realm roll: two dice, the higher counts. A refused roll (the per-action
         * bound) leaves 1s; the caller's bounds keep a round far below it. */
        if (dice_roll(ds, s->table == MR_TABLE_FUMBLE ? "fumble" : "missile", "2d6h", 2, 6, v) == 0)
            dice_set_value(ds, v[0] > v[1] ? v[0] : v[1]);
        r->rolled = true;
        r->dice[0] = v[0];
        r->dice[1] = v[1];
        r->roll = v[0] > v[1] ? v[0] : v[1];
        r->adjusted = r->roll + s->drm.total;
        r->effect = mr_table_effect(s->table, r->adjusted);
    }
    mr_apply_harm(s, o, r);
    /* "if a Tremendous monster attacks it turns red side up" (5.4, the tables' explanation) */
    if (s->attacker && s->attacker->has_red_side && !s->attacker->red_side_up) {
        s->attacker->red_side_up = true;
        s->attacker->changed = true;
        r->turned_red = true;
    }
}

json_t *mr_strike_json_new(const mr_strike *s, const mr_strike_result *r) {
    json_t *o = json_object();
    if (s->attacker && s->attacker->id[0])
        json_object_set_new(o, "attacker", json_string(s->attacker->id));
    if (s->target->id[0]) json_object_set_new(o, "target", json_string(s->target->id));
    if (s->name[0]) json_object_set_new(o, "name", json_string(s->name));
    json_t *a =
        json_pack("{s:s, s:s, s:i, s:i}", "kind", s->a.kind == MR_MISSILE ? "missile" : "striking",
                  "harm", mr_level_name(s->a.harm), "sharpness", s->a.sharpness, "time", s->a.time);
    if (s->box) json_object_set_new(a, "box", json_string(mr_box_attack_name(s->box)));
    if (s->spell) json_object_set_new(a, "spell", json_string(mr_spell_name(s->spell)));
    json_object_set_new(o, "attack", a);
    if (s->aim != MR_AIM_NONE)
        json_object_set_new(o, "aim", json_string(s->aim == MR_AIM_HORSE ? "horse" : "rider"));
    if (s->hit != MR_HIT_UNSET) json_object_set_new(o, "hit", json_string(mr_hit_name(s->hit)));
    if (s->hit_rider != MR_HIT_UNSET)
        json_object_set_new(o, "hit_rider", json_string(mr_hit_name(s->hit_rider)));
    if (r->skipped) {
        json_object_set_new(o, "skipped", json_string(r->why_skipped));
        json_object_set_new(o, "harm", json_string("NONE"));
        json_object_set_new(o, "outcome", json_string("no_effect"));
        return o;
    }
    if (s->hit == MR_HIT_MISS) {
        if (s->why_miss[0]) json_object_set_new(o, "why", json_string(s->why_miss));
        json_object_set_new(o, "harm", json_string("NONE"));
        json_object_set_new(o, "outcome", json_string("no_effect"));
        return o;
    }
    json_object_set_new(o, "struck",
                        json_string(r->struck_horse ? "horse"
                                    : r->on_rider   ? "rider"
                                                    : "target"));
    if (s->red_side_up_kill) {
        json_object_set_new(o, "rule",
                            json_string("red-side-up Tremendous monster: no roll, "
                                        "a hit kills"));
    } else {
        json_object_set_new(o, "table", json_string(mr_table_name(s->table)));
        json_object_set_new(o, "drm", json_integer(s->drm.total));
        json_object_set_new(o, "drm_terms", mr_terms_json_new(&s->drm));
        json_object_set_new(o, "stars", json_integer(r->stars));
        if (s->kludge_stars) json_object_set_new(o, "stars_lost_kludge", json_integer(1));
        if (r->stars_lost_armor) json_object_set_new(o, "stars_lost_armor", json_integer(1));
        json_object_set_new(o, "basic_harm", json_string(mr_level_name(r->base_level)));
        json_object_set_new(o, "dice", json_pack("[i, i]", r->dice[0], r->dice[1]));
        json_object_set_new(o, "roll", json_integer(r->roll));
        json_object_set_new(o, "adjusted", json_integer(r->adjusted));
        char eff[32];
        mr_effect_text(r->effect, eff, sizeof eff);
        json_object_set_new(o, "effect", json_string(eff));
    }
    json_object_set_new(o, "harm", json_string(r->harm));
    json_object_set_new(o, "outcome", json_string(r->outcome));
    if (r->wounds) json_object_set_new(o, "wounds", json_integer(r->wounds));
    if (r->armor_piece >= 0) {
        const mr_armor *p = &s->target->armor[r->armor_piece];
        json_t *ar =
            json_pack("{s:i, s:s, s:s, s:s}", "piece", r->armor_piece, "toughness",
                      mr_level_name(p->toughness), "before", mr_armor_state_name(r->armor_before),
                      "after", mr_armor_state_name(r->armor_after));
        if (p->name[0]) json_object_set_new(ar, "name", json_string(p->name));
        json_object_set_new(o, "armor", ar);
    }
    if (r->npen) {
        static const char *const words[] = {"stopped", "stopped_one_wound", "penetrated"};
        json_t *pen = json_array();
        for (int i = 0; i < r->npen; i++)
            json_array_append_new(pen, json_pack("{s:s, s:s, s:s}", "toughness",
                                                 mr_level_name(r->pen[i].toughness), "harm",
                                                 mr_level_name(r->pen[i].harm_before), "result",
                                                 words[r->pen[i].result]));
        json_object_set_new(o, "penetration", pen);
        if (r->inflicted >= 0)
            json_object_set_new(o, "inflicted", json_string(mr_level_name(r->inflicted)));
    }
    if (r->turned_red) json_object_set_new(o, "turned_red_side_up", json_string("yes"));
    return o;
}

/* "Light Bow (missile L**1)" or "bat-1 (striking M2)". */
static void say_attack(const mr_strike *s, char *buf, size_t cap) {
    char harm[12];
    mr_harm_text(s->a.harm, s->a.sharpness, harm, sizeof harm);
    if (s->attacker && s->attacker->id[0]) mr_say(buf, cap, "%s ", s->attacker->id);
    mr_say(buf, cap, "%s%s(%s %s%d)", s->name, s->name[0] ? " " : "",
           s->spell                  ? mr_spell_name(s->spell)
           : s->a.kind == MR_MISSILE ? "missile"
                                     : "striking",
           harm, s->a.time);
}

static void say_outcome(const mr_strike *s, const mr_strike_result *r, char *buf, size_t cap) {
    const mr_unit *t = s->target;
    const char *who = r->struck_horse ? "the horse" : mr_unit_label(t);
    if (r->armor_piece >= 0) {
        const mr_armor *p = &t->armor[r->armor_piece];
        if (p->name[0])
            mr_say(buf, cap, " on the %s %s", mr_level_name(p->toughness), p->name);
        else
            mr_say(buf, cap, " on %s armor", mr_level_name(p->toughness));
    }
    for (int i = 0; i < r->npen; i++) {
        static const char *const words[] = {"stopped", "stopped (1 wound)", "penetrates"};
        mr_say(buf, cap, "%s%s vs %s armor %s", i ? ", " : " (",
               mr_level_name(r->pen[i].harm_before), mr_level_name(r->pen[i].toughness),
               words[r->pen[i].result]);
        if (i == r->npen - 1) mr_say(buf, cap, ")");
    }
    if (r->inflicted >= 0) mr_say(buf, cap, ", %s inflicted", mr_level_name(r->inflicted));
    if (r->killed)
        mr_say(buf, cap, ": %s killed", who);
    else if (!strcmp(r->outcome, "armor_destroyed"))
        mr_say(buf, cap, ": armor destroyed, 1 wound");
    else if (!strcmp(r->outcome, "armor_damaged"))
        mr_say(buf, cap, ": armor damaged, 1 wound");
    else if (r->wounds)
        mr_say(buf, cap, ": 1 wound");
    else
        mr_say(buf, cap, ": no effect");
    if (r->armor_piece >= 0 && r->killed)
        mr_say(buf, cap, " (harm beyond T kills through armor; armor destroyed)");
    if (r->turned_red && s->attacker) mr_say(buf, cap, "; %s turns red side up", s->attacker->id);
}

void mr_strike_say(const mr_strike *s, const mr_strike_result *r, char *buf, size_t cap) {
    const mr_unit *t = s->target;
    say_attack(s, buf, cap);
    if (r->skipped) {
        mr_say(buf, cap, " at %s: %s", mr_unit_label(t), r->why_skipped);
        return;
    }
    if (s->hit == MR_HIT_MISS) {
        mr_say(buf, cap, " misses %s%s", mr_unit_label(t),
               s->aim == MR_AIM_HORSE ? "'s horse" : "");
        if (s->why_miss[0]) mr_say(buf, cap, " (%s)", s->why_miss);
        return;
    }
    mr_say(buf, cap, " %ss %s", mr_hit_name(s->hit), mr_unit_label(t));
    if (s->aim == MR_AIM_HORSE) mr_say(buf, cap, "'s horse");
    if (s->aim == MR_AIM_RIDER) {
        mr_say(buf, cap, "'s horse to hit the rider");
        if (s->hit_rider != MR_HIT_UNSET)
            mr_say(buf, cap, " (rider %s)",
                   s->hit_rider == MR_HIT_INTERCEPT ? "intercepted" : "not intercepted");
    }
    if (r->on_rider) mr_say(buf, cap, ", the horse is dead: the rider is struck");
    if (s->red_side_up_kill) {
        mr_say(buf, cap, ": red side up, no Fumble roll, a hit kills: %s killed", mr_unit_label(t));
        return;
    }
    char terms[200], harm[12], eff[32];
    mr_terms_text(&s->drm, terms, sizeof terms);
    if (s->table == MR_TABLE_STANDARD)
        mr_say(buf, cap, ": no DRM (the basic game's Missile Table)");
    else
        mr_say(buf, cap, ": DRM %+d (%s)", s->drm.total, terms);
    mr_harm_text(s->a.harm, s->a.sharpness, harm, sizeof harm);
    if (s->kludge_stars || r->stars_lost_armor) {
        mr_say(buf, cap, "; %s", harm);
        if (s->kludge_stars) mr_say(buf, cap, " -1 star (Hamblen's kludge)");
        if (r->stars_lost_armor) mr_say(buf, cap, " -1 star (armor)");
        mr_harm_text(s->a.harm, r->stars, harm, sizeof harm);
        mr_say(buf, cap, " = %s", harm);
    }
    mr_say(buf, cap, ", basic harm %s", mr_level_name(r->base_level));
    mr_effect_text(r->effect, eff, sizeof eff);
    mr_say(buf, cap, "; %s table: roll %d -> %d, %s: %s harm", mr_table_name(s->table), r->roll,
           r->adjusted, eff, r->harm);
    say_outcome(s, r, buf, cap);
}
