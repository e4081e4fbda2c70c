/*
 * fuzz_symbol_maps: the two text tables symbolization reads, kallsyms
 * (decoder/kallsyms.h) and perf-PID.map (decoder/perf_map.h), parsed from
 * arbitrary bytes, then every range found again by its own start and a
 * few addresses from the input looked up, with the table's invariants
 * checked.
 *
 * Input layout: byte 0 bit 0 picks the parser (0 kallsyms, 1 perf map);
 * the rest is the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/kallsyms.h"
#include "../../decoder/perf_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(const struct addr_syms *t, const uint8_t *data,
			size_t size)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct addr_sym *s = &t->v[i];

		if (i && t->v[i - 1].start > s->start)
			abort();	/* not sorted */
		if (s->size > t->max_size || !s->name ||
		    (s->size && !addr_syms_find(t, s->start)))
			abort();
	}
	/* Addresses from the input: whatever holds one must hold it. */
	for (size_t off = 0; off + 8 <= size; off += 8) {
		uint64_t addr;
		const struct addr_sym *s;

		memcpy(&addr, data + off, 8);
		s = addr_syms_find(t, addr);
		if (s && (addr < s->start || addr - s->start >= s->size))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct addr_syms t;
	int hidden = 0, err;

	if (size < 1)
		return 0;
	addr_syms_init(&t);
	if (data[0] & 1)
		err = perf_map_parse(&t, (const char *)data + 1, size - 1);
	else
		err = kallsyms_parse(&t, (const char *)data + 1, size - 1, &hidden);
	if (err == 0)
		check_table(&t, data, size);
	if (hidden && t.n && addr_syms_find(&t, 0))
		abort();	/* hidden addresses name nothing */
	addr_syms_release(&t);
	return 0;
}
