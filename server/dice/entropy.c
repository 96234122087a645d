#include "server/dice/entropy.h"

#include "protocol/jcs.h"
#include "server/core/crypto.h"

#include <stdlib.h>
#include <string.h>

bool entropy_seed_valid(const char *seed, size_t len) {
    if (!seed || len < 1 || len > ENTROPY_SEED_MAX) return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)seed[i] < 0x20 || (unsigned char)seed[i] > 0x7e) return false;
    return true;
}

json_t *entropy_in_force_new(const json_t *entropy) {
    json_t *in_force = json_object();
    const char *role;
    json_t *c;
    json_object_foreach((json_t *)entropy, role, c) {
        const char *seed = json_string_value(json_object_get(c, "seed"));
        if (!in_force || !seed || json_object_set_new(in_force, role, json_string(seed)) != 0) {
            json_decref(in_force);
            return NULL;
        }
    }
    return in_force;
}

int entropy_digest_of_in_force(const json_t *in_force, char out[65]) {
    out[0] = '\0';
    if (!json_is_object(in_force)) return -1;
    if (json_object_size(in_force) == 0) return 0;
    size_t len = 0;
    char *text = jcs_dump_new(in_force, &len);
    if (!text) return -1;
    uint8_t digest[32];
    crypto_sha256(text, len, digest);
    free(text);
    crypto_hex_encode(digest, 32, out);
    return 0;
}

int entropy_digest(const json_t *entropy, char out[65]) {
    out[0] = '\0';
    if (!entropy) return 0;
    if (!json_is_object(entropy)) return -1;
    json_t *in_force = entropy_in_force_new(entropy);
    int rc = in_force && json_object_size(in_force) == json_object_size(entropy)
                 ? entropy_digest_of_in_force(in_force, out)
                 : -1;
    json_decref(in_force);
    return rc;
}

bool entropy_pending(const json_t *entropy, const char *role, int64_t next_nonce) {
    const json_t *nonce = json_object_get(json_object_get(entropy, role), "nonce");
    return json_is_integer(nonce) && json_integer_value(nonce) == next_nonce;
}

json_t *entropy_with_new(const json_t *entropy, const char *role, const char *seed,
                         int64_t next_nonce) {
    json_t *copy = entropy ? json_copy((json_t *)entropy) : json_object();
    json_t *c = json_pack("{s:s, s:I}", "seed", seed, "nonce", (json_int_t)next_nonce);
    if (!copy || !c) {
        json_decref(copy);
        json_decref(c);
        return NULL;
    }
    if (json_object_set_new(copy, role, c) != 0) {
        json_decref(copy);
        return NULL;
    }
    return copy;
}
