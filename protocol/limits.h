/* The bounds of the wire contract that more than one layer checks: the request decoders
 * (server/core/requests.h) refuse what exceeds them, and the rulesets size their buffers by them
 * (a side's name, a unit's id). */
#ifndef UMPIRE_LIMITS_H
#define UMPIRE_LIMITS_H

#define SIDES_MAX           16
#define SIDE_NAME_MAX       32
#define TITLE_MAX           200
#define UNITS_MAX           1000
#define UNIT_ID_MAX         64
#define ACTION_TYPE_MAX     48
#define ACTION_DICE_MAX     1000
#define IDEMPOTENCY_KEY_MAX 128

#endif
