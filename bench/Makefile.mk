# SPDX-License-Identifier: MIT
# bench/ — workloads run under NPTL and libgmp side by side.
#
# The workloads are ordinary pthread programs (nothing in them knows about
# libgmp). `make bench` builds them and runs bench/run.sh, which times each
# one under NPTL and under libgmp in the same invocation and writes
# bench/results.md, then bench/sweep.sh (sleepers and echo at five sizes
# each, with gnuplot charts); neither is part of `make check`. `make check`
# runs only bench/smoke.sh: every workload once under libgmp with tiny
# sizes, checking that it completes and prints its RESULT line (no timing
# is judged there).
#
# echo_load is the load generator for echo_server: both runners start it
# plainly (never under libgmp), so that only the server differs.
BENCH_PROGS = bench/create_join bench/burst bench/sleepers bench/concurrent bench/maxthreads \
	bench/cond_pingpong bench/mutex_uncontended bench/mutex_contention bench/prodcons \
	bench/pipe_pingpong bench/echo_server bench/echo_load bench/file_compute \
	bench/syscall_latency bench/cpu_fairness bench/timer_lateness bench/start_latency \
	bench/page_floor bench/startup bench/rt_churn bench/pshared
check_PROGRAMS += $(BENCH_PROGS)
bench_create_join_LDADD = -lpthread
bench_burst_LDADD = -lpthread
bench_sleepers_LDADD = -lpthread
bench_concurrent_LDADD = -lpthread
bench_maxthreads_SOURCES = bench/concurrent.c
bench_maxthreads_CPPFLAGS = $(AM_CPPFLAGS) -DMAXTHREADS
bench_maxthreads_LDADD = -lpthread
bench_cond_pingpong_LDADD = -lpthread
bench_mutex_uncontended_LDADD = -lpthread
bench_mutex_contention_LDADD = -lpthread
bench_prodcons_LDADD = -lpthread
bench_pipe_pingpong_LDADD = -lpthread
bench_echo_server_LDADD = -lpthread
bench_echo_load_LDADD = -lpthread
bench_file_compute_LDADD = -lpthread
bench_syscall_latency_LDADD = -lpthread
bench_cpu_fairness_LDADD = -lpthread
bench_timer_lateness_LDADD = -lpthread
bench_start_latency_LDADD = -lpthread
bench_rt_churn_LDADD = -lpthread
bench_pshared_LDADD = -lpthread
EXTRA_DIST += bench/go/common.go bench/go/create_join.go bench/go/burst.go bench/go/cond_pingpong.go \
	bench/go/echo_server.go bench/go/maxthreads.go
EXTRA_DIST += bench/bench.h bench/lib.sh bench/run.sh bench/sweep.sh bench/smoke.sh bench/README.md \
	bench/results.md bench/sweep.dat bench/sweep-sleepers.svg bench/sweep-echo.svg

TESTS += bench/smoke.sh

# BENCH_ARGS is passed to the runner, e.g. make bench BENCH_ARGS="-r 3 --quick";
# the runner then sweeps sleepers and echo over thread counts (bench/sweep.sh:
# bench/sweep.dat, bench/sweep-*.svg and a section of results.md), unless
# BENCH_ARGS has --no-sweep.
bench: all $(BENCH_PROGS)
	BUILDDIR=$(abs_top_builddir) $(top_srcdir)/bench/run.sh \
		-o $(abs_top_srcdir)/bench/results.md --sweep $(BENCH_ARGS)
.PHONY: bench
