/* The commands: one file each, cmd_<name>(argc, argv), argv[0] the name.
 * Each returns the process exit status (0, 1, or EXIT_USAGE). */
#ifndef FL_COMMANDS_H
#define FL_COMMANDS_H

int cmd_import(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_stacks(int argc, char **argv);
int cmd_pt(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_upgrade(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_label(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_runs(int argc, char **argv);

#endif
