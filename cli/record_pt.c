#include <errno.h>
#include <stdio.h>

#include "record_pt.h"
#include "usage.h"

int record_pt_mode(struct pt_settings *p, const char *arg, const char *opt,
		   struct errmsg *e)
{
	if (!arg) {
		p->mode = PT_MODE_FAULT;
		return 0;
	}
	if (pt_mode_parse(arg, &p->mode) < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected fault, "
				  "stall or full", opt, arg);
	return 0;
}

static int usage(const char *what, const char *fix)
{
	return error("record", "%s; %s", what, fix);
}

int record_pt_check(int pt_on, struct pt_settings *p, uint64_t dwarf_stack)
{
	if (!pt_on && (p->size || p->terms || p->trigger_ns))
		return usage("--pt-size, --pt-config and --pt-trigger go with --pt",
			     "add --pt or drop them");
	if (!pt_on)
		return 0;
	if (p->trigger_ns && p->mode != PT_MODE_STALL)
		return usage("--pt-trigger sets when --pt=stall snapshots",
			     "add --pt=stall or drop it");
	if (p->mode == PT_MODE_STALL && !p->trigger_ns)
		p->trigger_ns = DEFAULT_PT_TRIGGER_NS;
	if (!p->size)
		p->size = p->mode == PT_MODE_FULL ? DEFAULT_PT_FULL_BYTES :
			  PT_SIZE_DEFAULT;
	if (p->mode == PT_MODE_FAULT &&
	    (p->size < 64 || p->size % 8 || p->size + dwarf_stack > PT_FAULT_SIZE_MAX))
		return error("record", "invalid --pt-size %llu: with --pt=fault it "
			     "must be a multiple of 8 from 64 bytes to %llu KiB%s "
			     "(a sample is at most 64 KiB), e.g. 32K",
			     (unsigned long long)p->size,
			     (unsigned long long)(PT_FAULT_SIZE_MAX - dwarf_stack) >> 10,
			     dwarf_stack ? " with this --stack-size" : "");
	if (p->mode != PT_MODE_FAULT && (p->size < 4096 || p->size > (1ull << 30)))
		return error("record", "invalid --pt-size %llu: it must be from 4K "
			     "to 1G, e.g. 64K", (unsigned long long)p->size);
	return 0;
}
