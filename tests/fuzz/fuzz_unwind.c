/*
 * fuzz_unwind: the DWARF unwinder over arbitrary registers and stack
 * bytes, against stack_workload_nofp mapped where the committed fixture
 * (tests/unit/fixtures/unwind_nofp.txt) recorded it, so return addresses
 * in the input can land in real code and real CFI.
 *
 * Input layout:
 *   20 u64   the sample's user registers, in UNWIND_REGS_MASK order
 *            (AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15)
 *   rest     the stack copy from SP (at most 65528 bytes are used)
 *
 * Checked: no crash or over-read, at most max frames, the first frame an
 * exact instruction address, the reason a terminated string.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../decoder/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NREGS 20
#define MAX_FRAMES 32

struct target {
	int loaded;
	char path[PATH_MAX];
	uint64_t start, len, pgoff;
};

/* The program's path and where the fixture's sample had it mapped. */
static void load_target(struct target *t)
{
	const char *build = getenv("BUILD");
	char rel[512], line[256];
	FILE *f = fopen("tests/unit/fixtures/unwind_nofp.txt", "r");

	snprintf(rel, sizeof(rel), "%s/tests/stack_workload_nofp",
		 build ? build : "build/release");
	if (!realpath(rel, t->path))
		snprintf(t->path, sizeof(t->path), "%s", rel);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "map=", 4))
			sscanf(line + 4, "%lx %lx %lx", &t->start, &t->len, &t->pgoff);
	if (f)
		fclose(f);
	t->loaded = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct target t;
	struct stack_frame_in fr[MAX_FRAMES];
	struct unwinder u;
	struct unwind_sample s;
	char why[64];
	size_t n = 0;

	if (size < NREGS * 8)
		return 0;
	if (!t.loaded)
		load_target(&t);
	memset(&s, 0, sizeof(s));
	s.pid = s.tid = 1234;
	s.regs_mask = UNWIND_REGS_MASK;
	s.regs = data;
	s.stack = data + NREGS * 8;
	s.stack_size = s.dyn_size = size - NREGS * 8 > 65528 ? 65528 :
				    size - NREGS * 8;
	unwinder_init(&u);
	if (t.len && unwinder_map(&u, s.pid, t.start, t.len, t.pgoff,
				  PROT_READ | PROT_EXEC, t.path) < 0)
		abort();
	if (unwinder_unwind(&u, &s, fr, &n, MAX_FRAMES, why, sizeof(why)) < 0)
		abort();
	if (n > MAX_FRAMES || (n && fr[0].return_addr) ||
	    !memchr(why, '\0', sizeof(why)))
		abort();
	unwinder_release(&u);
	return 0;
}
