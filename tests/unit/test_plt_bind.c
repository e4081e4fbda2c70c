/*
 * plt_bind on a real shared library the build made
 * (tests/fixtures/plt/pltfix.c, linked lazily): from the return address
 * of each caller's call, the function being bound is named; from an
 * address after no call, nothing is.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../common/errmsg.h"
#include "../../common/file.h"
#include "../../decoder/plt_bind.h"

/* The library: variant "" (classic .plt stubs) or "_ibt" (endbr64 and
 * .plt.sec stubs, as -fcf-protection=full links them). */
static const char *lib_path(const char *variant)
{
	static char path[512];
	const char *build = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/tests/pltfix/libpltfix%s.so",
		 build ? build : "build/release", variant);
	return path;
}

/* The file offset and size of symbol name in the library's .symtab. */
static void symbol_range(const char *buf, size_t len, const char *name,
			 uint64_t *off, uint64_t *size)
{
	Elf *elf = elf_memory((char *)buf, len);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	assert_non_null(elf);
	*size = 0;
	while ((scn = elf_nextscn(elf, scn)) && !*size) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			Elf_Scn *text;
			GElf_Shdr tsh;

			gelf_getsym(d, (int)i, &s);
			if (strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name))
				continue;
			text = elf_getscn(elf, s.st_shndx);
			gelf_getshdr(text, &tsh);
			*off = s.st_value - tsh.sh_addr + tsh.sh_offset;
			*size = s.st_size;
			break;
		}
	}
	elf_end(elf);
	assert_true(*size > 0);
}

/* What plt_bind names from the end of each instruction-sized step in
 * fn: the one call's return address names the target; every other
 * offset names nothing. */
static void names_the_target_of(const char *lib, const char *fn,
				const char *want)
{
	char *buf = NULL, name[128];
	size_t len = 0;
	uint64_t off = 0, size = 0;
	struct errmsg e;
	int named = 0;

	errmsg_init(&e);
	assert_int_equal(elf_version(EV_CURRENT) != EV_NONE, 1);
	if (read_text_file(lib, &buf, &len, &e) < 0)
		fail_msg("cannot read %s: %s", lib, e.text);
	symbol_range(buf, len, fn, &off, &size);
	for (uint64_t ret = off + 1; ret <= off + size; ret++) {
		int err = plt_bind_name(buf, len, ret, name, sizeof(name));

		if (err == 0) {
			assert_string_equal(name, want);
			named++;
		} else {
			assert_int_equal(err, -ENOENT);
		}
	}
	assert_int_equal(named, 1);
	free(buf);
}

static void each_call_through_the_plt_names_the_function_it_binds(void **state)
{
	(void)state;
	static const char *const variants[] = { "", "_ibt" };

	for (size_t i = 0; i < 2; i++) {
		names_the_target_of(lib_path(variants[i]), "plt_caller_a", "plt_target_a");
		names_the_target_of(lib_path(variants[i]), "plt_caller_b", "plt_target_b");
	}
}

static void bytes_that_are_not_elf_are_refused(void **state)
{
	static const char junk[64] = "not an ELF file";
	char name[16];

	(void)state;
	assert_int_equal(plt_bind_name(junk, sizeof(junk), 20, name, sizeof(name)),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_call_through_the_plt_names_the_function_it_binds),
		cmocka_unit_test(bytes_that_are_not_elf_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
