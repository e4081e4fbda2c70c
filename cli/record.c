/*
 * faultline record: page faults of chosen threads, timed and stored.
 * Options, then: open the database, open the events, record through the
 * pipeline, write the session's end and print the summary.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../collector/recorder.h"
#include "../schema/db.h"
#include "commands.h"
#include "opt.h"
#include "record_pipeline.h"
#include "record_stacks.h"
#include "record_summary.h"
#include "record_udp.h"
#include "usage.h"
#include "version.h"

/* 4 MiB per CPU.  On the 2-core VM of bench/collector, the fault loop at
 * full rate (about 11 MB/s of samples) lost records with 16 and 64 KiB
 * rings and none from 256 KiB up; 4 MiB leaves room for machines whose
 * faults are several times faster, or a reader held up for a while. */
#define DEFAULT_RING_BYTES (4ull << 20)

struct record_args {
	const char *output;
	struct target_set targets;
	struct tp_spec *tracepoints;	/* owned array; strings owned too */
	size_t ntracepoints;
	int all;
	uint64_t min_fault_dur_ns;
	uint64_t duration_ns;
	uint64_t buffer_bytes;
	int quiet;
	struct udp_sampler udp;		/* --udp-port, --socket */
	uint64_t sample_interval_ns;	/* 0: --sample-interval not given */
	struct stack_config stacks;
	uint64_t stack_size;
	int no_symbolize;
};

/* 1 ms: under 2% of a core on the 2-core VM of
 * bench/collector/udp_sampling.sh, and a full 4 KiB receive buffer of
 * a feed at 10k datagrams a second is a few ms. */
#define DEFAULT_SAMPLE_INTERVAL_NS 1000000ull

static int add_pids(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	struct target_set *t = value;

	return target_add_ids(&t->pids, &t->npids, arg, opt, e);
}

static int add_tids(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	struct target_set *t = value;

	return target_add_ids(&t->tids, &t->ntids, arg, opt, e);
}

static int add_comm(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	struct target_set *t = value;
	char **v;

	if (!*arg || strlen(arg) > 15)
		return errmsg_set(e, EINVAL, "invalid %s '%s': a thread name is 1 "
				  "to 15 characters (the kernel keeps no more)",
				  opt, arg);
	v = realloc(t->comms, (t->ncomms + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->comms = v;
	t->comms[t->ncomms++] = (char *)arg;
	return 0;
}

static int add_udp_ports(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	return udp_sampler_add_ports(value, arg, opt, e);
}

static int add_socket(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	return udp_sampler_add_inode(value, arg, opt, e);
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

/* "SUBSYS:NAME" or "SUBSYS:NAME/FILTER/" into a new tp_spec. */
static int add_tracepoint(void *value, const char *arg, const char *opt,
			  struct errmsg *e)
{
	struct record_args *a = value;
	const char *colon = strchr(arg, ':'), *slash;
	size_t sys_len, name_len, arg_len = strlen(arg);
	struct tp_spec *v, sp = { 0 };

	slash = colon ? strchr(colon, '/') : NULL;
	sys_len = colon ? (size_t)(colon - arg) : 0;
	name_len = colon ? (slash ? (size_t)(slash - colon - 1) : strlen(colon + 1)) : 0;
	if (!sys_len || !name_len ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != sys_len ||
	    strspn(colon + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != name_len ||
	    (slash && (arg_len - (size_t)(slash - arg) < 3 || arg[arg_len - 1] != '/')))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected SUBSYS:NAME "
				  "or SUBSYS:NAME/FILTER/, e.g. skb:kfree_skb or "
				  "'sched:sched_switch/prev_pid == 42/'", opt, arg);
	sp.system = strndup(arg, sys_len);
	sp.name = strndup(colon + 1, name_len);
	if (slash)
		sp.filter = strndup(slash + 1, arg_len - (size_t)(slash - arg) - 2);
	v = realloc(a->tracepoints, (a->ntracepoints + 1) * sizeof(*v));
	if (!v || !sp.system || !sp.name || (slash && !sp.filter)) {
		free(sp.system);
		free(sp.name);
		free(sp.filter);
		if (v)
			a->tracepoints = v;
		return -ENOMEM;
	}
	a->tracepoints = v;
	a->tracepoints[a->ntracepoints++] = sp;
	return 0;
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

		for (i = 0; i < sizeof(stacks_on_names) / sizeof(stacks_on_names[0]); i++)
			if (strlen(stacks_on_names[i].name) == len &&
			    !strncmp(p, stacks_on_names[i].name, len))
				break;
		if (i == sizeof(stacks_on_names) / sizeof(stacks_on_names[0]))
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

static void free_tracepoints(struct record_args *a)
{
	for (size_t i = 0; i < a->ntracepoints; i++) {
		free(a->tracepoints[i].system);
		free(a->tracepoints[i].name);
		free(a->tracepoints[i].filter);
	}
	free(a->tracepoints);
}

static const char record_usage[] =
	"faultline record [-o DB] [-p PID[,PID]] [-t TID[,TID]] [--comm NAME]\n"
	"                        [-a] [-e SUBSYS:NAME[/FILTER/]] [--min-fault-duration DUR]\n"
	"                        [--udp-port PORT[,PORT]] [--socket INODE]\n"
	"                        [--sample-interval DUR]\n"
	"                        [--duration DUR] [--buffer-size SIZE]\n"
	"                        [--stacks fp|dwarf|none] [--stack-size BYTES]\n"
	"                        [--stacks-on EVENTS] [--no-symbolize] [-q]\n"
	"                        [-- COMMAND [ARGS...]]";

static const char record_examples[] =
	"  faultline record -o run.db -- ./server --port 9000\n"
	"  faultline record -o run.db -p 4242 --duration 60s\n"
	"  faultline record -o run.db --comm lbm-rx --min-fault-duration 1ms\n"
	"  faultline record -o run.db -e skb:kfree_skb -e sock:sock_rcvqueue_full -- ./rx\n"
	"  faultline record -o run.db --udp-port 9000 -e skb:kfree_skb -p 4242\n"
	"  faultline record -o run.db --stacks=dwarf -p 4242 --duration 60s\n";

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

	t->all = a->all;
	t->command = rest[0] ? rest : NULL;
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
	if (a->sample_interval_ns && !udp_sampler_wanted(&a->udp))
		return usage_error("%s samples sockets: give --udp-port or "
				   "--socket too", "--sample-interval");
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
	return 0;
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
		  "(repeatable), with a kernel-side filter", OPT_CALLBACK, a,
		  add_tracepoint },
		{ 0, "udp-port", "PORT[,PORT]", "sample the receive queue depth and "
		  "drops of the UDP sockets on PORT (repeatable)", OPT_CALLBACK,
		  &a->udp, add_udp_ports },
		{ 0, "socket", "INODE", "sample the UDP socket with this inode "
		  "(repeatable)", OPT_CALLBACK, &a->udp, add_socket },
		{ 0, "sample-interval", "DUR", "how often --udp-port and --socket "
		  "sample (default 1ms)", OPT_CALLBACK, &a->sample_interval_ns,
		  set_sample_interval },
		{ 0, "min-fault-duration", "DUR", "store faults at least this long "
		  "(all are counted in histograms; default 0: store all)",
		  OPT_DURATION, &a->min_fault_dur_ns, NULL },
		{ 'd', "duration", "DUR", "stop after DUR (default: at Ctrl-C, "
		  "SIGTERM, or when the targets exit)", OPT_DURATION,
		  &a->duration_ns, NULL },
		{ 'm', "buffer-size", "SIZE", "ring buffer per CPU, a power of two "
		  "(default 4M)", OPT_SIZE, &a->buffer_bytes, NULL },
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

/* Writes a JSON string literal. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_ids(FILE *f, const char *key, const pid_t *v, size_t n)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", (int)v[i]);
	fputc(']', f);
}

static void json_u64s(FILE *f, const char *key, const uint64_t *v, size_t n)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	fputc(']', f);
}

/* The effective options as JSON, for the session row.  Caller frees. */
static char *options_json(const struct record_args *a)
{
	const struct target_set *t = &a->targets;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "{\"min_fault_duration_ns\":%llu,\"duration_ns\":%llu,"
		"\"buffer_bytes\":%llu,\"all\":%s",
		(unsigned long long)a->min_fault_dur_ns,
		(unsigned long long)a->duration_ns,
		(unsigned long long)a->buffer_bytes, a->all ? "true" : "false");
	fprintf(f, ",\"stacks\":\"%s\",\"stack_size\":%u,\"stacks_on\":%u,"
		"\"symbolize\":%s", a->stacks.mode == STACKS_FP ? "fp" :
		a->stacks.mode == STACKS_DWARF ? "dwarf" : "none",
		a->stacks.stack_size, a->stacks.on,
		a->no_symbolize ? "false" : "true");
	json_ids(f, "pids", t->pids, t->npids);
	json_ids(f, "tids", t->tids, t->ntids);
	fputs(",\"comms\":[", f);
	for (size_t i = 0; i < t->ncomms; i++) {
		fputs(i ? "," : "", f);
		json_str(f, t->comms[i]);
	}
	fputs("],\"events\":[", f);
	for (size_t i = 0; i < a->ntracepoints; i++) {
		const struct tp_spec *sp = &a->tracepoints[i];

		fprintf(f, "%s{\"system\":", i ? "," : "");
		json_str(f, sp->system);
		fputs(",\"name\":", f);
		json_str(f, sp->name);
		fputs(",\"filter\":", f);
		if (sp->filter)
			json_str(f, sp->filter);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputc(']', f);
	json_u64s(f, "udp_ports", a->udp.ports, a->udp.nports);
	json_u64s(f, "sockets", a->udp.inodes, a->udp.ninodes);
	fprintf(f, ",\"sample_interval_ns\":%llu", udp_sampler_wanted(&a->udp) ?
		(unsigned long long)a->sample_interval_ns : 0ull);
	fputs(",\"command\":[", f);
	for (size_t i = 0; t->command && t->command[i]; i++) {
		fputs(i ? "," : "", f);
		json_str(f, t->command[i]);
	}
	fputs("]}", f);
	fclose(f);
	return buf;
}

struct record_run {
	struct record_args *args;
	sqlite3 *db;
	struct recorder rec;
	struct loader loader;
	struct record_pipeline pipe;
	struct record_udp udp;		/* with --udp-port or --socket */
	struct record_stacks stacks;	/* with --stacks */
	struct errmsg err;
	int loader_begun;
};

static int begin_session(struct record_run *run, int argc, char **argv,
			 struct errmsg *e)
{
	struct record_args *a = run->args;
	struct utsname un;
	char *cmdline = join_argv(argc, argv);
	char *options = options_json(a);
	struct session_info si;
	int err;

	if (!cmdline || !options) {
		free(cmdline);
		free(options);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	uname(&un);
	si.start = clock_anchor_now();
	si.start_ts = si.start.realtime_ns;
	si.host = un.nodename;
	si.kernel = un.release;
	si.command_line = cmdline;
	si.options = options;
	si.version = FAULTLINE_VERSION;
	si.min_fault_dur_ns = a->min_fault_dur_ns;
	si.buffer_bytes = a->buffer_bytes;
	si.cpus = run->rec.ncpus;
	err = loader_begin(&run->loader, run->db, a->output, &si, e);
	run->loader_begun = err == 0;
	if (err == 0) {
		record_pipeline_init(&run->pipe, &run->rec, &a->targets,
				     &run->loader, a->min_fault_dur_ns,
				     !a->quiet && isatty(STDERR_FILENO));
		record_udp_init(&run->udp, &a->udp, &run->loader,
				a->sample_interval_ns);
		if (udp_sampler_wanted(&a->udp))
			run->pipe.udp = &run->udp;
		err = record_pipeline_synthesize(&run->pipe, si.start_ts);
		if (err == 0)
			err = loader_commit(&run->loader, &run->pipe.err);
		if (err < 0)
			*e = run->pipe.err;
	}
	free(cmdline);
	free(options);
	return err;
}

/* Records and finishes; the first failure's message lands in e. */
static int record_and_finish(struct record_run *run, struct errmsg *e)
{
	struct recorder_sink sink = record_pipeline_sink(&run->pipe);
	struct session_counts counts;
	int err = run->pipe.udp ? record_udp_start(run->pipe.udp, e) : 0;

	if (err == 0)
		err = recorder_run(&run->rec, &sink, e);
	if (run->pipe.udp)
		record_udp_stop(run->pipe.udp);

	if (err < 0 && !e->text[0])
		*e = run->pipe.err;
	if (err == 0) {
		err = record_pipeline_finish(&run->pipe);
		if (err < 0)
			*e = run->pipe.err;
	}
	if (err == 0)
		record_stacks_symbolize(&run->stacks, run->db, run->args->output,
					run->loader.session_id, &run->pipe,
					!run->args->no_symbolize);
	record_pipeline_counts(&run->pipe, &run->rec, &counts);
	if (err < 0) {
		struct errmsg ignored;

		errmsg_init(&ignored);
		loader_end(&run->loader, &counts, e->text, &ignored);
		return err;
	}
	return loader_end(&run->loader, &counts, NULL, e);
}

static int run_record(struct record_run *run, int argc, char **argv)
{
	struct record_args *a = run->args;
	struct recorder_config cfg = {
		&a->targets, (size_t)a->buffer_bytes, a->duration_ns,
		a->tracepoints, a->ntracepoints,
		a->stacks,
	};
	struct errmsg *e = &run->err;
	int err;

	err = target_check(&a->targets, e);
	if (err == 0 && udp_sampler_wanted(&a->udp))
		err = udp_sampler_open(&a->udp, e);
	if (err == 0)
		err = db_open_write(a->output, &run->db, e);
	if (err == 0)
		err = recorder_open(&run->rec, &cfg, e);
	if (err == 0 && run->rec.warning.text[0] && !a->quiet)
		warning("record", "%s", run->rec.warning.text);
	if (err == 0)
		err = begin_session(run, argc, argv, e);
	if (err == 0)
		err = record_and_finish(run, e);
	return err;
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
	free_tracepoints(a);
	free(a->targets.comms);
	target_set_release(&a->targets);
	udp_sampler_release(&a->udp);
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { .output = "faultline.db",
				 .buffer_bytes = DEFAULT_RING_BYTES,
				 .stack_size = STACK_SIZE_DEFAULT,
				 .stacks.on = STACKS_ON_MAJOR | STACKS_ON_BLOCKED };
	struct record_run run;
	int status, err;

	target_set_init(&a.targets);
	udp_sampler_init(&a.udp);
	status = parse_args(&a, argc, argv);
	if (status) {
		free_args(&a);
		return status < 0 ? 0 : status;
	}
	memset(&run, 0, sizeof(run));
	run.args = &a;
	recorder_init(&run.rec);
	errmsg_init(&run.err);
	err = run_record(&run, argc, argv);
	if (err < 0)
		error("record", "%s", run.err.text[0] ? run.err.text :
		      strerror(-err));
	if (run.loader_begun)
		loader_release(&run.loader);
	/* Closing checkpoints the WAL, so the size shown is the file's. */
	db_close(run.db);
	if (run.loader_begun) {
		if (!a.quiet && err == 0)
			record_summary_print(stderr, &run.pipe, &run.rec,
					     run.loader.session_id, a.output);
		if (!a.quiet && err == 0)
			warn_unseen_sockets(&a);
		if (!a.quiet && err == 0)
			record_stacks_print(stderr, &run.stacks, &run.pipe, a.output);
		record_pipeline_release(&run.pipe);
		record_udp_release(&run.udp);
	}
	recorder_release(&run.rec);
	free_args(&a);
	return err < 0 ? 1 : 0;
}
