#include "server/store/checkpointer.h"

#include "server/core/log.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct checkpointer {
    store_conn *conn; /* the checkpointer thread's only */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    /* The writer's thread only (on_wal_commit): the WAL's size after the last commit, and
     * the WAL's generation (round), which starts again each time SQLite starts the WAL over. */
    int last_pages;
    uint64_t round;
    /* Guarded by mu. wanted: poked, not yet started; running: a checkpoint is under way;
     * poked_round: the round it was poked in; ran_round: the round of the last one that
     * finished (0 once the writer has finished that round off). */
    bool wanted, running, stopping;
    uint64_t poked_round, ran_round;
    uint64_t runs, finishes;
    int last_rc;
};

/* The writer's WAL hook, on the writer's thread right after each commit.
 *
 * A checkpoint running beside the writer never catches up with it: frames keep arriving while
 * it copies, so the WAL is never wholly copied and SQLite never starts it over (it only restarts
 * a WAL that a checkpoint copied to its end). So the work is split: the thread copies the bulk
 * (most of CHECKPOINT_WAL_PAGES pages and their fsync), then at its next commit the writer itself
 * copies the few frames committed meanwhile. Nothing is appended during that short checkpoint,
 * so it reaches the end, and the writer's next transaction starts the WAL over. */
static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int pages) {
    checkpointer *cp = arg;
    /* A smaller WAL than after the last commit: SQLite started it over, a new round. A round
     * whose bulk the thread copied must not be finished off in the next one: the writer would
     * copy a whole round itself, inside a commit. */
    if (pages < cp->last_pages) cp->round++;
    cp->last_pages = pages;
    if (pages < CHECKPOINT_WAL_PAGES) return SQLITE_OK;
    bool finish = false;
    pthread_mutex_lock(&cp->mu);
    if (!cp->wanted && !cp->running) {
        if (cp->ran_round == cp->round) {
            cp->ran_round = 0;
            cp->finishes++;
            finish = true;
        } else {
            cp->wanted = true;
            cp->poked_round = cp->round;
            pthread_cond_signal(&cp->cond);
        }
    }
    pthread_mutex_unlock(&cp->mu);
    /* The thread is idle, so this cannot meet it; a reader may still hold an old frame, in which
     * case the WAL goes on growing until a later round gets through (SQLite's behaviour too). */
    if (finish) sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

/* SQLite fsyncs the database file only at the end of a checkpoint that reached the WAL's end,
 * which the thread's rarely does: then the writer's short checkpoint would have to wait for the
 * disk to take all the pages the thread copied. So the thread syncs them itself. */
static int sync_database(sqlite3 *db) {
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file ||
        !file->pMethods)
        return SQLITE_ERROR;
    return file->pMethods->xSync(file, SQLITE_SYNC_NORMAL);
}

static void *checkpointer_thread(void *arg) {
    checkpointer *cp = arg;
    pthread_setname_np(pthread_self(), "umpire-ckpt");
    int reported = SQLITE_OK; /* log a failure once, and the recovery */
    for (;;) {
        pthread_mutex_lock(&cp->mu);
        while (!cp->wanted && !cp->stopping)
            pthread_cond_wait(&cp->cond, &cp->mu);
        bool stop = cp->stopping;
        uint64_t round = cp->poked_round;
        cp->wanted = false;
        cp->running = !stop;
        pthread_mutex_unlock(&cp->mu);
        if (stop) break;

        /* PASSIVE: copies what no reader still needs and never waits for a lock; what it
         * leaves is copied by the next one. A busy result is normal (a reader holds a frame). */
        int wal = 0, copied = 0;
        int rc = sqlite3_wal_checkpoint_v2(store_sqlite_handle(cp->conn), NULL,
                                           SQLITE_CHECKPOINT_PASSIVE, &wal, &copied);
        if ((rc == SQLITE_OK || rc == SQLITE_BUSY) && copied > 0) {
            int synced = sync_database(store_sqlite_handle(cp->conn));
            if (synced != SQLITE_OK) rc = synced;
        }
        bool failed = rc != SQLITE_OK && rc != SQLITE_BUSY;
        if (failed && reported == SQLITE_OK)
            log_msg(LOG_WARN, "WAL checkpoint failed (the WAL grows until one succeeds): %s",
                    sqlite3_errmsg(store_sqlite_handle(cp->conn)));
        else if (!failed && reported != SQLITE_OK)
            log_msg(LOG_INFO, "WAL checkpoint succeeded again (%d of %d pages copied)", copied,
                    wal);
        reported = failed ? rc : SQLITE_OK;

        pthread_mutex_lock(&cp->mu);
        cp->runs++;
        cp->last_rc = rc;
        cp->running = false;
        cp->ran_round = round;
        pthread_mutex_unlock(&cp->mu);
    }
    return NULL;
}

checkpointer *checkpointer_new(store_conn *conn_take) {
    checkpointer *cp = calloc(1, sizeof *cp);
    if (!cp) {
        store_conn_close(conn_take);
        return NULL;
    }
    cp->conn = conn_take;
    pthread_mutex_init(&cp->mu, NULL);
    pthread_cond_init(&cp->cond, NULL);
    if (pthread_create(&cp->thread, NULL, checkpointer_thread, cp) != 0) {
        pthread_mutex_destroy(&cp->mu);
        pthread_cond_destroy(&cp->cond);
        store_conn_close(conn_take);
        free(cp);
        return NULL;
    }
    return cp;
}

void checkpointer_watch(checkpointer *cp, sqlite3 *writer_db) {
    cp->round = 1; /* ran_round 0: no round copied yet */
    /* Replaces SQLite's automatic checkpoint, which is itself a WAL hook. */
    sqlite3_wal_hook(writer_db, on_wal_commit, cp);
}

void checkpointer_unwatch(sqlite3 *writer_db) {
    sqlite3_wal_hook(writer_db, NULL, NULL);
}

void checkpointer_stats(checkpointer *cp, uint64_t *runs, uint64_t *finishes, int *last_rc) {
    pthread_mutex_lock(&cp->mu);
    *runs = cp->runs;
    *finishes = cp->finishes;
    *last_rc = cp->last_rc;
    pthread_mutex_unlock(&cp->mu);
}

void checkpointer_free(checkpointer *cp) {
    if (!cp) return;
    pthread_mutex_lock(&cp->mu);
    cp->stopping = true;
    pthread_cond_signal(&cp->cond);
    pthread_mutex_unlock(&cp->mu);
    pthread_join(cp->thread, NULL);
    store_conn_close(cp->conn);
    pthread_mutex_destroy(&cp->mu);
    pthread_cond_destroy(&cp->cond);
    free(cp);
}
