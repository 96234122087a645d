#include "protocol/webhook_request.h"

#include "protocol/json_in.h"

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

int webhook_list_decode(const json_t *body, webhook_list *out, api_error *err) {
    static const char *const top_keys[] = {"webhooks", NULL};
    static const char *const hook_keys[] = {"url", "format", NULL};
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
        memcpy(out->hooks[i].url, url, strlen(url) + 1);
        out->n = i + 1;
    }
    return 0;
}
