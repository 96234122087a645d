#include "server/chain.h"

#include <stdlib.h>
#include <string.h>

#include "protocol/jcs.h"
#include "server/crypto.h"

/* A previous hash as the chain writes it: exactly 64 lowercase hex digits. Anything else would
 * still hash, but to a chain no verifier could reproduce, so it is refused. */
static int valid_prev(const char *p) {
    if (!p) return 0;
    for (int i = 0; i < 64; i++) {
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return 0;
    }
    return p[64] == '\0';
}

/* JCS of the hashed fields of an event (contract, Events): seq, ts, actor, type and data. */
static char *event_jcs(int64_t seq, const char *ts, const char *actor, const char *type,
                       const json_t *data, size_t *len) {
    json_t *ev = json_object();
    if (!ev) return NULL;
    /* json_string refuses NULL and invalid UTF-8; json_object_set_new then fails too. data is
     * only referenced (json_object_set takes a reference), never modified. */
    int bad = json_object_set_new(ev, "seq", json_integer((json_int_t)seq)) ||
              json_object_set_new(ev, "ts", json_string(ts)) ||
              json_object_set_new(ev, "actor", json_string(actor)) ||
              json_object_set_new(ev, "type", json_string(type)) ||
              json_object_set(ev, "data", (json_t *)data);
    char *out = bad ? NULL : jcs_dump_new(ev, len);
    json_decref(ev);
    return out;
}

int chain_event_hash(const char *prev_hex, int64_t seq, const char *ts, const char *actor,
                     const char *type, const json_t *data, char out_hex[65]) {
    if (!valid_prev(prev_hex) || !ts || !actor || !type || !data) return -1;
    size_t jcs_len = 0;
    char *jcs = event_jcs(seq, ts, actor, type, data, &jcs_len);
    if (!jcs) return -1;
    /* prev + "\n" + JCS(event), hashed in one piece. */
    char *msg = malloc(64 + 1 + jcs_len);
    if (!msg) {
        free(jcs);
        return -1;
    }
    memcpy(msg, prev_hex, 64);
    msg[64] = '\n';
    memcpy(msg + 65, jcs, jcs_len);
    free(jcs);
    uint8_t digest[32];
    crypto_sha256(msg, 65 + jcs_len, digest);
    free(msg);
    crypto_hex_encode(digest, 32, out_hex);
    return 0;
}
