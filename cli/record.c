/*
 * faultline record: page faults of chosen threads, timed and stored.
 * Options, then the record engine (record/session.h) does the work, and
 * this file says what it is doing and what it did.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/command_fifo.h"
#include "../common/cpulist.h"
#include "../common/json.h"
#include "../decoder/metric_line.h"
#include "../decoder/metric_parse.h"
#include "../common/strbuf.h"
#include "../record/session.h"
#include "commands.h"
#include "../common/labels.h"
#include "opt.h"
#include "record_pt.h"
#include "../common/fmt_dur.h"
#include "record_summary.h"
#include "usage.h"

/* 4 MiB per CPU.  On the 2-core VM of bench/collector, the fault loop at
 * full rate (about 11 MB/s of samples) lost records with 16 and 64 KiB
 * rings and none from 256 KiB up; 4 MiB leaves room for machines whose
 * faults are several times faster, or a reader held up for a while. */
#define DEFAULT_RING_BYTES (4ull << 20)

/* 64 MiB: the context-switch storm of bench/collector/switch_overhead.sh
 * (100,000 pipe round trips, -a: about 45 MB of records in 1.5 s) piled
 * up 25-43 MiB in it while the engine caught up (31-35 MiB beside two
 * CPU hogs).  It is resident from the start (collector/spool.c says
 * why), so it is most of faultline's memory. */
#define DEFAULT_SPOOL_BYTES (64ull << 20)
/* On disk, beside the database, when the spool is full: switch storms on
 * 14 CPUs of a 16-CPU VM left about 150 MB to wait there
 * (bench/collector/many_cpus.sh). */
#define DEFAULT_SPILL_BYTES (4ull << 30)

struct record_args {
	const char *output;
	struct target_set targets;
	struct tp_spec_list tracepoints;	/* owned */
	struct lat_spec_list latencies;		/* owned: --latency */
	int block_io;				/* --block-io */
	int all;
	uint64_t min_fault_dur_ns;
	uint64_t duration_ns;
	uint64_t buffer_bytes;
	uint64_t spool_bytes;
	uint64_t spill_bytes;	/* UINT64_MAX until given */
	cpu_set_t cpus;			/* --cpu */
	int have_cpus;
	int ready_fd;			/* --ready-fd, -1: none */
	int quiet;
	struct udp_sampler udp;		/* --udp-port, --socket */
	uint64_t sample_interval_ns;	/* 0: --sample-interval not given */
	const char *cgroup_path;	/* --cgroup, or NULL: the first target's */
	struct cgroup_sampler cgroup;	/* opened by open_cgroup, or not */
	uint64_t cgroup_interval_ns;
	struct stack_config stacks;
	uint64_t stack_size;
	int no_symbolize;
	int no_thread_states;		/* --no-thread-states */
	int no_ran_instead;		/* --no-ran-instead */
	int no_wakers;			/* --no-wakers */
	int no_wake_stacks;		/* --no-wake-stacks */
	struct syscall_set syscalls;	/* --syscalls[=LIST] */
	int syscalls_on;
	uint64_t min_syscall_dur_ns;
	/* --pt, --pt-size, --pt-config, --pt-trigger. */
	int pt_on;
	struct pt_settings pt;
	struct labels labels;		/* --label, owned */
	struct strbuf labels_json;	/* owned: labels as session.labels */
	/* --flight, --keep, --max-memory, --control. */
	int flight_on;
	int keep_given;
	struct flight_config flight;
	const char *control_path;	/* borrowed from argv, or NULL */
	int control_fd;			/* owned: -1 until opened */
	/* --metric-fifo, --metric-udp: where --trigger metric:'s lines
	 * come from. */
	const char *metric_fifo_path;	/* borrowed from argv, or NULL */
	int metric_fifo_fd;		/* owned: -1 until opened */
	const char *metric_udp_spec;	/* borrowed from argv, or NULL */
	struct sockaddr_storage metric_udp_addr;
	socklen_t metric_udp_len;
	int metric_udp_fd;		/* owned: -1 until bound */
};

/* --flight's defaults: 10 s before a trigger and 1 s after it, in up to
 * 128 MiB (the fault loop of bench/collector writes about 11 MB/s of
 * records at full rate: 10 s of it). */
#define DEFAULT_FLIGHT_BEFORE_NS (10ull * 1000 * 1000 * 1000)
#define DEFAULT_FLIGHT_AFTER_NS (1000ull * 1000 * 1000)
#define DEFAULT_FLIGHT_MEMORY (128ull << 20)
/* 10 an hour: enough to catch a stall that recurs, few enough that a
 * storm of triggers (a thread stuck again and again) cannot fill the
 * disk with near-identical dumps; as Perfetto's max_per_24_h, a cap. */
#define DEFAULT_FLIGHT_DUMPS 10
#define DEFAULT_FLIGHT_PERIOD_NS (3600ull * 1000 * 1000 * 1000)

/* --trigger metric:NAME>VALUE (a NAME given again takes the last). */
static int add_metric_trigger(struct flight_config *c, const char *arg,
			      const char *opt, struct errmsg *e)
{
	const char *name = arg + strlen("metric:"), *gt = strchr(name, '>');
	size_t len = gt ? (size_t)(gt - name) : 0, i;
	double v;

	if (!gt || !metric_name_valid(name, len))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected "
				  "metric:NAME>VALUE, NAME 1 to %d printable "
				  "characters without spaces, e.g. 'metric:nak>0'",
				  opt, arg, METRIC_NAME_MAX - 1);
	if (metric_parse_value(gt + 1, strlen(gt + 1), &v) < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': the VALUE must be "
				  "a number, e.g. 'metric:lat_ms>2.5'", opt, arg);
	for (i = 0; i < c->nmetrics && (strlen(c->metrics[i].name) != len ||
					strncmp(c->metrics[i].name, name, len)); i++)
		;
	if (i == FLIGHT_METRICS_MAX)
		return errmsg_set(e, EINVAL, "too many %s metric:NAME>VALUE: at "
				  "most %d metrics", opt, FLIGHT_METRICS_MAX);
	memcpy(c->metrics[i].name, name, len);
	c->metrics[i].name[len] = '\0';
	c->metrics[i].threshold = v;
	if (i == c->nmetrics)
		c->nmetrics++;
	return 0;
}

/* --trigger offcpu's :STATE,STATE...: into spec->states.  0 or -EINVAL. */
static int trigger_states(const char *list, size_t len, const char *opt,
			  const char *arg, struct flight_trigger_spec *spec,
			  struct errmsg *e)
{
	static const enum thread_state_kind off[] = {
		TS_RUNNABLE, TS_SLEEPING, TS_BLOCKED, TS_WAITING, TS_OTHER,
	};

	while (len) {
		const char *comma = memchr(list, ',', len);
		size_t n = comma ? (size_t)(comma - list) : len, i;

		for (i = 0; i < ARRAY_SIZE(off); i++)
			if (n == strlen(thread_state_name(off[i])) &&
			    !strncmp(list, thread_state_name(off[i]), n))
				break;
		if (i == ARRAY_SIZE(off))
			return errmsg_set(e, EINVAL, "invalid %s '%s': '%.*s' is no "
					  "state off the CPU: expected runnable, "
					  "sleeping, blocked, waiting or other, e.g. "
					  "offcpu:blocked,runnable>50ms", opt, arg,
					  (int)n, list);
		spec->states |= 1u << off[i];
		len -= comma ? n + 1 : n;
		list += comma ? n + 1 : n;
	}
	return 0;
}

/* --trigger's @THREAD: a tid, or a thread's name (comm). */
static int trigger_thread(const char *thread, const char *opt, const char *arg,
			  struct flight_trigger_spec *spec, struct errmsg *e)
{
	char *end;
	unsigned long tid;

	if (!*thread || strlen(thread) >= sizeof(spec->comm))
		return errmsg_set(e, EINVAL, "invalid %s '%s': after '@', a thread "
				  "id or a thread's name of at most %zu characters, "
				  "e.g. offcpu>100ms@redis-server", opt, arg,
				  sizeof(spec->comm) - 1);
	tid = strtoul(thread, &end, 10);
	if (*end == '\0' && tid > 0 && tid <= UINT32_MAX)
		spec->tid = (uint32_t)tid;
	else
		strcpy(spec->comm, thread);
	return 0;
}

/* --trigger KIND[:STATE,...]>DUR[@THREAD] (repeatable; one given again
 * with the same KIND, states and thread takes the last), or
 * metric:NAME>VALUE. */
static int add_trigger(void *value, const char *arg, const char *opt,
		       struct errmsg *e)
{
	struct flight_config *c = value;
	const char *gt = strchr(arg, '>'), *colon, *at;
	struct flight_trigger_spec spec;
	char dur[64];
	size_t i, name_len;
	int err = 0;

	if (!strncmp(arg, "metric:", strlen("metric:")))
		return add_metric_trigger(c, arg, opt, e);
	memset(&spec, 0, sizeof(spec));
	colon = gt ? memchr(arg, ':', (size_t)(gt - arg)) : NULL;
	name_len = (size_t)((colon ? colon : gt ? gt : arg) - arg);
	for (spec.kind = FLIGHT_FAULT; gt && spec.kind <= FLIGHT_SYSCALL; spec.kind++) {
		const char *name = flight_trigger_name(spec.kind);

		if (name_len == strlen(name) && !strncmp(arg, name, name_len))
			break;
	}
	if (!gt || spec.kind > FLIGHT_SYSCALL)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected fault>DUR, "
				  "offcpu>DUR, syscall>DUR or metric:NAME>VALUE, "
				  "e.g. offcpu>100ms", opt, arg);
	if (colon && spec.kind != FLIGHT_OFFCPU)
		return errmsg_set(e, EINVAL, "invalid %s '%s': only offcpu takes "
				  "states, e.g. offcpu:blocked>50ms", opt, arg);
	if (colon)
		err = trigger_states(colon + 1, (size_t)(gt - colon - 1), opt, arg,
				     &spec, e);
	at = strchr(gt + 1, '@');
	if (err == 0 && at)
		err = trigger_thread(at + 1, opt, arg, &spec, e);
	if (err < 0)
		return err;
	snprintf(dur, sizeof(dur), "%.*s", (int)((at ? at : gt + strlen(gt)) -
						 gt - 1), gt + 1);
	err = opt_parse_duration(dur, opt, &spec.dur_ns, e);
	if (err == 0 && spec.dur_ns == 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': the duration must "
				  "be more than 0, e.g. offcpu>100ms", opt, arg);
	if (err < 0)
		return err;
	for (i = 0; i < c->ntriggers; i++) {
		const struct flight_trigger_spec *o = &c->triggers[i];

		if (o->kind == spec.kind && o->states == spec.states &&
		    o->tid == spec.tid && !strcmp(o->comm, spec.comm))
			break;
	}
	if (i == FLIGHT_TRIGGERS_MAX)
		return errmsg_set(e, EINVAL, "invalid %s '%s': at most %d duration "
				  "triggers", opt, arg, FLIGHT_TRIGGERS_MAX);
	c->triggers[i] = spec;
	if (i == c->ntriggers)
		c->ntriggers++;
	return 0;
}

/* --max-dumps N/PERIOD: PERIOD a duration, or second, minute, hour,
 * day. */
static int set_max_dumps(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	static const struct { const char *name; uint64_t ns; } words[] = {
		{ "second", 1000000000ull }, { "minute", 60000000000ull },
		{ "hour", 3600000000000ull }, { "day", 86400000000000ull },
	};
	struct flight_config *c = value;
	const char *slash = strchr(arg, '/');
	char n[32];
	uint64_t v;
	int err;

	if (!slash || slash == arg || (size_t)(slash - arg) >= sizeof(n))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected N/PERIOD, "
				  "e.g. 10/hour or 3/10m", opt, arg);
	memcpy(n, arg, (size_t)(slash - arg));
	n[slash - arg] = '\0';
	err = opt_parse_u64_in(n, opt, 1, FLIGHT_MAX_DUMPS_MAX, "a number of "
			       "dumps from 1 to 10000, e.g. 10/hour", &v, e);
	if (err < 0)
		return err;
	c->max_dumps = (uint32_t)v;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(slash + 1, words[i].name)) {
			c->period_ns = words[i].ns;
			return 0;
		}
	err = opt_parse_duration(slash + 1, opt, &c->period_ns, e);
	if (err == 0 && c->period_ns == 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': the period must be "
				  "more than 0, e.g. 10/hour", opt, arg);
	return err;
}

/* --keep BEFORE[,AFTER]: durations; AFTER keeps its default if left out. */
static int set_keep(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	struct record_args *a = value;
	const char *comma = strchr(arg, ',');
	char before[64];
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	int err;

	if (n == 0 || n >= sizeof(before))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected "
				  "BEFORE[,AFTER] durations, e.g. 10s,1s", opt, arg);
	memcpy(before, arg, n);
	before[n] = '\0';
	a->keep_given = 1;
	err = opt_parse_duration(before, opt, &a->flight.before_ns, e);
	if (err == 0 && comma)
		err = opt_parse_duration(comma + 1, opt, &a->flight.after_ns, e);
	return err;
}

/* --metric-udp [ADDR:]PORT: checked now, bound when recording starts. */
static int set_metric_udp(void *value, const char *arg, const char *opt,
			  struct errmsg *e)
{
	struct record_args *a = value;

	if (metric_udp_parse(arg, &a->metric_udp_addr, &a->metric_udp_len) < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected [ADDR:]PORT, "
				  "PORT 1 to 65535, ADDR an IPv4 address or an "
				  "IPv6 one in brackets, e.g. 9125 or [::1]:9125",
				  opt, arg);
	a->metric_udp_spec = arg;
	return 0;
}

/* --label KEY=VALUE (repeatable; a KEY given again takes the last). */
static int add_label(void *value, const char *arg, const char *opt,
		     struct errmsg *e)
{
	return labels_add(value, arg, opt, e);
}

/* --pt[=MODE]. */
static int set_pt(void *value, const char *arg, const char *opt,
		  struct errmsg *e)
{
	struct record_args *a = value;

	a->pt_on = 1;
	return record_pt_mode(&a->pt, arg, opt, e);
}

/* --syscalls[=LIST]: the calls of LIST, or the default ones. */
static int set_syscalls(void *value, const char *arg, const char *opt,
			struct errmsg *e)
{
	struct record_args *a = value;

	(void)opt;
	a->syscalls_on = 1;
	return syscall_set_parse(&a->syscalls, arg ? arg : "default", e);
}

/* 1 ms: a call that long is a wait worth a row; the shorter ones (most
 * reads of a cached file, most futex hand-offs) are counted, per thread
 * and call, in syscall_histogram, and summed per file in syscall_file. */
#define DEFAULT_MIN_SYSCALL_NS 1000000ull

/* 1 ms: under 2% of a core on the 2-core VM of
 * bench/collector/udp_sampling.sh, and a full 4 KiB receive buffer of
 * a feed at 10k datagrams a second is a few ms. */
#define DEFAULT_SAMPLE_INTERVAL_NS 1000000ull

/* 10 ms: a tenth of the usual 100 ms quota period, so each period's
 * throttling shows in the samples; reading three cgroup files costs
 * about as much as one UDP sample. */
#define DEFAULT_CGROUP_INTERVAL_NS 10000000ull

static int add_pids(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	return target_add_pids(value, arg, opt, e);
}

static int add_tids(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	return target_add_tids(value, arg, opt, e);
}

static int add_comm(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	return target_add_comm(value, (char *)arg, opt, e);
}

static int add_port(void *ctx, uint64_t port)
{
	return udp_sampler_add_port(ctx, port);
}

/* Out of memory is the only failure left once the text checked out. */
static int added(int err, struct errmsg *e)
{
	return err == -ENOMEM ? errmsg_set(e, ENOMEM, "out of memory") : err;
}

/* --udp-port: "9000,9001", ports 1 to 65535. */
static int add_udp_ports(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	return added(opt_parse_u64_list(arg, opt, 1, 65535, "UDP ports from 1 "
					"to 65535, separated by commas, e.g. "
					"9000,9001", add_port, value, e), e);
}

/* --socket: an inode number. */
static int add_socket(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	uint64_t inode;
	int err = opt_parse_u64_in(arg, opt, 1, UINT64_MAX, "a socket's inode "
				   "number, as the inode column of /proc/net/udp "
				   "or 'ss -uae' shows it", &inode, e);

	return err < 0 ? err : added(udp_sampler_add_inode(value, inode), e);
}

static int set_sample_interval(void *value, const char *arg, const char *opt,
			       struct errmsg *e)
{
	int err = opt_parse_duration(arg, opt, value, e);

	if (err == 0 && *(uint64_t *)value == 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': it must be more "
				  "than 0, e.g. 1ms", opt, arg);
	return err;
}

static int set_cpus(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	struct record_args *a = value;

	if (cpulist_parse(arg, &a->cpus) < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected CPU numbers "
				  "and ranges, e.g. 0 or 0-1,4", opt, arg);
	a->have_cpus = 1;
	return 0;
}

static int set_ready_fd(void *value, const char *arg, const char *opt,
			struct errmsg *e)
{
	char *end;
	long fd;

	errno = 0;
	fd = strtol(arg, &end, 10);
	if (errno || end == arg || *end || fd < 0 || fd > INT32_MAX ||
	    fcntl((int)fd, F_GETFD) < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected a file "
				  "descriptor open for writing, e.g. --ready-fd 3 "
				  "with 3>ready.fifo", opt, arg);
	*(int *)value = (int)fd;
	return 0;
}

static int add_tracepoint(void *value, const char *arg, const char *opt,
			  struct errmsg *e)
{
	return tp_spec_add(value, arg, opt, e);
}

static int add_latency(void *value, const char *arg, const char *opt,
		       struct errmsg *e)
{
	return lat_spec_add(value, arg, opt, e);
}

static int set_stacks(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	struct stack_config *c = value;

	if (!strcmp(arg, "none"))
		c->mode = STACKS_NONE;
	else if (!strcmp(arg, "fp"))
		c->mode = STACKS_FP;
	else if (!strcmp(arg, "dwarf"))
		c->mode = STACKS_DWARF;
	else
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected fp, dwarf "
				  "or none", opt, arg);
	return 0;
}

static const struct {
	const char *name;
	unsigned bit;
} stacks_on_names[] = {
	{ "major", STACKS_ON_MAJOR }, { "blocked", STACKS_ON_BLOCKED },
	{ "faults", STACKS_ON_FAULTS }, { "switches", STACKS_ON_SWITCHES },
};

/* A comma-separated list of stacks_on_names. */
static int set_stacks_on(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	struct stack_config *c = value;
	const char *p = arg;

	c->on = 0;
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < ARRAY_SIZE(stacks_on_names); i++)
			if (strlen(stacks_on_names[i].name) == len &&
			    !strncmp(p, stacks_on_names[i].name, len))
				break;
		if (i == ARRAY_SIZE(stacks_on_names))
			return errmsg_set(e, EINVAL, "invalid %s '%s': expected a "
					  "comma-separated list of major, blocked, "
					  "faults and switches", opt, arg);
		c->on |= stacks_on_names[i].bit;
		p += len + (p[len] == ',');
	}
	if (!c->on)
		return errmsg_set(e, EINVAL, "invalid %s '%s': name at least one "
				  "of major, blocked, faults and switches", opt, arg);
	return 0;
}

static const char record_usage[] =
	"faultline record [-o DB] [-p PID[,PID]] [-t TID[,TID]] [--comm NAME]\n"
	"                        [-a] [-e SUBSYS:NAME[/FILTER/]] [--min-fault-duration DUR]\n"
	"                        [--udp-port PORT[,PORT]] [--socket INODE]\n"
	"                        [--sample-interval DUR] [--cgroup PATH]\n"
	"                        [--duration DUR] [--buffer-size SIZE]\n"
	"                        [--spool-size SIZE] [--spill-size SIZE]\n"
	"                        [--cpu LIST] [--ready-fd FD]\n"
	"                        [--stacks fp|dwarf|none] [--stack-size BYTES]\n"
	"                        [--stacks-on EVENTS] [--no-symbolize]\n"
	"                        [--no-thread-states] [--no-ran-instead]\n"
	"                        [--no-wakers] [--no-wake-stacks]\n"
	"                        [--syscalls[=LIST]] [--min-syscall-duration DUR]\n"
	"                        [--latency START/END[:FIELD]]... [--block-io]\n"
	"                        [--pt[=MODE]] [--pt-size SIZE] [--pt-config TERMS]\n"
	"                        [--pt-trigger DUR] [--label KEY=VALUE]... [-q]\n"
	"                        [--flight [--keep BEFORE[,AFTER]] [--max-memory SIZE]\n"
	"                        [--trigger KIND>DUR]... [--max-dumps N/PERIOD]\n"
	"                        [--max-disk SIZE] [--control FIFO]\n"
	"                        [--metric-fifo FIFO] [--metric-udp [ADDR:]PORT]]\n"
	"                        [-- COMMAND [ARGS...]]";

static const char record_examples[] =
	"  faultline record -o run.db -- ./server --port 9000\n"
	"  faultline record -o run.db -p 4242 --duration 60s\n"
	"  faultline record -o run.db --comm lbm-rx --min-fault-duration 1ms\n"
	"  faultline record -o run.db -e skb:kfree_skb -e sock:sock_rcvqueue_full -- ./rx\n"
	"  faultline record -o run.db --udp-port 9000 -e skb:kfree_skb -p 4242\n"
	"  faultline record -o run.db --stacks=dwarf -p 4242 --duration 60s\n"
	"  faultline record -o run.db --pt -p 4242 --duration 60s\n"
	"  faultline record -o run.db --syscalls -p 4242 --duration 60s\n"
	"  faultline record -o run.db --syscalls=read,fsync --min-syscall-duration 100us -- ./db\n"
	"  faultline record -o run.db --block-io -p 4242 --duration 60s\n"
	"  faultline record -o run.db --latency irq:irq_handler_entry/irq:irq_handler_exit:irq -p 4242\n"
	"  faultline record -o run.db --cgroup /sys/fs/cgroup/cpu/app -p 4242\n"
	"  faultline record -o run.db --flight --keep 10s,1s --control ctl.fifo -p 4242\n"
	"  faultline record -o run.db --flight --trigger 'offcpu>100ms' -p 4242\n"
	"  faultline record -o run.db --flight --trigger 'metric:nak>0' --metric-udp 9125 -p 4242\n";

static int usage_error(const char *fmt, const char *arg)
{
	error("record", fmt, arg);
	return EXIT_USAGE;
}

/* What the options must satisfy together. */
static int check_args(struct record_args *a, char **rest)
{
	struct target_set *t = &a->targets;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const char *metric_src;

	t->all = a->all;
	t->command = rest[0] ? rest : NULL;
	/* SQLite takes these as a database in memory (or a temporary
	 * file): the recording would vanish when faultline exits. */
	if (!a->output[0] || !strcmp(a->output, ":memory:"))
		return usage_error("-o '%s' names no file: the recording would be "
				   "lost at exit; give a file name, e.g. -o run.db",
				   a->output);
	if (a->all && (t->npids || t->ntids || t->ncomms))
		return usage_error("-a records every thread; drop %s",
				   "-p, -t and --comm");
	if (!a->all && !t->npids && !t->ntids && !t->ncomms && !t->command)
		return usage_error("nothing to record: give -p PID, -t TID, "
				   "--comm NAME, -a, or a command after %s", "--");
	if (a->buffer_bytes < page || (a->buffer_bytes & (a->buffer_bytes - 1)) ||
	    a->buffer_bytes > (1ull << 31)) {
		error("record", "invalid --buffer-size %llu: it must be a power of "
		      "two from %llu bytes (one page) to 2G, e.g. 4M",
		      (unsigned long long)a->buffer_bytes,
		      (unsigned long long)page);
		return EXIT_USAGE;
	}
	if (a->spool_bytes < (1u << 20) || a->spool_bytes > (1ull << 40)) {
		error("record", "invalid --spool-size %llu: it must be from 1M to "
		      "1T, e.g. 64M", (unsigned long long)a->spool_bytes);
		return EXIT_USAGE;
	}
	if (a->spill_bytes != UINT64_MAX && a->spill_bytes &&
	    (a->spill_bytes < (1u << 20) || a->spill_bytes > (1ull << 44))) {
		error("record", "invalid --spill-size %llu: it must be 0 (no "
		      "spill file) or from 1M to 16T, e.g. 4G",
		      (unsigned long long)a->spill_bytes);
		return EXIT_USAGE;
	}
	if (a->sample_interval_ns && !udp_sampler_wanted(&a->udp) &&
	    !a->cgroup_path)
		return usage_error("%s samples sockets and cgroups: give "
				   "--udp-port, --socket or --cgroup too",
				   "--sample-interval");
	a->cgroup_interval_ns = a->sample_interval_ns ? a->sample_interval_ns :
				DEFAULT_CGROUP_INTERVAL_NS;
	if (!a->sample_interval_ns)
		a->sample_interval_ns = DEFAULT_SAMPLE_INTERVAL_NS;
	if (a->stack_size < 8 || a->stack_size > STACK_SIZE_MAX || a->stack_size % 8) {
		error("record", "invalid --stack-size %llu: it must be a multiple "
		      "of 8 from 8 to %d bytes (the kernel's limit), e.g. 8192",
		      (unsigned long long)a->stack_size, STACK_SIZE_MAX);
		return EXIT_USAGE;
	}
	a->stacks.stack_size = (uint32_t)a->stack_size;
	if (a->stacks.mode != STACKS_DWARF && a->stack_size != STACK_SIZE_DEFAULT)
		return usage_error("%s sizes the stack copies of --stacks=dwarf; "
				   "add --stacks=dwarf or drop it", "--stack-size");
	if (a->stacks.mode == STACKS_NONE &&
	    a->stacks.on != (STACKS_ON_MAJOR | STACKS_ON_BLOCKED))
		return usage_error("%s chooses the events that carry a stack; add "
				   "--stacks=fp or --stacks=dwarf", "--stacks-on");
	if (a->no_thread_states && (a->stacks.on & (STACKS_ON_BLOCKED |
						    STACKS_ON_SWITCHES)) &&
	    a->stacks.mode != STACKS_NONE)
		return usage_error("%s leaves out the switches that blocked and "
				   "switches stacks are taken on; add --stacks-on "
				   "major or faults", "--no-thread-states");
	if (!a->flight_on && a->flight.ntriggers)
		return usage_error("%s sets a flight recorder's trigger; add "
				   "--flight", "--trigger");
	if (a->flight_on && !a->syscalls_on)
		for (size_t i = 0; i < a->flight.ntriggers; i++)
			if (a->flight.triggers[i].kind == FLIGHT_SYSCALL)
				return usage_error("%s needs the system calls "
						   "timed; add --syscalls",
						   "--trigger syscall>DUR");
	if (a->flight_on && a->no_thread_states)
		for (size_t i = 0; i < a->flight.ntriggers; i++)
			if (a->flight.triggers[i].kind == FLIGHT_OFFCPU)
				return usage_error("%s needs the thread states; "
						   "drop --no-thread-states",
						   "--trigger offcpu>DUR");
	metric_src = a->metric_fifo_path ? "--metric-fifo" :
		     a->metric_udp_spec ? "--metric-udp" : NULL;
	if (!a->flight_on && metric_src)
		return usage_error("%s reads the lines of --trigger metric:NAME>VALUE, "
				   "a flight recorder's trigger; add --flight",
				   metric_src);
	if (!a->flight_on && a->flight.nmetrics)
		return usage_error("%s sets a flight recorder's trigger; add "
				   "--flight", "--trigger metric:NAME>VALUE");
	if (a->flight.nmetrics && !metric_src)
		return usage_error("%s needs lines to read; add --metric-fifo FIFO "
				   "or --metric-udp [ADDR:]PORT",
				   "--trigger metric:NAME>VALUE");
	if (!a->flight.nmetrics && metric_src)
		return usage_error("%s reads lines for --trigger metric:NAME>VALUE; "
				   "add one, e.g. --trigger 'metric:nak>0'", metric_src);
	if (a->flight_on && a->metric_fifo_path && a->control_path &&
	    !strcmp(a->metric_fifo_path, a->control_path))
		return usage_error("--metric-fifo and --control name the same "
				   "FIFO '%s'; give each its own", a->control_path);
	if (!a->flight_on && (a->keep_given || a->control_path ||
			      a->flight.max_memory != DEFAULT_FLIGHT_MEMORY ||
			      a->flight.max_disk ||
			      a->flight.max_dumps != DEFAULT_FLIGHT_DUMPS ||
			      a->flight.period_ns != DEFAULT_FLIGHT_PERIOD_NS))
		return usage_error("%s set the flight recorder; add --flight",
				   "--keep, --max-memory, --max-dumps, --max-disk "
				   "and --control");
	if (a->flight_on && a->spill_bytes != UINT64_MAX)
		return usage_error("%s is for records waiting to be stored; the "
				   "flight recorder keeps them in --max-memory: "
				   "drop it", "--spill-size");
	if (a->flight_on && a->pt_on)
		return usage_error("%s cannot be kept by the flight recorder yet; "
				   "drop --pt or --flight", "--pt");
	if (a->flight_on && (a->flight.max_memory < (1u << 20) ||
			     a->flight.max_memory > (1ull << 40))) {
		error("record", "invalid --max-memory %llu: it must be from 1M to "
		      "1T, e.g. 128M", (unsigned long long)a->flight.max_memory);
		return EXIT_USAGE;
	}
	return record_pt_check(a->pt_on, &a->pt, a->stacks.mode == STACKS_DWARF ?
			       a->stack_size : 0) ? EXIT_USAGE : 0;
}

static int parse_args(struct record_args *a, int argc, char **argv)
{
	const struct opt opts[] = {
		{ 'o', "output", "DB", "database to write; an existing faultline "
		  "database gets a new session (default faultline.db)",
		  OPT_STRING, &a->output, NULL },
		{ 'p', "pid", "PID[,PID]", "processes to record, all their threads "
		  "including later ones", OPT_CALLBACK, &a->targets, add_pids },
		{ 't', "tid", "TID[,TID]", "single threads to record",
		  OPT_CALLBACK, &a->targets, add_tids },
		{ 0, "comm", "NAME", "threads named NAME, now or later (repeatable; "
		  "observes every CPU)", OPT_CALLBACK, &a->targets, add_comm },
		{ 'a', "all-cpus", NULL, "every thread on the machine",
		  OPT_FLAG, &a->all, NULL },
		{ 'e', "event", "SUBSYS:NAME[/FILTER/]", "also record this tracepoint "
		  "(repeatable), with a kernel-side filter", OPT_CALLBACK,
		  &a->tracepoints, add_tracepoint },
		{ 0, "udp-port", "PORT[,PORT]", "sample the receive queue depth and "
		  "drops of the UDP sockets on PORT (repeatable)", OPT_CALLBACK,
		  &a->udp, add_udp_ports },
		{ 0, "socket", "INODE", "sample the UDP socket with this inode "
		  "(repeatable)", OPT_CALLBACK, &a->udp, add_socket },
		{ 0, "sample-interval", "DUR", "how often --udp-port, --socket "
		  "and --cgroup sample (default 1ms; 10ms for the cgroup)",
		  OPT_CALLBACK, &a->sample_interval_ns, set_sample_interval },
		{ 0, "cgroup", "PATH", "sample this cgroup's CPU quota and "
		  "throttling (v1 or v2; default: the first target process's "
		  "cgroup, unless the root)", OPT_STRING, &a->cgroup_path, NULL },
		{ 0, "min-fault-duration", "DUR", "store faults at least this long "
		  "(all are counted in histograms; default 0: store all)",
		  OPT_DURATION, &a->min_fault_dur_ns, NULL },
		{ 'd', "duration", "DUR", "stop after DUR (default: at Ctrl-C, "
		  "SIGTERM, or when the targets exit)", OPT_DURATION,
		  &a->duration_ns, NULL },
		{ 'm', "buffer-size", "SIZE", "ring buffer per CPU, a power of two "
		  "(default 4M)", OPT_SIZE, &a->buffer_bytes, NULL },
		{ 0, "spool-size", "SIZE", "memory for records read but not yet "
		  "decoded (default 64M)", OPT_SIZE, &a->spool_bytes, NULL },
		{ 0, "spill-size", "SIZE", "disk beside the database for records "
		  "the full spool cannot take (default 4G; 0: drop them)",
		  OPT_SIZE, &a->spill_bytes, NULL },
		{ 0, "cpu", "LIST", "run faultline's own threads on these CPUs, "
		  "e.g. 0 or 0-1,4", OPT_CALLBACK, a, set_cpus },
		{ 0, "ready-fd", "FD", "write \"ready\" to FD and close it once "
		  "the events are on", OPT_CALLBACK, &a->ready_fd, set_ready_fd },
		{ 0, "stacks", "MODE", "record stacks: fp (frame pointers), dwarf "
		  "(stack copies unwound with CFI) or none (default)", OPT_CALLBACK,
		  &a->stacks, set_stacks },
		{ 0, "stack-size", "BYTES", "user stack bytes copied per sample with "
		  "--stacks=dwarf (default 8192, at most 65528)", OPT_SIZE,
		  &a->stack_size, NULL },
		{ 0, "stacks-on", "EVENTS", "which events carry a stack: major, "
		  "blocked, faults, switches (default major,blocked)", OPT_CALLBACK,
		  &a->stacks, set_stacks_on },
		{ 0, "no-symbolize", NULL, "leave stacks unsymbolized (run faultline "
		  "symbolize later)", OPT_FLAG, &a->no_symbolize, NULL },
		{ 0, "no-thread-states", NULL, "faults only: no switch records, no "
		  "sched tracepoints, no thread_state rows (less cost per switch)",
		  OPT_FLAG, &a->no_thread_states, NULL },
		{ 0, "syscalls", "LIST", "time the system calls of LIST (names, "
		  "comma-separated; default: the calls a thread waits in)",
		  OPT_CALLBACK, a, set_syscalls, 1 },
		{ 0, "min-syscall-duration", "DUR", "store calls at least this long "
		  "(all are counted; default 1ms)", OPT_DURATION,
		  &a->min_syscall_dur_ns, NULL },
		{ 0, "latency", "START/END[:FIELD]", "time each START tracepoint "
		  "to the next END of its thread, or of the same FIELD value "
		  "(repeatable)", OPT_CALLBACK, &a->latencies, add_latency },
		{ 0, "block-io", NULL, "every block request from issue to completion "
		  "(device, sector, bytes, queue and service time), the targets' "
		  "named; through a tracefs instance (root)", OPT_FLAG, &a->block_io,
		  NULL },
		{ 0, "no-ran-instead", NULL, "no switch records of other threads "
		  "(runnable waits do not say what ran instead; less cost where "
		  "the machine switches a lot)", OPT_FLAG, &a->no_ran_instead, NULL },
		{ 0, "no-wakers", NULL, "no wake-ups on every CPU (sleeps end at "
		  "the switch in, with no waker and no runnable wait; less cost "
		  "where the machine wakes threads a lot)", OPT_FLAG,
		  &a->no_wakers, NULL },
		{ 0, "no-wake-stacks", NULL, "wakers without the kernel stack of "
		  "each wake-up (what issued it stays unnamed; less cost on the "
		  "wakers' CPUs where targets are woken a lot)", OPT_FLAG,
		  &a->no_wake_stacks, NULL },
		/* Intel PT. */
		{ 0, "pt", "MODE", "Intel PT: the code path into each major fault "
		  "(fault, default), into stalls (stall), or all of it (full)",
		  OPT_CALLBACK, a, set_pt, 1 },
		{ 0, "pt-size", "SIZE", "trace bytes per fault or stall snapshot "
		  "(default 32K); AUX area per CPU with --pt=full (default 4M)",
		  OPT_SIZE, &a->pt.size, NULL },
		{ 0, "pt-config", "TERMS", "intel_pt terms on top of faultline's, "
		  "e.g. cyc,psb_period=1 (checked against the CPU's caps)",
		  OPT_STRING, &a->pt.terms, NULL },
		{ 0, "pt-trigger", "DUR", "--pt=stall snapshots when a target thread "
		  "was off the CPU this long (default 10ms), and on SIGUSR2",
		  OPT_DURATION, &a->pt.trigger_ns, NULL },
		{ 0, "label", "KEY=VALUE", "a label of the session, e.g. run=4711 "
		  "(repeatable; stored in session.labels)", OPT_CALLBACK,
		  &a->labels, add_label },
		/* The flight recorder. */
		{ 0, "flight", NULL, "keep records in memory, not stored, and "
		  "store the window around each trigger as a session of its own",
		  OPT_FLAG, &a->flight_on, NULL },
		{ 0, "keep", "BEFORE[,AFTER]", "--flight's window around a "
		  "trigger (default 10s,1s)", OPT_CALLBACK, a, set_keep },
		{ 0, "max-memory", "SIZE", "--flight's memory for records, the "
		  "oldest dropped first (default 128M)", OPT_SIZE,
		  &a->flight.max_memory, NULL },
		{ 0, "trigger", "KIND>DUR", "--flight dumps when a target's fault, "
		  "off-CPU span or system call (KIND fault, offcpu, syscall) passes "
		  "DUR (offcpu:STATE,...>DUR: in those states; KIND>DUR@THREAD: of "
		  "that tid or name), or a metric line's value passes VALUE "
		  "(metric:NAME>VALUE; repeatable)", OPT_CALLBACK, &a->flight,
		  add_trigger },
		{ 0, "max-dumps", "N/PERIOD", "--flight dumps at most N times per "
		  "PERIOD (default 10/hour); the triggers past it are counted",
		  OPT_CALLBACK, &a->flight, set_max_dumps },
		{ 0, "max-disk", "SIZE", "--flight stops dumping once its dumps "
		  "added SIZE to the database (default: no limit)", OPT_SIZE,
		  &a->flight.max_disk, NULL },
		{ 0, "control", "FIFO", "--flight takes 'snapshot' and 'stop' lines "
		  "on FIFO (made if missing); SIGUSR2 snapshots too", OPT_STRING,
		  &a->control_path, NULL },
		{ 0, "metric-fifo", "FIFO", "--flight reads 'NAME VALUE' lines for "
		  "--trigger metric:NAME>VALUE on FIFO (made if missing)",
		  OPT_STRING, &a->metric_fifo_path, NULL },
		{ 0, "metric-udp", "[ADDR:]PORT", "--flight reads 'NAME VALUE' lines "
		  "for --trigger metric:NAME>VALUE from UDP datagrams to ADDR "
		  "(default 127.0.0.1)", OPT_CALLBACK, a, set_metric_udp },
		{ 'q', "quiet", NULL, "no live status line and no summary",
		  OPT_FLAG, &a->quiet, NULL },
		{ 0 },
	};
	const struct cmd_usage u = {
		"record", record_usage,
		"Record page faults of the chosen threads, each timed from entry to "
		"completion,\non wall-clock time, into a SQLite database.",
		record_examples, opts,
	};
	int first = opt_parse(&u, argc, argv);

	if (first == OPT_HELP)
		return -1;
	if (first < 0)
		return EXIT_USAGE;
	return check_args(a, argv + first) ? EXIT_USAGE : 0;
}

/* The command line as typed, for the session row.  Caller frees. */
static char *join_argv(int argc, char **argv)
{
	size_t len = sizeof("faultline");
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, "faultline");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* What is being recorded, said once when recording starts on a terminal
 * (perf says "Press Ctrl-C"): the targets, where rows go, how to stop. */
static void print_start(const struct record_args *a, const struct record_session *rs)
{
	const struct target_set *t = &a->targets;
	char what[256];
	int n = 0;

	what[0] = '\0';
	if (t->command)
		n = snprintf(what, sizeof(what), "'%s' (pid %d)", t->command[0],
			     (int)t->child);
	else if (t->all)
		n = snprintf(what, sizeof(what), "every thread");
	for (size_t i = 0; i < t->npids && n < (int)sizeof(what); i++)
		n += snprintf(what + n, sizeof(what) - (size_t)n, "%spid %d",
			      n ? ", " : "", (int)t->pids[i]);
	for (size_t i = 0; i < t->ntids && n < (int)sizeof(what); i++)
		n += snprintf(what + n, sizeof(what) - (size_t)n, "%stid %d",
			      n ? ", " : "", (int)t->tids[i]);
	for (size_t i = 0; i < t->ncomms && n < (int)sizeof(what); i++)
		n += snprintf(what + n, sizeof(what) - (size_t)n, "%sthreads named '%s'",
			      n ? ", " : "", t->comms[i]);
	fprintf(stderr, "faultline record: recording %s into '%s' (session %lld) "
		"on %d CPUs%s; ", what, a->output, (long long)rs->session_id,
		rs->rec.ev.ncpus, a->tracepoints.n ? ", with -e tracepoints" : "");
	if (a->duration_ns) {
		char dur[32];

		fprintf(stderr, "stops after %s or at Ctrl-C\n",
			fmt_dur(dur, sizeof(dur), a->duration_ns));
	}
	else if (t->command || t->npids || t->ntids)
		fprintf(stderr, "stops when the targets exit or at Ctrl-C\n");
	else
		fprintf(stderr, "press Ctrl-C to stop\n");
}

/* A port or socket that never showed up is likely a typo: say so. */
static void warn_unseen_sockets(const struct record_args *a)
{
	char which[512];
	size_t n = udp_sampler_missing(&a->udp, which, sizeof(which));

	if (n)
		warning("record", "no UDP socket matched %s during the recording, "
			"so nothing was sampled for %s; 'ss -uaen' lists the "
			"sockets with their ports and inodes", which,
			n > 1 ? "them" : "it");
}

static void free_args(struct record_args *a)
{
	tp_spec_list_release(&a->tracepoints);
	lat_spec_list_release(&a->latencies);
	target_set_release(&a->targets);
	labels_release(&a->labels);
	strbuf_release(&a->labels_json);
	udp_sampler_release(&a->udp);
	cgroup_sampler_release(&a->cgroup);
	if (a->control_fd >= 0)
		close(a->control_fd);
	if (a->metric_fifo_fd >= 0)
		close(a->metric_fifo_fd);
	if (a->metric_udp_fd >= 0)
		close(a->metric_udp_fd);
}

/* The process whose cgroup is sampled when --cgroup is not given: the
 * first -p or -t, or faultline itself for a command (the child inherits
 * its cgroup); 0 for --comm and -a, which name none. */
static pid_t first_target(const struct target_set *t)
{
	if (t->npids)
		return t->pids[0];
	if (t->ntids)
		return t->tids[0];
	return t->command ? getpid() : 0;
}

/* --cgroup: a cgroup that cannot be read is a usage error (2).  Without
 * it, the first target's cgroup is sampled when it has one of its own;
 * one that cannot be read is left out without a word (nothing asked). */
static int open_cgroup(struct record_args *a)
{
	struct errmsg e;
	pid_t pid;

	errmsg_init(&e);
	if (a->cgroup_path) {
		if (cgroup_sampler_open(&a->cgroup, a->cgroup_path, &e) == 0)
			return 0;
		error("record", "%s", e.text);
		return EXIT_USAGE;
	}
	pid = first_target(&a->targets);
	if (pid > 0)
		(void)cgroup_sampler_open_pid(&a->cgroup, pid, &e);
	return 0;
}

/* The engine's configuration from the options; strings borrowed. */
static void make_config(struct record_args *a, struct record_config *c,
			const char *cmdline)
{
	memset(c, 0, sizeof(*c));
	c->output = a->output;
	c->targets = &a->targets;
	c->tracepoints = &a->tracepoints;
	c->min_fault_dur_ns = a->min_fault_dur_ns;
	c->duration_ns = a->duration_ns;
	c->ring_bytes = (size_t)a->buffer_bytes;
	c->spool_bytes = (size_t)a->spool_bytes;
	c->spill_bytes = a->spill_bytes == UINT64_MAX ? DEFAULT_SPILL_BYTES :
			 a->spill_bytes;
	c->cpus = a->have_cpus ? &a->cpus : NULL;
	c->ready_fd = a->ready_fd;
	c->pt = a->pt_on ? &a->pt : NULL;
	c->stacks = a->stacks;
	c->symbolize = !a->no_symbolize;
	c->thread_states = !a->no_thread_states;
	c->ran_instead = !a->no_ran_instead;
	c->wakers = !a->no_wakers;
	c->wake_stacks = !a->no_wake_stacks;
	c->syscalls = a->syscalls_on ? &a->syscalls : NULL;
	c->min_syscall_dur_ns = a->min_syscall_dur_ns;
	c->latencies = &a->latencies;
	c->block_io = a->block_io;
	c->udp = udp_sampler_wanted(&a->udp) ? &a->udp : NULL;
	c->sample_interval_ns = a->sample_interval_ns;
	c->cgroup = cgroup_sampler_wanted(&a->cgroup) ? &a->cgroup : NULL;
	c->cgroup_interval_ns = a->cgroup_interval_ns;
	c->command_line = cmdline;
	c->labels_json = strbuf_str(&a->labels_json);
	c->flight = a->flight_on ? &a->flight : NULL;
	c->control_fd = a->control_fd;
	c->metric_fifo_fd = a->metric_fifo_fd;
	c->metric_udp_fd = a->metric_udp_fd;
	if (!a->quiet && isatty(STDERR_FILENO)) {
		c->status = record_status_line;
		c->status_ctx = NULL;
	}
}

/* --control, --metric-fifo (opt): common/command_fifo.h says how. */
static int open_fifo(const char *path, const char *opt, int *fd,
		     struct errmsg *e)
{
	const char *why;
	int got = command_fifo_open(path, &why);

	if (got == -EPERM)
		return errmsg_set(e, EPERM, "%s '%s' is refused: %s; name "
				  "another path", opt, path, why);
	if (got < 0)
		return errmsg_set(e, -got, "cannot open the %s FIFO '%s': %s; "
				  "name a path in a writable directory", opt,
				  path, why);
	*fd = got;
	return 0;
}

static int run(struct record_args *a, struct record_session *rs, int argc,
	       char **argv, struct errmsg *e)
{
	char *cmdline = join_argv(argc, argv);
	struct record_config cfg;
	int err = 0;

	labels_json(&a->labels, &a->labels_json);
	if (!cmdline || strbuf_error(&a->labels_json))
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0 && udp_sampler_wanted(&a->udp))
		err = udp_sampler_open(&a->udp, e);
	if (err == 0 && a->control_path)
		err = open_fifo(a->control_path, "--control", &a->control_fd, e);
	if (err == 0 && a->metric_fifo_path)
		err = open_fifo(a->metric_fifo_path, "--metric-fifo",
				&a->metric_fifo_fd, e);
	if (err == 0 && a->metric_udp_spec)
		err = metric_udp_bind(&a->metric_udp_addr, a->metric_udp_len,
				      a->metric_udp_spec, &a->metric_udp_fd, e);
	make_config(a, &cfg, cmdline);
	if (err == 0)
		err = record_session_open(rs, &cfg, e);
	if (rs->warning.text[0])
		warning("record", "%s", rs->warning.text);
	if (rs->piped && rs->pipe.blk.note.text[0])
		warning("record", "%s", rs->pipe.blk.note.text);
	if (err == 0 && !a->quiet && isatty(STDERR_FILENO))
		print_start(a, rs);
	if (err == 0)
		err = record_session_run(rs, e);
	if (cfg.status)
		fputc('\n', stderr);	/* ends the status line */
	free(cmdline);
	return err;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { .output = "faultline.db",
				 .buffer_bytes = DEFAULT_RING_BYTES,
				 .spool_bytes = DEFAULT_SPOOL_BYTES,
				 .spill_bytes = UINT64_MAX,
				 .ready_fd = -1,
				 .stack_size = STACK_SIZE_DEFAULT,
				 .stacks.on = STACKS_ON_MAJOR | STACKS_ON_BLOCKED,
				 .min_syscall_dur_ns = DEFAULT_MIN_SYSCALL_NS,
				 .flight = { .before_ns = DEFAULT_FLIGHT_BEFORE_NS,
					     .after_ns = DEFAULT_FLIGHT_AFTER_NS,
					     .max_memory = DEFAULT_FLIGHT_MEMORY,
					     .max_dumps = DEFAULT_FLIGHT_DUMPS,
					     .period_ns = DEFAULT_FLIGHT_PERIOD_NS },
				 .control_fd = -1, .metric_fifo_fd = -1,
				 .metric_udp_fd = -1 };
	struct record_session rs;
	struct errmsg e;
	int status, err;

	target_set_init(&a.targets);
	tp_spec_list_init(&a.tracepoints);
	lat_spec_list_init(&a.latencies);
	udp_sampler_init(&a.udp);
	cgroup_sampler_init(&a.cgroup);
	labels_init(&a.labels, 0);
	strbuf_init(&a.labels_json);
	status = parse_args(&a, argc, argv);
	if (status == 0)
		status = open_cgroup(&a);
	if (status) {
		free_args(&a);
		return status < 0 ? 0 : status;
	}
	record_session_init(&rs);
	errmsg_init(&e);
	err = run(&a, &rs, argc, argv, &e);
	if (err < 0)
		error("record", "%s", e.text[0] ? e.text : strerror(-err));
	/* Closing checkpoints the WAL, so the size shown is the file's. */
	record_session_close(&rs);
	if (rs.end_warning.text[0])
		warning("record", "%s", rs.end_warning.text);
	/* A session that failed once begun is summed up too: what it
	 * stored, and what the failure lost. */
	if (!a.quiet && (err == 0 || rs.ended_failed))
		record_summary_print(stderr, &rs, a.output);
	if (!a.quiet && err == 0)
		warn_unseen_sockets(&a);
	record_session_release(&rs);
	free_args(&a);
	return err < 0 ? 1 : 0;
}
