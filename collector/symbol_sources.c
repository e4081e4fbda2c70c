#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/outside_file.h"
#include "../common/strbuf.h"
#include "../decoder/kallsyms.h"
#include "symbol_sources.h"

void symbol_sources_init(struct symbol_sources *s)
{
	memset(s, 0, sizeof(*s));
}

void symbol_sources_release(struct symbol_sources *s)
{
	for (size_t i = 0; i < s->nperf_maps; i++)
		free(s->perf_maps[i].text);
	free(s->perf_maps);
	free(s->kallsyms);
	free(s->debuginfo_path);
	symbol_sources_init(s);
}

static int nomem(struct errmsg *e)
{
	return errmsg_set(e, ENOMEM, "out of memory while symbolizing");
}

int symbol_sources_debug_dirs(struct symbol_sources *s,
			      const char *const *dirs, size_t n,
			      struct errmsg *e)
{
	static const char defaults[] = ":.debug:/usr/lib/debug";
	size_t len = sizeof(defaults);
	char (*abs)[PATH_MAX] = n ? calloc(n, PATH_MAX) : NULL;
	int err = 0;

	if (n && !abs)
		return nomem(e);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (!realpath(dirs[i], abs[i]) || stat(abs[i], &sb) ||
		    !S_ISDIR(sb.st_mode) || strchr(abs[i], ':')) {
			err = errmsg_set(e, ENOTDIR, "debug directory '%s' %s; give "
					 "a directory that holds debug files",
					 dirs[i], strchr(abs[i], ':') ?
					 "has a ':' in its path" : "is not a directory");
			goto out;
		}
		len += strlen(abs[i]) + 1;
	}
	free(s->debuginfo_path);
	s->debuginfo_path = malloc(len);
	if (!s->debuginfo_path) {
		err = nomem(e);
		goto out;
	}
	s->debuginfo_path[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(s->debuginfo_path, abs[i]);
		strcat(s->debuginfo_path, ":");
	}
	/* The leading ':' of the defaults (the file's own directory) would
	 * make an empty entry after ours; both mean the same. */
	strcat(s->debuginfo_path, n ? defaults + 1 : defaults);
out:
	free(abs);
	return err;
}

#define KALLSYMS "/proc/kallsyms"

/* What /proc/kallsyms says of addrs into s: one read, a line at a time,
 * keeping only the lines that name them (decoder/kallsyms.h).  A kernel
 * without one is no error. */
static int read_kallsyms(struct symbol_sources *s, const uint64_t *addrs,
			 size_t n, struct errmsg *e)
{
	struct kallsyms_pick p;
	struct strbuf kept;
	FILE *f = fopen(KALLSYMS, "re");
	char *line = NULL;
	size_t cap = 0;
	int err;

	if (!f)
		return errno == ENOENT ? 0 :
		       errmsg_set(e, errno, "cannot read '%s': %s", KALLSYMS,
				  strerror(errno));
	strbuf_init(&kept);
	err = kallsyms_pick_init(&p, addrs, n);
	while (err == 0 && getline(&line, &cap, f) > 0)
		err = kallsyms_pick_line(&p, line);
	if (err == 0 && ferror(f))
		err = errmsg_set(e, EIO, "cannot read '%s'", KALLSYMS);
	if (err == 0)
		err = kallsyms_pick_text(&p, &kept);
	if (err == 0) {
		s->kallsyms_len = kept.len;
		s->kallsyms = strbuf_detach(&kept);
		if (!s->kallsyms)
			err = -ENOMEM;
	}
	free(line);
	fclose(f);
	strbuf_release(&kept);
	kallsyms_pick_release(&p);
	return err == -ENOMEM ? nomem(e) : err;
}

/*
 * A perf map is read at most this large.  A JIT appends a line per
 * compiled region and never trims its map, so a long-running JVM or V8
 * can reach tens of MiB; 256 MiB leaves room for that many times over,
 * while a file planted to exhaust memory (a huge sparse one) stops here.
 */
#define PERF_MAP_MAX ((uint64_t)256 << 20)

/* Whom pid's map may belong to besides root, as perf decides for its
 * JIT maps: the process's owner while it runs (the owner of /proc/PID),
 * otherwise the user faultline runs as.  The session does not record
 * the owner; after the target ended, a new process that got its pid
 * lends its owner instead (the map must still be a regular file). */
static uid_t map_owner(int64_t pid)
{
	char proc[32];
	struct stat sb;

	snprintf(proc, sizeof(proc), "/proc/%lld", (long long)pid);
	if (stat(proc, &sb) == 0)
		return sb.st_uid;
	return geteuid();
}

/* Notes a file skipped as untrusted: counted, the first few named. */
static void note_skipped(struct symbol_sources *s, const char *path,
			 const char *why)
{
	if (s->nskipped < SYMBOL_SKIPPED_NAMED) {
		struct symbol_skipped *k = &s->skipped[s->nskipped];

		snprintf(k->path, sizeof(k->path), "%s", path);
		k->why = why;
	}
	s->nskipped++;
}

/* pid's /tmp/perf-PID.map into s when there is one to read and it is
 * trusted (outside_file.h): a process that is no JIT has none, and one
 * closed to us, or untrusted, is skipped (its frames just get no JIT
 * names; an untrusted one is noted in s->skipped). */
static int read_perf_map(struct symbol_sources *s, int64_t pid,
			 struct errmsg *e)
{
	struct sym_perf_map m = { .pid = pid };
	struct outside_rule rule = { map_owner(pid), 0, PERF_MAP_MAX };
	const char *why = NULL;
	int err;

	snprintf(m.path, sizeof(m.path), "/tmp/perf-%lld.map", (long long)pid);
	err = outside_file_read(m.path, &rule, &m.text, &m.len, &why);
	if (err == -ENOENT || err == -EACCES)
		return 0;
	if (err == -EPERM || err == -EFBIG) {
		note_skipped(s, m.path, why);
		return 0;
	}
	if (err < 0)
		return errmsg_set(e, -err, "cannot read '%s': %s", m.path, why);
	if (ARRAY_RESERVE(s->perf_maps, s->perf_maps_cap, s->nperf_maps + 1) < 0) {
		free(m.text);
		return nomem(e);
	}
	s->perf_maps[s->nperf_maps++] = m;
	return 0;
}

int symbol_sources_gather(struct symbol_sources *s,
			  const struct symbol_sources_want *w, struct errmsg *e)
{
	struct utsname un;
	int err = 0;

	if (uname(&un) == 0)
		snprintf(s->release, sizeof(s->release), "%s", un.release);
	/* kallsyms and the vDSO name only the kernel they come from. */
	s->same_kernel = s->release[0] && w->kernel && !strcmp(w->kernel, s->release);
	if (s->same_kernel) {
		if (vdso_image(&s->vdso, &s->vdso_len) < 0) {
			s->vdso = NULL;
			s->vdso_len = 0;
		}
		if (w->nkernel_addrs)
			err = read_kallsyms(s, w->kernel_addrs,
					    w->nkernel_addrs, e);
	}
	for (size_t i = 0; i < w->npids && err == 0; i++)
		err = read_perf_map(s, w->pids[i], e);
	return err;
}

void symbol_sources_view(const struct symbol_sources *s, struct sym_sources *v)
{
	*v = (struct sym_sources){
		s->debuginfo_path, s->kallsyms, s->kallsyms_len, s->vdso,
		s->vdso_len, s->perf_maps, s->nperf_maps };
}

int vdso_image(const void **image, size_t *len)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	size_t end;

	if (!eh)
		return -ENOENT;
	/* The section headers come last in the image the kernel maps; the
	 * loadable segments are a bound too, should they not. */
	end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	*image = eh;
	*len = end;
	return 0;
}
