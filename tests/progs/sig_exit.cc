/* SPDX-License-Identifier: MIT */
// tests/progs/sig_exit.cc — how the process ends when a thread ends it,
// and on which thread the handlers and destructors run. An ordinary C++
// program with threads; every mode prints the same lines and ends with
// the same status under NPTL:
//
//   exit         a thread calls exit(4) while main waits in join: its
//                thread_local destructor, then the atexit handler and
//                the static destructor run, all on that thread; main's
//                thread_local is not destroyed; status 4
//   return       main returns 5 while a thread sleeps: main's
//                thread_local, the atexit handler and the static
//                destructor run on main; status 5
//   _exit        a thread calls _exit(6): nothing runs; status 6
//   quick_exit   a thread calls quick_exit(7): the at_quick_exit handler
//                runs on it, atexit handlers and destructors do not;
//                status 7
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_t main_id, worker_id;

static const char *who()
{
	pthread_t me = pthread_self();
	if (pthread_equal(me, main_id))
		return "main";
	if (pthread_equal(me, worker_id))
		return "the worker";
	return "another thread";
}

static void say(const char *what)
{
	printf("%s on %s\n", what, who());
	fflush(stdout);
}

struct Static {
	~Static() { say("static destructor"); }
};
static Static the_static;

struct Local {
	const char *name;
	explicit Local(const char *n) : name(n) {}
	~Local()
	{
		char buf[64];
		snprintf(buf, sizeof buf, "thread_local destructor of %s", name);
		say(buf);
	}
};

static void at_exit() { say("atexit handler"); }
static void at_quick_exit_handler() { say("at_quick_exit handler"); }

static const char *mode;

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, nullptr);
}

static void *worker(void *)
{
	while (!worker_id)
		sleep_ms(1);
	thread_local Local mine("the worker");
	(void)mine.name;
	if (strcmp(mode, "exit") == 0)
		exit(4);
	if (strcmp(mode, "_exit") == 0)
		_exit(6);
	if (strcmp(mode, "quick_exit") == 0)
		quick_exit(7);
	sleep_ms(10000);
	return nullptr;
}

int main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "";
	main_id = pthread_self();
	atexit(at_exit);
	at_quick_exit(at_quick_exit_handler);
	thread_local Local main_local("main");
	(void)main_local.name;
	printf("mode %s\n", mode);
	fflush(stdout);
	pthread_t t;
	pthread_create(&t, nullptr, worker, nullptr);
	worker_id = t;
	if (strcmp(mode, "return") == 0) {
		sleep_ms(20);
		return 5;
	}
	pthread_join(t, nullptr);
	printf("join returned\n");
	return 1;
}
