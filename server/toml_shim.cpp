// C API over toml++; see server/toml_shim.h. Kept to the one job of turning a parsed document into
// a flat, line-ordered list of callbacks so that all policy stays in C.

// Header-only on purpose, even if a build passes pkg-config's -DTOML_HEADER_ONLY=0: Debian's
// libtomlplusplus.so is built with exceptions, and this file's no-exception configuration would
// need symbols the library does not have.
#undef TOML_HEADER_ONLY
#define TOML_HEADER_ONLY 1
#undef TOML_SHARED_LIB
// Parse failures come back as a toml::parse_result instead of an exception; only std::bad_alloc
// and the like can still be thrown, and those are caught below.
#define TOML_EXCEPTIONS 0
// Only the parser is used; skipping the formatters saves compile time.
#define TOML_ENABLE_FORMATTERS 0
// toml++ 3.3 checks some of its parser's expectations with assertions that the input can break
// (found by fuzz_config: a malformed date-time, a table header not starting with a key). As
// assert() they abort the daemon; under NDEBUG, TOML_ASSERT_ASSUME turns them into "assume",
// i.e. undefined behaviour. Here an assertion only records that the document broke the parser,
// and walk() refuses such a document. NDEBUG must stay undefined in this file so that
// TOML_ASSERT_ASSUME keeps meaning TOML_ASSERT.
#ifdef NDEBUG
#undef NDEBUG
#endif
static thread_local bool toml_expectation_broken;
#define TOML_ASSERT(expr)                                                                          \
    ((expr) ? static_cast<void>(0) : static_cast<void>(toml_expectation_broken = true))
// Debian's toml++ 3.3 installs <toml++/toml.h>; later releases name the header toml.hpp.
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

#include "server/toml_shim.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct entry {
    bool in_table;     // false: an entry of the root table
    std::string table; // the root-level table holding this entry (when in_table)
    std::string key;
    const toml::node *node;
    uint32_t line;
};

toml_shim_kind kind_of(const toml::node &n) {
    switch (n.type()) {
    case toml::node_type::table:
        return TOML_SHIM_TABLE;
    case toml::node_type::array:
        return TOML_SHIM_ARRAY;
    case toml::node_type::string:
        return TOML_SHIM_STRING;
    case toml::node_type::integer:
        return TOML_SHIM_INTEGER;
    case toml::node_type::floating_point:
        return TOML_SHIM_FLOAT;
    case toml::node_type::boolean:
        return TOML_SHIM_BOOLEAN;
    case toml::node_type::date:
        return TOML_SHIM_DATE;
    case toml::node_type::time:
        return TOML_SHIM_TIME;
    case toml::node_type::date_time:
        return TOML_SHIM_DATE_TIME;
    case toml::node_type::none:
        break;
    }
    // A parsed document holds no untyped nodes; any future kind is "some other type" to C.
    return TOML_SHIM_DATE_TIME;
}

// The key's own position is the best line to report: for a multi-line value it is where the
// entry starts, and for a [table] header it is the header line.
uint32_t line_of(const toml::key &k, const toml::node &v) {
    if (k.source().begin.line != 0) return k.source().begin.line;
    return v.source().begin.line;
}

void collect(const toml::table &t, const std::string *parent, std::vector<entry> &out) {
    for (auto &&[k, v] : t) {
        out.push_back(entry{parent != nullptr, parent ? *parent : std::string(),
                            std::string(k.str()), &v, line_of(k, v)});
        if (parent == nullptr && v.is_table()) {
            const std::string name(k.str());
            collect(*v.as_table(), &name, out);
        }
    }
}

void write_err(char *err, size_t errlen, const char *source, uint32_t line, std::string_view msg) {
    if (err == nullptr || errlen == 0) return;
    const int n = static_cast<int>(std::min<size_t>(msg.size(), 1024));
    if (line != 0)
        std::snprintf(err, errlen, "%s:%u: %.*s", source, static_cast<unsigned>(line), n,
                      msg.data());
    else
        std::snprintf(err, errlen, "%s: %.*s", source, n, msg.data());
}

int walk(const char *text, size_t len, const char *source, toml_shim_entry_fn fn, void *ctx,
         char *err, size_t errlen) {
    toml_expectation_broken = false;
    toml::parse_result result = toml::parse(std::string_view(text, len), std::string_view(source));
    if (toml_expectation_broken) {
        std::snprintf(err, errlen, "%s: not valid TOML (the parser gave up on it)", source);
        return -2;
    }
    if (!result) {
        const toml::parse_error &pe = result.error();
        write_err(err, errlen, source, pe.source().begin.line, pe.description());
        return -2;
    }

    // toml::table is an ordered map, so iteration is alphabetical. Reporting in file order makes
    // the first error the caller sees the first one in the file. stable_sort keeps each table
    // ahead of its own entries when they share a line (inline tables, dotted keys).
    std::vector<entry> entries;
    collect(result.table(), nullptr, entries);
    std::stable_sort(entries.begin(), entries.end(),
                     [](const entry &a, const entry &b) { return a.line < b.line; });

    for (const entry &e : entries) {
        toml_shim_value v{};
        v.kind = kind_of(*e.node);
        if (const auto *i = e.node->as_integer())
            v.integer = i->get();
        else if (const auto *b = e.node->as_boolean())
            v.boolean = b->get();
        else if (const auto *s = e.node->as_string()) {
            v.string = s->get().c_str();
            v.string_len = s->get().size();
        }
        if (fn(ctx, e.in_table ? e.table.c_str() : nullptr, e.key.c_str(), &v, e.line) != 0)
            return -1;
    }
    return 0;
}

} // namespace

extern "C" int toml_shim_walk(const char *text, size_t len, const char *source_name,
                              toml_shim_entry_fn fn, void *ctx, char *err, size_t errlen) {
    if (err != nullptr && errlen > 0) err[0] = '\0';
    const char *source = source_name != nullptr ? source_name : "<string>";
    if (text == nullptr || fn == nullptr) {
        write_err(err, errlen, source, 0, "no document or no callback given");
        return -2;
    }
    // Nothing may unwind into C: a throwing allocation ends the walk as an ordinary error.
    try {
        return walk(text, len, source, fn, ctx, err, errlen);
    } catch (const std::exception &ex) {
        // No std::string here: building one could throw again.
        if (err != nullptr && errlen > 0)
            std::snprintf(err, errlen, "%s: internal error: %s", source, ex.what());
    } catch (...) {
        write_err(err, errlen, source, 0, "internal error while reading TOML");
    }
    return -2;
}
