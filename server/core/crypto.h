/* Hashing, MACs, randomness and hex for the event chain and the dice (OpenSSL 3 libcrypto).
 *
 * SHA-256 and HMAC-SHA256 keep one OpenSSL context per thread (created on first use, freed when
 * the thread exits), so a call costs no algorithm fetch and, for HMAC with the same key as the
 * previous call on that thread (the dice seed), no re-keying. All functions are thread-safe.
 * If OpenSSL cannot compute a digest at all (it could not even allocate), the process aborts:
 * a silently wrong hash would corrupt the chain. */
#ifndef UMPIRE_CRYPTO_H
#define UMPIRE_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

void crypto_sha256(const void *data, size_t len, uint8_t out[32]);
void crypto_hmac_sha256(const uint8_t *key, size_t keylen, const void *msg, size_t msglen,
                        uint8_t out[32]);

/* CSPRNG (RAND_bytes); 0 ok, -1 failure. */
int crypto_random_bytes(uint8_t *buf, size_t len);

/* 1 if the len bytes at a and b are equal, else 0; constant time (CRYPTO_memcmp). */
int crypto_ct_equal(const void *a, const void *b, size_t len);

/* Lowercase hex; writes 2*len chars and a NUL to out. */
void crypto_hex_encode(const uint8_t *in, size_t len, char *out);

/* Decodes exactly 2*outlen hex digits (either case) followed by the end of the string; 0, or -1
 * (out then holds no meaningful data). */
int crypto_hex_decode(const char *hex, uint8_t *out, size_t outlen);

#endif
