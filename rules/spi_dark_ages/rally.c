/* The `rally` action: a non-panicked Friendly unit tries to rally an adjacent panicked one.
 *
 * PANIC: "A non panicked Friendly Command or combat unit may attempt to rally as many panicked
 * units as it is adjacent to at the end of a Friendly Movement Phase by means of a separate die
 * roll for each unit it attempts to rally. A command unit rallies a panicked unit with a die roll
 * of any number except six. A non command unit rallies an adjacent panicked unit by rolling either
 * a one, two, or three. The rally die-rolls are performed at the end of the Friendly Movement
 * Phase after all Friendly units have completed their Movement. Rallied units may not rally other
 * panicked units until the Friendly Player-Turn following the turn on which they were rallied."
 * The first rally roll ends the phase's movement. One roll per rallier and panicked unit a phase;
 * a unit stacked with the panicked one counts as adjacent (house reading). */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

int da_rally_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"target", NULL};
    da_rally_action *a = out;
    if (json_in_only_keys(fields, "", keys, err) != 0) return -1;
    return rules_in_text(fields, "", "target", true, a->target, sizeof a->target, err);
}

json_t *da_rally_encode(const void *action) {
    const da_rally_action *a = action;
    return json_pack("{s:s}", "target", a->target);
}

int da_rally_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const da_rally_action *a = action;
    da_game g;
    if (da_begin(ctx, &g, err) != 0) return -1;
    da_unit *u = da_acting_unit(ctx, &g.army, err);
    if (!u) goto fail;
    da_unit *t = da_army_get(&g.army, a->target, "target", err);
    if (!t) goto fail;
    if (da_require_phase(&g, DA_PH_MOVEMENT, u->side, "rally rolls are made (at its end)", err) !=
        0)
        goto fail;
    if (strcmp(t->side, u->side) != 0 || !t->panicked) {
        da_rule_error(err, "target", "unit '%s' is not a panicked Friendly unit", t->id);
        goto fail;
    }
    if (u->panicked || u->cls == DA_MOUNT || u->cls == DA_FLEET) {
        da_rule_error(err, "unit", "unit '%s' is not a non-panicked command or combat unit", u->id);
        goto fail;
    }
    if (u->rallied == da_player_turn_index(&g.turn)) {
        da_rule_error(err, "unit",
                      "unit '%s' was rallied this Player-Turn: it may rally others from the next "
                      "Friendly Player-Turn (PANIC)",
                      u->id);
        goto fail;
    }
    if (hex_distance(&g.grid, u->at, t->at) > 1) {
        da_rule_error(err, "target", "unit '%s' is not adjacent to '%s'", t->id, u->id);
        goto fail;
    }
    /* panicked units move first; the rally rolls come after all movement */
    const da_unit *runner = da_panicked_to_move(&g, u->side);
    if (runner) {
        da_rule_error(err, "target",
                      "panicked unit '%s' has not made its move yet: rally rolls come at the end "
                      "of the Movement Phase (PANIC)",
                      runner->id);
        goto fail;
    }
    char key[2 * UNIT_ID_MAX + 2];
    snprintf(key, sizeof key, "%s>%s", u->id, t->id);
    size_t i;
    json_t *v;
    json_array_foreach(g.rally_attempts, i, v) {
        const char *tried = json_string_value(v);
        if (tried && strcmp(tried, key) == 0) {
            da_rule_error(err, "target", "unit '%s' has tried to rally '%s' this phase", u->id,
                          t->id);
            goto fail;
        }
    }
    int die = 0;
    if (dice_roll(ctx->dice, "rally", "1d6", 1, 6, &die) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    bool command = u->cls == DA_COMMAND;
    bool ok = da_rallies(command, die);
    json_array_append_new(g.rally_attempts, json_string(key));
    g.turn.rallying = true;
    g.turn_changed = true;
    if (ok) {
        t->panicked = false;
        t->demoralized = false;
        t->panic_edge = -1;
        t->rallied = da_player_turn_index(&g.turn);
        t->changed = true;
    }
    rules_say(out->summary, sizeof out->summary, "%s (%s) rallies %s: roll %d, needs %s: %s", u->id,
              command ? "command unit" : "combat unit", t->id, die, command ? "1-5" : "1-3",
              ok ? "rallied" : "still panicked");
    out->result =
        json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:b}", "action", "rally", "unit", u->id, "target",
                  t->id, "command", command, "roll", die, "needs", command ? 5 : 3, "rallied", ok);
    return da_finish(ctx, &g, out, err);
fail:
    da_game_free(&g);
    return -1;
}
