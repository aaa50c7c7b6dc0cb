/* SPDX-License-Identifier: MIT */
/*
 * preload/dlopen.c — a library opened with RTLD_DEEPBIND uses libgmp's
 * functions like the rest of the program.
 *
 * RTLD_DEEPBIND puts the library's own local scope, which holds libc.so.6,
 * before the global scope where the preloaded libgmp is: the library's
 * pthread_mutex_lock, pthread_cond_wait, sem_wait, pthread_create ... would
 * be glibc's, and glibc's protocol on objects that libgmp's functions also
 * drive (same size and initializers, other insides) breaks both. So after
 * glibc's dlopen has loaded and relocated such a library, every object that
 * call loaded gets libgmp's address in each GOT slot (R_X86_64_JUMP_SLOT,
 * GLOB_DAT, 64) of an undefined symbol that libgmp defines: all of libgmp's
 * exports, the one rule that keeps such a library consistent with the
 * program (its threads become Gs; its sleeps, signal handlers, futex
 * syscalls and own dlopen calls go through libgmp). A JUMP_SLOT filled in
 * advance also holds under lazy binding: the PLT then never calls the
 * resolver for it. RELRO pages are made writable for the writes and
 * read-only again.
 *
 * glibc's dlopen looks at its caller's address: a bare file name is
 * searched in the caller's RPATH/RUNPATH, and $ORIGIN is the caller's
 * directory. Without RTLD_DEEPBIND the stub below therefore jumps to
 * glibc's dlopen with the caller's return address in place (in assembly:
 * a C tail call depends on the optimisation level). With it, glibc is
 * called from here, so the file is first found the way the caller would
 * find it: dlinfo(RTLD_DI_SERINFO) on a handle of the caller gives its
 * search path, whose first directory holding the file wins. The tail that
 * libgmp's own search path shares (LD_LIBRARY_PATH, the system directories)
 * is left to glibc, so that ld.so.cache keeps its place before the system
 * directories; a name not found is passed on as it is.
 *
 * Not covered: the new objects' constructors run inside glibc's dlopen,
 * before the rewrite, with glibc's functions; dlmopen; dlsym on such a
 * library's handle still finds glibc's definitions; the glibc-hwcaps
 * subdirectories of the caller's RPATH/RUNPATH are not searched.
 */
#include "preload/runtime.h"
#include "core/lock.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *dlopen_deepbind(const char *file, int mode, void *caller);

#define STR_(x) #x
#define STR(x) STR_(x)

/*
 * dlopen(file, mode): without RTLD_DEEPBIND a jump to glibc's dlopen
 * (resolved first when a constructor calls dlopen before libgmp's own has
 * run); with it, dlopen_deepbind(file, mode, return address).
 */
__asm__(
	"	.pushsection .text\n"
	"	.globl dlopen\n"
	"	.type dlopen, @function\n"
	"	.p2align 4\n"
	"dlopen:\n"
	"	.cfi_startproc\n"
	"	endbr64\n"
	"	testl $" STR(RTLD_DEEPBIND) ", %esi\n"
	"	jnz 2f\n"
	"1:	movq real_dlopen(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jz 3f\n"
	"	jmp *%rax\n"
	"2:	movq (%rsp), %rdx\n"
	"	jmp dlopen_deepbind\n"
	"3:	pushq %rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rsi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	subq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call real_init\n"
	"	addq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rsi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	jmp 1b\n"
	"	.cfi_endproc\n"
	"	.size dlopen, .-dlopen\n"
	"	.popsection\n");

/* ---- loaded objects and their dynamic sections --------------------------- */

struct obj {
	uintptr_t base;			/* l_addr */
	const char *name;		/* l_name: "" for the program */
	const ElfW(Phdr) *phdr;		/* identifies the object while it is loaded */
	int phnum;
	const ElfW(Dyn) *dyn;		/* NULL if it has none */
	bool fresh;			/* loaded by the dlopen call at hand */
	bool mark, scanned;		/* in that call's dependency tree; DT_NEEDED seen */
};

struct dyn {
	const ElfW(Sym) *sym;
	const char *str;
	const char *soname;
	const uint32_t *gnu_hash, *hash;
	const ElfW(Rela) *rela, *jmprel;
	size_t relasz, pltrelsz;
};

/* An address in a dynamic section: glibc relocates them in place when the
 * section is writable, else they are still offsets from the base. */
static uintptr_t dyn_addr(const struct obj *o, ElfW(Addr) v)
{
	return v < o->base ? o->base + v : v;
}

static void dyn_read(const struct obj *o, struct dyn *d)
{
	ElfW(Xword) soname = 0;
	bool has_soname = false, plt_rela = true;
	memset(d, 0, sizeof *d);
	for (const ElfW(Dyn) *e = o->dyn; e && e->d_tag != DT_NULL; e++) {
		const void *p = (const void *)dyn_addr(o, e->d_un.d_ptr);
		switch (e->d_tag) {
		case DT_SYMTAB: d->sym = p; break;
		case DT_STRTAB: d->str = p; break;
		case DT_GNU_HASH: d->gnu_hash = p; break;
		case DT_HASH: d->hash = p; break;
		case DT_RELA: d->rela = p; break;
		case DT_RELASZ: d->relasz = e->d_un.d_val; break;
		case DT_JMPREL: d->jmprel = p; break;
		case DT_PLTRELSZ: d->pltrelsz = e->d_un.d_val; break;
		case DT_PLTREL: plt_rela = e->d_un.d_val == DT_RELA; break;
		case DT_SONAME: soname = e->d_un.d_val; has_soname = true; break;
		}
	}
	if (!plt_rela)
		d->jmprel = NULL;
	if (has_soname && d->str)
		d->soname = d->str + soname;
}

static void obj_from(const struct dl_phdr_info *info, struct obj *o)
{
	*o = (struct obj){
		.base = info->dlpi_addr,
		.name = info->dlpi_name ? info->dlpi_name : "",
		.phdr = info->dlpi_phdr,
		.phnum = info->dlpi_phnum,
	};
	for (int i = 0; i < o->phnum; i++)
		if (o->phdr[i].p_type == PT_DYNAMIC)
			o->dyn = (const ElfW(Dyn) *)(o->base + o->phdr[i].p_vaddr);
}

/* Every loaded object, from dl_iterate_phdr. */
struct objs {
	struct obj *v;
	size_t n, cap;
	bool failed;		/* out of memory: the list is incomplete */
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objs *s = arg;
	(void)size;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct obj *v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			s->failed = true;
			return 1;
		}
		s->v = v;
		s->cap = cap;
	}
	obj_from(info, &s->v[s->n++]);
	return 0;
}

static bool listed(const struct objs *s, const ElfW(Phdr) *phdr)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].phdr == phdr)
			return true;
	return false;
}

/* ---- symbol lookup in one object's table ---------------------------------- */

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t sysv_hash(const char *s)
{
	uint32_t h = 0;
	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		uint32_t g = h & 0xf0000000u;
		h = (h ^ (g >> 24)) & ~g;
	}
	return h;
}

static const ElfW(Sym) *lookup_gnu(const struct dyn *d, const char *name)
{
	const uint32_t *h = d->gnu_hash;
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2], shift = h[3];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)&h[4];
	const uint32_t *buckets = (const uint32_t *)&bloom[bloom_size];
	const uint32_t *chain = &buckets[nbuckets];
	const unsigned bits = 8 * sizeof(ElfW(Addr));
	uint32_t hv = gnu_hash(name);
	ElfW(Addr) mask = (ElfW(Addr))1 << (hv % bits) | (ElfW(Addr))1 << ((hv >> shift) % bits);
	if (nbuckets == 0 || bloom_size == 0 || (bloom[(hv / bits) % bloom_size] & mask) != mask)
		return NULL;
	uint32_t i = buckets[hv % nbuckets];
	if (i == 0 || i < symoffset)
		return NULL;
	for (;; i++) {
		uint32_t c = chain[i - symoffset];
		if ((c | 1) == (hv | 1) && strcmp(d->str + d->sym[i].st_name, name) == 0)
			return &d->sym[i];
		if (c & 1)
			return NULL;
	}
}

/* The dynamic symbol `name` of an object, or NULL. */
static const ElfW(Sym) *lookup(const struct dyn *d, const char *name)
{
	if (!d->sym || !d->str)
		return NULL;
	if (d->gnu_hash)
		return lookup_gnu(d, name);
	if (!d->hash || d->hash[0] == 0)
		return NULL;
	const uint32_t *bucket = &d->hash[2], *chain = &bucket[d->hash[0]];
	for (uint32_t i = bucket[sysv_hash(name) % d->hash[0]]; i; i = chain[i])
		if (strcmp(d->str + d->sym[i].st_name, name) == 0)
			return &d->sym[i];
	return NULL;
}

/* libgmp itself: its ELF header and dynamic section (linker-defined). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

static void self_obj(struct obj *o, struct dyn *d)
{
	*o = (struct obj){.base = (uintptr_t)&__ehdr_start, .name = "", .dyn = _DYNAMIC};
	dyn_read(o, d);
}

/* libgmp's definition of the function `name`, if it exports one. */
static void *libgmp_function(const struct obj *self, const struct dyn *sd, const char *name)
{
	const ElfW(Sym) *s = lookup(sd, name);
	if (!s || s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
	    ELF64_ST_BIND(s->st_info) == STB_LOCAL || ELF64_ST_VISIBILITY(s->st_other) != STV_DEFAULT)
		return NULL;
	return (void *)(self->base + s->st_value);
}

/* ---- rewriting an object's GOT -------------------------------------------- */

/* One rewrite at a time: two callers must not toggle the same RELRO pages.
 * A leaf: nothing else is taken, and nobody parks, while it is held. */
static struct rt_mutex got_lock;

struct got {
	const struct obj *o;
	struct dyn d;
	const struct obj *self;
	const struct dyn *sd;
	uintptr_t relro_lo, relro_hi;	/* the pages glibc made read-only */
	bool relro_open, relro_failed;
};

/* Is the word at a inside a writable segment of o? */
static bool in_rw_segment(const struct obj *o, uintptr_t a)
{
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];
		uintptr_t lo = o->base + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && a >= lo &&
		    a + sizeof(uintptr_t) <= lo + ph->p_memsz)
			return true;
	}
	return false;
}

static void got_write(struct got *g, uintptr_t *slot, uintptr_t val)
{
	uintptr_t a = (uintptr_t)slot;
	if (!in_rw_segment(g->o, a) || __atomic_load_n(slot, __ATOMIC_RELAXED) == val)
		return;
	if (a >= g->relro_lo && a < g->relro_hi && !g->relro_open) {
		if (g->relro_failed || mprotect((void *)g->relro_lo, g->relro_hi - g->relro_lo,
						PROT_READ | PROT_WRITE) != 0) {
			g->relro_failed = true;
			return;
		}
		g->relro_open = true;
	}
	__atomic_store_n(slot, val, __ATOMIC_RELAXED);
}

static void got_redirect(struct got *g, const ElfW(Rela) *r, size_t size)
{
	for (size_t i = 0; r && i < size / sizeof *r; i++) {
		unsigned type = ELF64_R_TYPE(r[i].r_info);
		size_t si = ELF64_R_SYM(r[i].r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && type != R_X86_64_64) ||
		    si == 0)
			continue;
		const ElfW(Sym) *s = &g->d.sym[si];
		if (s->st_shndx != SHN_UNDEF)
			continue;	/* the object's own definition: RTLD_DEEPBIND's point */
		void *fn = libgmp_function(g->self, g->sd, g->d.str + s->st_name);
		if (fn)
			got_write(g, (uintptr_t *)(g->o->base + r[i].r_offset),
				  (uintptr_t)fn + (type == R_X86_64_64 ? (uintptr_t)r[i].r_addend : 0));
	}
}

static void redirect_object(const struct obj *o, const struct obj *self, const struct dyn *sd)
{
	struct got g = {.o = o, .self = self, .sd = sd};
	dyn_read(o, &g.d);
	if (!g.d.sym || !g.d.str || o->base == self->base)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < o->phnum; i++)
		if (o->phdr[i].p_type == PT_GNU_RELRO) {
			uintptr_t lo = o->base + o->phdr[i].p_vaddr;
			g.relro_lo = lo & ~(page - 1);
			g.relro_hi = (lo + o->phdr[i].p_memsz) & ~(page - 1);
		}
	rt_lock(&got_lock);
	got_redirect(&g, g.d.jmprel, g.d.pltrelsz);
	got_redirect(&g, g.d.rela, g.d.relasz);
	if (g.relro_open)
		mprotect((void *)g.relro_lo, g.relro_hi - g.relro_lo, PROT_READ);
	rt_unlock(&got_lock);
}

/* ---- what one dlopen call loaded ------------------------------------------ */

/* Is o the object glibc maps for the DT_NEEDED entry `name`? */
static bool needed_is(const char *name, const struct obj *o)
{
	if (strchr(name, '/'))
		return strcmp(name, o->name) == 0;
	const char *base = strrchr(o->name, '/');
	if (strcmp(base ? base + 1 : o->name, name) == 0)
		return true;
	struct dyn d;
	dyn_read(o, &d);
	return d.soname && strcmp(d.soname, name) == 0;
}

/* The object glibc took for the DT_NEEDED entry `name`: one loaded before
 * the call if one matches (glibc looks among loaded objects first), else a
 * fresh one; NULL if none matches. */
static struct obj *needed_obj(struct objs *s, const char *name)
{
	struct obj *fresh = NULL;
	for (size_t j = 0; j < s->n; j++) {
		if (!needed_is(name, &s->v[j]))
			continue;
		if (!s->v[j].fresh)
			return &s->v[j];
		if (!fresh)
			fresh = &s->v[j];
	}
	return fresh;
}

/* Mark the fresh objects that x's DT_NEEDED entries name. */
static void mark_needed_by(struct objs *s, const struct obj *x)
{
	struct dyn d;
	dyn_read(x, &d);
	for (const ElfW(Dyn) *e = x->dyn; d.str && e && e->d_tag != DT_NULL; e++) {
		struct obj *y = e->d_tag == DT_NEEDED ? needed_obj(s, d.str + e->d_un.d_val) : NULL;
		if (y && y->fresh)
			y->mark = true;
	}
}

/*
 * Rewrite the objects that the dlopen call which returned h loaded: its
 * root if it was not loaded before, and the fresh objects of the root's
 * dependency tree. (Objects that another thread's dlopen loaded meanwhile
 * may still be being relocated; they are left alone.)
 */
static void redirect_new(void *h, const struct objs *before)
{
	struct link_map *lm;
	struct objs s = {0};
	struct obj *root = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0) {
		dlerror();
		return;
	}
	dl_iterate_phdr(collect, &s);
	for (size_t i = 0; i < s.n && !s.failed; i++) {
		s.v[i].fresh = !listed(before, s.v[i].phdr);
		if (s.v[i].fresh && s.v[i].dyn && s.v[i].dyn == lm->l_ld)
			root = &s.v[i];
	}
	if (root && !s.failed) {
		root->mark = true;
		for (bool more = true; more;) {
			more = false;
			for (size_t i = 0; i < s.n; i++)
				if (s.v[i].mark && !s.v[i].scanned) {
					s.v[i].scanned = more = true;
					mark_needed_by(&s, &s.v[i]);
				}
		}
		struct obj self;
		struct dyn sd;
		self_obj(&self, &sd);
		for (size_t i = 0; i < s.n; i++)
			if (s.v[i].mark)
				redirect_object(&s.v[i], &self, &sd);
	}
	free(s.v);
}

/* ---- finding the file the way the caller would ---------------------------- */

/* A handle on the loaded object that contains addr (dlclose it), and its
 * link map; NULL if there is none. */
static void *handle_of(const void *addr, struct link_map **lmp, bool *is_main)
{
	Dl_info di;
	struct link_map *lm = NULL, *l2;
	if (!addr || !dladdr1(addr, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	*lmp = lm;
	void *h = real_dlopen(NULL, RTLD_LAZY);
	*is_main = h && dlinfo(h, RTLD_DI_LINKMAP, &l2) == 0 && l2 == lm;
	if (*is_main)
		return h;
	if (h)
		dlclose(h);
	h = lm->l_name && lm->l_name[0] ? real_dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	if (h && dlinfo(h, RTLD_DI_LINKMAP, &l2) == 0 && l2 == lm)
		return h;
	if (h)
		dlclose(h);
	dlerror();	/* nothing of this reaches the program's dlerror() */
	return NULL;
}

/* The search path of the object behind handle h (malloc'ed), or NULL. */
static Dl_serinfo *search_path(void *h)
{
	Dl_serinfo size;
	if (!h || dlinfo(h, RTLD_DI_SERINFOSIZE, &size) != 0)
		return NULL;
	Dl_serinfo *si = malloc(size.dls_size > sizeof *si ? size.dls_size : sizeof *si);
	if (!si)
		return NULL;
	si->dls_size = size.dls_size;
	si->dls_cnt = size.dls_cnt;
	if (dlinfo(h, RTLD_DI_SERINFO, si) != 0) {
		free(si);
		return NULL;
	}
	return si;
}

/* Does path name an ELF object glibc could load here (glibc skips other
 * classes and machines and goes on searching)? */
static bool loadable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ElfW(Ehdr) eh;
	bool ok = read(fd, &eh, sizeof eh) == (ssize_t)sizeof eh &&
		  memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		  eh.e_ident[EI_DATA] == ELFDATA2LSB && eh.e_machine == EM_X86_64;
	close(fd);
	return ok;
}

static char *join(const char *dir, const char *file)
{
	size_t ld = strlen(dir), lf = strlen(file);
	char *p = malloc(ld + lf + 2);
	if (p) {
		memcpy(p, dir, ld);
		p[ld] = '/';
		memcpy(p + ld + 1, file, lf + 1);
	}
	return p;
}

/* The bare name `file` in the search path of the object behind h, before
 * the tail libgmp's own search path shares: a malloc'ed path, or NULL. */
static char *search(const char *file, void *h)
{
	struct link_map *lm;
	bool is_main;
	Dl_serinfo *c = search_path(h), *own = NULL;
	void *oh = handle_of((const void *)dlopen_deepbind, &lm, &is_main);
	if (oh) {
		own = search_path(oh);
		dlclose(oh);
	}
	char *found = NULL;
	unsigned n = c ? c->dls_cnt : 0, shared = 0;
	while (own && shared < n && shared < own->dls_cnt &&
	       strcmp(c->dls_serpath[n - 1 - shared].dls_name,
		      own->dls_serpath[own->dls_cnt - 1 - shared].dls_name) == 0)
		shared++;
	for (unsigned i = 0; i + shared < n && !found; i++) {
		found = join(c->dls_serpath[i].dls_name, file);
		if (found && !loadable(found)) {
			free(found);
			found = NULL;
		}
	}
	free(c);
	free(own);
	return found;
}

/* Length of the $ORIGIN or ${ORIGIN} token at p, or 0. */
static size_t origin_token(const char *p)
{
	if (strncmp(p, "${ORIGIN}", 9) == 0)
		return 9;
	if (strncmp(p, "$ORIGIN", 7) == 0 && !isalnum((unsigned char)p[7]) && p[7] != '_')
		return 7;
	return 0;
}

static bool has_origin(const char *file)
{
	for (const char *p = strchr(file, '$'); p; p = strchr(p + 1, '$'))
		if (origin_token(p))
			return true;
	return false;
}

/* The directory of the object behind h, as glibc's $ORIGIN (malloc'ed). */
static char *origin_of(struct link_map *lm, bool is_main, void *h)
{
	char *dir = malloc(PATH_MAX + 1);
	if (!dir)
		return NULL;
	if (!is_main && lm->l_name[0] != '/') {
		if (dlinfo(h, RTLD_DI_ORIGIN, dir) == 0)
			return dir;	/* l_origin, set when it was loaded */
		free(dir);
		return NULL;
	}
	ssize_t len = is_main ? readlink("/proc/self/exe", dir, PATH_MAX) : (ssize_t)strlen(lm->l_name);
	if (len <= 0 || len > PATH_MAX) {
		free(dir);
		return NULL;
	}
	if (!is_main)
		memcpy(dir, lm->l_name, (size_t)len);
	dir[len] = '\0';
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';		/* an object in / */
	else if (slash)
		*slash = '\0';
	return dir;
}

/* file with every $ORIGIN replaced by origin (malloc'ed). */
static char *expand_origin(const char *file, const char *origin)
{
	size_t lo = strlen(origin), n = 0;
	for (const char *p = file; *p;) {
		size_t t = *p == '$' ? origin_token(p) : 0;
		n += t ? lo : 1;
		p += t ? t : 1;
	}
	char *r = malloc(n + 1), *q = r;
	for (const char *p = file; r && *p;) {
		size_t t = *p == '$' ? origin_token(p) : 0;
		if (t) {
			memcpy(q, origin, lo);
			q += lo;
			p += t;
		} else {
			*q++ = *p++;
		}
	}
	if (r)
		*q = '\0';
	return r;
}

static int soname_is(struct dl_phdr_info *info, size_t size, void *name)
{
	struct obj o;
	struct dyn d;
	(void)size;
	obj_from(info, &o);
	dyn_read(&o, &d);
	return d.soname && strcmp(d.soname, name) == 0;
}

/*
 * What glibc would open had the caller passed `file` itself: a malloc'ed
 * path, or NULL to pass `file` on unchanged (a path, a name glibc matches
 * with the soname of a loaded object, or one found nowhere in the caller's
 * own directories).
 */
static char *caller_file(const char *file, void *caller)
{
	bool origin = has_origin(file);
	if (!origin && (strchr(file, '/') || dl_iterate_phdr(soname_is, (void *)file)))
		return NULL;
	struct link_map *lm;
	bool is_main;
	void *h = handle_of(caller, &lm, &is_main);
	if (!h)
		return NULL;
	char *r = NULL;
	if (origin) {
		char *dir = origin_of(lm, is_main, h);
		r = dir ? expand_origin(file, dir) : NULL;
		free(dir);
	} else {
		r = search(file, h);
	}
	dlclose(h);
	return r;
}

void *dlopen_deepbind(const char *file, int mode, void *caller)
{
	if (!real_dlopen)
		real_init();
	char *path = file ? caller_file(file, caller) : NULL;
	struct objs before = {0};
	dl_iterate_phdr(collect, &before);
	void *h = real_dlopen(path ? path : file, mode);
	free(path);
	if (h && !before.failed)
		redirect_new(h, &before);
	free(before.v);
	return h;
}
