/* SPDX-License-Identifier: MIT */
/*
 * core/sched_impl.h — what the scheduler's three files share (sched.c,
 * syscall.c, m.c) and nothing else includes: P ownership, the loop's
 * entry points, stopping Ms, and the state sched_init sets up.
 */
#ifndef GMP_CORE_SCHED_IMPL_H
#define GMP_CORE_SCHED_IMPL_H

#include "core/sched.h"

#include <signal.h>

/* sched.c: P ownership (the idle list under sched.lock) */
void acquirep(struct m *mp, struct p *pp);
struct p *releasep(struct m *mp);
void pidleput(struct p *pp);
struct p *pidleget(void);
/* The M lost its right to keep pp: give pp to someone who can use it. */
void handoffp(struct p *pp);
/* sched.c: the loop, on g0 */
_Noreturn void execute(struct m *mp, struct g *gp, bool inherit);
_Noreturn void schedule(struct m *mp);
/* The G leaves RUNNING on mp (on g0): account its time, detach it. */
void dropg(struct m *mp, struct g *gp);

/* m.c */
extern struct m m0;
extern sigset_t m_sigmask;
extern long m_timerslack;	/* m.c */
extern int sched_pid;		/* the process the runtime runs */
uint32_t m_rand(struct m *mp);
/* Give OS thread tid (0: the caller) SCHED_OTHER, priority 0. */
void m_sched_other(int tid);
void m_wear_own_tls(struct m *mp);
/* Stop the M until someone hands it a P (m_start); then hold that P. */
void stopm(struct m *mp);
/* A locked M whose G is not runnable gives its P away and sleeps (false:
 * released from its G instead); one that dequeued another M's G hands
 * that M its P and stops. */
bool stoplockedm(struct m *mp);
void startlockedm(struct m *mp, struct g *gp);
void m_altstack(void);

/* syscall.c: learn libgmp's code range, and whether membarrier works */
void syscall_init(void);

#endif
