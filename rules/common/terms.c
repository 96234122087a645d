/* Summary lines and named modifiers (rules/common/terms.h). */
#include "rules/common/terms.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void say_v(char *buf, size_t cap, const char *fmt, va_list ap) {
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    int n = vsnprintf(buf + len, cap - len, fmt, ap);
    if (n >= 0 && (size_t)n >= cap - len && cap >= 4) memcpy(buf + cap - 4, "...", 4);
}

void rules_say(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say_v(buf, cap, fmt, ap);
    va_end(ap);
}

void rules_terms_add(rules_terms *terms, int value, const char *fmt, ...) {
    if (terms->n >= RULES_TERMS_MAX) return;
    rules_term *t = &terms->t[terms->n++];
    t->name[0] = '\0';
    va_list ap;
    va_start(ap, fmt);
    say_v(t->name, sizeof t->name, fmt, ap);
    va_end(ap);
    t->value = value;
    terms->total += value;
}

void rules_terms_text(const rules_terms *terms, char *out, size_t cap) {
    out[0] = '\0';
    if (terms->n == 0) {
        rules_say(out, cap, "no modifier");
        return;
    }
    for (int i = 0; i < terms->n; i++)
        rules_say(out, cap, "%s%+d %s", i ? ", " : "", terms->t[i].value, terms->t[i].name);
}

json_t *rules_terms_json_new(const rules_terms *terms) {
    json_t *list = json_array();
    for (int i = 0; i < terms->n; i++)
        json_array_append_new(
            list, json_pack("{s:s, s:i}", "name", terms->t[i].name, "value", terms->t[i].value));
    return list;
}
