/* Who an event calls to the table (server/live/turn_calls.h). */
#include "server/live/turn_calls.h"

#include "rules/common/sequence.h"
#include "rules/ruleset.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *str(const json_t *o, const char *k) {
    return json_string_value(json_object_get(o, k));
}

/* Whether `side` leads the phase when `player` has its player-turn (web/js/turn.js, leads). */
static bool leads(const seq_phase *p, const char *player, const char *side) {
    if (p->scope == SEQ_ONCE) return true;
    for (const seq_step *s = p->steps; s->action; s++) {
        if (s->who == SEQ_PLAYER && player && strcmp(side, player) == 0) return true;
        if (s->who == SEQ_OPPONENT && player && strcmp(side, player) != 0) return true;
    }
    return false;
}

size_t turn_calls(const char *ruleset_id, const json_t *sides, const json_t *event,
                  turn_call *calls) {
    const json_t *result = json_object_get(json_object_get(event, "data"), "result");
    const char *actor = str(event, "actor");
    const char *acting = actor && strncmp(actor, "side:", 5) == 0 ? actor + 5 : NULL;
    size_t n = 0, i;
    const json_t *side;
    if (!json_is_object(result)) return 0;
    const json_t *claim = json_object_get(result, "claim");
    if (json_is_true(json_object_get(result, "pending")) && str(claim, "awaiting")) {
        json_array_foreach(sides, i, side) {
            if (!json_is_string(side) || strcmp(json_string_value(side), str(claim, "awaiting")))
                continue;
            calls[0].side = json_string_value(side);
            snprintf(calls[0].why, sizeof calls[0].why,
                     "%.64s's claim %lld waits for you: accept or dispute it", str(claim, "by"),
                     (long long)json_integer_value(json_object_get(claim, "number")));
            return 1;
        }
        return 0;
    }
    /* The phase now: an end_phase's result, or the turn a magic-realm round began. */
    const json_t *turn = json_object_get(result, "turn");
    const char *phase = NULL, *player = NULL;
    json_int_t number = 0;
    const char *action = str(result, "action");
    if (action && strcmp(action, "end_phase") == 0) {
        phase = str(result, "phase");
        player = str(result, "player") ? str(result, "player") : str(result, "side");
        number = json_integer_value(
            json_object_get(result, json_object_get(result, "number") ? "number" : "game_turn"));
    } else if (json_is_object(turn)) {
        phase = str(turn, "phase");
        number = json_integer_value(json_object_get(turn, "number"));
    }
    const ruleset *rs = ruleset_id ? ruleset_find(ruleset_id) : NULL;
    if (!phase || !rs || !rs->sequence) return 0;
    const seq_phase *p = rs->sequence->phases;
    while (p->name && strcmp(p->name, phase) != 0)
        p++;
    if (!p->name) return 0;
    json_array_foreach(sides, i, side) {
        const char *name = json_string_value(side);
        if (!name || n == TURN_CALLS_MAX || (acting && strcmp(name, acting) == 0) ||
            !leads(p, player, name))
            continue;
        calls[n].side = name;
        snprintf(calls[n].why, sizeof calls[n].why, "your turn: %s, turn %lld", p->title,
                 (long long)number);
        n++;
    }
    return n;
}
