/*
 * pt_fixture: libptcode.so (tests/fixtures/pt/ptcode.S, built by the
 * Makefile with fixed flags) mapped into a decoder image the way a
 * recording maps it: through MMAP2 records, here synthetic ones encoded
 * byte for byte and decoded by perf_rec_decode; and the functions'
 * addresses there, from the file's .symtab.
 */
#ifndef FL_TEST_PT_FIXTURE_H
#define FL_TEST_PT_FIXTURE_H

#include <fcntl.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../decoder/perf_record.h"
#include "../../decoder/pt_image.h"
#include "../integration/elf_syms.h"

/* Where the tests map the library. */
#define PTFIX_BASE 0x7f1234560000ull

/* Absolute, as the kernel names a mapped file. */
static const char *ptfix_path(void)
{
	static char path[PATH_MAX];
	char rel[512];
	const char *build = getenv("BUILD");

	snprintf(rel, sizeof(rel), "%s/tests/ptfix/libptcode.so",
		 build ? build : "build/release");
	if (!realpath(rel, path))
		snprintf(path, sizeof(path), "/nonexistent/%s", rel);
	return path;
}

/* The run-time address of a function of the library. */
static uint64_t ptfix_addr(const char *fn)
{
	uint64_t value, size;

	if (elf_symbol(ptfix_path(), fn, &value, &size) < 0) {
		fprintf(stderr, "no %s in %s\n", fn, ptfix_path());
		abort();
	}
	return PTFIX_BASE + value;
}

/* The executable PT_LOAD: file offset, vaddr, size.  0 or -1. */
static int ptfix_text(uint64_t *off, uint64_t *vaddr, uint64_t *size)
{
	int fd = open(ptfix_path(), O_RDONLY), found = -1;
	Elf *elf;
	size_t n;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &n) == 0)
		for (size_t i = 0; i < n && found < 0; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				*off = ph.p_offset;
				*vaddr = ph.p_vaddr;
				*size = ph.p_memsz;
				found = 0;
			}
		}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* An MMAP2 record of path at [start, start + len) from file offset
 * pgoff, encoded as the kernel writes it, decoded, and added to s. */
static int ptfix_map(struct pt_space *s, const char *path, uint64_t start,
		     uint64_t len, uint64_t pgoff, uint32_t prot)
{
	struct sample_fmt f = { .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_IDENTIFIER, .sample_id_all = 1 };
	/* A copy: the record's name is whatever the kernel had. */
	char *name = strdup(path);
	struct rec_mmap m = { .pid = 4000, .tid = 4000, .start = start,
			      .len = len, .pgoff = pgoff, .prot = prot,
			      .flags = MAP_PRIVATE, .filename = name };
	struct sample_id sid = { .pid = 4000, .tid = 4000, .time = 1, .id = 9 };
	uint8_t *rec = malloc(REC_MAX);
	size_t n = rec && name ? enc_mmap2(rec, REC_MAX, &f, &m, &sid) : 0;
	struct perf_rec r;
	struct pt_map pm;
	int err = -1;

	if (n && perf_rec_decode(&f, rec, n, &r) == 0 &&
	    r.type == PERF_RECORD_MMAP2) {
		pm.start = r.u.mmap.start;
		pm.len = r.u.mmap.len;
		pm.pgoff = r.u.mmap.pgoff;
		pm.path = r.u.mmap.filename;
		pm.exec = !!(r.u.mmap.prot & PROT_EXEC);
		err = pt_space_add(s, &pm);
	}
	free(rec);
	free(name);
	return err;
}

/* The library's text, mapped page-aligned as the kernel maps it. */
__attribute__((unused)) static int ptfix_map_lib(struct pt_space *s)
{
	uint64_t off, vaddr, size, page = 4096;

	if (ptfix_text(&off, &vaddr, &size) < 0)
		return -1;
	return ptfix_map(s, ptfix_path(), PTFIX_BASE + (vaddr & ~(page - 1)),
			 (size + (vaddr & (page - 1)) + page - 1) & ~(page - 1),
			 off & ~(page - 1), PROT_READ | PROT_EXEC);
}

#endif
