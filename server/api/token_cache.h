/* The loop thread's memory of which bearer token holds which role in which session, so that
 * authenticating a request does not run an SQLite query (and its statement machinery) each time.
 *
 * Why a cached answer stays true: a token never changes once written. The tokens table only
 * ever gets INSERTs (migrations/0001_init.sql; server/store/store.c has no UPDATE or DELETE of
 * tokens, nor of sessions), and the loop thread's reader connection only sees committed rows. So a
 * (session, token digest) -> role pair read from the database holds for the life of the process.
 * Only such successful lookups are remembered: never an unknown token (it may belong to a session
 * committed a moment later) and never "no such session".
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
 * Ignored for a session id that is not 32 characters or a role that would not fit. */
void token_cache_put(token_cache *c, const char *session_id, const uint8_t digest[32],
                     const char *role);

#endif
