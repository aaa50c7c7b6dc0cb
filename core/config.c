/* SPDX-License-Identifier: MIT */
/*
 * core/config.c — environment parsing (see config.h).
 */
#include "core/config.h"
#include "core/os.h"
#include "core/rt.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct rt_config rt_cfg;

/* Strict decimal: digits only, no sign, no trailing junk, no overflow. */
static bool parse_uint(const char *s, size_t len, long *out)
{
	long v = 0;
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > 100000000)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

int config_parse_maxprocs(const char *s)
{
	long v;
	if (!parse_uint(s, strlen(s), &v) || v < 1 || v > GMP_MAXPROCS_LIMIT)
		return -1;
	return (int)v;
}

/* A signal for dump=: off (0), a name with or without SIG, or a number;
 * -1 when it is none of those or a signal libgmp must keep. */
static int parse_signal(const char *s, size_t len)
{
	static const struct { const char *name; int sig; } names[] = {
		{"HUP", SIGHUP}, {"INT", SIGINT}, {"QUIT", SIGQUIT}, {"USR1", SIGUSR1},
		{"USR2", SIGUSR2}, {"PWR", SIGPWR}, {"TERM", SIGTERM}, {"WINCH", SIGWINCH},
	};
	long v;
	if (len == 3 && memcmp(s, "off", 3) == 0)
		return 0;
	if (parse_uint(s, len, &v))
		return v >= 1 && v < 32 && v != SIGKILL && v != SIGSTOP && v != SIGURG &&
		       v != SIGSEGV && v != SIGBUS ? (int)v : -1;
	if (len > 3 && memcmp(s, "SIG", 3) == 0) {
		s += 3;
		len -= 3;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == len && memcmp(names[i].name, s, len) == 0)
			return names[i].sig;
	return -1;
}

/* A GMPDEBUG switch: 0 or 1; anything else is reported and means 0. */
static bool parse_flag(const char *key, const char *s, size_t len)
{
	long v;
	if (parse_uint(s, len, &v) && v <= 1)
		return v == 1;
	rt_printf(2, "gmp: GMPDEBUG: %s=\"%.*s\": expected 0 or 1; using 0\n", key, (int)len, s);
	return false;
}

static void parse_debug(const char *s)
{
	const char *p = s;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		long v;
		if (len == 0) {
			/* empty item: tolerate "a=1,,b=2" and a trailing comma */
		} else if (!eq) {
			rt_printf(2, "gmp: GMPDEBUG: item \"%.*s\" is not key=value; ignored\n",
				  (int)len, p);
		} else {
			size_t klen = (size_t)(eq - p);
			size_t vlen = len - klen - 1;
			if (klen == 10 && memcmp(p, "schedtrace", 10) == 0) {
				if (parse_uint(eq + 1, vlen, &v) && v <= 3600000)
					rt_cfg.schedtrace_ms = (int)v;
				else
					rt_printf(2, "gmp: GMPDEBUG: schedtrace=\"%.*s\": expected "
						  "milliseconds (0..3600000); schedtrace stays off\n",
						  (int)vlen, eq + 1);
			} else if (klen == 11 && memcmp(p, "scheddetail", 11) == 0) {
				rt_cfg.scheddetail = parse_flag("scheddetail", eq + 1, vlen);
			} else if (klen == 7 && memcmp(p, "preempt", 7) == 0) {
				if (vlen == 3 && memcmp(eq + 1, "off", 3) == 0)
					rt_cfg.preempt_ns = 0;
				else if (parse_uint(eq + 1, vlen, &v) && v >= 1 && v <= 10000)
					rt_cfg.preempt_ns = v * 1000000;
				else
					rt_printf(2, "gmp: GMPDEBUG: preempt=\"%.*s\": expected off or "
						  "milliseconds (1..10000); using 10\n", (int)vlen, eq + 1);
			} else if (klen == 8 && memcmp(p, "deadlock", 8) == 0) {
				if (vlen == 6 && memcmp(eq + 1, "report", 6) == 0)
					rt_cfg.deadlock = DEADLOCK_REPORT;
				else if (vlen == 5 && memcmp(eq + 1, "fatal", 5) == 0)
					rt_cfg.deadlock = DEADLOCK_FATAL;
				else if (vlen == 3 && memcmp(eq + 1, "off", 3) == 0)
					rt_cfg.deadlock = DEADLOCK_OFF;
				else
					rt_printf(2, "gmp: GMPDEBUG: deadlock=\"%.*s\": expected report, "
						  "fatal or off; using report\n", (int)vlen, eq + 1);
			} else if (klen == 4 && memcmp(p, "dump", 4) == 0) {
				int sig = parse_signal(eq + 1, vlen);
				if (sig >= 0)
					rt_cfg.dump_sig = sig;
				else
					rt_printf(2, "gmp: GMPDEBUG: dump=\"%.*s\": expected off, a signal "
						  "name (SIGQUIT, SIGUSR2 ...) or number; using SIGQUIT\n",
						  (int)vlen, eq + 1);
			} else if (klen == 6 && memcmp(p, "layout", 6) == 0) {
				rt_cfg.show_layout = parse_flag("layout", eq + 1, vlen);
			} else if (klen == 4 && memcmp(p, "spin", 4) == 0) {
				if (vlen == 4 && memcmp(eq + 1, "auto", 4) == 0)
					rt_cfg.spin_ns = -1;
				else if (parse_uint(eq + 1, vlen, &v) && v <= 1000)
					rt_cfg.spin_ns = v * 1000;
				else
					rt_printf(2, "gmp: GMPDEBUG: spin=\"%.*s\": expected auto or "
						  "microseconds (0..1000); using auto\n", (int)vlen,
						  eq + 1);
			} else if (klen == 5 && memcmp(p, "adapt", 5) == 0) {
				rt_cfg.adapt = parse_flag("adapt", eq + 1, vlen);
			} else if (klen == 8 && memcmp(p, "affinity", 8) == 0) {
				if (vlen == 4 && memcmp(eq + 1, "auto", 4) == 0)
					rt_cfg.affinity = -1;
				else if (vlen == 2 && memcmp(eq + 1, "on", 2) == 0)
					rt_cfg.affinity = 1;
				else if (vlen == 3 && memcmp(eq + 1, "off", 3) == 0)
					rt_cfg.affinity = 0;
				else
					rt_printf(2, "gmp: GMPDEBUG: affinity=\"%.*s\": expected auto, on "
						  "or off; using auto\n", (int)vlen, eq + 1);
			} else if (klen == 6 && memcmp(p, "fsbase", 6) == 0) {
				if (vlen == 7 && memcmp(eq + 1, "syscall", 7) == 0)
					rt_cfg.fsbase_syscall = true;
				else if (vlen == 4 && memcmp(eq + 1, "auto", 4) == 0)
					rt_cfg.fsbase_syscall = false;
				else
					rt_printf(2, "gmp: GMPDEBUG: fsbase=\"%.*s\": expected auto or "
						  "syscall; using auto\n", (int)vlen, eq + 1);
			} else {
				rt_printf(2, "gmp: GMPDEBUG: unknown key \"%.*s\" (known: "
					  "schedtrace, scheddetail, preempt, deadlock, dump, layout, "
					  "spin, affinity, adapt, fsbase); "
					  "ignored\n",
					  (int)klen, p);
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
}

void config_init(void)
{
	const char *s = getenv("GMPMAXPROCS");
	int def = os_ncpu();

	if (def > GMP_MAXPROCS_LIMIT)
		def = GMP_MAXPROCS_LIMIT;
	rt_cfg.maxprocs = def;
	rt_cfg.preempt_ns = 10000000;
	rt_cfg.spin_ns = -1;
	rt_cfg.affinity = -1;
	rt_cfg.adapt = true;
	rt_cfg.dump_sig = SIGQUIT;
	if (s) {
		int v = config_parse_maxprocs(s);
		if (v < 0)
			rt_printf(2, "gmp: GMPMAXPROCS=\"%s\": expected an integer from 1 to %d; "
				  "using %d\n", s, GMP_MAXPROCS_LIMIT, def);
		else
			rt_cfg.maxprocs = v;
	}
	s = getenv("GMPDEBUG");
	if (s)
		parse_debug(s);
	s = getenv("GMP_STATS");
	if (s && *s)
		rt_cfg.stats_path = s;
	s = getenv("GMPTRACE");
	if (s && *s)
		rt_cfg.trace_path = s;
}
