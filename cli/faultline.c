/*
 * faultline: main, the global options, the command table and dispatch.
 * Each command lives in its own file as cmd_<name>(argc, argv), where
 * argv[0] is the command's name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/edit_distance.h"
#include "../schema/db.h"
#include "commands.h"
#include "usage.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "record page faults of chosen threads into SQLite" },
	{ "query", cmd_query, "run a canned query, or any .sql file, on a database" },
	{ "report", cmd_report, "summarise a session: latency, longest stalls, losses" },
	{ "diagnose", cmd_diagnose, "name the cause of each stall: pattern, evidence, remedies" },
	{ "compare", cmd_compare, "two runs side by side, and what differs in their environment" },
	{ "runs", cmd_runs, "the runs of a database in time order, their change points, the chart" },
	{ "stacks", cmd_stacks, "print the stacks of long faults and blocks" },
	{ "pt", cmd_pt, "print the code path into a stall (record --pt)" },
	{ "symbolize", cmd_symbolize, "name the recorded stack frames" },
	{ "plot", cmd_plot, "draw a session's timeline: an HTML page or an SVG picture" },
	{ "export", cmd_export, "export a session as a Perfetto/Chrome trace or as CSV" },
	{ "merge", cmd_merge, "fold the sessions of several databases into one" },
	{ "label", cmd_label, "add, replace or remove a session's labels" },
	{ "import", cmd_import, "import an application's metrics (CSV, TSV, JSON lines)" },
	{ "upgrade", cmd_upgrade, "upgrade a database of an older faultline in place" },
	{ "version", cmd_version, "print faultline's version" },
};

static void print_usage(FILE *out)
{
	fprintf(out, "usage: faultline [--version] [-h] COMMAND [ARGS...]\n\n"
		"faultline explains stalls: it records what the kernel did to "
		"chosen threads,\nwith wall-clock timestamps, into a SQLite "
		"database.\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nSee 'faultline COMMAND -h' and man faultline-COMMAND.\n");
}

/* A full disk or a closed pipe on stdout is a failure, not a short file. */
static int close_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "faultline: cannot write standard output: %s\n",
			strerror(errno));
		return 1;
	}
	if (fclose(stdout) != 0 && status == 0) {
		fprintf(stderr, "faultline: cannot close standard output: %s\n",
			strerror(errno));
		return 1;
	}
	return status;
}

/* perf's commands that a perf user may reach for, and faultline's own
 * for what they do. */
static const struct { const char *perf, *says; } perf_commands[] = {
	{ "script", "'faultline query DB NAME' or 'faultline export DB --format csv'" },
	{ "top", "'faultline record' then 'faultline report'" },
	{ "stat", "'faultline record' then 'faultline query DB fault-latency'" },
	{ "trace", "'faultline record -e SYSTEM:EVENT'" },
	{ "sched", "'faultline query DB off-cpu' or 'faultline diagnose DB'" },
};

/* A name that is no command: the closest command, or what faultline
 * does instead of perf's command of that name. */
static int unknown_command(const char *name)
{
	const char *names[ARRAY_SIZE(commands)], *near;

	for (size_t i = 0; i < ARRAY_SIZE(perf_commands); i++)
		if (!strcmp(name, perf_commands[i].perf))
			return error(NULL, "'%s' is not a faultline command; for what "
				     "perf %s does, see %s", name, name,
				     perf_commands[i].says), EXIT_USAGE;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		names[i] = commands[i].name;
	near = edit_closest(name, names, ARRAY_SIZE(names));
	if (near)
		error(NULL, "'%s' is not a faultline command; did you mean '%s'? "
		      "see 'faultline -h'", name, near);
	else
		error(NULL, "'%s' is not a faultline command; see 'faultline -h'",
		      name);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	if (!name) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		print_usage(stdout);
		return close_stdout(0);
	}
	if (!strcmp(name, "--version"))
		name = "version";
	db_library_setup();
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return close_stdout(commands[i].fn(argc - 1, argv + 1));
	return unknown_command(name);
}
