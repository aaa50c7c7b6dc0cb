# tests/tls.mk — compat tests of per-thread storage (TLS.md rows): programs
# in tests/progs/tls_*, run by tests/compat_tls.
