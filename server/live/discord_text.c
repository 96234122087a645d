#include "server/live/discord_text.h"

#include <string.h>

size_t discord_escape(const char *in, char *out, size_t cap) {
    static const char special[] = "\\*_~`|><#-[]()";
    size_t n = 0;
    if (cap == 0) return 0;
    for (const char *p = in; *p; p++) {
        /* "://" -> "\://": Discord links a URL only when its scheme is followed by "://". */
        int escape =
            (*p && strchr(special, *p) != NULL) || (*p == ':' && strncmp(p, "://", 3) == 0);
        size_t need = escape ? 2 : 1;
        if (n + need > cap - 1) break;
        if (escape) out[n++] = '\\';
        out[n++] = *p;
    }
    out[n] = '\0';
    return n;
}
