/* umpire-verify: checks an exported campaign log offline, without the daemon or its database.
 *
 *   umpire-verify FILE.jsonl [--head HEX]
 *
 * FILE is GET /v1/sessions/{id}/log?format=jsonl, one event per line ("-" reads stdin). --head is
 * the chain head the reader holds from an earlier answer: the log must contain it (without it,
 * the report's notes say that a cut or rewritten log would still verify). Prints the same report
 * as GET /v1/sessions/{id}/verify, with the dice checked and those not yet checkable; exits 0
 * when the log verifies, 1 when it does not (a line with a member beyond the seven of an event,
 * or a NUL in any string, is refused: C code would read such a string only up to the NUL), 2
 * when the file cannot be read or the arguments are wrong. */
#include "server/audit/verify.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
    fprintf(stderr, "usage: umpire-verify FILE.jsonl [--head HEX]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *path = NULL, *head = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--head") == 0 && i + 1 < argc)
            head = argv[++i];
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else if (!path && strcmp(argv[i], "-") == 0)
            path = argv[i];
        else
            return usage();
    }
    if (!path) return usage();
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    verifier *v = verifier_new();
    if (!v) return 2;
    if (head) verifier_expect_head(v, head);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (n == 1 && line[0] == '\n') continue;
        json_error_t je;
        json_t *event = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
        if (!event)
            verifier_feed_unreadable(v, je.text);
        else
            verifier_feed(v, event);
        json_decref(event);
    }
    free(line);
    int read_error = ferror(f);
    if (f != stdin) fclose(f);
    if (read_error) {
        fprintf(stderr, "umpire-verify: cannot read %s\n", path);
        verifier_free(v);
        return 2;
    }
    verifier_finish(v, -1, NULL);
    json_t *report = verifier_report_new(v);
    int ok = verifier_ok(v);
    json_dumpf(report, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(report);
    verifier_free(v);
    return ok ? 0 : 1;
}
