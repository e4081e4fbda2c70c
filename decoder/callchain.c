#include <string.h>
#include <linux/perf_event.h>

#include "callchain.h"

/* Could a user return address be one?  (The interrupted instruction
 * itself is always kept: a call through a NULL pointer faults at 0.) */
static int user_return_possible(uint64_t ip)
{
	return ip >= CALLCHAIN_USER_START && ip < CALLCHAIN_USER_END;
}

size_t callchain_frames(const void *ips, uint64_t nr, int user,
			struct stack_frame_in *out, size_t *n, size_t max,
			uint64_t *cut_at)
{
	size_t before = *n;
	int kernel = 1, first = 1, cut = 0;

	*cut_at = 0;
	for (uint64_t i = 0; i < nr && *n < max; i++) {
		uint64_t ip;

		memcpy(&ip, (const uint8_t *)ips + i * 8, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip != PERF_CONTEXT_USER;
			first = 1;
			continue;
		}
		if (!kernel && (!user || cut))
			break;
		if (!kernel && !first && !user_return_possible(ip)) {
			*cut_at = ip;
			cut = 1;
			continue;
		}
		out[*n].addr = ip;
		out[*n].kernel = (uint8_t)kernel;
		out[*n].return_addr = (uint8_t)!first;
		(*n)++;
		first = 0;
	}
	return *n - before;
}
