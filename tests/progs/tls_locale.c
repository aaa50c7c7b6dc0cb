/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 11 — glibc's per-thread C library state across migrations:
 * strerror's buffer for unknown codes, strsignal's buffer, the thread's
 * locale (uselocale) and the ctype tables. 24 threads; the even ones switch
 * to "C.UTF-8" with uselocale. Each round a thread asks strerror for an
 * unknown code of its own (9000 + id), strsignal for an unknown signal,
 * switches away (resuming maybe on another OS thread, while the others
 * fill their own buffers), and checks: the strings it got still read
 * "Unknown error 90NN" / "Unknown signal 2NN" (the buffers are the
 * thread's own), strerror(EBADF) is right, MB_CUR_MAX is 6 and the codeset
 * UTF-8 in the C.UTF-8 threads and 1 and ANSI_X3.4-1968 in the others,
 * mbrtowc decodes a two-byte UTF-8 character in the C.UTF-8 threads, and
 * isalpha/isdigit/isspace/toupper/tolower give the right answers — also
 * as the very first thing a new thread does. Some C.UTF-8 threads end
 * without switching back; a second wave of 24 threads, started after the
 * first has ended, must start in the global locale.
 */
#include "tls_common.h"

#include <ctype.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <wchar.h>

#define NT 24
#define NR 60

static locale_t utf8;

static void check_ctype(long id)
{
	CHECK(isalpha('a') && isalpha('Z') && !isalpha('5') && !isalpha(' '),
	      "thread %ld: isalpha", id);
	CHECK(isdigit('7') && !isdigit('x') && isspace(' ') && isspace('\n') && !isspace('q'),
	      "thread %ld: isdigit/isspace", id);
	CHECK(toupper('q') == 'Q' && toupper('Q') == 'Q' && tolower('Z') == 'z' && toupper('1') == '1',
	      "thread %ld: toupper/tolower", id);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	bool u = id % 2 == 0;
	/* first thing: some libc calls (strerror of an unknown code) would set
	 * up the thread's ctype pointers themselves */
	check_ctype(id);
	if (u)
		CHECK(uselocale(utf8) == LC_GLOBAL_LOCALE, "thread %ld: uselocale", id);
	for (unsigned i = 0; tls_more(i, NR); i++) {
		char want_err[64], want_sig[64];
		int code = 9000 + (int)id, sig = 200 + (int)id;
		snprintf(want_err, sizeof want_err, "Unknown error %d", code);
		snprintf(want_sig, sizeof want_sig, "Unknown signal %d", sig);
		const char *e = strerror(code);
		const char *s = strsignal(sig);
		CHECK(strcmp(e, want_err) == 0, "thread %ld: strerror(%d) = \"%s\"", id, code, e);
		tls_switch(i + (unsigned)id);
		CHECK(strcmp(e, want_err) == 0, "thread %ld: strerror's buffer now reads \"%s\"", id, e);
		CHECK(strcmp(s, want_sig) == 0, "thread %ld: strsignal's buffer now reads \"%s\"", id, s);
		CHECK(strcmp(strerror(EBADF), "Bad file descriptor") == 0, "thread %ld: strerror(EBADF)",
		      id);
		CHECK(uselocale((locale_t)0) == (u ? utf8 : LC_GLOBAL_LOCALE),
		      "thread %ld: uselocale(0) is another locale", id);
		CHECK((int)MB_CUR_MAX == (u ? 6 : 1), "thread %ld: MB_CUR_MAX %d", id, (int)MB_CUR_MAX);
		const char *cs = nl_langinfo(CODESET);
		CHECK(strcmp(cs, u ? "UTF-8" : "ANSI_X3.4-1968") == 0, "thread %ld: codeset %s", id, cs);
		if (u) {
			wchar_t wc = 0;
			mbstate_t st;
			memset(&st, 0, sizeof st);
			size_t n = mbrtowc(&wc, "\xc3\xa9", 2, &st);
			CHECK(n == 2 && wc == 0xe9, "thread %ld: mbrtowc gave %zd, U+%04x", id, (ssize_t)n,
			      (unsigned)wc);
		}
		check_ctype(id);
	}
	/* half of the C.UTF-8 threads end without switching back */
	if (u && id % 4 == 0)
		uselocale(LC_GLOBAL_LOCALE);
	return NULL;
}

/* Threads started after the first wave ended (and may reuse what it left):
 * the global locale, and strerror and ctype work from the start. */
static void *second_wave(void *arg)
{
	long id = (long)arg;
	check_ctype(id);
	CHECK(uselocale((locale_t)0) == LC_GLOBAL_LOCALE && MB_CUR_MAX == 1,
	      "new thread %ld starts in another thread's locale (MB_CUR_MAX %d)", id,
	      (int)MB_CUR_MAX);
	tls_switch((unsigned)id);
	CHECK(strcmp(strerror(9999), "Unknown error 9999") == 0, "new thread %ld: strerror", id);
	check_ctype(id);
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	utf8 = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
	CHECK(utf8, "newlocale C.UTF-8 failed");
	check_ctype(-1);
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, second_wave, (void *)(NT + i)) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(MB_CUR_MAX == 1, "main's MB_CUR_MAX changed to %d", (int)MB_CUR_MAX);
	freelocale(utf8);
	printf("locale: %d threads x >= %d rounds: strerror/strsignal buffers, uselocale C.UTF-8 in "
	       "half of them, ctype; %d later threads start in the global locale\n",
	       NT, NR, NT);
	if (tls_migration_verdict())
		return 1;
	printf("PASS locale\n");
	return 0;
}
