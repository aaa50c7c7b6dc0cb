/* SPDX-License-Identifier: MIT */
/*
 * A library with thread-local variables, for TLS.md rows 3 and 3b
 * (tls_dlopen.c opens it with dlopen). Built twice: libtls_gd.so with the
 * default model for a shared object (global-dynamic: every access goes
 * through __tls_get_addr and the DTV) and libtls_ie.so with
 * -ftls-model=initial-exec (fixed offsets into the static TLS block, which
 * dlopen must initialise in every thread that already exists).
 */
#ifndef LIB_MODEL
#define LIB_MODEL "gd"
#endif

__thread int tls_lib_var = 42;
__thread char tls_lib_buf[32] = "library image";

const char *tls_lib_model(void)
{
	return LIB_MODEL;
}

int *tls_lib_addr(void)
{
	return &tls_lib_var;
}

int tls_lib_get(void)
{
	return tls_lib_var;
}

void tls_lib_set(int v)
{
	tls_lib_var = v;
}

char *tls_lib_bufp(void)
{
	return tls_lib_buf;
}
