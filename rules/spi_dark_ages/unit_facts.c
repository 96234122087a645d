/* What a unit is, read from its struct alone: alive, able to fight or shoot,
 * cavalry, disabled, a value of its chart row. The board and every action ask these; they ask
 * nothing back. */
#include "rules/spi_dark_ages/da.h"

bool da_alive(const da_unit *u) {
    return !u->eliminated && !u->off_map && !u->remounted;
}

bool da_combat(const da_unit *u) {
    return u->cls <= DA_CLASS_V;
}

bool da_missile(const da_unit *u) {
    return u->cls == DA_CLASS_IV || u->cls == DA_CLASS_V;
}

bool da_cavalry(const da_unit *u) {
    return json_is_string(json_object_get(u->chart, "cavalry")) && u->cls != DA_MOUNT;
}

bool da_disabled(const da_unit *u) {
    return u->demoralized || u->panicked;
}

int da_unit_value(const da_unit *u, const char *key, int dflt) {
    const json_t *v = json_object_get(u->chart, key);
    if (!json_is_integer(v)) return dflt;
    /* the charts were validated at creation; a hand-made state is kept in range all the same */
    json_int_t x = json_integer_value(v);
    return x < 0 ? 0 : x > 9999 ? 9999 : (int)x;
}
