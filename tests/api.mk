# tests/api.mk — compat tests of the thread API: attributes, exit paths,
# keys, C11 threads, sleeps, per-thread properties (tests/compat_api).
