/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_net.c — compat tests of blocking I/O on pipes and sockets
 * (suite "net"). Each test runs an ordinary pthread program from
 * tests/progs/net_* in a child process with a timeout: first under NPTL,
 * where it must pass, then with libgmp preloaded (never into this
 * runner), with the default processors and with GMPMAXPROCS=1. libgmp
 * makes sockets and pipes non-blocking in the kernel and parks a thread
 * whose call would block; the program must not see any of it: the same
 * output (data, errno values, O_NONBLOCK as the program set it, timeouts
 * no shorter than asked) and the same exit status as under NPTL.
 *
 * Two tests are not plain comparisons: closewake, where libgmp
 * deliberately differs from Linux (a thread parked on an fd is woken with
 * EBADF when the fd is closed), and the echo server with 2,000
 * connections open at once, which under libgmp must be served by a
 * handful of OS threads.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds one run of net_io may take (each subcommand needs under 1 s
 * under NPTL); a test makes at most three runs. */
#define RUN_TIMEOUT 30
#define TEST_TIMEOUT (3 * RUN_TIMEOUT + 10)

/* Seconds for the echo server and client together (under 1 s under
 * NPTL with 2,000 connections on two cores). */
#define ECHO_TIMEOUT 60
#define ECHO_TEST_TIMEOUT (2 * ECHO_TIMEOUT + 10)

/* One run of prog with subcommand sub (may be NULL). procs: -1 under
 * NPTL, 0 under libgmp with its default, n > 0 with GMPMAXPROCS=n. */
static struct run run_net(const char *prog, const char *sub, int procs)
{
	char path[4096], env1[32];
	snprintf(path, sizeof path, "%s", prog_path(prog));
	snprintf(env1, sizeof env1, "GMPMAXPROCS=%d", procs);
	const char *argv[] = {path, sub, NULL};
	const char *env[] = {procs > 0 ? env1 : NULL, NULL};
	return run_prog(argv, env, RUN_TIMEOUT, procs >= 0);
}

static const char *procs_name(int procs)
{
	return procs < 0 ? "under NPTL" : procs ? "under libgmp, GMPMAXPROCS=1" : "under libgmp";
}

/* out ends with the line "PASS <what>". */
static bool ends_with_pass(const char *out, const char *what)
{
	char pass[300];
	snprintf(pass, sizeof pass, "PASS %s\n", what);
	size_t ol = strlen(out), pl = strlen(pass);
	return ol >= pl && strcmp(out + ol - pl, pass) == 0;
}

/*
 * The test proper: prog sub passes under NPTL (exit 0, its PASS line
 * last), and libgmp, with the default processors and with one, prints
 * exactly the same and exits the same. Each line in `lines` (NULL-ended,
 * may be NULL) must be in the output.
 */
static void same_as_nptl(const char *prog, const char *sub, const char *const lines[])
{
	char what[256];
	snprintf(what, sizeof what, "%s%s%s", prog, sub ? " " : "", sub ? sub : "");

	struct run nptl = run_net(prog, sub, -1);
	bool passed = run_code(&nptl) == 0 && ends_with_pass(nptl.out, what);
	if (!passed)
		run_dump("under NPTL", &nptl);
	cr_assert(passed, "%s does not pass under NPTL (code %d)", what, run_code(&nptl));
	for (int i = 0; lines && lines[i]; i++)
		cr_assert(strstr(nptl.out, lines[i]), "%s: output lacks \"%s\"", what, lines[i]);

	static const int procs[] = {0, 1};
	for (int k = 0; k < 2; k++) {
		struct run gmp = run_net(prog, sub, procs[k]);
		const char *how = procs_name(procs[k]);
		bool same = strcmp(nptl.out, gmp.out) == 0;
		if (!same || run_code(&gmp) != 0) {
			run_dump(how, &gmp);
			run_show_difference(nptl.out, gmp.out);
		}
		cr_assert_eq(run_code(&gmp), 0, "%s %s: exit code %d%s", what, how, run_code(&gmp),
			     gmp.timed_out ? " (timed out)" : "");
		cr_assert(same, "%s: output %s differs from NPTL's", what, how);
		run_free(&gmp);
	}
	run_free(&nptl);
}

#define LINES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Test `name`: net_io sub as same_as_nptl says, with the lines (LINES(...)
 * or NULL) in its output. */
#define SAME_AS_NPTL(name, sub, lines) \
	Test(net, name, .timeout = TEST_TIMEOUT) \
	{ \
		same_as_nptl("net_io", sub, lines); \
	}

/* ---- 1. streams between threads ----------------------------------------------------------- */

/* Two threads ping-pong 20,000 messages of 1 to 8 bytes over two pipes,
 * every byte checked; 1 MiB through a pipe in 7,777-byte writev calls
 * (none short, as a blocking pipe write never is) read by readv,
 * checksummed. */
SAME_AS_NPTL(pipe_ping_pong_and_bulk, "pipe",
	     LINES("pipe ping-pong: 20000 messages of 1 to 8 bytes each way, every byte verified",
		   "pipe bulk: 1048576 bytes in 135 writev calls of at most 7777 bytes, none short; "
		   "checksum matches"))

/* The same over an AF_UNIX SOCK_STREAM socketpair: send/recv, then
 * sendmsg/recvmsg with three and two iovecs. */
SAME_AS_NPTL(socketpair_ping_pong_and_bulk, "socketpair",
	     LINES("socketpair ping-pong: 20000 messages of 1 to 8 bytes each way, every byte "
		   "verified",
		   "socketpair bulk: 1048576 bytes in 135 sendmsg calls of at most 7777 bytes, none "
		   "short; checksum matches"))

/* A UDP server on 127.0.0.1, 8 client threads x 500 round trips by
 * sendto/recvfrom; the server answers half by recvfrom/sendto and half by
 * recvmmsg(MSG_WAITFORONE)/sendmmsg. */
SAME_AS_NPTL(udp_request_reply, "udp",
	     LINES("udp: 8 clients x 500 round trips; 2000 answered by recvfrom/sendto, 2000 by "
		   "recvmmsg/sendmmsg; every reply verified"))

/* A thread-per-connection echo server and 50 client connections in one
 * process, 64 KiB each, written by one thread while another reads the
 * echo; blocking connect, accept in a loop, shutdown(SHUT_WR) to end. */
SAME_AS_NPTL(tcp_echo_in_process, "tcp",
	     LINES("tcp echo: 50 connections x 65536 bytes, every echoed byte verified; the server "
		   "saw 50 ends of file"))

/* ---- 2. waiting for readiness ------------------------------------------------------------- */

/* poll, ppoll, select, pselect, epoll_wait, epoll_pwait: a timeout on an
 * empty pipe returns 0 and not before the time asked (returning early is
 * the bug; there is no upper bound); a byte another thread writes 20 ms
 * into the wait ends it with the fd ready; POLLOUT on a pipe with room
 * at once; poll and select without fds sleep; select's timeval is
 * updated as Linux does; select on a pipe beside a regular file (which
 * epoll cannot watch: the kernel waits) wakes for the pipe; POLLNVAL,
 * POLLERR, POLLHUP; an epoll waiter in another thread is woken by a
 * write; EPOLLET reports an edge once. */
SAME_AS_NPTL(poll_select_epoll, "poll",
	     LINES("poll, empty pipe, 50 ms: 0, after at least 50 ms",
		   "poll, byte written by another thread after 20 ms: 1 POLLIN",
		   "poll POLLOUT, pipe with room: 1 POLLOUT",
		   "poll without fds, 50 ms: 0, after at least 50 ms",
		   "select's timeval after the timeout: 0.000000",
		   "select on a pipe (read) and a regular file (exceptions), byte after 20 ms: 1, "
		   "the pipe",
		   "epoll_pwait in another thread, woken by a write: 1 event, EPOLLIN, data 42"))

/* poll, ppoll, select, pselect and epoll_wait with a zero timeout on an
 * empty pipe, in 4 threads, 400,000 calls each: always 0. Linux fails
 * poll and select with EINTR when any handler runs during the call, even
 * without waiting; sysmon's preemption requests, which the busy threads
 * get, must not show. */
SAME_AS_NPTL(zero_timeout_checks_never_fail, "zero",
	     LINES("poll, ppoll, select, pselect, epoll_wait, zero timeout, empty pipe, 4 threads x "
		   "400000 calls: all 0"))

/* ---- 3. errors and flags ------------------------------------------------------------------ */

/* ECONNREFUSED from a blocking connect, and through poll + SO_ERROR after
 * a non-blocking one; SO_RCVTIMEO and SO_SNDTIMEO expire with EAGAIN no
 * sooner than set (less one clock tick, which Linux itself may lose);
 * MSG_DONTWAIT; O_NONBLOCK exactly as the program set it (fresh fds are
 * blocking, F_SETFL, FIONBIO, SOCK_NONBLOCK, pipe2, accept4, a dup shares
 * it), and EAGAIN where it is set; EBADF, EPIPE, ENOTCONN. */
SAME_AS_NPTL(errno_values_and_nonblocking_flag, "errors",
	     LINES("blocking connect to a closed port: -1 ECONNREFUSED",
		   "then poll POLLOUT: ready; SO_ERROR: refused",
		   "recv, SO_RCVTIMEO 100 ms, no data: -1 EAGAIN",
		   "send, SO_SNDTIMEO 100 ms, buffer full: -1 EAGAIN",
		   "fresh TCP socket: blocking",
		   "accept4(SOCK_NONBLOCK): non-blocking",
		   "accept: blocking",
		   "read on a closed fd: -1 EBADF",
		   "write to a pipe whose read end is closed: -1 EPIPE"))

/* read, recv, accept and poll are cancellation points: a thread blocked
 * in each is cancelled and its cleanup handler runs. */
SAME_AS_NPTL(blocked_io_is_a_cancellation_point, "cancel",
	     LINES("read: cancelled while blocked, cleanup handlers run: 1",
		   "poll: cancelled while blocked, cleanup handlers run: 4"))

/* A child made by vfork that execs (as Python's subprocess does) finds
 * its stdout pipe blocking: seq writes all 588,895 bytes. In the last of
 * three rounds the child opens /proc/self/fd, which takes the number of
 * the read end it closed, as Python's close_fds does: the parent's read
 * end must stay blocking in the program's view (the child once made
 * libgmp forget it, and Python's communicate() then read nothing). */
SAME_AS_NPTL(vfork_child_gets_a_blocking_pipe, "vfork",
	     LINES("vfork child: seq 1 100000 wrote 588895 bytes into the pipe, exit status 0"))

/* A pipe and a socket the program left blocking (after a blocking
 * transfer on each) are blocking in a child made by posix_spawn and by
 * fork+execve, as the kernel reports it to the child; a pipe end the
 * program made non-blocking is non-blocking there. The parent's view and
 * blocking reads are unchanged afterwards. */
SAME_AS_NPTL(inherited_fds_keep_the_programs_mode, "spawnflags",
	     LINES("  child: pipe-read-end: blocking\n  child: socket: blocking\n"
		   "  child: non-blocking-pipe-write-end: non-blocking\nposix_spawn child: exit 0",
		   "  child: pipe-read-end: blocking\n  child: socket: blocking\n"
		   "  child: non-blocking-pipe-write-end: non-blocking\nfork+execve child: exit 0"))

/* ---- 4. closing an fd another thread waits on --------------------------------------------- */

/* A thread blocks in read() on a pipe; main closes the fd, then writes a
 * byte into the pipe. Linux lets the blocked read go on (it holds the
 * pipe open) and return the byte; libgmp wakes a thread parked on an fd
 * that is closed, with EBADF, as Go's netpoller does. So the expected
 * line differs: each run is checked on its own. */
Test(net, close_wakes_a_blocked_reader, .timeout = TEST_TIMEOUT)
{
	static const int procs[] = {-1, 0, 1};
	for (int k = 0; k < 3; k++) {
		struct run r = run_net("net_io", "closewake", procs[k]);
		const char *want = procs[k] < 0 ? "reader: data\n" : "reader: EBADF\n";
		bool ok = run_code(&r) == 0 && ends_with_pass(r.out, "net_io closewake") &&
			  strstr(r.out, want);
		if (!ok)
			run_dump(procs_name(procs[k]), &r);
		cr_assert(ok, "net_io closewake %s: code %d%s, expected \"%.*s\"", procs_name(procs[k]),
			  run_code(&r), r.timed_out ? " (timed out)" : "", (int)strlen(want) - 1, want);
		run_free(&r);
	}
}

/* ---- 5. the echo server: 2,000 connections open at once ----------------------------------- */

/*
 * net_echo_server with n connections (libgmp preloaded when `preload`,
 * with server_env), then net_echo_client against it (the same way, with
 * its default processors). Both must exit 0 with their closing lines.
 * Returns the server's OS threads at the peak.
 */
static long echo_pair(int n, bool preload, const char *const server_env[], const char *how)
{
	char spath[4096], cpath[4096], nbuf[16], portbuf[16], want[64];
	struct bg srv;

	snprintf(spath, sizeof spath, "%s", prog_path("net_echo_server"));
	snprintf(cpath, sizeof cpath, "%s", prog_path("net_echo_client"));
	snprintf(nbuf, sizeof nbuf, "%d", n);
	double deadline = harness_now() + ECHO_TIMEOUT;

	const char *sargv[] = {spath, nbuf, NULL};
	bg_start(&srv, sargv, server_env, preload);
	bool up = bg_pump(&srv, "\n", deadline);
	int port = 0;
	if (!up || sscanf(srv.r.out, "port %d\n", &port) != 1 || port <= 0) {
		bg_kill(&srv);
		struct run r = bg_finish(&srv, deadline);
		run_dump(how, &r);
		cr_assert_fail("net_echo_server %s printed no port", how);
	}
	snprintf(portbuf, sizeof portbuf, "%d", port);

	const char *cargv[] = {cpath, portbuf, nbuf, NULL};
	struct run cli = run_prog(cargv, NULL, ECHO_TIMEOUT, preload);
	snprintf(want, sizeof want, "verified %d connections\n", n);
	bool cli_ok = run_code(&cli) == 0 && strstr(cli.out, want);
	if (!cli_ok) {
		/* the server would wait for connections that never come */
		bg_kill(&srv);
		run_dump("net_echo_client", &cli);
	}
	struct run sr = bg_finish(&srv, deadline + ECHO_TIMEOUT);
	int scode = run_code(&sr);
	snprintf(want, sizeof want, "served %d\n", n);
	bool srv_ok = scode == 0 && strstr(sr.out, want);
	if (!srv_ok || !cli_ok)
		run_dump("net_echo_server", &sr);
	cr_assert(cli_ok, "net_echo_client %s, %d connections: code %d%s", how, n, run_code(&cli),
		  cli.timed_out ? " (timed out)" : "");
	cr_assert(srv_ok, "net_echo_server %s, %d connections: code %d%s", how, n, scode,
		  sr.timed_out ? " (timed out)" : "");

	long conns = -1, threads = -1;
	const char *p = strstr(sr.out, "peak connections=");
	cr_assert(p && sscanf(p, "peak connections=%ld os_threads=%ld", &conns, &threads) == 2,
		  "net_echo_server %s: no peak line", how);
	cr_assert_eq(conns, n, "net_echo_server %s: peak of %ld connections, expected %d", how,
		     conns, n);
	cr_assert(threads >= 1, "net_echo_server %s: os_threads %ld", how, threads);
	run_free(&cli);
	run_free(&sr);
	return threads;
}

/* The programs themselves are right: 200 connections under NPTL, where
 * each connection has an OS thread (N + 1 at the peak). */
Test(net, echo_server_200_connections_under_nptl, .timeout = ECHO_TEST_TIMEOUT)
{
	long threads = echo_pair(200, false, NULL, "under NPTL");
	cr_assert_eq(threads, 201, "under NPTL the server had %ld OS threads at the peak", threads);
}

/* The headline: a thread-per-connection echo server holds 2,000
 * connections open at once, every connection's thread blocked reading
 * its socket, and serves them all, every byte checked by the client
 * (also under libgmp, its 2,000 threads blocked the same way). With
 * GMPMAXPROCS=2 the server runs on at most 2 + 8 OS threads: threads
 * blocked on sockets are parked, not holding OS threads. */
Test(net, echo_server_2000_connections_on_few_os_threads, .timeout = ECHO_TEST_TIMEOUT)
{
	const char *env[] = {"GMPMAXPROCS=2", NULL};
	long threads = echo_pair(2000, true, env, "under libgmp, GMPMAXPROCS=2");
	cr_assert(threads <= 2 + 8, "server with 2000 connections: %ld OS threads, GMPMAXPROCS=2",
		  threads);
}
