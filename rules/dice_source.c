#include "rules/dice_source.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct dice_record {
    char purpose[48];
    char notation[48];
    int first; /* index of its first value in dice_source.values */
    int count;
    int sides;
    int64_t value;  /* decisive value, set by dice_set_value; defaults to the sum */
    uint64_t nonce; /* nonce of its first die (seeded) */
} dice_record;

typedef enum { SOURCE_DRAWN, SOURCE_MANUAL, SOURCE_REPLAY, SOURCE_ENUM } source_kind;

struct dice_source {
    source_kind kind;
    bool manual; /* the records carry "manual": true and no nonce */
    /* drawn: face(drawer, nonce, sides); drawer is the caller's context, copied */
    dice_face_fn face;
    union {
        unsigned char bytes[DICE_DRAWER_CTX_MAX];
        max_align_t align_;
    } drawer;
    uint64_t next_nonce;
    /* manual */
    int64_t *supplied;
    size_t nsupplied;
    size_t consumed;
    bool bad_value;
    int nvalues; /* dice rolled so far: values[0..nvalues) are set */
    /* enumeration: the current combination; depth = dice used by the run so far */
    int enum_len;
    bool enum_inconsistent;
    dice_record *records;
    int nrecords, cap_records;
    /* What was rolled. Last, and never zeroed: an element is written before it is read (index
     * below nvalues or enum_len), and clearing these 16 KB was 6% of the writer's instructions
     * per action (valgrind --tool=callgrind). */
    int values[DICE_MAX_PER_ACTION];
    int sides[DICE_MAX_PER_ACTION];
    uint64_t nonces[DICE_MAX_PER_ACTION];
};

/* A source of this kind with every field before the dice arrays zeroed. */
static dice_source *source_new(source_kind kind) {
    dice_source *ds = malloc(sizeof *ds);
    if (!ds) return NULL;
    memset(ds, 0, offsetof(dice_source, values));
    ds->kind = kind;
    return ds;
}

dice_source *dice_source_new_drawn(dice_face_fn face, const void *ctx, size_t ctx_size,
                                   uint64_t next_nonce) {
    if (ctx_size > DICE_DRAWER_CTX_MAX) return NULL;
    dice_source *ds = source_new(SOURCE_DRAWN);
    if (!ds) return NULL;
    ds->face = face;
    if (ctx_size) memcpy(ds->drawer.bytes, ctx, ctx_size);
    ds->next_nonce = next_nonce;
    return ds;
}

void *dice_source_drawer_ctx(dice_source *ds) {
    return ds->drawer.bytes;
}

dice_source *dice_source_new_manual(const int64_t *values, size_t count) {
    return dice_source_new_replay(values, count, true, 0);
}

dice_source *dice_source_new_enum(void) {
    return source_new(SOURCE_ENUM);
}

dice_source *dice_source_new_replay(const int64_t *values, size_t count, bool manual,
                                    uint64_t first_nonce) {
    dice_source *ds = source_new(manual ? SOURCE_MANUAL : SOURCE_REPLAY);
    if (!ds) return NULL;
    ds->manual = manual;
    ds->next_nonce = first_nonce;
    if (count) {
        ds->supplied = malloc(count * sizeof *values);
        if (!ds->supplied) {
            free(ds);
            return NULL;
        }
        memcpy(ds->supplied, values, count * sizeof *values);
    }
    ds->nsupplied = count;
    return ds;
}

void dice_source_free(dice_source *ds) {
    if (!ds) return;
    free(ds->supplied);
    free(ds->records);
    free(ds);
}

/* Enumeration: the value at this depth of the current combination, extending it with 1. */
static int next_enum(dice_source *ds, int sides) {
    int depth = ds->nvalues;
    if (depth < ds->enum_len) {
        if (ds->sides[depth] != sides) ds->enum_inconsistent = true;
        return ds->values[depth];
    }
    ds->enum_len = depth + 1;
    ds->values[depth] = 1;
    ds->sides[depth] = sides;
    return 1;
}

static int next_manual(dice_source *ds, int sides) {
    if (ds->consumed >= ds->nsupplied) {
        ds->consumed++; /* counts what was needed beyond the supply */
        return 1;
    }
    int64_t v = ds->supplied[ds->consumed++];
    if (v < 1 || v > sides) {
        ds->bad_value = true;
        return 1;
    }
    return (int)v;
}

int dice_roll(dice_source *ds, const char *purpose, const char *notation, int count, int sides,
              int *values) {
    if (count < 1 || sides < 1 || sides > DICE_MAX_SIDES ||
        count > DICE_MAX_PER_ACTION - ds->nvalues)
        return -1;
    if (ds->nrecords == ds->cap_records) {
        int cap = ds->cap_records ? ds->cap_records * 2 : 8;
        dice_record *r = realloc(ds->records, (size_t)cap * sizeof *r);
        if (!r) return -1;
        ds->records = r;
        ds->cap_records = cap;
    }
    dice_record *rec = &ds->records[ds->nrecords++];
    memset(rec, 0, sizeof *rec);
    strncpy(rec->purpose, purpose, sizeof rec->purpose - 1);
    strncpy(rec->notation, notation, sizeof rec->notation - 1);
    rec->first = ds->nvalues;
    rec->count = count;
    rec->sides = sides;
    rec->nonce = ds->next_nonce;
    int64_t sum = 0;
    for (int i = 0; i < count; i++) {
        int v;
        switch (ds->kind) {
        case SOURCE_DRAWN:
            v = ds->face(ds->drawer.bytes, ds->next_nonce, sides);
            break;
        case SOURCE_ENUM:
            v = next_enum(ds, sides);
            break;
        default:
            v = next_manual(ds, sides);
        }
        values[i] = v;
        ds->nonces[ds->nvalues] = ds->manual || ds->kind == SOURCE_ENUM ? 0 : ds->next_nonce++;
        ds->sides[ds->nvalues] = sides;
        ds->values[ds->nvalues++] = v;
        sum += v;
    }
    rec->value = sum;
    return 0;
}

void dice_set_value(dice_source *ds, int64_t value) {
    if (ds->nrecords > 0) ds->records[ds->nrecords - 1].value = value;
}

json_t *dice_source_records_new(const dice_source *ds) {
    json_t *list = json_array();
    for (int r = 0; list && r < ds->nrecords; r++) {
        const dice_record *rec = &ds->records[r];
        json_t *vals = json_array();
        for (int i = 0; i < rec->count; i++)
            json_array_append_new(vals, json_integer(ds->values[rec->first + i]));
        json_t *e = json_pack("{s:s, s:s, s:o, s:I}", "purpose", rec->purpose, "notation",
                              rec->notation, "values", vals, "value", (json_int_t)rec->value);
        if (!e) {
            json_decref(list);
            return NULL;
        }
        if (ds->manual)
            json_object_set_new(e, "manual", json_true());
        else
            json_object_set_new(e, "nonce", json_integer((json_int_t)rec->nonce));
        json_array_append_new(list, e);
    }
    return list;
}

void dice_source_records_jcs(const dice_source *ds, jcs_out *out) {
    /* Members in RFC 8785 order: manual|nonce, notation, purpose, value, values. */
    jcs_out_lit(out, "[");
    for (int r = 0; r < ds->nrecords; r++) {
        const dice_record *rec = &ds->records[r];
        if (r) jcs_out_lit(out, ",");
        if (ds->manual) {
            jcs_out_lit(out, "{\"manual\":true");
        } else {
            jcs_out_lit(out, "{\"nonce\":");
            jcs_out_int(out, (int64_t)rec->nonce);
        }
        jcs_out_lit(out, ",\"notation\":");
        jcs_out_string(out, rec->notation, strlen(rec->notation));
        jcs_out_lit(out, ",\"purpose\":");
        jcs_out_string(out, rec->purpose, strlen(rec->purpose));
        jcs_out_lit(out, ",\"value\":");
        jcs_out_int(out, rec->value);
        jcs_out_lit(out, ",\"values\":[");
        for (int i = 0; i < rec->count; i++) {
            if (i) jcs_out_lit(out, ",");
            jcs_out_int(out, ds->values[rec->first + i]);
        }
        jcs_out_lit(out, "]}");
    }
    jcs_out_lit(out, "]");
}

uint64_t dice_source_next_nonce(const dice_source *ds) {
    return ds->next_nonce;
}

bool dice_source_unsatisfied(const dice_source *ds) {
    return (ds->kind == SOURCE_MANUAL || ds->kind == SOURCE_REPLAY) &&
           (ds->bad_value || ds->consumed != ds->nsupplied);
}

json_t *dice_source_needed_new(const dice_source *ds) {
    json_t *list = json_array();
    for (int r = 0; list && r < ds->nrecords; r++) {
        const dice_record *rec = &ds->records[r];
        json_array_append_new(list,
                              json_pack("{s:s, s:s, s:i, s:i}", "purpose", rec->purpose, "notation",
                                        rec->notation, "count", rec->count, "sides", rec->sides));
    }
    return list;
}

size_t dice_source_supplied(const dice_source *ds) {
    return ds->nsupplied;
}

size_t dice_source_die_count(const dice_source *ds) {
    return (size_t)ds->nvalues;
}

void dice_source_die(const dice_source *ds, size_t i, uint64_t *nonce, int *sides, int *value) {
    *nonce = ds->nonces[i];
    *sides = ds->sides[i];
    *value = ds->values[i];
}

double dice_source_enum_probability(const dice_source *ds) {
    double p = 1.0;
    for (int i = 0; i < ds->nvalues; i++)
        p /= ds->sides[i];
    return p;
}

int dice_source_enum_advance(dice_source *ds) {
    /* Odometer over the dice the last run used: bump the last die that can go up, drop the ones
     * after it (a different value may lead the handler to ask for different dice). */
    int len = ds->nvalues;
    ds->nrecords = 0;
    ds->nvalues = 0;
    while (len > 0 && ds->values[len - 1] == ds->sides[len - 1])
        len--;
    if (len == 0) {
        ds->enum_len = 0;
        return 0;
    }
    ds->values[len - 1]++;
    ds->enum_len = len;
    return 1;
}

bool dice_source_enum_inconsistent(const dice_source *ds) {
    return ds->enum_inconsistent;
}
