/* The OpenAPI 3.1 document served at GET /v1/openapi.json: the hand-written base
 * (protocol/openapi.base.json, embedded by the Makefile) completed from the ruleset registry, so
 * that every ruleset the daemon was built with has its action schemas:
 *
 *   components.schemas["Action_<ruleset>_<type>"]  one object schema per action: `type` (const),
 *                                                  the envelope (expect_version, unit, dice) and
 *                                                  the action's fields (rules_field rows; `a.b`
 *                                                  and `a[].b` become nested schemas)
 *   components.schemas["Action_<ruleset>"]         oneOf of those, with a discriminator on `type`
 *   components.schemas.ActionRequest               anyOf every Action_<ruleset>, closed by
 *                                                  unevaluatedProperties: false
 *   components.schemas.RulesetOddsRequest          the same anyOf, plus options and setup
 *   components.schemas.RulesetId                   enum of the ruleset ids
 *   info.version                                   the daemon's version
 *
 * (`-` and any other character outside [A-Za-z0-9_] of an id become `_` in a component name.)
 * The document depends only on the build: make it once at start-up and keep its text. */
#ifndef UMPIRE_OPENAPI_H
#define UMPIRE_OPENAPI_H

#include <jansson.h>

/* The whole document (new reference), or NULL when out of memory (or when the embedded base or
 * a registry row cannot be read: a build mistake, which tests/integration/test_openapi.py
 * catches). */
json_t *openapi_document_new(void);

#endif
