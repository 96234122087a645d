/* Applying a chart result (Artillery Table, CRT) to the units of the side that got it, in the
 * order the result code reads: E; * (cavalry already disorganized by combat is eliminated);
 * step losses (1, 2, 3), taken unit by unit in the order given; D; TM with its modifier, each
 * unit rolling; R1/R2, left pending for the owning side to decide (retreat.c). */
#include "rules/vaevictis_corbach/vc.h"

#include <string.h>

static void eliminate(vc_unit *u) {
    u->state = VC_ELIMINATED;
    u->strength = 0;
    u->changed = true;
}

static json_t *retreat_entry(const vc_unit *u, int hexes, const char *away_from[], size_t naway) {
    json_t *away = json_array();
    for (size_t i = 0; i < naway; i++)
        json_array_append_new(away, json_string(away_from[i]));
    return json_pack("{s:s, s:s, s:s, s:i, s:o}", "kind", "retreat", "unit", u->id, "side", u->side,
                     "hexes", hexes, "away_from", away);
}

int vc_apply_result(dice_source *ds, const vc_options *o, const vc_result *r, bool by_combat,
                    vc_unit **units, size_t n, const char *away_from[], size_t naway,
                    json_t *pending, vc_applied *out) {
    memset(out, 0, sizeof *out);
    out->r = r;
    char *t = out->text;
    size_t cap = sizeof out->text;
    rules_say(t, cap, "%s", r->code);
    if (r->eliminate) {
        for (size_t i = 0; i < n; i++) {
            eliminate(units[i]);
            rules_say(t, cap, "; %s eliminated", units[i]->id);
        }
        return 0;
    }
    /* CRT, *: "Cavalry units previously disorganized by combat are eliminated". */
    if (r->star)
        for (size_t i = 0; i < n; i++)
            if (vc_alive(units[i]) && vc_is_cavalry(units[i]) && units[i]->disorganized_by_combat) {
                eliminate(units[i]);
                rules_say(t, cap, "; * %s (cavalry disorganized by combat) eliminated",
                          units[i]->id);
            }
    for (int s = 0; s < r->steps; s++) {
        vc_unit *u = NULL;
        for (size_t i = 0; i < n && !u; i++)
            if (vc_alive(units[i])) u = units[i];
        if (!u) break;
        u->strength--;
        u->changed = true;
        out->steps_lost++;
        if (u->strength <= 0) {
            eliminate(u);
            rules_say(t, cap, "; %s loses its last step: eliminated", u->id);
        } else {
            rules_say(t, cap, "; %s loses a step (%d left)", u->id, u->strength);
        }
    }
    if (r->disorganize)
        for (size_t i = 0; i < n; i++) {
            vc_unit *u = units[i];
            if (!vc_alive(u) || u->state == VC_ROUTED) continue;
            u->state = VC_DISORGANIZED;
            if (by_combat) u->disorganized_by_combat = true;
            u->changed = true;
            rules_say(t, cap, "; %s disorganized", u->id);
        }
    if (r->test)
        for (size_t i = 0; i < n && out->ntests < VC_TESTS_MAX; i++) {
            vc_unit *u = units[i];
            if (!vc_alive(u)) continue;
            char why[16];
            if (r->test_mod)
                snprintf(why, sizeof why, "TM%+d", r->test_mod);
            else
                snprintf(why, sizeof why, "TM");
            vc_test *test = &out->tests[out->ntests++];
            if (vc_morale_test(ds, o, u, r->test_mod, by_combat, why, test) != 0) return -1;
            rules_say(t, cap, "; ");
            vc_test_text(test, u, t, cap);
        }
    if (r->retreat)
        for (size_t i = 0; i < n; i++) {
            vc_unit *u = units[i];
            if (!vc_alive(u)) continue;
            json_array_append_new(pending, retreat_entry(u, r->retreat, away_from, naway));
            rules_say(t, cap, "; %s must retreat %d hex%s", u->id, r->retreat,
                      r->retreat > 1 ? "es" : "");
        }
    return 0;
}

json_t *vc_applied_json_new(const vc_applied *a, vc_unit **units, size_t n) {
    json_t *tests = json_array(), *after = json_array();
    for (int i = 0; i < a->ntests; i++)
        json_array_append_new(tests, vc_test_json_new(&a->tests[i]));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(after, json_pack("{s:s, s:s, s:i}", "unit", units[i]->id, "state",
                                               vc_state_name(units[i]->state), "strength",
                                               units[i]->strength));
    return json_pack("{s:s, s:i, s:b, s:i, s:o, s:o}", "result", a->r->code, "steps_lost",
                     a->steps_lost, "disorganized", a->r->disorganize, "retreat", a->r->retreat,
                     "tests", tests, "units", after);
}
