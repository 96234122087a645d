/* `umpired export` and `umpired import`: a whole database as JSON lines, from either backend to
 * either backend (the way from one SQLite file to a shared PostgreSQL database, docs/deploy.md).
 *
 * The file: a header line {"umpire_export": 1, "tables": [...]}, then one line per row,
 * {"table": NAME, "row": {column: value}} (BLOB/bytea columns as lowercase hex), tables in
 * dependency order, and a last line {"end": true, "rows": N}, so that a cut-off file is refused.
 *
 * Import writes everything in one transaction, then reads every imported session back from the
 * target and audits it there as GET /verify does (chain, dice, re-adjudication,
 * server/audit/verify.h) against the session's stored version and head. Only if every session
 * verifies does it commit: a database that arrives is one whose chain heads are the ones that left.
 */
#ifndef UMPIRE_DB_TRANSFER_H
#define UMPIRE_DB_TRANSFER_H

#include <stdio.h>

/* Writes db to out. 0, or -1 with a sentence in err. Progress and a summary on `report`. */
int db_export(const char *db, FILE *out, FILE *report, char *err, size_t errlen);
/* Reads an export from in into db (migrated first; the sessions must not exist there yet).
 * Writes each session's id, version and verified head to `report`. 0, or -1 with err (nothing
 * was written). */
int db_import(const char *db, FILE *in, FILE *report, char *err, size_t errlen);

#endif
