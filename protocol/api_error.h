/* The contract's error envelope: {"error": {"code", "message", "details"}} with its status. */
#ifndef UMPIRE_API_ERROR_H
#define UMPIRE_API_ERROR_H

#include <jansson.h>
#include <stddef.h>

typedef struct api_error {
    int status;        /* 0: no error */
    char code[40];     /* snake_case */
    char message[300]; /* one human sentence */
    json_t *details;   /* owned; NULL reads as {} */
} api_error;

/* Sets e (freeing any previous details); takes ownership of details_take (may be NULL). */
void api_error_set(api_error *e, int status, const char *code, json_t *details_take,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* 400 invalid_field with details {"field": path, "expected": expected}. */
void api_error_field(api_error *e, const char *path, const char *expected);
void api_error_clear(api_error *e);
/* The JSON body of e (malloc'd; caller frees). */
char *api_error_body_new(const api_error *e, size_t *len_out);

#endif
