/* server/api/work_pool: jobs run once and are done on the loop thread; the queue bound and the
 * per-client bound refuse at once; a job whose client has gone is cancelled, running or queued;
 * stopping cancels what is left and joins the threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/api/work_pool.h"

#define CHECK_MS 10

typedef struct test_job {
    work_job job; /* first */
    atomic_bool started, ran_to_end, saw_cancel;
    atomic_bool *gate;    /* when set, run() waits for *gate or for its cancel flag */
    atomic_bool *abandon; /* abandoned() answers *abandon */
    int done_calls;
    bool done_cancelled;
    uv_thread_t done_thread;
    int *done_total;
} test_job;

static void sleep_ms(int ms) {
    uv_sleep((unsigned)ms);
}

static void job_run(work_job *job) {
    test_job *t = (test_job *)job;
    atomic_store(&t->started, true);
    /* Waits at most 10 s: a test that hangs fails instead. */
    for (int i = 0; t->gate && !atomic_load(t->gate) && i < 10000; i++) {
        if (work_job_cancelled(job)) {
            atomic_store(&t->saw_cancel, true);
            return;
        }
        sleep_ms(1);
    }
    atomic_store(&t->ran_to_end, true);
}

static void job_done(work_job *job, bool cancelled) {
    test_job *t = (test_job *)job;
    t->done_calls++;
    t->done_cancelled = cancelled;
    t->done_thread = uv_thread_self();
    (*t->done_total)++;
}

static bool job_abandoned(work_job *job) {
    test_job *t = (test_job *)job;
    return t->abandon && atomic_load(t->abandon);
}

static void init_job(test_job *t, int *done_total, atomic_bool *gate, atomic_bool *abandon) {
    memset(t, 0, sizeof *t);
    t->job.run = job_run;
    t->job.done = job_done;
    t->job.abandoned = job_abandoned;
    t->gate = gate;
    t->abandon = abandon;
    t->done_total = done_total;
}

static void run_until(uv_loop_t *loop, const int *done_total, int want) {
    for (int i = 0; *done_total < want && i < 100000; i++)
        uv_run(loop, UV_RUN_ONCE);
    assert_int_equal(*done_total, want);
}

static void close_pool(uv_loop_t *loop, work_pool *p) {
    work_pool_stop(p);
    uv_run(loop, UV_RUN_DEFAULT);
    work_pool_free(p);
    assert_int_equal(uv_loop_close(loop), 0);
}

static void every_job_runs_once_and_is_done_on_the_loop_thread(void **state) {
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    work_pool *p = work_pool_new(&loop, "test", 3, 16, 64, CHECK_MS);
    assert_non_null(p);
    test_job jobs[10];
    int done = 0;
    uv_thread_t self = uv_thread_self();
    for (int i = 0; i < 10; i++) {
        init_job(&jobs[i], &done, NULL, NULL);
        char client[32];
        snprintf(client, sizeof client, "10.0.0.%d", i);
        assert_int_equal(work_pool_submit(p, &jobs[i].job, client), WORK_POOL_OK);
    }
    assert_int_equal(work_pool_pending(p), 10);
    run_until(&loop, &done, 10);
    for (int i = 0; i < 10; i++) {
        assert_true(atomic_load(&jobs[i].ran_to_end));
        assert_int_equal(jobs[i].done_calls, 1);
        assert_false(jobs[i].done_cancelled);
        assert_true(uv_thread_equal(&jobs[i].done_thread, &self));
    }
    assert_int_equal(work_pool_pending(p), 0);
    close_pool(&loop, p);
}

static void a_full_pool_refuses_at_once_and_takes_again_once_drained(void **state) {
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    /* one thread, two waiting: three jobs in all */
    work_pool *p = work_pool_new(&loop, "test", 1, 2, 64, CHECK_MS);
    atomic_bool gate = false;
    test_job jobs[4];
    int done = 0;
    for (int i = 0; i < 4; i++)
        init_job(&jobs[i], &done, &gate, NULL);
    assert_int_equal(work_pool_submit(p, &jobs[0].job, "a"), WORK_POOL_OK);
    assert_int_equal(work_pool_submit(p, &jobs[1].job, "b"), WORK_POOL_OK);
    assert_int_equal(work_pool_submit(p, &jobs[2].job, "c"), WORK_POOL_OK);
    assert_int_equal(work_pool_submit(p, &jobs[3].job, "d"), WORK_POOL_FULL);
    atomic_store(&gate, true);
    run_until(&loop, &done, 3);
    assert_int_equal(jobs[3].done_calls, 0); /* refused: never run, never done */
    assert_false(atomic_load(&jobs[3].started));
    init_job(&jobs[3], &done, &gate, NULL);
    assert_int_equal(work_pool_submit(p, &jobs[3].job, "d"), WORK_POOL_OK);
    run_until(&loop, &done, 4);
    close_pool(&loop, p);
}

static void one_client_gets_per_client_jobs_and_others_still_get_in(void **state) {
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    work_pool *p = work_pool_new(&loop, "test", 2, 16, 2, CHECK_MS);
    atomic_bool gate = false;
    test_job jobs[5];
    int done = 0;
    for (int i = 0; i < 5; i++)
        init_job(&jobs[i], &done, &gate, NULL);
    assert_int_equal(work_pool_submit(p, &jobs[0].job, "::1"), WORK_POOL_OK);
    assert_int_equal(work_pool_submit(p, &jobs[1].job, "::1"), WORK_POOL_OK);
    /* running or queued, both count */
    assert_int_equal(work_pool_submit(p, &jobs[2].job, "::1"), WORK_POOL_TOO_BUSY);
    assert_int_equal(work_pool_submit(p, &jobs[2].job, "10.1.1.1"), WORK_POOL_OK);
    atomic_store(&gate, true);
    run_until(&loop, &done, 3);
    /* the client's jobs are done: it may ask again */
    assert_int_equal(work_pool_submit(p, &jobs[3].job, "::1"), WORK_POOL_OK);
    assert_int_equal(work_pool_submit(p, &jobs[4].job, "::1"), WORK_POOL_OK);
    run_until(&loop, &done, 5);
    close_pool(&loop, p);
}

static void the_jobs_of_a_client_that_has_gone_are_cancelled(void **state) {
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    work_pool *p = work_pool_new(&loop, "test", 1, 4, 64, CHECK_MS);
    atomic_bool gate = false, gone = false, here = false;
    test_job running, queued, other;
    int done = 0;
    init_job(&running, &done, &gate, &gone);
    init_job(&queued, &done, &gate, &gone);
    init_job(&other, &done, NULL, &here);
    assert_int_equal(work_pool_submit(p, &running.job, "a"), WORK_POOL_OK);
    assert_int_equal(work_pool_submit(p, &queued.job, "a"), WORK_POOL_OK);
    assert_int_equal(work_pool_submit(p, &other.job, "b"), WORK_POOL_OK);
    for (int i = 0; !atomic_load(&running.started) && i < 10000; i++)
        sleep_ms(1);
    assert_true(atomic_load(&running.started));
    atomic_store(&gone, true); /* the gate stays shut: only the cancel flag ends the run */
    run_until(&loop, &done, 3);
    assert_true(atomic_load(&running.saw_cancel));
    assert_false(atomic_load(&running.ran_to_end));
    assert_true(running.done_cancelled);
    assert_false(atomic_load(&queued.started)); /* never ran */
    assert_true(queued.done_cancelled);
    assert_int_equal(queued.done_calls, 1);
    assert_true(atomic_load(&other.ran_to_end)); /* the client still there is answered */
    assert_false(other.done_cancelled);
    close_pool(&loop, p);
}

static void stopping_cancels_what_is_left_and_joins(void **state) {
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    work_pool *p = work_pool_new(&loop, "test", 1, 4, 64, CHECK_MS);
    atomic_bool gate = false;
    test_job jobs[3];
    int done = 0;
    for (int i = 0; i < 3; i++) {
        init_job(&jobs[i], &done, &gate, NULL);
        assert_int_equal(work_pool_submit(p, &jobs[i].job, "a"), WORK_POOL_OK);
    }
    for (int i = 0; !atomic_load(&jobs[0].started) && i < 10000; i++)
        sleep_ms(1);
    work_pool_stop(p); /* every done() comes from inside the call */
    assert_int_equal(done, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(jobs[i].done_calls, 1);
        assert_true(jobs[i].done_cancelled);
    }
    assert_true(atomic_load(&jobs[0].saw_cancel));
    assert_false(atomic_load(&jobs[1].started));
    test_job late;
    init_job(&late, &done, NULL, NULL);
    assert_int_equal(work_pool_submit(p, &late.job, "a"), WORK_POOL_FULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    work_pool_free(p);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_job_runs_once_and_is_done_on_the_loop_thread),
        cmocka_unit_test(a_full_pool_refuses_at_once_and_takes_again_once_drained),
        cmocka_unit_test(one_client_gets_per_client_jobs_and_others_still_get_in),
        cmocka_unit_test(the_jobs_of_a_client_that_has_gone_are_cancelled),
        cmocka_unit_test(stopping_cancels_what_is_left_and_joins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
