#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/outside_file.h"
#include "unwind_files.h"

void unwind_files_init(struct unwind_files *fs)
{
	memset(fs, 0, sizeof(*fs));
	elf_version(EV_CURRENT);
	page_cache_init(&fs->cache);
}

static void file_free(struct unwind_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->image)
		munmap(f->image, f->size);
	free(f->path);
	free(f);
}

void unwind_files_release(struct unwind_files *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		file_free(fs->v[i]);
	free(fs->v);
	page_cache_release(&fs->cache);
	memset(fs, 0, sizeof(*fs));
}

/* The most bytes one O_DIRECT read asks for: past an uncached page the
 * next ones may be cached, and those are better read from the cache
 * than from the disk again. */
#define DIRECT_MAX (64u << 10)

/* The file being read into its image. */
struct reading {
	int fd;			/* buffered, read-ahead off */
	int direct;		/* the same file with O_DIRECT, or -1 */
	int nowait;		/* preadv2 RWF_NOWAIT works on fd */
	unsigned char *image;	/* borrowed: the entry's */
	size_t size, page;
	unsigned char *have;	/* owned: a byte a page, set once read */
};

/*
 * Bytes [pos, end) of the file into the image, pos and end on page
 * boundaries, so that no page is added to the page cache: what is cached
 * is copied from the cache (RWF_NOWAIT reads only what needs no I/O, and
 * starts none), what is not comes from the disk past the cache
 * (O_DIRECT, whole pages into the page-aligned image).  Where the file
 * system offers neither, a plain read it is, and the page cache note
 * and restore around the reading (read_file) drop what it brought in.
 * 0, or -1 when the file cannot be read.
 */
static int read_range(struct reading *r, size_t pos, size_t end)
{
	while (pos < end && pos < r->size) {
		unsigned char *to = r->image + pos;
		size_t want = end - pos;
		ssize_t got = -1;

		if (r->nowait) {
			struct iovec v = { to, want };

			got = preadv2(r->fd, &v, 1, (off_t)pos, RWF_NOWAIT);
			if (got < 0 && errno == EOPNOTSUPP)
				r->nowait = 0;
			if (got < 0 && errno == EINTR)
				continue;
		}
		if (got <= 0 && r->direct >= 0) {
			got = pread(r->direct, to, want < DIRECT_MAX ? want : DIRECT_MAX,
				    (off_t)pos);
			if (got < 0 && errno == EINVAL) {
				/* The file system wants more than page
				 * alignment: no O_DIRECT for this file. */
				close(r->direct);
				r->direct = -1;
				continue;
			}
		} else if (got <= 0) {
			got = pread(r->fd, to, want, (off_t)pos);
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		pos += (size_t)got;
	}
	return 0;
}

/* [off, off + len) of the file into the image at off, the pages not read
 * before: 0, or -1 when it lies outside the file or cannot be read. */
static int copy(struct reading *r, uint64_t off, uint64_t len)
{
	size_t p, q, last;

	if (off > r->size || len > r->size - off)
		return -1;
	if (len == 0)
		return 0;
	p = off / r->page;
	last = (off + len - 1) / r->page;
	while (p <= last) {
		if (r->have[p]) {
			p++;
			continue;
		}
		for (q = p; q <= last && !r->have[q]; q++)
			;
		if (read_range(r, p * r->page, q * r->page) < 0)
			return -1;
		memset(r->have + p, 1, q - p);
		p = q;
	}
	return 0;
}

/* The sections unwinding reads, by name; notes are kept by type. */
static int section_wanted(const char *name)
{
	return !strcmp(name, ".eh_frame") || !strcmp(name, ".eh_frame_hdr") ||
	       !strcmp(name, ".debug_frame") || !strcmp(name, ".gnu_debuglink");
}

/* Reads the section headers, their names, and the sections unwinding
 * needs; marks every other section SHT_NOBITS in the image.  -1 when
 * they are malformed. */
static int read_sections(struct reading *r, const Elf64_Ehdr *eh,
			 size_t *phnum)
{
	size_t shnum = eh->e_shnum, strndx = eh->e_shstrndx;
	const char *names;
	uint64_t nameslen;
	Elf64_Shdr *sh;

	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff % 8 ||
	    copy(r, eh->e_shoff, sizeof(*sh)) < 0)
		return -1;
	sh = (Elf64_Shdr *)(r->image + eh->e_shoff);
	/* Extended numbering: the counts too large for the ELF header are
	 * in the first section header. */
	if (shnum == 0)
		shnum = sh[0].sh_size;
	if (strndx == SHN_XINDEX)
		strndx = sh[0].sh_link;
	if (*phnum == PN_XNUM)
		*phnum = sh[0].sh_info;
	if (shnum == 0 || shnum > (r->size - eh->e_shoff) / sizeof(*sh) ||
	    copy(r, eh->e_shoff, shnum * sizeof(*sh)) < 0 || strndx >= shnum ||
	    sh[strndx].sh_type == SHT_NOBITS ||
	    copy(r, sh[strndx].sh_offset, sh[strndx].sh_size) < 0)
		return -1;
	names = (const char *)r->image + sh[strndx].sh_offset;
	nameslen = sh[strndx].sh_size;
	for (size_t i = 1; i < shnum; i++) {
		uint64_t at = sh[i].sh_name;
		int keep = sh[i].sh_type == SHT_NOTE ||
			   (at < nameslen && memchr(names + at, '\0', nameslen - at) &&
			    section_wanted(names + at));

		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_type == SHT_NULL ||
		    i == strndx)	/* read above */
			continue;
		/* Not read (or not there to read): no bytes. */
		if (!keep || copy(r, sh[i].sh_offset, sh[i].sh_size) < 0)
			sh[i].sh_type = SHT_NOBITS;
	}
	return 0;
}

/* Reads the program headers and the segments unwinding needs, and sets
 * f's address range from the PT_LOADs.  -1 when they are malformed. */
static int read_segments(struct reading *r, const Elf64_Ehdr *eh,
			 size_t phnum, struct unwind_file *f)
{
	const Elf64_Phdr *ph;
	int first = 1;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff % 8 ||
	    phnum > r->size / sizeof(*ph) ||
	    copy(r, eh->e_phoff, phnum * sizeof(*ph)) < 0)
		return -1;
	ph = (const Elf64_Phdr *)(r->image + eh->e_phoff);
	for (size_t i = 0; i < phnum; i++) {
		switch (ph[i].p_type) {
		case PT_LOAD:
			/* As libdwfl's own dwfl_report_elf computes them. */
			if (first)
				f->vaddr = ph[i].p_vaddr &
					   -(ph[i].p_align ? ph[i].p_align : 1);
			first = 0;
			if (ph[i].p_vaddr + ph[i].p_memsz > 0)
				f->end = ph[i].p_vaddr + ph[i].p_memsz;
			break;
		case PT_NOTE:
			if (copy(r, ph[i].p_offset, ph[i].p_filesz) < 0)
				return -1;
			break;
		case PT_GNU_EH_FRAME:
			if (copy(r, ph[i].p_offset, ph[i].p_filesz) < 0)
				return -1;
			/* Without section headers libdw reads .eh_frame from
			 * where .eh_frame_hdr points on: it follows the header
			 * in its segment, read to the segment's end. */
			if (eh->e_shoff == 0)
				for (size_t k = 0; k < phnum; k++)
					if (ph[k].p_type == PT_LOAD &&
					    ph[i].p_offset >= ph[k].p_offset &&
					    ph[i].p_offset - ph[k].p_offset < ph[k].p_filesz &&
					    copy(r, ph[i].p_offset, ph[k].p_offset +
						 ph[k].p_filesz - ph[i].p_offset) < 0)
						return -1;
			break;
		}
	}
	return 0;
}

/* What unwinding needs of the open file, into f's image.  -1 when it is
 * not an ELF file this unwinder reads, or is malformed. */
static int read_image(struct reading *r, struct unwind_file *f)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)r->image;
	size_t phnum;

	if (r->size < sizeof(*eh) || copy(r, 0, sizeof(*eh)) < 0 ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB :
							       ELFDATA2MSB) ||
	    (eh->e_type != ET_EXEC && eh->e_type != ET_DYN))
		return -1;
	f->exec = eh->e_type == ET_EXEC;
	phnum = eh->e_phnum;
	if (eh->e_shoff && read_sections(r, eh, &phnum) < 0)
		return -1;
	return read_segments(r, eh, phnum, f);
}

/* The same file as fd opened again with O_DIRECT, or -1: not offered
 * by its file system, or the path names another file by now. */
static int open_direct(const char *path, const struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
	struct stat again;

	if (fd >= 0 && (fstat(fd, &again) < 0 || again.st_dev != st->st_dev ||
			again.st_ino != st->st_ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Opens f->path and reads what unwinding needs of it into f->image
 * (read_range: no page is added to the page cache), between a note and
 * a restore of its page cache, which drop what a plain read brought in
 * where the file system offers no other.  On failure f->elf stays NULL;
 * -ENOMEM only when out of memory.
 */
static int read_file(struct unwind_files *fs, struct unwind_file *f)
{
	/* As elf_files.c's report_file: the kernel's path, whatever is
	 * there now opened as an outside file (no link, FIFO, device). */
	static const struct outside_rule rule = { OUTSIDE_ANY_OWNER, 0, 0 };
	const char *why;
	struct stat st;
	struct reading r = { outside_file_open(f->path, &rule, &st, &why), -1, 1,
			     NULL, 0, (size_t)sysconf(_SC_PAGESIZE), NULL };
	int err = 0;

	if (r.fd < 0)
		return 0;
	if (st.st_size == 0) {
		close(r.fd);
		return 0;
	}
	r.size = (size_t)st.st_size;
	r.have = calloc(r.size / r.page + 1, 1);
	f->image = mmap(NULL, r.size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (f->image == MAP_FAILED || !r.have) {
		if (f->image != MAP_FAILED)
			munmap(f->image, r.size);
		f->image = NULL;
		free(r.have);
		close(r.fd);
		return -ENOMEM;
	}
	f->size = r.size;
	r.image = f->image;
	r.direct = open_direct(f->path, &st);
	posix_fadvise(r.fd, 0, 0, POSIX_FADV_RANDOM);
	/* A file that cannot be noted is read all the same: unwinding it
	 * matters more, and read_range adds nothing to the cache where it
	 * can help it. */
	if (page_cache_note(&fs->cache, r.fd) == -ENOMEM)
		err = -ENOMEM;
	if (err == 0 && read_image(&r, f) == 0) {
		f->elf = elf_memory(f->image, f->size);
		if (f->elf && elf_kind(f->elf) != ELF_K_ELF) {
			elf_end(f->elf);
			f->elf = NULL;
		}
	}
	page_cache_restore(&fs->cache);
	if (r.direct >= 0)
		close(r.direct);
	close(r.fd);
	free(r.have);
	if (!f->elf) {
		munmap(f->image, f->size);
		f->image = NULL;
	}
	return err;
}

struct unwind_file *unwind_files_get(struct unwind_files *fs, const char *path)
{
	struct unwind_file *f;

	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i]->path, path))
			return fs->v[i];
	if (ARRAY_RESERVE(fs->v, fs->cap, fs->n + 1) < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path || read_file(fs, f) < 0) {
		file_free(f);
		return NULL;
	}
	fs->v[fs->n++] = f;
	return f;
}

Dwfl_Module *unwind_file_report(struct unwind_file *f, Dwfl *dwfl,
				const char *name, GElf_Addr base)
{
	GElf_Addr start, bias;
	Dwfl_Module *mod;
	void **ud;

	if (!f->elf || f->end == 0)
		return NULL;
	/* An ET_EXEC file sits at its link-time addresses whatever the
	 * mapping says (dwfl_report_elf ignores base for it too). */
	if (f->exec) {
		start = f->vaddr;
		bias = 0;
	} else {
		start = base;
		bias = base - f->vaddr;
	}
	mod = dwfl_report_module(dwfl, name, start, bias + f->end);
	if (mod) {
		/* libdwfl asks find_elf for the module's ELF on first use, and
		 * hands it the module's userdata: this file. */
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		*ud = f;
	}
	return mod;
}

int unwind_file_find_elf(Dwfl_Module *mod, void **userdata,
			 const char *modname, Dwarf_Addr base,
			 char **file_name, Elf **elfp)
{
	struct unwind_file *f = *userdata;

	(void)mod, (void)modname, (void)base;
	*file_name = NULL;
	*elfp = NULL;
	if (!f || !f->elf)
		return -1;
	/* The same image with its reference count raised (libelf returns
	 * ref itself for a non-archive; the command must be elf_memory's):
	 * libdwfl's elf_end at dwfl_end drops that reference,
	 * unwind_files_release the last one.  No file name without an ELF:
	 * libdwfl would open and map the file by that name itself. */
	*elfp = elf_begin(-1, ELF_C_READ_MMAP, f->elf);
	if (*elfp)
		*file_name = strdup(f->path);
	return -1;
}
