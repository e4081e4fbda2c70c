#include <stdio.h>

#include "fmt_dur.h"

const char *fmt_dur(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 1000000000ull)
		snprintf(buf, n, "%.1f s", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, n, "%.1f ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, n, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, n, "%llu ns", (unsigned long long)ns);
	return buf;
}
