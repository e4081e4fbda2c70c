/*
 * kallsyms_pick: the lines of a kallsyms text that name given addresses
 * must name them as the whole text does (the same symbol, start, size
 * and module), on made-up texts with the awkward cases and on the
 * running kernel's /proc/kallsyms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../common/file.h"
#include "../../common/strbuf.h"
#include "../../decoder/kallsyms.h"

/* The pick over text, a line at a time; the kept lines, NUL-terminated. */
static char *pick_text(const char *text, const uint64_t *want, size_t n)
{
	struct kallsyms_pick p;
	struct strbuf kept;
	const char *line = text;
	char *out;

	assert_int_equal(kallsyms_pick_init(&p, want, n), 0);
	strbuf_init(&kept);
	while (*line) {
		size_t len = strcspn(line, "\n");
		char *copy = strndup(line, len + (line[len] == '\n'));

		assert_non_null(copy);
		assert_int_equal(kallsyms_pick_line(&p, copy), 0);
		free(copy);
		line += len + (line[len] == '\n');
	}
	assert_int_equal(kallsyms_pick_text(&p, &kept), 0);
	kallsyms_pick_release(&p);
	assert_non_null(out = strbuf_detach(&kept));
	return out;
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* Every address of want is named by picked as by whole; how many were
 * named at all. */
static size_t assert_same_names(const char *whole, const char *picked,
				const uint64_t *want, size_t n)
{
	struct addr_syms a, b;
	int hidden_a, hidden_b;
	size_t named = 0;

	addr_syms_init(&a);
	addr_syms_init(&b);
	assert_int_equal(kallsyms_parse(&a, whole, strlen(whole), &hidden_a), 0);
	assert_int_equal(kallsyms_parse(&b, picked, strlen(picked), &hidden_b), 0);
	assert_int_equal(hidden_a, hidden_b);
	for (size_t i = 0; i < n; i++) {
		const struct addr_sym *x = addr_syms_find(&a, want[i]);
		const struct addr_sym *y = addr_syms_find(&b, want[i]);

		if (!x && !y)
			continue;
		if (!x || !y)
			fail_msg("%#llx: named %s by the whole text, %s by the picked",
				 (unsigned long long)want[i], x ? x->name : "nothing",
				 y ? y->name : "nothing");
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->start, y->start);
		assert_int_equal(x->size, y->size);
		assert_true((!x->module && !y->module) ||
			    (x->module && y->module && !strcmp(x->module, y->module)));
		named++;
	}
	addr_syms_release(&a);
	addr_syms_release(&b);
	return named;
}

/* Aliases, data between code, modules out of order, a bad line, and
 * addresses below, between and past every symbol. */
static void picked_lines_name_as_the_whole_text(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t helper\n"
		"ffffffff81000100 W helper_alias\n"
		"ffffffff81000180 D some_data\n"
		"ffffffff81000200 T middle\n"
		"ffffffff81000300 T last\n"
		"garbage line\n"
		"ffffffffc0001040 t xfs_iwrite\t[xfs]\n"
		"ffffffffc0001000 t xfs_iread\t[xfs]\n"
		"ffffffffc0000800 t ext4_read\t[ext4]\n";
	static const uint64_t want[] = {
		0xffffffff80000000ull,	/* below every symbol */
		0xffffffff81000104ull,	/* in the aliased helper */
		0xffffffff810001ffull,	/* its last byte, past the data */
		0xffffffffc0001003ull,	/* a module listed after its neighbour */
		0xffffffffc0001050ull,	/* the last symbol: no size */
	};
	char *picked = pick_text(text, want, 5);

	(void)state;
	/* helper and its alias, middle (where helper ends), xfs_iread,
	 * xfs_iwrite (where it ends, and a wanted one itself). */
	assert_int_equal(count_lines(picked), 5);
	assert_int_equal(assert_same_names(text, picked, want, 5), 3);
	free(picked);
}

/* One pass in the text's order: an alias met after a lower symbol, a
 * higher symbol before a lower one, a line at address 0 among others. */
static void lines_out_of_order_name_as_the_whole_text(void **state)
{
	static const char text[] =
		"ffffffff81000100 t b\n"
		"ffffffff81000000 T a\n"
		"ffffffff81000100 t b_alias\n"
		"0000000000000000 t zero\n"
		"ffffffff81000400 t d\n"
		"ffffffff81000200 t c\n";
	static const uint64_t want[] = {
		0xffffffff81000300ull,	/* in c, which ends at d */
		0xffffffff81000150ull,	/* in b and its alias, ending at c */
	};
	char *picked = pick_text(text, want, 2);

	(void)state;
	/* b, b_alias, c, d */
	assert_int_equal(count_lines(picked), 4);
	assert_int_equal(assert_same_names(text, picked, want, 2), 2);
	free(picked);
}

static void hidden_addresses_keep_one_line(void **state)
{
	static const char text[] = "0000000000000000 T _stext\n"
				   "0000000000000000 t helper\n"
				   "0000000000000000 D data\n";
	static const uint64_t want[] = { 0xffffffff81000104ull };
	char *picked = pick_text(text, want, 1);

	(void)state;
	assert_int_equal(count_lines(picked), 1);
	assert_same_names(text, picked, want, 1);
	free(picked);
}

/* The code symbols' addresses of a kallsyms text (nonzero ones). */
static uint64_t *code_addrs(const char *text, size_t *n)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (const char *line = text; *line; line += strcspn(line, "\n") + 1) {
		char *end;
		uint64_t a = strtoull(line, &end, 16);

		if (end[0] == ' ' && strchr("tTwW", end[1]) && end[1] && a) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 1024;
				assert_non_null(v = realloc(v, cap * sizeof(*v)));
			}
			v[(*n)++] = a;
		}
		if (!line[strcspn(line, "\n")])
			break;
	}
	return v;
}

/* The running kernel's symbols, at their starts and at offsets into
 * them or past them: what record --stacks and the waking chains name. */
static void the_running_kernels_symbols_name_the_same(void **state)
{
	enum { N = 4000 };
	char *text = NULL, *picked;
	size_t len, ncode;
	uint64_t x = 88172645463325252ull, want[N], *code;
	struct errmsg e;

	(void)state;
	errmsg_init(&e);
	if (read_text_file("/proc/kallsyms", &text, &len, &e) < 0) {
		printf("skipped: no /proc/kallsyms on this kernel\n");
		skip();
	}
	code = code_addrs(text, &ncode);
	if (!ncode) {
		free(text);
		printf("skipped: /proc/kallsyms reads 0 for every address here "
		       "(kptr_restrict); the made-up texts cover hiding\n");
		skip();
	}
	for (size_t i = 0; i < N; i++) {	/* xorshift: the same each run */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		want[i] = code[x % ncode] + (i % 4 ? (x >> 32) % 8192 : 0);
	}
	picked = pick_text(text, want, N);
	assert_true(count_lines(picked) < count_lines(text) / 4);
	assert_true(assert_same_names(text, picked, want, N) > N / 2);
	free(picked);
	free(code);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(picked_lines_name_as_the_whole_text),
		cmocka_unit_test(lines_out_of_order_name_as_the_whole_text),
		cmocka_unit_test(hidden_addresses_keep_one_line),
		cmocka_unit_test(the_running_kernels_symbols_name_the_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
