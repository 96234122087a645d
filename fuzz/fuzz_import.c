/* fuzz_import: the input as an `umpired import` file (server/store/db_transfer.h), imported into a
 * fresh in-memory SQLite database. Never crashes or leaks, whatever the lines hold: a row of a
 * table that does not exist, a column of the wrong type, bad hex, a session whose chain or
 * dice do not verify, a missing end line. An import that succeeds must be one whose every
 * session verified; one that fails must say why. */
#include "server/store/db_transfer.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int seeded;
    if (!seeded) json_object_seed(1), seeded = 1;
    if (size == 0) return 0;
    FILE *in = fmemopen((void *)data, size, "r");
    char *report_text = NULL;
    size_t report_len = 0;
    FILE *report = open_memstream(&report_text, &report_len);
    if (!in || !report) abort();
    char err[512] = "";
    int rc = db_import(":memory:", in, report, err, sizeof err);
    fclose(in);
    fclose(report);
    if (rc == 0 && !strstr(report_text, "every chain verified")) {
        fprintf(stderr, "fuzz_import: success without the verified line: %s\n", report_text);
        abort();
    }
    if (rc != 0 && err[0] == '\0') {
        fprintf(stderr, "fuzz_import: failed without saying why\n");
        abort();
    }
    free(report_text);
    return 0;
}
