/*
 * The input layout of fuzz_pt, shared with make_pt_seeds.c:
 *
 *   byte 0     bit 0: a clock (TSC -> monotonic) is set up; bit 1: the
 *              vDSO image holds the code below; bits 2-3: how many times
 *              the trace part is decoded (1-4, the block cache warm after
 *              the first)
 *   bytes 1-2  n, little-endian: the length of the records part
 *   n bytes    perf records as a PT ring holds them (framed by
 *              header.size): AUX records, ITRACE_START, SWITCH, LOST, and
 *              fault-mode samples in FUZZ_PT_SAMPLE_TYPE whose AUX part is
 *              trace
 *   the rest   raw trace, decoded as a snapshot would be
 *
 * The code the trace can run is FUZZ_PT_CODE at FUZZ_PT_VDSO, served as
 * the vDSO is (no file): ptcode.S's pt_leaf, pt_middle, pt_top, ...
 */
#ifndef FL_FUZZ_PT_H
#define FL_FUZZ_PT_H

#include <stdint.h>
#include <linux/perf_event.h>

#define FUZZ_PT_VDSO 0x401000ull
#define FUZZ_PT_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			     PERF_SAMPLE_ADDR | PERF_SAMPLE_AUX)

/* objdump -d of libptcode.so's .text (ptcode.S, built by the Makefile):
 * pt_leaf at +0x0, pt_middle +0x5, pt_top +0x13, pt_tail +0x29,
 * pt_via +0x32, pt_jump +0x3b. */
static const uint8_t FUZZ_PT_CODE[] = {
	0x8d, 0x44, 0x7f, 0x01, 0xc3,				/* pt_leaf */
	0x83, 0xff, 0x05, 0x7e, 0x06, 0xe8, 0xf1, 0xff, 0xff, 0xff,
	0xc3, 0x89, 0xf8, 0xc3,					/* pt_middle */
	0x53, 0xe8, 0xec, 0xff, 0xff, 0xff, 0x89, 0xc3, 0xbf, 0x01,
	0x00, 0x00, 0x00, 0xe8, 0xdb, 0xff, 0xff, 0xff, 0x01, 0xd8,
	0x5b, 0xc3,						/* pt_top */
	0x48, 0x8d, 0x05, 0xd0, 0xff, 0xff, 0xff, 0xff, 0xe0,	/* pt_tail */
	0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0xff, 0xd0, 0xc3,	/* pt_via */
	0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0xff, 0xe0,		/* pt_jump */
};

#endif
