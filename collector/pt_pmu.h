/*
 * pt_pmu: the intel_pt PMU as this machine's kernel describes it, and
 * whether a recording can use it.
 *
 * Nothing about the PMU is hard-coded: its perf type, the bit position of
 * every config term (format/<term>: "config:9", "config:14-17") and the
 * CPU's capabilities (caps/<name>: a hex number, as the kernel's
 * pt_cap_show prints it) are read from
 *
 *	<root>/sys/bus/event_source/devices/intel_pt/
 *
 * where root is "/" on a real machine and a fixture tree in tests
 * (tests/fixtures/pt/).  The kernel's own checks (pt_event_valid in
 * arch/x86/events/intel/pt.c) are repeated against the caps before
 * perf_event_open, so a refused term is named instead of a bare EINVAL.
 */
#ifndef FL_PT_PMU_H
#define FL_PT_PMU_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "../common/errmsg.h"

#define PT_PMU_DIR "sys/bus/event_source/devices/intel_pt"
#define PT_MAX_TERMS 32
#define PT_MAX_CAPS 32

/* format/<name>: bits lo..hi of config (word 0), config1 or config2. */
struct pt_format {
	char name[24];
	uint8_t word;
	uint8_t lo, hi;
};

struct pt_cap {
	char name[32];
	uint32_t value;
};

struct pt_pmu {
	uint32_t type;			/* perf_event_attr.type */
	struct pt_format fmt[PT_MAX_TERMS];
	size_t nfmt;
	struct pt_cap caps[PT_MAX_CAPS];
	size_t ncaps;
	/* MSR_PLATFORM_INFO[15:8] (the CBR packets' nominal ratio) and
	 * CPUID 0x15 (TSC:crystal, for MTC timing); 0 when not published. */
	uint32_t max_nonturbo_ratio;
	uint32_t tsc_art_num, tsc_art_den;
};

/*
 * Reads the PMU under root ("/" normally).  0; -ENODEV when there is no
 * intel_pt PMU (e says what is missing, and why: the CPU's vendor, a VM
 * without PT passthrough, or a kernel without the driver, from
 * <root>/proc/cpuinfo); -EINVAL for files the kernel could not have
 * written (e names the file).
 */
int pt_pmu_read(struct pt_pmu *p, const char *root, struct errmsg *e);

/* The format term called name, or NULL when this kernel has none. */
const struct pt_format *pt_pmu_format(const struct pt_pmu *p, const char *name);

/* caps/<name>: 0 with *value, or -ENOENT when not published. */
int pt_pmu_cap(const struct pt_pmu *p, const char *name, uint32_t *value);

/* The CPU's family, model and stepping from <root>/proc/cpuinfo, for
 * libipt's errata; all 0 unless the CPU is Intel's. */
void pt_cpu_signature(const char *root, uint32_t *family, uint32_t *model,
		      uint32_t *stepping);

#endif
