/* Summary helpers: appending to a bounded line, DRM terms as text and JSON, rule errors. */
#include "rules/magic_realm/mr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void mr_say(char *buf, size_t cap, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
    /* A line cut short ends in "..." rather than in the middle of a word without notice. */
    if (n >= 0 && (size_t)n >= cap - len && cap >= 4) memcpy(buf + cap - 4, "...", 4);
}

void mr_terms_add(mr_terms *terms, const char *name, int value) {
    if (terms->n >= MR_TERMS_MAX) return;
    mr_term *t = &terms->t[terms->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->value = value;
    terms->total += value;
}

void mr_terms_text(const mr_terms *terms, char *out, size_t cap) {
    out[0] = '\0';
    if (terms->n == 0) {
        mr_say(out, cap, "none");
        return;
    }
    for (int i = 0; i < terms->n; i++)
        mr_say(out, cap, "%s%s %+d", i ? ", " : "", terms->t[i].name, terms->t[i].value);
}

json_t *mr_terms_json_new(const mr_terms *terms) {
    json_t *list = json_array();
    for (int i = 0; i < terms->n; i++)
        json_array_append_new(
            list, json_pack("{s:s, s:i}", "term", terms->t[i].name, "value", terms->t[i].value));
    return list;
}

const char *mr_unit_label(const mr_unit *u) {
    if (!u) return "the attacker";
    return u->id[0] ? u->id : "the target";
}

void mr_rule_error(api_error *err, const char *field, const char *fmt, ...) {
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    api_error_set(err, 422, "rules_violation", json_pack("{s:s}", "field", field ? field : ""),
                  "%s", msg);
}

int mr_finish(rules_outcome *out, api_error *err) {
    if (out->result && out->new_state) return 0;
    if (!err->status)
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
    return -1;
}
