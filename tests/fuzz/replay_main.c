/*
 * replay_main: runs a fuzz target's LLVMFuzzerTestOneInput on saved
 * inputs without libFuzzer, so that make check replays the seed corpus
 * and every crash found so far, with gcc and (SAN=1) its sanitizers.
 *
 *   replay_<target> [DIR|FILE]...
 *
 * Each DIR's plain files are run in name order; names starting with '.'
 * (.keep) are skipped.  A path that does not exist is skipped too, as
 * crashes/<target> holds nothing until a fuzz run finds something.  With
 * no argument: tests/fuzz/corpus/<target> and tests/fuzz/crashes/<target>,
 * <target> taken from the program's name.
 *
 * Prints "replay: N passed, 0 failed" and exits 0; an input that breaks
 * the target aborts the program, which fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PREFIX "replay_"

/* Reads path into an exact-size buffer, so ASan flags any read past the
 * input as libFuzzer's own copy would.  NULL (and a message) on error. */
static uint8_t *read_input(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf = NULL;

	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		goto out;
	}
	*size = (size_t)st.st_size;
	buf = malloc(*size ? *size : 1);
	if (!buf || fread(buf, 1, *size, f) != *size) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(buf);
		buf = NULL;
	}
out:
	if (f)
		fclose(f);
	return buf;
}

/* Runs one input; returns 0, or -1 when it could not be read. */
static int run_file(const char *path)
{
	size_t size = 0;
	uint8_t *buf = read_input(path, &size);

	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput(buf, size);
	free(buf);
	return 0;
}

static int plain_file(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Runs every plain file in dir; adds their number to *ran. */
static int run_dir(const char *dir, unsigned long *ran)
{
	struct dirent **names;
	int n = scandir(dir, &names, plain_file, alphasort);
	int err = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!err && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			err = run_file(path);
			*ran += !err;
		}
		free(names[i]);
	}
	free(names);
	return err;
}

static int run_path(const char *path, unsigned long *ran)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;	/* nothing saved there yet */
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return run_dir(path, ran);
	if (run_file(path) < 0)
		return -1;
	(*ran)++;
	return 0;
}

/* The target's own directories, from a program named replay_<target>. */
static int run_defaults(const char *argv0, unsigned long *ran)
{
	const char *base = strrchr(argv0, '/');
	const char *target;
	char path[4096];

	base = base ? base + 1 : argv0;
	if (strncmp(base, PREFIX, strlen(PREFIX)) != 0) {
		fprintf(stderr, "usage: %s DIR|FILE...\n", argv0);
		return -1;
	}
	target = base + strlen(PREFIX);
	snprintf(path, sizeof(path), "tests/fuzz/corpus/%s", target);
	if (run_path(path, ran) < 0)
		return -1;
	snprintf(path, sizeof(path), "tests/fuzz/crashes/%s", target);
	return run_path(path, ran);
}

int main(int argc, char **argv)
{
	unsigned long ran = 0;
	int err = 0;

	if (argc < 2)
		err = run_defaults(argv[0], &ran);
	for (int i = 1; i < argc && !err; i++)
		err = run_path(argv[i], &ran);
	if (err)
		return 1;
	printf("replay: %lu passed, 0 failed\n", ran);
	return 0;
}
