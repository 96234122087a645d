/* Applying a CRT result, and what follows from losses: contact, cumulative losses, panic and
 * Victory Points.
 *
 * DEMORALIZATION AND PANIC: "Panicked and/or demoralized units which receive a DD combat result
 * are eliminated." EXPLANATION OF COMBAT RESULTS (Clarification): "Command units are eliminated
 * in a 1E or 2E combat result only if sufficient combat units are not available to meet the
 * required loss. Command units, when stacked with other units, may never be affected by Enemy
 * missile fire." COMBAT (K): "Units which engage in a Melee combat in which no participating unit
 * is either eliminated or demoralized remain in Contact" ... until one of them "is either
 * eliminated or demoralized in a subsequent combat"; CAVALRY: "Cavalry units may not be held in
 * contact with solely non-cavalry Enemy units."
 * VICTORY CONDITIONS: the Summary of Units Chart's Victory Points (setup.charts.units[type].vp),
 * "Command units are worth ten Victory Points apiece"; DISMOUNTED CAVALRY: the dismounted unit
 * scores its own points, the riderless mount the cavalry's less the dismounted unit's.
 * House defaults (docs/rules/spi-dark-ages.md): the owner's losses are taken from its least
 * valuable units first (fewest Victory Points, then setup order); cumulative losses are counted
 * in the Victory Points of the units lost, the scale of the Panic Level; a fleet's cargo is lost
 * with it. */
#include "rules/spi_dark_ages/da.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int da_unit_vp(const da_game *g, const da_unit *u) {
    if (u->cls == DA_COMMAND) return da_errata.command_vp;
    if (u->cls == DA_MOUNT) {
        const json_t *units = json_object_get(g->charts, "units");
        const json_t *cav = json_object_get(units, u->type);
        const json_t *dis =
            json_object_get(units, json_string_value(json_object_get(cav, "dismounted")));
        int cv = (int)json_integer_value(json_object_get(cav, "vp")),
            dv = (int)json_integer_value(json_object_get(dis, "vp"));
        /* da_dismounted_vp(cv, dv, false, true) */
        return da_dismounted_vp(cv, dv, false, true);
    }
    return da_unit_value(u, "vp", 0);
}

static const char *enemy_of(const da_game *g, const char *side) {
    return strcmp(side, g->turn.side) == 0 ? g->turn.other : g->turn.side;
}

static void add_int(json_t *obj, const char *key, int v) {
    json_object_set_new(obj, key, json_integer(json_integer_value(json_object_get(obj, key)) + v));
}

/* Contact ends for u: it leaves every list, and its own list empties. */
static void end_contact(da_game *g, da_unit *u) {
    for (size_t i = 0; i < g->army.n; i++) {
        da_unit *o = &g->army.units[i];
        for (int k = 0; k < o->ncontact; k++)
            if (strcmp(o->contact[k], u->id) == 0) {
                memmove(o->contact[k], o->contact[k + 1],
                        (size_t)(o->ncontact - k - 1) * sizeof o->contact[0]);
                o->ncontact--;
                o->changed = true;
                k--;
            }
    }
    if (u->ncontact) {
        u->ncontact = 0;
        u->changed = true;
    }
}

void da_eliminate(da_game *g, da_unit *u, da_applied *out) {
    if (!da_alive(u)) return;
    u->eliminated = true;
    u->changed = true;
    end_contact(g, u);
    int vp = da_unit_vp(g, u);
    add_int(da_army_state(g, u->side), "losses", vp);
    add_int(da_army_state(g, enemy_of(g, u->side)), "vp", vp);
    if (out) {
        json_array_append_new(out->eliminated, json_string(u->id));
        rules_say(out->text, sizeof out->text, "; %s eliminated (%d VP)", u->id, vp);
    }
    /* a fleet's cargo goes down with it (house default) */
    if (u->cls == DA_FLEET)
        for (size_t i = 0; i < g->army.n; i++)
            if (strcmp(g->army.units[i].aboard, u->id) == 0)
                da_eliminate(g, &g->army.units[i], out);
}

void da_demoralize(da_game *g, da_unit *u) {
    u->demoralized = true;
    u->demoralized_since = da_now(&g->turn);
    u->changed = true;
    end_contact(g, u);
}

/* DD: demoralized, or eliminated when demoralized or panicked already. */
static void demoralize_or_eliminate(da_game *g, da_unit *u, da_applied *out) {
    if (!da_alive(u)) return;
    if (da_dd_eliminates(u->demoralized, u->panicked)) {
        rules_say(out->text, sizeof out->text, "; %s is %s: DD eliminates it", u->id,
                  u->panicked ? "panicked" : "demoralized");
        da_eliminate(g, u, out);
        return;
    }
    da_demoralize(g, u);
    json_array_append_new(out->demoralized, json_string(u->id));
    rules_say(out->text, sizeof out->text, "; %s demoralized", u->id);
}

static int by_value(const void *a, const void *b, void *gv) {
    const da_game *g = gv;
    const da_unit *x = *(da_unit *const *)a, *y = *(da_unit *const *)b;
    int vx = da_unit_vp(g, x), vy = da_unit_vp(g, y);
    if (vx != vy) return vx < vy ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Sorts units[lo, hi) by Victory Points, then setup order (an insertion sort: one hex's units). */
static void sort_by_value(const da_game *g, da_unit **units, size_t lo, size_t hi) {
    for (size_t i = lo + 1; i < hi; i++)
        for (size_t j = i; j > lo && by_value(&units[j - 1], &units[j], (void *)g) > 0; j--) {
            da_unit *t = units[j];
            units[j] = units[j - 1];
            units[j - 1] = t;
        }
}

/* n units lost (EXPLANATION OF COMBAT RESULTS): the combat units and riderless mounts first, the
 * least valuable first (house default); then a fleet (its cargo goes with it); command units only
 * when those are too few. A unit already gone (a fleet's cargo went with it) is skipped. */
static void lose_units(da_game *g, da_unit **units, size_t n, int losses, da_applied *out) {
    da_unit *order[DA_STACK_CAP];
    size_t k = 0, groups[3];
    for (int group = 0; group < 3; group++) {
        size_t lo = k;
        for (size_t i = 0; i < n && k < DA_STACK_CAP; i++) {
            const da_unit *u = units[i];
            int which = da_combat(u) || u->cls == DA_MOUNT ? 0 : u->cls == DA_COMMAND ? 2 : 1;
            if (da_alive(u) && which == group) order[k++] = units[i];
        }
        sort_by_value(g, order, lo, k);
        groups[group] = k;
    }
    int command = da_command_losses(losses, (int)groups[1]);
    int lost = 0;
    for (size_t i = 0; i < k && lost < losses; i++) {
        if (!da_alive(order[i])) continue;
        if (i >= groups[1] && command > 0)
            rules_say(out->text, sizeof out->text, "; no combat unit left to take the loss");
        da_eliminate(g, order[i], out);
        lost++;
    }
}

static void add_contact(da_unit *a, const da_unit *b) {
    for (int i = 0; i < a->ncontact; i++)
        if (strcmp(a->contact[i], b->id) == 0) return;
    if (a->ncontact < DA_CONTACT_MAX) {
        snprintf(a->contact[a->ncontact++], UNIT_ID_MAX + 1, "%s", b->id);
        a->changed = true;
    }
}

int da_apply_result(da_game *g, const da_result *r, da_unit **att, size_t natt, da_unit **def,
                    size_t ndef, bool missile, da_applied *out) {
    memset(out, 0, sizeof *out);
    out->eliminated = json_array();
    out->demoralized = json_array();
    out->panicked = json_array();
    rules_say(out->text, sizeof out->text, "%s", strcmp(r->code, "-") == 0 ? "no effect" : r->code);
    if (r->defender_eliminated)
        for (size_t i = 0; i < ndef; i++)
            da_eliminate(g, def[i], out);
    if (r->defender_losses) lose_units(g, def, ndef, r->defender_losses, out);
    if (r->defender_demoralized)
        for (size_t i = 0; i < ndef; i++)
            demoralize_or_eliminate(g, def[i], out);
    /* Missile fire: the firers are not at risk (house default: attacker parts of a result are
     * read only in melee). */
    if (!missile) {
        if (r->attacker_eliminated)
            for (size_t i = 0; i < natt; i++)
                da_eliminate(g, att[i], out);
        if (r->attacker_losses) lose_units(g, att, natt, r->attacker_losses, out);
        if (r->attacker_demoralized)
            for (size_t i = 0; i < natt; i++)
                demoralize_or_eliminate(g, att[i], out);
        bool any = json_array_size(out->eliminated) || json_array_size(out->demoralized);
        if (!any) {
            /* COMBAT (K) and CAVALRY: contact, except cavalry against solely non-cavalry. */
            for (size_t i = 0; i < natt; i++)
                for (size_t j = 0; j < ndef; j++) {
                    /* panicked units run; they are not held (house reading) */
                    if (da_cavalry(att[i]) != da_cavalry(def[j]) || def[j]->panicked) continue;
                    add_contact(att[i], def[j]);
                    add_contact(def[j], att[i]);
                    out->contact = true;
                }
            if (out->contact) rules_say(out->text, sizeof out->text, "; the units stay in contact");
        }
    }
    da_check_panic(g, g->turn.side, out);
    da_check_panic(g, g->turn.other, out);
    return 0;
}

void da_applied_free(da_applied *a) {
    json_decref(a->eliminated);
    json_decref(a->demoralized);
    json_decref(a->panicked);
    a->eliminated = a->demoralized = a->panicked = NULL;
}

void da_check_panic(da_game *g, const char *side, da_applied *out) {
    json_t *army = json_object_get(g->armies, side);
    int losses = (int)json_integer_value(json_object_get(army, "losses"));
    int level = da_panic_level(g, side);
    if (!da_panics(losses, level, json_is_true(json_object_get(army, "panicked")))) return;
    json_object_set_new(da_army_state(g, side), "panicked", json_true());
    rules_say(out->text, sizeof out->text, "; %s's losses %d reach its Panic Level %d: PANIC", side,
              losses, level);
    int n = 0;
    for (size_t i = 0; i < g->army.n; i++) {
        da_unit *u = &g->army.units[i];
        if (!da_alive(u) || strcmp(u->side, side) != 0) continue;
        bool near = da_command_near(g, side, u->at, false, false, NULL) >= 0;
        int far = da_nearest_enemy(g, side, u->at);
        /* exemption 2 names "combat units" */
        if (da_panic_exempt(u->cls == DA_COMMAND, near && da_combat(u), far)) continue;
        u->panicked = true;
        u->panic_edge = da_nearest_edge(g, u->at, NULL);
        u->changed = true;
        end_contact(g, u);
        json_array_append_new(out->panicked, json_string(u->id));
        rules_say(out->text, sizeof out->text, "%s%s (to the %s edge)", n++ ? ", " : ": ", u->id,
                  da_edge_name(u->panic_edge));
    }
    if (!n) rules_say(out->text, sizeof out->text, ": every unit is exempt");
}
