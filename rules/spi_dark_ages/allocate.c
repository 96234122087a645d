/* The `allocate` action: in the Attack Allocation Phase a unit is allocated to attack a hex,
 * by fire or in melee; the Fire and Melee Phases then hold it to that, and Defensive Fire may
 * answer only units allocated against the firer (COMBAT General Rule).
 *
 * COMMAND UNITS (B): "In order to initiate any type of attack (Missile or Melee) the attacking
 * unit must be stacked with or adjacent to a Friendly Command unit (not demoralized) during the
 * Attack Allocation Phase ... Units In Contact with Enemy units may attack adjacent Enemy units
 * regardless of the proximity of a Friendly Command unit." (A command unit is stacked with itself:
 * a house reading.)
 * COMBAT General Rule: "Units with a Melee Attack Strength of 0 may never initiate a Melee
 * combat"; DEMORALIZATION: "a demoralized unit may never initiate an attack"; panicked units
 * "may not initiate any attacks"; COMBAT (L): "only Class I units have the option to both melee
 * and fire offensively in a single Player Turn". */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

int da_allocate_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"target", "kind", "cancel", NULL};
    static const char *const kinds[] = {"fire", "melee", NULL};
    da_allocate_action *a = out;
    int kind = 0;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        da_read_hex(fields, "", "target", &a->target, err) != 0 ||
        rules_in_enum(fields, "", "kind", true, kinds, 0, &kind, err) != 0 ||
        rules_in_bool(fields, "", "cancel", &a->cancel, err) != 0)
        return -1;
    a->melee = kind == 1;
    return 0;
}

json_t *da_allocate_encode(const void *action) {
    const da_allocate_action *a = action;
    char t[HEX_NAME_MAX];
    hex_format(a->target, t);
    json_t *o = json_pack("{s:s, s:s}", "target", t, "kind", a->melee ? "melee" : "fire");
    if (a->cancel) json_object_set_new(o, "cancel", json_true());
    return o;
}

/* "Units In Contact with Enemy units may attack adjacent Enemy units regardless of the
 * proximity of a Friendly Command unit." */
static bool in_contact_with(const da_game *g, const da_unit *u, hex h) {
    return u->ncontact > 0 && hex_distance(&g->grid, u->at, h) == 1;
}

int da_allocate_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                        api_error *err) {
    const da_allocate_action *a = action;
    da_game g;
    if (da_begin(ctx, &g, err) != 0) return -1;
    char t[HEX_NAME_MAX], at[HEX_NAME_MAX];
    hex_format(a->target, t);
    const char *kind = a->melee ? "melee" : "fire";
    da_unit *u = da_acting_unit(ctx, &g.army, err);
    if (!u) goto fail;
    hex_format(u->at, at);
    if (da_require_phase(&g, DA_PH_ALLOCATION, u->side, "attacks are allocated", err) != 0)
        goto fail;
    if (a->cancel) {
        if (a->melee)
            u->alloc_melee = false;
        else
            u->alloc_fire = false;
        u->changed = true;
        rules_say(out->summary, sizeof out->summary, "%s: %s allocation cancelled", u->id, kind);
        out->result = json_pack("{s:s, s:s, s:s, s:b}", "action", "allocate", "unit", u->id, "kind",
                                kind, "cancelled", 1);
        return da_finish(ctx, &g, out, err);
    }
    if (!da_chart_require(g.charts, "units", err)) goto fail;
    if (!da_enemy_in(&g, u->side, a->target)) {
        da_rule_error(err, "target", "hex %s holds no enemy unit", t);
        goto fail;
    }
    if (da_disabled(u)) {
        da_rule_error(err, "unit",
                      "unit '%s' is %s and may never initiate an attack (DEMORALIZATION AND "
                      "PANIC)",
                      u->id, u->panicked ? "panicked" : "demoralized");
        goto fail;
    }
    if (u->aboard[0]) {
        da_rule_error(err, "unit",
                      "unit '%s' is aboard fleet '%s' (house default: no attacks "
                      "from a fleet)",
                      u->id, u->aboard);
        goto fail;
    }
    if (a->melee) {
        if (u->cls == DA_FLEET || u->cls == DA_MOUNT || da_unit_value(u, "melee_attack", 0) == 0) {
            da_rule_error(err, "unit",
                          "unit '%s' has a Melee Attack Strength of 0 and may never initiate a "
                          "Melee combat (COMBAT General Rule)",
                          u->id);
            goto fail;
        }
        if (hex_distance(&g.grid, u->at, a->target) != 1) {
            da_rule_error(err, "target",
                          "a melee attack is on an adjacent hex; %s is not next to %s", t, at);
            goto fail;
        }
    } else if (da_unit_value(u, "missile", 0) <= 0 || !(da_missile(u) || u->cls == DA_CLASS_I)) {
        da_rule_error(err, "unit",
                      "unit '%s' (class %s) does not fire: Class IV or V units do, and Class I "
                      "units with a missile strength (COMBAT (L))",
                      u->id, da_class_name(u->cls));
        goto fail;
    }
    bool other = a->melee ? u->alloc_fire || u->fired : u->alloc_melee || u->meleed;
    if (other && u->cls != DA_CLASS_I) {
        da_rule_error(err, "kind",
                      "only Class I units may both melee and fire offensively in a single Player "
                      "Turn (COMBAT (L)); unit '%s' is class %s",
                      u->id, da_class_name(u->cls));
        goto fail;
    }
    if ((a->melee && u->meleed) || (!a->melee && u->fired)) {
        da_rule_error(err, "kind", "unit '%s' has made its %s attack this Player-Turn (COMBAT (L))",
                      u->id, kind);
        goto fail;
    }
    const char *commander = NULL;
    bool contact = in_contact_with(&g, u, a->target);
    int bonus = da_command_near(&g, u->side, u->at, true, false, &commander);
    if (bonus < 0 && !contact) {
        da_rule_error(err, "unit",
                      "unit '%s' is not stacked with or adjacent to a Friendly Command unit that "
                      "is not demoralized, nor in contact with the enemy it attacks (COMMAND "
                      "UNITS (B))",
                      u->id);
        goto fail;
    }
    if (a->melee) {
        u->alloc_melee = true;
        u->melee_target = a->target;
    } else {
        u->alloc_fire = true;
        u->fire_target = a->target;
    }
    u->changed = true;
    rules_say(out->summary, sizeof out->summary, "%s in %s allocated to %s %s (%s)", u->id, at,
              a->melee ? "melee" : "fire on", t, bonus >= 0 ? "beside command unit" : "in contact");
    if (bonus >= 0) {
        /* the summary names who */
        out->summary[strlen(out->summary) - 1] = '\0';
        rules_say(out->summary, sizeof out->summary, " %s)", commander);
    }
    out->result = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:b}", "action", "allocate", "unit", u->id,
                            "kind", kind, "target", t, "command", bonus >= 0 ? commander : NULL,
                            "contact", contact && bonus < 0);
    return da_finish(ctx, &g, out, err);
fail:
    da_game_free(&g);
    return -1;
}
