/* PUT /v1/sessions/{id}/webhooks: {"webhooks": [{"url": "https://...", "format": "discord",
 * "mentions"?: {"french": {"user": "80351110224678912"}, "british": {"role": "..."}}}]}
 * decoded into a typed list. Only the shape is judged here; whether a URL's host may be called
 * is the daemon's policy (server/live/webhook_policy.h). */
#ifndef UMPIRE_WEBHOOK_REQUEST_H
#define UMPIRE_WEBHOOK_REQUEST_H

#include "protocol/api_error.h"

#include <jansson.h>
#include <stddef.h>

#define WEBHOOKS_MAX    8    /* per session */
#define WEBHOOK_URL_MAX 2048 /* bytes */
/* A discord webhook's mentions: each side it maps to a Discord user or role id, mentioned when
 * it is that side's turn or a claim waits for it (server/live/webhooks.c). */
#define WEBHOOK_MENTIONS_MAX      8    /* sides per webhook */
#define WEBHOOK_MENTION_SIDE_MAX  64   /* bytes of a side's name */
#define WEBHOOK_MENTIONS_TEXT_MAX 1024 /* bytes of their canonical JSON text, NUL included */

typedef enum { WEBHOOK_DISCORD, WEBHOOK_EVENT } webhook_format;

typedef struct webhook_spec {
    char url[WEBHOOK_URL_MAX + 1];
    webhook_format format;
    /* {"<side>": {"user"|"role": "<id>"}} in canonical form (keys sorted, compact), or "" */
    char mentions[WEBHOOK_MENTIONS_TEXT_MAX];
} webhook_spec;

typedef struct webhook_list {
    size_t n;
    webhook_spec hooks[WEBHOOKS_MAX];
} webhook_list;

/* 0, or -1 with 400 invalid_field naming the field (`webhooks[1].url`). */
int webhook_list_decode(const json_t *body, webhook_list *out, api_error *err);

/* Checks and canonicalises a mentions object ({"<side>": {"user": "<id>"} or {"role": "<id>"},
 * at most WEBHOOK_MENTIONS_MAX sides, ids of 17 to 20 digits as Discord's are) into out ("" for
 * an empty object). 0, or -1 with a 400 invalid_field naming `path`. */
int webhook_mentions_decode(const json_t *mentions, const char *path, char *out, size_t cap,
                            api_error *err);

/* "discord" / "event". */
const char *webhook_format_name(webhook_format f);
/* 0 and *out, or -1 for any other name. */
int webhook_format_parse(const char *name, webhook_format *out);

/* The length in bytes of the longest prefix of the UTF-8 text s holding at most max_chars
 * characters (Discord counts characters; a cut never splits one). */
size_t webhook_cut_chars(const char *s, size_t max_chars);

#endif
