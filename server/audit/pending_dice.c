#include "server/audit/pending_dice.h"

#include "server/core/crypto.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A die (sides >= 1), or where sides is 0 a change of the entropy in force: value 0 for none,
 * value 1 with the 32 bytes of its digest in the next two records. */
typedef struct record {
    int64_t seq;
    uint32_t sides, value;
} record;

#define BUFFER_RECORDS (PENDING_DICE_MEMORY / sizeof(record))

struct pending_dice {
    record *buf; /* the records not yet spilled */
    size_t nbuf, capbuf;
    FILE *spill;   /* the records before them, or NULL */
    bool no_spill; /* tmpfile failed once: grow buf instead */
    size_t count;  /* dice held */
    uint64_t first_nonce;
    char entropy[65]; /* the entropy in force for the last record written */
};

pending_dice *pending_dice_new(void) {
    pending_dice *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->capbuf = BUFFER_RECORDS;
    p->buf = malloc(p->capbuf * sizeof *p->buf);
    if (!p->buf) {
        free(p);
        return NULL;
    }
    return p;
}

void pending_dice_free(pending_dice *p) {
    if (!p) return;
    if (p->spill) fclose(p->spill);
    free(p->buf);
    free(p);
}

size_t pending_dice_count(const pending_dice *p) {
    return p->count;
}

/* Room for one more record in buf: spills the buffer when it is full. 0 or -1. */
static int make_room(pending_dice *p) {
    if (p->nbuf < p->capbuf) return 0;
    if (!p->spill && !p->no_spill) {
        p->spill = tmpfile();
        if (!p->spill) p->no_spill = true;
    }
    if (p->spill) {
        if (fwrite(p->buf, sizeof *p->buf, p->nbuf, p->spill) != p->nbuf) return -1;
        p->nbuf = 0;
        return 0;
    }
    size_t cap = p->capbuf * 2;
    record *b = realloc(p->buf, cap * sizeof *b);
    if (!b) return -1;
    p->buf = b;
    p->capbuf = cap;
    return 0;
}

static int put(pending_dice *p, record r) {
    if (make_room(p) != 0) return -1;
    p->buf[p->nbuf++] = r;
    return 0;
}

static int put_entropy(pending_dice *p, int64_t seq, const char *entropy) {
    uint8_t digest[32];
    bool some = entropy[0] != '\0';
    if (some && (strlen(entropy) != 64 || crypto_hex_decode(entropy, digest, 32) != 0)) return -1;
    if (put(p, (record){seq, 0, some}) != 0) return -1;
    for (int half = 0; some && half < 2; half++) {
        record r;
        memcpy(&r, digest + 16 * half, sizeof r);
        if (put(p, r) != 0) return -1;
    }
    snprintf(p->entropy, sizeof p->entropy, "%s", entropy);
    return 0;
}

int pending_dice_add(pending_dice *p, int64_t seq, uint64_t nonce, int sides, int value,
                     const char *entropy) {
    if (sides < 1 || value < 0) return -1;
    if (p->count && nonce != p->first_nonce + p->count) return -1;
    if (strcmp(entropy, p->entropy) != 0 && put_entropy(p, seq, entropy) != 0) return -1;
    if (put(p, (record){seq, (uint32_t)sides, (uint32_t)value}) != 0) return -1;
    if (p->count++ == 0) p->first_nonce = nonce;
    return 0;
}

/* Walks n records of recs; state: the entropy in force and the next die's index. */
typedef struct walk {
    char entropy[65];
    int digest_half; /* 1 or 2: that half of a digest comes next */
    uint8_t digest[32];
    size_t index;
} walk;

static int walk_records(pending_dice *p, walk *w, const record *recs, size_t n, pending_die_fn fn,
                        void *arg) {
    for (size_t i = 0; i < n; i++) {
        const record *r = &recs[i];
        if (w->digest_half) {
            memcpy(w->digest + 16 * (w->digest_half - 1), r, sizeof *r);
            if (w->digest_half++ == 2) {
                crypto_hex_encode(w->digest, 32, w->entropy);
                w->digest_half = 0;
            }
        } else if (r->sides == 0) {
            w->entropy[0] = '\0';
            w->digest_half = r->value ? 1 : 0;
        } else {
            int rc = fn(arg, r->seq, p->first_nonce + w->index++, (int)r->sides, (int)r->value,
                        w->entropy);
            if (rc) return rc;
        }
    }
    return 0;
}

static void clear(pending_dice *p) {
    if (p->spill) fclose(p->spill);
    p->spill = NULL;
    p->nbuf = 0;
    p->count = 0;
    p->entropy[0] = '\0';
}

int pending_dice_drain(pending_dice *p, pending_die_fn fn, void *arg) {
    walk w = {0};
    int rc = 0;
    if (p->spill) {
        /* The spilled records first, read back through a buffer of the same bound. */
        record *chunk = malloc(BUFFER_RECORDS * sizeof *chunk);
        rc = chunk && fflush(p->spill) == 0 && fseek(p->spill, 0, SEEK_SET) == 0 ? 0 : -1;
        while (rc == 0) {
            size_t n = fread(chunk, sizeof *chunk, BUFFER_RECORDS, p->spill);
            if (n == 0) {
                if (ferror(p->spill)) rc = -1;
                break;
            }
            rc = walk_records(p, &w, chunk, n, fn, arg);
        }
        free(chunk);
    }
    if (rc == 0) rc = walk_records(p, &w, p->buf, p->nbuf, fn, arg);
    clear(p);
    return rc;
}
