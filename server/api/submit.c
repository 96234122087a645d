/* Writes: a route hands its job to the writer (server/store/writer.h) and the answer goes out
 * when the job is committed, telling live subscribers and webhooks of the new events. */
#include "server/api/api_internal.h"

#include "server/core/alloc_guard.h"

/* ---- writes: hand a job to the writer, answer when it is committed ----------------------- */

static void on_job_done(write_job *job) {
    http_request *req = job->user;
    api_ctx *ctx = job->owner;
    /* Subscribers learn of committed events only: the writer calls this after COMMIT. */
    if (job->status >= 200 && job->status < 300 && !job->replayed && job->session_id[0]) {
        live_publish(ctx->live, job->session_id);
        webhooks_publish(ctx->webhooks, job->session_id);
    }
    const char *headers = job->replayed ? "Idempotent-Replay: true\r\n" : NULL;
    http_respond_take(req, job->status, JSON_TYPE, headers, job->body, job->body_len);
    job->body = NULL;
    write_job_free(job);
}

void api_submit(api_ctx *ctx, http_request *req, write_job *job) {
    if (!job->done) job->done = on_job_done;
    job->user = req;
    job->owner = ctx;
    job->queued_bytes = req->body_len; /* what it holds while it waits (writer_limits) */
    if (alloc_guard_failed()) {
        write_job_free(job);
        respond_simple_error(
            req, 503, "out_of_memory",
            "the daemon ran out of memory reading the request; nothing was written");
        return;
    }
    if (writer_submit(ctx->writer, job) != 0) {
        write_job_free(job);
        respond_simple_error(req, 503, "overloaded",
                             "the daemon has too many writes queued; nothing was written, retry");
    }
}

write_job *api_session_job_new(http_request *req, write_kind kind, const char *session_id,
                               const char *role) {
    write_job *job = write_job_new(kind);
    if (!job) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return NULL;
    }
    api_copy_str(job->session_id, sizeof job->session_id, session_id);
    api_copy_str(job->role, sizeof job->role, role);
    return job;
}
