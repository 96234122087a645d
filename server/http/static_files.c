#include "server/http/static_files.h"

#include "server/core/embedded.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct static_files {
    static_file *files; /* sorted by path, for bsearch */
    size_t n, cap;
    char **owned; /* what the files point into when read from disk: paths and bytes */
    size_t nowned, owned_cap;
    size_t total_bytes;
};

/* By extension; anything else is served as bytes (and never sniffed: nosniff is sent). */
static const struct {
    const char *ext;
    const char *type;
} content_types[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
    {".md", "text/markdown; charset=utf-8"},
    {".map", "application/json; charset=utf-8"},
    {".webmanifest", "application/manifest+json"},
};

static const char *content_type_of(const char *path) {
    const char *dot = strrchr(path, '.');
    if (dot && !strchr(dot, '/'))
        for (size_t i = 0; i < sizeof content_types / sizeof content_types[0]; i++)
            if (strcmp(dot, content_types[i].ext) == 0) return content_types[i].type;
    return "application/octet-stream";
}

static void etag_of(const char *data, size_t len, char out[20]) {
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)data[i];
        h *= UINT64_C(1099511628211);
    }
    snprintf(out, 20, "\"%016llx\"", (unsigned long long)h);
}

static int keep_owned(static_files *sf, char *p) {
    if (sf->nowned == sf->owned_cap) {
        size_t cap = sf->owned_cap ? 2 * sf->owned_cap : 32;
        char **o = realloc(sf->owned, cap * sizeof *o);
        if (!o) return -1;
        sf->owned = o;
        sf->owned_cap = cap;
    }
    sf->owned[sf->nowned++] = p;
    return 0;
}

/* path and data are borrowed (built-in) or already kept in sf->owned. */
static int add_file(static_files *sf, const char *path, const char *data, size_t len) {
    if (sf->n == sf->cap) {
        size_t cap = sf->cap ? 2 * sf->cap : 32;
        static_file *f = realloc(sf->files, cap * sizeof *f);
        if (!f) return -1;
        sf->files = f;
        sf->cap = cap;
    }
    static_file *f = &sf->files[sf->n++];
    f->path = path;
    f->data = data;
    f->len = len;
    f->content_type = content_type_of(path);
    etag_of(data, len, f->etag);
    sf->total_bytes += len;
    return 0;
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const static_file *)a)->path, ((const static_file *)b)->path);
}

static static_files *finish(static_files *sf) {
    if (sf->n) qsort(sf->files, sf->n, sizeof *sf->files, by_path);
    return sf;
}

void static_files_free(static_files *sf) {
    if (!sf) return;
    for (size_t i = 0; i < sf->nowned; i++)
        free(sf->owned[i]);
    free(sf->owned);
    free(sf->files);
    free(sf);
}

static_files *static_files_builtin_new(void) {
    static_files *sf = calloc(1, sizeof *sf);
    if (!sf) return NULL;
    for (size_t i = 0; i < umpire_web_files_count; i++) {
        const embedded_file *e = &umpire_web_files[i];
        /* The URL path is "/" + name; the generated names are checked at build time. */
        size_t n = strlen(e->name);
        char *path = malloc(n + 2);
        if (!path || keep_owned(sf, path) != 0) {
            free(path);
            static_files_free(sf);
            return NULL;
        }
        path[0] = '/';
        memcpy(path + 1, e->name, n + 1);
        if (add_file(sf, path, e->data, e->len) != 0) {
            static_files_free(sf);
            return NULL;
        }
    }
    return finish(sf);
}

/* ---- reading a directory at start-up ------------------------------------------------------ */

typedef struct load_ctx {
    static_files *sf;
    char *err;
    size_t errlen;
} load_ctx;

static int fail(load_ctx *lc, const char *fmt, ...) {
    if (lc->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(lc->err, lc->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool name_ok(const char *name) {
    if (name[0] == '.' || name[0] == '\0') return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            return false;
    return true;
}

static int read_file(load_ctx *lc, const char *fs_path, const char *url_path, size_t size) {
    static_files *sf = lc->sf;
    if (sf->n >= STATIC_FILES_MAX)
        return fail(lc, "more than %d files under the web root", STATIC_FILES_MAX);
    if (size > STATIC_FILE_MAX_BYTES)
        return fail(lc, "%s is over %u bytes", fs_path, STATIC_FILE_MAX_BYTES);
    if (sf->total_bytes + size > STATIC_TOTAL_MAX_BYTES)
        return fail(lc, "the web root holds over %u bytes", STATIC_TOTAL_MAX_BYTES);
    char *path = strdup(url_path);
    char *data = malloc(size + 1);
    if (!path || !data || keep_owned(sf, path) != 0) {
        free(path);
        free(data);
        return fail(lc, "out of memory reading the web root");
    }
    if (keep_owned(sf, data) != 0) {
        free(data);
        return fail(lc, "out of memory reading the web root");
    }
    /* O_NOFOLLOW: a symbolic link swapped in since the lstat is refused, not followed. */
    int fd = open(fs_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return fail(lc, "cannot open %s: %s", fs_path, strerror(errno));
    }
    size_t got = fread(data, 1, size, f);
    /* A file that changed size while read would be served cut short: refuse it instead. */
    bool whole = got == size && fgetc(f) == EOF;
    fclose(f);
    if (!whole) return fail(lc, "%s changed while it was read", fs_path);
    data[size] = '\0';
    if (add_file(sf, path, data, size) != 0) return fail(lc, "out of memory reading the web root");
    return 0;
}

static int walk(load_ctx *lc, const char *fs_dir, const char *url_dir, int depth) {
    if (depth > STATIC_DEPTH_MAX)
        return fail(lc, "%s is nested more than %d directories deep", fs_dir, STATIC_DEPTH_MAX);
    DIR *d = opendir(fs_dir);
    if (!d) return fail(lc, "cannot read %s: %s", fs_dir, strerror(errno));
    int rc = 0;
    struct dirent *ent;
    while (rc == 0 && (ent = readdir(d)) != NULL) {
        if (!name_ok(ent->d_name)) continue;
        char fs_path[4096], url_path[1024];
        if (snprintf(fs_path, sizeof fs_path, "%s/%s", fs_dir, ent->d_name) >=
                (int)sizeof fs_path ||
            snprintf(url_path, sizeof url_path, "%s/%s", url_dir, ent->d_name) >=
                (int)sizeof url_path) {
            rc = fail(lc, "a path under %s is too long", fs_dir);
            break;
        }
        struct stat st;
        /* lstat: a symbolic link is skipped, so the root cannot reach outside itself. */
        if (lstat(fs_path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode))
            rc = walk(lc, fs_path, url_path, depth + 1);
        else if (S_ISREG(st.st_mode))
            rc = read_file(lc, fs_path, url_path, (size_t)st.st_size);
    }
    closedir(d);
    return rc;
}

static_files *static_files_load_new(const char *root, char *err, size_t errlen) {
    static_files *sf = calloc(1, sizeof *sf);
    if (!sf) {
        if (errlen) snprintf(err, errlen, "out of memory");
        return NULL;
    }
    load_ctx lc = {sf, err, errlen};
    if (walk(&lc, root, "", 0) != 0) {
        static_files_free(sf);
        return NULL;
    }
    return finish(sf);
}

const static_file *static_files_find(const static_files *sf, const char *path) {
    if (!sf || sf->n == 0) return NULL;
    static_file key = {.path = strcmp(path, "/") == 0 ? "/index.html" : path};
    return bsearch(&key, sf->files, sf->n, sizeof *sf->files, by_path);
}

size_t static_files_count(const static_files *sf) {
    return sf ? sf->n : 0;
}
