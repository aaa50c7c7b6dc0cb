/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_proc.c — the fuzzer's generators for processes, credentials, scheduling, fork and wait families, and the rest
 * (tests/fuzz/fuzz.h).
 *
 * Children: each generator that forks reaps its child before it returns,
 * with one member of the wait family, blocking (the child has ended, is
 * stopped, or is held on a pipe until the parent lets it go), so what a
 * wait finds is known. A child _exits at once, or after one call whose
 * result it reports through its exit status. daemon() is called only in
 * a forked child; the daemon it makes tells the parent what it found
 * through a pipe, and _exits.
 *
 * Credentials are only set to the values they have (or -1 where it means
 * unchanged), or to an invalid id; scheduling only read, set back to what
 * it is, or given invalid arguments.
 *
 * pthread_cleanup_push/pop: this file is C without -fexceptions, so the
 * macros expand to __pthread_register_cancel and its kin, and a thread
 * that ends inside one unwinds through __pthread_unwind_next.
 *
 * No wait is made with __WNOTHREAD ("children of this thread only"):
 * under libgmp it goes by the OS thread the caller runs on, which need
 * not be the one that ran the fork (README, Limitations): a thread's own
 * child may not be found, and another thread's may.
 */
#include "fuzz.h"

#include <grp.h>
#include <linux/futex.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

extern pid_t __fork(void);
extern int __register_atfork(void (*)(void), void (*)(void), void (*)(void), void *);
extern void __cxa_finalize(void *);
extern int __cxa_atexit(void (*)(void *), void *, void *);

#define UNTOUCHED 0x7777	/* a status no wait writes */

/* --- describing what a wait found ------------------------------------------- */

static const char *stdesc(int st)
{
	static char b[48];
	if (st == UNTOUCHED)
		snprintf(b, sizeof b, "status=untouched");
	else if (WIFEXITED(st))
		snprintf(b, sizeof b, "exited=%d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(b, sizeof b, "signaled=%d%s", WTERMSIG(st), WCOREDUMP(st) ? "+core" : "");
	else if (WIFSTOPPED(st))
		snprintf(b, sizeof b, "stopped=%d", WSTOPSIG(st));
	else if (WIFCONTINUED(st))
		snprintf(b, sizeof b, "continued");
	else
		snprintf(b, sizeof b, "status=0x%x", st);
	return b;
}

static const char *sidesc(const siginfo_t *si, pid_t child)
{
	static char b[96];
	snprintf(b, sizeof b, "si.pid=%s si.signo=%d si.code=%d si.status=%d",
		 si->si_pid == 0 ? "0" : si->si_pid == child ? "child" : "other", si->si_signo,
		 si->si_code, si->si_status);
	return b;
}

static const char *pidcls(pid_t r, pid_t child)
{
	return r == child ? "child" : r == 0 ? "0" : r == -1 ? "-1" : "other";
}

/* Reap p silently, whatever happened before (no zombie left behind). */
/* A wait's return value as printed: 0 for the child, 999 for another. */
static long pr(long r, pid_t child)
{
	return r == child ? 0 : r > 0 ? 999 : r;
}

static void reap_quiet(pid_t p)
{
	int st;
	while (waitpid(p, &st, __WALL) == -1 && errno == EINTR)
		;
}

/* Blocking waits for a child that has ended or is ending: one member of
 * the wait family with an options class (how 0..4, o any). No
 * __WNOTHREAD (see the top of the file). */
static const int wopt[] = {0, WUNTRACED, WCONTINUED, __WALL, __WCLONE};
static const char *const wopt_name[] = {"0", "WUNTRACED", "WCONTINUED", "__WALL", "__WCLONE"};
#define NWOPT 5
static const int xopt[] = {WEXITED, WEXITED | WSTOPPED, WEXITED | WCONTINUED, WEXITED | __WALL,
			   WEXITED | WNOWAIT};
static const char *const xopt_name[] = {"WEXITED", "WEXITED|WSTOPPED", "WEXITED|WCONTINUED",
					"WEXITED|__WALL", "WEXITED|WNOWAIT"};
#define NXOPT 5

static void reap(pid_t p, int how, int o)
{
	int st = UNTOUCHED;
	struct rusage ru;
	char out[160];
	long r;
	memset(&ru, 0, sizeof ru);
	ru.ru_maxrss = -1;
	switch (how) {
	case 0:
		begin("wait(&st)");
		r = wait(&st);
		snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
		res_sys(pr(r, p), out);
		break;
	case 1:
		o %= NWOPT;
		begin("waitpid(child, &st, %s)", wopt_name[o]);
		r = waitpid(p, &st, wopt[o]);
		snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
		res_sys(pr(r, p), out);
		break;
	case 2:
		o %= NWOPT;
		if (wopt[o] == (int)__WCLONE)
			o = 0;	/* wait3 is for any child: __WCLONE would wait for ever */
		begin("wait3(&st, %s, &ru)", wopt_name[o]);
		r = wait3(&st, wopt[o], &ru);
		snprintf(out, sizeof out, "pid=%s %s ru.maxrss>0=%d", pidcls((pid_t)r, p), stdesc(st),
			 ru.ru_maxrss > 0);
		res_sys(pr(r, p), out);
		break;
	case 3:
		o %= NWOPT;
		begin("wait4(child, &st, %s, &ru)", wopt_name[o]);
		r = wait4(p, &st, wopt[o], &ru);
		snprintf(out, sizeof out, "pid=%s %s ru.maxrss>0=%d", pidcls((pid_t)r, p), stdesc(st),
			 ru.ru_maxrss > 0);
		res_sys(pr(r, p), out);
		break;
	default: {
		siginfo_t si;
		o %= NXOPT;
		memset(&si, 0, sizeof si);
		si.si_signo = -1;
		begin("waitid(P_PID, child, %s)", xopt_name[o]);
		r = waitid(P_PID, (id_t)p, &si, xopt[o]);
		res_sys(r, sidesc(&si, p));
		if (r == 0 && (xopt[o] & WNOWAIT)) {
			st = UNTOUCHED;
			begin("waitpid(child, &st, 0) after WNOWAIT");
			r = waitpid(p, &st, 0);
			snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
			res_sys(pr(r, p), out);
		}
		break;
	}
	}
	reap_quiet(p);
}

/* --- fork handlers (__register_atfork) and __cxa_finalize ------------------------ */

static char af_dso, af_none;	/* dso handles: one we register with, one with nothing */
static char af_log[64];		/* prepare and parent handlers, in the order they ran */
static int af_child;		/* in the child: child handlers, in order (base 4) */
static int af_nreg, af_mask[3];	/* registrations with af_dso, and their handlers */
static char ax_log[32];		/* __cxa_atexit functions run by __cxa_finalize */
static int ax_arg[3] = {0, 1, 2}, ax_n;

static void af_add(const char *s)
{
	size_t n = strlen(af_log);
	if (n + strlen(s) < sizeof af_log)
		strcpy(af_log + n, s);
}
static void af_p0(void) { af_add("p0"); }
static void af_p1(void) { af_add("p1"); }
static void af_p2(void) { af_add("p2"); }
static void af_a0(void) { af_add("a0"); }
static void af_a1(void) { af_add("a1"); }
static void af_a2(void) { af_add("a2"); }
static void af_c0(void) { af_child = af_child * 4 + 1; }
static void af_c1(void) { af_child = af_child * 4 + 2; }
static void af_c2(void) { af_child = af_child * 4 + 3; }
static void (*const af_prep[3])(void) = {af_p0, af_p1, af_p2};
static void (*const af_par[3])(void) = {af_a0, af_a1, af_a2};
static void (*const af_chi[3])(void) = {af_c0, af_c1, af_c2};

static void ax_fn(void *arg)
{
	size_t n = strlen(ax_log);
	if (n + 2 < sizeof ax_log) {
		ax_log[n] = 'x';
		ax_log[n + 1] = (char)('0' + *(int *)arg);
		ax_log[n + 2] = 0;
	}
}

static void g_register_atfork(void)
{
	int k = pick(5);
	if (k <= 1) {
		if (af_nreg >= 3)
			k = 3;
		else {
			int s = af_nreg, m = pick(8);
			begin("__register_atfork(slot%d, %s, %s, %s, dso)", s, m & 1 ? "prepare" : "NULL",
			      m & 2 ? "parent" : "NULL", m & 4 ? "child" : "NULL");
			int r = __register_atfork(m & 1 ? af_prep[s] : NULL, m & 2 ? af_par[s] : NULL,
						  m & 4 ? af_chi[s] : NULL, &af_dso);
			if (res_code(r, NULL) == 0)
				af_mask[af_nreg++] = m;
			return;
		}
	}
	if (k == 2) {
		if (ax_n >= 3)
			k = 3;
		else {
			/* not interposed; __cxa_finalize of the handle runs it */
			begin("__cxa_atexit(fn%d, dso)", ax_n);
			res_code(__cxa_atexit(ax_fn, &ax_arg[ax_n], &af_dso), NULL);
			ax_n++;
			return;
		}
	}
	char out[96];
	ax_log[0] = 0;
	if (k == 3) {
		begin("__cxa_finalize(dso: %d atfork, %d atexit)", af_nreg, ax_n);
		__cxa_finalize(&af_dso);
		af_nreg = 0;
		ax_n = 0;
	} else {
		begin("__cxa_finalize(dso with nothing)");
		__cxa_finalize(&af_none);
	}
	snprintf(out, sizeof out, "ran=\"%s\"", ax_log);
	printf("%ld %s = void%s %s\n", step, call, errno != SENTINEL ? " errno-changed" : "", out);
}

/* --- fork, __fork, forkpty ------------------------------------------------------- */

enum { CA_EXIT, CA_SIGNAL, CA_IDS, CA_THREAD, CA_SLEEP, CA_ATFORK, NCA };
static const char *const ca_name[] = {"_exit", "raise(SIGTERM)", "ids", "thread", "nanosleep",
				      "atfork"};
static pid_t fk_ppid;
static pthread_t fk_self;

static void *ch_thread(void *a)
{
	(void)a;
	return (void *)42;
}

/* What a forked child does: never returns. */
static _Noreturn void child_run(int act, int code)
{
	switch (act) {
	case CA_EXIT:
		_exit(code);
	case CA_SIGNAL:
		raise(SIGTERM);
		_exit(99);
	case CA_IDS: {
		int b = 0;
		b |= getpid() == (pid_t)syscall(SYS_getpid);
		b |= (gettid() == getpid()) << 1;
		b |= (pthread_equal(pthread_self(), fk_self) != 0) << 2;
		b |= (getppid() == fk_ppid) << 3;
		_exit(64 + b);
	}
	case CA_THREAD: {
		alarm(5);
		pthread_t t;
		void *v = NULL;
		int r = pthread_create(&t, NULL, ch_thread, NULL);
		if (r == 0)
			r = pthread_join(t, &v);
		_exit(r ? 30 : v == (void *)42 ? 31 : 32);
	}
	case CA_SLEEP: {
		alarm(5);
		struct timespec ts = {0, 1000000};
		_exit(nanosleep(&ts, NULL) == 0 ? 40 : 41);
	}
	default:
		_exit(100 + af_child);
	}
}

static void g_fork(void)
{
	static const int codes[] = {0, 1, 7, 255};
	int f = pick(3), act = pick(NCA), code = codes[pick(4)], how = pick(5), o = pick(NXOPT);
	int ws = pick(2);
	static const char *const fname[] = {"fork", "__fork", "forkpty"};
	struct winsize wsz = {.ws_row = 24, .ws_col = 80};
	int master = -1;
	fk_ppid = getpid();
	fk_self = pthread_self();
	af_log[0] = 0;
	af_child = 0;
	if (f == 2)
		begin("forkpty(&master, NULL, NULL, %s; child: %s %d)", ws ? "24x80" : "NULL",
		      ca_name[act], code);
	else
		begin("%s(child: %s %d)", fname[f], ca_name[act], code);
	pid_t p = f == 0 ? fork() : f == 1 ? __fork() : forkpty(&master, NULL, NULL, ws ? &wsz : NULL);
	if (p == 0)
		child_run(act, code);
	char out[128];
	int n = snprintf(out, sizeof out, "pid>0=%d atfork=\"%s\"", p > 0, af_log);
	if (f == 2 && p > 0) {
		struct winsize got = {0};
		int ir = ioctl(master, TIOCGWINSZ, &got);
		snprintf(out + n, sizeof out - (size_t)n, " master=%s winsize=%s%dx%d",
			 isatty(master) ? "tty" : "not-tty", ir ? "err:" : "", got.ws_row, got.ws_col);
	}
	res_sys(p < 0 ? -1 : 0, out);
	if (p > 0)
		reap(p, how, o);
	if (master >= 0)
		close(master);
}

/* A child held on a pipe until the parent lets it go: WNOHANG finds it
 * running; stopped and continued states on the way. */
static void g_wait_held(void)
{
	int pd[2];
	if (pipe2(pd, O_CLOEXEC) != 0)
		return;
	int stop = pick(2), q = pick(4), how = pick(5), o = pick(NXOPT);
	pid_t p = fork();
	if (p == 0) {
		alarm(5);
		close(pd[1]);
		if (stop)
			raise(SIGSTOP);
		char c;
		ssize_t r = read(pd[0], &c, 1);
		_exit(r == 0 ? 5 : r == 1 ? 6 : 7);
	}
	close(pd[0]);
	if (p < 0) {
		close(pd[1]);
		return;
	}
	int st = UNTOUCHED;
	char out[160];
	long r;
	struct rusage ru;
	siginfo_t si;
	if (stop) {
		/* blocking: the child stops at once */
		switch (q) {
		case 0:
			begin("waitpid(child:stopping, &st, WUNTRACED)");
			r = waitpid(p, &st, WUNTRACED);
			break;
		case 1:
			begin("wait4(child:stopping, &st, WSTOPPED|WNOHANG loop)");
			/* not blocking: ask until it has stopped, print the last */
			do
				r = wait4(p, &st, WUNTRACED | WNOHANG, &ru);
			while (r == 0 && (usleep(200), 1));
			break;
		case 2:
			begin("wait3(&st, WUNTRACED, NULL)");
			r = wait3(&st, WUNTRACED, NULL);
			break;
		default:
			memset(&si, 0, sizeof si);
			begin("waitid(P_PID, child:stopping, WSTOPPED)");
			r = waitid(P_PID, (id_t)p, &si, WSTOPPED);
			res_sys(r, sidesc(&si, p));
			goto stopped;
		}
		snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
		res_sys(pr(r, p), out);
stopped:
		/* stopped: not ended, and WNOHANG says so */
		st = UNTOUCHED;
		begin("waitpid(child:stopped, &st, WNOHANG)");
		r = waitpid(p, &st, WNOHANG);
		snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
		res_sys(pr(r, p), out);
		begin("kill(child:stopped, SIGCONT)");
		res_sys(kill(p, SIGCONT), NULL);
		st = UNTOUCHED;
		if (pick(2)) {
			begin("waitpid(child:continued, &st, WCONTINUED)");
			r = waitpid(p, &st, WCONTINUED);
			snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
			res_sys(pr(r, p), out);
		} else {
			memset(&si, 0, sizeof si);
			begin("waitid(P_PID, child:continued, WCONTINUED)");
			r = waitid(P_PID, (id_t)p, &si, WCONTINUED);
			res_sys(r, sidesc(&si, p));
		}
	} else {
		st = UNTOUCHED;
		memset(&ru, 0, sizeof ru);
		ru.ru_maxrss = -1;
		switch (q) {
		case 0:
			begin("waitpid(child:running, &st, WNOHANG)");
			r = waitpid(p, &st, WNOHANG);
			snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
			res_sys(pr(r, p), out);
			break;
		case 1:
			begin("wait4(child:running, &st, WNOHANG|WUNTRACED, &ru)");
			r = wait4(p, &st, WNOHANG | WUNTRACED, &ru);
			snprintf(out, sizeof out, "pid=%s %s ru=%s", pidcls((pid_t)r, p), stdesc(st),
				 ru.ru_maxrss == -1 ? "untouched" : "written");
			res_sys(pr(r, p), out);
			break;
		case 2:
			begin("wait3(&st, WNOHANG, &ru)");
			r = wait3(&st, WNOHANG, &ru);
			snprintf(out, sizeof out, "pid=%s %s ru=%s", pidcls((pid_t)r, p), stdesc(st),
				 ru.ru_maxrss == -1 ? "untouched" : "written");
			res_sys(pr(r, p), out);
			break;
		default:
			memset(&si, 0, sizeof si);
			si.si_pid = 12345;
			si.si_signo = -1;
			begin("waitid(P_PID, child:running, WEXITED|WNOHANG)");
			r = waitid(P_PID, (id_t)p, &si, WEXITED | WNOHANG);
			res_sys(r, si.si_pid == 12345 ? "si=untouched" : sidesc(&si, p));
			break;
		}
	}
	close(pd[1]);	/* let it go: it exits 5 */
	reap(p, how, o);
}

/* The wait family with no child to find, or with invalid arguments. */
static bool no_children(void)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	long r = syscall(SYS_waitid, P_ALL, 0, &si, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT,
			 NULL);
	return r == -1 && errno == ECHILD;
}

static void g_wait_err(void)
{
	int k = pick(16), st = UNTOUCHED;
	char out[128];
	long r;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = -1;
	switch (k) {
	case 0:
		if (!no_children())
			return;
		begin("wait(&st) no child");
		r = wait(&st);
		break;
	case 1:
		if (!no_children())
			return;
		begin("wait(NULL) no child");
		r = wait(NULL);
		break;
	case 2:
		if (!no_children())
			return;
		begin("waitpid(-1, &st, WNOHANG) no child");
		r = waitpid(-1, &st, WNOHANG);
		break;
	case 3:
		begin("waitpid(1, &st, 0) not a child");
		r = waitpid(1, &st, 0);
		break;
	case 4:
		begin("waitpid(INT_MAX, &st, 0)");
		r = waitpid(INT_MAX, &st, 0);
		break;
	case 5:
		begin("waitpid(INT_MIN, &st, 0)");
		r = waitpid(INT_MIN, &st, 0);
		break;
	case 6:
		begin("waitpid(-1, &st, 0x1000)");
		r = waitpid(-1, &st, 0x1000);
		break;
	case 7:
		begin("waitpid(-1, &st, -1)");
		r = waitpid(-1, &st, -1);
		break;
	case 8: {
		struct rusage ru;
		if (!no_children())
			return;
		begin("wait3(&st, WNOHANG, &ru) no child");
		r = wait3(&st, WNOHANG, &ru);
		break;
	}
	case 9: {
		struct rusage ru;
		begin("wait4(-1, &st, 0x1000, &ru)");
		r = wait4(-1, &st, 0x1000, &ru);
		break;
	}
	case 10:
		begin("waitid(99, 0, WEXITED)");
		r = waitid(99, 0, &si, WEXITED);
		break;
	case 11:
		begin("waitid(P_ALL, 0, 0)");
		r = waitid(P_ALL, 0, &si, 0);
		break;
	case 12:
		begin("waitid(P_PID, 0, WEXITED)");
		r = waitid(P_PID, 0, &si, WEXITED);
		break;
	case 13: {
		static const int fds[] = {900, -1, 1 << 20};
		int c = pick(3);
		begin("waitid(P_PIDFD, %s, WEXITED)", c == 0 ? "closed" : c == 1 ? "-1" : "huge");
		r = waitid(P_PIDFD, (id_t)fds[c], &si, WEXITED);
		break;
	}
	case 14:
		begin("waitid(P_PID, INT_MAX, WEXITED)");
		r = waitid(P_PID, INT_MAX, &si, WEXITED);
		break;
	default:
		begin("waitid(P_PGID, INT_MAX, WEXITED|WNOHANG)");
		r = waitid(P_PGID, INT_MAX, &si, WEXITED | WNOHANG);
		break;
	}
	if (k >= 10)
		snprintf(out, sizeof out, "si.signo=%d", si.si_signo);
	else
		snprintf(out, sizeof out, "%s", stdesc(st));
	res_sys(r, out);
}

/* waitid on a pidfd of a real child */
static void g_waitid_pidfd(void)
{
	int code = pick(3) * 3;
	pid_t p = fork();
	if (p == 0)
		_exit(code);
	if (p < 0)
		return;
	begin("syscall(SYS_pidfd_open, child, 0)");
	int fd = (int)syscall(SYS_pidfd_open, p, 0);
	res_sys(fd < 0 ? -1 : 0, NULL);
	if (fd < 0) {
		reap_quiet(p);
		return;
	}
	siginfo_t si;
	memset(&si, 0, sizeof si);
	begin("waitid(P_PIDFD, pidfd, WEXITED) exit %d", code);
	long r = waitid(P_PIDFD, (id_t)fd, &si, WEXITED);
	res_sys(r, sidesc(&si, p));
	close(fd);
	reap_quiet(p);
}

/* A child forked by another thread, which stays alive until the child is
 * reaped: this thread's wait finds it (waitid or waitpid), or the forking
 * thread reaps it itself. (Not with __WNOTHREAD: see the top of the
 * file.) */
static struct {
	sem_t forked, go;
	pid_t pid;
	int reap, st, r, e;
} ft;

static void *ft_thread(void *a)
{
	(void)a;
	ft.pid = fork();
	if (ft.pid == 0) {
		/* the forking thread is the child's only thread */
		_exit(gettid() == getpid() ? 21 : 22);
	}
	sem_post(&ft.forked);
	sem_wait(&ft.go);
	if (ft.reap && ft.pid > 0) {
		ft.st = UNTOUCHED;
		ft.r = waitpid(ft.pid, &ft.st, 0);
		ft.e = errno;
	}
	return NULL;
}

static void g_fork_thread(void)
{
	int q = pick(3);
	pthread_t t;
	memset(&ft, 0, sizeof ft);
	sem_init(&ft.forked, 0, 0);
	sem_init(&ft.go, 0, 0);
	if (pthread_create(&t, NULL, ft_thread, NULL) != 0)
		return;
	sem_wait(&ft.forked);
	pid_t p = ft.pid;
	int st = UNTOUCHED;
	char out[96];
	long r;
	if (p < 0) {
		sem_post(&ft.go);
		pthread_join(t, NULL);
		return;
	}
	switch (q) {
	case 0: {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		begin("waitid(P_PID, child of another thread, WEXITED)");
		res_sys(waitid(P_PID, (id_t)p, &si, WEXITED), sidesc(&si, p));
		break;
	}
	case 1:
		begin("waitpid(child of another thread, &st, 0)");
		r = waitpid(p, &st, 0);
		snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
		res_sys(pr(r, p), out);
		break;
	default:
		begin("the forking thread: waitpid(child, &st, 0)");
		ft.reap = 1;
		sem_post(&ft.go);
		pthread_join(t, NULL);
		snprintf(out, sizeof out, "pid=%s %s", pidcls(ft.r, p), stdesc(ft.st));
		errno = ft.e;	/* the forking thread's */
		res_sys(pr(ft.r, p), out);
		reap_quiet(p);
		goto done;
	}
	reap_quiet(p);
	sem_post(&ft.go);
	pthread_join(t, NULL);
done:
	sem_destroy(&ft.forked);
	sem_destroy(&ft.go);
}

/* SIGCHLD ignored (or SA_NOCLDWAIT): children are not left to wait for;
 * a blocking wait returns ECHILD once the child has gone, and system()
 * -1. Restored at once. */
static volatile sig_atomic_t chld_n;
static void chld_h(int s)
{
	(void)s;
	chld_n++;
}

static void g_sigchld_ign(void)
{
	int how = pick(2), q = pick(4);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	if (how == 0) {
		sa.sa_handler = SIG_IGN;
	} else {
		sa.sa_handler = chld_h;
		sa.sa_flags = SA_NOCLDWAIT | SA_RESTART;
	}
	begin("sigaction(SIGCHLD, %s)", how ? "handler+SA_NOCLDWAIT" : "IGN");
	if (res_sys(sigaction(SIGCHLD, &sa, &old), NULL) != 0)
		return;
	char out[96];
	long r;
	int st = UNTOUCHED;
	if (q == 3) {
		begin("system(\"exit 3\") with SIGCHLD %s", how ? "NOCLDWAIT" : "ignored");
		r = system("exit 3");
		res_sys(r == -1 ? -1 : 0, r == -1 ? NULL : stdesc((int)r));
	} else {
		pid_t p = fork();
		if (p == 0)
			_exit(3);
		if (p > 0) {
			if (q == 0) {
				begin("waitpid(child, &st, 0) with SIGCHLD %s", how ? "NOCLDWAIT" : "ignored");
				r = waitpid(p, &st, 0);
				snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
				res_sys(pr(r, p), out);
			} else if (q == 1) {
				siginfo_t si;
				memset(&si, 0, sizeof si);
				begin("waitid(P_PID, child, WEXITED) with SIGCHLD %s", how ? "NOCLDWAIT" : "ignored");
				r = waitid(P_PID, (id_t)p, &si, WEXITED);
				res_sys(r, sidesc(&si, p));
			} else {
				begin("wait(&st) with SIGCHLD %s", how ? "NOCLDWAIT" : "ignored");
				r = wait(&st);
				snprintf(out, sizeof out, "pid=%s %s", pidcls((pid_t)r, p), stdesc(st));
				res_sys(pr(r, p), out);
			}
			reap_quiet(p);
		}
	}
	sigaction(SIGCHLD, &old, NULL);
}

/* --- daemon and system ------------------------------------------------------------- */

static void g_daemon(void)
{
	int nochdir = pick(2), noclose = pick(2), how = pick(5), o = pick(NXOPT);
	int pd[2];
	if (pipe(pd) != 0)
		return;
	fk_ppid = getpid();
	pid_t p = fork();
	if (p == 0) {
		close(pd[0]);
		int r = daemon(nochdir, noclose);
		/* the daemon (the fork's parent has _exited 0) */
		unsigned char b = 0;
		char cwd[8];
		struct stat s0, sn;
		b |= r == 0;
		b |= (getsid(0) == getpid()) << 1;
		b |= (getcwd(cwd, sizeof cwd) && strcmp(cwd, "/") == 0) << 2;
		b |= (fstat(0, &s0) == 0 && stat("/dev/null", &sn) == 0 && s0.st_rdev == sn.st_rdev &&
		      S_ISCHR(s0.st_mode)) << 3;
		/* the daemon outlives the wait for its parent: it lets go of
		 * the descriptors it inherited before it reports, so that
		 * none stays open once the fuzzer goes on (a pipe the
		 * descriptor generators registered with an epoll instance
		 * and closed would stay in its interest list) */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != pd[1])
				close(fd);
		if (write(pd[1], &b, 1) != 1)
			_exit(2);
		_exit(r == 0 ? 0 : 1);
	}
	close(pd[1]);
	if (p < 0) {
		close(pd[0]);
		return;
	}
	printf("%ld daemon(nochdir=%d, noclose=%d) in a child:\n", step, nochdir, noclose);
	reap(p, how, o);
	struct pollfd pf = {.fd = pd[0], .events = POLLIN};
	unsigned char b = 0;
	int ok = 0;
	for (int i = 0; i < 50 && !ok; i++) {
		if (poll(&pf, 1, 100) == 1)
			ok = read(pd[0], &b, 1) == 1;
	}
	close(pd[0]);
	printf("%ld the daemon: %s daemon()=%s setsid=%d cwd=/=%d stdin=null=%d\n", step,
	       ok ? "wrote" : "silent", b & 1 ? "0" : "-1", !!(b & 2), !!(b & 4), !!(b & 8));
}

static void g_system(void)
{
	static const char *const cmd[] = {NULL, "exit 3", "true", "kill -TERM $$", "exit 300", ""};
	int k = pick(6);
	begin("system(%s%s%s)", cmd[k] ? "\"" : "", cmd[k] ? cmd[k] : "NULL", cmd[k] ? "\"" : "");
	int r = system(cmd[k]);
	char out[48];
	snprintf(out, sizeof out, "%s", r == -1 ? "" : cmd[k] ? stdesc(r) : r ? "shell" : "no shell");
	res_sys(r == -1 ? -1 : 0, out);
}

/* --- credentials --------------------------------------------------------------------- */

struct ids {
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int ng;
	gid_t g[64];
};

static void ids_get(struct ids *d)
{
	memset(d, 0, sizeof *d);
	getresuid(&d->ru, &d->eu, &d->su);
	getresgid(&d->rg, &d->eg, &d->sg);
	d->ng = getgroups(64, d->g);
}

static void g_cred(void)
{
	struct ids a, b;
	ids_get(&a);
	int k = pick(23);
	long r;
	switch (k) {
	case 0: begin("setuid(current)"); r = setuid(a.ru); break;
	case 1: begin("setuid(-1)"); r = setuid((uid_t)-1); break;
	case 2: begin("seteuid(current)"); r = seteuid(a.eu); break;
	case 3: begin("seteuid(-1)"); r = seteuid((uid_t)-1); break;
	case 4: begin("setgid(current)"); r = setgid(a.rg); break;
	case 5: begin("setgid(-1)"); r = setgid((gid_t)-1); break;
	case 6: begin("setegid(current)"); r = setegid(a.eg); break;
	case 7: begin("setegid(-1)"); r = setegid((gid_t)-1); break;
	case 8: begin("setreuid(-1, -1)"); r = setreuid((uid_t)-1, (uid_t)-1); break;
	case 9: begin("setreuid(current, current)"); r = setreuid(a.ru, a.eu); break;
	case 10: begin("setregid(-1, -1)"); r = setregid((gid_t)-1, (gid_t)-1); break;
	case 11: begin("setregid(current, current)"); r = setregid(a.rg, a.eg); break;
	case 12: begin("setresuid(-1, -1, -1)"); r = setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1); break;
	case 13: begin("setresuid(current x3)"); r = setresuid(a.ru, a.eu, a.su); break;
	case 14: begin("setresgid(-1, -1, -1)"); r = setresgid((gid_t)-1, (gid_t)-1, (gid_t)-1); break;
	case 15: begin("setresgid(current x3)"); r = setresgid(a.rg, a.eg, a.sg); break;
	case 16: begin("setresuid(current, -1, current)"); r = setresuid(a.ru, (uid_t)-1, a.su); break;
	case 17:
		begin("setgroups(current list)");
		r = a.ng >= 0 ? setgroups((size_t)a.ng, a.g) : -2;
		break;
	case 18: begin("setgroups(NGROUPS_MAX+1, list)"); r = setgroups(65537, a.g); break;
	case 19: begin("setgroups((size_t)-1, list)"); r = setgroups((size_t)-1, a.g); break;
	case 20: begin("setgroups(1, NULL)"); r = setgroups(1, NULL); break;
	case 21: begin("setresgid(current, -1, -1)"); r = setresgid(a.rg, (gid_t)-1, (gid_t)-1); break;
	default: begin("setregid(-1, current)"); r = setregid((gid_t)-1, a.eg); break;
	}
	ids_get(&b);
	res_sys(r, memcmp(&a, &b, sizeof a) == 0 ? "ids=same" : "ids=CHANGED");
}

/* --- scheduling ----------------------------------------------------------------------- */

/* pid classes: self (0), own pid, none, invalid */
static pid_t pid_of(int c, const char **name)
{
	switch (c) {
	case 0: *name = "0"; return 0;
	case 1: *name = "getpid()"; return getpid();
	case 2: *name = "INT_MAX"; return INT_MAX;
	default: *name = "-1"; return -1;
	}
}

static void g_sched(void)
{
	int k = pick(9), pc = pick(4);
	const char *pn;
	pid_t pid = pid_of(pc, &pn);
	char out[96];
	long r;
	switch (k) {
	case 0:
		begin("sched_getscheduler(%s)", pn);
		res_sys(sched_getscheduler(pid), NULL);
		break;
	case 1: {
		struct sched_param sp = {.sched_priority = -7};
		int nul = pick(4) == 0;
		begin("sched_getparam(%s, %s)", pn, nul ? "NULL" : "&p");
		r = sched_getparam(pid, nul ? NULL : &sp);
		snprintf(out, sizeof out, "prio=%d", sp.sched_priority);
		res_sys(r, out);
		break;
	}
	case 2: {
		static const int pr[] = {0, 1, -1};
		int c = pick(4);
		struct sched_param sp = {.sched_priority = pr[c % 3]};
		begin("sched_setparam(%s, %s)", pn, c == 3 ? "NULL" : c == 0 ? "0" : c == 1 ? "1" : "-1");
		res_sys(sched_setparam(pid, c == 3 ? NULL : &sp), NULL);
		break;
	}
	case 3: {
		static const int pol[] = {SCHED_OTHER, SCHED_OTHER, SCHED_FIFO, 77, -1, SCHED_RR};
		static const int pr[] = {0, 1, 0, 0, 0, 100};
		static const char *const nm[] = {"OTHER, 0", "OTHER, 1", "FIFO, 0", "77, 0", "-1, 0",
						 "RR, 100"};
		int c = pick(6);
		struct sched_param sp = {.sched_priority = pr[c]};
		begin("sched_setscheduler(%s, %s)", pn, nm[c]);
		res_sys(sched_setscheduler(pid, pol[c], &sp), NULL);
		break;
	}
	case 4: {
		/* reset-on-fork set and cleared again, on this thread */
		struct sched_param sp = {0};
		begin("sched_setscheduler(0, OTHER|RESET_ON_FORK, 0)");
		res_sys(sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp), NULL);
		begin("sched_getscheduler(0) reset-on-fork");
		res_sys(sched_getscheduler(0), NULL);
		begin("sched_setscheduler(0, OTHER, 0) clears it");
		res_sys(sched_setscheduler(0, SCHED_OTHER, &sp), NULL);
		break;
	}
	case 5: {
		static const size_t sz[] = {sizeof(cpu_set_t), 8, 4, 0};
		int c = pick(4);
		cpu_set_t cs;
		CPU_ZERO(&cs);
		begin("sched_getaffinity(%s, %zu)", pn, sz[c]);
		r = sched_getaffinity(pid, sz[c], &cs);
		snprintf(out, sizeof out, "cpus=%d", CPU_COUNT(&cs));
		res_sys(r, out);
		break;
	}
	case 6: {
		static const size_t sz[] = {sizeof(cpu_set_t), 8, 0};
		int c = pick(3), m = pick(3);
		cpu_set_t cs;
		CPU_ZERO(&cs);
		if (m == 0)
			sched_getaffinity(0, sizeof cs, &cs);
		if (m == 2)
			CPU_SET(1000, &cs);
		if (m == 0 && pc == 1)
			sched_getaffinity(getpid(), sizeof cs, &cs);
		begin("sched_setaffinity(%s, %zu, %s)", pn, sz[c],
		      m == 0 ? "current" : m == 1 ? "empty" : "{1000}");
		res_sys(sched_setaffinity(pid, sz[c], &cs), NULL);
		break;
	}
	case 7: {
		static const int which[] = {PRIO_PROCESS, PRIO_PGRP, 99};
		int w = pick(3);
		begin("getpriority(%d, %s)", which[w], pn);
		res_sys(getpriority(which[w], (id_t)pid), NULL);
		break;
	}
	default: {
		int w = pick(3);
		errno = 0;
		int cur = getpriority(PRIO_PROCESS, 0);
		if (w == 0 && pc >= 2)
			w = 1;
		if (w == 0) {
			begin("setpriority(PRIO_PROCESS, %s, current)", pn);
			res_sys(setpriority(PRIO_PROCESS, (id_t)pid, cur), NULL);
		} else if (w == 1) {
			begin("setpriority(PRIO_PROCESS, INT_MAX, current)");
			res_sys(setpriority(PRIO_PROCESS, INT_MAX, cur), NULL);
		} else {
			begin("setpriority(99, 0, current)");
			res_sys(setpriority(99, 0, cur), NULL);
		}
		break;
	}
	}
}

/* --- prctl, syscall, sleep ---------------------------------------------------------- */

static void g_prctl(void)
{
	int k = pick(12);
	char name[32], out[96];
	long r;
	int v = -7;
	memset(name, 0, sizeof name);
	switch (k) {
	case 0:
		begin("prctl(PR_GET_NAME)");
		r = prctl(PR_GET_NAME, name);
		snprintf(out, sizeof out, "name=\"%s\"", name);
		res_sys(r, out);
		break;
	case 1:
	case 2: {
		char old[32] = "";
		static const char *const nm[] = {"fzp", "0123456789abcdefghij"};
		prctl(PR_GET_NAME, old);
		begin("prctl(PR_SET_NAME, %zu chars)", strlen(nm[k - 1]));
		res_sys(prctl(PR_SET_NAME, nm[k - 1]), NULL);
		begin("prctl(PR_GET_NAME) after set");
		r = prctl(PR_GET_NAME, name);
		snprintf(out, sizeof out, "name=\"%s\"", name);
		res_sys(r, out);
		char tn[32] = "";
		begin("pthread_getname_np(self) after PR_SET_NAME");
		int gr = pthread_getname_np(pthread_self(), tn, sizeof tn);
		snprintf(out, sizeof out, "name=\"%s\"", gr ? "" : tn);
		res_code(gr, out);
		begin("prctl(PR_SET_NAME, old)");
		res_sys(prctl(PR_SET_NAME, old), NULL);
		break;
	}
	case 3:
		begin("prctl(PR_GET_DUMPABLE)");
		res_sys(prctl(PR_GET_DUMPABLE), NULL);
		break;
	case 4: {
		int cur = prctl(PR_GET_DUMPABLE);
		begin("prctl(PR_SET_DUMPABLE, current)");
		res_sys(prctl(PR_SET_DUMPABLE, cur), NULL);
		break;
	}
	case 5:
		begin("prctl(PR_SET_DUMPABLE, 5)");
		res_sys(prctl(PR_SET_DUMPABLE, 5), NULL);
		break;
	case 6:
		begin("prctl(PR_GET_PDEATHSIG)");
		r = prctl(PR_GET_PDEATHSIG, &v);
		snprintf(out, sizeof out, "sig=%d", v);
		res_sys(r, out);
		break;
	case 7:
		begin("prctl(9999)");
		res_sys(prctl(9999, 0, 0, 0, 0), NULL);
		break;
	case 8:
		begin("prctl(PR_GET_NO_NEW_PRIVS)");
		res_sys(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), NULL);
		break;
	case 9:
		begin("prctl(PR_GET_CHILD_SUBREAPER)");
		r = prctl(PR_GET_CHILD_SUBREAPER, &v);
		snprintf(out, sizeof out, "v=%d", v);
		res_sys(r, out);
		break;
	case 10: {
		static const int cap[] = {5, 9999};
		int c = pick(2);
		begin("prctl(PR_CAPBSET_READ, %d)", cap[c]);
		res_sys(prctl(PR_CAPBSET_READ, cap[c], 0, 0, 0), NULL);
		break;
	}
	default:
		begin("prctl(PR_GET_TIMERSLACK)");
		res_sys(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), NULL);
		break;
	}
}

static void g_syscall(void)
{
	static int word;
	int k = pick(14);
	long r;
	switch (k) {
	case 0:
		begin("syscall(SYS_getpid)");
		r = syscall(SYS_getpid);
		res_sys(r == getpid() ? 0 : 999, "== getpid()");
		break;
	case 1:
		begin("syscall(SYS_gettid)");
		r = syscall(SYS_gettid);
		res_sys(r == gettid() ? 0 : 999, r == getpid() ? "== gettid() == getpid()" : "== gettid()");
		break;
	case 2:
		begin("syscall(SYS_getppid)");
		r = syscall(SYS_getppid);
		res_sys(r == getppid() ? 0 : 999, "== getppid()");
		break;
	case 3:
		begin("syscall(99999)");
		res_sys(syscall(99999), NULL);
		break;
	case 4:
		begin("syscall(-1)");
		res_sys(syscall(-1), NULL);
		break;
	case 5:
		begin("syscall(SYS_futex, &w, FUTEX_WAKE_PRIVATE, 1)");
		res_sys(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), NULL);
		break;
	case 6:
		begin("syscall(SYS_futex, &w, FUTEX_WAIT_PRIVATE, w+1)");
		res_sys(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, word + 1, NULL, NULL, 0), NULL);
		break;
	case 7: {
		struct timespec t = {0, 1000000};
		begin("syscall(SYS_futex, &w, FUTEX_WAIT_PRIVATE, w, 1ms)");
		res_sys(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, word, &t, NULL, 0), NULL);
		break;
	}
	case 8: {
		struct timespec t = {0, -1};
		begin("syscall(SYS_futex, &w, FUTEX_WAIT_PRIVATE, w, nsec=-1)");
		res_sys(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, word, &t, NULL, 0), NULL);
		break;
	}
	case 9:
		begin("syscall(SYS_futex, &w, 99)");
		res_sys(syscall(SYS_futex, &word, 99, 0, NULL, NULL, 0), NULL);
		break;
	case 10:
		begin("syscall(SYS_sched_yield)");
		res_sys(syscall(SYS_sched_yield), NULL);
		break;
	case 11: {
		struct timespec t = {0, 1000};
		begin("syscall(SYS_nanosleep, 1us)");
		res_sys(syscall(SYS_nanosleep, &t, NULL), NULL);
		break;
	}
	case 12:
		begin("syscall(SYS_close, closed)");
		res_sys(syscall(SYS_close, 900), NULL);
		break;
	default: {
		uint64_t old = 0;
		static const size_t sz[] = {8, 4};
		int c = pick(2);
		begin("syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &old, %zu)", sz[c]);
		r = syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &old, sz[c]);
		char out[48];
		snprintf(out, sizeof out, "old.usr1=%d old.usr2=%d", (int)(old >> (SIGUSR1 - 1)) & 1,
			 (int)(old >> (SIGUSR2 - 1)) & 1);
		res_sys(r, out);
		break;
	}
	}
}

static void g_sleep(void)
{
	begin("sleep(0)");
	unsigned r = sleep(0);
	printf("%ld %s = %u%s\n", step, call, r, errno != SENTINEL ? " errno-changed" : "");
}

/* --- dlopen ---------------------------------------------------------------------------- */

static void g_dlopen(void)
{
	static const char *const file[] = {"libm.so.6", "/nonexistent/libfz.so", "libfz-none.so.9",
					   "$ORIGIN/libfz-none.so", NULL};
	static const int mode[] = {RTLD_NOW | RTLD_LOCAL, RTLD_LAZY | RTLD_GLOBAL, 0, 0x12340000 | RTLD_NOW};
	static const char *const mode_name[] = {"NOW|LOCAL", "LAZY|GLOBAL", "0", "NOW|unknown"};
	int f = pick(5), m = pick(4);
	dlerror();
	begin("dlopen(%s, %s)", file[f] ? file[f] : "NULL", mode_name[m]);
	void *h = dlopen(file[f], mode[m]);
	int e = errno;
	const char *err = dlerror();
	char out[200];
	int sym = h && file[f] && dlsym(h, "cos") != NULL;
	snprintf(out, sizeof out, "%s%s dlerror=%s%s%s", h ? "handle" : "NULL",
		 h && f == 0 ? sym ? " cos=found" : " cos=missing" : "", err ? "\"" : "NULL",
		 err ? err : "", err ? "\"" : "");
	printf("%ld %s = %s%s\n", step, call, out, e != SENTINEL ? " errno-changed" : "");
	if (h) {
		begin("dlclose(handle)");
		res_code(dlclose(h), NULL);
	}
}

/* --- condition waits that return ------------------------------------------------------ */

/* The waiter holds the mutex until its wait releases it, so the helper,
 * which broadcasts under the mutex until told the waiter woke, can only
 * broadcast while the waiter waits: the wait returns 0. */
static struct {
	pthread_mutex_t *m;
	pthread_cond_t *c;
	mtx_t *cm;
	cnd_t *cc;
	int woke, c11;
} cw;

static void *cw_helper(void *a)
{
	(void)a;
	struct timespec t = {0, 100000};
	for (;;) {
		int done;
		if (cw.c11) {
			mtx_lock(cw.cm);
			done = cw.woke;
			if (!done)
				cnd_broadcast(cw.cc);
			mtx_unlock(cw.cm);
		} else {
			pthread_mutex_lock(cw.m);
			done = cw.woke;
			if (!done)
				pthread_cond_broadcast(cw.c);
			pthread_mutex_unlock(cw.m);
		}
		if (done)
			return NULL;
		nanosleep(&t, NULL);
	}
}

static void g_cond_wait(void)
{
	static const char *const kn[] = {"errorcheck", "normal", "recursive", "errorcheck/MONOTONIC",
					 "pshared+pshared-errorcheck", "robust-errorcheck"};
	int k = pick(6), held = pick(4) != 0, c11 = pick(4) == 0;
	pthread_t t = 0;
	char out[64] = "";
	memset(&cw, 0, sizeof cw);
	if (c11) {
		mtx_t cm;
		cnd_t cc;
		int rec = pick(2);
		if (!held)
			rec = 1;	/* a plain one not held would be unlocked by the wait */
		mtx_init(&cm, mtx_plain | (rec ? mtx_recursive : 0));
		cnd_init(&cc);
		cw.cm = &cm, cw.cc = &cc, cw.c11 = 1;
		if (held) {
			mtx_lock(&cm);
			pthread_create(&t, NULL, cw_helper, NULL);
		}
		begin("cnd_wait(cc, %s, %s)", rec ? "plain+recursive" : "plain", held ? "held" : "not held");
		int r = cnd_wait(&cc, &cm);
		printf("%ld %s = %s%s\n", step, call, r == thrd_success ? "thrd_success" :
		       r == thrd_error ? "thrd_error" : "other", errno != SENTINEL ? " errno-changed" : "");
		if (held) {
			if (r != thrd_success)
				mtx_lock(&cm);
			cw.woke = 1;
			mtx_unlock(&cm);
			pthread_join(t, NULL);
		}
		cnd_destroy(&cc);
		mtx_destroy(&cm);
		return;
	}
	pthread_mutex_t m;
	pthread_cond_t c;
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_condattr_init(&ca);
	if (k == 0 || k >= 3)
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	if (k == 2)
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	if (k == 3)
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (k == 4) {
		pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
		pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	}
	if (k == 5)
		pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	if (k == 1)
		held = 1;	/* a normal one not held: glibc's wait unlocks it anyway */
	pthread_mutex_init(&m, &ma);
	pthread_cond_init(&c, &ca);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	cw.m = &m, cw.c = &c;
	if (held) {
		pthread_mutex_lock(&m);
		pthread_create(&t, NULL, cw_helper, NULL);
	}
	begin("pthread_cond_wait(c, %s, %s)", kn[k], held ? "held" : "not held");
	int r = pthread_cond_wait(&c, &m);
	if (r == 0 && k != 1 && k != 2) {
		/* an error-checking mutex tells whether this thread holds it */
		int l = pthread_mutex_lock(&m);
		snprintf(out, sizeof out, "relock=%s", l == EDEADLK ? "EDEADLK(held)" : l ? ename(l) : "0");
		if (l == 0)
			pthread_mutex_unlock(&m);
	}
	res_code(r, out[0] ? out : NULL);
	if (held) {
		if (r != 0)
			pthread_mutex_lock(&m);
		cw.woke = 1;
		pthread_mutex_unlock(&m);
		pthread_join(t, NULL);
	}
	pthread_cond_destroy(&c);
	pthread_mutex_destroy(&m);
}

/* --- pthread_setattr_default_np ------------------------------------------------------ */

static struct {
	size_t stack, guard;
	int detach, got;
	sem_t done;
} da;

static void *da_thread(void *a)
{
	(void)a;
	pthread_attr_t at;
	if (pthread_getattr_np(pthread_self(), &at) == 0) {
		pthread_attr_getstacksize(&at, &da.stack);
		pthread_attr_getguardsize(&at, &da.guard);
		pthread_attr_getdetachstate(&at, &da.detach);
		pthread_attr_destroy(&at);
		da.got = 1;
	}
	sem_post(&da.done);
	return NULL;
}

static const char *attr_desc(const pthread_attr_t *a)
{
	static char b[96];
	size_t ss = 0, gs = 0;
	int ds = -1, inh = -1, pol = -1;
	pthread_attr_getstacksize(a, &ss);
	pthread_attr_getguardsize(a, &gs);
	pthread_attr_getdetachstate(a, &ds);
	pthread_attr_getinheritsched(a, &inh);
	pthread_attr_getschedpolicy(a, &pol);
	snprintf(b, sizeof b, "stack=%zu guard=%zu detach=%d inherit=%d policy=%d", ss, gs, ds, inh,
		 pol);
	return b;
}

static void g_attr_default(void)
{
	static const char *const kn[] = {"init", "stack=1MiB", "stack=MIN", "guard=0,stack=256KiB",
					 "detached", "stackaddr set", "prio=5 with OTHER",
					 "explicit OTHER"};
	static char stackmem[65536] __attribute__((aligned(4096)));
	int k = pick(8);
	pthread_attr_t old, a, now;
	if (pthread_getattr_default_np(&old) != 0)
		return;
	pthread_attr_init(&a);
	switch (k) {
	case 1: pthread_attr_setstacksize(&a, 1 << 20); break;
	case 2: pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN); break;
	case 3:
		pthread_attr_setguardsize(&a, 0);
		pthread_attr_setstacksize(&a, 256 << 10);
		break;
	case 4: pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED); break;
	case 5: pthread_attr_setstack(&a, stackmem, sizeof stackmem); break;
	case 6: {
		struct sched_param sp = {.sched_priority = 5};
		pthread_attr_setschedpolicy(&a, SCHED_FIFO);
		pthread_attr_setschedparam(&a, &sp);
		pthread_attr_setschedpolicy(&a, SCHED_OTHER);
		break;
	}
	case 7: {
		struct sched_param sp = {0};
		pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&a, SCHED_OTHER);
		pthread_attr_setschedparam(&a, &sp);
		break;
	}
	default: break;
	}
	begin("pthread_setattr_default_np(%s)", kn[k]);
	int r = pthread_setattr_default_np(&a);
	char out[200] = "";
	size_t want = 0;
	if (pthread_getattr_default_np(&now) == 0) {
		snprintf(out, sizeof out, "default: %s", attr_desc(&now));
		pthread_attr_getstacksize(&now, &want);
		pthread_attr_destroy(&now);
	}
	res_code(r, out);
	if (r == 0 && pick(2)) {
		/* a thread made with the default: what it has */
		pthread_t t;
		memset(&da, 0, sizeof da);
		sem_init(&da.done, 0, 0);
		begin("pthread_create(NULL attr) after the default %s", kn[k]);
		int cr = pthread_create(&t, NULL, da_thread, NULL);
		if (cr == 0) {
			sem_wait(&da.done);
			if (k != 4)
				pthread_join(t, NULL);
		}
		/* (glibc may give a cached stack up to 4 times larger) */
		snprintf(out, sizeof out, "got=%d stack>=default=%d guard=%zu detach=%d", da.got,
			 da.stack >= want, da.guard, da.detach);
		res_code(cr, out);
		sem_destroy(&da.done);
	}
	begin("pthread_setattr_default_np(as it was)");
	res_code(pthread_setattr_default_np(&old), NULL);
	pthread_attr_destroy(&a);
	pthread_attr_destroy(&old);
}

/* --- pthread_cleanup_push/pop (__pthread_register_cancel and kin) -------------------- */

static char cl_log[16];
static void cl_h(void *arg)
{
	size_t n = strlen(cl_log);
	if (n + 1 < sizeof cl_log) {
		cl_log[n] = (char)('0' + (int)(intptr_t)arg);
		cl_log[n + 1] = 0;
	}
}

static void cl_inner(void)
{
	pthread_cleanup_push(cl_h, (void *)2);
	pthread_exit((void *)9);
	pthread_cleanup_pop(0);
}

static int cl_type_in, cl_type_after;

static void *cl_thread(void *arg)
{
	int k = (int)(intptr_t)arg;
	switch (k) {
	case 0:
		pthread_cleanup_push(cl_h, (void *)0);
		pthread_cleanup_push(cl_h, (void *)1);
		pthread_cleanup_pop(1);
		pthread_cleanup_pop(0);
		return (void *)7;
	case 1:
		pthread_cleanup_push(cl_h, (void *)0);
		pthread_cleanup_push(cl_h, (void *)1);
		pthread_exit((void *)8);
		pthread_cleanup_pop(0);
		pthread_cleanup_pop(0);
		break;
	case 2:
		pthread_cleanup_push(cl_h, (void *)0);
		pthread_cancel(pthread_self());
		pthread_testcancel();
		pthread_cleanup_pop(0);
		break;
	case 3:
		pthread_cleanup_push(cl_h, (void *)0);
		pthread_cancel(pthread_self());
		sleep(0);	/* a cancellation point */
		pthread_cleanup_pop(0);
		break;
	case 4: {
		int o;
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &o);
		pthread_cleanup_push_defer_np(cl_h, (void *)0);
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &cl_type_in);
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &o);
		pthread_cleanup_pop_restore_np(1);
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &cl_type_after);
		return (void *)7;
	}
	case 5:
		pthread_cleanup_push_defer_np(cl_h, (void *)0);
		pthread_cleanup_push(cl_h, (void *)1);
		pthread_exit((void *)8);
		pthread_cleanup_pop(0);
		pthread_cleanup_pop_restore_np(0);
		break;
	case 6:
		pthread_cleanup_push(cl_h, (void *)0);
		pthread_cleanup_push(cl_h, (void *)1);
		cl_inner();
		pthread_cleanup_pop(0);
		pthread_cleanup_pop(0);
		break;
	default:
		pthread_cleanup_push_defer_np(cl_h, (void *)0);
		pthread_cancel(pthread_self());
		pthread_testcancel();
		pthread_cleanup_pop_restore_np(0);
		break;
	}
	return (void *)6;
}

static void g_cleanup(void)
{
	static const char *const kn[] = {"push push pop(1) pop(0) return",
					 "push push pthread_exit",
					 "push cancel(self) testcancel",
					 "push cancel(self) sleep(0)",
					 "async: push_defer pop_restore(1)",
					 "push_defer push pthread_exit",
					 "push push {push pthread_exit}",
					 "push_defer cancel(self) testcancel",
					 "main: push pop(1)",
					 "main: push_defer pop_restore(0)"};
	int k = pick(10);
	char out[96];
	cl_log[0] = 0;
	cl_type_in = cl_type_after = -1;
	if (k >= 8) {
		begin("pthread_cleanup %s", kn[k]);
		if (k == 8) {
			pthread_cleanup_push(cl_h, (void *)0);
			pthread_cleanup_pop(1);
		} else {
			pthread_cleanup_push_defer_np(cl_h, (void *)1);
			pthread_cleanup_pop_restore_np(0);
		}
		snprintf(out, sizeof out, "ran=\"%s\"", cl_log);
		res_code(0, out);
		return;
	}
	pthread_t t;
	void *rv = NULL;
	begin("thread: pthread_cleanup %s", kn[k]);
	int r = pthread_create(&t, NULL, cl_thread, (void *)(intptr_t)k);
	if (r == 0)
		r = pthread_join(t, &rv);
	snprintf(out, sizeof out, "ran=\"%s\" res=%s", cl_log,
		 rv == PTHREAD_CANCELED ? "canceled" : rv == (void *)6 ? "6" : rv == (void *)7 ? "7" :
		 rv == (void *)8 ? "8" : rv == (void *)9 ? "9" : "other");
	if (k == 4) {
		size_t n = strlen(out);
		snprintf(out + n, sizeof out - n, " type.in=%d type.after=%d", cl_type_in, cl_type_after);
	}
	res_code(r, out);
}

/* --- the table ---------------------------------------------------------------------- */

const struct gen gens_proc[] = {
	GEN(g_fork, "fork __fork forkpty wait waitpid wait3 wait4 waitid"),
	GEN(g_wait_held, "fork waitpid wait3 wait4 waitid kill wait"),
	GEN(g_wait_err, "wait waitpid wait3 wait4 waitid syscall"),
	GEN(g_waitid_pidfd, "fork syscall waitid waitpid"),
	GEN(g_register_atfork, "__register_atfork __cxa_finalize"),
	GEN(g_fork_thread, "fork waitpid waitid"),
	GEN(g_sigchld_ign, "sigaction fork waitpid waitid wait system"),
	GEN(g_daemon, "fork daemon wait waitpid wait3 wait4 waitid"),
	GEN(g_system, "system"),
	GEN(g_cred, "setuid seteuid setgid setegid setreuid setregid setresuid setresgid setgroups"),
	GEN(g_sched, "sched_getscheduler sched_getparam sched_setparam sched_setscheduler "
		     "sched_getaffinity sched_setaffinity getpriority setpriority"),
	GEN(g_prctl, "prctl pthread_getname_np"),
	GEN(g_syscall, "syscall"),
	GEN(g_sleep, "sleep"),
	GEN(g_dlopen, "dlopen"),
	GEN(g_cond_wait, "pthread_cond_wait cnd_wait"),
	GEN(g_attr_default, "pthread_setattr_default_np"),
	GEN(g_cleanup, "__pthread_register_cancel __pthread_register_cancel_defer "
		       "__pthread_unregister_cancel __pthread_unregister_cancel_restore "
		       "__pthread_unwind_next sleep"),
};
const size_t ngens_proc = sizeof gens_proc / sizeof gens_proc[0];
