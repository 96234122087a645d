/* Files built into the daemon by scripts/embed-files (see the Makefile): the web client, the
 * example scenarios and the OpenAPI base document travel inside the binary, so umpired serves
 * them from any working directory and in the container. */
#ifndef UMPIRE_EMBEDDED_H
#define UMPIRE_EMBEDDED_H

#include <stddef.h>

typedef struct embedded_file {
    const char *name; /* relative to its base directory, e.g. "index.html", "vendor/x.js" */
    size_t len;
    const char *data; /* len bytes, NUL-terminated */
} embedded_file;

/* web/ (the play-by-web client) and scenarios/ (example sessions, one file each). */
extern const embedded_file umpire_web_files[];
extern const size_t umpire_web_files_count;
extern const embedded_file umpire_scenario_files[];
extern const size_t umpire_scenario_files_count;

#endif
