/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_net.c — the fuzzer's generators for sockets, name lookups and System V IPC
 * (tests/fuzz/fuzz.h).
 *
 * Sockets: a socketpair (AF_UNIX, stream, datagram or seqpacket,
 * blocking or not), a TCP listener on 127.0.0.1 (port 0, non-blocking),
 * an AF_UNIX listener bound in a mkdtemp directory (blocking), two client
 * slots and two accepted slots, a UDP socket on 127.0.0.1 that sends to
 * itself. Every blocking socket has short SO_RCVTIMEO and SO_SNDTIMEO,
 * set before anything can wait on it, so no call waits long: a call that
 * would wait times out with EAGAIN in both libraries. Queues are kept
 * short (counted sends) so sends never fill a buffer.
 *
 * Name lookups: numeric hosts, "localhost" (in /etc/hosts: files answer,
 * no DNS), and names that fail before any lookup.
 *
 * System V IPC: a message queue and a set of two semaphores made once
 * with IPC_PRIVATE (removed at exit), plus a removed id; blocking forms
 * only where the model says they return at once (a matching message,
 * room in the queue, a semaphore operation that can proceed).
 *
 * Classes marked KNOWN are ones libgmp answered differently from NPTL
 * when this file was written (all fixed since: they stay in, as
 * regression tests); HANGS, one where libgmp waited for ever.
 */
#include "fuzz.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define KNOWN 1
#define HANGS 1

/* glibc's _FORTIFY_SOURCE entry points (bits/socket2.h declares them only
 * under _FORTIFY_SOURCE) */
extern ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
extern ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
			      struct sockaddr *addr, socklen_t *alen);

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

/* --- the environment: directory, listeners, IPC objects ------------------------ */

static char dir[64];
static char upath[96], nopath[96], fpath[96];
static int filefd = -1;
static int msqid = -1, semid = -1, deadmsq = -1, deadsem = -1;

#define RCV_US 2000		/* SO_RCVTIMEO of blocking sockets */
#define SND_US 20000		/* SO_SNDTIMEO */

static void set_tmo(int fd, long rcv_us, long snd_us)
{
	struct timeval r = {rcv_us / 1000000, rcv_us % 1000000};
	struct timeval s = {snd_us / 1000000, snd_us % 1000000};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &r, sizeof r);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &s, sizeof s);
}

/* Small TCP segments go at once (no Nagle wait for an ACK): what a
 * receive finds does not depend on time. */
static void nodelay(int fd, int type)
{
	int one = 1;
	if (fd >= 0 && type == SOCK_STREAM)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Socket objects */
enum { O_SP0, O_SP1, O_TL, O_UL, O_C0, O_C1, O_A0, O_A1, O_UDP, O_TB, NOBJ };
static const char *const oname[] = {"sp0", "sp1", "tl", "ul", "c0", "c1", "a0", "a1", "udp", "tb"};
static struct obj {
	int fd;
	int type;		/* SOCK_STREAM, ... */
	int dom;		/* AF_UNIX, AF_INET */
	int nb;
	int sent;		/* sends that succeeded: queues stay short */
	int q;			/* what is queued for it: messages (datagram), bytes (stream) */
	int peerdead;
} ob[NOBJ];
static int pending[2];		/* connections queued at tl, ul */
static struct sockaddr_in tl_addr, tb_addr, udp_addr;

static void cleanup(void)
{
	if (msqid >= 0)
		msgctl(msqid, IPC_RMID, NULL);
	if (semid >= 0)
		semctl(semid, 0, IPC_RMID);
	if (dir[0]) {
		unlink(upath);
		unlink(fpath);
		rmdir(dir);
	}
}

static void obj_clear(int i)
{
	if (ob[i].fd >= 0)
		close(ob[i].fd);
	ob[i].fd = -1;
	ob[i].sent = ob[i].q = ob[i].peerdead = 0;
}

static void inet_sock(int i, int type, int nb)
{
	ob[i].fd = socket(AF_INET, type | (nb ? SOCK_NONBLOCK : 0), 0);
	ob[i].type = type, ob[i].dom = AF_INET, ob[i].nb = nb;
	if (ob[i].fd >= 0 && !nb)
		set_tmo(ob[i].fd, RCV_US, SND_US);
	nodelay(ob[i].fd, type);
}

static void env(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	for (int i = 0; i < NOBJ; i++)
		ob[i].fd = -1;
	strcpy(dir, "/tmp/fuzznet.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = 0;
		return;
	}
	snprintf(upath, sizeof upath, "%s/ul", dir);
	snprintf(nopath, sizeof nopath, "%s/none", dir);
	snprintf(fpath, sizeof fpath, "%s/file", dir);
	filefd = open(fpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	atexit(cleanup);

	socklen_t l;
	/* TCP listener, non-blocking */
	inet_sock(O_TL, SOCK_STREAM, 1);
	tl_addr.sin_family = AF_INET;
	tl_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(ob[O_TL].fd, (struct sockaddr *)&tl_addr, sizeof tl_addr);
	l = sizeof tl_addr;
	getsockname(ob[O_TL].fd, (struct sockaddr *)&tl_addr, &l);
	listen(ob[O_TL].fd, 16);
	/* a bound TCP socket that does not listen: connections are refused */
	inet_sock(O_TB, SOCK_STREAM, 0);
	tb_addr.sin_family = AF_INET;
	tb_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(ob[O_TB].fd, (struct sockaddr *)&tb_addr, sizeof tb_addr);
	l = sizeof tb_addr;
	getsockname(ob[O_TB].fd, (struct sockaddr *)&tb_addr, &l);
	/* UDP, blocking, on the port number of the bound TCP socket: a TCP
	 * connect to its address is then always refused (no other TCP
	 * socket can hold that port), where an ephemeral port of its own
	 * might be a TCP listener's in some runs */
	inet_sock(O_UDP, SOCK_DGRAM, 0);
	udp_addr.sin_family = AF_INET;
	udp_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	udp_addr.sin_port = tb_addr.sin_port;
	if (bind(ob[O_UDP].fd, (struct sockaddr *)&udp_addr, sizeof udp_addr) != 0) {
		udp_addr.sin_port = 0;
		bind(ob[O_UDP].fd, (struct sockaddr *)&udp_addr, sizeof udp_addr);
	}
	l = sizeof udp_addr;
	getsockname(ob[O_UDP].fd, (struct sockaddr *)&udp_addr, &l);
	/* AF_UNIX listener, blocking (its accept times out) */
	ob[O_UL].fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ob[O_UL].type = SOCK_STREAM, ob[O_UL].dom = AF_UNIX;
	set_tmo(ob[O_UL].fd, RCV_US, SND_US);
	struct sockaddr_un ua = {.sun_family = AF_UNIX};
	strcpy(ua.sun_path, upath);
	bind(ob[O_UL].fd, (struct sockaddr *)&ua, sizeof ua);
	listen(ob[O_UL].fd, 16);

	msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	semid = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	deadmsq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	msgctl(deadmsq, IPC_RMID, NULL);
	deadsem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	semctl(deadsem, 0, IPC_RMID);
}

static const char *odesc(int i)
{
	static char b[4][48];
	static int k;
	char *s = b[k++ & 3];
	if (ob[i].fd < 0) {
		snprintf(s, 48, "%s:none", oname[i]);
		return s;
	}
	const char *t = ob[i].type == SOCK_STREAM ? "stream" : ob[i].type == SOCK_DGRAM ? "dgram"
										: "seqpacket";
	snprintf(s, 48, "%s:%s/%s%s%s", oname[i], ob[i].dom == AF_UNIX ? "unix" : "inet", t,
		 ob[i].nb ? "/nb" : "", ob[i].peerdead ? "/peer-closed" : "");
	return s;
}

/* A descriptor for a socket call: one of the objects, or a file, a
 * closed number, -1, a huge one, the shared pipe's ends (not for accept:
 * see the report in pick_fd's caller). *oi: the object, or -1. */
enum { FD_FILE = NOBJ, FD_CLOSED, FD_M1, FD_HUGE, FD_PIPER, FD_PIPEW, NFDCLS };

static int pick_fd(int *oi, const char **name, bool pipes)
{
	int k = pick(pipes ? NFDCLS : FD_PIPER);
	*oi = -1;
	if (k < NOBJ) {
		*name = odesc(k);
		if (ob[k].fd >= 0)
			*oi = k;
		return ob[k].fd;
	}
	switch (k) {
	case FD_FILE: *name = "file"; return filefd;
	case FD_CLOSED: return fd_of(2, name);
	case FD_M1: return fd_of(3, name);
	case FD_HUGE: return fd_of(4, name);
	case FD_PIPER: return fd_of(0, name);
	default: return fd_of(1, name);
	}
}

/* The object that receives what object i sends, if known. */
static int peer_of(int i)
{
	if (i == O_SP0 || i == O_SP1)
		return ob[1 - (i - O_SP0) + O_SP0].fd >= 0 ? 1 - (i - O_SP0) + O_SP0 : -1;
	if (i == O_UDP)
		return O_UDP;
	return -1;
}

/* May object i send now without filling a queue? */
static bool may_send(int i)
{
	if (i < 0)
		return true;
	if (ob[i].sent >= 24)
		return false;
	int p = peer_of(i);
	if (p >= 0 && ob[p].type != SOCK_STREAM && ob[p].q >= 6)
		return false;
	return true;
}

static void sent(int i, long r)
{
	if (i < 0 || r < 0)
		return;
	ob[i].sent++;
	int p = peer_of(i);
	if (p >= 0)
		ob[p].q += ob[p].type == SOCK_STREAM ? (int)r : 1;
	if (i == O_UDP) {
		/* loopback delivery: wait until it is there */
		struct pollfd pp = {ob[i].fd, POLLIN, 0};
		poll(&pp, 1, 200);
	}
}

static void got(int i, long r, int flags, int msgs)
{
	if (i < 0 || r < 0 || (flags & MSG_PEEK))
		return;
	if (ob[i].type == SOCK_STREAM)
		ob[i].q -= (int)r;
	else
		ob[i].q -= msgs;
	if (ob[i].q < 0)
		ob[i].q = 0;
}

static const char payload[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
static char big[70000];

static void show_data(char *out, size_t n, const char *tag, const char *b, long r)
{
	char s[20];
	int k = r < 0 ? 0 : r > 16 ? 16 : (int)r;
	for (int j = 0; j < k; j++)
		s[j] = b[j] >= 32 && b[j] < 127 ? b[j] : '.';
	s[k] = 0;
	snprintf(out, n, "%s\"%s\"", tag, s);
}

/* --- socket, socketpair ----------------------------------------------------------- */

static void g_socket(void)
{
	static const int dom[] = {AF_UNIX, AF_INET, AF_INET6, 9999, AF_NETLINK};
	static const char *const dn[] = {"UNIX", "INET", "INET6", "9999", "NETLINK"};
	static const int ty[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, 77};
	static const char *const tn[] = {"STREAM", "DGRAM", "SEQPACKET", "77"};
	static const int fl[] = {0, SOCK_NONBLOCK, SOCK_CLOEXEC, 0x40000000};
	static const int pr[] = {0, IPPROTO_UDP, 9999};
	int d = pick(5), t = pick(4), f = pick(4), p = pick(3);
	if (d == 4)
		t = 1, p = 0;	/* NETLINK_ROUTE datagram: made only locally */
	begin("socket(%s, %s|0x%x, %d)", dn[d], tn[t], fl[f], pr[p]);
	int fd = socket(dom[d], ty[t] | fl[f], pr[p]);
	res_sys(fd < 0 ? -1 : 0, fd >= 0 ? "fd>=0" : NULL);
	if (fd >= 0)
		close(fd);
}

static void g_socketpair(void)
{
	static const int dom[] = {AF_UNIX, AF_UNIX, AF_UNIX, AF_INET, 9999};
	static const char *const dn[] = {"UNIX", "UNIX", "UNIX", "INET", "9999"};
	static const int ty[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, 77};
	static const char *const tn[] = {"STREAM", "DGRAM", "SEQPACKET", "77"};
	static const int fl[] = {0, SOCK_NONBLOCK, SOCK_CLOEXEC, 0x40000000};
	env();
	int k = pick(8);
	if (k == 0 && ob[O_SP1].fd >= 0) {
		/* the peer goes away: the other end sees EOF, EPIPE, ECONNREFUSED */
		obj_clear(O_SP1);
		ob[O_SP0].peerdead = 1;
		return;
	}
	int d = pick(5), t = pick(4), f = pick(4), nul = pick(10) == 0;
	if (nul)
		d = 0, t = 0, f = 0;
	int sv[2] = {-1, -1};
	begin("socketpair(%s, %s|0x%x, 0, %s)", dn[d], tn[t], fl[f], nul ? "NULL" : "sv");
	long r = socketpair(dom[d], ty[t] | fl[f], 0, nul ? NULL : sv);
	res_sys(r, r == 0 ? "sv>=0" : NULL);
	if (r == 0) {
		obj_clear(O_SP0);
		obj_clear(O_SP1);
		for (int j = 0; j < 2; j++) {
			struct obj *o = &ob[O_SP0 + j];
			o->fd = sv[j], o->type = ty[t], o->dom = AF_UNIX;
			o->nb = (fl[f] & SOCK_NONBLOCK) != 0;
			if (!o->nb)
				set_tmo(o->fd, RCV_US, SND_US);
		}
	}
}

/* --- connect, accept ---------------------------------------------------------------- */

/* Wait for a connection in progress to end (established or refused). */
static void settle(int fd)
{
	struct pollfd p = {fd, POLLOUT, 0};
	poll(&p, 1, 1000);
}

static void g_connect(void)
{
	env();
	enum { T_TL, T_UL, T_NOENT, T_FILE, T_REFUSED, T_BADLEN, T_FAMILY, T_NULL, T_UDP, NT };
	static const char *const tname[] = {"tcp-listener", "unix-listener", "unix-noent",
					    "unix-file", "tcp-refused", "badlen", "family",
					    "NULL", "udp"};
	int t = pick(NT), c = O_C0 + pick(2), reuse = pick(3) == 0, nb = pick(2);
	int useother = pick(8) == 0;	/* an invalid or other descriptor instead */
	bool unix_t = t == T_UL || t == T_NOENT || t == T_FILE;
	if ((t == T_TL && pending[0] >= 8) || (t == T_UL && pending[1] >= 8))
		return;
	int fd;
	const char *fname;
	int oi = -1;
	if (useother) {
		fd = pick_fd(&oi, &fname, true);
		if (oi >= 0) {
			/* a pool socket keeps its state: only addresses that
			 * are refused before anything is done */
			static const int keep[] = {T_BADLEN, T_FAMILY, T_NULL};
			t = keep[pick(3)];
		}
	} else if (reuse && ob[c].fd >= 0) {
		fd = ob[c].fd;
		fname = odesc(c);
		oi = c;
	} else {
		obj_clear(c);
		int dom = unix_t ? AF_UNIX : AF_INET;
		int ty = t == T_UDP ? SOCK_DGRAM : SOCK_STREAM;
		ob[c].fd = socket(dom, ty | (nb ? SOCK_NONBLOCK : 0), 0);
		ob[c].type = ty, ob[c].dom = dom, ob[c].nb = nb;
		if (!nb)	/* a blocking handshake may take its time */
			set_tmo(ob[c].fd, RCV_US, 1000000);
		if (dom == AF_INET)
			nodelay(ob[c].fd, ty);
		fd = ob[c].fd;
		fname = odesc(c);
		oi = c;
	}
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t len = 0;
	struct sockaddr_un *ua = (struct sockaddr_un *)&ss;
	switch (t) {
	case T_TL:
		memcpy(&ss, &tl_addr, sizeof tl_addr), len = sizeof tl_addr;
		break;
	case T_REFUSED:
		memcpy(&ss, &tb_addr, sizeof tb_addr), len = sizeof tb_addr;
		break;
	case T_UDP:
		memcpy(&ss, &udp_addr, sizeof udp_addr), len = sizeof udp_addr;
		break;
	case T_UL:
	case T_NOENT:
	case T_FILE:
		ua->sun_family = AF_UNIX;
		strcpy(ua->sun_path, t == T_UL ? upath : t == T_NOENT ? nopath : fpath);
		len = sizeof *ua;
		break;
	case T_BADLEN:
		memcpy(&ss, &tl_addr, sizeof tl_addr), len = 1;
		break;
	case T_FAMILY:
		ss.ss_family = 9999 & 0xff, len = sizeof tl_addr;
		break;
	default:
		break;
	}
	/* a new connection is one more queued at a listener: a client that
	 * had no peer and has one now (a second connect of a connected
	 * socket may answer 0 whatever the address) */
	struct sockaddr_storage pa;
	socklen_t pl = sizeof pa;
	bool had = oi >= 0 && getpeername(fd, (struct sockaddr *)&pa, &pl) == 0;
	begin("connect(%s, %s)", fname, tname[t]);
	long r = connect(fd, t == T_NULL ? NULL : (struct sockaddr *)&ss, len);
	int e = errno;
	if (oi >= 0 && (r == 0 || e == EINPROGRESS || e == EALREADY))
		settle(fd);
	pl = sizeof pa;
	if ((oi == O_C0 || oi == O_C1) && ob[oi].type == SOCK_STREAM && !had &&
	    getpeername(fd, (struct sockaddr *)&pa, &pl) == 0) {
		if (t == T_TL && ob[oi].dom == AF_INET)
			pending[0]++;
		if (t == T_UL && ob[oi].dom == AF_UNIX)
			pending[1]++;
	}
	errno = e;
	res_sys(r, NULL);
	if (oi == c && !ob[c].nb)
		set_tmo(fd, RCV_US, SND_US);
}

static void g_accept(void)
{
	env();
	static const int fl[] = {0, SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC, 0x1};
	int which = pick(4), f = pick(5), a = pick(4), four = pick(2);
	int fd, oi;
	const char *n;
	if (which < 2) {
		oi = which ? O_UL : O_TL;
		fd = ob[oi].fd;
		n = odesc(oi);
	} else {
		/* a blocking pipe end: NPTL ENOTSOCK at once, libgmp waits for
		 * it to be readable, for ever (no receive timeout on a pipe):
		 * HANGS */
		fd = pick_fd(&oi, &n, HANGS);
	}
	if (!four)
		f = 0;
	/* accept4 with unknown flags on a blocking listener with nothing
	 * queued: NPTL EINVAL at once, libgmp waits for a connection (here
	 * its receive timeout: EAGAIN). KNOWN. On a blocking socket that
	 * does not listen and has nothing to read: NPTL EINVAL or
	 * EOPNOTSUPP at once, libgmp waits for it to be readable. KNOWN. */
	int lis = oi == O_TL ? 0 : oi == O_UL ? 1 : -1;
	if (!KNOWN) {
		if (fl[f] == 0x1 && lis == 1 && pending[1] == 0)
			return;
		if (oi >= 0 && lis < 0 && !ob[oi].nb)
			return;
	}
	if (lis >= 0 && pending[lis] > 0) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 1000) == 0)
			pending[lis] = 0;	/* (a wrong count: not again) */
	}
	static const char *const an[] = {"NULL", "full", "short", "len=-1"};
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t len = a == 1 ? sizeof ss : a == 2 ? 4 : (socklen_t)-1;
	if (four)
		begin("accept4(%s, %s, 0x%x)", n, an[a], fl[f]);
	else
		begin("accept(%s, %s)", n, an[a]);
	int r = four ? accept4(fd, a ? (struct sockaddr *)&ss : NULL, a ? &len : NULL, fl[f])
		     : accept(fd, a ? (struct sockaddr *)&ss : NULL, a ? &len : NULL);
	int e = errno;
	if (lis >= 0 && pending[lis] > 0 && (r >= 0 || (a == 3 && fl[f] != 0x1 && e == EINVAL)))
		pending[lis]--;	/* a bad length: taken, then refused */
	char out[64];
	if (r >= 0) {
		snprintf(out, sizeof out, "fd>=0 alen=%d family=%d", a ? (int)len : -1,
			 a ? ss.ss_family : -1);
		int s = O_A0 + pick(2);
		obj_clear(s);
		ob[s].fd = r, ob[s].type = SOCK_STREAM, ob[s].dom = lis == 0 ? AF_INET : AF_UNIX;
		ob[s].nb = (fl[f] & SOCK_NONBLOCK) != 0;
		if (!ob[s].nb)
			set_tmo(r, RCV_US, SND_US);
		if (lis == 0)
			nodelay(r, SOCK_STREAM);
	} else {
		snprintf(out, sizeof out, "alen=%d", a ? (int)len : -1);
	}
	errno = e;
	res_sys(r < 0 ? -1 : 0, out);
}

/* --- sends ------------------------------------------------------------------------ */

static const int sflags[] = {0, MSG_DONTWAIT, MSG_OOB, MSG_CONFIRM, MSG_EOR, 0x10000000};
static const char *const sfname[] = {"0", "DONTWAIT", "OOB", "CONFIRM", "EOR", "0x10000000"};

static void g_send(void)
{
	env();
	int oi;
	const char *n;
	int fd = pick_fd(&oi, &n, true);
	int f = pick(6), to = pick(2), a = pick(5), l = pick(4);
	if (!may_send(oi))
		return;
	/* 70,000 bytes only where they go as one datagram or fail: a stream
	 * would fill */
	if (l == 3 && oi >= 0 && ob[oi].type == SOCK_STREAM)
		l = 2;
	static const size_t lens[] = {0, 5, 16, sizeof big};
	static const char *const aname[] = {"NULL", "udp", "unix-noent", "badlen", "family"};
	const void *buf = l == 3 ? big : payload;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t len = 0;
	if (a == 1)
		memcpy(&ss, &udp_addr, sizeof udp_addr), len = sizeof udp_addr;
	else if (a == 2) {
		struct sockaddr_un *ua = (struct sockaddr_un *)&ss;
		ua->sun_family = AF_UNIX;
		strcpy(ua->sun_path, nopath);
		len = sizeof *ua;
	} else if (a == 3)
		memcpy(&ss, &udp_addr, sizeof udp_addr), len = 3;
	else if (a == 4)
		ss.ss_family = 77, len = sizeof udp_addr;
	int fl = sflags[f] | MSG_NOSIGNAL;
	long r;
	if (to) {
		begin("sendto(%s, %zu, NOSIGNAL|%s, %s)", n, lens[l], sfname[f], aname[a]);
		r = sendto(fd, buf, lens[l], fl, a ? (struct sockaddr *)&ss : NULL, len);
	} else {
		begin("send(%s, %zu, NOSIGNAL|%s)", n, lens[l], sfname[f]);
		r = send(fd, buf, lens[l], fl);
	}
	int e = errno;
	sent(oi, r);
	errno = e;
	res_sys(r, NULL);
}

static void g_sendmsg(void)
{
	env();
	int oi;
	const char *n;
	int fd = pick_fd(&oi, &n, true);
	int f = pick(6), v = pick(6), nm = pick(3);
	if (!may_send(oi))
		return;
	/* iov classes: one, two, none, 1025 (over UIO_MAXIOV), NULL with one,
	 * the whole msghdr NULL */
	static const char *const vn[] = {"iov1", "iov2", "iov0", "iovlen=1025", "iov=NULL/1",
					 "msg=NULL"};
	/* libgmp reads a NULL msghdr or iov on a polled descriptor (SIGSEGV)
	 * where the kernel says EFAULT; it says EMSGSIZE for 1025 vectors
	 * where the kernel first finds the descriptor is not a socket. KNOWN. */
	if (!KNOWN && (v == 4 || v == 5) && (oi >= 0 || fd == pfd[0] || fd == pfd[1]))
		return;
	if (!KNOWN && v == 3 && fd >= 0 && (fd == pfd[0] || fd == pfd[1]))
		return;
	static struct iovec many[1025];
	for (int j = 0; j < 1025; j++)
		many[j] = (struct iovec){(void *)payload, 1};
	struct iovec iov[2] = {{(void *)payload, 5}, {(void *)(payload + 5), 7}};
	struct msghdr m = {0};
	struct sockaddr_in to = udp_addr;
	if (nm == 1)
		m.msg_name = &to, m.msg_namelen = sizeof to;
	else if (nm == 2)
		m.msg_name = &to, m.msg_namelen = 2;
	switch (v) {
	case 0: m.msg_iov = iov, m.msg_iovlen = 1; break;
	case 1: m.msg_iov = iov, m.msg_iovlen = 2; break;
	case 2: m.msg_iov = iov, m.msg_iovlen = 0; break;
	case 3: m.msg_iov = many, m.msg_iovlen = 1025; break;
	default: m.msg_iov = NULL, m.msg_iovlen = 1; break;
	}
	begin("sendmsg(%s, %s, name=%s, NOSIGNAL|%s)", n, vn[v],
	      nm == 0 ? "NULL" : nm == 1 ? "udp" : "len2", sfname[f]);
	long r = sendmsg(fd, v == 5 ? NULL : &m, sflags[f] | MSG_NOSIGNAL);
	int e = errno;
	sent(oi, r);
	errno = e;
	res_sys(r, NULL);
}

static void g_sendmmsg(void)
{
	env();
	int oi;
	const char *n;
	int fd = pick_fd(&oi, &n, true);
	int f = pick(3), k = pick(4), nm = pick(2);
	if (!may_send(oi) || (oi >= 0 && ob[oi].sent >= 20))
		return;
	static const unsigned vl[] = {0, 1, 3, 3};
	/* no messages on a pipe: NPTL ENOTSOCK (the kernel looks at the
	 * descriptor first), libgmp 0 without a system call. KNOWN. */
	if (!KNOWN && k == 0 && fd >= 0 && (fd == pfd[0] || fd == pfd[1]))
		return;
	struct iovec iov[3] = {{(void *)payload, 3}, {(void *)(payload + 3), 4},
			       {(void *)(payload + 7), 5}};
	struct sockaddr_in to = udp_addr;
	struct mmsghdr mv[3];
	memset(mv, 0, sizeof mv);
	for (int j = 0; j < 3; j++) {
		mv[j].msg_hdr.msg_iov = &iov[j];
		mv[j].msg_hdr.msg_iovlen = 1;
		if (nm)
			mv[j].msg_hdr.msg_name = &to, mv[j].msg_hdr.msg_namelen = sizeof to;
		mv[j].msg_len = 77;
	}
	begin("sendmmsg(%s, %s%u, name=%s, NOSIGNAL|%s)", n, k == 3 ? "NULL/" : "", vl[k],
	      nm ? "udp" : "NULL", sfname[f]);
	int r = sendmmsg(fd, k == 3 ? NULL : mv, vl[k], sflags[f] | MSG_NOSIGNAL);
	int e = errno;
	if (oi >= 0 && r > 0) {
		for (int j = 0; j < r; j++)
			sent(oi, mv[j].msg_len);
	}
	char out[64] = "";
	if (r >= 0 && k != 3)
		snprintf(out, sizeof out, "len=%u,%u,%u", mv[0].msg_len, mv[1].msg_len, mv[2].msg_len);
	errno = e;
	res_sys(r, out[0] ? out : NULL);
}

/* --- receives --------------------------------------------------------------------- */

static const int rflags[] = {0, MSG_DONTWAIT, MSG_PEEK, MSG_TRUNC, MSG_WAITALL, MSG_OOB,
			     MSG_ERRQUEUE, MSG_PEEK | MSG_DONTWAIT, MSG_CMSG_CLOEXEC};
static const char *const rfname[] = {"0", "DONTWAIT", "PEEK", "TRUNC", "WAITALL", "OOB",
				     "ERRQUEUE", "PEEK|DONTWAIT", "CMSG_CLOEXEC"};
#define NRFLAGS 9

/* A receive of 0 bytes on a blocking TCP socket with nothing to read:
 * both wait the receive timeout, then the kernel answers 0 (tcp_recvmsg
 * ends its loop with nothing copied) where libgmp answers EAGAIN (its own
 * timeout, the call not made again). KNOWN. */
static bool tcp_zero_wait(int oi, size_t len, int flags)
{
	return !KNOWN && len == 0 && oi >= 0 && ob[oi].dom == AF_INET &&
	       ob[oi].type == SOCK_STREAM && !ob[oi].nb && !(flags & MSG_DONTWAIT);
}

static void g_recv(void)
{
	env();
	int oi;
	const char *n;
	int fd = pick_fd(&oi, &n, true);
	int f = pick(NRFLAGS), which = pick(4), l = pick(3), a = pick(3);
	static const size_t lens[] = {0, 4, 64};
	if (tcp_zero_wait(oi, lens[l], rflags[f]))
		return;
	/* MSG_WAITALL on a blocking datagram or seqpacket socket: NPTL one
	 * message, libgmp joins messages until the buffer is full (or waits
	 * for more: here its receive timeout). KNOWN. */
	if (!KNOWN && rflags[f] == MSG_WAITALL && oi >= 0 && ob[oi].type != SOCK_STREAM &&
	    !ob[oi].nb)
		return;
	char b[64];
	memset(b, 0, sizeof b);
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t len = a == 1 ? sizeof ss : 1;
	long r;
	static const char *const an[] = {"NULL", "full", "len1"};
	switch (which) {
	case 0:
		begin("recv(%s, %zu, %s)", n, lens[l], rfname[f]);
		r = recv(fd, b, lens[l], rflags[f]);
		break;
	case 1:
		begin("__recv_chk(%s, %zu, 64, %s)", n, lens[l], rfname[f]);
		r = __recv_chk(fd, b, lens[l], sizeof b, rflags[f]);
		break;
	case 2:
		begin("recvfrom(%s, %zu, %s, %s)", n, lens[l], rfname[f], an[a]);
		r = recvfrom(fd, b, lens[l], rflags[f], a ? (struct sockaddr *)&ss : NULL,
			     a ? &len : NULL);
		break;
	default:
		begin("__recvfrom_chk(%s, %zu, 64, %s, %s)", n, lens[l], rfname[f], an[a]);
		r = __recvfrom_chk(fd, b, lens[l], sizeof b, rflags[f],
				   a ? (struct sockaddr *)&ss : NULL, a ? &len : NULL);
		break;
	}
	int e = errno;
	got(oi, r, rflags[f], 1);
	char out[80], d[32];
	show_data(d, sizeof d, "data=", b, r > (long)lens[l] ? (long)lens[l] : r);
	if (which >= 2 && a)
		snprintf(out, sizeof out, "%s alen=%d family=%d", d, (int)len, ss.ss_family);
	else
		snprintf(out, sizeof out, "%s", d);
	errno = e;
	res_sys(r, out);
}

static void g_recvmsg(void)
{
	env();
	int oi;
	const char *n;
	int fd = pick_fd(&oi, &n, true);
	int f = pick(NRFLAGS), v = pick(6), nm = pick(2), ctl = pick(2);
	static const char *const vn[] = {"iov1", "iov2", "iov0", "iovlen=1025", "iov=NULL/1",
					 "msg=NULL"};
	char b1[8], b2[32], cbuf[64];
	memset(b1, 0, sizeof b1);
	memset(b2, 0, sizeof b2);
	static char sink[1025];
	static struct iovec many[1025];
	for (int j = 0; j < 1025; j++)
		many[j] = (struct iovec){sink + j, 1};
	struct iovec iov[2] = {{b1, sizeof b1}, {b2, sizeof b2}};
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	struct msghdr m = {0};
	if (nm)
		m.msg_name = &ss, m.msg_namelen = sizeof ss;
	if (ctl)
		m.msg_control = cbuf, m.msg_controllen = sizeof cbuf;
	switch (v) {
	case 0: m.msg_iov = iov, m.msg_iovlen = 1; break;
	case 1: m.msg_iov = iov, m.msg_iovlen = 2; break;
	case 2: m.msg_iov = iov, m.msg_iovlen = 0; break;
	case 3: m.msg_iov = many, m.msg_iovlen = 1025; break;
	default: m.msg_iov = NULL, m.msg_iovlen = 1; break;
	}
	m.msg_flags = 0x5a5a;
	if (v == 2 && tcp_zero_wait(oi, 0, rflags[f]))
		return;
	begin("recvmsg(%s, %s, name=%s, ctl=%d, %s)", n, vn[v], nm ? "buf" : "NULL", ctl,
	      rfname[f]);
	long r = recvmsg(fd, v == 5 ? NULL : &m, rflags[f]);
	int e = errno;
	got(oi, r, rflags[f], 1);
	char out[96], d[32];
	show_data(d, sizeof d, "data=", b1, r > 8 ? 8 : r);
	snprintf(out, sizeof out, "%s namelen=%d ctllen=%zu flags=0x%x", d, (int)m.msg_namelen,
		 (size_t)m.msg_controllen, (unsigned)m.msg_flags);
	errno = e;
	res_sys(r, out);
}

static void g_recvmmsg(void)
{
	env();
	int oi;
	const char *n;
	int fd = pick_fd(&oi, &n, true);
	static const int mf[] = {0, MSG_DONTWAIT, MSG_WAITFORONE, MSG_PEEK, MSG_TRUNC};
	static const char *const mfn[] = {"0", "DONTWAIT", "WAITFORONE", "PEEK", "TRUNC"};
	int f = pick(5), k = pick(4), tc = pick(7);
	static const unsigned vl[] = {0, 1, 3, 3};
	/* timeout classes: NULL, zero, 1 ms, malformed */
	static const char *const tn[] = {"NULL", "0", "1ms", "nsec=1e9", "nsec=-1", "sec=-1",
					 "NULL"};
	struct timespec ts[] = {{0, 0}, {0, 0}, {0, 1000000}, {0, 1000000000}, {0, -1}, {-1, 0},
				{0, 0}};
	char b[3][16];
	memset(b, 0, sizeof b);
	struct iovec iov[3];
	struct mmsghdr mv[3];
	memset(mv, 0, sizeof mv);
	for (int j = 0; j < 3; j++) {
		iov[j] = (struct iovec){b[j], sizeof b[j]};
		mv[j].msg_hdr.msg_iov = &iov[j];
		mv[j].msg_hdr.msg_iovlen = 1;
		mv[j].msg_len = 77;
	}
	begin("recvmmsg(%s, %s%u, %s, %s)", n, k == 3 ? "NULL/" : "", vl[k], mfn[f], tn[tc]);
	int r = recvmmsg(fd, k == 3 ? NULL : mv, vl[k], mf[f],
			 tc == 0 || tc == 6 ? NULL : &ts[tc]);
	int e = errno;
	got(oi, r, mf[f], r);
	char out[128] = "";
	if (r > 0 && k != 3) {
		char d0[32], d1[32], d2[32];
		show_data(d0, sizeof d0, "", b[0], mv[0].msg_len > 16 ? 16 : mv[0].msg_len);
		show_data(d1, sizeof d1, "", b[1], r > 1 ? (mv[1].msg_len > 16 ? 16 : mv[1].msg_len) : 0);
		show_data(d2, sizeof d2, "", b[2], r > 2 ? (mv[2].msg_len > 16 ? 16 : mv[2].msg_len) : 0);
		snprintf(out, sizeof out, "len=%u,%u,%u data=%s,%s,%s", mv[0].msg_len,
			 mv[1].msg_len, mv[2].msg_len, d0, d1, d2);
	}
	errno = e;
	res_sys(r, out[0] ? out : NULL);
}

/* --- setsockopt -------------------------------------------------------------------- */

static void g_setsockopt(void)
{
	env();
	/* on a pool socket: only what keeps it from waiting long; the rest on
	 * a socket made for the call */
	int own = pick(3);
	int oi = -1;
	const char *n = "fresh-udp";
	int fd;
	if (own == 0) {
		fd = pick_fd(&oi, &n, true);
	} else {
		fd = socket(own == 1 ? AF_INET : AF_UNIX, SOCK_DGRAM, 0);
		n = own == 1 ? "fresh-udp" : "fresh-unix-dgram";
	}
	enum { RCVTMO, SNDTMO, TMO_BADUSEC, TMO_NEGSEC, TMO_SHORT, REUSE, REUSE_SHORT, RCVBUF,
	       BADLEVEL, BADNAME, NULLVAL, TMO_ZERO, NK };
	static const char *const kn[] = {"SO_RCVTIMEO=1ms", "SO_SNDTIMEO=20ms",
					 "SO_RCVTIMEO usec=1e6", "SO_SNDTIMEO sec=-1",
					 "SO_RCVTIMEO len=4", "SO_REUSEADDR=1", "SO_REUSEADDR len=2",
					 "SO_RCVBUF=4096", "level=9999", "SOL_SOCKET name=9999",
					 "SO_REUSEADDR NULL", "SO_RCVTIMEO=0"};
	int k = pick(NK);
	/* an infinite timeout on a blocking pool socket would let a later
	 * call wait for ever */
	if (own == 0 && oi >= 0 && !ob[oi].nb && (k == TMO_NEGSEC || k == TMO_ZERO))
		k = RCVTMO;
	if (own == 0 && oi >= 0 && k == RCVBUF)
		k = REUSE;
	struct timeval tv = {0, 0};
	int one = 1, lvl = SOL_SOCKET, name = SO_RCVTIMEO;
	const void *val = &tv;
	socklen_t len = sizeof tv;
	switch (k) {
	case RCVTMO: tv.tv_usec = 1000; break;
	case SNDTMO: name = SO_SNDTIMEO, tv.tv_usec = 20000; break;
	case TMO_BADUSEC: tv.tv_usec = 1000000; break;
	case TMO_NEGSEC: name = SO_SNDTIMEO, tv.tv_sec = -1; break;
	case TMO_SHORT: len = 4; break;
	case REUSE: name = SO_REUSEADDR, val = &one, len = sizeof one; break;
	case REUSE_SHORT: name = SO_REUSEADDR, val = &one, len = 2; break;
	case RCVBUF: one = 4096, name = SO_RCVBUF, val = &one, len = sizeof one; break;
	case BADLEVEL: lvl = 9999, name = 1, val = &one, len = sizeof one; break;
	case BADNAME: name = 9999, val = &one, len = sizeof one; break;
	case NULLVAL: name = SO_REUSEADDR, val = NULL, len = sizeof one; break;
	default: break;	/* zero: no timeout */
	}
	begin("setsockopt(%s, %s)", n, kn[k]);
	res_sys(setsockopt(fd, lvl, name, val, len), NULL);
	if (own) {
		/* what the socket does with it: a receive that would wait */
		if (k == RCVTMO || k == TMO_BADUSEC || k == TMO_SHORT) {
			if (k != RCVTMO) {
				struct timeval t = {0, 1000};
				setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
			}
			char b[4];
			begin("recv(%s after SO_RCVTIMEO, 4, 0)", n);
			res_sys(recv(fd, b, sizeof b, 0), NULL);
		}
		close(fd);
	}
}

/* --- name lookups ------------------------------------------------------------------- */

static const char *gai_name(int r)
{
	static char b[16];
	switch (r) {
	case 0: return "0";
	case EAI_BADFLAGS: return "EAI_BADFLAGS";
	case EAI_NONAME: return "EAI_NONAME";
	case EAI_AGAIN: return "EAI_AGAIN";
	case EAI_FAIL: return "EAI_FAIL";
	case EAI_FAMILY: return "EAI_FAMILY";
	case EAI_SOCKTYPE: return "EAI_SOCKTYPE";
	case EAI_SERVICE: return "EAI_SERVICE";
	case EAI_MEMORY: return "EAI_MEMORY";
	case EAI_SYSTEM: return "EAI_SYSTEM";
	case EAI_OVERFLOW: return "EAI_OVERFLOW";
	case EAI_NODATA: return "EAI_NODATA";
	case EAI_ADDRFAMILY: return "EAI_ADDRFAMILY";
	default: snprintf(b, sizeof b, "EAI#%d", r); return b;
	}
}

/* A name-lookup result: its EAI code (errno for EAI_SYSTEM), and errno
 * otherwise only whether it changed. */
static void res_gai(int r, const char *out)
{
	int e = errno;
	printf("%ld %s = %s%s%s%s%s\n", step, call, gai_name(r),
	       r == EAI_SYSTEM ? " " : "", r == EAI_SYSTEM ? ename(e) : "",
	       out ? " " : "", out ? out : "");
}

static void g_getaddrinfo(void)
{
	static const char *const node[] = {"127.0.0.1", "localhost", "not-a-number", NULL,
					   "::1", "1.2.3.4.5", "127.1"};
	static const char *const serv[] = {NULL, "80", "http", "no-such-service", "99999"};
	static const int fam[] = {AF_UNSPEC, AF_INET, AF_INET6, 9999};
	static const int sock[] = {0, SOCK_STREAM, SOCK_DGRAM, 99};
	static const int flg[] = {0, AI_NUMERICHOST, AI_NUMERICHOST | AI_NUMERICSERV, AI_PASSIVE,
				  AI_CANONNAME | AI_NUMERICHOST, 0x10000};
	int nd = pick(7), sv = pick(5), fa = pick(4), so = pick(4), fl = pick(6), nh = pick(6) == 0;
	if (nd == 3 && sv == 0)
		sv = 1;	/* (both NULL: EAI_NONAME; kept below) */
	if (pick(12) == 0)
		sv = 0, nd = 3;
	int flags = flg[fl];
	/* no DNS: a name that is not numeric only with AI_NUMERICHOST, except
	 * "localhost" in IPv4 (/etc/hosts answers) */
	if (nd == 2 || nd == 5)
		flags |= AI_NUMERICHOST;
	if (nd == 1 && fa == 2)
		fa = 1;
	struct addrinfo h = {0}, *res = NULL;
	h.ai_family = fam[fa], h.ai_socktype = sock[so], h.ai_flags = flags;
	begin("getaddrinfo(%s, %s, %s fam=%d sock=%d flags=0x%x)", node[nd] ? node[nd] : "NULL",
	      serv[sv] ? serv[sv] : "NULL", nh ? "hints=NULL" : "hints", nh ? 0 : fam[fa],
	      nh ? 0 : sock[so], nh ? 0 : flags);
	if (nh && nd != 0 && nd != 3 && nd != 4 && nd != 6) {
		nd = 0;	/* NULL hints: flags 0, numeric names only */
		snprintf(call, sizeof call, "getaddrinfo(127.0.0.1, %s, hints=NULL)",
			 serv[sv] ? serv[sv] : "NULL");
	}
	int r = getaddrinfo(node[nd], serv[sv], nh ? NULL : &h, &res);
	char out[160] = "";
	if (r == 0) {
		int cnt = 0, o = 0;
		for (struct addrinfo *p = res; p && o < 140; p = p->ai_next, cnt++)
			o += snprintf(out + o, sizeof out - (size_t)o, "%s%d/%d/%d", cnt ? "," : "",
				      p->ai_family, p->ai_socktype, p->ai_protocol);
		freeaddrinfo(res);
	}
	res_gai(r, out[0] ? out : NULL);
}

static void g_getnameinfo(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(80)};
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons(7)};
	sin6.sin6_addr = in6addr_loopback;
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	strcpy(sun.sun_path, "/x");
	static const int flg[] = {NI_NUMERICHOST | NI_NUMERICSERV, NI_NUMERICHOST,
				  NI_NUMERICHOST | NI_NUMERICSERV | NI_NAMEREQD,
				  NI_NUMERICHOST | NI_NUMERICSERV | NI_DGRAM,
				  NI_NUMERICHOST | NI_NUMERICSERV | 0x4000};
	int a = pick(5), f = pick(5), hl = pick(4), sl = pick(3);
	static const char *const an[] = {"in", "in6", "unix", "in/len=3", "family=77"};
	const struct sockaddr *sa = (const struct sockaddr *)&sin;
	socklen_t salen = sizeof sin;
	struct sockaddr_in bad = sin;
	bad.sin_family = 77;
	switch (a) {
	case 1: sa = (const struct sockaddr *)&sin6, salen = sizeof sin6; break;
	case 2: sa = (const struct sockaddr *)&sun, salen = sizeof sun; break;
	case 3: salen = 3; break;
	case 4: sa = (const struct sockaddr *)&bad; break;
	default: break;
	}
	/* an AF_UNIX address's host is the node name; asked only as a number */
	static const socklen_t hlen[] = {64, 4, 0, 64};
	static const socklen_t slen[] = {16, 1, 0};
	char host[64] = "", srv[16] = "";
	begin("getnameinfo(%s, host %u%s, serv %u, flags 0x%x)", an[a], hlen[hl],
	      hl == 3 ? "/NULL" : "", slen[sl], flg[f]);
	int r = getnameinfo(sa, salen, hl == 3 ? NULL : host, hl == 3 ? 0 : hlen[hl],
			    sl == 2 ? NULL : srv, slen[sl], flg[f]);
	char out[128];
	snprintf(out, sizeof out, "host=\"%s\" serv=\"%s\"", a == 2 ? (host[0] ? "set" : "") : host,
		 srv);
	res_gai(r, out);
}

static void show_hostent(char *out, size_t n, const struct hostent *h)
{
	if (!h) {
		snprintf(out, n, "NULL h_errno=%d", h_errno);
		return;
	}
	int na = 0, nal = 0;
	while (h->h_addr_list[na])
		na++;
	while (h->h_aliases[nal])
		nal++;
	char a[INET6_ADDRSTRLEN] = "";
	if (na)
		inet_ntop(h->h_addrtype, h->h_addr_list[0], a, sizeof a);
	snprintf(out, n, "name=%s type=%d len=%d addrs=%d aliases=%d first=%s", h->h_name,
		 h->h_addrtype, h->h_length, na, nal, a);
}

/* Names the gethostby* functions answer without DNS: numbers, and
 * "localhost" (in /etc/hosts) in IPv4. */
static const char *const hname[] = {"127.0.0.1", "localhost", "1.2.3.4.5", "127.1", "::1",
				    "10.0.0.1"};
static const int hfam[] = {AF_INET, AF_INET6, 9999};

static void g_gethostbyname(void)
{
	int k = pick(6), which = pick(2), fa = pick(3);
	/* "localhost" only in IPv4, "::1" only in IPv6 (the numbers) */
	if (k == 1 && fa != 0)
		fa = 0;
	if (k == 4 && (which == 0 || fa != 1))
		which = 1, fa = 1;
	if (k == 2)	/* not a valid number: asked only as IPv6 (parsed, refused) */
		which = 1, fa = 1;
	struct hostent *h;
	if (which == 0) {
		begin("gethostbyname(%s)", hname[k]);
		h_errno = 0;
		h = gethostbyname(hname[k]);
	} else {
		begin("gethostbyname2(%s, %d)", hname[k], hfam[fa]);
		h_errno = 0;
		h = gethostbyname2(hname[k], hfam[fa]);
	}
	char out[160];
	int e = errno;
	show_hostent(out, sizeof out, h);
	errno = e;
	printf("%ld %s = %s%s\n", step, call, out, errno != SENTINEL && !h ? " errno-changed" : "");
}

static void g_gethostbyname_r(void)
{
	int k = pick(6), which = pick(2), fa = pick(3), bl = pick(3);
	if (k == 1 && fa != 0)
		fa = 0;
	if (k == 4 && (which == 0 || fa != 1))
		which = 1, fa = 1;
	if (k == 2)
		which = 1, fa = 1;
	static const size_t blen[] = {1024, 8, 0};
	char buf[1024];
	struct hostent he, *res = (struct hostent *)1;
	int herr = -7, r;
	if (which == 0) {
		begin("gethostbyname_r(%s, buf %zu)", hname[k], blen[bl]);
		r = gethostbyname_r(hname[k], &he, buf, blen[bl], &res, &herr);
	} else {
		begin("gethostbyname2_r(%s, %d, buf %zu)", hname[k], hfam[fa], blen[bl]);
		r = gethostbyname2_r(hname[k], hfam[fa], &he, buf, blen[bl], &res, &herr);
	}
	char out[200], h[160];
	int e = errno;
	if (res == (struct hostent *)1)
		snprintf(h, sizeof h, "result untouched");
	else if (!res)
		snprintf(h, sizeof h, "result=NULL");
	else
		show_hostent(h, sizeof h, res);
	snprintf(out, sizeof out, "herr=%d %s", herr, h);
	errno = e;
	res_code(r, out);
}

static void g_gethostbyaddr(void)
{
	/* 127.0.0.1 is in /etc/hosts; the others fail before any lookup */
	static const char *const an[] = {"127.0.0.1/4/INET", "127.0.0.1/3/INET", "::/16/INET6",
					 "127.0.0.1/4/9999"};
	struct in_addr lo = {htonl(INADDR_LOOPBACK)};
	struct in6_addr any = IN6ADDR_ANY_INIT;
	int k = pick(4), re = pick(2), bl = pick(2);
	const void *addr = k == 2 ? (const void *)&any : (const void *)&lo;
	socklen_t len = k == 1 ? 3 : k == 2 ? 16 : 4;
	int type = k == 2 ? AF_INET6 : k == 3 ? 9999 : AF_INET;
	char out[200], h[160];
	if (!re) {
		begin("gethostbyaddr(%s)", an[k]);
		h_errno = 0;
		struct hostent *p = gethostbyaddr(addr, len, type);
		int e = errno;
		show_hostent(out, sizeof out, p);
		errno = e;
		printf("%ld %s = %s%s%s\n", step, call, out, !p ? " errno=" : "",
		       !p ? ename(errno) : "");
		return;
	}
	static const size_t blen[] = {1024, 8};
	char buf[1024];
	struct hostent he, *res = (struct hostent *)1;
	int herr = -7;
	begin("gethostbyaddr_r(%s, buf %zu)", an[k], blen[bl]);
	int r = gethostbyaddr_r(addr, len, type, &he, buf, blen[bl], &res, &herr);
	int e = errno;
	if (res == (struct hostent *)1)
		snprintf(h, sizeof h, "result untouched");
	else if (!res)
		snprintf(h, sizeof h, "result=NULL");
	else
		show_hostent(h, sizeof h, res);
	snprintf(out, sizeof out, "herr=%d %s", herr, h);
	errno = e;
	res_code(r, out);
}

/* --- System V message queue ------------------------------------------------------- */

#define MQMAX 8
static long mq[MQMAX];		/* the queue's message types, in order */
static int mqsz[MQMAX];
static int mqn;

struct fmsg {
	long mtype;
	char mtext[128];
};

/* The index in the queue msgrcv(type, flags) takes, or -1. */
static int mq_match(long type, int flags)
{
	if (type == 0)
		return mqn ? 0 : -1;
	if (type > 0) {
		for (int j = 0; j < mqn; j++)
			if ((mq[j] == type) != ((flags & MSG_EXCEPT) != 0))
				return j;
		return -1;
	}
	int best = -1;
	for (int j = 0; j < mqn; j++)
		if (mq[j] <= -type && (best < 0 || mq[j] < mq[best]))
			best = j;
	return best;
}

static void g_msgsnd(void)
{
	env();
	int idc = pick(8), ty = pick(5), sz = pick(6), nw = pick(2), nul = pick(12) == 0;
	static const long tys[] = {1, 2, 3, 0, -1};
	static const size_t szs[] = {0, 5, 40, 128, 9000, (size_t)-1};
	int id = idc < 6 ? msqid : idc == 6 ? -1 : deadmsq;
	const char *idn = idc < 6 ? "q" : idc == 6 ? "-1" : "removed";
	if (id == msqid && mqn >= MQMAX && !nw)
		nw = 1;	/* a full model: never wait for room */
	if (id == msqid && mqn >= MQMAX && (ty < 3 && szs[sz] <= 8192))
		return;
	if (szs[sz] > 128 && szs[sz] <= 8192)
		sz = 3;
	struct fmsg m;
	m.mtype = tys[ty];
	memcpy(m.mtext, payload, sizeof m.mtext < sizeof payload ? sizeof m.mtext : sizeof payload);
	begin("msgsnd(%s, %s, type=%ld, %zd, %s)", idn, nul ? "NULL" : "msg", tys[ty],
	      (ssize_t)szs[sz], nw ? "IPC_NOWAIT" : "0");
	long r = msgsnd(id, nul ? NULL : &m, szs[sz], nw ? IPC_NOWAIT : 0);
	int e = errno;
	if (r == 0 && id == msqid && mqn < MQMAX) {
		mq[mqn] = tys[ty], mqsz[mqn] = (int)szs[sz];
		mqn++;
	}
	struct msqid_ds ds;
	char out[32] = "";
	if (msgctl(msqid, IPC_STAT, &ds) == 0)
		snprintf(out, sizeof out, "qnum=%lu", (unsigned long)ds.msg_qnum);
	errno = e;
	res_sys(r, out);
}

static void g_msgrcv(void)
{
	env();
	int idc = pick(8), ty = pick(6), sz = pick(4), fl = pick(8);
	static const long tys[] = {0, 1, 2, -2, 3, 1};
	static const size_t szs[] = {128, 10, 0, 64};
	static const int fls[] = {IPC_NOWAIT, 0, IPC_NOWAIT | MSG_NOERROR, MSG_NOERROR,
				  IPC_NOWAIT | MSG_EXCEPT, MSG_EXCEPT, IPC_NOWAIT | MSG_COPY,
				  MSG_COPY};
	static const char *const fn[] = {"IPC_NOWAIT", "0", "IPC_NOWAIT|MSG_NOERROR",
					 "MSG_NOERROR", "IPC_NOWAIT|MSG_EXCEPT", "MSG_EXCEPT",
					 "IPC_NOWAIT|MSG_COPY", "MSG_COPY"};
	int id = idc < 6 ? msqid : idc == 6 ? -1 : deadmsq;
	const char *idn = idc < 6 ? "q" : idc == 6 ? "-1" : "removed";
	int flags = fls[fl];
	long type = tys[ty];
	bool copy = flags & MSG_COPY;
	int j = copy ? (type >= 0 && type < mqn ? (int)type : -1) : mq_match(type, flags);
	/* a wait only where a message is there to take */
	if (id == msqid && !(flags & IPC_NOWAIT) && !copy && j < 0)
		flags |= IPC_NOWAIT, fl = fl == 1 ? 0 : fl == 3 ? 2 : 4;
	/* MSG_COPY without IPC_NOWAIT: NPTL EINVAL, libgmp copies the
	 * message (it tries IPC_NOWAIT first). KNOWN. */
	if (!KNOWN && copy && !(flags & IPC_NOWAIT) && j >= 0)
		return;
	struct fmsg m;
	memset(&m, 0, sizeof m);
	m.mtype = -77;
	begin("msgrcv(%s, %zu, type=%ld, %s)", idn, szs[sz], type, fn[fl]);
	long r = msgrcv(id, &m, szs[sz], type, flags);
	int e = errno;
	if (r >= 0 && id == msqid && !copy) {
		int k = mq_match(type, flags);
		if (k >= 0) {
			memmove(&mq[k], &mq[k + 1], (size_t)(mqn - k - 1) * sizeof mq[0]);
			memmove(&mqsz[k], &mqsz[k + 1], (size_t)(mqn - k - 1) * sizeof mqsz[0]);
			mqn--;
		}
	}
	char out[64], d[32];
	show_data(d, sizeof d, "text=", m.mtext, r);
	snprintf(out, sizeof out, "mtype=%ld %s", m.mtype, d);
	errno = e;
	res_sys(r, out);
}

/* --- System V semaphores -------------------------------------------------------------- */

static void semvals(char *out, size_t n)
{
	int v0 = semctl(semid, 0, GETVAL), v1 = semctl(semid, 1, GETVAL);
	snprintf(out, n, "sem=%d,%d", v0, v1);
}

/* Would the operations proceed (or fail) at once? */
static bool sem_at_once(const struct sembuf *ops, size_t n)
{
	int v[2] = {semctl(semid, 0, GETVAL), semctl(semid, 1, GETVAL)};
	for (size_t i = 0; i < n; i++) {
		if (ops[i].sem_num >= 2)
			return true;	/* EFBIG */
		int *p = &v[ops[i].sem_num];
		if (ops[i].sem_op > 0) {
			if (*p + ops[i].sem_op > 32767)
				return true;	/* ERANGE */
			*p += ops[i].sem_op;
		} else if (ops[i].sem_op < 0) {
			if (*p < -ops[i].sem_op)
				return (ops[i].sem_flg & IPC_NOWAIT) != 0;
			*p += ops[i].sem_op;
		} else if (*p != 0) {
			return (ops[i].sem_flg & IPC_NOWAIT) != 0;
		}
	}
	return true;
}

static void g_sem(void)
{
	env();
	int timed = pick(2), idc = pick(8), nk = pick(8), tc = pick(7), nul = pick(16) == 0;
	int id = idc < 6 ? semid : idc == 6 ? -1 : deadsem;
	const char *idn = idc < 6 ? "s" : idc == 6 ? "-1" : "removed";
	static struct sembuf ops[501];
	size_t n;
	char desc[96];
	int o = 0;
	static const short opv[] = {1, -1, 0, 2, -2};
	static const short flv[] = {0, IPC_NOWAIT, SEM_UNDO, IPC_NOWAIT | SEM_UNDO};
	if (nk == 6) {
		n = 40;	/* many: +1 then -1 on sem 1 */
		for (int i = 0; i < 40; i++)
			ops[i] = (struct sembuf){1, (short)(i & 1 ? -1 : 1), 0};
		o = snprintf(desc, sizeof desc, "40 ops +1/-1");
	} else if (nk == 7) {
		n = pick(2) ? 0 : 501;
		for (int i = 0; i < 40; i++)
			ops[i] = (struct sembuf){0, 1, 0};
		o = snprintf(desc, sizeof desc, "nsops=%zu", n);
	} else {
		n = nk < 4 ? 1 : 2;
		for (size_t i = 0; i < n; i++) {
			int num = pick(8) == 0 ? 7 : pick(2), v = pick(5), f = pick(4);
			int vals[2] = {semctl(semid, 0, GETVAL), semctl(semid, 1, GETVAL)};
			if (opv[v] > 0 && num < 2 && vals[num] > 6)
				v = 1;	/* keep the values small */
			ops[i] = (struct sembuf){(unsigned short)num, opv[v], flv[f]};
			o += snprintf(desc + o, sizeof desc - (size_t)o, "%s{%d,%+d,%s}", i ? "," : "",
				      num, opv[v], f == 0 ? "0" : f == 1 ? "NOWAIT" : f == 2 ? "UNDO"
										  : "NOWAIT|UNDO");
		}
	}
	(void)o;
	/* timeouts: NULL, zero, 1 ms, malformed */
	static const char *const tn[] = {"NULL", "0", "1ms", "nsec=1e9", "nsec=-1", "sec=-1",
					 "1ms"};
	struct timespec ts[] = {{0, 0}, {0, 0}, {0, 1000000}, {0, 1000000000}, {0, -1}, {-1, 0},
				{0, 1000000}};
	bool valid_t = tc == 0 || tc == 1 || tc == 2 || tc == 6;
	bool ok_now = id != semid || n == 0 || n > 500 || sem_at_once(ops, n);
	bool all_nw = true;
	for (size_t i = 0; i < n && i < 40; i++)
		if (!(ops[i].sem_flg & IPC_NOWAIT))
			all_nw = false;
	if (nul && n > 0 && n <= 40) {
		/* NULL operations: EFAULT from the kernel; libgmp reads them
		 * first (SIGSEGV). KNOWN. */
		if (!KNOWN)
			return;
		begin("%s(%s, NULL, %zu%s%s)", timed ? "semtimedop" : "semop", idn, n,
		      timed ? ", " : "", timed ? "1ms" : "");
		if (timed) {
			struct timespec t = {0, 1000000};
			res_sys(semtimedop(id, NULL, n, &t), NULL);
		} else {
			res_sys(semop(id, NULL, n), NULL);
		}
		return;
	}
	if (!timed) {
		if (!ok_now)
			return;	/* would wait for ever */
		begin("semop(%s, %s)", idn, desc);
		long r = semop(id, ops, n);
		int e = errno;
		char out[32];
		semvals(out, sizeof out);
		errno = e;
		res_sys(r, out);
		return;
	}
	/* A malformed timeout: NPTL EINVAL before anything; libgmp first
	 * tries the operations without waiting, and answers what that try
	 * answers unless it is EAGAIN: 0 where they proceed (and they are
	 * made), EFBIG for a semaphore number out of range. KNOWN. */
	if (!KNOWN && !valid_t && !all_nw && id == semid && n > 0 && n <= 500)
		return;
	if (tc == 0 && !ok_now)
		return;
	begin("semtimedop(%s, %s, %s)", idn, desc, tn[tc]);
	long r = semtimedop(id, ops, n, tc == 0 ? NULL : &ts[tc]);
	int e = errno;
	char out[32];
	semvals(out, sizeof out);
	errno = e;
	res_sys(r, out);
}

/* --- the table ------------------------------------------------------------------------ */

const struct gen gens_net[] = {
	GEN(g_socket, "socket"),
	GEN(g_socketpair, "socketpair"),
	GEN(g_connect, "connect socket"),
	GEN(g_accept, "accept accept4"),
	GEN(g_send, "send sendto"),
	GEN(g_sendmsg, "sendmsg"),
	GEN(g_sendmmsg, "sendmmsg"),
	GEN(g_recv, "recv __recv_chk recvfrom __recvfrom_chk"),
	GEN(g_recvmsg, "recvmsg"),
	GEN(g_recvmmsg, "recvmmsg"),
	GEN(g_setsockopt, "setsockopt recv socket"),
	GEN(g_getaddrinfo, "getaddrinfo"),
	GEN(g_getnameinfo, "getnameinfo"),
	GEN(g_gethostbyname, "gethostbyname gethostbyname2"),
	GEN(g_gethostbyname_r, "gethostbyname_r gethostbyname2_r"),
	GEN(g_gethostbyaddr, "gethostbyaddr gethostbyaddr_r"),
	GEN(g_msgsnd, "msgsnd"),
	GEN(g_msgrcv, "msgrcv"),
	GEN(g_sem, "semop semtimedop"),
};
const size_t ngens_net = sizeof gens_net / sizeof gens_net[0];
