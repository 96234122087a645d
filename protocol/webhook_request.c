#include "protocol/webhook_request.h"

#include "protocol/json_in.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *webhook_format_name(webhook_format f) {
    return f == WEBHOOK_EVENT ? "event" : "discord";
}

int webhook_format_parse(const char *name, webhook_format *out) {
    if (strcmp(name, "discord") == 0)
        *out = WEBHOOK_DISCORD;
    else if (strcmp(name, "event") == 0)
        *out = WEBHOOK_EVENT;
    else
        return -1;
    return 0;
}

/* An absolute http(s) URL of printable ASCII without spaces: the full parse (and the host
 * check) happens in the daemon's policy, but nothing that could split a request line or header
 * gets that far. */
static int url_shape_ok(const char *url) {
    size_t scheme = strncasecmp(url, "http://", 7) == 0    ? 7
                    : strncasecmp(url, "https://", 8) == 0 ? 8
                                                           : 0;
    /* "http:///x" has no host: libcurl would read "x" as one. */
    if (!scheme || url[scheme] == '/' || url[scheme] == '\0') return 0;
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f) return 0;
    return 1;
}

size_t webhook_cut_chars(const char *s, size_t max_chars) {
    size_t chars = 0, i = 0;
    for (; s[i]; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80 && ++chars > max_chars) break;
    return i;
}

static bool snowflake(const char *id) {
    size_t n = strlen(id);
    if (n < 17 || n > 20) return false;
    for (size_t i = 0; i < n; i++)
        if (id[i] < '0' || id[i] > '9') return false;
    return true;
}

int webhook_mentions_decode(const json_t *mentions, const char *path, char *out, size_t cap,
                            api_error *err) {
    out[0] = '\0';
    if (!json_is_object(mentions) || json_object_size(mentions) > WEBHOOK_MENTIONS_MAX) {
        api_error_field(err, path,
                        "an object of at most 8 sides, each {\"user\": \"<id>\"} or "
                        "{\"role\": \"<id>\"} (a Discord user or role id)");
        return -1;
    }
    const char *side;
    json_t *who;
    json_object_foreach((json_t *)mentions, side, who) {
        char field[JSON_IN_PATH_MAX];
        json_in_path(field, path, side);
        const char *kind =
            json_object_size(who) == 1 ? json_object_iter_key(json_object_iter(who)) : NULL;
        const char *id = kind ? json_string_value(json_object_get(who, kind)) : NULL;
        if (!side[0] || strlen(side) > WEBHOOK_MENTION_SIDE_MAX || !json_is_object(who) || !kind ||
            (strcmp(kind, "user") != 0 && strcmp(kind, "role") != 0) || !id || !snowflake(id)) {
            api_error_field(err, field,
                            "{\"user\": \"<id>\"} or {\"role\": \"<id>\"}: a Discord user or "
                            "role id of 17 to 20 digits, for a side of the session");
            return -1;
        }
    }
    if (json_object_size(mentions) == 0) return 0;
    char *text = json_dumps(mentions, JSON_COMPACT | JSON_SORT_KEYS);
    if (!text || strlen(text) >= cap) {
        free(text);
        api_error_field(err, path, "a shorter object");
        return -1;
    }
    memcpy(out, text, strlen(text) + 1);
    free(text);
    return 0;
}

int webhook_list_decode(const json_t *body, webhook_list *out, api_error *err) {
    static const char *const top_keys[] = {"webhooks", NULL};
    static const char *const hook_keys[] = {"url", "format", "mentions", NULL};
    memset(out, 0, sizeof *out);
    if (json_in_only_keys(body, "", top_keys, err) != 0) return -1;
    json_t *list = NULL;
    if (json_in_array(body, "", "webhooks", true, WEBHOOKS_MAX, &list) != 0) {
        json_in_take_error(err);
        return -1;
    }
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item) {
        char path[JSON_IN_PATH_MAX], field[JSON_IN_PATH_MAX];
        json_in_path_index(path, "webhooks", i);
        if (!json_is_object(item)) {
            api_error_field(err, path, "an object {\"url\", \"format\"}");
            return -1;
        }
        if (json_in_only_keys(item, path, hook_keys, err) != 0) return -1;
        const char *url = NULL, *format = "discord";
        if (json_in_string(item, path, "url", true, WEBHOOK_URL_MAX, &url) != 0 ||
            json_in_string(item, path, "format", false, 16, &format) != 0) {
            json_in_take_error(err);
            return -1;
        }
        if (!url_shape_ok(url)) {
            json_in_path(field, path, "url");
            api_error_field(err, field,
                            "an absolute http:// or https:// URL of printable ASCII, no spaces");
            return -1;
        }
        if (webhook_format_parse(format, &out->hooks[i].format) != 0) {
            json_in_path(field, path, "format");
            api_error_field(err, field, "one of discord, event");
            return -1;
        }
        const json_t *mentions = json_object_get(item, "mentions");
        if (mentions) {
            json_in_path(field, path, "mentions");
            if (out->hooks[i].format != WEBHOOK_DISCORD) {
                api_error_field(err, field, "only with format discord (absent for event)");
                return -1;
            }
            if (webhook_mentions_decode(mentions, field, out->hooks[i].mentions,
                                        sizeof out->hooks[i].mentions, err) != 0)
                return -1;
        }
        memcpy(out->hooks[i].url, url, strlen(url) + 1);
        out->n = i + 1;
    }
    return 0;
}
