/* Morale checks (Vis Magica amendments, 10.1 and 10.2) and rallying.
 *
 * 10.1: take the base's current strength, modify it for its situation (the rulebook's table is
 * not in our source: modifiers come with the request, or by name from options.modifiers; a base
 * that took casualties from the flank or rear since its last check gets
 * options.modifiers.flank_or_rear_casualties when the session sets it); roll 2d6: a score LESS
 * than the modified strength passes, a double one always passes, a double six always fails.
 * 10.2, as the amendment reads:
 *   good    pass: good; fail: shaken, or routed when the check follows combat (casualties from
 *           shooting, or a lost melee) and the base lost half or more of its strength at the
 *           start of that phase (strength 8: shaken after losing 2 or 3, routed after 4 or more);
 *   shaken  pass: shaken; fail: routed. Rallying: pass: good; fail: shaken;
 *   routed  pass: routed; fail: removed. Rallying: pass: shaken, disordered, facing the enemy,
 *           H orders; fail: removed. */
#include "rules/vis_magica/vm.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"
#include "rules/common/units.h"

#include <stdio.h>
#include <string.h>

#define FLANK_REAR "flank_or_rear_casualties"

int vm_check_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"cause", "modifiers", "apply", NULL};
    static const char *const causes[] = {"other", "combat", NULL};
    static const char *const mod_keys[] = {"name", "value", NULL};
    vm_check_action *a = out;
    int cause = 0;
    json_t *mods = NULL, *apply = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        rules_in_enum(fields, "", "cause", false, causes, 0, &cause, err) != 0)
        return -1;
    a->combat = cause == 1;
    a->cause_given = rules_in_present(fields, "cause") != NULL;
    if (json_in_array(fields, "", "modifiers", false, 8, &mods) != 0 ||
        json_in_array(fields, "", "apply", false, 8, &apply) != 0) {
        json_in_take_error(err);
        return -1;
    }
    size_t i;
    json_t *m;
    json_array_foreach(mods, i, m) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "modifiers", i);
        if (!json_is_object(m)) {
            api_error_field(err, p, "{\"name\", \"value\"}");
            return -1;
        }
        rules_term *t = &a->mods[i];
        if (json_in_only_keys(m, p, mod_keys, err) != 0 ||
            rules_in_text(m, p, "name", true, t->name, sizeof t->name, err) != 0 ||
            rules_in_int(m, p, "value", true, -20, 20, &t->value, err) != 0)
            return -1;
    }
    a->nmods = (int)json_array_size(mods);
    json_array_foreach(apply, i, m) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "apply", i);
        const char *s = json_string_value(m);
        if (!s || !*s || strlen(s) >= RULES_TERM_NAME_MAX) {
            api_error_field(err, p, "the name of a modifier in options.modifiers");
            return -1;
        }
        snprintf(a->apply[i], sizeof a->apply[i], "%s", s);
    }
    a->napply = (int)json_array_size(apply);
    return 0;
}

json_t *vm_check_encode(const void *action) {
    const vm_check_action *a = action;
    json_t *o = json_object();
    if (!o) return NULL;
    if (a->cause_given)
        json_object_set_new(o, "cause", json_string(a->combat ? "combat" : "other"));
    if (a->nmods) {
        json_t *mods = json_array();
        for (int i = 0; i < a->nmods; i++)
            json_array_append_new(
                mods, json_pack("{s:s, s:i}", "name", a->mods[i].name, "value", a->mods[i].value));
        json_object_set_new(o, "modifiers", mods);
    }
    if (a->napply) {
        json_t *apply = json_array();
        for (int i = 0; i < a->napply; i++)
            json_array_append_new(apply, json_string(a->apply[i]));
        json_object_set_new(o, "apply", apply);
    }
    return o;
}

/* No fact from the acting side alone (issue 23, item 3): a side names the situations that apply
 * (`apply`, from the session's table options.modifiers, which the referee set at creation) and
 * the umpire sums them; a value typed by a side is refused. The referee may still rule one. */
static int modifiers_by_name(const rules_ctx *ctx, const vm_check_action *a, api_error *err) {
    if (a->nmods == 0 || rules_actor_is_referee(ctx)) return 0;
    const json_t *named = json_object_get(ctx->options, "modifiers");
    json_t *names = json_array();
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)named, k, v) json_array_append_new(names, json_string(k));
    api_error_set(err, 422, "modifiers_by_name",
                  json_pack("{s:s, s:o}", "field", "modifiers", "named", names),
                  "a side names its modifiers (apply: [names of options.modifiers]) and the "
                  "umpire sums them; a value is the referee's to rule");
    return -1;
}

/* "combat" is what the state says: casualties from shooting or melee this phase (10.2 counts
 * them within the phase). A side's cause that says otherwise is refused; the referee's stands. */
static int cause_of(const rules_ctx *ctx, const vm_check_action *a, const vm_base *b, bool *combat,
                    api_error *err) {
    bool known = b->lost_this_phase > 0;
    *combat = known;
    if (!a->cause_given || a->combat == known) return 0;
    if (rules_actor_is_referee(ctx)) {
        *combat = a->combat;
        return 0;
    }
    api_error_set(err, 422, "cause_mismatch",
                  json_pack("{s:s, s:s, s:i}", "field", "cause", "cause",
                            known ? "combat" : "other", "lost_this_phase", b->lost_this_phase),
                  known ? "base '%s' lost %d to shooting or melee this phase: its check follows "
                          "combat (leave cause out: the umpire knows)"
                        : "base '%s' lost nothing to shooting or melee this phase (%d): its check "
                          "does not follow combat (leave cause out: the umpire knows)",
                  b->id, b->lost_this_phase);
    return -1;
}

/* The modified strength's terms: the request's, then the named options'. */
static int gather_terms(const rules_ctx *ctx, const vm_check_action *a, const vm_base *b,
                        rules_terms *t, api_error *err) {
    const json_t *named = json_object_get(ctx->options, "modifiers");
    for (int i = 0; i < a->nmods; i++)
        rules_terms_add(t, a->mods[i].value, "%s", a->mods[i].name);
    for (int i = 0; i < a->napply; i++) {
        const json_t *v = json_object_get(named, a->apply[i]);
        if (!json_is_integer(v)) {
            char p[JSON_IN_PATH_MAX];
            json_in_path_index(p, "apply", (size_t)i);
            vm_rule_error(err, p, "options.modifiers has no modifier '%s'", a->apply[i]);
            return -1;
        }
        rules_terms_add(t, (int)json_integer_value(v), "%s", a->apply[i]);
    }
    /* 10.1: casualties from the flank or rear since the last check, or from this phase's
     * melee; once, even when the request also names it. */
    const json_t *fr = json_object_get(named, FLANK_REAR);
    bool named_too = false;
    for (int i = 0; i < a->napply; i++)
        named_too |= strcmp(a->apply[i], FLANK_REAR) == 0;
    if ((b->flank_rear_casualties || b->flank_rear_in_melee) && json_is_integer(fr) && !named_too)
        rules_terms_add(t, (int)json_integer_value(fr), "flank or rear casualties");
    return 0;
}

/* The nearest base of another side that is still on the field, or NULL. */
static const vm_base *nearest_enemy(const vm_table *t, const vm_base *b) {
    const vm_base *best = NULL;
    int64_t best_d = 0;
    for (size_t i = 0; i < t->n; i++) {
        const vm_base *e = &t->bases[i];
        if (e->morale == VM_REMOVED || strcmp(e->side, b->side) == 0) continue;
        int64_t d = table_dist2(b->at, e->at);
        if (!best || d < best_d) {
            best = e;
            best_d = d;
        }
    }
    return best;
}

static int check(const rules_ctx *ctx, const vm_check_action *a, bool rally, rules_outcome *out,
                 api_error *err) {
    vm_table t;
    if (vm_table_load(ctx->state, &t, err) != 0) return -1;
    vm_base *b = vm_acting(ctx, &t, err);
    rules_terms terms = {0};
    bool combat = false;
    if (!b || modifiers_by_name(ctx, a, err) != 0 || cause_of(ctx, a, b, &combat, err) != 0 ||
        gather_terms(ctx, a, b, &terms, err) != 0)
        goto fail;
    if (rally && b->morale == VM_GOOD) {
        vm_rule_error(err, "unit", "base '%s' has good morale: only shaken or routed bases rally",
                      b->id);
        goto fail;
    }
    int dice[2] = {0, 0};
    if (dice_roll(ctx->dice, "morale", "2d6", 2, 6, dice) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    int score = dice[0] + dice[1];
    dice_set_value(ctx->dice, score);
    int modified = b->strength + terms.total;
    bool double_one = dice[0] == 1 && dice[1] == 1, double_six = dice[0] == 6 && dice[1] == 6;
    bool passed = double_one || (!double_six && score < modified);
    vm_morale before = b->morale;
    int start = b->strength + b->lost_this_phase;
    bool half_lost = combat && b->lost_this_phase * 2 >= start && b->lost_this_phase > 0;
    const char *why = "";
    switch (b->morale) {
    case VM_GOOD:
        if (!passed) {
            b->morale = half_lost ? VM_ROUTED : VM_SHAKEN;
            why = half_lost ? " (10.2: combat, and half or more of its strength lost this phase)"
                  : combat  ? " (10.2: combat, less than half its strength lost)"
                            : " (10.2: not combat)";
        }
        break;
    case VM_SHAKEN:
        if (rally && passed) b->morale = VM_GOOD;
        if (!rally && !passed) b->morale = VM_ROUTED;
        break;
    case VM_ROUTED:
        if (!passed) {
            b->morale = VM_REMOVED;
            why = " (10.2: a routed base that fails is removed from the field)";
        } else if (rally) {
            /* 10.2: turns to face the enemy, shaken, disordered, H orders. */
            const vm_base *e = nearest_enemy(&t, b);
            if (e) b->facing = table_bearing(b->at, e->at);
            b->morale = VM_SHAKEN;
            b->disordered = true;
            snprintf(b->orders, sizeof b->orders, "H");
            why = " (10.2: rallies facing the enemy, disordered, H orders)";
        }
        break;
    case VM_REMOVED:
        break;
    }
    /* 10.1: the flank/rear flag counts casualties "since its last morale check". */
    bool had_flag = b->flank_rear_casualties || b->flank_rear_in_melee;
    b->flank_rear_casualties = false;
    b->changed = true;
    char tt[400];
    rules_terms_text(&terms, tt, sizeof tt);
    rules_say(out->summary, sizeof out->summary,
              "%s %s (%s): strength %d, %s = %d; 2d6 %d+%d = %d%s %s %d: %s; %s -> %s%s", b->id,
              rally ? "rallies" : "checks morale", combat ? "combat" : "not combat", b->strength,
              tt, modified, dice[0], dice[1], score,
              double_one   ? " (double one)"
              : double_six ? " (double six)"
                           : "",
              score < modified ? "<" : ">=", modified, passed ? "passes" : "fails",
              vm_morale_name(before), vm_morale_name(b->morale), why);
    if (had_flag &&
        !json_is_integer(json_object_get(json_object_get(ctx->options, "modifiers"), FLANK_REAR)))
        rules_say(out->summary, sizeof out->summary,
                  "; flank or rear casualties: options.modifiers." FLANK_REAR " is not set");
    out->result = json_pack(
        "{s:s, s:s, s:s, s:i, s:o, s:i, s:[i,i], s:i, s:b, s:b, s:b, s:s, s:s, s:i, s:b}", "action",
        rally ? "rally" : "morale", "unit", b->id, "cause", combat ? "combat" : "other", "strength",
        b->strength, "modifiers", rules_terms_json_new(&terms), "modified_strength", modified,
        "dice", dice[0], dice[1], "score", score, "double_one", double_one, "double_six",
        double_six, "passed", passed, "before", vm_morale_name(before), "after",
        vm_morale_name(b->morale), "lost_this_phase", b->lost_this_phase, "flank_rear_casualties",
        had_flag);
    return vm_finish(ctx, &t, out, err);
fail:
    vm_table_free(&t);
    return -1;
}

int vm_morale_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                      api_error *err) {
    return check(ctx, action, false, out, err);
}

int vm_rally_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    return check(ctx, action, true, out, err);
}
