/* SPDX-License-Identifier: MIT */
/*
 * core/proc.h — making and retiring Gs: a G structure (fresh or from the
 * dead-G caches) with a stack of the requested shape, a ready TCB at its
 * top, and a context that starts at an entry function. After Go's
 * newproc/gfget/gfput.
 */
#ifndef GMP_CORE_PROC_H
#define GMP_CORE_PROC_H

#include "core/g.h"

/* The stack a new G wants: the program's own memory (stackaddr != NULL,
 * no guard), or a stack of stacksize usable bytes above guardsize guard
 * bytes (page multiples). */
struct g_spec {
	void *stackaddr;
	size_t stacksize;
	size_t guardsize;
};

/*
 * Get a G ready to start at entry(gp): status IDLE or DEAD, stack and TLS
 * set up (a stack of an ended thread, warm, when the shape is the
 * default), context built; every other field as its last life left it
 * (the caller resets what it owns). Valid TLS. Returns 0 or EAGAIN;
 * *from gets the status to pass to proc_start.
 */
int proc_new(struct g **gpp, uint32_t *from, const struct g_spec *spec,
	     void (*entry)(void *));
/* Make gp (prepared by proc_new) runnable and count it as live. */
void proc_start(struct g *gp, uint32_t from);
/* proc_new failed after getting gp, or gp was never started: keep it. */
void proc_discard(struct g *gp, uint32_t from);
/* A dead G nobody needs any more (joined, or detached at exit). */
void proc_reap(struct g *gp, bool joined);

/*
 * Thread ids. A G's id is the one glibc keeps in its TCB (gettid() reads
 * it there): the main thread's is the process id, as under NPTL; any
 * other G's is above the largest id Linux hands out (PID_MAX_LIMIT), so
 * that no OS thread or process can ever have it, made of its index and
 * a generation (core/g.h g_new_tid), and constant for the thread's
 * life; a G given an OS thread of its own for a priority-protect mutex
 * takes that thread's id.
 * proc_by_tid: the live G whose id is tid, or NULL (an OS thread's id:
 * the kernel's to answer). TLS-free.
 */
struct g *proc_by_tid(int tid);
/* The thread a call that takes a thread id means: the calling G for 0
 * (valid TLS), else proc_by_tid(tid). */
struct g *proc_target(int tid);
/* The OS thread that carries gp's scheduling (policy, nice value, I/O
 * priority) in the kernel: the one dedicated to gp, or the main
 * thread's while it is the only thread (what it sets then, every OS
 * thread started later inherits); else 0. */
int proc_os_thread(struct g *gp);
/* The kernel id of the OS thread gp runs on now, or ran on last (0 if
 * it never ran): what /proc/self/task/<gp's id>/ stands for. */
int proc_task_of(struct g *gp);

/* The thread of gp has ended (g0, holding pp): its stack and TLS go to
 * pp's cache for the next thread, at once — the G itself may wait for a
 * join much longer. TLS-free. */
void proc_stack_release(struct p *pp, struct g *gp);
/* Give every stack in pp's cache back to the arenas, for any P to use
 * (its owner, or anyone holding sched.lock while pp is on the idle
 * list). TLS-free. */
void proc_stack_flush(struct p *pp);

/* The running G ends: returns true when it was the last live G (the
 * caller then ends the process). Call after every destructor. */
bool proc_exiting(struct g *gp);
/* Finish a G whose TLS work is done: release program-owned TLS and switch
 * away for good. */
_Noreturn void proc_exit(struct g *gp);

/* Bytes of static TLS + TCB at the top of every G stack. */
size_t proc_tls_block(void);

#endif
