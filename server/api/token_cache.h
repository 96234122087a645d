/* The loop thread's memory of which bearer token holds which role in which session, so that
 * authenticating a request does not run an SQLite query (and its statement machinery) each time.
 *
 * Why a cached answer stays true: a token changes only by a rotation or revocation (POST
 * /v1/sessions/{id}/tokens/..., server/api/token_routes.c), and each one makes every node forget
 * what it cached of the session: this node when the change commits (token_cache_forget, before
 * the answer goes out), the others when PostgreSQL delivers its NOTIFY umpire_tokens
 * (server/store/pg_listen.h; a listener that reconnected forgets everything). Between those, a
 * (session, token digest) -> role pair read from the database holds. Only such successful lookups
 * are remembered: never an unknown token (it may belong to a session committed a moment later)
 * and never "no such session".
 *
 * A lookup that started before a change (a PostgreSQL reader thread) may answer after it with
 * the old token: for TOKEN_CACHE_FORGET_MS after a change, token_cache_put refuses the changed
 * roles (the new token of a rotation made on this node excepted), so the old token is used for
 * that one request, read before the change, and never remembered.
 *
 * Bounded: a fixed number of slots allocated once, direct-mapped by the token's SHA-256 digest
 * (uniformly distributed); a new entry replaces whatever held its slot, and a miss costs no more
 * than the database lookup it falls back to. Tokens are kept only as their digests, as in the
 * database; digests are compared in constant time. Loop thread only (no locking). */
#ifndef UMPIRE_TOKEN_CACHE_H
#define UMPIRE_TOKEN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2048 slots of 112 bytes: 224 KiB, touched only as slots fill. Enough for every token in use
 * across several hundred busy sessions; beyond that, evictions only mean more database lookups. */
#define TOKEN_CACHE_SLOTS 2048
/* Roles are "referee" or "side:<name>" (a side name has at most 32 characters). */
#define TOKEN_CACHE_ROLE_MAX 48

typedef struct token_cache token_cache;

/* slots: a power of two. NULL without memory. */
token_cache *token_cache_new(size_t slots);
void token_cache_free(token_cache *c);

/* True when digest is cached as a token of session_id (32 characters): its role is then copied
 * into role[rolelen] (truncated like snprintf). False, with role untouched, otherwise. A NULL
 * cache (token_cache_get and token_cache_put) caches nothing: every lookup is a miss. */
bool token_cache_get(const token_cache *c, const char *session_id, const uint8_t digest[32],
                     char *role, size_t rolelen);

/* Remembers that digest is the token of role in session_id, as just read from the database.
 * Ignored for a session id that is not 32 characters or a role that would not fit, and for a
 * role changed less than TOKEN_CACHE_FORGET_MS ago (above). */
void token_cache_put(token_cache *c, const char *session_id, const uint8_t digest[32],
                     const char *role);

/* Longer than a database lookup takes (a PostgreSQL statement gives up well before). */
#define TOKEN_CACHE_FORGET_MS 60000
/* Changes remembered for TOKEN_CACHE_FORGET_MS: the most that may happen within it on one node
 * before the oldest is forgotten early. */
#define TOKEN_CACHE_CHANGES 256

/* A token of session_id changed: forgets the cached tokens of role (NULL: of every role of the
 * session). new_digest: the rotated token's digest when this node made it (it may be cached at
 * once), else NULL. */
void token_cache_forget(token_cache *c, const char *session_id, const char *role,
                        const uint8_t *new_digest);
/* Forgets every token (changes may have been missed: a listener reconnected). */
void token_cache_clear(token_cache *c);

#endif
