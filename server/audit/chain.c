#include "server/audit/chain.h"

#include <stdlib.h>
#include <string.h>

#include "protocol/jcs.h"
#include "server/core/crypto.h"

/* A previous hash as the chain writes it: exactly 64 lowercase hex digits. Anything else would
 * still hash, but to a chain no verifier could reproduce, so it is refused. */
static int valid_prev(const char *p) {
    if (!p) return 0;
    for (int i = 0; i < 64; i++) {
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return 0;
    }
    return p[64] == '\0';
}

int chain_event_hash_jcs(const char *prev_hex, int64_t seq, const char *ts, const char *actor,
                         const char *type, const char *data_jcs, size_t data_len,
                         char out_hex[65]) {
    if (!valid_prev(prev_hex) || !ts || !actor || !type || !data_jcs) return -1;
    /* prev + "\n" + JCS(event). RFC 8785 orders the members by key: actor, data, seq, ts, type;
     * so JCS(event) is these pieces in this order, with data's own JCS form in its place. */
    jcs_out msg = {0};
    jcs_out_raw(&msg, prev_hex, 64);
    jcs_out_lit(&msg, "\n{\"actor\":");
    jcs_out_string(&msg, actor, strlen(actor));
    jcs_out_lit(&msg, ",\"data\":");
    jcs_out_raw(&msg, data_jcs, data_len);
    jcs_out_lit(&msg, ",\"seq\":");
    jcs_out_int(&msg, seq);
    jcs_out_lit(&msg, ",\"ts\":");
    jcs_out_string(&msg, ts, strlen(ts));
    jcs_out_lit(&msg, ",\"type\":");
    jcs_out_string(&msg, type, strlen(type));
    jcs_out_lit(&msg, "}");
    size_t len = 0;
    char *text = jcs_out_take(&msg, &len);
    if (!text) return -1;
    uint8_t digest[32];
    crypto_sha256(text, len, digest);
    crypto_hex_encode(digest, 32, out_hex);
    free(text);
    return 0;
}

int chain_event_hash(const char *prev_hex, int64_t seq, const char *ts, const char *actor,
                     const char *type, const json_t *data, char out_hex[65]) {
    if (!data) return -1;
    size_t len = 0;
    char *jcs = jcs_dump_new(data, &len);
    if (!jcs) return -1;
    int rc = chain_event_hash_jcs(prev_hex, seq, ts, actor, type, jcs, len, out_hex);
    free(jcs);
    return rc;
}

int chain_orders_commitment(const char *salt_hex, const json_t *orders, char out_hex[65]) {
    uint8_t salt[32];
    if (!salt_hex || strlen(salt_hex) != 64 || crypto_hex_decode(salt_hex, salt, sizeof salt) != 0)
        return -1;
    size_t len = 0;
    char *jcs = jcs_dump_new(orders, &len);
    uint8_t *buf = jcs ? malloc(32 + len) : NULL;
    if (!buf) {
        free(jcs);
        return -1;
    }
    memcpy(buf, salt, 32);
    memcpy(buf + 32, jcs, len);
    uint8_t digest[32];
    crypto_sha256(buf, 32 + len, digest);
    crypto_hex_encode(digest, 32, out_hex);
    out_hex[64] = '\0';
    free(buf);
    free(jcs);
    return 0;
}
