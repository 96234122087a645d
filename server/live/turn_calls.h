/* Who an event calls to the table, for a discord webhook's mentions (docs/api.md, Webhooks):
 * the side a pending claim waits for (rules/common/claims.h), or the sides that lead the phase an
 * end_phase (or a magic-realm round) began, by the ruleset's sequence of play as the web client's
 * banner reads it: the sides with a step of their own in the phase (the player's, or the
 * opponents' in a phase only they act in), every side in a phase that comes once a turn. The
 * event's own actor is not called: it is at the table already. Read from the event and the
 * session's sides alone, so any node reads the same from the store. */
#ifndef UMPIRE_TURN_CALLS_H
#define UMPIRE_TURN_CALLS_H

#include <jansson.h>
#include <stddef.h>

#define TURN_CALLS_MAX 8

typedef struct turn_call {
    const char *side; /* borrowed from sides */
    char why[160];    /* "your turn: Fire, turn 2" or "french's claim 1 waits for you" */
} turn_call;

/* Fills calls (at most TURN_CALLS_MAX) for the event ({"actor", "data": {"result"}}) of a session
 * of the ruleset `ruleset_id` with `sides` (an array of strings); returns how many. */
size_t turn_calls(const char *ruleset_id, const json_t *sides, const json_t *event,
                  turn_call *calls);

#endif
