/* The campaign log of a session (GET /v1/sessions/{id}/log): its events rendered as jsonl
 * (lossless, what an offline verifier reads back), as a Markdown campaign diary, or as one
 * self-contained HTML page. The renderer is fed the events one by one, in seq order, and answers
 * each with a chunk of output, so a long log streams in pieces and is never held in memory whole;
 * between events it keeps only small state (whether the heading is out, the count, the head). */
#ifndef UMPIRE_CAMPAIGN_LOG_H
#define UMPIRE_CAMPAIGN_LOG_H

#include <stddef.h>

#include <jansson.h>

typedef enum { CAMPAIGN_LOG_JSONL, CAMPAIGN_LOG_MARKDOWN, CAMPAIGN_LOG_HTML } campaign_log_format;

/* 0 and the format for "jsonl" / "markdown" / "html" (exact, lowercase), else -1 (also for NULL).
 */
int campaign_log_format_parse(const char *name, campaign_log_format *out);

/* "application/x-ndjson; charset=utf-8", "text/markdown; charset=utf-8" or
 * "text/html; charset=utf-8". */
const char *campaign_log_content_type(campaign_log_format f);

typedef struct campaign_log campaign_log;

/* A renderer in format f for the session session_id (shown in the heading and in the verifying
 * hint; copied; may be NULL, then event 1's data.id is used). NULL on allocation failure. */
campaign_log *campaign_log_new(campaign_log_format f, const char *session_id);
void campaign_log_free(campaign_log *log);

/* Each returns a malloc'd NUL-terminated chunk the caller frees, its length in *len (if len is
 * non-NULL) — possibly empty "" — or NULL on allocation failure (or a NULL log).
 *
 * begin: before the first event (HTML: the document head up to the title; else empty).
 * event: one full event {seq, ts, actor, type, data, prev, hash}. jsonl writes it as one compact
 *   line, keys in that order (data with sorted keys; any other member follows, sorted, so
 *   nothing is lost). Markdown and HTML render the heading from event 1 (session_created), then
 *   one entry per event: actions (data has a "summary") with their dice and modifiers, dice seed
 *   reveals with how to check them, a short line for anything else. A NULL event renders nothing;
 *   an event of any odd shape renders what it can.
 * end: after the last event: the head hash, the number of events and how to verify the log. */
char *campaign_log_begin_new(campaign_log *log, size_t *len);
char *campaign_log_event_new(campaign_log *log, const json_t *event, size_t *len);
char *campaign_log_end_new(campaign_log *log, size_t *len);

#endif
