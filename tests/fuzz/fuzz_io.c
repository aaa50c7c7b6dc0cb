/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_io.c — the fuzzer's generators for descriptors and files: open, read and write families, epoll, inotify, locks, sync
 * (tests/fuzz/fuzz.h).
 *
 * Everything lives in a directory made with mkdtemp under /tmp (removed
 * at exit): "a" (16 known bytes), "w" (a scratch file), "n0".."n3"
 * (made and unlinked by the generators), "d" (a directory), "fifo",
 * "ln" (a symbolic link to "a"). Descriptors: NSLOT slots opened by
 * g_open (files of every kind), a pipe (its ends' blocking modes and
 * the bytes in it kept here), a non-blocking eventfd, an inotify
 * instance watching the directory, an epoll instance watching the pipe
 * and the eventfd. Nothing printed names a descriptor's number.
 *
 * A call that could block is made only where it cannot: a read of the
 * pipe in blocking mode only when it holds bytes, a write only when it
 * has room, a FIFO only non-blocking or read-write, an infinite poll
 * only when something in it is ready.
 */
#include "fuzz.h"

#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>

/* the _FORTIFY_SOURCE entry points, called as a fortified program does */
extern int __open_2(const char *, int);
extern int __open64_2(const char *, int);
extern int __openat_2(int, const char *, int);
extern int __openat64_2(int, const char *, int);
extern ssize_t __read_chk(int, void *, size_t, size_t);
extern ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
extern ssize_t __pread64_chk(int, void *, size_t, off64_t, size_t);
extern int __poll_chk(struct pollfd *, nfds_t, int, size_t);
extern int __ppoll_chk(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *, size_t);

/* --- the directory and the shared objects --------------------------------------- */

static char dir[64];		/* "" until made */
static int dirfd_ = -1;		/* the directory, O_DIRECTORY */
static int afd = -1;		/* "a", read-only: a descriptor that is no directory */

#define CLOSED_FD 871		/* never opened by this file */

/* the pipe: its ends (-1 while not made), their blocking modes, its bytes */
static int mp[2] = {-1, -1};
static int mp_nb[2];
static int mp_bytes;
#define MP_CAP 2048		/* never more in it: a write always has room */

static int evfd = -1;		/* non-blocking eventfd */
static int infd = -1;		/* inotify, non-blocking, watching dir */
static int epfd = -1;		/* epoll: pipe-r IN (1), pipe-w OUT (2), ev IN (3) */
static int ep_pipe;		/* the pipe is in it */

static void io_cleanup(void)
{
	static const char *const names[] = {"a", "w", "n0", "n1", "n2", "n3", "fifo", "ln"};
	char p[128];
	if (!dir[0])
		return;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/d", dir);
	rmdir(p);
	rmdir(dir);
}

static void put_file(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

static void ep_add_pipe(void)
{
	if (epfd < 0 || mp[0] < 0)
		return;
	struct epoll_event e = {.events = EPOLLIN, .data.u32 = 1};
	epoll_ctl(epfd, EPOLL_CTL_ADD, mp[0], &e);
	e.events = EPOLLOUT, e.data.u32 = 2;
	epoll_ctl(epfd, EPOLL_CTL_ADD, mp[1], &e);
	ep_pipe = 1;
}

static void io_setup(void)
{
	if (dir[0])
		return;
	strcpy(dir, "/tmp/gmpfuzz-io.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	atexit(io_cleanup);
	put_file("a", "0123456789abcdef");
	put_file("w", "hello");
	char p[128];
	snprintf(p, sizeof p, "%s/d", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/fifo", dir);
	mkfifo(p, 0644);
	snprintf(p, sizeof p, "%s/ln", dir);
	if (symlink("a", p) != 0)
		abort();
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof p, "%s/a", dir);
	afd = open(p, O_RDONLY | O_CLOEXEC);
	if (dirfd_ < 0 || afd < 0)
		abort();
	if (pipe(mp) == 0) {
		fcntl(mp[0], F_SETFL, O_NONBLOCK);
		fcntl(mp[1], F_SETFL, O_NONBLOCK);
		mp_nb[0] = mp_nb[1] = 1;
		mp_bytes = 0;
	}
	evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/* --- the slots: descriptors opened by g_open ------------------------------------ */

enum { K_NONE, K_REG, K_DIR, K_FIFO, K_DEV, K_PATH, K_PROC };
#define NSLOT 4
static struct {
	int fd;			/* -1: empty */
	int kind, acc, nb;	/* acc: O_ACCMODE of the open */
	int file;		/* which file, for flock: path class, or 100+ for a tmpfile */
	int flk;		/* flock held (0, LOCK_SH, LOCK_EX) as the model has it */
	char desc[40];
} sl[NSLOT] = {{-1, 0, 0, 0, 0, 0, ""}, {-1, 0, 0, 0, 0, 0, ""}, {-1, 0, 0, 0, 0, 0, ""},
	       {-1, 0, 0, 0, 0, 0, ""}};

static void slot_close(int i)
{
	if (sl[i].fd < 0)
		return;
	/* a forked child of another group may hold the description a
	 * moment longer: its flock goes now */
	flock(sl[i].fd, LOCK_UN | LOCK_NB);
	close(sl[i].fd);
	sl[i].fd = -1;
	sl[i].kind = K_NONE;
	sl[i].flk = 0;
}

/* --- descriptor classes ------------------------------------------------------------ */

/* 0..NSLOT-1 the slots, then pipe-r, pipe-w, ev, in, ep, closed, -1, huge */
enum { C_PR = NSLOT, C_PW, C_EV, C_IN, C_EP, C_CLOSED, C_NEG, C_HUGE, C_N };

static int io_fd(int c, const char **name)
{
	static char b[64];
	if (c < NSLOT) {
		if (sl[c].fd < 0)
			snprintf(b, sizeof b, "s%d:empty", c);
		else
			snprintf(b, sizeof b, "s%d:%s%s", c, sl[c].desc, sl[c].nb ? "/nb" : "");
		*name = b;
		return sl[c].fd;
	}
	switch (c) {
	case C_PR:
		snprintf(b, sizeof b, "pipe-r%s/%d", mp_nb[0] ? "/nb" : "", mp_bytes);
		*name = mp[0] < 0 ? "pipe-r:none" : b;
		return mp[0];
	case C_PW:
		snprintf(b, sizeof b, "pipe-w%s/%d", mp_nb[1] ? "/nb" : "", mp_bytes);
		*name = mp[1] < 0 ? "pipe-w:none" : b;
		return mp[1];
	case C_EV:
		*name = "ev";
		return evfd;
	case C_IN:
		*name = infd < 0 ? "inotify:none" : "inotify";
		return infd;
	case C_EP:
		*name = epfd < 0 ? "ep:none" : "ep";
		return epfd;
	case C_CLOSED:
		*name = "closed";
		return CLOSED_FD;
	case C_NEG:
		*name = "-1";
		return -1;
	default:
		*name = "huge";
		return 1 << 20;
	}
}

/* Could a read of n bytes from class c wait? */
static bool read_may_block(int c, size_t n)
{
	if (c < NSLOT)
		return sl[c].fd >= 0 && sl[c].kind == K_FIFO && !sl[c].nb;
	if (c == C_PR)
		return mp[0] >= 0 && !mp_nb[0] && mp_bytes == 0 && n > 0;
	return false;		/* ev and inotify stay non-blocking */
}

/* May n bytes be written to class c? (never a wait, never SIGPIPE) */
static bool write_ok(int c, size_t n)
{
	if (c < NSLOT) {
		if (sl[c].fd < 0 || sl[c].kind != K_FIFO)
			return true;
		/* a FIFO: only one open for both (it is its own reader),
		 * non-blocking */
		return sl[c].acc == O_RDWR && sl[c].nb;
	}
	if (c == C_PW)
		return mp[1] < 0 || mp_bytes + (int)n <= MP_CAP;
	return true;
}

static void took(int c, long r)
{
	if (c == C_PR && r > 0)
		mp_bytes -= (int)r;
}

static void gave(int c, long r)
{
	if (c == C_PW && r > 0)
		mp_bytes += (int)r;
}

/* bytes as text: printable ones as they are, others \xHH (at most 24) */
static const char *esc(const void *p, long n)
{
	static char b[24 * 4 + 8];
	const unsigned char *s = p;
	size_t k = 0;
	if (n < 0)
		n = 0;
	for (long i = 0; i < n && i < 24; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\' && s[i] != '"')
			b[k++] = (char)s[i];
		else
			k += (size_t)snprintf(b + k, sizeof b - k, "\\x%02x", s[i]);
	}
	if (n > 24)
		k += (size_t)snprintf(b + k, sizeof b - k, "...");
	b[k] = '\0';
	return b;
}

static void res_fd(int fd, const char *out)
{
	if (fd < 0) {
		res_sys(-1, out);
		return;
	}
	printf("%ld %s = fd%s%s\n", step, call, out ? " " : "", out ? out : "");
}

/* --- opening -------------------------------------------------------------------------- */

enum { P_A, P_W, P_N, P_D, P_FIFO, P_LN, P_NOPE, P_ANOTDIR, P_EMPTY, P_NULL, P_LONG, P_PROC,
       P_DEVNULL, P_NCLASS };
static const char *const pname[] = {"a", "w", "n", "d", "fifo", "ln", "nope/x", "a/x", "\"\"",
				    "NULL", "long", "/proc/thread-self/comm", "/dev/null"};

/* Path class p: relative to dir (rel) or absolute; NULL for P_NULL. */
static const char *path_of(int p, int n, bool rel, char *buf, size_t len)
{
	static const char *const leaf[] = {"a", "w", NULL, "d", "fifo", "ln", "nope/x", "a/x"};
	switch (p) {
	case P_EMPTY:
		return "";
	case P_NULL:
		return NULL;
	case P_LONG:
		memset(buf, 'x', len - 1);
		buf[len - 1] = '\0';
		return buf;
	case P_PROC:
		return "/proc/thread-self/comm";
	case P_DEVNULL:
		return "/dev/null";
	case P_N:
		snprintf(buf, len, "%s%sn%d", rel ? "" : dir, rel ? "" : "/", n);
		return buf;
	default:
		snprintf(buf, len, "%s%s%s", rel ? "" : dir, rel ? "" : "/", leaf[p]);
		return buf;
	}
}

static const struct {
	const char *name;
	int fl;
} oflags[] = {
	{"RDONLY", O_RDONLY},
	{"WRONLY", O_WRONLY},
	{"RDWR", O_RDWR},
	{"RDWR|APPEND", O_RDWR | O_APPEND},
	{"WRONLY|TRUNC", O_WRONLY | O_TRUNC},
	{"RDONLY|DIRECTORY", O_RDONLY | O_DIRECTORY},
	{"RDONLY|NOFOLLOW", O_RDONLY | O_NOFOLLOW},
	{"RDONLY|NONBLOCK", O_RDONLY | O_NONBLOCK},
	{"WRONLY|NONBLOCK", O_WRONLY | O_NONBLOCK},
	{"RDWR|NONBLOCK|CLOEXEC", O_RDWR | O_NONBLOCK | O_CLOEXEC},
	{"PATH", O_PATH},
	{"ACCMODE", O_ACCMODE},
	{"RDONLY|0x40000000", O_RDONLY | 0x40000000},
	/* the ones that need a mode: not for __open_2 and the like */
	{"CREAT|RDWR", O_CREAT | O_RDWR},
	{"CREAT|EXCL|RDWR", O_CREAT | O_EXCL | O_RDWR},
	{"CREAT|WRONLY|TRUNC", O_CREAT | O_WRONLY | O_TRUNC},
	{"TMPFILE|RDWR", O_TMPFILE | O_RDWR},
};
#define NOFL_NOMODE 13
#define NOFL ((int)(sizeof oflags / sizeof oflags[0]))

/* Would this open wait, or do what the fuzzer must not? */
static bool open_ok(int p, int fl)
{
	int acc = fl & O_ACCMODE;
	if (p == P_FIFO)	/* a FIFO opened for one direction waits for the other */
		return (fl & O_NONBLOCK) || (fl & O_PATH) || acc == O_RDWR || acc == O_ACCMODE;
	if (p == P_PROC)	/* writing it renames the thread */
		return acc == O_RDONLY && !(fl & (O_CREAT | O_TRUNC | __O_TMPFILE));
	return true;
}

static void slot_fill(int i, int fd, int p, int n, int fl)
{
	slot_close(i);
	sl[i].fd = fd;
	sl[i].acc = fl & O_ACCMODE;
	sl[i].nb = (fl & O_NONBLOCK) != 0;
	sl[i].flk = 0;
	sl[i].file = p == P_N ? 20 + n : p == P_LN ? P_A : p;
	static const char *const an[] = {"r", "w", "rw", "none"};
	if (fl & O_PATH)
		sl[i].kind = K_PATH;
	else if ((fl & O_TMPFILE) == O_TMPFILE) {
		static int tmpn;
		sl[i].kind = K_REG;
		sl[i].file = 100 + tmpn++;
	} else if (p == P_D)
		sl[i].kind = K_DIR;
	else if (p == P_FIFO)
		sl[i].kind = K_FIFO;
	else if (p == P_DEVNULL)
		sl[i].kind = K_DEV;
	else if (p == P_PROC)
		sl[i].kind = K_PROC;
	else
		sl[i].kind = K_REG;
	if (p == P_N)
		snprintf(sl[i].desc, sizeof sl[i].desc, "n%d/%s%s", n, an[sl[i].acc],
			 (fl & O_APPEND) ? "+append" : "");
	else
		snprintf(sl[i].desc, sizeof sl[i].desc, "%s/%s%s",
			 (fl & O_TMPFILE) == O_TMPFILE ? "tmpfile" : p == P_PROC ? "comm" : pname[p],
			 (fl & O_PATH) ? "path" : an[sl[i].acc], (fl & O_APPEND) ? "+append" : "");
}

static void g_open(void)
{
	io_setup();
	int api = pick(10), p = pick(P_NCLASS), n = pick(4), slot = pick(NSLOT);
	int dc = pick(5), mc = pick(2), un = pick(8);
	bool nomode = api == 2 || api == 3 || api == 4 || api == 9;	/* the __open_2 family */
	bool at = api == 1 || api == 3 || api == 4 || api == 5;
	int f = pick(nomode ? NOFL_NOMODE : NOFL);
	int fl = oflags[f].fl;
	if (api >= 6 && api < 8)
		fl = O_CREAT | O_WRONLY | O_TRUNC;	/* creat */
	if ((p == P_A || p == P_LN) && (fl & O_TRUNC))
		p = P_W;	/* "a" keeps its bytes */
	if (!open_ok(p, fl))
		return;
	if (un == 0 && p == P_N) {
		char q[128];
		snprintf(q, sizeof q, "%s/n%d", dir, n);
		begin("unlink(n%d)", n);
		res_sys(unlink(q), NULL);
	}
	mode_t mode = mc ? 0600 : 0644;
	/* openat's directory: dir (relative path), AT_FDCWD (absolute),
	 * a file (relative), a closed number (relative), -1 (absolute) */
	static const char *const dname[] = {"dir", "AT_FDCWD", "file", "closed", "-1"};
	int dfd = dc == 0 ? dirfd_ : dc == 1 ? AT_FDCWD : dc == 2 ? afd : dc == 3 ? CLOSED_FD : -1;
	bool rel = at && (dc == 0 || dc == 2 || dc == 3);
	char buf[4200];
	const char *path = path_of(p, n, rel, buf, sizeof buf);
	char pn[48];
	if (p == P_N)
		snprintf(pn, sizeof pn, "n%d", n);
	else
		snprintf(pn, sizeof pn, "%s", pname[p]);
	int fd;
	switch (api) {
	case 0:
		begin("open(%s, %s, 0%o)", pn, oflags[f].name, mode);
		fd = open(path, fl, mode);
		break;
	case 1:
		begin("openat(%s, %s, %s, 0%o)", dname[dc], pn, oflags[f].name, mode);
		fd = openat(dfd, path, fl, mode);
		break;
	case 2:
		begin("__open_2(%s, %s)", pn, oflags[f].name);
		fd = __open_2(path, fl);
		break;
	case 3:
		begin("__openat_2(%s, %s, %s)", dname[dc], pn, oflags[f].name);
		fd = __openat_2(dfd, path, fl);
		break;
	case 4:
		begin("__openat64_2(%s, %s, %s)", dname[dc], pn, oflags[f].name);
		fd = __openat64_2(dfd, path, fl);
		break;
	case 5:
		begin("openat64(%s, %s, %s, 0%o)", dname[dc], pn, oflags[f].name, mode);
		fd = openat64(dfd, path, fl, mode);
		break;
	case 6:
		begin("creat(%s, 0%o)", pn, mode);
		fd = creat(path, mode);
		break;
	case 7:
		begin("creat64(%s, 0%o)", pn, mode);
		fd = creat64(path, mode);
		break;
	case 8:
		begin("open64(%s, %s, 0%o)", pn, oflags[f].name, mode);
		fd = open64(path, fl, mode);
		break;
	default:
		begin("__open64_2(%s, %s)", pn, oflags[f].name);
		fd = __open64_2(path, fl);
		break;
	}
	char out[48];
	snprintf(out, sizeof out, "-> s%d", slot);
	res_fd(fd, fd >= 0 ? out : NULL);
	if (fd >= 0)
		slot_fill(slot, fd, p, n, fl);
}

/* --- reading -------------------------------------------------------------------------- */

static const off_t offs[] = {0, 3, 14, 100, -1};
static const char *const offname[] = {"0", "3", "14", "100", "-1"};

static void g_read(void)
{
	io_setup();
	const char *nm;
	int c = pick(C_N), fn = pick(9), lc = pick(5), oc = pick(5);
	int fd = io_fd(c, &nm);
	static const size_t lens[] = {0, 1, 5, 16, 64};
	size_t n = lens[lc];
	bool nullbuf = pick(12) == 0;
	char buf[80];
	memset(buf, 0, sizeof buf);
	void *bp = nullbuf ? NULL : buf;
	if (read_may_block(c, n))
		return;
	long r;
	char out[160];
	out[0] = '\0';
	switch (fn) {
	case 0: {
		/* buflen: just enough, or more */
		size_t bl = pick(2) ? n : 64;
		begin("__read_chk(%s, %s, %zu, buflen %s)", nm, nullbuf ? "NULL" : "buf", n,
		      bl == n ? "n" : "64");
		r = __read_chk(fd, bp, n, bl);
		break;
	}
	case 1:
	case 2: {
		/* pread: offsets; 64 forms */
		begin("%s(%s, %s, %zu, %s)", fn == 1 ? "pread" : "pread64", nm,
		      nullbuf ? "NULL" : "buf", n, offname[oc]);
		r = fn == 1 ? pread(fd, bp, n, offs[oc]) : pread64(fd, bp, n, offs[oc]);
		break;
	}
	case 3:
	case 4:
		begin("%s(%s, %s, %zu, %s, buflen 64)", fn == 3 ? "__pread_chk" : "__pread64_chk", nm,
		      nullbuf ? "NULL" : "buf", n, offname[oc]);
		r = fn == 3 ? __pread_chk(fd, bp, n, offs[oc], 64)
			    : __pread64_chk(fd, bp, n, offs[oc], 64);
		break;
	default: {
		/* the vector forms: readv, preadv, preadv64 */
		struct iovec iov[3] = {{buf, 2}, {buf + 2, n / 2}, {buf + 2 + n / 2, n - n / 2}};
		int vc = pick(7);
		static const char *const vname[] = {"3 iov", "1 iov", "0 iov", "-1 iov", "1025 iov",
						    "NULL iov", "iov len<0"};
		static const int cnt[] = {3, 1, 0, -1, 1025, 1, 2};
		struct iovec *ip = iov;
		if (vc == 1)
			iov[0].iov_len = n;
		if (vc == 5)
			ip = NULL;
		if (vc == 6)
			iov[1].iov_len = (size_t)-8;	/* refused before any byte moves */
		if (nullbuf)
			iov[0].iov_base = NULL;
		size_t total = vc == 0 ? 2 + n : vc == 1 ? n : 0;
		if (vc == 0 && read_may_block(c, total))
			return;
		int which = fn - 5;	/* 0 readv, 1 preadv, 2 preadv64, 3 readv */
		if (which == 0 || which == 3) {
			begin("readv(%s, %s%s, n=%zu)", nm, vname[vc], nullbuf ? " NULL base" : "", n);
			r = readv(fd, ip, cnt[vc]);
		} else {
			begin("%s(%s, %s%s, n=%zu, %s)", which == 1 ? "preadv" : "preadv64", nm,
			      vname[vc], nullbuf ? " NULL base" : "", n, offname[oc]);
			r = which == 1 ? preadv(fd, ip, cnt[vc], offs[oc])
				       : preadv64(fd, ip, cnt[vc], offs[oc]);
		}
		break;
	}
	}
	took(c, r);
	if (r > 0)
		snprintf(out, sizeof out, "\"%s\"", esc(buf, r));
	res_sys(r, r > 0 ? out : NULL);
}

/* --- writing -------------------------------------------------------------------------- */

static void g_write(void)
{
	io_setup();
	const char *nm;
	int c = pick(C_N), fn = pick(5), oc = pick(6), dc = pick(3);
	int fd = io_fd(c, &nm);
	static const char *const data[] = {"xyz", "12345678", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"};
	const char *d = data[dc];
	size_t n = strlen(d);
	if (c == C_EV && pick(2) == 0) {
		d = "\x02\0\0\0\0\0\0\0";	/* a counter of 2 */
		n = 8;
	}
	if (!write_ok(c, n))
		return;
	static const off_t woffs[] = {0, 5, 1000, -1, 0};
	static const char *const woname[] = {"0", "5", "1000", "-1", "0"};
	off_t off = oc < 5 ? woffs[oc] : (off_t)1 << 50;
	const char *on = oc < 5 ? woname[oc] : "2^50";
	long r;
	switch (fn) {
	case 0:
	case 1:
		begin("%s(%s, %zu, %s)", fn ? "pwrite64" : "pwrite", nm, n, on);
		r = fn ? pwrite64(fd, d, n, off) : pwrite(fd, d, n, off);
		break;
	default: {
		struct iovec iov[2] = {{(void *)d, 1}, {(void *)(d + 1), n - 1}};
		int vc = pick(5);
		static const char *const vname[] = {"2 iov", "0 iov", "-1 iov", "NULL iov",
						    "iov len<0"};
		static const int cnt[] = {2, 0, -1, 1, 2};
		struct iovec *ip = iov;
		if (vc == 3)
			ip = NULL;
		if (vc == 4)
			iov[1].iov_len = (size_t)-8;
		if (fn == 2) {
			begin("writev(%s, %s, n=%zu)", nm, vname[vc], n);
			r = writev(fd, ip, cnt[vc]);
		} else {
			begin("%s(%s, %s, n=%zu, %s)", fn == 3 ? "pwritev" : "pwritev64", nm, vname[vc],
			      n, on);
			r = fn == 3 ? pwritev(fd, ip, cnt[vc], off) : pwritev64(fd, ip, cnt[vc], off);
		}
		break;
	}
	}
	gave(c, r);
	res_sys(r, NULL);
}

/* --- sync, locks ---------------------------------------------------------------------- */

static void g_sync(void)
{
	io_setup();
	const char *nm;
	int c = pick(C_N), k = pick(2);
	int fd = io_fd(c, &nm);
	begin("%s(%s)", k ? "fdatasync" : "fsync", nm);
	res_sys(k ? fdatasync(fd) : fsync(fd), NULL);
}

/* Would flock(slot i, op) wait? (another description of the same file
 * holds a lock that conflicts) */
static bool flock_waits(int i, int op)
{
	if (sl[i].fd < 0 || (op & LOCK_NB))
		return false;
	int want = op & (LOCK_SH | LOCK_EX);
	if (want != LOCK_SH && want != LOCK_EX)
		return false;
	for (int j = 0; j < NSLOT; j++)
		if (j != i && sl[j].fd >= 0 && sl[j].file == sl[i].file && sl[j].flk &&
		    (want == LOCK_EX || sl[j].flk == LOCK_EX))
			return true;
	return false;
}

static void g_flock(void)
{
	io_setup();
	const char *nm;
	int c = pick(NSLOT + 4), which = pick(2);
	if (c >= NSLOT)
		c = c == NSLOT ? C_PR : c == NSLOT + 1 ? C_CLOSED : c == NSLOT + 2 ? C_NEG : C_EP;
	int fd = io_fd(c, &nm);
	if (which == 0) {
		static const int ops[] = {LOCK_SH | LOCK_NB, LOCK_EX | LOCK_NB, LOCK_UN, LOCK_SH, LOCK_EX,
					  LOCK_UN | LOCK_NB, 0, LOCK_NB, LOCK_SH | LOCK_EX, LOCK_SH | 0x80};
		static const char *const opn[] = {"SH|NB", "EX|NB", "UN", "SH", "EX", "UN|NB", "0", "NB",
						  "SH|EX", "SH|0x80"};
		int o = pick(10);
		if (c < NSLOT && flock_waits(c, ops[o]))
			return;
		begin("flock(%s, %s)", nm, opn[o]);
		long r = res_sys(flock(fd, ops[o]), NULL);
		if (c < NSLOT && sl[c].fd >= 0) {
			int want = ops[o] & (LOCK_SH | LOCK_EX | LOCK_UN);
			if (r == 0)
				sl[c].flk = want == LOCK_UN ? 0 : want;
			else if (errno == EWOULDBLOCK)
				sl[c].flk = 0;	/* Linux drops the lock it held first */
		}
	} else {
		/* POSIX locks are the process's: none of its own conflict */
		static const int cmds[] = {F_TLOCK, F_ULOCK, F_TEST, F_LOCK, 77};
		static const char *const cn[] = {"F_TLOCK", "F_ULOCK", "F_TEST", "F_LOCK", "77"};
		static const off_t lens[] = {0, 4, -4, 1000};
		int k = pick(5), l = pick(4);
		begin("lockf(%s, %s, %ld)", nm, cn[k], (long)lens[l]);
		res_sys(lockf(fd, cmds[k], lens[l]), NULL);
	}
}

/* --- ioctl, blocking modes ------------------------------------------------------------ */

static void set_nb(int c, int nb)
{
	if (c == C_PR || c == C_PW)
		mp_nb[c - C_PR] = nb;
	else if (c < NSLOT && sl[c].fd >= 0)
		sl[c].nb = nb;
}

/* May class c be made blocking? (only where nothing would then wait
 * unseen: the pipe, whose reads and writes look first; files) */
static bool may_block_mode(int c)
{
	if (c == C_PR || c == C_PW)
		return true;
	if (c < NSLOT)
		return sl[c].fd < 0 || sl[c].kind != K_FIFO;
	return c >= C_CLOSED;
}

static void g_ioctl(void)
{
	io_setup();
	const char *nm;
	int c = pick(C_N), k = pick(7);
	int fd = io_fd(c, &nm);
	int v = -7;
	long r;
	char out[48] = "";
	switch (k) {
	case 0:
	case 1: {
		bool null = pick(8) == 0;
		begin("ioctl(%s, FIONREAD%s)", nm, null ? ", NULL" : "");
		r = ioctl(fd, FIONREAD, null ? NULL : &v);
		snprintf(out, sizeof out, "n=%d", v);
		res_sys(r, out);
		break;
	}
	case 2:
	case 3: {
		int on = pick(2), null = pick(8) == 0;
		if (!on && !may_block_mode(c))
			on = 1;
		v = on;
		begin("ioctl(%s, FIONBIO, %s)", nm, null ? "NULL" : on ? "1" : "0");
		r = res_sys(ioctl(fd, FIONBIO, null ? NULL : &v), NULL);
		if (r == 0)
			set_nb(c, on);
		break;
	}
	case 4: {
		/* the same through fcntl */
		int on = pick(2);
		if (!on && !may_block_mode(c))
			on = 1;
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0)
			fl = 0;
		begin("fcntl(%s, F_SETFL, %s)", nm, on ? "+NONBLOCK" : "-NONBLOCK");
		r = res_sys(fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK), NULL);
		if (r == 0)
			set_nb(c, on);
		break;
	}
	case 5: {
		int cl = pick(2);
		begin("ioctl(%s, %s)", nm, cl ? "FIOCLEX" : "FIONCLEX");
		r = ioctl(fd, cl ? FIOCLEX : FIONCLEX);
		snprintf(out, sizeof out, "cloexec=%d", fd >= 0 ? (fcntl(fd, F_GETFD) & FD_CLOEXEC) : -1);
		res_sys(r, r == 0 ? out : NULL);
		break;
	}
	default: {
		static const unsigned long req[] = {0x7777, 0x5401 /* TCGETS */, 0};
		char arg[64];
		int q = pick(3);
		begin("ioctl(%s, 0x%lx)", nm, req[q]);
		res_sys(ioctl(fd, req[q], arg), NULL);
		break;
	}
	}
}

/* --- dup2 ------------------------------------------------------------------------------ */

static void g_dup2(void)
{
	io_setup();
	const char *nm;
	int c = pick(C_N), t = pick(5);
	int fd = io_fd(c, &nm);
	static const char *const tn[] = {"820", "same", "-1", "huge", "820 twice"};
	int to = t == 0 || t == 4 ? 820 : t == 1 ? fd : t == 2 ? -1 : 1 << 20;
	if (t == 4) {
		/* 820 is first the pipe's write end, then replaced */
		if (mp[1] < 0)
			return;
		dup2(mp[1], 820);
	}
	begin("dup2(%s, %s)", nm, tn[t]);
	int r = dup2(fd, to);
	char out[80] = "";
	if (r >= 0) {
		int fl = fcntl(r, F_GETFL);
		snprintf(out, sizeof out, "%s acc=%d nb=%d", r == to ? "=newfd" : "!=newfd",
			 fl < 0 ? -1 : fl & O_ACCMODE, fl < 0 ? -1 : !!(fl & O_NONBLOCK));
	}
	res_sys(r < 0 ? -1 : 0, r >= 0 ? out : NULL);
	if (r >= 0 && t != 1 && c == C_PR && !read_may_block(c, 4) && pick(2)) {
		/* a read through the duplicate */
		char b[8];
		begin("__read_chk(dup of %s, 4, buflen 8)", nm);
		long n = __read_chk(820, b, 4, sizeof b);
		took(c, n);
		snprintf(out, sizeof out, "\"%s\"", esc(b, n));
		res_sys(n, n > 0 ? out : NULL);
	}
	if (t == 4 && r < 0)
		close(820);
	if (r >= 0 && t != 1)
		close(to);
}

/* --- pipe ------------------------------------------------------------------------------ */

static void g_pipe(void)
{
	io_setup();
	int k = pick(4);
	if (k == 0) {
		begin("pipe(NULL)");
		res_sys(pipe(NULL), NULL);
		return;
	}
	int p[2] = {-1, -1};
	begin("pipe(fds) (a new one for the old)");
	int r = pipe(p);
	res_sys(r, r == 0 ? (p[0] >= 0 && p[1] >= 0 && p[0] != p[1] ? "fds ok" : "fds bad") : NULL);
	if (r != 0)
		return;
	if (mp[0] >= 0) {
		close(mp[0]);
		close(mp[1]);
	}
	mp[0] = p[0], mp[1] = p[1];
	mp_nb[0] = mp_nb[1] = 0;	/* blocking, as made */
	mp_bytes = 0;
	ep_pipe = 0;
	ep_add_pipe();
}

/* --- poll ------------------------------------------------------------------------------- */

/* Does poll find entry (fd class c, events ev) ready at once? (false
 * when it cannot say) */
static bool poll_ready(int c, short ev)
{
	if (c == C_CLOSED || c == C_HUGE)
		return true;		/* POLLNVAL */
	if (c < NSLOT && sl[c].fd < 0)
		return false;		/* -1: skipped */
	if (c < NSLOT)
		return (sl[c].kind == K_REG || sl[c].kind == K_DEV) && (ev & (POLLIN | POLLOUT));
	if (c == C_PW)
		return mp[1] >= 0 && (ev & POLLOUT);
	if (c == C_PR)
		return mp[0] >= 0 && (ev & POLLIN) && mp_bytes > 0;
	if (c == C_EV)
		return evfd >= 0 && (ev & POLLOUT);
	return false;
}

static const short pev[] = {POLLIN, POLLOUT, POLLIN | POLLOUT, 0, POLLPRI};
static const char *const pevn[] = {"IN", "OUT", "IN|OUT", "0", "PRI"};

/* Timeouts: 0, 1 ms, infinite (only when something is ready), malformed
 * (ppoll). */
enum { TO_ZERO, TO_NEAR, TO_INF, TO_NSEC_1E9, TO_NSEC_NEG, TO_SEC_NEG, TO_N };
static const char *const toname[] = {"0", "1ms", "inf", "nsec=1e9", "nsec=-1", "sec=-1"};

static struct timespec to_ts(int to)
{
	static const struct timespec ts[] = {{0, 0}, {0, 1000000}, {0, 0}, {0, 1000000000}, {0, -1},
					     {-1, 0}};
	return ts[to];
}

/* A signal mask for the p-calls: NULL, the current one, the current one
 * and SIGUSR2 (never one less: a signal pending and blocked elsewhere
 * must stay blocked). */
static const sigset_t *mask_of(int m, sigset_t *set, const char **name)
{
	static const char *const mn[] = {"NULL", "cur", "cur+USR2"};
	*name = mn[m];
	if (m == 0)
		return NULL;
	pthread_sigmask(SIG_BLOCK, NULL, set);
	if (m == 2)
		sigaddset(set, SIGUSR2);
	return set;
}

static void g_poll(void)
{
	io_setup();
	int nf = pick(4), fn = pick(3), to = pick(TO_N), m = pick(3);
	struct pollfd p[3];
	int cls[3];
	char desc[160] = "";
	size_t k = 0;
	bool ready = false;
	for (int i = 0; i < nf; i++) {
		const char *nm;
		int e = pick(5);
		cls[i] = pick(C_N);
		p[i] = (struct pollfd){io_fd(cls[i], &nm), pev[e], 0x5a};
		ready |= poll_ready(cls[i], pev[e]);
		k += (size_t)snprintf(desc + k, sizeof desc - k, "%s%s:%s", i ? " " : "", nm, pevn[e]);
	}
	bool huge = pick(16) == 0;	/* nfds over RLIMIT_NOFILE: EINVAL */
	nfds_t n = huge ? (nfds_t)1 << 30 : (nfds_t)nf;
	size_t size = huge ? (size_t)-1 : (pick(2) ? sizeof p : nf * sizeof p[0]);
	if (fn == 0 && to > TO_INF)
		to = TO_ZERO;	/* poll's timeout is a number */
	if (to == TO_INF && !ready && !huge)
		to = TO_NEAR;
	long r;
	sigset_t set;
	const char *mn;
	if (fn == 0) {
		int ms = to == TO_ZERO ? 0 : to == TO_NEAR ? 1 : -1;
		begin("__poll_chk({%s}, nfds=%s, %s, size=%s)", desc, huge ? "2^30" : "n",
		      toname[to], huge ? "max" : size == sizeof p ? "3" : "n");
		r = __poll_chk(p, n, ms, size);
	} else {
		struct timespec ts = to_ts(to);
		const sigset_t *ms = mask_of(m, &set, &mn);
		begin("%s({%s}, nfds=%s, %s, mask=%s)", fn == 1 ? "ppoll" : "__ppoll_chk", desc,
		      huge ? "2^30" : "n", toname[to], mn);
		if (fn == 1)
			r = ppoll(p, n, to == TO_INF ? NULL : &ts, ms);
		else
			r = __ppoll_chk(p, n, to == TO_INF ? NULL : &ts, ms, size);
	}
	char out[96];
	k = 0;
	out[0] = '\0';
	for (int i = 0; i < nf; i++)
		k += (size_t)snprintf(out + k, sizeof out - k, "%srevents=0x%x", i ? " " : "",
				      (unsigned short)p[i].revents);
	res_sys(r, nf ? out : NULL);
}

/* --- pselect --------------------------------------------------------------------------- */

#define BIGSET 4	/* fd_sets: 4096 bits, past any nfds drawn */

static void g_pselect(void)
{
	io_setup();
	fd_set rs[BIGSET], ws[BIGSET], xs[BIGSET];
	memset(rs, 0, sizeof rs);
	memset(ws, 0, sizeof ws);
	memset(xs, 0, sizeof xs);
	int cr = pick(C_N), cw = pick(C_N), to = pick(TO_N), m = pick(3), nc = pick(6), sc = pick(4);
	const char *nr, *nw;
	int fr = io_fd(cr, &nr), fw = io_fd(cw, &nw);
	/* which sets are given: r and w, r only, w only, r w and x */
	bool ur = sc != 2, uw = sc != 1, ux = sc == 3;
	int maxfd = -1;
	if (ur && fr >= 0 && fr < FD_SETSIZE) {
		FD_SET(fr, &rs[0]);
		maxfd = fr;
	}
	if (uw && fw >= 0 && fw < FD_SETSIZE) {
		FD_SET(fw, &ws[0]);
		maxfd = fw > maxfd ? fw : maxfd;
	}
	if (ux && fr >= 0 && fr < FD_SETSIZE)
		FD_SET(fr, &xs[0]);
	static const char *const ncn[] = {"max+1", "max+1", "0", "-1", "1025", "4096"};
	int nfds = nc < 2 ? maxfd + 1 : nc == 2 ? 0 : nc == 3 ? -1 : nc == 4 ? 1025 : 4096;
	/* (a closed descriptor in a set is EBADF only below the size of
	 * the descriptor table: not counted on) */
	bool ready = (ur && ((cr == C_PR && mp[0] >= 0 && mp_bytes > 0) ||
			     (cr < NSLOT && sl[cr].fd >= 0 && sl[cr].kind == K_REG))) ||
		     (uw && ((cw == C_PW && mp[1] >= 0) ||
			     (cw < NSLOT && sl[cw].fd >= 0 && sl[cw].kind == K_REG)));
	if (nc == 2)
		ready = false;
	if (nc == 3)
		ready = true;	/* EINVAL */
	if (to == TO_INF && !ready)
		to = TO_NEAR;
	struct timespec ts = to_ts(to);
	sigset_t set;
	const char *mn;
	const sigset_t *ms = mask_of(m, &set, &mn);
	begin("pselect(nfds=%s, r={%s}, w={%s}%s, %s, mask=%s)", ncn[nc], ur ? nr : "NULL",
	      uw ? nw : "NULL", ux ? ", x=r" : "", toname[to], mn);
	long r = pselect(nfds, ur ? rs : NULL, uw ? ws : NULL, ux ? xs : NULL,
			 to == TO_INF ? NULL : &ts, ms);
	char out[64];
	snprintf(out, sizeof out, "r=%d w=%d x=%d",
		 ur && fr >= 0 && fr < FD_SETSIZE ? FD_ISSET(fr, &rs[0]) : -1,
		 uw && fw >= 0 && fw < FD_SETSIZE ? FD_ISSET(fw, &ws[0]) : -1,
		 ux && fr >= 0 && fr < FD_SETSIZE ? FD_ISSET(fr, &xs[0]) : -1);
	res_sys(r, out);
}

/* --- epoll ----------------------------------------------------------------------------- */

static void g_epoll_create(void)
{
	io_setup();
	int k = pick(6);
	static const char *const kn[] = {"epoll_create(1)", "epoll_create(0)", "epoll_create(-1)",
					 "epoll_create1(0)", "epoll_create1(CLOEXEC)",
					 "epoll_create1(0x1)"};
	begin("%s", kn[k]);
	int fd = k == 0 ? epoll_create(1) : k == 1 ? epoll_create(0) : k == 2 ? epoll_create(-1)
	       : k == 3 ? epoll_create1(0) : k == 4 ? epoll_create1(EPOLL_CLOEXEC)
	       : epoll_create1(1);
	res_fd(fd, NULL);
	if (fd < 0)
		return;
	if (epfd >= 0)
		close(epfd);
	epfd = fd;
	ep_pipe = 0;
	ep_add_pipe();
	if (evfd >= 0) {
		struct epoll_event e = {.events = EPOLLIN, .data.u32 = 3};
		epoll_ctl(epfd, EPOLL_CTL_ADD, evfd, &e);
	}
}

static void g_epoll_wait(void)
{
	io_setup();
	const char *nm;
	int c = pick(4), mc = pick(5), fn = pick(2), to = pick(TO_N), m = pick(3);
	/* the instance, a descriptor that is none (the pipe), closed, -1 */
	int cc = c == 0 ? C_EP : c == 1 ? C_PR : c == 2 ? C_CLOSED : C_NEG;
	int fd = io_fd(cc, &nm);
	static const int maxc[] = {4, 1, 0, -1, 4};
	bool nullev = mc == 4;
	struct epoll_event ev[4];
	memset(ev, 0, sizeof ev);
	/* infinite only where something is surely ready or it fails at once */
	bool ready = cc != C_EP || epfd < 0 || (ep_pipe && mp[1] >= 0) || mc == 2 || mc == 3;
	if (fn == 0 && to > TO_INF)
		to = TO_ZERO;
	if (to == TO_INF && !ready)
		to = TO_NEAR;
	sigset_t set;
	const char *mn;
	const sigset_t *ms = mask_of(m, &set, &mn);
	long r;
	if (fn == 0) {
		int tms = to == TO_ZERO ? 0 : to == TO_NEAR ? 1 : -1;
		begin("epoll_pwait(%s, %s, max=%d, %s, mask=%s)", nm, nullev ? "NULL" : "ev",
		      maxc[mc], toname[to], mn);
		r = epoll_pwait(fd, nullev ? NULL : ev, maxc[mc], tms, ms);
	} else {
		struct timespec ts = to_ts(to);
		begin("epoll_pwait2(%s, %s, max=%d, %s, mask=%s)", nm, nullev ? "NULL" : "ev",
		      maxc[mc], toname[to], mn);
		r = epoll_pwait2(fd, nullev ? NULL : ev, maxc[mc], to == TO_INF ? NULL : &ts, ms);
	}
	char out[96];
	size_t k = 0;
	out[0] = '\0';
	for (long i = 0; i < r && i < 4; i++)
		k += (size_t)snprintf(out + k, sizeof out - k, "%s%u:0x%x", i ? " " : "",
				      ev[i].data.u32, ev[i].events);
	res_sys(r, r > 0 ? out : NULL);
}

/* --- inotify ----------------------------------------------------------------------------- */

static void g_inotify(void)
{
	io_setup();
	int k = pick(5);
	static const char *const kn[] = {"inotify_init()", "inotify_init1(0)",
					 "inotify_init1(NONBLOCK)", "inotify_init1(CLOEXEC|NONBLOCK)",
					 "inotify_init1(0x1)"};
	static const int fl[] = {0, 0, IN_NONBLOCK, IN_CLOEXEC | IN_NONBLOCK, 1};
	begin("%s", kn[k]);
	int fd = k == 0 ? inotify_init() : inotify_init1(fl[k]);
	char out[32];
	int fl2 = fd >= 0 ? fcntl(fd, F_GETFL) : 0;
	snprintf(out, sizeof out, "nb=%d", !!(fl2 & O_NONBLOCK));
	res_fd(fd, fd >= 0 ? out : NULL);
	if (fd < 0)
		return;
	if (!(fl2 & O_NONBLOCK)) {
		/* made non-blocking here: a read of it never waits */
		int one = 1;
		begin("ioctl(inotify, FIONBIO, 1)");
		res_sys(ioctl(fd, FIONBIO, &one), NULL);
	}
	if (infd >= 0)
		close(infd);
	infd = fd;
	inotify_add_watch(infd, dir, IN_CREATE | IN_DELETE | IN_MODIFY | IN_OPEN);
}

/* --- stdio -------------------------------------------------------------------------------- */

#define NFILE 2
static FILE *fp[NFILE];
static char fpdesc[NFILE][80];
static int fpw[NFILE];	/* opened for writing */

static void g_fopen(void)
{
	io_setup();
	int i = pick(NFILE), p = pick(P_NCLASS), n = pick(4), mo = pick(10), w = pick(2);
	static const char *const modes[] = {"r", "r+", "w", "a", "a+", "wx", "re", "rm", "", "q"};
	if (fp[i])
		return;
	if (p == P_FIFO)
		return;		/* one direction: waits for the other end */
	if (p == P_PROC && mo != 0 && mo != 6 && mo != 7)
		return;
	if ((p == P_A || p == P_LN) && (mo == 2 || mo == 5))
		p = P_W;
	char buf[4200];
	const char *path = path_of(p, n, false, buf, sizeof buf);
	char pn[48];
	if (p == P_N)
		snprintf(pn, sizeof pn, "n%d", n);
	else
		snprintf(pn, sizeof pn, "%s", p == P_PROC ? "comm" : pname[p]);
	begin("%s(%s, \"%s\")", w ? "fopen64" : "fopen", pn, modes[mo]);
	FILE *f = w ? fopen64(path, modes[mo]) : fopen(path, modes[mo]);
	if (!f) {
		res_sys(-1, NULL);
		return;
	}
	/* what a first read finds */
	char line[16] = "";
	int e = errno;
	bool got = mo != 2 && mo != 3 && mo != 5 && fgets(line, sizeof line, f) != NULL;
	char out[64];
	snprintf(out, sizeof out, "f%d first=\"%s\"%s", i, got ? esc(line, (long)strlen(line)) : "",
		 ferror(f) ? " ferror" : "");
	errno = e;
	printf("%ld %s = FILE %s\n", step, call, out);
	clearerr(f);
	fp[i] = f;
	fpw[i] = mo != 0 && mo != 6 && mo != 7;
	snprintf(fpdesc[i], sizeof fpdesc[i], "f%d:%s/%s", i, pn, modes[mo]);
}

static void g_fclose(void)
{
	int i = pick(NFILE), k = pick(3);
	if (!fp[i])
		return;
	FILE *f = fp[i];
	fp[i] = NULL;
	static const char *const kn[] = {"", " after fputs", " after its fd was closed"};
	if (k == 1)
		fputs("PUT", f);
	if (k == 2) {
		if (fpw[i])
			fputs("PUT", f);
		close(fileno(f));
	}
	begin("fclose(%s%s)", fpdesc[i], kn[k]);
	res_sys(fclose(f), NULL);
}

/* --- a signal during the p-calls ------------------------------------------------------- */

/* SIGWINCH (its default is to ignore: safe whatever happens), blocked
 * and made pending, then unblocked by the call's mask: the call ends
 * with EINTR after the handler, unless it finds something first. */
static volatile sig_atomic_t winch_n;
static void on_winch(int s)
{
	(void)s;
	winch_n++;
}

static void g_pwait_sig(void)
{
	io_setup();
	static int installed;
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_winch;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, NULL);
		installed = 1;
	}
	sigset_t cur, blk;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	if (sigismember(&cur, SIGWINCH))
		return;
	int fn = pick(5), to = pick(2), rd = pick(2), keep = pick(4) == 0;
	sigemptyset(&blk);
	sigaddset(&blk, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &blk, NULL);
	int before = winch_n;
	pthread_kill(pthread_self(), SIGWINCH);
	/* the call's mask: the program's (SIGWINCH unblocked) or with it */
	sigset_t m = cur;
	if (keep)
		sigaddset(&m, SIGWINCH);
	/* something ready (the pipe's write end) or nothing (its empty or
	 * full-of-nothing read end: only when empty) */
	if (!rd && mp_bytes > 0)
		rd = 1;
	int fd = rd ? mp[1] : mp[0];
	short evm = rd ? POLLOUT : POLLIN;
	struct timespec ts = {0, to ? 1000000 : 0};
	const char *tn = to ? "1ms" : "0";
	const char *wn = rd ? "pipe-w:OUT (ready)" : "pipe-r:IN (empty)";
	long r;
	switch (fn) {
	case 0:
	case 1: {
		struct pollfd p = {fd, evm, 0};
		begin("%s({%s}, %s, mask=%s) with SIGWINCH pending", fn ? "__ppoll_chk" : "ppoll", wn,
		      tn, keep ? "cur+WINCH" : "cur");
		r = fn ? __ppoll_chk(&p, 1, &ts, &m, sizeof p) : ppoll(&p, 1, &ts, &m);
		break;
	}
	case 2: {
		fd_set s;
		FD_ZERO(&s);
		if (fd >= 0)
			FD_SET(fd, &s);
		begin("pselect({%s}, %s, mask=%s) with SIGWINCH pending", wn, tn,
		      keep ? "cur+WINCH" : "cur");
		r = pselect(fd + 1, rd ? NULL : &s, rd ? &s : NULL, NULL, &ts, &m);
		break;
	}
	default: {
		struct epoll_event ev[4];
		int ep = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event e = {.events = (uint32_t)(rd ? EPOLLOUT : EPOLLIN), .data.u32 = 9};
		if (ep >= 0 && fd >= 0)
			epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
		if (fn == 3) {
			begin("epoll_pwait({%s}, %s, mask=%s) with SIGWINCH pending", wn, tn,
			      keep ? "cur+WINCH" : "cur");
			r = epoll_pwait(ep, ev, 4, to ? 1 : 0, &m);
		} else {
			begin("epoll_pwait2({%s}, %s, mask=%s) with SIGWINCH pending", wn, tn,
			      keep ? "cur+WINCH" : "cur");
			r = epoll_pwait2(ep, ev, 4, &ts, &m);
		}
		int e2 = errno;
		if (ep >= 0)
			close(ep);
		errno = e2;
		break;
	}
	}
	int during = winch_n - before;
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &cur, NULL);
	int after = winch_n - before;
	char out[48];
	snprintf(out, sizeof out, "handled: in call %d, by unblock %d", during, after - during);
	errno = e;
	res_sys(r, out);
}

/* --- the table ------------------------------------------------------------------------------ */

const struct gen gens_io[] = {
	GEN(g_open, "open open64 openat openat64 __open_2 __open64_2 __openat_2 __openat64_2 "
		    "creat creat64 close flock"),
	/* twice: the slots fill and change often */
	GEN(g_open, "open open64 openat openat64 __open_2 __open64_2 __openat_2 __openat64_2 "
		    "creat creat64 close flock"),
	GEN(g_read, "__read_chk readv pread pread64 __pread_chk __pread64_chk preadv preadv64"),
	GEN(g_write, "writev pwrite pwrite64 pwritev pwritev64"),
	GEN(g_sync, "fsync fdatasync"),
	GEN(g_flock, "flock lockf"),
	GEN(g_ioctl, "ioctl fcntl"),
	GEN(g_dup2, "dup2 fcntl __read_chk close"),
	GEN(g_pipe, "pipe close"),
	GEN(g_poll, "__poll_chk ppoll __ppoll_chk pthread_sigmask"),
	GEN(g_pselect, "pselect pthread_sigmask"),
	GEN(g_epoll_create, "epoll_create epoll_create1 close"),
	GEN(g_epoll_wait, "epoll_pwait epoll_pwait2 pthread_sigmask"),
	GEN(g_inotify, "inotify_init inotify_init1 ioctl fcntl close"),
	GEN(g_fopen, "fopen fopen64"),
	GEN(g_fclose, "fclose close"),
	GEN(g_pwait_sig, "ppoll __ppoll_chk pselect epoll_pwait epoll_pwait2 epoll_create1 "
			 "pthread_sigmask pthread_kill sigaction close"),
};
const size_t ngens_io = sizeof gens_io / sizeof gens_io[0];
