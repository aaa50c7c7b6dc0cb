# SPDX-License-Identifier: MIT
# demo/ — the quick-start demo: demo/threads run under NPTL and libgmp.
# installed with the package, for gmprun --compare to be tried at once
pkglibexec_PROGRAMS = demo/threads
demo_threads_LDADD = -lpthread
EXTRA_DIST += demo/run-demo.sh

demo: all
	@BUILDDIR=$(abs_top_builddir) $(top_srcdir)/demo/run-demo.sh
.PHONY: demo
