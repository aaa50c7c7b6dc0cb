/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_sig.c — compat tests of preemption, signals, fork and
 * exec (suite "sig"). Each test runs an ordinary pthread program from
 * tests/progs/sig_* in a child process with a timeout: first under NPTL,
 * where it must pass, then with libgmp preloaded (never into this
 * runner), with the default processors and with GMPMAXPROCS=1 or 2 as
 * the test says, and compares output and exit status.
 *
 * The preemption programs spin in their own code without ever calling
 * the C library: under libgmp only asynchronous preemption lets the
 * other threads (and the main thread's sleep) run, so without it they
 * hang and the test fails at its timeout.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds one run may take (each program needs about 1 s under NPTL). */
#define RUN_TIMEOUT 30
#define TEST_TIMEOUT (4 * RUN_TIMEOUT + 10)

/* One run of prog with subcommand sub (see run_sub). */
static struct run run_sig(const char *prog, const char *sub, int procs, const char *extra)
{
	return run_sub(prog, sub, procs, extra, RUN_TIMEOUT);
}

static const char *procs_name(int procs)
{
	static char buf[64];
	if (procs < 0)
		return "under NPTL";
	if (!procs)
		return "under libgmp";
	snprintf(buf, sizeof buf, "under libgmp, GMPMAXPROCS=%d", procs);
	return buf;
}

/* The value of `key=` in a GMP_STATS line, or -1. */
static long stat_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	long v = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, key);
		if (p)
			v = atol(p + strlen(key));
	}
	fclose(f);
	return v;
}

/* out ends with the line "PASS <sub>". */
static bool ends_with_pass(const char *out, const char *sub)
{
	char pass[256];
	snprintf(pass, sizeof pass, "PASS %s\n", sub);
	size_t ol = strlen(out), pl = strlen(pass);
	return ol >= pl && strcmp(out + ol - pl, pass) == 0;
}

/*
 * prog sub ends with `code` (see run_code) under NPTL, and, when pass, its
 * last line is "PASS <sub>"; under libgmp, with each processor count in
 * procs (ended by -2), it prints the same and ends the same way, and its
 * stderr holds err_has and lacks err_lacks (either may be NULL).
 */
static void compare(const char *prog, const char *sub, const int *procs, int code, bool pass,
		    const char *err_has, const char *err_lacks)
{
	struct run nptl = run_sig(prog, sub, -1, NULL);
	bool ok = run_code(&nptl) == code && (!pass || ends_with_pass(nptl.out, sub));
	if (!ok)
		run_dump("under NPTL", &nptl);
	cr_assert(ok, "%s %s under NPTL: code %d, wanted %d%s", prog, sub, run_code(&nptl), code,
		  pass ? " and a PASS line" : "");
	for (int k = 0; procs[k] != -2; k++) {
		struct run gmp = run_sig(prog, sub, procs[k], NULL);
		const char *how = procs_name(procs[k]);
		bool same = strcmp(nptl.out, gmp.out) == 0;
		if (!same || run_code(&gmp) != code) {
			run_dump(how, &gmp);
			run_show_difference(nptl.out, gmp.out);
		}
		cr_assert_eq(run_code(&gmp), code, "%s %s %s: exit code %d%s", prog, sub, how,
			     run_code(&gmp), gmp.timed_out ? " (timed out)" : "");
		cr_assert(same, "%s %s: output %s differs from NPTL's", prog, sub, how);
		if (err_has)
			cr_assert(strstr(gmp.err, err_has), "%s %s %s: stderr lacks \"%s\": %s", prog,
				  sub, how, err_has, gmp.err);
		if (err_lacks)
			cr_assert(!strstr(gmp.err, err_lacks), "%s %s %s: stderr: %s", prog, sub, how,
				  gmp.err);
		run_free(&gmp);
	}
	run_free(&nptl);
}

/* prog sub passes under NPTL (exit 0, its last line "PASS <sub>"), and
 * under libgmp with each processor count in procs prints the same and
 * exits 0. */
static void same_as_nptl(const char *prog, const char *sub, const int *procs)
{
	compare(prog, sub, procs, 0, true, NULL, NULL);
}

#define PROCS(...) ((const int[]){__VA_ARGS__, -2})

/* ---- 1. preemption ----------------------------------------------------------------------- */

/* 8 threads spin for 1 s on 2 processors (and on the default): each does
 * at least a third of an equal share of the iterations. */
Test(sig, spinning_threads_share_the_processors, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_preempt", "fair", PROCS(2, 0));
}

/* Beside 2 spinning threads, on 1 processor (and on the default), a
 * thread's 10 ms sleeps come back less than 60 ms late (the time slice
 * is 10 ms). */
Test(sig, a_sleeper_wakes_beside_spinners, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_preempt", "wake", PROCS(1, 0));
}

/* Two threads that hand a turn to each other (semaphores, 1 ms of
 * spinning per turn) share one time slice, as in Go: a woken thread run
 * next inherits its waker's slice. On 1 processor the main thread, which
 * yielded once, runs again long before their 3 s are up. */
Test(sig, threads_that_wake_each_other_share_one_slice, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_preempt", "pingpong", PROCS(1, 2));
}

/* 3 threads loop in assembly on 1 processor, checking every general
 * register, xmm0-15, the carry flag and the red zone below the stack
 * pointer: preemption, which stops them many times a second, changes
 * none of it. The run must show preemptions (GMP_STATS). */
Test(sig, preemption_keeps_registers_and_red_zone, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_preempt", "regs", PROCS(0));
	char stats[] = "/tmp/gmp-sig-stats-XXXXXX", env[64];
	int fd = mkstemp(stats);
	cr_assert(fd >= 0);
	close(fd);
	snprintf(env, sizeof env, "GMP_STATS=%s", stats);
	struct run r = run_sig("sig_preempt", "regs", 1, env);
	long n = stat_value(stats, "preemptions=");
	unlink(stats);
	if (run_code(&r) != 0)
		run_dump("under libgmp, GMPMAXPROCS=1", &r);
	cr_assert_eq(run_code(&r), 0, "regs under libgmp, GMPMAXPROCS=1: exit code %d",
		     run_code(&r));
	cr_assert_str_eq(r.out, "PASS regs\n");
	cr_assert_gt(n, 10, "only %ld preemptions in 1 s of 3 spinning threads", n);
	run_free(&r);
}

/* A thread blocks in a system call libgmp cannot see (the syscall
 * instruction itself, on a pipe made the same way); sysmon finds its OS
 * thread blocked and gives the one processor to a spinning thread. When
 * the call returns, the first thread spins too, on an OS thread without a
 * processor: it must be preempted at its next safe point and give the OS
 * thread back, so that the two share one CPU, not two (the process's CPU
 * time over wall time, printed by the program, stays near 1; it is 2
 * when the thread keeps running). */
Test(sig, a_thread_without_a_processor_gives_its_os_thread_back, .timeout = TEST_TIMEOUT)
{
	struct run nptl = run_sig("sig_preempt", "unseen", -1, NULL);
	cr_assert_eq(run_code(&nptl), 0, "unseen under NPTL: code %d", run_code(&nptl));
	run_free(&nptl);
	char stats[] = "/tmp/gmp-sig-stats-XXXXXX", env[64];
	int fd = mkstemp(stats);
	cr_assert(fd >= 0);
	close(fd);
	snprintf(env, sizeof env, "GMP_STATS=%s", stats);
	struct run r = run_sig("sig_preempt", "unseen", 1, env);
	long blocked = stat_value(stats, "blocked=");
	unlink(stats);
	if (run_code(&r) != 0)
		run_dump("under libgmp, GMPMAXPROCS=1", &r);
	cr_assert_eq(run_code(&r), 0, "unseen under libgmp: code %d", run_code(&r));
	double cpus = -1;
	const char *p = strstr(r.out, "CPUs used while both spin: ");
	if (p)
		cpus = atof(p + strlen("CPUs used while both spin: "));
	cr_assert_geq(blocked, 1, "sysmon did not find the blocked OS thread");
	cr_assert(cpus >= 0 && cpus <= 1.5,
		  "with one processor the two spinning threads used %.1f CPUs", cpus);
	run_free(&r);
}

/* With GMPDEBUG=preempt=off nothing interrupts a spinning thread: on one
 * processor the sleeper never runs again and the program is killed at
 * the timeout. This shows the tests above depend on preemption. */
Test(sig, without_preemption_a_spinner_starves_the_rest, .timeout = TEST_TIMEOUT)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", prog_path("sig_preempt"));
	const char *argv[] = {path, "wake", NULL};
	const char *env[] = {"GMPMAXPROCS=1", "GMPDEBUG=preempt=off", NULL};
	struct run r = run_prog(argv, env, 3, true);
	cr_assert(r.timed_out, "the program ended (code %d) without preemption", run_code(&r));
	run_free(&r);
}

/* ---- 2. fork and exec --------------------------------------------------------------------- */

/* 100 threads wait in a condvar, a pipe read, sleeps and a mutex; three
 * pthread_atfork sets run in the documented order (prepare in reverse,
 * parent and child in order); the child of the main thread's fork has
 * one OS thread (/proc/self/task), creates and joins 50 threads of its
 * own and exits 0; the parent then ends its 100 threads. */
Test(sig, fork_from_a_100_thread_program, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_fork", "fork", PROCS(0, 1));
}

/* The same fork made by a thread; its child also forks a grandchild,
 * which does the same. */
Test(sig, fork_from_a_thread_and_again_in_the_child, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_fork", "thread", PROCS(0, 1));
}

/* 16 threads at once, 5 times each: popen, system with exit statuses,
 * vfork + exec + waitpid. */
Test(sig, popen_system_vfork_from_many_threads, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_fork", "spawn", PROCS(0, 1));
}

/* A thread calls execl while 9 others run: the process is replaced. */
Test(sig, exec_from_a_thread_replaces_the_process, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_fork", "exec", PROCS(0, 1));
}

/* ---- 3. credentials ---------------------------------------------------------------------- */

/* One thread of a 100-thread program running as root calls seteuid,
 * setegid, setregid, setgroups, setresgid and setresuid; after each,
 * Uid:, Gid: and Groups: in /proc/self/task/<tid>/status are the same
 * for every OS thread (under libgmp: Ms, sysmon). Then setuid(0) fails
 * with EPERM. Needs root; skipped otherwise. */
Test(sig, credentials_reach_every_os_thread, .timeout = TEST_TIMEOUT)
{
	if (geteuid() != 0)
		cr_skip_test("needs root");
	same_as_nptl("sig_cred", "cred", PROCS(0, 1));
}

/* ---- 4. crashes ------------------------------------------------------------------------- */

/* sig_crash what dies of signal sig under NPTL and under libgmp (both
 * processor counts) after printing "start"; libgmp's stderr holds
 * `note` (NULL: must not hold "overflowed"). */
static void dies_of(const char *what, int sig, const char *note)
{
	compare("sig_crash", what, PROCS(0, 1), -sig, false, note, note ? NULL : "overflowed");
}

/* A thread recursing without end hits its guard page: libgmp names it
 * and its stack bounds on stderr (from the M's alternate signal stack),
 * and the process dies of SIGSEGV as under NPTL. */
Test(sig, stack_overflow_is_reported_and_kills_with_sigsegv, .timeout = TEST_TIMEOUT)
{
	dies_of("overflow", SIGSEGV, ") overflowed its stack [0x");
}

/* A null write in a thread: SIGSEGV, and no overflow report. */
Test(sig, null_write_kills_with_sigsegv, .timeout = TEST_TIMEOUT)
{
	dies_of("segv", SIGSEGV, NULL);
}

/* abort() in a thread: SIGABRT. */
Test(sig, abort_in_a_thread_kills_with_sigabrt, .timeout = TEST_TIMEOUT)
{
	dies_of("abort", SIGABRT, NULL);
}

/* A program's own SIGSEGV handler catches a fault in a thread and
 * leaves it by siglongjmp; the process goes on. */
Test(sig, a_programs_sigsegv_handler_still_works, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_crash", "handler", PROCS(0, 1));
}

/* ---- 5. exit paths ------------------------------------------------------------------------ */

/* sig_exit mode ends with status code under NPTL and under libgmp (both
 * processor counts), with the same output. */
static void same_exit(const char *mode, int code)
{
	compare("sig_exit", mode, PROCS(0, 1), code, false, NULL, NULL);
}

/* exit(4) from a thread: its thread_local destructor, the atexit handler
 * and the static destructor run on it, main's thread_local does not. */
Test(sig, exit_from_a_thread, .timeout = TEST_TIMEOUT)
{
	same_exit("exit", 4);
}

/* main returns 5: main's thread_local, atexit and static destructors on
 * main. */
Test(sig, return_from_main, .timeout = TEST_TIMEOUT)
{
	same_exit("return", 5);
}

/* _exit(6) from a thread: nothing runs. */
Test(sig, _exit_from_a_thread, .timeout = TEST_TIMEOUT)
{
	same_exit("_exit", 6);
}

/* quick_exit(7) from a thread: only the at_quick_exit handler, on it. */
Test(sig, quick_exit_from_a_thread, .timeout = TEST_TIMEOUT)
{
	same_exit("quick_exit", 7);
}

/* ---- 6. signals and threads --------------------------------------------------------------- */

/* pthread_kill(SIGUSR1) to each of 6 threads (sleeping, in a condvar
 * wait, spinning in its own code): the handler runs on the target, as
 * pthread_self() inside it shows. */
Test(sig, pthread_kill_runs_the_handler_on_the_target, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "kill", PROCS(0, 1));
}

/* A thread waits for a mutex; the handler of a signal sent to it waits
 * 300 ms in wait4 made with syscall(), which libgmp does not see. The
 * processor goes to the other threads meanwhile (they poll the mutex),
 * and the thread goes back to its wait with a processor again: it gets
 * the mutex when main unlocks it. */
Test(sig, a_handler_that_blocks_while_its_thread_waits_for_a_mutex, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "handlerblock", PROCS(1, 2));
}

/* Every thread blocks SIGUSR1, one waits in sigwaitinfo, another sends
 * kill(getpid(), SIGUSR1) five times: all five are received, SI_USER. */
Test(sig, sigwait_receives_signals_sent_with_kill, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "sigwait", PROCS(0, 1));
}

/* A SIGINT handler in a 100-thread program where only the main thread
 * (parked in pthread_join) does not block SIGINT: it runs once, on the
 * main thread. */
Test(sig, sigint_handler_in_a_100_thread_program, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "sigint", PROCS(0, 1));
}

/* Masks are per thread: a thread blocking SIGUSR2 has it pending after
 * pthread_kill and after raise (sigpending), the main thread does not
 * see it, and unblocking runs the handler at once, on that thread. */
Test(sig, signal_masks_are_per_thread, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "mask", PROCS(0, 1));
}

/* raise while blocked, many times over in 4 threads: the signal is
 * pending when raise returns, and unblocking runs its handler before
 * pthread_sigmask returns. A record sysmon was routing at that moment
 * was missed by sigpending and by the unblock (its handler ran later,
 * merged with the next raise's). */
Test(sig, raised_while_blocked_is_pending_at_once, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "pendloop", PROCS(0, 1));
}

/* sigsuspend and pause end with EINTR after the handler of a signal sent
 * to the thread ran; sigsuspend restores the mask. */
Test(sig, sigsuspend_and_pause_end_with_eintr, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "suspend", PROCS(0, 1));
}

/* sigtimedwait for SIGUSR1 or SIGURG times out with EAGAIN beside three
 * spinning threads (which libgmp preempts with SIGURG: none of those
 * leaks to the program, nor shows as pending), then returns a raised
 * SIGUSR1 with glibc's si_code. */
Test(sig, sigtimedwait_and_no_leaked_sigurg, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "timedwait", PROCS(0, 1));
}

/* The main thread waits in waitpid (a system call libgmp hands off);
 * another thread sends the process SIGUSR1, whose handler has no
 * SA_RESTART: the handler runs on the main thread and waitpid fails with
 * EINTR, as under NPTL. */
Test(sig, a_signal_interrupts_waitpid, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "waitpid", PROCS(0, 1));
}

/* A vfork child runs on its parent's memory: its sigaction and
 * sigprocmask must not change the parent's handler, mask or pending
 * signal (a child that took the parent's pending SIGUSR1 would die). */
Test(sig, a_vfork_child_leaves_the_parents_signals_alone, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "vfork", PROCS(0, 1));
}

/* A program that never creates a thread (as coreutils' timeout) blocks
 * SIGCHLD and waits for it in sigsuspend: the signal must end the wait.
 * libgmp had no thread left to take a signal every running thread
 * blocks, and the program hung. */
Test(sig, sigsuspend_in_a_program_without_threads, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "lone", PROCS(0, 1));
}

/* A process signal that finds a thread inside libgmp waits for the
 * thread's next door, routed to it by the scheduler or sysmon; in a
 * process of one thread (a child made by fork) neither may run: a child
 * calling sigprocmask without end, with SIGTERM at its default action
 * (the trampoline has it: a thread of the parent blocks every signal),
 * lived on after SIGTERM, and so did Python's process-pool workers
 * waiting on a process-shared semaphore. */
Test(sig, sigterm_ends_a_child_of_one_thread, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_signals", "term", PROCS(0, 1));
}

/* ---- 7. one-shot handlers ------------------------------------------------------------------ */

/* Every way of installing a handler (sigaction with SA_RESETHAND, with
 * SA_RESETHAND | SA_NODEFER, a strict X/Open program's signal, which is
 * __sysv_signal, sysv_signal, bsd_signal, ssignal, sigset, __sigaction)
 * against every way a signal arrives (raise; pthread_kill to a thread
 * sleeping, in a condvar wait, waiting for a mutex, in read; kill to the
 * process; timer_create; setitimer): the handler runs once, on its
 * thread, with the action already SIG_DFL inside a one-shot handler, the
 * signal blocked inside unless SA_NODEFER, and the action after. libgmp
 * passed SA_RESETHAND to the kernel, which reset the action when it
 * delivered to libgmp's trampoline: the process died of the signal. */
Test(sig, one_shot_handlers_every_way_installed_and_delivered, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_oneshot", "ways", PROCS(0, 1));
}

/* A strict X/Open program: signal(SIGALRM, h), alarm(1), sleep(5): the
 * handler runs and sleep ends early; a second alarm during pause() ends
 * the process with SIGALRM. */
Test(sig, one_shot_alarm_handler_then_the_default_action, .timeout = TEST_TIMEOUT)
{
	compare("sig_oneshot", "alarm", PROCS(0, 1), -SIGALRM, false, NULL, NULL);
}

/* The one-shot handler raises its signal again: without SA_NODEFER it
 * waits until the handler returns, then ends the process; with it, the
 * process ends inside the handler. */
Test(sig, a_second_signal_in_a_one_shot_handler_takes_the_default_action, .timeout = TEST_TIMEOUT)
{
	compare("sig_oneshot", "second", PROCS(0, 1), -SIGUSR1, false, NULL, NULL);
	compare("sig_oneshot", "nodefer", PROCS(0, 1), -SIGUSR1, false, NULL, NULL);
}

/* ---- 8. jumps and unwinding ----------------------------------------------------------------- */

/* Threads end with pthread_exit while the main thread raises SIGUSR1:
 * every raise runs the handler before it returns. The unwinder blocks
 * every signal in the kernel around its lookups, and its lock may move
 * the thread to another OS thread in between: libgmp kept the first OS
 * thread's mask blocked while believing it was the thread's, and the
 * main thread, run there next, had its raise held until it blocked
 * again (in about half the rounds on 2 processors). */
Test(sig, raise_is_handled_while_threads_unwind, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_jump", "unwind", PROCS(0, 1, 2));
}

/* A handler left with siglongjmp to a sigsetjmp that saved the mask:
 * SIGUSR1 is unblocked again and the next raise runs the handler; one
 * that saved none keeps it blocked; a nested pair is left at once; a jump
 * inside a handler that then returns. libgmp did not see glibc's own
 * sigprocmask in siglongjmp: from the next switch on, the handler's mask
 * came back, and the next raise waited. */
Test(sig, siglongjmp_out_of_a_handler_puts_the_saved_mask_back, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_jump", "siglongjmp", PROCS(0, 1));
}

/* longjmp, _longjmp and __longjmp_chk out of a handler, to setjmp (no
 * saved mask): the handler's mask stays, as the kernel leaves it. */
Test(sig, longjmp_out_of_a_handler_keeps_its_mask, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_jump", "longjmp", PROCS(0, 1));
}

/* After a handler left with siglongjmp, the thread computes until
 * another has run: on one processor it must be preempted. A handler runs
 * with preemption off, and a jump out of it never turned it back on:
 * the other thread waited for ever (5 s here). */
Test(sig, a_thread_that_left_a_handler_by_a_jump_is_preempted, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_jump", "preempt", PROCS(0, 1));
}

/* swapcontext into a coroutine whose context blocks SIGUSR1, and back;
 * a handler left with setcontext. glibc sets a context's mask with its
 * own system call: libgmp's record of the thread's mask did not follow
 * (the coroutine found SIGUSR1 unblocked; the handler's mask stayed). */
Test(sig, setcontext_and_swapcontext_set_the_contexts_mask, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_jump", "context", PROCS(0, 1));
}

/* syscall(SYS_rt_sigprocmask): the change shows in sigprocmask and lasts
 * across switches, and the old set is 8 bytes. The kernel alone saw it
 * before: sigprocmask still said unblocked. */
Test(sig, a_raw_rt_sigprocmask_changes_the_threads_mask, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sig_jump", "raw", PROCS(0, 1));
}
