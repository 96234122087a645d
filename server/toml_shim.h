/* A small C API over toml++ (C++17, header-only). The shim parses a TOML document and hands every
 * entry of the root table and of the root's sub-tables to a C callback, in file order. It knows
 * nothing about Umpire's keys: deciding what is allowed is the caller's job (server/config.c).
 *
 * Link with -lstdc++ (the implementation is server/toml_shim.cpp). No C++ exception crosses this
 * interface: every failure comes back as a return value and a message. */
#ifndef UMPIRE_TOML_SHIM_H
#define UMPIRE_TOML_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TOML_SHIM_TABLE = 0, /* a [table], an inline table or an implicit (dotted-key) table */
    TOML_SHIM_ARRAY,     /* arrays, including arrays of tables [[x]] */
    TOML_SHIM_STRING,
    TOML_SHIM_INTEGER,
    TOML_SHIM_FLOAT,
    TOML_SHIM_BOOLEAN,
    TOML_SHIM_DATE,
    TOML_SHIM_TIME,
    TOML_SHIM_DATE_TIME
} toml_shim_kind;

typedef struct toml_shim_value {
    toml_shim_kind kind;
    int64_t integer; /* TOML_SHIM_INTEGER */
    bool boolean;    /* TOML_SHIM_BOOLEAN */
    /* TOML_SHIM_STRING: NUL-terminated UTF-8, valid only during the callback. string_len is the
     * decoded length; it is larger than strlen(string) when the value contains "\u0000". */
    const char *string;
    size_t string_len;
} toml_shim_value;

/* Called once per entry. `table` is NULL for an entry of the root table, else the name of the
 * root-level table the entry belongs to. Tables are reported themselves (kind TOML_SHIM_TABLE)
 * before their entries; only root-level tables are descended into, so a table two levels deep is
 * a single TOML_SHIM_TABLE entry. `line` is 1-based, 0 when toml++ does not know it.
 * Return 0 to go on, anything else to stop the walk. */
typedef int (*toml_shim_entry_fn)(void *ctx, const char *table, const char *key,
                                  const toml_shim_value *value, uint32_t line);

/* Parses `len` bytes of `text` and walks the result, ordered by line (entries on one line keep
 * document order, a table before its entries).
 * Returns 0 when the document parsed and every callback returned 0.
 * Returns -1 when a callback asked to stop; `err` is left alone (the callback reports).
 * Returns -2 on a TOML syntax error or an internal failure such as out of memory; `err` then holds
 * "SOURCE:LINE: toml++'s message" (or "SOURCE: message" without a line). `err` may be NULL when
 * `errlen` is 0. */
int toml_shim_walk(const char *text, size_t len, const char *source_name, toml_shim_entry_fn fn,
                   void *ctx, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
