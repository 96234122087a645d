/* The Dark Ages charts as data (rules/spi_dark_ages/charts.h): the errata's built-in numbers and
 * the validation of a scenario's charts. */
#include "rules/spi_dark_ages/charts.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- what the errata states ------------------------------------------------------------------ */

const da_errata_costs da_errata = {
    /* TEC (Clarification): "Cost to enter a road hex through a road hexside is 1/2 of a Movement
     * Point." */
    .road_half = 1,
    /* "It costs units two Movement Points to enter a stream hex." */
    .stream_hex_half = 4,
    /* "Streams may be crossed at any point at a cost of two additional Movement Points" */
    .stream_crossing_half = 4,
    /* "one half of a Movement Point to enter a bridge hex if entered from a road hex (if entered
     * from a non road hex it costs one Movement Point" */
    .bridge_from_road_half = 1,
    .bridge_half = 2,
    /* "to move from one such hex to another hex across a hexside covered by water costs two
     * additional Movement Points" */
    .water_hexside_half = 4,
    /* "The greatest Fire Protection strength that a hex can have (other than the Keep hex) is 4" */
    .fps_cap = 4,
    /* VICTORY CONDITIONS: "Command units are worth ten Victory Points apiece." */
    .command_vp = 10,
};

/* SCENARIO CHART (Correction): "In several scenarios the PV and PL levels should be changed". */
static const da_army_values corrected[] = {
    {"tours", "Franks", 55, 22},
    {"tours", "Arabs", 80, 24},
    {"constantinople", "Byzantines", 150, 60},
    {"balathusta", "Byzantines", 160, 64},
    {"stamford-bridge", "Anglo-Saxons", 115, 34},
    {"manzikert", "Seljuq Turks", 145, 72},
};

/* The errata's printed spellings of an army, each the same army as the module's name for it
 * (SCENARIO CHART (Correction): "Manzikert Seljug Turks -- PV 145; PL 72"; the module's table
 * above spells it "Seljuq Turks"). */
static const struct {
    const char *printed, *army;
} printed_names[] = {
    {"Seljug Turks", "Seljuq Turks"},
};

/* Letters and digits of a and b equal, case aside. */
static bool same_letters(const char *a, const char *b) {
    for (;;) {
        while (*a && !isalnum((unsigned char)*a))
            a++;
        while (*b && !isalnum((unsigned char)*b))
            b++;
        if (!*a || !*b) return !*a && !*b;
        if (tolower((unsigned char)*a++) != tolower((unsigned char)*b++)) return false;
    }
}

/* The module's name of the army a name means: the errata's printed spelling read as the army. */
static const char *army_name(const char *name) {
    for (size_t i = 0; i < sizeof printed_names / sizeof printed_names[0]; i++)
        if (same_letters(name, printed_names[i].printed)) return printed_names[i].army;
    return name;
}

/* An army of the charts names a side when their letters and digits match, case aside, the
 * errata's printed spellings included: "Seljuq Turks" (or "Seljug Turks") is side
 * "seljuq-turks", and "seljug-turks". */
bool da_same_army(const char *a, const char *b) {
    return same_letters(army_name(a), army_name(b));
}

const da_army_values *da_corrected_army(const char *scenario, const char *army) {
    for (size_t i = 0; i < sizeof corrected / sizeof corrected[0]; i++)
        if (strcmp(corrected[i].scenario, scenario) == 0 && da_same_army(corrected[i].army, army))
            return &corrected[i];
    return NULL;
}

/* ---- validation ------------------------------------------------------------------------------ */

static const char *const classes[] = {"I", "II", "III", "IV", "V", "command", "fleet", NULL};
static const char *const effects[] = {"x1", "x2", "x3", "x1/2", "x1/3", "P", NULL};
static const char *const slopes[] = {"level", "uphill", "downhill", NULL};
static const char *const scenarios[] = {"tours",           "constantinople", "balathusta",
                                        "stamford-bridge", "manzikert",      NULL};

bool da_result_parse(const char *code, da_result *out) {
    memset(out, 0, sizeof *out);
    if (!code || strlen(code) >= sizeof out->code) return false;
    snprintf(out->code, sizeof out->code, "%s", code);
    if (strcmp(code, "-") == 0) return true;
    const char *p = code;
    while (*p) {
        size_t len = strcspn(p, "-");
        char part[8];
        if (len == 0 || len >= sizeof part) return false;
        memcpy(part, p, len);
        part[len] = '\0';
        if (strcmp(part, "AD") == 0)
            out->attacker_demoralized = true;
        else if (strcmp(part, "DD") == 0)
            out->defender_demoralized = true;
        else if (strcmp(part, "AE") == 0)
            out->attacker_eliminated = true;
        else if (strcmp(part, "DE") == 0)
            out->defender_eliminated = true;
        else if (len == 2 && part[0] >= '1' && part[0] <= '9' && part[1] == 'E')
            out->defender_losses = part[0] - '0';
        else if (len == 3 && part[0] == 'A' && part[1] >= '1' && part[1] <= '9' && part[2] == 'E')
            out->attacker_losses = part[1] - '0';
        else
            return false;
        p += len;
        if (*p == '-' && *++p == '\0') return false;
    }
    return true;
}

static int invalid(api_error *err, const char *path, const char *fmt, const char *a) {
    api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", path), fmt, a);
    return -1;
}

static bool in_list(const char *const *list, const char *s) {
    for (; *list; list++)
        if (strcmp(*list, s) == 0) return true;
    return false;
}

/* A cost: an integer 0-20, "1/2", "P" or "road", as half MP or DA_COST_*. */
static int read_cost(const json_t *v, const char *path, int *out, api_error *err) {
    if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 20) {
        *out = (int)json_integer_value(v) * 2;
        return 0;
    }
    const char *s = json_string_value(v);
    if (s && strcmp(s, "1/2") == 0)
        *out = 1;
    else if (s && strcmp(s, "P") == 0)
        *out = DA_COST_PROHIBITED;
    else if (s && strcmp(s, "road") == 0)
        *out = DA_COST_ROAD_ONLY;
    else {
        api_error_field(err, path, "an integer 0-20, \"1/2\", \"P\" (prohibited) or \"road\"");
        return -1;
    }
    return 0;
}

/* A value for every class, from one value or an object by class: {"I": .., ...} (new ref). */
static json_t *by_class(const json_t *v, const char *path, bool cost, api_error *err) {
    json_t *out = json_object();
    for (int i = 0; classes[i]; i++) {
        const json_t *item = json_is_object(v) ? json_object_get(v, classes[i]) : v;
        char p[JSON_IN_PATH_MAX];
        if (json_is_object(v))
            json_in_path(p, path, classes[i]);
        else
            snprintf(p, sizeof p, "%s", path);
        if (!item) continue; /* a class the chart does not list: prohibited (costs) or absent */
        if (cost) {
            int c = 0;
            if (read_cost(item, p, &c, err) != 0) goto fail;
            json_object_set_new(out, classes[i], json_integer(c));
        } else {
            const char *s = json_string_value(item);
            if (!s || !in_list(effects, s)) {
                api_error_field(err, p, "x1, x2, x3, x1/2, x1/3 or P");
                goto fail;
            }
            json_object_set_new(out, classes[i], json_string(s));
        }
    }
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            if (!in_list(classes, k)) {
                char p[JSON_IN_PATH_MAX];
                json_in_path(p, path, k);
                invalid(err, p, "'%s' is not a unit class (I to V, command, fleet)", k);
                goto fail;
            }
        }
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}

static json_t *effects_new(const json_t *v, const char *path, api_error *err) {
    json_t *out = json_object();
    if (!json_is_object(v)) {
        api_error_field(err, path, "{\"level\"|\"uphill\"|\"downhill\": effect or by class}");
        goto fail;
    }
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
        char p[JSON_IN_PATH_MAX];
        json_in_path(p, path, k);
        if (!in_list(slopes, k)) {
            invalid(err, p, "'%s' is not a Terrain Effects Chart column (level, uphill, downhill)",
                    k);
            goto fail;
        }
        json_t *col = by_class(x, p, false, err);
        if (!col) goto fail;
        json_object_set_new(out, k, col);
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}

static json_t *terrain_new(const json_t *v, api_error *err) {
    static const char *const keys[] = {"move",   "fps",         "keep", "defense",
                                       "attack", "blocks_fire", NULL};
    json_t *out = json_object();
    if (!json_is_object(v)) {
        api_error_field(err, "setup.charts.terrain", "an object of terrain types");
        goto fail;
    }
    const char *name;
    json_t *t;
    json_object_foreach((json_t *)v, name, t) {
        char path[JSON_IN_PATH_MAX], p[JSON_IN_PATH_MAX];
        json_in_path(path, "setup.charts.terrain", name);
        if (!json_is_object(t)) {
            api_error_field(err, path, "an object with move");
            goto fail;
        }
        int fps = 0;
        bool keep = false, blocks = false;
        if (json_in_only_keys(t, path, keys, err) != 0 ||
            rules_in_bool(t, path, "blocks_fire", &blocks, err) != 0 ||
            rules_in_int(t, path, "fps", false, 0, 20, &fps, err) != 0 ||
            rules_in_bool(t, path, "keep", &keep, err) != 0)
            goto fail;
        /* TEC (Clarification): at most 4, but the Keep. */
        if (fps > da_errata.fps_cap && !keep) {
            json_in_path(p, path, "fps");
            invalid(err, p, "the errata caps Fire Protection at 4 for every hex but the Keep (%s)",
                    name);
            goto fail;
        }
        const json_t *move = rules_in_present(t, "move");
        if (!move) {
            json_in_path(p, path, "move");
            api_error_field(err, p, "the movement cost: a value or one by unit class");
            goto fail;
        }
        json_in_path(p, path, "move");
        json_t *costs = by_class(move, p, true, err);
        if (!costs) goto fail;
        json_t *entry = json_pack("{s:o, s:i, s:b, s:b}", "move", costs, "fps", fps, "keep", keep,
                                  "blocks_fire", blocks);
        json_object_set_new(out, name, entry);
        static const char *const parts[] = {"defense", "attack", NULL};
        for (int i = 0; parts[i]; i++) {
            const json_t *e = rules_in_present(t, parts[i]);
            if (!e) continue;
            json_in_path(p, path, parts[i]);
            json_t *norm = effects_new(e, p, err);
            if (!norm) goto fail;
            json_object_set_new(entry, parts[i], norm);
        }
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}

/* "3-1" -> 3, 1; false unless two positive integers. */
static bool parse_odds(const char *s, int *a, int *d) {
    int n = 0;
    return s && sscanf(s, "%d-%d%n", a, d, &n) == 2 && s[n] == '\0' && *a > 0 && *d > 0;
}

static json_t *crt_new(const json_t *v, api_error *err) {
    static const char *const keys[] = {"columns", "rows", NULL};
    json_t *columns = NULL, *rows = NULL;
    if (!json_is_object(v)) {
        api_error_field(err, "setup.charts.crt", "{\"columns\", \"rows\"}");
        return NULL;
    }
    if (json_in_only_keys(v, "setup.charts.crt", keys, err) != 0) return NULL;
    if (json_in_array(v, "setup.charts.crt", "columns", true, 20, &columns) != 0 ||
        json_in_object(v, "setup.charts.crt", "rows", true, &rows) != 0) {
        json_in_take_error(err);
        return NULL;
    }
    size_t ncol = json_array_size(columns);
    int pa = 0, pd = 1;
    for (size_t i = 0; i < ncol; i++) {
        char p[JSON_IN_PATH_MAX];
        json_in_path_index(p, "setup.charts.crt.columns", i);
        int a, d;
        if (!parse_odds(json_string_value(json_array_get(columns, i)), &a, &d)) {
            api_error_field(err, p, "odds as \"a-d\", e.g. \"3-1\"");
            return NULL;
        }
        if (i > 0 && (long)a * pd <= (long)pa * d) {
            invalid(err, p, "the columns must go from the worst odds to the best (%s)",
                    json_string_value(json_array_get(columns, i)));
            return NULL;
        }
        pa = a;
        pd = d;
    }
    if (ncol == 0) {
        api_error_field(err, "setup.charts.crt.columns", "at least one odds column");
        return NULL;
    }
    for (int r = 1; r <= 6; r++) {
        char key[2] = {(char)('0' + r), '\0'}, p[JSON_IN_PATH_MAX];
        json_in_path(p, "setup.charts.crt.rows", key);
        const json_t *row = json_object_get(rows, key);
        if (!json_is_array(row) || json_array_size(row) != ncol) {
            invalid(err, p, "die roll %s needs one result per odds column", key);
            return NULL;
        }
        for (size_t i = 0; i < ncol; i++) {
            const char *res = json_string_value(json_array_get(row, i));
            da_result parsed;
            if (!da_result_parse(res, &parsed)) {
                char q[JSON_IN_PATH_MAX];
                json_in_path_index(q, p, i);
                api_error_field(err, q,
                                "a result code: \"-\", or parts joined by \"-\" among AD, DD, AE, "
                                "DE, 1E..9E (defenders), A1E..A9E (attackers)");
                return NULL;
            }
        }
    }
    if (json_object_size(rows) != 6) {
        invalid(err, "setup.charts.crt.rows", "%s", "the rows are the die rolls 1 to 6, no more");
        return NULL;
    }
    return json_deep_copy(v);
}

static json_t *units_new(const json_t *v, api_error *err) {
    static const char *const keys[] = {
        "class",   "melee_attack", "melee_defense", "melee_defense_flank",
        "missile", "range",        "movement",      "stacking",
        "vp",      "cavalry",      "dismounted",    "combat_bonus",
        NULL};
    static const char *const cavalry[] = {"medium", "heavy", "cataphract", NULL};
    if (!json_is_object(v)) {
        api_error_field(err, "setup.charts.units", "an object of unit types");
        return NULL;
    }
    const char *type;
    json_t *u;
    json_object_foreach((json_t *)v, type, u) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, "setup.charts.units", type);
        if (!json_is_object(u)) {
            api_error_field(err, path, "an object with class and strengths");
            return NULL;
        }
        int cls = 0, x = 0, cav = 0;
        if (json_in_only_keys(u, path, keys, err) != 0 ||
            rules_in_enum(u, path, "class", true, classes, 0, &cls, err) != 0 ||
            rules_in_int(u, path, "melee_attack", true, 0, 99, &x, err) != 0 ||
            rules_in_int(u, path, "melee_defense", true, 0, 99, &x, err) != 0 ||
            rules_in_int(u, path, "melee_defense_flank", true, 0, 99, &x, err) != 0 ||
            rules_in_int(u, path, "missile", false, 0, 99, &x, err) != 0 ||
            rules_in_int(u, path, "range", false, 0, 20, &x, err) != 0 ||
            rules_in_int(u, path, "movement", true, 0, 40, &x, err) != 0 ||
            rules_in_int(u, path, "stacking", false, 0, 20, &x, err) != 0 ||
            rules_in_int(u, path, "vp", true, 0, 999, &x, err) != 0 ||
            rules_in_enum(u, path, "cavalry", false, cavalry, 0, &cav, err) != 0 ||
            rules_in_int(u, path, "combat_bonus", false, 0, 9, &x, err) != 0)
            return NULL;
        const char *d = json_string_value(json_object_get(u, "dismounted"));
        if (json_object_get(u, "dismounted") && (!d || !json_object_get(v, d))) {
            char p[JSON_IN_PATH_MAX];
            json_in_path(p, path, "dismounted");
            invalid(err, p, "the dismounted unit type '%s' is not in setup.charts.units",
                    d ? d : "?");
            return NULL;
        }
        /* STACKING (C): "Viking Fleet units have no inherent stacking points" */
        const json_t *st = json_object_get(u, "stacking");
        if (strcmp(classes[cls], "fleet") == 0 && st && json_integer_value(st) != 0) {
            char p[JSON_IN_PATH_MAX];
            json_in_path(p, path, "stacking");
            invalid(err, p, "Viking Fleet units have no stacking points (STACKING (C)): %s", type);
            return NULL;
        }
    }
    return json_deep_copy(v);
}

static json_t *capability_new(const json_t *v, const json_t *units, api_error *err) {
    if (!json_is_object(v)) {
        api_error_field(err, "setup.charts.capability", "{attacking class: {defending type: x}}");
        return NULL;
    }
    const char *cls;
    json_t *row;
    json_object_foreach((json_t *)v, cls, row) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, "setup.charts.capability", cls);
        if (!in_list(classes, cls)) {
            invalid(err, path, "'%s' is not a unit class (I to V, command, fleet)", cls);
            return NULL;
        }
        if (!json_is_object(row)) {
            api_error_field(err, path, "{defending type: effect}");
            return NULL;
        }
        const char *type;
        json_t *e;
        json_object_foreach(row, type, e) {
            char p[JSON_IN_PATH_MAX];
            json_in_path(p, path, type);
            if (units && !json_object_get(units, type)) {
                invalid(err, p, "'%s' is not a unit type of setup.charts.units", type);
                return NULL;
            }
            if (!json_is_string(e) || !in_list(effects, json_string_value(e))) {
                api_error_field(err, p, "x1, x2, x3, x1/2, x1/3 or P");
                return NULL;
            }
        }
    }
    return json_deep_copy(v);
}

static json_t *armies_new(const json_t *v, const char *scenario, api_error *err) {
    static const char *const keys[] = {"point_value", "panic_level", NULL};
    json_t *out = json_object();
    if (v && !json_is_object(v)) {
        api_error_field(err, "setup.charts.armies", "{side: {point_value, panic_level}}");
        goto fail;
    }
    /* The corrected values first, so that the setup may still set its own. */
    for (size_t i = 0; scenario && i < sizeof corrected / sizeof corrected[0]; i++)
        if (strcmp(corrected[i].scenario, scenario) == 0)
            json_object_set_new(out, corrected[i].army,
                                json_pack("{s:i, s:i, s:s}", "point_value",
                                          corrected[i].point_value, "panic_level",
                                          corrected[i].panic_level, "source",
                                          "errata, SCENARIO CHART (Correction)"));
    const char *side;
    json_t *a;
    json_object_foreach((json_t *)v, side, a) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, "setup.charts.armies", side);
        int pv = 0, pl = 0;
        if (!json_is_object(a)) {
            api_error_field(err, path, "{point_value, panic_level}");
            goto fail;
        }
        if (json_in_only_keys(a, path, keys, err) != 0 ||
            rules_in_int(a, path, "point_value", true, 0, 9999, &pv, err) != 0 ||
            rules_in_int(a, path, "panic_level", true, 0, 9999, &pl, err) != 0)
            goto fail;
        /* the setup's own values replace a corrected army of the same name */
        const char *k;
        json_t *x, *tmp;
        json_object_foreach_safe(out, tmp, k, x) {
            if (da_same_army(k, side)) json_object_del(out, k);
        }
        json_object_set_new(
            out, side,
            json_pack("{s:i, s:i, s:s}", "point_value", pv, "panic_level", pl, "source", "setup"));
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}

json_t *da_charts_new(const json_t *setup_charts, api_error *err) {
    static const char *const keys[] = {"units",  "terrain",        "crt",      "capability",
                                       "armies", "stacking_limit", "scenario", NULL};
    json_t *out = json_object();
    if (!setup_charts) return out;
    if (!json_is_object(setup_charts)) {
        api_error_field(err, "setup.charts", "an object");
        goto fail;
    }
    int sc = -1, limit = 0;
    /* SCENARIO CHART (Correction) prints "Stanford Bridge": the errata's spelling names the
     * scenario too. */
    const json_t *scenario = rules_in_present(setup_charts, "scenario");
    bool printed = json_is_string(scenario) &&
                   json_string_length(scenario) == strlen("stanford-bridge") &&
                   strcmp(json_string_value(scenario), "stanford-bridge") == 0;
    for (int i = 0; printed && scenarios[i]; i++)
        if (strcmp(scenarios[i], "stamford-bridge") == 0) sc = i;
    if (json_in_only_keys(setup_charts, "setup.charts", keys, err) != 0 ||
        (!printed && rules_in_enum(setup_charts, "setup.charts", "scenario", false, scenarios, 0,
                                   &sc, err) != 0) ||
        rules_in_int(setup_charts, "setup.charts", "stacking_limit", false, 1, 100, &limit, err) !=
            0)
        goto fail;
    const json_t *v;
    json_t *part;
    if ((v = rules_in_present(setup_charts, "units"))) {
        if (!(part = units_new(v, err))) goto fail;
        json_object_set_new(out, "units", part);
    }
    if ((v = rules_in_present(setup_charts, "terrain"))) {
        if (!(part = terrain_new(v, err))) goto fail;
        json_object_set_new(out, "terrain", part);
    }
    if ((v = rules_in_present(setup_charts, "crt"))) {
        if (!(part = crt_new(v, err))) goto fail;
        json_object_set_new(out, "crt", part);
    }
    if ((v = rules_in_present(setup_charts, "capability"))) {
        if (!(part = capability_new(v, json_object_get(out, "units"), err))) goto fail;
        json_object_set_new(out, "capability", part);
    }
    v = rules_in_present(setup_charts, "armies");
    if (v || sc >= 0) {
        if (!(part = armies_new(v, sc >= 0 ? scenarios[sc] : NULL, err))) goto fail;
        json_object_set_new(out, "armies", part);
    }
    if (limit) json_object_set_new(out, "stacking_limit", json_integer(limit));
    if (sc >= 0) json_object_set_new(out, "scenario", json_string(scenarios[sc]));
    return out;
fail:
    if (!err->status)
        api_error_set(err, 503, "out_of_memory", NULL, "out of memory reading the charts");
    json_decref(out);
    return NULL;
}

int da_check_scenario_sides(const json_t *charts, const json_t *sides, api_error *err) {
    const char *scenario = json_string_value(json_object_get(charts, "scenario"));
    const json_t *armies = json_object_get(charts, "armies");
    if (!scenario) return 0;
    size_t i;
    const json_t *side;
    json_array_foreach(sides, i, side) {
        const char *name = json_string_value(side), *k;
        const json_t *v;
        bool found = false;
        json_object_foreach((json_t *)armies, k, v) found |= da_same_army(k, name ? name : "");
        if (found) continue;
        char p[JSON_IN_PATH_MAX], field[JSON_IN_PATH_MAX], list[512] = "";
        json_in_path_index(p, "setup.players", i);
        json_in_path(field, p, "side");
        json_t *names = json_array();
        json_object_foreach((json_t *)armies, k, v) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", k);
            json_array_append_new(names, json_string(k));
        }
        api_error_set(
            err, 422, "invalid_setup",
            json_pack("{s:s, s:s, s:o}", "field", field, "scenario", scenario, "armies", names),
            "side '%s' matches no army of scenario %s, whose armies are %s (the "
            "errata's corrected ones and setup.charts.armies; a name matches on its "
            "letters and digits, case aside): give this side's point_value and "
            "panic_level in setup.charts.armies, or name it as its army",
            name ? name : "", scenario, list[0] ? list : "none");
        return -1;
    }
    return 0;
}

const json_t *da_chart_require(const json_t *charts, const char *name, api_error *err) {
    const json_t *part = json_object_get(charts, name);
    if (part) return part;
    api_error_set(err, 422, "chart_missing", json_pack("{s:s}", "chart", name),
                  "this action needs the %s chart, which the session's setup.charts does not give",
                  name);
    return NULL;
}

int da_terrain_cost(const json_t *charts, const char *terrain, const char *unit_class) {
    const json_t *c = json_object_get(
        json_object_get(json_object_get(json_object_get(charts, "terrain"), terrain), "move"),
        unit_class);
    if (!json_is_integer(c)) return DA_COST_PROHIBITED;
    json_int_t v = json_integer_value(c); /* validated at creation; kept in range regardless */
    return v == DA_COST_ROAD_ONLY ? DA_COST_ROAD_ONLY
           : v < 0                ? DA_COST_PROHIBITED
           : v > 40               ? 40
                                  : (int)v;
}

int da_hex_fps(const json_t *charts, const char *const *terrains, int n) {
    const json_t *tec = json_object_get(charts, "terrain");
    int sum = 0;
    bool keep = false;
    for (int i = 0; i < n; i++) {
        const json_t *t = json_object_get(tec, terrains[i]);
        sum += (int)json_integer_value(json_object_get(t, "fps"));
        keep |= json_is_true(json_object_get(t, "keep"));
    }
    /* TEC (Clarification): "the FPS of a wooded stream hex is 4 not 6": the terrains of a hex
     * add up, to at most 4 but in the Keep. */
    return keep || sum <= da_errata.fps_cap ? sum : da_errata.fps_cap;
}

int da_step_cost(const json_t *charts, const char *unit_class, bool fleet, const da_step *s) {
    int cost;
    if (s->river && !s->bridge && !fleet) return DA_COST_PROHIBITED;
    if (s->bridge) {
        cost = s->from_road ? da_errata.bridge_from_road_half : da_errata.bridge_half;
    } else if (s->along_road) {
        /* The road's cost, whatever the other terrain costs; a terrain the chart prohibits
         * ("P") stays prohibited, one it opens only along roads ("road") opens. */
        for (int i = 0; i < s->nterrains; i++)
            if (da_terrain_cost(charts, s->terrains[i], unit_class) == DA_COST_PROHIBITED)
                return DA_COST_PROHIBITED;
        cost = da_errata.road_half;
    } else if (s->ford) {
        /* "A ford hex is treated as clear terrain for Movement purposes" */
        cost = da_terrain_cost(charts, "clear", unit_class);
    } else if (s->stream) {
        cost = da_errata.stream_hex_half;
        /* a stream hex of another terrain too (a wooded stream hex): the dearer of the two */
        for (int i = 0; i < s->nterrains; i++) {
            if (strcmp(s->terrains[i], "stream") == 0) continue;
            int c = da_terrain_cost(charts, s->terrains[i], unit_class);
            if (c == DA_COST_PROHIBITED || c == DA_COST_ROAD_ONLY) return DA_COST_PROHIBITED;
            if (c > cost) cost = c;
        }
    } else {
        /* the dearer terrain only */
        cost = 0;
        for (int i = 0; i < s->nterrains; i++) {
            int c = da_terrain_cost(charts, s->terrains[i], unit_class);
            if (c == DA_COST_PROHIBITED || c == DA_COST_ROAD_ONLY) return DA_COST_PROHIBITED;
            if (c > cost) cost = c;
        }
    }
    if (cost < 0) return DA_COST_PROHIBITED;
    if (s->crossing_stream && !s->bridge && !s->ford) cost += da_errata.stream_crossing_half;
    if (s->water_hexside) cost += da_errata.water_hexside_half;
    return cost;
}
