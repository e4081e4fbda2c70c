#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "pt_config.h"

const char *pt_mode_name(enum pt_mode m)
{
	switch (m) {
	case PT_MODE_FAULT:
		return "fault";
	case PT_MODE_STALL:
		return "stall";
	case PT_MODE_FULL:
		return "full";
	}
	return "?";
}

int pt_mode_parse(const char *s, enum pt_mode *m)
{
	static const enum pt_mode modes[] = {
		PT_MODE_FAULT, PT_MODE_STALL, PT_MODE_FULL,
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(s, pt_mode_name(modes[i]))) {
			*m = modes[i];
			return 0;
		}
	return -EINVAL;
}

/* config, config1 and config2 of the attr, as one array for the terms. */
struct words {
	uint64_t w[3];
};

static uint64_t field_mask(const struct pt_format *f)
{
	unsigned width = (unsigned)(f->hi - f->lo) + 1;

	return width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
}

static uint64_t get_field(const struct words *w, const struct pt_format *f)
{
	return (w->w[f->word] >> f->lo) & field_mask(f);
}

static void set_field(struct words *w, const struct pt_format *f, uint64_t v)
{
	uint64_t m = field_mask(f);

	w->w[f->word] = (w->w[f->word] & ~(m << f->lo)) | ((v & m) << f->lo);
}

uint64_t pt_config_get(const struct pt_pmu *p, uint64_t config,
		       const char *name)
{
	const struct pt_format *f = pt_pmu_format(p, name);
	struct words w = { { config, 0, 0 } };

	return f ? get_field(&w, f) : 0;
}

/* Sets a term faultline chose, if this kernel has it. */
static void set_default(const struct pt_pmu *p, struct words *w,
			const char *name, uint64_t v)
{
	const struct pt_format *f = pt_pmu_format(p, name);

	if (f)
		set_field(w, f, v);
}

static uint32_t cap_or_zero(const struct pt_pmu *p, const char *name)
{
	uint32_t v = 0;

	pt_pmu_cap(p, name, &v);
	return v;
}

/* PSB every 2^(n+11) bytes (Intel SDM, IA32_RTIT_CTL.PSBFreq). */
static unsigned psb_default(const struct pt_pmu *p, const struct pt_settings *s)
{
	uint32_t allowed = cap_or_zero(p, "psb_periods") | 1;	/* 0 always is */
	uint64_t want = s->mode == PT_MODE_FULL ? (16u << 10) : s->size / 4;
	unsigned best = 0;

	for (unsigned n = 1; n < 16; n++)
		if ((allowed & (1u << n)) && (UINT64_C(1) << (n + 11)) <= want)
			best = n;
	return best;
}

static void defaults(const struct pt_pmu *p, const struct pt_settings *s,
		     struct words *w)
{
	uint32_t mtc_periods = cap_or_zero(p, "mtc_periods");

	set_default(p, w, "tsc", 1);
	if (cap_or_zero(p, "mtc") && mtc_periods) {
		unsigned period = 3;

		while (period < 16 && !(mtc_periods & (1u << period)))
			period++;
		if (period == 16)	/* none at 3 or above: the lowest there is */
			for (period = 0; !(mtc_periods & (1u << period)); period++)
				;
		set_default(p, w, "mtc", 1);
		set_default(p, w, "mtc_period", period);
	}
	if (s->mode != PT_MODE_FULL)
		set_default(p, w, "noretcomp", 1);
	if (cap_or_zero(p, "psb_cyc"))
		set_default(p, w, "psb_period", psb_default(p, s));
}

/* The names of this kernel's terms, for a message. */
static void term_names(const struct pt_pmu *p, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->nfmt && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
					p->fmt[i].name);
}

/* One "name[=value]" term of --pt-config onto w; *given is the
 * term's format. */
static int apply_term(const struct pt_pmu *p, const char *term, size_t len,
		      struct words *w, const struct pt_format **given,
		      struct errmsg *e)
{
	char name[32], names[512], *end;
	const char *eq = memchr(term, '=', len);
	size_t nlen = eq ? (size_t)(eq - term) : len;
	const struct pt_format *f;
	unsigned long long v = 1;

	if (nlen == 0 || nlen >= sizeof(name))
		return errmsg_set(e, EINVAL, "invalid --pt-config term '%.*s': "
				  "expected NAME or NAME=VALUE", (int)len, term);
	memcpy(name, term, nlen);
	name[nlen] = '\0';
	f = pt_pmu_format(p, name);
	if (!f) {
		term_names(p, names, sizeof(names));
		return errmsg_set(e, EINVAL, "invalid --pt-config term '%s': this "
				  "kernel's intel_pt PMU has no such term (it has %s)",
				  name, names);
	}
	if (eq) {
		char val[32];
		size_t vlen = len - nlen - 1;

		if (vlen == 0 || vlen >= sizeof(val))
			return errmsg_set(e, EINVAL, "invalid --pt-config term "
					  "'%.*s': expected a number after '='",
					  (int)len, term);
		memcpy(val, eq + 1, vlen);
		val[vlen] = '\0';
		errno = 0;
		v = strtoull(val, &end, 0);
		if (errno || *end || val[0] == '-')
			return errmsg_set(e, EINVAL, "invalid --pt-config term "
					  "'%.*s': '%s' is not a number", (int)len,
					  term, val);
	}
	if (v > field_mask(f))
		return errmsg_set(e, EINVAL, "invalid --pt-config term '%.*s': "
				  "%s takes at most %llu (%u bits)", (int)len, term,
				  name, (unsigned long long)field_mask(f),
				  (unsigned)(f->hi - f->lo + 1));
	set_field(w, f, v);
	*given = f;
	return 0;
}

static uint64_t term_value(const struct pt_pmu *p, const struct words *w,
			   const char *name)
{
	const struct pt_format *f = pt_pmu_format(p, name);

	return f ? get_field(w, f) : 0;
}

/* "needs caps/<cap>" for a term, as pt_event_valid() checks it. */
static int need_cap(const struct pt_pmu *p, const char *term, const char *cap,
		    struct errmsg *e)
{
	uint32_t v;

	if (pt_pmu_cap(p, cap, &v) == 0 && v)
		return 0;
	return errmsg_set(e, EINVAL, "invalid --pt-config: '%s' needs the %s "
			  "capability, which this CPU lacks (caps/%s is %s in "
			  "/%s); drop the term", term, cap, cap,
			  pt_pmu_cap(p, cap, &v) == 0 ? "0" : "missing", PT_PMU_DIR);
}

/* A value n of term must have bit n set in caps/<cap> (a period list). */
static int need_bit(const struct pt_pmu *p, const char *term, uint64_t n,
		    const char *cap, struct errmsg *e)
{
	uint32_t v = cap_or_zero(p, cap);

	if (n < 32 && (v & (1u << n)))
		return 0;
	return errmsg_set(e, EINVAL, "invalid --pt-config: %s=%llu is not one "
			  "this CPU offers (caps/%s is %x: bit n set for each "
			  "value n it takes); pick another", term,
			  (unsigned long long)n, cap, v);
}

/* The kernel's pt_event_valid(), with names. */
static int check_caps(const struct pt_pmu *p, const struct words *w,
		      struct errmsg *e)
{
	static const struct { const char *term, *cap; } simple[] = {
		{ "cyc", "psb_cyc" }, { "pwr_evt", "power_event_trace" },
		{ "event", "event_trace" }, { "notnt", "tnt_disable" },
		{ "ptw", "ptwrite" }, { "fup_on_ptw", "ptwrite" },
		{ "mtc", "mtc" },
	};
	uint64_t v;
	int err = 0;

	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]) && !err; i++)
		if (term_value(p, w, simple[i].term))
			err = need_cap(p, simple[i].term, simple[i].cap, e);
	if (!err && (v = term_value(p, w, "psb_period")))
		err = need_cap(p, "psb_period", "psb_cyc", e);
	if (!err && v)
		err = need_bit(p, "psb_period", v, "psb_periods", e);
	if (!err && (v = term_value(p, w, "cyc_thresh")))
		err = need_cap(p, "cyc_thresh", "psb_cyc", e);
	if (!err && v)
		err = need_bit(p, "cyc_thresh", v, "cycle_thresholds", e);
	/* The kernel checks the period whenever MTC is on, 0 included. */
	if (!err && (term_value(p, w, "mtc") || term_value(p, w, "mtc_period")))
		err = need_cap(p, "mtc", "mtc", e);
	if (!err && (term_value(p, w, "mtc") || term_value(p, w, "mtc_period")))
		err = need_bit(p, "mtc_period", term_value(p, w, "mtc_period"),
			       "mtc_periods", e);
	if (!err && term_value(p, w, "fup_on_ptw") && !term_value(p, w, "ptw"))
		err = errmsg_set(e, EINVAL, "invalid --pt-config: fup_on_ptw "
				 "needs ptw too (the kernel refuses it alone)");
	return err;
}

/* What faultline cannot do without.  branch_given: the user set the
 * branch term. */
static int check_needed(const struct pt_pmu *p, const struct words *w,
			int branch_given, struct errmsg *e)
{
	if (!term_value(p, w, "tsc"))
		return errmsg_set(e, EINVAL, "invalid --pt-config: tsc=0 leaves "
				  "the trace without timestamps, and faultline puts "
				  "every branch on the recording's clock; drop it");
	/* Without "pt" (bit 0) the kernel forces branch tracing on; with
	 * it, or with branch=0 given, the branch bit says. */
	if ((branch_given || term_value(p, w, "pt")) && !term_value(p, w, "branch"))
		return errmsg_set(e, EINVAL, "invalid --pt-config: branch=0 (or "
				  "pt without branch) turns off the control flow "
				  "faultline decodes; drop it");
	return 0;
}

int pt_config_build(const struct pt_pmu *p, const struct pt_settings *s,
		    uint64_t *config, struct errmsg *e)
{
	struct words w = { { 0, 0, 0 } };
	const char *t = s->terms ? s->terms : "";
	const struct pt_format *branch = pt_pmu_format(p, "branch");
	int err = 0, branch_given = 0;

	defaults(p, s, &w);
	while (*t && err == 0) {
		size_t len = strcspn(t, ",");
		const struct pt_format *given = NULL;

		if (len)
			err = apply_term(p, t, len, &w, &given, e);
		branch_given |= given && given == branch;
		t += len + (t[len] == ',');
	}
	/* The kernel takes the branch bit only with bit 0 ("pt",
	 * pass-through) set. */
	if (err == 0 && branch_given && term_value(p, &w, "branch"))
		set_default(p, &w, "pt", 1);
	if (err == 0)
		err = check_needed(p, &w, branch_given, e);
	if (err == 0)
		err = check_caps(p, &w, e);
	if (err == 0 && (w.w[1] || w.w[2]))
		err = errmsg_set(e, EINVAL, "invalid --pt-config: this kernel's "
				 "intel_pt terms beyond config are not ones faultline "
				 "can pass; drop them");
	*config = w.w[0];
	return err;
}

size_t pt_aux_bytes(const struct pt_settings *s, size_t page)
{
	uint64_t want = s->mode == PT_MODE_FULL ? s->size : 4 * s->size;
	size_t n = 4 * page;

	while (n < want && n < ((size_t)1 << 30))
		n <<= 1;
	return n;
}

void pt_attr_fill(const struct pt_pmu *p, uint64_t config,
		  const struct pt_settings *s, size_t aux_bytes,
		  struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->type;
	a->config = config;
	a->sample_type = PT_SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->disabled = 1;
	/* User code only: the question is which code of the thread led into
	 * the stall, and kernel tracing would need kcore to decode. */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->context_switch = 1;
	if (s->mode == PT_MODE_FULL)
		a->aux_watermark = (uint32_t)(aux_bytes / 4);
}

void pt_attr_aux_sample(struct perf_event_attr *a, uint64_t size)
{
	a->sample_type |= PERF_SAMPLE_AUX;
	a->aux_sample_size = (uint32_t)size;
	a->use_clockid = 0;
	a->clockid = 0;
}
