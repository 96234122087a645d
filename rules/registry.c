/* The one table of rulesets. Adding a game: a folder under rules/ and a line here. */
#include "rules/ruleset.h"

#include <string.h>

extern const ruleset ruleset_generic;
extern const ruleset ruleset_magic_realm;
extern const ruleset ruleset_vaevictis_corbach;
extern const ruleset ruleset_vis_magica;
extern const ruleset ruleset_horse_and_musket;
extern const ruleset ruleset_spi_dark_ages;

static const ruleset *const registry[] = {
    &ruleset_generic,           /* rules/generic/ */
    &ruleset_magic_realm,       /* rules/magic_realm/ */
    &ruleset_vaevictis_corbach, /* rules/vaevictis_corbach/ */
    &ruleset_vis_magica,        /* rules/vis_magica/ */
    &ruleset_horse_and_musket,  /* rules/horse_and_musket/ */
    &ruleset_spi_dark_ages,     /* rules/spi_dark_ages/ */
};

#define REGISTRY_SIZE (sizeof registry / sizeof registry[0])

const ruleset *ruleset_find(const char *id) {
    for (size_t i = 0; i < REGISTRY_SIZE; i++)
        if (strcmp(registry[i]->id, id) == 0) return registry[i];
    return NULL;
}

size_t ruleset_count(void) {
    return REGISTRY_SIZE;
}

const ruleset *ruleset_at(size_t i) {
    return i < REGISTRY_SIZE ? registry[i] : NULL;
}
