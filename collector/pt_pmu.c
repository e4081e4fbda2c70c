#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/file.h"
#include "procfs.h"
#include "pt_pmu.h"

/* "<root>/<rel>" into buf; root "/" or "" gives "/<rel>". */
static void join(char *buf, size_t n, const char *root, const char *rel)
{
	size_t len = strlen(root);

	while (len && root[len - 1] == '/')
		len--;
	snprintf(buf, n, "%.*s/%s", (int)len, root, rel);
}

/* A whole small sysfs file; NULL and -ENOENT when absent. */
static int read_small(const char *path, char **text, struct errmsg *e)
{
	size_t len;

	return read_text_file(path, text, &len, e);
}

/* "config:14-17", "config1:3", "config:0" -> word, lo, hi. */
static int parse_format(const char *text, struct pt_format *f)
{
	unsigned lo, hi;
	char word[16];
	int used = 0;

	if (sscanf(text, "%15[a-z0-9]:%u%n", word, &lo, &used) != 2)
		return -EINVAL;
	hi = lo;
	if (text[used] == '-' && sscanf(text + used, "-%u", &hi) != 1)
		return -EINVAL;
	if (!strcmp(word, "config"))
		f->word = 0;
	else if (!strcmp(word, "config1"))
		f->word = 1;
	else if (!strcmp(word, "config2"))
		f->word = 2;
	else
		return -EINVAL;
	if (hi < lo || hi > 63)
		return -EINVAL;
	f->lo = (uint8_t)lo;
	f->hi = (uint8_t)hi;
	return 0;
}

/* Calls one(dir/name) for each plain entry of dir, in name order. */
static int each_file(struct pt_pmu *p, const char *dir,
		     int (*one)(struct pt_pmu *, const char *name,
				const char *text, const char *path,
				struct errmsg *),
		     struct errmsg *e)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), err = 0;

	if (n < 0)
		return errmsg_set(e, errno == ENOENT ? EINVAL : errno,
				  "cannot read '%s': %s; the intel_pt PMU of "
				  "this kernel is incomplete", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + 256], *text = NULL;

		if (!err && names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			err = read_small(path, &text, e);
			if (err == -ENOENT)
				err = 0;	/* a directory entry, or gone */
			else if (err == 0)
				err = one(p, names[i]->d_name, text, path, e);
			free(text);
		}
		free(names[i]);
	}
	free(names);
	return err;
}

static int add_format(struct pt_pmu *p, const char *name, const char *text,
		      const char *path, struct errmsg *e)
{
	struct pt_format *f = &p->fmt[p->nfmt];

	if (p->nfmt == PT_MAX_TERMS || strlen(name) >= sizeof(f->name))
		return 0;	/* more terms than any kernel has: not ours to use */
	if (parse_format(text, f) < 0)
		return errmsg_set(e, EINVAL, "cannot use '%s': '%.40s' is not a "
				  "format the kernel writes (expected e.g. "
				  "config:14-17)", path, text);
	strcpy(f->name, name);
	p->nfmt++;
	return 0;
}

/* caps files hold "%x\n" (pt_cap_show). */
static int add_cap(struct pt_pmu *p, const char *name, const char *text,
		   const char *path, struct errmsg *e)
{
	struct pt_cap *c = &p->caps[p->ncaps];
	char *end;
	unsigned long v;

	if (p->ncaps == PT_MAX_CAPS || strlen(name) >= sizeof(c->name))
		return 0;
	errno = 0;
	v = strtoul(text, &end, 16);
	if (errno || end == text || (*end && *end != '\n') || v > UINT32_MAX)
		return errmsg_set(e, EINVAL, "cannot use '%s': '%.40s' is not a "
				  "hexadecimal capability value", path, text);
	strcpy(c->name, name);
	c->value = (uint32_t)v;
	p->ncaps++;
	return 0;
}

/* type, max_nonturbo_ratio ("%lu"), tsc_art_ratio ("%u:%u"). */
static int read_numbers(struct pt_pmu *p, const char *dir, struct errmsg *e)
{
	char path[PATH_MAX + 32], *text = NULL;
	int err;

	snprintf(path, sizeof(path), "%s/type", dir);
	err = read_small(path, &text, e);
	if (err == 0 && sscanf(text, "%u", &p->type) != 1)
		err = errmsg_set(e, EINVAL, "cannot use '%s': not a PMU type", path);
	else if (err == -ENOENT)
		err = errmsg_set(e, EINVAL, "cannot use the intel_pt PMU: '%s' is "
				 "missing", path);
	free(text);
	text = NULL;
	snprintf(path, sizeof(path), "%s/max_nonturbo_ratio", dir);
	if (err == 0 && read_small(path, &text, e) == 0)
		sscanf(text, "%u", &p->max_nonturbo_ratio);
	free(text);
	text = NULL;
	snprintf(path, sizeof(path), "%s/tsc_art_ratio", dir);
	if (err == 0 && read_small(path, &text, e) == 0)
		sscanf(text, "%u:%u", &p->tsc_art_num, &p->tsc_art_den);
	free(text);
	return err;
}

/* Is word one of the space-separated words of list? */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* No intel_pt PMU: say why, from what cpuinfo tells. */
static int explain_absent(const char *root, const char *dir, struct errmsg *e)
{
	char path[PATH_MAX], vendor[64], model[128], flags[4096];
	char *text = NULL;
	struct errmsg ignored;

	join(path, sizeof(path), root, "proc/cpuinfo");
	errmsg_init(&ignored);
	if (read_small(path, &text, &ignored) < 0)
		return errmsg_set(e, ENODEV, "cannot record Intel PT: there is no "
				  "intel_pt PMU (no %s); record without --pt", dir);
	cpuinfo_field(text, "vendor_id", vendor, sizeof(vendor));
	cpuinfo_field(text, "model name", model, sizeof(model));
	cpuinfo_field(text, "flags", flags, sizeof(flags));
	free(text);
	if (strcmp(vendor, "GenuineIntel"))
		return errmsg_set(e, ENODEV, "cannot record Intel PT: there is no "
				  "intel_pt PMU (no %s): this CPU is '%s' (%s), and "
				  "Intel PT needs an Intel CPU; record without --pt",
				  dir, model, vendor[0] ? vendor : "unknown vendor");
	if (has_word(flags, "hypervisor") && !has_word(flags, "intel_pt"))
		return errmsg_set(e, ENODEV, "cannot record Intel PT: there is no "
				  "intel_pt PMU (no %s): this is a virtual machine "
				  "whose hypervisor does not pass Intel PT through "
				  "(no intel_pt flag in /proc/cpuinfo); record on the "
				  "host, or in a VM with PT passthrough (KVM: "
				  "kvm_intel pt_mode=1), or without --pt", dir);
	if (!has_word(flags, "intel_pt"))
		return errmsg_set(e, ENODEV, "cannot record Intel PT: there is no "
				  "intel_pt PMU (no %s): this CPU, '%s', has no Intel "
				  "PT (no intel_pt flag in /proc/cpuinfo; PT came "
				  "with Broadwell); record without --pt", dir, model);
	return errmsg_set(e, ENODEV, "cannot record Intel PT: there is no "
			  "intel_pt PMU (no %s) although the CPU has Intel PT: "
			  "the kernel was built without it or booted with it "
			  "off; record without --pt", dir);
}

int pt_pmu_read(struct pt_pmu *p, const char *root, struct errmsg *e)
{
	char dir[PATH_MAX], sub[PATH_MAX + 8];
	int err;

	memset(p, 0, sizeof(*p));
	join(dir, sizeof(dir), root, PT_PMU_DIR);
	if (access(dir, F_OK) != 0)
		return explain_absent(root, dir, e);
	err = read_numbers(p, dir, e);
	snprintf(sub, sizeof(sub), "%s/format", dir);
	if (err == 0)
		err = each_file(p, sub, add_format, e);
	snprintf(sub, sizeof(sub), "%s/caps", dir);
	if (err == 0)
		err = each_file(p, sub, add_cap, e);
	if (err == 0 && !pt_pmu_format(p, "tsc"))
		err = errmsg_set(e, EINVAL, "cannot use the intel_pt PMU: %s/format "
				 "has no 'tsc' term, and faultline needs the trace's "
				 "timestamps", dir);
	return err;
}

const struct pt_format *pt_pmu_format(const struct pt_pmu *p, const char *name)
{
	for (size_t i = 0; i < p->nfmt; i++)
		if (!strcmp(p->fmt[i].name, name))
			return &p->fmt[i];
	return NULL;
}

int pt_pmu_cap(const struct pt_pmu *p, const char *name, uint32_t *value)
{
	for (size_t i = 0; i < p->ncaps; i++)
		if (!strcmp(p->caps[i].name, name)) {
			*value = p->caps[i].value;
			return 0;
		}
	return -ENOENT;
}

void pt_cpu_signature(const char *root, uint32_t *family, uint32_t *model,
		      uint32_t *stepping)
{
	char path[PATH_MAX], vendor[64], v[32], *text = NULL;
	struct errmsg ignored;

	*family = *model = *stepping = 0;
	join(path, sizeof(path), root, "proc/cpuinfo");
	errmsg_init(&ignored);
	if (read_small(path, &text, &ignored) < 0)
		return;
	cpuinfo_field(text, "vendor_id", vendor, sizeof(vendor));
	if (!strcmp(vendor, "GenuineIntel")) {
		cpuinfo_field(text, "cpu family", v, sizeof(v));
		*family = (uint32_t)strtoul(v, NULL, 10);
		cpuinfo_field(text, "model", v, sizeof(v));
		*model = (uint32_t)strtoul(v, NULL, 10);
		cpuinfo_field(text, "stepping", v, sizeof(v));
		*stepping = (uint32_t)strtoul(v, NULL, 10);
	}
	free(text);
}
