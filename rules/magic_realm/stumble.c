/* Running away (5.1): the STUMBLE table. The character adds the number of attackers on his sheet
 * and subtracts his time advantage over the fastest of them (in effect: + his move time - the
 * fastest attacker's move time); 6 or less completes the action, 7 or more cancels it (5.1.2).
 * When he flies, only flying attackers count (5.1.3). */
#include "rules/magic_realm/mr.h"

#include <stdio.h>
#include <string.h>

void mr_stumble_prepare(mr_stumble *st, const mr_attacker_ref *attackers, int n) {
    memset(&st->drm, 0, sizeof st->drm);
    st->nattackers = n;
    st->counted = 0;
    st->fastest = MR_UNSET;
    for (int i = 0; i < n; i++) {
        if (st->flying && !attackers[i].flying) continue;
        st->counted++;
        if (st->fastest == MR_UNSET || attackers[i].move_time < st->fastest)
            st->fastest = attackers[i].move_time;
    }
    if (st->counted == 0) return; /* no attacker: no advantage to subtract, nothing to add */
    mr_terms_add(&st->drm, "move", st->move_time);
    mr_terms_add(&st->drm, st->flying ? "fastest flying attacker" : "fastest attacker",
                 -st->fastest);
    mr_terms_add(&st->drm, st->flying ? "flying attackers" : "attackers", st->counted);
}

void mr_stumble_roll(mr_stumble *st, dice_source *ds) {
    int v[2] = {1, 1};
    if (dice_roll(ds, "stumble", "2d6h", 2, 6, v) == 0)
        dice_set_value(ds, v[0] > v[1] ? v[0] : v[1]);
    st->dice[0] = v[0];
    st->dice[1] = v[1];
    st->roll = v[0] > v[1] ? v[0] : v[1];
    st->adjusted = st->roll + st->drm.total;
    st->completed = mr_stumble_completed(st->adjusted, &st->table_roll);
}

json_t *mr_stumble_json_new(const mr_stumble *st, const char *runner) {
    static const char *const withs[] = {"move", "boots", "horse"};
    json_t *o = json_object();
    if (runner && runner[0]) json_object_set_new(o, "unit", json_string(runner));
    json_object_set_new(o, "move_time", json_integer(st->move_time));
    json_object_set_new(o, "with", json_string(withs[st->with]));
    if (st->flying) json_object_set_new(o, "flying", json_string("yes"));
    json_object_set_new(o, "attackers", json_integer(st->counted));
    if (st->fastest != MR_UNSET)
        json_object_set_new(o, "fastest_attacker_move_time", json_integer(st->fastest));
    json_object_set_new(o, "drm", json_integer(st->drm.total));
    json_object_set_new(o, "drm_terms", mr_terms_json_new(&st->drm));
    json_object_set_new(o, "dice", json_pack("[i, i]", st->dice[0], st->dice[1]));
    json_object_set_new(o, "roll", json_integer(st->roll));
    json_object_set_new(o, "adjusted", json_integer(st->adjusted));
    json_object_set_new(o, "outcome", json_string(st->completed ? "completed" : "cancelled"));
    return o;
}

void mr_stumble_say(const mr_stumble *st, const char *runner, char *buf, size_t cap) {
    char terms[160];
    mr_terms_text(&st->drm, terms, sizeof terms);
    mr_say(buf, cap, "%s %s (move time %d%s): DRM %+d (%s); stumble roll %d -> %d: %s",
           runner && runner[0] ? runner : "the character",
           st->with == MR_WITH_HORSE ? "runs on his horse"
           : st->flying              ? "flies away"
                                     : "runs",
           st->move_time, st->with == MR_WITH_BOOTS ? ", Boots card" : "", st->drm.total, terms,
           st->roll, st->adjusted,
           st->completed ? "completed, he gets away" : "cancelled, he stays in the fight");
}

int mr_stumble_check(const mr_run_spec *r, const mr_attacker_ref *attackers, int n,
                     const mr_unit *runner, const char *field, api_error *err) {
    for (int i = 0; i < n; i++)
        if (attackers[i].red_side_up && r->with == MR_WITH_MOVE) {
            mr_rule_error(err, field,
                          "a character cannot play a MOVE chit while a Tremendous monster is red "
                          "side up on his sheet (5.1)");
            return -1;
        }
    if (runner && runner->horse.present && !runner->horse.dead && r->with != MR_WITH_HORSE) {
        mr_rule_error(err, field,
                      "%s has an active horse: it is the only piece he can play to run away "
                      "(5.2); send \"with\": \"horse\"",
                      runner->id);
        return -1;
    }
    if (runner && r->with == MR_WITH_HORSE && !(runner->horse.present && !runner->horse.dead)) {
        mr_rule_error(err, field, "%s has no active horse to run with", runner->id);
        return -1;
    }
    return 0;
}

int mr_run_attackers(const mr_run_spec *r, const json_t *state, const char *field,
                     mr_attacker_ref *out, api_error *err) {
    for (int i = 0; i < r->nattackers; i++) {
        out[i] = r->attackers[i];
        if (!r->attackers[i].unit[0]) continue;
        char path[128];
        snprintf(path, sizeof path, "%s[%d]", field, i);
        mr_unit u;
        if (mr_unit_load(state, r->attackers[i].unit, path, &u, err) != 0) return -1;
        if (u.kind != MR_KIND_DENIZEN) {
            mr_rule_error(err, path,
                          "attacker '%s' is not a denizen: give a character's attention inline "
                          "as {\"move_time\": n}",
                          u.id);
            return -1;
        }
        if (u.dead) {
            api_error_set(err, 409, "not_applicable", json_pack("{s:s}", "field", path),
                          "attacker '%s' is dead", u.id);
            return -1;
        }
        out[i].move_time = u.move_time;
        out[i].flying = u.flying;
        out[i].red_side_up = u.has_red_side && u.red_side_up;
    }
    return 0;
}
