/* What the API answers from memory, built once at start-up: the web client's files, the
 * example scenarios and the OpenAPI document. Read-only once built (loop thread). */
#ifndef UMPIRE_API_ASSETS_H
#define UMPIRE_API_ASSETS_H

#include "server/http/static_files.h"

#include <stddef.h>

typedef struct api_assets {
    static_files *web;    /* owned */
    char *scenario_index; /* owned: the body of GET /v1/scenarios */
    size_t scenario_index_len;
    char *openapi; /* owned: the body of GET /v1/openapi.json (server/api/openapi.h) */
    size_t openapi_len;
} api_assets;

/* web_root: "" for the files built into the daemon, else a directory read now. 0, or -1 with a
 * sentence in err (nothing to free then). */
int api_assets_init(api_assets *a, const char *web_root, char *err, size_t errlen);
void api_assets_clear(api_assets *a);

#endif
