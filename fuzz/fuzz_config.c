/* fuzz_config: server/config.h config_load_string on the input (NUL-terminated copy).
 * Invariants: success => config_parse_listen(cfg.listen) succeeds and the string fields are
 * NUL-terminated; failure => the config is exactly the defaults (config_equal) and the error
 * is one non-empty NUL-terminated sentence. A tiny error buffer must truncate safely. */
#include "server/config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "fuzz_config: invariant failed: %s\n", #cond);   \
            abort();                                                         \
        }                                                                    \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    static umpire_config defaults;
    static int init;
    if (!init) {
        config_set_defaults(&defaults);
        init = 1;
    }
    umpire_config *cfg = malloc(sizeof *cfg);
    if (!cfg) {
        free(s);
        return 0;
    }
    config_set_defaults(cfg);
    char err[512];
    memset(err, 'x', sizeof err);
    int rc = config_load_string(cfg, s, "fuzz.toml", err, sizeof err);
    if (rc == 0) {
        CHECK(memchr(cfg->listen, '\0', sizeof cfg->listen) != NULL);
        CHECK(memchr(cfg->db, '\0', sizeof cfg->db) != NULL);
        CHECK(memchr(cfg->synchronous, '\0', sizeof cfg->synchronous) != NULL);
        CHECK(memchr(cfg->level, '\0', sizeof cfg->level) != NULL);
        char host[sizeof cfg->listen];
        int port = -1;
        if (config_parse_listen(cfg->listen, host, sizeof host, &port) != 0) {
            fprintf(stderr, "fuzz_config: loaded listen \"%s\" does not parse\n", cfg->listen);
            abort();
        }
        CHECK(port >= 0 && port <= 65535);
        CHECK(err[0] == '\0');
    } else {
        CHECK(rc == -1);
        CHECK(config_equal(cfg, &defaults));
        CHECK(memchr(err, '\0', sizeof err) != NULL);
        CHECK(err[0] != '\0');
        /* Same input, a 7-byte error buffer: truncated, still terminated, same outcome. */
        char small[8];
        memset(small, 'y', sizeof small);
        config_set_defaults(cfg);
        CHECK(config_load_string(cfg, s, "fuzz.toml", small, 7) == -1);
        CHECK(memchr(small, '\0', 7) != NULL && small[7] == 'y');
        CHECK(config_equal(cfg, &defaults));
    }
    /* config_parse_listen on the raw input too (validation only and with outputs). */
    if (size < 300) {
        char host[272];
        int port;
        if (config_parse_listen(s, host, sizeof host, &port) == 0) {
            CHECK(port >= 0 && port <= 65535);
            CHECK(memchr(host, '\0', sizeof host) != NULL);
        }
        (void)config_parse_listen(s, NULL, 0, NULL);
    }
    free(cfg);
    free(s);
    return 0;
}
