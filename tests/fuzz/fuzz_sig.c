/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_sig.c — the fuzzer's generators for signals: dispositions, masks, sending, waiting, signalfd, timers
 * (tests/fuzz/fuzz.h).
 *
 * The signals these generators use are their own, never the other
 * groups' (SIGUSR1, SIGUSR2), but for SIGWINCH, which fuzz_io.c's
 * p-call generator sends itself too, with its handler installed once:
 * what it prints stays the same whatever this group left there:
 *
 *  - sent ones: SIGWINCH, SIGCONT (default action: none), and
 *    SIGSTKFLT, SIGRTMIN+3, SIGRTMIN+4 (default action: the end of the
 *    process, so their disposition is a handler or SIG_IGN, never
 *    SIG_DFL, and no SA_RESETHAND). Not SIGURG, whose default is none
 *    too: it is libgmp's scheduling signal, which libgmp never lets
 *    sigpending or sigwait see (README.md, "How it works"); and not
 *    SIGCHLD, which the process group's children send at times of their
 *    own;
 *  - ones whose disposition is set and read, never sent: SIGPWR and
 *    SIGRTMIN+6 (they may hold SIG_ERR or SIG_HOLD as a "handler");
 *  - the tick, SIGRTMIN+5, with a handler for good: a periodic timer on
 *    it ends pause(), and keeps a wait that would otherwise last for
 *    ever (a library that misses the signal that should end it) short.
 *
 * What stays from one call to the next: the dispositions, which of the
 * sent signals the main thread blocks, which are pending (thread-directed
 * ones, which only the main thread can take), a pool of signalfds and of
 * timers. Everything runs on the main thread. With the other groups
 * mixed in, threads of theirs may take a signal sent to the process that
 * the main thread blocks, at a time of their own: such a send is made
 * only when this group runs alone.
 *
 * Printed: the call's classes, its result and errno, how many times the
 * signal's handler ran during the call (ran=), the si_code it saw, which
 * of the sent signals are pending (pend=) and blocked after.
 */
#include "fuzz.h"

#include <pthread.h>
#include <setjmp.h>
#include <ucontext.h>

#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

/* Declared here under their symbol names: <signal.h> marks most of them
 * deprecated, and gives sigpause X/Open's symbol. */
extern int fz_sighold(int) __asm__("sighold");
extern int fz_sigrelse(int) __asm__("sigrelse");
extern int fz_sigignore(int) __asm__("sigignore");
extern sighandler_t fz_sigset(int, sighandler_t) __asm__("sigset");
extern int fz_sigblock(int) __asm__("sigblock");
extern int fz_sigsetmask(int) __asm__("sigsetmask");
extern int fz_bsd_sigpause(int) __asm__("sigpause");
extern int fz_xpg_sigpause(int) __asm__("__xpg_sigpause");
extern int fz___sigpause(int, int) __asm__("__sigpause");
extern sighandler_t fz_bsd_signal(int, sighandler_t) __asm__("bsd_signal");
extern sighandler_t fz_sysv_signal(int, sighandler_t) __asm__("sysv_signal");
extern sighandler_t fz___sysv_signal(int, sighandler_t) __asm__("__sysv_signal");
extern sighandler_t fz_ssignal(int, sighandler_t) __asm__("ssignal");
extern int fz_gsignal(int) __asm__("gsignal");

/* siggetmask: looked up as a program binds it (the linker warns of a
 * direct call) */
static int fz_siggetmask(void)
{
	static int (*fn)(void);
	if (!fn)
		fn = (int (*)(void))dlsym(RTLD_DEFAULT, "siggetmask");
	return fn ? fn() : -12345;
}

/* NULL where a pointer is declared non-null: glibc passes it to the
 * kernel, which says EFAULT */
static const sigset_t *volatile nullset;

/* --- the signals ------------------------------------------------------------------ */

#define NSENT 5
static int sent[NSENT];			/* WINCH CONT STKFLT R3 R4 */
static const char *const sent_name[NSENT] = {"WINCH", "CONT", "STKFLT", "R3", "R4"};
#define NDISP 2
static int dsig[NDISP];			/* PWR R6 */
static const char *const dsig_name[NDISP] = {"PWR", "R6"};
static int tick_sig;			/* R5 */

/* Does sent[i]'s default action end the process? */
static bool fatal_dfl(int i)
{
	return i >= 2;
}

static volatile sig_atomic_t n_a[NSIG], n_b[NSIG], n_i[NSIG], code_i[NSIG], val_i[NSIG];
static volatile sig_atomic_t n_tick;

static void h_a(int s)
{
	if (s > 0 && s < NSIG)
		n_a[s]++;
}

static void h_b(int s)
{
	if (s > 0 && s < NSIG)
		n_b[s]++;
}

static void h_i(int s, siginfo_t *si, void *uc)
{
	(void)uc;
	if (s > 0 && s < NSIG) {
		n_i[s]++;
		code_i[s] = si ? si->si_code : 12345;
		val_i[s] = si ? si->si_value.sival_int : -1;
	}
}

#define HI ((sighandler_t)(void (*)(void))h_i)

static void h_tick(int s)
{
	(void)s;
	n_tick++;
}

static int ran(int s)
{
	return n_a[s] + n_b[s] + n_i[s];
}

/* All handler runs of the sent signals, as one number per signal. */
static void ran_all(int *v)
{
	for (int i = 0; i < NSENT; i++)
		v[i] = ran(sent[i]);
}

static const char *code_name(int c)
{
	static char b[16];
	switch (c) {
	case SI_USER: return "USER";
	case SI_QUEUE: return "QUEUE";
	case SI_TKILL: return "TKILL";
	case SI_TIMER: return "TIMER";
	case SI_KERNEL: return "KERNEL";
	default:
		snprintf(b, sizeof b, "%d", c);
		return b;
	}
}

static const char *hname(sighandler_t h)
{
	if (h == SIG_DFL)
		return "DFL";
	if (h == SIG_IGN)
		return "IGN";
	if (h == SIG_ERR)
		return "ERR";
	if (h == SIG_HOLD)
		return "HOLD";
	if (h == h_a)
		return "hA";
	if (h == h_b)
		return "hB";
	if (h == HI)
		return "hI";
	if (h == h_tick)
		return "hT";
	return "other";
}

static const char *signame(int s)
{
	static char b[4][16];
	static int k;
	char *p = b[k++ & 3];
	for (int i = 0; i < NSENT; i++)
		if (s == sent[i])
			return sent_name[i];
	for (int i = 0; i < NDISP; i++)
		if (s == dsig[i])
			return dsig_name[i];
	if (s == tick_sig)
		return "R5";
	snprintf(p, 16, "%d", s);
	return p;
}

/* "pend={..} blk={..}": which sent signals are pending and blocked. */
static const char *state(void)
{
	static char b[160];
	sigset_t p, m;
	sigemptyset(&p);
	sigemptyset(&m);
	sigpending(&p);
	sigprocmask(SIG_BLOCK, NULL, &m);
	int n = snprintf(b, sizeof b, "pend={");
	const char *sep = "";
	for (int i = 0; i < NSENT; i++)
		if (sigismember(&p, sent[i]) == 1) {
			n += snprintf(b + n, sizeof b - (size_t)n, "%s%s", sep, sent_name[i]);
			sep = ",";
		}
	n += snprintf(b + n, sizeof b - (size_t)n, "} blk={");
	sep = "";
	for (int i = 0; i < NSENT; i++)
		if (sigismember(&m, sent[i]) == 1) {
			n += snprintf(b + n, sizeof b - (size_t)n, "%s%s", sep, sent_name[i]);
			sep = ",";
		}
	snprintf(b + n, sizeof b - (size_t)n, "}");
	return b;
}

/* "ran={R3:2}": handler runs since v was taken, of the sent signals. */
static const char *ran_since(const int *v)
{
	static char b[96];
	int n = snprintf(b, sizeof b, "ran={");
	const char *sep = "";
	for (int i = 0; i < NSENT; i++) {
		int d = ran(sent[i]) - v[i];
		if (d) {
			n += snprintf(b + n, sizeof b - (size_t)n, "%s%s:%d", sep, sent_name[i], d);
			sep = ",";
		}
	}
	snprintf(b + n, sizeof b - (size_t)n, "}");
	return b;
}

static bool blocked(int s)
{
	sigset_t m;
	sigemptyset(&m);
	sigprocmask(SIG_BLOCK, NULL, &m);
	return sigismember(&m, s) == 1;
}

static void mask1(int how, int s)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, s);
	sigprocmask(how, &m, NULL);
}

/* The disposition of s: its handler, and its flags and mask. */
static const char *disp(int s)
{
	static char b[96];
	struct sigaction a;
	memset(&a, 0, sizeof a);
	if (sigaction(s, NULL, &a) != 0) {
		snprintf(b, sizeof b, "now=? %s", ename(errno));
		return b;
	}
	int nm = 0;
	for (int k = 1; k < NSIG; k++)
		if (sigismember(&a.sa_mask, k) == 1)
			nm++;
	sighandler_t h = (a.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))a.sa_sigaction : a.sa_handler;
	snprintf(b, sizeof b, "now=%s flags=0x%x mask=%d%s", hname(h),
		 (unsigned)a.sa_flags & ~0x04000000u /* SA_RESTORER */, nm,
		 sigismember(&a.sa_mask, s) == 1 ? "+self" : "");
	return b;
}

static bool is_handler(int s)
{
	struct sigaction a;
	memset(&a, 0, sizeof a);
	if (sigaction(s, NULL, &a) != 0)
		return false;
	return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

static void set_handler(int s, sighandler_t h)
{
	struct sigaction a;
	memset(&a, 0, sizeof a);
	sigemptyset(&a.sa_mask);
	if (h == HI) {
		a.sa_sigaction = h_i;
		a.sa_flags = SA_SIGINFO | SA_RESTART;
	} else {
		a.sa_handler = h;
		a.sa_flags = SA_RESTART;
	}
	sigaction(s, &a, NULL);
}

/* The tick: a timer on tick_sig, armed around the calls that wait for a
 * signal. */
static timer_t tick_timer;
static bool tick_made;
static bool alone;			/* FUZZ_GROUP=sig */

static void sig_init(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	const char *g = getenv("FUZZ_GROUP");
	alone = g && strcmp(g, "sig") == 0;
	sent[0] = SIGWINCH, sent[1] = SIGCONT, sent[2] = SIGSTKFLT;
	sent[3] = SIGRTMIN + 3, sent[4] = SIGRTMIN + 4;
	dsig[0] = SIGPWR, dsig[1] = SIGRTMIN + 6;
	tick_sig = SIGRTMIN + 5;
	set_handler(tick_sig, h_tick);
	set_handler(sent[2], h_a);
	set_handler(sent[3], h_a);
	set_handler(sent[4], HI);
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = tick_sig;
	tick_made = timer_create(CLOCK_MONOTONIC, &ev, &tick_timer) == 0;
}

/* Arm the tick: first after first_ms, then every every_ms (0: disarm). */
static void tick_arm(int first_ms, int every_ms)
{
	if (!tick_made)
		return;
	struct itimerspec it;
	memset(&it, 0, sizeof it);
	it.it_value.tv_sec = first_ms / 1000;
	it.it_value.tv_nsec = (long)(first_ms % 1000) * 1000000;
	it.it_interval.tv_sec = every_ms / 1000;
	it.it_interval.tv_nsec = (long)(every_ms % 1000) * 1000000;
	timer_settime(tick_timer, 0, &it, NULL);
}

/* Invalid signal numbers */
static const int bad_sig[] = {0, -1, 65, 32, 33, SIGKILL, SIGSTOP};
#define NBAD 7

/* --- dispositions: signal, bsd_signal, ssignal, sysv_signal, __sysv_signal, sigset, sigignore */

enum { F_SIGNAL, F_BSD, F_SSIGNAL, F_SYSV, F___SYSV, F_SIGSET, F_NFUNC };
static const char *const fname[] = {"signal", "bsd_signal", "ssignal", "sysv_signal",
				     "__sysv_signal", "sigset"};

static sighandler_t call_family(int f, int s, sighandler_t h)
{
	switch (f) {
	case F_SIGNAL: return signal(s, h);
	case F_BSD: return fz_bsd_signal(s, h);
	case F_SSIGNAL: return fz_ssignal(s, h);
	case F_SYSV: return fz_sysv_signal(s, h);
	case F___SYSV: return fz___sysv_signal(s, h);
	default: return fz_sigset(s, h);
	}
}

static void g_disposition(void)
{
	sig_init();
	int f = pick(F_NFUNC), kind = pick(3), hc = pick(6);
	int s;
	const char *sn;
	bool sentsig = false, fatal = false;
	if (kind == 0) {
		int i = pick(NSENT);
		s = sent[i], sn = sent_name[i], sentsig = true, fatal = fatal_dfl(i);
	} else if (kind == 1) {
		int i = pick(NDISP);
		s = dsig[i], sn = dsig_name[i];
	} else {
		s = bad_sig[pick(NBAD)], sn = signame(s);
	}
	static const char *const hn[] = {"DFL", "IGN", "hA", "hB", "ERR", "HOLD"};
	sighandler_t hs[] = {SIG_DFL, SIG_IGN, h_a, h_b, SIG_ERR, SIG_HOLD};
	/* SIG_HOLD is sigset's; elsewhere (and SIG_ERR) it would be taken
	 * for a handler's address: only on signals never sent */
	if (hc == 5 && f != F_SIGSET && kind != 1)
		hc = 2;
	if (hc == 4 && sentsig)
		hc = 3;
	if (fatal) {
		/* never SIG_DFL, never SA_RESETHAND */
		if (hc == 0)
			hc = 1;
		if ((f == F_SYSV || f == F___SYSV) && hc != 1 && hc != 5)
			hc = 1;
	}
	int v[NSENT];
	ran_all(v);
	begin("%s(%s, %s)", fname[f], sn, hn[hc]);
	sighandler_t r = call_family(f, s, hs[hc]);
	int e = errno;
	char out[200];
	if (kind == 2)
		snprintf(out, sizeof out, "%s", ran_since(v));
	else
		snprintf(out, sizeof out, "%s %s %s", ran_since(v), disp(s), sentsig ? state() : "");
	printf("%ld %s = %s%s%s %s\n", step, call, hname(r), r == SIG_ERR ? " " : "",
	       r == SIG_ERR ? ename(e) : "", out);
}

/* The one-shot semantics of sysv_signal: on a signal whose default
 * action is none, the handler runs once, then SIG_DFL. */
static void g_sysv_oneshot(void)
{
	sig_init();
	int i = pick(2), f = pick(2), how = pick(2);
	int s = sent[i];
	if (blocked(s))
		return;
	/* with other groups' threads about, the kernel may hand a signal
	 * sent to the process to one of them (one whose caller has another
	 * signal pending), at a time of its own, under NPTL too */
	if (!alone)
		how = 1;
	int v[NSENT];
	ran_all(v);
	begin("%s(%s, hB) then %s twice", f ? "__sysv_signal" : "sysv_signal", sent_name[i],
	      how ? "raise" : "kill(self)");
	sighandler_t r = f ? fz___sysv_signal(s, h_b) : fz_sysv_signal(s, h_b);
	int e = errno;
	int r1 = how ? raise(s) : kill(getpid(), s);
	int mid = ran(s) - v[i];
	int r2 = how ? raise(s) : kill(getpid(), s);
	char out[200];
	snprintf(out, sizeof out, "sends=%d,%d ran-after-first=%d %s %s %s", r1, r2, mid,
		 ran_since(v), disp(s), state());
	printf("%ld %s = %s%s%s %s\n", step, call, hname(r), r == SIG_ERR ? " " : "",
	       r == SIG_ERR ? ename(e) : "", out);
}

static void g_sigignore(void)
{
	sig_init();
	int kind = pick(3), s;
	const char *sn;
	if (kind == 0) {
		int i = pick(NSENT);
		s = sent[i], sn = sent_name[i];
	} else if (kind == 1) {
		int i = pick(NDISP);
		s = dsig[i], sn = dsig_name[i];
	} else {
		s = bad_sig[pick(NBAD)], sn = signame(s);
	}
	int v[NSENT];
	ran_all(v);
	begin("sigignore(%s)", sn);
	long r = fz_sigignore(s);
	char out[200];
	snprintf(out, sizeof out, "%s %s %s", ran_since(v), kind < 2 ? disp(s) : "",
		 kind == 0 ? state() : "");
	res_sys(r, out);
}

/* A handler that records si_code (sigaction with SA_SIGINFO), or back to
 * hA: the sent signals' handlers. */
static void g_handler_info(void)
{
	sig_init();
	int i = pick(NSENT), k = pick(2);
	begin("sigaction(%s, %s)", sent_name[i], k ? "hI+SIGINFO" : "hA");
	struct sigaction a, o;
	memset(&a, 0, sizeof a);
	memset(&o, 0, sizeof o);
	sigemptyset(&a.sa_mask);
	if (k) {
		a.sa_sigaction = h_i;
		a.sa_flags = SA_SIGINFO | SA_RESTART;
	} else {
		a.sa_handler = h_a;
		a.sa_flags = SA_RESTART;
	}
	int v[NSENT];
	ran_all(v);
	long r = sigaction(sent[i], &a, &o);
	char out[200];
	sighandler_t oh = (o.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))o.sa_sigaction : o.sa_handler;
	snprintf(out, sizeof out, "old=%s %s %s", hname(oh), ran_since(v), state());
	res_sys(r, out);
}

/* --- masks: sighold, sigrelse, sigblock, sigsetmask, siggetmask ----------------------- */

static void g_sighold(void)
{
	sig_init();
	int rel = pick(2), kind = pick(4), s;
	const char *sn;
	if (kind) {
		int i = pick(NSENT);
		s = sent[i], sn = sent_name[i];
	} else {
		s = bad_sig[pick(NBAD)], sn = signame(s);
	}
	int v[NSENT];
	ran_all(v);
	begin("%s(%s)", rel ? "sigrelse" : "sighold", sn);
	long r = rel ? fz_sigrelse(s) : fz_sighold(s);
	char out[160];
	snprintf(out, sizeof out, "%s %s", ran_since(v), state());
	res_sys(r, out);
}

static int bit(int s)
{
	return s >= 1 && s <= 32 ? (int)(1u << (s - 1)) : 0;
}

/* BSD masks, put back as they were after the call: the other groups'
 * signals (SIGPIPE, SIGCHLD, SIGUSR1) stay as they had them. */
static void g_bsdmask(void)
{
	sig_init();
	int f = pick(3), mc = pick(7);
	int masks[7];
	masks[0] = 0;
	masks[1] = bit(SIGWINCH);
	masks[2] = bit(SIGSTKFLT) | bit(SIGCONT);
	masks[3] = bit(SIGKILL) | bit(SIGSTOP);
	masks[4] = -1;
	masks[5] = (int)(1u << 31);	/* signal 32 */
	masks[6] = bit(SIGWINCH) | bit(SIGUSR2);
	static const char *const mn[] = {"0", "WINCH", "STKFLT|CONT", "KILL|STOP", "-1", "bit31",
					 "WINCH|USR2"};
	sigset_t saved;
	sigemptyset(&saved);
	sigprocmask(SIG_BLOCK, NULL, &saved);
	int v[NSENT];
	ran_all(v);
	int r;
	if (f == 0) {
		begin("sigblock(%s)", mn[mc]);
		r = fz_sigblock(masks[mc]);
	} else if (f == 1) {
		begin("sigsetmask(%s)", mn[mc]);
		r = fz_sigsetmask(masks[mc]);
	} else {
		begin("siggetmask()");
		r = fz_siggetmask();
	}
	int e = errno;
	/* the mask it left, in BSD form and for the real-time ones */
	sigset_t now;
	sigemptyset(&now);
	sigprocmask(SIG_BLOCK, NULL, &now);
	unsigned low = 0;
	for (int s = 1; s <= 32; s++)
		if (sigismember(&now, s) == 1)
			low |= 1u << (s - 1);
	char out[240];
	snprintf(out, sizeof out, "%s now=0x%x r3=%d %s", ran_since(v), low,
		 sigismember(&now, sent[3]), state());
	printf("%ld %s = 0x%x%s %s\n", step, call, (unsigned)r, e != SENTINEL ? " errno-changed" : "",
	       out);
	ran_all(v);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (ran_since(v)[5] != '}')
		printf("%ld   (mask put back: %s)\n", step, ran_since(v));
}

/* --- sending: raise, gsignal, kill, tgkill, sigqueue ------------------------------------ */

static void g_send(void)
{
	sig_init();
	int how = pick(5), kind = pick(5), mk = pick(4), tgt = pick(5);
	int s, si = -1;
	const char *sn;
	if (kind) {
		si = pick(NSENT);
		s = sent[si], sn = sent_name[si];
	} else {
		static const int bad[] = {0, -1, 65, 32, 33};
		int b = pick(5);
		/* glibc's reserved signals only where glibc refuses them
		 * (raise): the kernel would deliver them */
		if (b >= 3 && how >= 2)
			b = 0;
		s = bad[b], sn = signame(s);
	}
	/* the mask for the call: as it is, block s, unblock s */
	int v[NSENT];
	ran_all(v);
	if (si >= 0 && mk == 1)
		mask1(SIG_BLOCK, s);
	if (si >= 0 && mk == 2)
		mask1(SIG_UNBLOCK, s);
	char pre[96] = "";
	if (si >= 0 && mk == 2)
		snprintf(pre, sizeof pre, " pre-%s", ran_since(v));
	bool blk = si >= 0 && blocked(s);
	/* the target: self, or not a process/thread; 0 only with signal 0 */
	pid_t me = getpid();
	union sigval val = {.sival_int = 77};
	long r;
	const char *tn = "self";
	if (tgt == 3)
		tn = "nonexistent";
	else if (tgt == 4)
		tn = "0";
	if ((how == 2 || how == 4) && tgt == 4 && s != 0)
		tgt = 0, tn = "self";
	/* a signal to the process that the main thread blocks may be taken
	 * by another group's thread, at its own time */
	if ((how == 2 || how == 4) && tgt < 3 && blk && !alone && s > 0)
		return;
	ran_all(v);
	int before_i = si >= 0 ? n_i[s] : 0;
	switch (how) {
	case 0:
		begin("raise(%s)%s%s", sn, blk ? " blocked" : "", pre);
		r = raise(s);
		break;
	case 1:
		begin("gsignal(%s)%s%s", sn, blk ? " blocked" : "", pre);
		r = fz_gsignal(s);
		break;
	case 2:
		begin("kill(%s, %s)%s%s", tn, sn, blk ? " blocked" : "", pre);
		r = kill(tgt == 3 ? INT_MAX : tgt == 4 ? 0 : me, s);
		break;
	case 3: {
		pid_t tid = gettid();
		if (tgt == 3) {
			begin("tgkill(self, nonexistent, %s)%s%s", sn, blk ? " blocked" : "", pre);
			r = tgkill(me, INT_MAX, s);
		} else if (tgt == 4) {
			begin("tgkill(0, self, %s)%s%s", sn, blk ? " blocked" : "", pre);
			r = tgkill(0, tid, s);
		} else if (tgt == 2) {
			begin("tgkill(self, -1, %s)%s%s", sn, blk ? " blocked" : "", pre);
			r = tgkill(me, -1, s);
		} else {
			begin("tgkill(self, self, %s)%s%s", sn, blk ? " blocked" : "", pre);
			r = tgkill(me, tid, s);
		}
		break;
	}
	default:
		begin("sigqueue(%s, %s, 77)%s%s", tn, sn, blk ? " blocked" : "", pre);
		r = sigqueue(tgt == 3 ? INT_MAX : tgt == 4 ? 0 : me, s, val);
		break;
	}
	char out[240];
	int n = snprintf(out, sizeof out, "%s", ran_since(v));
	if (si >= 0 && n_i[s] != before_i)
		n += snprintf(out + n, sizeof out - (size_t)n, " code=%s val=%d", code_name(code_i[s]),
			      code_i[s] == SI_QUEUE ? (int)val_i[s] : 0);
	if (si >= 0)
		snprintf(out + n, sizeof out - (size_t)n, " %s %s", disp(s), state());
	res_sys(r, out);
}

/* --- waiting: sigwait, sigwaitinfo, sigtimedwait --------------------------------------- */

static void g_sigwait(void)
{
	sig_init();
	int kind = pick(4), i = pick(NSENT), sc = pick(5), prep = pick(3), tc = pick(6);
	int s = sent[i];
	/* sigwait and sigwaitinfo wait for ever: a signal of the set is made
	 * pending first */
	if (kind < 2 && !prep)
		prep = 1;
	if (tc == 0 && kind >= 2)
		prep = 1;	/* no timeout */
	sigset_t set;
	sigemptyset(&set);
	static const char *const setn[] = {"{s}", "{s,R3}", "{sent}", "{s,KILL,STOP}", "{}"};
	if (sc == 4 && prep)
		sc = 0;
	if (sc != 4)
		sigaddset(&set, s);
	if (sc == 1)
		sigaddset(&set, sent[3]);
	if (sc == 2)
		for (int k = 0; k < NSENT; k++)
			sigaddset(&set, sent[k]);
	if (sc == 3) {
		sigaddset(&set, SIGKILL);
		sigaddset(&set, SIGSTOP);
	}
	bool was = blocked(s);
	int v[NSENT];
	ran_all(v);
	if (prep) {
		mask1(SIG_BLOCK, s);
		if (prep == 2)
			raise(s), raise(s);
		else
			raise(s);
	}
	char desc[96];
	snprintf(desc, sizeof desc, "s=%s%s, set=%s%s", sent_name[i], was ? " blocked" : "",
		 setn[sc], prep == 2 ? ", raised twice" : prep ? ", raised" : "");
	siginfo_t info;
	memset(&info, 0, sizeof info);
	info.si_signo = -7;
	static const char *const tn[] = {"NULL", "0", "near", "nsec=1e9", "nsec=-1", "sec=-1"};
	struct timespec ts[] = {{0, 0}, {0, 0}, {0, 1000000}, {0, 1000000000}, {0, -1}, {-1, 0}};
	char out[240];
	int n = 0;
	tick_arm(200, 200);	/* a wait that should not wait ends anyway */
	if (kind == 0) {
		int sig = -7;
		begin("sigwait(%s)", desc);
		int r = sigwait(&set, &sig);
		int e = errno;
		tick_arm(0, 0);
		errno = e;
		n = snprintf(out, sizeof out, "sig=%s %s", signame(sig), ran_since(v));
		if (!prep || was)
			;
		else
			mask1(SIG_UNBLOCK, s);
		snprintf(out + n, sizeof out - (size_t)n, " after:%s %s", ran_since(v), state());
		res_code(r, out);
		return;
	}
	long r;
	if (kind == 1) {
		begin("sigwaitinfo(%s)", desc);
		r = sigwaitinfo(&set, &info);
	} else if (kind == 2) {
		begin("sigtimedwait(%s, %s)", desc, tn[tc]);
		r = sigtimedwait(&set, &info, tc ? &ts[tc] : NULL);
	} else {
		begin("sigtimedwait(%s, info=NULL, %s)", desc, tn[tc]);
		r = sigtimedwait(&set, NULL, tc ? &ts[tc] : NULL);
	}
	int e = errno;
	tick_arm(0, 0);
	n = snprintf(out, sizeof out, "got=%s", r > 0 ? signame((int)r) : "-");
	if (info.si_signo != -7)
		n += snprintf(out + n, sizeof out - (size_t)n, " info=%s/%s/%d", signame(info.si_signo),
			      code_name(info.si_code),
			      info.si_code == SI_QUEUE ? info.si_value.sival_int : 0);
	n += snprintf(out + n, sizeof out - (size_t)n, " %s", ran_since(v));
	if (prep && !was)
		mask1(SIG_UNBLOCK, s);
	snprintf(out + n, sizeof out - (size_t)n, " after:%s %s", ran_since(v), state());
	errno = e;
	res_sys(r, out);
}

/* --- suspending: sigsuspend, pause, sigpause, __sigpause, __xpg_sigpause ---------------- */

static void g_suspend(void)
{
	sig_init();
	int kind = pick(6), i = pick(NSENT), bad = pick(4), mc = pick(3);
	int s = sent[i];
	/* invalid signals: X/Open's forms only; else s is blocked, its
	 * handler set, and raised, and the call lets it through */
	bool invalid = bad == 0 && (kind == 2 || kind == 5);
	int badsig = bad_sig[pick(NBAD)];
	bool was = blocked(s);
	char pre[64] = "";
	if (kind != 1 && !invalid) {
		if (!is_handler(s)) {
			set_handler(s, h_a);
			snprintf(pre, sizeof pre, ", set hA");
		}
	}
	int v[NSENT];
	ran_all(v);
	if (kind != 1 && !invalid) {
		mask1(SIG_BLOCK, s);
		raise(s);
	}
	sigset_t cur;
	sigemptyset(&cur);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	unsigned low = 0;
	for (int k = 1; k <= 32; k++)
		if (sigismember(&cur, k) == 1)
			low |= 1u << (k - 1);
	int tick0 = n_tick;
	long r;
	static const char *const mn[] = {"current-s", "empty", "current-s+KILL"};
	switch (kind) {
	case 0: {
		sigset_t m = cur;
		if (mc == 1)
			sigemptyset(&m);
		sigdelset(&m, s);
		sigdelset(&m, tick_sig);
		if (mc == 2)
			sigaddset(&m, SIGKILL);
		begin("sigsuspend(%s raised%s%s, %s)", sent_name[i], was ? " blocked" : "", pre, mn[mc]);
		tick_arm(200, 200);
		r = sigsuspend(&m);
		break;
	}
	case 1:
		begin("pause() with the tick");
		tick_arm(1, 1);
		r = pause();
		break;
	case 2:
		if (invalid) {
			begin("__sigpause(%s, 1)", signame(badsig));
			tick_arm(200, 200);
			r = fz___sigpause(badsig, 1);
		} else {
			begin("__sigpause(%s, 1) %s raised%s%s", sent_name[i], sent_name[i],
			      was ? " blocked" : "", pre);
			tick_arm(200, 200);
			r = fz___sigpause(s, 1);
		}
		break;
	case 3: {
		int m = (int)(low & ~(unsigned)bit(s));
		begin("__sigpause(mask-%s, 0) %s raised%s%s", sent_name[i], sent_name[i],
		      was ? " blocked" : "", pre);
		tick_arm(200, 200);
		r = fz___sigpause(m, 0);
		break;
	}
	case 4: {
		int m = (int)(low & ~(unsigned)bit(s));
		begin("sigpause(mask-%s) [BSD] %s raised%s%s", sent_name[i], sent_name[i],
		      was ? " blocked" : "", pre);
		tick_arm(200, 200);
		r = fz_bsd_sigpause(m);
		break;
	}
	default:
		if (invalid) {
			begin("__xpg_sigpause(%s)", signame(badsig));
			tick_arm(200, 200);
			r = fz_xpg_sigpause(badsig);
		} else {
			begin("__xpg_sigpause(%s) %s raised%s%s", sent_name[i], sent_name[i],
			      was ? " blocked" : "", pre);
			tick_arm(200, 200);
			r = fz_xpg_sigpause(s);
		}
		break;
	}
	int e = errno;
	tick_arm(0, 0);
	char out[240];
	int n = snprintf(out, sizeof out, "%s tick=%s", ran_since(v),
			 n_tick != tick0 ? (kind == 1 ? "yes" : "yes(should not wait)") : "no");
	if (kind != 1 && !invalid && !was)
		mask1(SIG_UNBLOCK, s);
	snprintf(out + n, sizeof out - (size_t)n, " after:%s %s", ran_since(v), state());
	errno = e;
	res_sys(r, out);
}

/* --- signalfd ------------------------------------------------------------------------ */

#define NSFD 2
static int sfd[NSFD] = {-1, -1};
static int sfd_nb[NSFD];
static int sfd_mask[NSFD];		/* mask class */

static const char *const smn[] = {"{}", "{WINCH}", "{R3,R4}", "{STKFLT,WINCH,R3}", "{KILL,STOP}",
				  "NULL"};

static void smask(int c, sigset_t *m)
{
	sigemptyset(m);
	switch (c) {
	case 1: sigaddset(m, SIGWINCH); break;
	case 2: sigaddset(m, sent[3]); sigaddset(m, sent[4]); break;
	case 3: sigaddset(m, SIGSTKFLT); sigaddset(m, SIGWINCH); sigaddset(m, sent[3]); break;
	case 4: sigaddset(m, SIGKILL); sigaddset(m, SIGSTOP); break;
	default: break;
	}
}

static void g_signalfd(void)
{
	sig_init();
	int tc = pick(6), mc = pick(6), fc = pick(5);
	static const int fl[] = {0, SFD_NONBLOCK, SFD_CLOEXEC, SFD_NONBLOCK | SFD_CLOEXEC, 0x1};
	static const char *const fln[] = {"0", "NONBLOCK", "CLOEXEC", "NONBLOCK|CLOEXEC", "0x1"};
	int fd, slot = -1;
	const char *tn;
	char tb[16];
	switch (tc) {
	case 0:
	case 1:
		fd = -1, tn = "new";
		break;
	case 2:
	case 3:
		slot = tc - 2;
		fd = sfd[slot];
		if (fd < 0)
			return;
		snprintf(tb, sizeof tb, "sfd%d", slot);
		tn = tb;
		break;
	case 4:
		fd = fd_of(0, &tn);	/* a pipe: not a signalfd */
		if (fd < 0)
			return;
		break;
	default:
		fd = fd_of(2 + pick(2) * 2, &tn);	/* closed, huge */
		break;
	}
	sigset_t m;
	smask(mc, &m);
	begin("signalfd(%s, %s, %s)", tn, smn[mc], fln[fc]);
	int r = signalfd(fd, mc == 5 ? nullset : &m, fl[fc]);
	int e = errno;
	char out[64] = "";
	if (r >= 0)
		snprintf(out, sizeof out, "%s", fd == -1 ? "new fd" : r == fd ? "same fd" : "other fd");
	errno = e;
	res_sys(r < 0 ? -1 : 0, out[0] ? out : NULL);
	if (r < 0)
		return;
	if (fd == -1) {
		int k = sfd[0] < 0 ? 0 : sfd[1] < 0 ? 1 : -1;
		if (k < 0) {
			close(r);
			return;
		}
		sfd[k] = r, sfd_nb[k] = (fl[fc] & SFD_NONBLOCK) != 0, sfd_mask[k] = mc;
	} else if (slot >= 0) {
		sfd_mask[slot] = mc;
	}
}

static void g_signalfd_read(void)
{
	sig_init();
	int k = pick(NSFD), i = pick(NSENT), prep = pick(3);
	if (sfd[k] < 0)
		return;
	int s = sent[i];
	bool was = blocked(s);
	int v[NSENT];
	ran_all(v);
	if (prep) {
		mask1(SIG_BLOCK, s);
		raise(s);
		if (prep == 2)
			raise(s);
	}
	struct pollfd p = {.fd = sfd[k], .events = POLLIN};
	int pr = poll(&p, 1, 0);
	begin("read(sfd%d:%s%s, 2 records) %s%s%s", k, smn[sfd_mask[k]], sfd_nb[k] ? "/nonblock" : "",
	      sent_name[i], was ? " blocked" : "", prep == 2 ? " raised twice" : prep ? " raised" : "");
	char out[240];
	int n = snprintf(out, sizeof out, "poll=%d/0x%x", pr, pr > 0 ? p.revents : 0);
	long r = -2;
	int e = SENTINEL;
	if (sfd_nb[k] || pr > 0) {
		struct signalfd_siginfo b[2];
		memset(b, 0, sizeof b);
		errno = SENTINEL;
		r = read(sfd[k], b, sizeof b);
		e = errno;
		for (long j = 0; r > 0 && j < r / (long)sizeof b[0]; j++)
			n += snprintf(out + n, sizeof out - (size_t)n, " [%s/%s]", signame((int)b[j].ssi_signo),
				      code_name(b[j].ssi_code));
	}
	n += snprintf(out + n, sizeof out - (size_t)n, " %s", ran_since(v));
	if (prep && !was)
		mask1(SIG_UNBLOCK, s);
	snprintf(out + n, sizeof out - (size_t)n, " after:%s %s", ran_since(v), state());
	if (r == -2) {
		printf("%ld %s = not read %s\n", step, call, out);
		return;
	}
	errno = e;
	res_sys(r, out);
}

static void g_signalfd_close(void)
{
	int k = pick(NSFD);
	if (sfd[k] < 0)
		return;
	begin("close(sfd%d)", k);
	res_sys(close(sfd[k]), NULL);
	sfd[k] = -1;
}

/* --- timers: timer_create, timer_delete, timerfd_create ------------------------------------ */

#define NTIMER 4
enum { TM_NONE, TM_LIVE, TM_DEAD };
static timer_t tm[NTIMER];
static int tm_st[NTIMER], tm_thread[NTIMER];

static void timer_fn(union sigval v)
{
	(void)v;
}

static const clockid_t tclk[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
				 CLOCK_THREAD_CPUTIME_ID, CLOCK_BOOTTIME, CLOCK_REALTIME_ALARM,
				 99, -1};
static const char *const tclkn[] = {"REALTIME", "MONOTONIC", "PROCESS_CPUTIME", "THREAD_CPUTIME",
				    "BOOTTIME", "REALTIME_ALARM", "99", "-1"};

static void g_timer_create(void)
{
	sig_init();
	int k = pick(NTIMER), c = pick(8), nc = pick(9), arm = pick(2);
	if (tm_st[k] == TM_LIVE)
		return;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	static const char *const nn[] = {"NULL", "NONE", "SIGNAL(R3)", "SIGNAL(0)", "SIGNAL(65)",
					 "THREAD", "THREAD_ID(self)", "THREAD_ID(nonexistent)",
					 "notify=99"};
	switch (nc) {
	case 1: ev.sigev_notify = SIGEV_NONE; break;
	case 2: ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = sent[3]; break;
	case 3: ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = 0; break;
	case 4: ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = 65; break;
	case 5:
		ev.sigev_notify = SIGEV_THREAD;
		ev.sigev_notify_function = timer_fn;
		break;
	case 6:
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = sent[3];
		ev._sigev_un._tid = gettid();
		break;
	case 7:
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = sent[3];
		ev._sigev_un._tid = INT_MAX;
		break;
	case 8: ev.sigev_notify = 99; ev.sigev_signo = sent[3]; break;
	default: break;
	}
	/* a NULL sigevent's signal is SIGALRM: never armed then */
	if (nc == 0)
		arm = 0;
	timer_t id = (timer_t)(intptr_t)0x5a5a5a5a;
	begin("timer_create(tm%d, %s, %s)%s", k, tclkn[c], nn[nc], arm ? " armed 1h" : "");
	long r = timer_create(tclk[c], nc ? &ev : NULL, &id);
	int e = errno;
	char out[64];
	snprintf(out, sizeof out, "id %s", id == (timer_t)(intptr_t)0x5a5a5a5a ? "untouched" : "written");
	if (r == 0) {
		tm[k] = id;
		tm_st[k] = TM_LIVE;
		tm_thread[k] = nc == 5;
		if (arm) {
			struct itimerspec it = {{0, 0}, {3600, 0}};
			int a = timer_settime(id, 0, &it, NULL);
			snprintf(out + strlen(out), sizeof out - strlen(out), " settime=%d", a);
		}
	}
	errno = e;
	res_sys(r, out);
}

static void g_timer_delete(void)
{
	sig_init();
	int k = pick(NTIMER), bogus = pick(5) == 0;
	long r;
	if (bogus) {
		begin("timer_delete(never made)");
		r = timer_delete((timer_t)(intptr_t)0x7ffffff0);
	} else {
		if (tm_st[k] == TM_NONE)
			return;
		/* glibc frees a SIGEV_THREAD timer's record: a second delete
		 * would read freed memory */
		if (tm_st[k] == TM_DEAD && tm_thread[k])
			return;
		begin("timer_delete(tm%d:%s%s)", k, tm_st[k] == TM_LIVE ? "live" : "deleted",
		      tm_thread[k] ? "/thread" : "");
		r = timer_delete(tm[k]);
		if (r == 0)
			tm_st[k] = TM_DEAD;
	}
	res_sys(r, NULL);
}

static void g_timerfd_create(void)
{
	sig_init();
	static const clockid_t ck[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME,
				       CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM,
				       CLOCK_PROCESS_CPUTIME_ID, 99, -1};
	static const char *const ckn[] = {"REALTIME", "MONOTONIC", "BOOTTIME", "REALTIME_ALARM",
					  "BOOTTIME_ALARM", "PROCESS_CPUTIME", "99", "-1"};
	static const int fl[] = {0, TFD_NONBLOCK, TFD_CLOEXEC, TFD_NONBLOCK | TFD_CLOEXEC, 0x1};
	static const char *const fln[] = {"0", "NONBLOCK", "CLOEXEC", "NONBLOCK|CLOEXEC", "0x1"};
	int c = pick(8), f = pick(5), use = pick(3);
	begin("timerfd_create(%s, %s)", ckn[c], fln[f]);
	int fd = timerfd_create(ck[c], fl[f]);
	int e = errno;
	char out[96] = "";
	if (fd >= 0) {
		bool nb = (fl[f] & TFD_NONBLOCK) != 0;
		uint64_t x = 0;
		if (use == 1 && nb) {
			/* not armed: nothing to read */
			errno = SENTINEL;
			long n = read(fd, &x, sizeof x);
			snprintf(out, sizeof out, "fd>=0 read-unarmed=%ld %s", n,
				 n < 0 ? ename(errno) : "");
		} else if (use == 2) {
			/* expired at once: a read (blocking or not, once it
			 * has fired) gets one expiry */
			struct itimerspec it;
			memset(&it, 0, sizeof it);
			clock_gettime(ck[c], &it.it_value);
			it.it_value.tv_sec -= 1;
			int a = timerfd_settime(fd, TFD_TIMER_ABSTIME, &it, NULL);
			long n = -2;
			if (a == 0) {
				if (nb) {
					struct pollfd p = {.fd = fd, .events = POLLIN};
					poll(&p, 1, 1000);
				}
				n = read(fd, &x, sizeof x);
			}
			snprintf(out, sizeof out, "fd>=0 settime=%d read-expired=%ld exp>=1=%d", a, n,
				 x >= 1);
		} else {
			snprintf(out, sizeof out, "fd>=0");
		}
		close(fd);
	}
	errno = e;
	res_sys(fd < 0 ? -1 : 0, out[0] ? out : NULL);
}

/* --- jumps out of handlers: longjmp, _longjmp, siglongjmp, __longjmp_chk ------------------ */

extern void fz_longjmp_chk(struct __jmp_buf_tag env[1], int val) __asm__("__longjmp_chk")
	__attribute__((noreturn));
static sigjmp_buf jenv;
static int jfn;
static pthread_t jthread;
static volatile sig_atomic_t jhits;

/* Jumps out of itself on the generator's thread (a process signal that
 * another thread takes only counts). */
static void h_jump(int s)
{
	(void)s;
	jhits++;
	if (!pthread_equal(pthread_self(), jthread))
		return;
	switch (jfn) {
	case 0:
		siglongjmp(jenv, 1);
	case 1:
		longjmp(jenv, 1);
	case 2:
		_longjmp(jenv, 1);
	default:
		fz_longjmp_chk(jenv, 1);
	}
}

/* A sent signal's handler leaves with one of the jumps, to a sigsetjmp
 * that saved the mask, one that did not, or setjmp: the mask, the
 * pending set and the handler runs it left; the mask and action are put
 * back after. */
static void g_jump(void)
{
	sig_init();
	static const char *const fn[] = {"siglongjmp", "longjmp", "_longjmp", "__longjmp_chk"};
	static const char *const land[] = {"sigsetjmp(0)", "sigsetjmp(1)", "setjmp"};
	int i = pick(NSENT), f = pick(4), save = pick(3);
	int s = sent[i];
	begin("%s out of the %s handler to %s", fn[f], sent_name[i], land[save]);
	sigset_t m0;
	sigemptyset(&m0);
	sigprocmask(SIG_BLOCK, NULL, &m0);
	struct sigaction a, o;
	memset(&a, 0, sizeof a);
	memset(&o, 0, sizeof o);
	a.sa_handler = h_jump;
	sigemptyset(&a.sa_mask);
	jfn = f;
	jthread = pthread_self();
	jhits = 0;
	volatile int landed = 0;
	if ((save == 2 ? setjmp(jenv) : sigsetjmp(jenv, save)) == 0) {
		sigaction(s, &a, &o);
		raise(s);
	} else {
		landed = 1;
	}
	char out[200];
	snprintf(out, sizeof out, "landed=%d ran=%d %s", landed, (int)jhits, state());
	/* the action first: an instance the old mask lets through runs the
	 * old handler, not the jump */
	sigaction(s, &o, NULL);
	sigprocmask(SIG_SETMASK, &m0, NULL);
	res_code(0, out);
}

/* A coroutine (makecontext) whose context blocks a sent signal or not:
 * swapcontext into it and back, or setcontext back to a getcontext made
 * before; the mask inside and after. */
static ucontext_t fz_main_uc, fz_co_uc, fz_back_uc;
static char fz_co_stack[32768];
static char fz_inside[64];
static int fz_co_sig, fz_co_set;

static void fz_coroutine(void)
{
	snprintf(fz_inside, sizeof fz_inside, "inside: blk=%d", blocked(fz_co_sig));
	if (fz_co_set)
		setcontext(&fz_back_uc);
	swapcontext(&fz_co_uc, &fz_main_uc);
}

static void g_context(void)
{
	sig_init();
	int i = pick(NSENT), block = pick(2), set = pick(2);
	begin("%s into a coroutine %s %s", set ? "swapcontext, setcontext back" : "swapcontext, and back",
	      block ? "blocking" : "not blocking", sent_name[i]);
	sigset_t m0;
	sigemptyset(&m0);
	sigprocmask(SIG_BLOCK, NULL, &m0);
	fz_co_sig = sent[i];
	fz_co_set = set;
	fz_inside[0] = 0;
	getcontext(&fz_co_uc);
	fz_co_uc.uc_stack.ss_sp = fz_co_stack;
	fz_co_uc.uc_stack.ss_size = sizeof fz_co_stack;
	fz_co_uc.uc_link = NULL;
	if (block)
		sigaddset(&fz_co_uc.uc_sigmask, sent[i]);
	else
		sigdelset(&fz_co_uc.uc_sigmask, sent[i]);
	makecontext(&fz_co_uc, fz_coroutine, 0);
	volatile int back = 0;
	getcontext(&fz_back_uc);
	if (!back) {
		back = 1;
		swapcontext(&fz_main_uc, &fz_co_uc);
	}
	char out[200];
	snprintf(out, sizeof out, "%s %s", fz_inside, state());
	sigprocmask(SIG_SETMASK, &m0, NULL);
	res_code(0, out);
}

/* --- NULL sets, where glibc fails with EFAULT: in a child ----------------------------------- */

static void g_null_set(void)
{
	sig_init();
	static int made;
	if (made >= 12)
		return;	/* a fork is slow: a few per run */
	made++;
	int k = pick(5);
	static const char *const kn[] = {"sigsuspend(NULL)", "sigwait(NULL)", "sigwaitinfo(NULL)",
					 "sigtimedwait(NULL, 0)", "signalfd(-1, NULL)"};
	begin("in a child: %s", kn[k]);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec z = {0, 0};
		int sig, r, e;
		alarm(2);	/* a wait that does not end */
		errno = 0;
		switch (k) {
		case 0: r = sigsuspend(nullset); break;
		case 1: r = sigwait(nullset, &sig); break;
		case 2: r = sigwaitinfo(nullset, NULL); break;
		case 3: r = sigtimedwait(nullset, NULL, &z); break;
		default: r = signalfd(-1, nullset, 0); break;
		}
		e = errno;
		/* result and errno in the exit status: r (as -1, 0 or an error
		 * number) and errno */
		_exit((r == -1 ? 100 : r == 0 ? 101 : r == EFAULT ? 102 : 103) + (e == EFAULT ? 10 : 0) +
		      (e == 0 ? 20 : 0));
	}
	if (pid < 0) {
		res_sys(-1, NULL);
		return;
	}
	int st = 0;
	waitpid(pid, &st, 0);
	char out[64];
	if (WIFEXITED(st)) {
		int x = WEXITSTATUS(st);
		snprintf(out, sizeof out, "child: %s%s", x % 10 == 0 ? "-1" : x % 10 == 1 ? "0" :
			 x % 10 == 2 ? "EFAULT" : "other",
			 x >= 120 ? " errno=0" : x >= 110 ? " errno=EFAULT" : " errno=other");
	} else if (WIFSIGNALED(st)) {
		snprintf(out, sizeof out, "child: killed by signal %d", WTERMSIG(st));
	} else {
		snprintf(out, sizeof out, "child: status 0x%x", st);
	}
	res_code(0, out);
}

/* Every generator also reads the mask and the pending set (sigprocmask,
 * sigpending) and dispositions (sigaction) to print what a call left. */
#define ST "sigprocmask sigpending sigaction"
const struct gen gens_sig[] = {
	GEN(g_disposition, "signal bsd_signal ssignal sysv_signal __sysv_signal sigset " ST),
	GEN(g_sysv_oneshot, "sysv_signal __sysv_signal raise kill " ST),
	GEN(g_sigignore, "sigignore " ST),
	GEN(g_handler_info, "sigaction " ST),
	GEN(g_sighold, "sighold sigrelse " ST),
	GEN(g_bsdmask, "sigblock sigsetmask siggetmask " ST),
	GEN(g_send, "raise gsignal kill tgkill sigqueue gettid " ST),
	GEN(g_sigwait, "sigwait sigwaitinfo sigtimedwait raise " ST),
	GEN(g_suspend, "sigsuspend pause __sigpause sigpause __xpg_sigpause raise " ST),
	GEN(g_signalfd, "signalfd close"),
	GEN(g_signalfd_read, "read raise poll " ST),
	GEN(g_signalfd_close, "close"),
	GEN(g_timer_create, "timer_create gettid"),
	GEN(g_timer_delete, "timer_delete"),
	GEN(g_timerfd_create, "timerfd_create read poll close clock_gettime"),
	GEN(g_null_set, "sigsuspend sigwait sigwaitinfo sigtimedwait signalfd fork waitpid"),
	GEN(g_jump, "longjmp _longjmp siglongjmp __longjmp_chk raise sigaction " ST),
	GEN(g_context, "setcontext swapcontext " ST),
};
const size_t ngens_sig = sizeof gens_sig / sizeof gens_sig[0];
