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

/* Appends the JCS form of the string s (quotes and minimal escaping) to buf at *pos. */
static int put_jcs_string(char **buf, size_t *pos, size_t *cap, const char *s) {
    json_t *str = json_string(s); /* refuses invalid UTF-8 */
    size_t len = 0;
    char *jcs = str ? jcs_dump_new(str, &len) : NULL;
    json_decref(str);
    if (!jcs) return -1;
    if (*pos + len > *cap) {
        size_t cap2 = (*pos + len) * 2;
        char *b = realloc(*buf, cap2);
        if (!b) {
            free(jcs);
            return -1;
        }
        *buf = b;
        *cap = cap2;
    }
    memcpy(*buf + *pos, jcs, len);
    *pos += len;
    free(jcs);
    return 0;
}

static int put_raw(char **buf, size_t *pos, size_t *cap, const char *s, size_t len) {
    if (*pos + len > *cap) {
        size_t cap2 = (*pos + len) * 2;
        char *b = realloc(*buf, cap2);
        if (!b) return -1;
        *buf = b;
        *cap = cap2;
    }
    memcpy(*buf + *pos, s, len);
    *pos += len;
    return 0;
}

int chain_event_hash_jcs(const char *prev_hex, int64_t seq, const char *ts, const char *actor,
                         const char *type, const char *data_jcs, size_t data_len,
                         char out_hex[65]) {
    if (!valid_prev(prev_hex) || !ts || !actor || !type || !data_jcs) return -1;
    /* prev + "\n" + JCS(event). RFC 8785 orders the members by key: actor, data, seq, ts, type;
     * so JCS(event) is these pieces in this order, with data's own JCS form in its place. */
    size_t cap = 160 + data_len + strlen(ts) + strlen(actor) + strlen(type), pos = 0;
    char *msg = malloc(cap), num[24];
    if (!msg) return -1;
    int n = snprintf(num, sizeof num, "%lld", (long long)seq);
    int bad =
        put_raw(&msg, &pos, &cap, prev_hex, 64) || put_raw(&msg, &pos, &cap, "\n", 1) ||
        put_raw(&msg, &pos, &cap, "{\"actor\":", 9) || put_jcs_string(&msg, &pos, &cap, actor) ||
        put_raw(&msg, &pos, &cap, ",\"data\":", 8) ||
        put_raw(&msg, &pos, &cap, data_jcs, data_len) ||
        put_raw(&msg, &pos, &cap, ",\"seq\":", 7) || put_raw(&msg, &pos, &cap, num, (size_t)n) ||
        put_raw(&msg, &pos, &cap, ",\"ts\":", 6) || put_jcs_string(&msg, &pos, &cap, ts) ||
        put_raw(&msg, &pos, &cap, ",\"type\":", 8) || put_jcs_string(&msg, &pos, &cap, type) ||
        put_raw(&msg, &pos, &cap, "}", 1);
    if (!bad) {
        uint8_t digest[32];
        crypto_sha256(msg, pos, digest);
        crypto_hex_encode(digest, 32, out_hex);
    }
    free(msg);
    return bad ? -1 : 0;
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
