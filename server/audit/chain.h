/* The event hash chain of the contract (section "Events"). */
#ifndef UMPIRE_CHAIN_H
#define UMPIRE_CHAIN_H

#include <stdint.h>

#include <jansson.h>

/* prev of event 1. */
#define CHAIN_ZERO_HASH "0000000000000000000000000000000000000000000000000000000000000000"

/* hash = lowercase hex SHA-256 of the UTF-8 bytes of prev_hex + "\n" +
 * JCS({"seq","ts","actor","type","data"}), written with its NUL to out_hex.
 * prev_hex must be 64 lowercase hex digits (CHAIN_ZERO_HASH for event 1); ts, actor and type
 * valid UTF-8; data any JSON value without reals (an object in practice), not NULL.
 * Returns 0, or -1 (out_hex untouched) when data cannot be canonicalised (a real number), an
 * argument is invalid, or on allocation failure. */
/* The same, given data already in its JCS form (data_jcs, data_len bytes): the writer
 * canonicalises data once and stores that text too. */
int chain_event_hash_jcs(const char *prev_hex, int64_t seq, const char *ts, const char *actor,
                         const char *type, const char *data_jcs, size_t data_len, char out_hex[65]);
int chain_event_hash(const char *prev_hex, int64_t seq, const char *ts, const char *actor,
                     const char *type, const json_t *data, char out_hex[65]);

/* A sealed orders' commitment (docs/api.md, Sealed orders): lowercase hex SHA-256 of the 32 salt
 * bytes followed by the UTF-8 bytes of JCS(orders), written with its NUL to out_hex. salt_hex: 64
 * lowercase hex digits. 0, or -1 (a bad salt, orders that cannot be canonicalised, no memory). */
int chain_orders_commitment(const char *salt_hex, const json_t *orders, char out_hex[65]);

#endif
