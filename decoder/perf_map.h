/*
 * perf_map: the /tmp/perf-PID.map files JITs write to name generated
 * code (the convention perf reads).  A line is
 *
 *     START SIZE NAME
 *
 * START and SIZE in hex, with or without 0x; NAME is the rest of the line
 * and may hold spaces.  When a region is reused, the later line wins.
 */
#ifndef FL_PERF_MAP_H
#define FL_PERF_MAP_H

#include "addr_syms.h"

/* Parses text[0..len) into t (initialised by the caller; it keeps a copy
 * of the text).  Bad lines are counted in t->lines_bad.  0 or -ENOMEM. */
int perf_map_parse(struct addr_syms *t, const char *text, size_t len);

#endif
