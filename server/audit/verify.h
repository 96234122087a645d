/* The audit of an event log, fed one event at a time so that a log of any length is checked in
 * constant memory, from SQLite (GET /verify) or from an exported JSONL file (umpire-verify):
 *
 *  1. the chain: seq contiguous from 1, each prev the previous hash, each hash recomputed
 *     (JCS + SHA-256, server/audit/chain.c);
 *  2. the dice: every die whose seed is known (seeded mode from event 1, server mode once a
 *     later dice_seed_revealed publishes it) is recomputed from its nonce and the players'
 *     entropy in force when it was rolled (each entropy_contributed checked in turn), and each
 *     revealed seed is checked against the commitment published before it;
 *  3. the rules: every action is re-adjudicated — its rules module runs again on the state
 *     before it, with the logged dice, and must give the same dice, result, summary and events.
 *
 * It stops at the first failure and reports its seq. */
#ifndef UMPIRE_VERIFY_H
#define UMPIRE_VERIFY_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct verifier verifier;

verifier *verifier_new(void);
void verifier_free(verifier *v);
/* The head hash the client holds (from an earlier answer): the log must contain it. Call before
 * feeding. */
void verifier_expect_head(verifier *v, const char *head_hex);
/* Once *cancel is true (nobody waits for the verdict: server/api/work_pool.h), the verifier stops
 * where it is, even inside a long reveal, and fails with "cancelled" (verifier_cancelled).
 * cancel may be NULL; it must outlive v. */
void verifier_set_cancel(verifier *v, const atomic_bool *cancel);
bool verifier_cancelled(const verifier *v);
/* Feeds the next event of the log, as stored ({seq, ts, actor, type, data, prev, hash}). */
void verifier_feed(verifier *v, const json_t *event);
/* Marks an unreadable entry at this point of the log (e.g. a line that is not JSON). */
void verifier_feed_unreadable(verifier *v, const char *why);
/* Ends the log. stored_version/stored_head: the projection the store claims (version < 0: none). */
void verifier_finish(verifier *v, int64_t stored_version, const char *stored_head);
/* After verifier_finish, with a stored session row at hand: the dice state the store claims must
 * be the log's (a row edited beside its log would roll later dice from the wrong nonce or with
 * the wrong entropy, which nobody could check until a reveal). next_nonce: the next nonce;
 * entropy_digest: the digest of the contributions in force ("" for none); manual_by_referee:
 * dice.manual_by is "referee". Fails the verdict when one differs. */
void verifier_check_dice_state(verifier *v, int64_t next_nonce, const char *entropy_digest,
                               bool manual_by_referee);
bool verifier_ok(const verifier *v);
/* {"ok","events","head","first_bad_seq","reason","dice_checked","dice_unchecked",
 * "actions_readjudicated","head_checked","notes"}: dice_unchecked counts the dice rolled under a
 * server seed not yet revealed; head_checked is true when a head was expected and found; notes
 * are sentences for the reader on what could not be checked. */
json_t *verifier_report_new(const verifier *v);

#endif
