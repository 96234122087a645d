/* The single writer. Every change to the database goes through one thread that owns the one
 * writer connection. Jobs queued while it was busy are applied together in one transaction
 * (group commit: one fsync for the batch); each job runs inside its own SAVEPOINT, so a job
 * that fails leaves no trace while its neighbours commit. A job's answer is handed back to the
 * loop thread only after COMMIT returned: a 2xx always means "durable". */
#ifndef UMPIRE_WRITER_H
#define UMPIRE_WRITER_H

#include "protocol/webhook_request.h"
#include "server/core/requests.h"
#include "server/dice/entropy.h"
#include "server/store/store.h"

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef enum {
    WRITE_CREATE_SESSION,
    WRITE_ACTION,
    WRITE_REVEAL,
    WRITE_WEBHOOKS,
    WRITE_ENTROPY,
    WRITE_TOKENS, /* the referee rotates a role's token or revokes a side's */
    WRITE_ORDERS  /* a side seals its orders for a step, or the referee closes the step */
} write_kind;

typedef struct write_job {
    write_kind kind;
    size_t queued_bytes; /* what it holds while queued: its request body's bytes (api_submit) */
    char session_id[33];
    char role[48];         /* "referee" or "side:<name>", authenticated on the loop thread */
    create_request create; /* WRITE_CREATE_SESSION */
    /* WRITE_ACTION; WRITE_ORDERS: type is the step, fields the orders (an array), and the
     * writer puts the reveal there when it resolves it */
    action_envelope action;
    bool orders_close;      /* WRITE_ORDERS: the referee closes the step */
    webhook_list *webhooks; /* WRITE_WEBHOOKS: owned (a pointer: 16 KiB is not for every job) */
    char entropy_seed[ENTROPY_SEED_MAX + 1]; /* WRITE_ENTROPY: the caller's contribution */
    bool has_expect_version;                 /* WRITE_ENTROPY (actions: in action) */
    int64_t expect_version;
    bool has_idempotency_key;
    char idempotency_key[IDEMPOTENCY_KEY_MAX + 1];
    uint8_t body_digest[32];
    /* WRITE_TOKENS: the role whose token changes, and how; token_digest is set by the writer to
     * the new token's digest (rotate), which the token cache may keep at once. */
    char token_role[48];
    bool token_revoke;
    uint8_t token_digest[32];

    /* Set by the writer: the answer. */
    int status;
    char *body; /* owned, malloc'd */
    size_t body_len;
    bool replayed;     /* an idempotent replay of a stored answer */
    bool untouched;    /* a 5xx answered before the job wrote anything: its batch may commit */
    int64_t version;   /* the session's version after the job (WRITE_WEBHOOKS: when the list was
                        * stored); 0 when it failed */
    store_fault fault; /* a statement of the job failed this way (store_last_fault) */

    /* Called on the loop thread once the answer is final (committed or failed). */
    void (*done)(struct write_job *job);
    void *user;  /* the HTTP request */
    void *owner; /* the API context */
    struct write_job *next;
} write_job;

write_job *write_job_new(write_kind kind);
void write_job_free(write_job *job);

typedef struct writer writer;

/* What one session may hold (config [limits]): a state's canonical JSON (413 state_too_large),
 * its events and the bytes of their data (422 session_full). Values <= 0: no bound. */
typedef struct writer_limits {
    int64_t max_state_bytes;
    int64_t max_events_per_session;
    int64_t max_session_bytes;
    /* Memory by bytes, not slots (config storage.*): the request bytes of the jobs waiting in
     * the queue (one more is refused: 503 overloaded, unless the queue is empty), and the states
     * the session cache keeps from one batch to the next. */
    int64_t queue_max_bytes;
    int64_t session_cache_max_bytes;
} writer_limits;

typedef struct checkpointer checkpointer;

/* Takes ownership of conn and of ckpt (server/store/checkpointer.h; NULL: SQLite's automatic
 * checkpoints, inside the commits). group_max: jobs per transaction at most; queue_max: queued jobs
 * at most. NULL on failure. */
writer *writer_new(uv_loop_t *loop, store_conn *conn_take, checkpointer *ckpt_take,
                   int64_t group_max, int64_t queue_max);
/* Sets the limits of every later job; call before the first writer_submit. */
void writer_set_limits(writer *w, const writer_limits *lim);
/* Whether the store takes writes, as the writer last saw it: STORE_FAULT_NONE, or the fault of a
 * failed commit or write (cleared by the next commit that succeeds), or of the probe run at
 * start and, while the store is read-only or failing, every WRITER_PROBE_MS. Any thread; no
 * database round trip (GET /v1/health reads it on every probe). */
store_fault writer_storage(writer *w);
#define WRITER_PROBE_MS 2000

/* Queues job (ownership passes to the writer until done is called). -1 when the queue is full or
 * the writer is stopping: the job is untouched and still the caller's. */
int writer_submit(writer *w, write_job *job);
/* Finishes every queued job, stops the thread, closes the connection and the async handle;
 * `closed` is called on the loop thread once everything is released. */
void writer_stop(writer *w, void (*closed)(void *arg), void *arg);
/* Transactions and jobs committed so far (for logs and tests). */
void writer_stats(writer *w, uint64_t *commits, uint64_t *jobs);

#endif
