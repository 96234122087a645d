/* Rolling a dice notation (rules/common/notation.h) on a dice source: each group of dice drawn
 * as one roll with the given purpose, the kept dice summed, the constants added. The generic
 * ruleset rolls its own way (every die listed); this is for a module that needs only the total
 * (rolled hits, a retreat variation, a setup table's hits). */
#ifndef UMPIRE_RULES_NOTATION_ROLL_H
#define UMPIRE_RULES_NOTATION_ROLL_H

#include "protocol/api_error.h"
#include "rules/dice_source.h"

#include <stdint.h>

/* 0 with *total, or -1 with a 422: invalid_notation (`field` named, with the position) when expr
 * does not parse, too_many_dice when the source runs out. */
int notation_roll_total(dice_source *ds, const char *expr, const char *field, const char *purpose,
                        int64_t *total, api_error *err);
/* The parse alone, with the same 422 invalid_notation. */
int notation_check(const char *expr, const char *field, api_error *err);

#endif
