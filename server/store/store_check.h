/* The start-up check of a SQLite database's structure: PRAGMA quick_check, bounded in time
 * (storage.quick_check_ms), so that a corrupted file is refused before the daemon serves it as
 * sound (a chain extended over a damaged page no longer verifies). */
#ifndef UMPIRE_STORE_CHECK_H
#define UMPIRE_STORE_CHECK_H

#include "server/store/store.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    STORE_CHECK_OK,         /* "ok" */
    STORE_CHECK_CORRUPT,    /* SQLite named damage: msg holds its first messages */
    STORE_CHECK_UNFINISHED, /* not finished within the time given */
    STORE_CHECK_SKIPPED,    /* not SQLite, or a bound of 0 */
    STORE_CHECK_FAILED,     /* could not run (e.g. the file is locked): msg says why */
} store_check_result;

/* Runs PRAGMA quick_check on c for at most ms milliseconds (0: skipped). msg gets SQLite's
 * first messages (corrupt) or the error (failed). */
store_check_result store_quick_check(store_conn *c, int64_t ms, char *msg, size_t msglen);

#endif
