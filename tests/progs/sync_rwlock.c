/* SPDX-License-Identifier: MIT */
/* Reader/writer locks. One subcommand per run (argv[1]); without one, all:
 *   invariant  writers make two fields equal inside the write lock (one
 *              field, a yield, the other), readers check they are equal;
 *              rdlock/wrlock mixed with the try, timed and clock variants;
 *              exact counts of both. Default lock, writer-preferring lock
 *              made with pthread_rwlockattr_setkind_np and with
 *              PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP.
 *   prefer     who goes first while a writer waits: a reader holding the
 *              lock re-locks it. Reader-preferring kinds (the default and
 *              PREFER_WRITER_NP, which glibc treats the same): the re-lock
 *              and a new reader succeed at once, before the writer.
 *              PREFER_WRITER_NONRECURSIVE_NP: new readers get EBUSY from
 *              tryrdlock (the proof that the writer waits), the re-lock
 *              times out, and a reader that arrived after the writer sees
 *              the writer's value.
 *   errors     EBUSY, ETIMEDOUT (past and 20 ms deadlines, REALTIME and
 *              MONOTONIC), EDEADLK, EINVAL as glibc returns them.
 * Every line is the same under NPTL. */
#include "sync_util.h"

static pthread_rwlock_t rw;

/* ---- invariant -------------------------------------------------------------------------- */

#define NREADERS 24
#define NWRITERS 8
#define RW_ITERS 300
#define MAX_TRIES 1000000

static volatile long field_a, field_b;
static atomic_long reads, bad_reads;

/* Take rw for reading (write: for writing) in way number how. */
static void rw_take(bool write, int how)
{
	struct timespec ts;
	int e = 0, tries = 0;
	switch (how % 4) {
	case 0:
		e = write ? pthread_rwlock_wrlock(&rw) : pthread_rwlock_rdlock(&rw);
		break;
	case 1:
		while ((e = write ? pthread_rwlock_trywrlock(&rw) : pthread_rwlock_tryrdlock(&rw)) ==
		       EBUSY && ++tries < MAX_TRIES)
			sched_yield();
		break;
	case 2:
		ts = deadline_ms(CLOCK_REALTIME, 20000);
		e = write ? pthread_rwlock_timedwrlock(&rw, &ts) : pthread_rwlock_timedrdlock(&rw, &ts);
		break;
	default:
		do {
			ts = deadline_ms(CLOCK_MONOTONIC, 1);
			e = write ? pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts) :
				    pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts);
		} while (e == ETIMEDOUT && ++tries < MAX_TRIES);
		break;
	}
	CHECK(e == 0, "%s way %d: %s after %d tries", write ? "write" : "read", how % 4,
	      errname(e), tries);
}

static void *rw_worker(void *arg)
{
	long id = (long)arg;
	bool writer = id < NWRITERS;
	for (int i = 0; i < RW_ITERS; i++) {
		rw_take(writer, (int)(id + i));
		if (writer) {
			field_a = field_a + 1;
			if (i % 4 == 0)
				sched_yield();
			field_b = field_b + 1;
		} else {
			long a = field_a;
			if (i % 4 == 0)
				sched_yield();
			if (a != field_b || a != field_a)
				atomic_fetch_add(&bad_reads, 1);
			atomic_fetch_add(&reads, 1);
		}
		EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	}
	return NULL;
}

static void init_kind(int kind)
{
	pthread_rwlockattr_t a;
	int got = -1;
	EXPECT_ERR(0, pthread_rwlockattr_init(&a));
	EXPECT_ERR(0, pthread_rwlockattr_setkind_np(&a, kind));
	EXPECT_ERR(0, pthread_rwlockattr_getkind_np(&a, &got));
	CHECK(got == kind, "getkind %d, set %d", got, kind);
	EXPECT_ERR(0, pthread_rwlock_init(&rw, &a));
	EXPECT_ERR(0, pthread_rwlockattr_destroy(&a));
}

static const struct kind {
	const char *name;
	int kind;	/* -1: the static initializer of the writer-preferring kind */
} kinds[] = {
	{"default", PTHREAD_RWLOCK_DEFAULT_NP},
	{"PREFER_WRITER_NP", PTHREAD_RWLOCK_PREFER_WRITER_NP},
	{"PREFER_WRITER_NONRECURSIVE_NP", PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP},
	{"WRITER_NONRECURSIVE_INITIALIZER_NP", -1},
};

static void make_lock(const struct kind *k)
{
	static const pthread_rwlock_t wnr = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
	static const pthread_rwlock_t dflt = PTHREAD_RWLOCK_INITIALIZER;
	if (k->kind == -1)
		rw = wnr;
	else if (k->kind == PTHREAD_RWLOCK_DEFAULT_NP)
		rw = dflt;
	else
		init_kind(k->kind);
}

static void invariant(void)
{
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		make_lock(&kinds[k]);
		field_a = field_b = 0;
		atomic_store(&reads, 0);
		run_n(NREADERS + NWRITERS, rw_worker);
		CHECK(atomic_load(&bad_reads) == 0, "%ld readers saw unequal fields", bad_reads);
		CHECK(field_a == NWRITERS * RW_ITERS && field_b == field_a, "fields %ld %ld",
		      field_a, field_b);
		CHECK(atomic_load(&reads) == NREADERS * RW_ITERS, "reads %ld", reads);
		EXPECT_ERR(0, pthread_rwlock_destroy(&rw));
		SAY("%s rwlock: %d writers x %d = %ld writes, %d readers x %d = %ld reads, fields "
		    "always equal", kinds[k].name, NWRITERS, RW_ITERS, field_a, NREADERS, RW_ITERS,
		    atomic_load(&reads));
	}
}

/* ---- preference ---------------------------------------------------------------------- */

static atomic_int writer_started, writer_done, late_started;
static int written, late_saw = -1;

static void *writer(void *arg)
{
	atomic_store(&writer_started, 1);
	EXPECT_ERR(0, pthread_rwlock_wrlock(&rw));
	written = 1;
	atomic_store(&writer_done, 1);
	EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	return NULL;
}

static void *late_reader(void *arg)
{
	atomic_store(&late_started, 1);
	EXPECT_ERR(0, pthread_rwlock_rdlock(&rw));
	late_saw = written;
	EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	return NULL;
}

static int other_try;

static void *try_reader(void *arg)
{
	other_try = pthread_rwlock_tryrdlock(&rw);
	if (other_try == 0)
		EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	return NULL;
}

/* What another thread's tryrdlock says now. */
static int tryrdlock_elsewhere(void)
{
	pthread_t t;
	EXPECT_ERR(0, pthread_create(&t, NULL, try_reader, NULL));
	EXPECT_ERR(0, pthread_join(t, NULL));
	return other_try;
}

static void prefer_one(const struct kind *k)
{
	pthread_t w, l;
	bool wpref = k->kind == -1 || k->kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
	make_lock(k);
	written = 0;
	late_saw = -1;
	atomic_store(&writer_started, 0);
	atomic_store(&writer_done, 0);
	atomic_store(&late_started, 0);
	EXPECT_ERR(0, pthread_rwlock_rdlock(&rw));
	EXPECT_ERR(0, pthread_create(&w, NULL, writer, NULL));
	wait_flag(&writer_started);
	usleep(20000);
	if (wpref) {
		/* the writer provably waits once new readers are turned away */
		int e = 0;
		for (int i = 0; i < 5000 && (e = tryrdlock_elsewhere()) == 0; i++)
			usleep(1000);
		SAY("%s: writer waits; another thread's tryrdlock: %s", k->name, errname(e));
		struct timespec ts = deadline_ms(CLOCK_REALTIME, 20);
		SAY("%s: the reader's own re-lock (timedrdlock, 20 ms): %s", k->name,
		    errname(pthread_rwlock_timedrdlock(&rw, &ts)));
	} else {
		SAY("%s: writer waits; another thread's tryrdlock: %s", k->name,
		    errname(tryrdlock_elsewhere()));
		SAY("%s: the reader's own re-lock (rdlock): %s", k->name,
		    errname(pthread_rwlock_rdlock(&rw)));
		EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	}
	EXPECT_ERR(0, pthread_create(&l, NULL, late_reader, NULL));
	wait_flag(&late_started);
	usleep(20000);
	SAY("%s: writer done before the reader unlocks: %d", k->name, atomic_load(&writer_done));
	EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	EXPECT_ERR(0, pthread_join(w, NULL));
	EXPECT_ERR(0, pthread_join(l, NULL));
	SAY("%s: a reader that came after the writer saw %s", k->name,
	    late_saw ? "the writer's value" : "the old value (it went first)");
	EXPECT_ERR(0, pthread_rwlock_destroy(&rw));
}

static void prefer(void)
{
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		prefer_one(&kinds[k]);
}

/* ---- error codes ----------------------------------------------------------------------- */

static atomic_int held, release;
static bool hold_write;

static void *hold(void *arg)
{
	EXPECT_ERR(0, hold_write ? pthread_rwlock_wrlock(&rw) : pthread_rwlock_rdlock(&rw));
	atomic_store(&held, 1);
	wait_flag(&release);
	EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	return NULL;
}

/* Timed attempts at a lock another thread holds (write: for writing). */
static void timed_attempts(const char *held_as, bool write)
{
	static const struct {
		const char *name;
		int64_t ms;
	} when[] = {{"past", -1}, {"20 ms", 20}};
	const char *how = write ? "wr" : "rd";
	for (int i = 0; i < 2; i++) {
		struct timespec ts = when[i].ms < 0 ? past_ts() : deadline_ms(CLOCK_REALTIME, when[i].ms);
		SAY("held %s; timed%slock, %s: %s", held_as, how, when[i].name,
		    errname(write ? pthread_rwlock_timedwrlock(&rw, &ts) :
				    pthread_rwlock_timedrdlock(&rw, &ts)));
		ts = when[i].ms < 0 ? past_ts() : deadline_ms(CLOCK_MONOTONIC, when[i].ms);
		SAY("held %s; clock%slock MONOTONIC, %s: %s", held_as, how, when[i].name,
		    errname(write ? pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts) :
				    pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts)));
	}
}

/* The answers while another thread holds rw (for writing when write). */
static void while_held_elsewhere(bool write)
{
	pthread_t t;
	const char *as = write ? "for writing elsewhere" : "for reading elsewhere";
	hold_write = write;
	atomic_store(&held, 0);
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, hold, NULL));
	wait_flag(&held);
	int e = pthread_rwlock_tryrdlock(&rw);
	SAY("held %s; tryrdlock: %s", as, errname(e));
	if (e == 0)
		EXPECT_ERR(0, pthread_rwlock_unlock(&rw));
	SAY("held %s; trywrlock: %s", as, errname(pthread_rwlock_trywrlock(&rw)));
	timed_attempts(as, true);
	if (write)
		timed_attempts(as, false);
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
}

static void errors(void)
{
	struct timespec past = past_ts(), bad = bad_ns_ts(CLOCK_REALTIME);
	rw = (pthread_rwlock_t)PTHREAD_RWLOCK_INITIALIZER;
	while_held_elsewhere(true);
	while_held_elsewhere(false);

	EXPECT_ERR(0, pthread_rwlock_wrlock(&rw));
	SAY_ERR("holding the write lock; wrlock", pthread_rwlock_wrlock(&rw));
	SAY_ERR("holding the write lock; rdlock", pthread_rwlock_rdlock(&rw));
	SAY_ERR("holding the write lock; timedwrlock, past", pthread_rwlock_timedwrlock(&rw, &past));
	SAY_ERR("holding the write lock; timedrdlock, past", pthread_rwlock_timedrdlock(&rw, &past));
	SAY_ERR("holding the write lock; trywrlock", pthread_rwlock_trywrlock(&rw));
	SAY_ERR("holding the write lock; tryrdlock", pthread_rwlock_tryrdlock(&rw));
	SAY_ERR("holding the write lock; timedwrlock, tv_nsec 1e9",
		pthread_rwlock_timedwrlock(&rw, &bad));
	EXPECT_ERR(0, pthread_rwlock_unlock(&rw));

	EXPECT_ERR(0, pthread_rwlock_rdlock(&rw));
	SAY_ERR("holding a read lock; trywrlock", pthread_rwlock_trywrlock(&rw));
	SAY_ERR("holding a read lock; timedwrlock, past", pthread_rwlock_timedwrlock(&rw, &past));
	EXPECT_ERR(0, pthread_rwlock_unlock(&rw));

	SAY_ERR("free; timedrdlock, tv_nsec 1e9", pthread_rwlock_timedrdlock(&rw, &bad));
	SAY_ERR("free; timedwrlock, tv_nsec 1e9", pthread_rwlock_timedwrlock(&rw, &bad));
	SAY_ERR("free; clockrdlock CLOCK_PROCESS_CPUTIME_ID",
		pthread_rwlock_clockrdlock(&rw, CLOCK_PROCESS_CPUTIME_ID, &past));
	SAY_ERR("free; clockwrlock CLOCK_PROCESS_CPUTIME_ID",
		pthread_rwlock_clockwrlock(&rw, CLOCK_PROCESS_CPUTIME_ID, &past));

	EXPECT_ERR(0, pthread_rwlock_destroy(&rw));
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{"invariant", invariant, true}, {"prefer", prefer, true}, {"errors", errors, true},
		{NULL, NULL, false},
	};
	return run_subcommands("sync_rwlock", cmds, argc, argv);
}
