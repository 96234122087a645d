/* The play-by-web client's files, held in memory and answered by path: either the copy built
 * into the daemon (web/ at build time, server/core/embedded.h) or a directory read once at start-up
 * ([web] root, for working on the client without rebuilding). Nothing is read from disk while
 * serving, and only files in the table can be answered, so no path can escape the root. */
#ifndef UMPIRE_STATIC_FILES_H
#define UMPIRE_STATIC_FILES_H

#include <stddef.h>

/* Bounds on a directory read at start-up: a root holding more is refused, not served in part. */
#define STATIC_FILES_MAX       512
#define STATIC_FILE_MAX_BYTES  (8u << 20)
#define STATIC_TOTAL_MAX_BYTES (32u << 20)
#define STATIC_DEPTH_MAX       8

typedef struct static_file {
    const char *path; /* "/index.html": the URL path it answers */
    const char *data; /* len bytes */
    size_t len;
    const char *content_type;
    char etag[20]; /* "\"<16 hex>\"": FNV-1a of the bytes, for If-None-Match */
} static_file;

typedef struct static_files static_files;

/* The files built into the daemon. NULL on out-of-memory. */
static_files *static_files_builtin_new(void);
/* Every regular file under root (names of [A-Za-z0-9._-] that do not start with '.'; other
 * entries are skipped). NULL with a sentence in err when root cannot be read or breaks a bound. */
static_files *static_files_load_new(const char *root, char *err, size_t errlen);
void static_files_free(static_files *sf);

/* The file a URL path names ("/" is "/index.html"), borrowed; NULL if none. */
const static_file *static_files_find(const static_files *sf, const char *path);
size_t static_files_count(const static_files *sf);

#endif
