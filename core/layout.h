/* SPDX-License-Identifier: MIT */
/*
 * core/layout.h — where the glibc the process runs on keeps what libgmp
 * reads and writes in a thread's descriptor (struct pthread) and in
 * ld.so's lists of thread stacks.
 *
 * Nothing here is assumed from one glibc version. layout_find learns each
 * offset at start-up, before libgmp takes over:
 *  - from what glibc publishes for libthread_db (the _thread_db_*
 *    descriptors: size, list, tid, specific, start routine, cancel state,
 *    ld.so's stack lists) and __rseq_offset;
 *  - where glibc publishes nothing, from a probe: one real NPTL thread
 *    started with a stack size, guard, signal mask, name and start
 *    routine libgmp chose, in whose descriptor those values are looked
 *    up, together with what the thread itself reports (its tid, its
 *    robust list head, its resolver state, getrandom's state); the
 *    thread takes no lock the code that first entered libgmp may hold;
 *  - tls_state, on the first G libgmp starts, from the buffers strerror
 *    and strsignal hand out there;
 *  - a few fields from their fixed place next to a found one (user_stack
 *    after report_events, the stack cache lock after the cache), checked
 *    against what the probe thread left behind.
 * Every offset is then checked for plausibility (inside the descriptor,
 * aligned, no two fields overlapping), and compared with the table of a
 * version libgmp was tested on, when there is one. A layout that is not
 * found with certainty leaves libgmp passing every call through to glibc,
 * with a message that names the field.
 */
#ifndef GMP_CORE_LAYOUT_H
#define GMP_CORE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum layout_field {
	/* struct pthread */
	LAYOUT_SIZE,		/* sizeof(struct pthread): the TCB */
	LAYOUT_LIST,		/* list links (ld.so's stack lists) */
	LAYOUT_TID,
	LAYOUT_ROBUST_PREV,
	LAYOUT_ROBUST_HEAD,
	LAYOUT_CANCEL,		/* cancelhandling */
	LAYOUT_SPECIFIC1,	/* specific_1stblock */
	LAYOUT_SPECIFIC,	/* specific[] */
	LAYOUT_SPECIFIC_USED,
	LAYOUT_USER_STACK,
	LAYOUT_START,		/* start_routine, then arg */
	LAYOUT_STACKBLOCK,
	LAYOUT_STACKSIZE,	/* stackblock_size */
	LAYOUT_GUARDSIZE,
	LAYOUT_RES,		/* the resolver state __resp points at */
	LAYOUT_SIGMASK,
	LAYOUT_TLS_STATE,	/* strsignal_buf, strerror_l_buf */
	LAYOUT_GETRANDOM,	/* getrandom_buf (2.41 and later), or none */
	LAYOUT_RSEQ,		/* rseq area from the thread pointer, or none */
	/* struct rtld_global */
	LAYOUT_STACK_USED,
	LAYOUT_STACK_USER,
	LAYOUT_STACK_LOCK,	/* _dl_stack_cache_lock */
	LAYOUT_NFIELDS
};

/* An optional field glibc does not have. */
#define LAYOUT_NONE (-0x7fffffffL - 1)

struct glibc_layout {
	long off[LAYOUT_NFIELDS];
	char how[LAYOUT_NFIELDS];	/* 'd' descriptor, 'p' probe, 's' fixed place, '-' none */
	int nspecific;			/* entries of specific[] */
	bool table;			/* a table of this version confirmed every field */
	long tls_state;			/* off[LAYOUT_TLS_STATE] once found, for readers
					 * on other threads (atomic); LAYOUT_NONE before */
};
extern struct glibc_layout glibc_layout;

#define LO(f) (glibc_layout.off[LAYOUT_##f])

/*
 * Find the layout (see above). Main thread, valid TLS, before any G
 * exists; starts and joins one real thread. Returns true when every field
 * was found with certainty; otherwise false with why[] naming the field
 * and what was missing. Test hook: GMP_TEST_UNKNOWN_LAYOUT=FIELD (a field
 * name as layout_print prints it) makes that field not found.
 */
bool layout_find(char *why, size_t len);

/* On the first G libgmp starts, its fresh TCB at tp, before its start
 * routine: find tls_state (see layout.c for why not at start-up). */
void layout_find_tls_state(uintptr_t tp);

/* The kernel tid of the probe thread while it runs, else 0: its calls
 * into libgmp (a malloc that locks a mutex) go straight to glibc. */
int layout_probe_tid(void);

/* The layout as found, one field a line, to fd (GMPDEBUG=layout=1). */
void layout_print(int fd);

#endif
