/*
 * core/netpoll.h — where an idle M blocks until the next timer.
 *
 * The interface is Go's: at most one M at a time blocks in netpoll(delay)
 * (sched.lastpoll == 0 says one does), with delay the time to the earliest
 * timer; netpoll_break wakes it early, e.g. when an earlier timer appears.
 * This implementation waits on a futex; an epoll-based poller that also
 * returns Gs whose file descriptors became ready replaces it behind the
 * same functions.
 */
#ifndef GMP_CORE_NETPOLL_H
#define GMP_CORE_NETPOLL_H

#include <stdint.h>

/* Block up to delay ns (delay < 0: until netpoll_break; 0: do not block).
 * TLS-free. */
void netpoll(int64_t delay);
/* Wake the M blocked in netpoll, or make its next netpoll return at once.
 * Any thread; TLS-free. */
void netpoll_break(void);

#endif
