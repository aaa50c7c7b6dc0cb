/* SPDX-License-Identifier: MIT */
/*
 * shim/resolv.c — name resolution: getaddrinfo, getnameinfo and the
 * gethostby* family. They may wait for DNS answers for seconds, so a G
 * makes them as system calls (its P goes to other Gs while it waits).
 * Name service modules run inside them and may call back into libgmp
 * (sockets, locks): such a call takes a P back first (door_sync in
 * runtime.h), and the rest of the lookup runs holding it.
 */
#include "core/door.h"
#include "core/sched.h"

#include <errno.h>
#include <netdb.h>

GMP_EXPORT int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
			   struct addrinfo **res)
{
	GMP_ENTRY(getaddrinfo, node, service, hints, res);
	return GMP_BLOCKING(int, false, real_getaddrinfo(node, service, hints, res));
}

GMP_EXPORT int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
			   socklen_t hostlen, char *serv, socklen_t servlen, int flags)
{
	GMP_ENTRY(getnameinfo, sa, salen, host, hostlen, serv, servlen, flags);
	return GMP_BLOCKING(int, false,
			    real_getnameinfo(sa, salen, host, hostlen, serv, servlen, flags));
}

GMP_EXPORT struct hostent *gethostbyname(const char *name)
{
	GMP_ENTRY(gethostbyname, name);
	return GMP_BLOCKING(struct hostent *, false, real_gethostbyname(name));
}

GMP_EXPORT struct hostent *gethostbyname2(const char *name, int af)
{
	GMP_ENTRY(gethostbyname2, name, af);
	return GMP_BLOCKING(struct hostent *, false, real_gethostbyname2(name, af));
}

GMP_EXPORT struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type)
{
	GMP_ENTRY(gethostbyaddr, addr, len, type);
	return GMP_BLOCKING(struct hostent *, false, real_gethostbyaddr(addr, len, type));
}

GMP_EXPORT int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t len,
			       struct hostent **result, int *herr)
{
	GMP_ENTRY(gethostbyname_r, name, ret, buf, len, result, herr);
	return GMP_BLOCKING(int, false, real_gethostbyname_r(name, ret, buf, len, result, herr));
}

GMP_EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf,
				size_t len, struct hostent **result, int *herr)
{
	GMP_ENTRY(gethostbyname2_r, name, af, ret, buf, len, result, herr);
	return GMP_BLOCKING(int, false,
			    real_gethostbyname2_r(name, af, ret, buf, len, result, herr));
}

GMP_EXPORT int gethostbyaddr_r(const void *addr, socklen_t alen, int type, struct hostent *ret,
			       char *buf, size_t len, struct hostent **result, int *herr)
{
	GMP_ENTRY(gethostbyaddr_r, addr, alen, type, ret, buf, len, result, herr);
	return GMP_BLOCKING(int, false,
			    real_gethostbyaddr_r(addr, alen, type, ret, buf, len, result, herr));
}
