/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/tcb.h — words of glibc's TCB libgmp uses (plain defines, for
 * C and assembly alike). On glibc 2.34 to 2.41 tcbhead_t's unused_vgetcpu_cache[2]
 * (offsets 0x38 and 0x40) is zero in every TCB glibc makes and never read;
 * core/tls.c checks the layout before any G exists.
 */
#ifndef GMP_ARCH_X86_64_TCB_H
#define GMP_ARCH_X86_64_TCB_H

/* The G owning the TCB (core/g.h). */
#define ARCH_TCB_G_SLOT 0x38
/* Where a preempted context's resume address waits for the last jump of
 * gmp_preempt_entry (preempt.S). In the TCB of a dead G, whose stack
 * waits on a free list, the same word links the list (core/stack.c). */
#define ARCH_TCB_PREEMPT_SLOT 0x40

#endif
