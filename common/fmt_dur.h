/* fmt_dur: a duration for people, "1.5 us", "4.9 ms": the unit chosen by
 * size.  Shared by the commands and the engines whose text shows durations. */
#ifndef FL_FMT_DUR_H
#define FL_FMT_DUR_H

#include <stddef.h>
#include <stdint.h>

/* Writes ns into buf (n bytes) and returns buf. */
const char *fmt_dur(char *buf, size_t n, uint64_t ns);

#endif
