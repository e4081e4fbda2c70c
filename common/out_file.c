#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_file.h"

/* How many temporary names to try before giving up: each is 48 random
 * bits, so a second try is already a sign of something else wrong. */
#define TMP_TRIES 16

/* What a failed create or write needs the user to do. */
static const char *fix_for(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
		return "; create the directory first";
	case EACCES:
	case EPERM:
		return "; choose a directory you may write to";
	case EROFS:
		return "; the file system is read-only: write elsewhere";
	case ENOSPC:
	case EDQUOT:
		return "; free some space or write elsewhere";
	default:
		return "";
	}
}

static int fail(struct out_file *o, int err, struct errmsg *e)
{
	return errmsg_set(e, err, "cannot write '%s': %s%s", o->path,
			  strerror(err), fix_for(err));
}

/* Creates o->tmp, a new name beside o->name, 0600 (less the umask),
 * never through a link (O_EXCL): the descriptor, or -1 with errno. */
static int create_tmp(struct out_file *o)
{
	const char *slash = strrchr(o->name, '/');
	size_t dirlen = slash ? (size_t)(slash - o->name) + 1 : 0;

	for (int i = 0; i < TMP_TRIES; i++) {
		unsigned char r[6];
		int fd;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		free(o->tmp);
		if (asprintf(&o->tmp, "%.*s.%s.%02x%02x%02x%02x%02x%02x", (int)dirlen,
			     o->name, o->name + dirlen, r[0], r[1], r[2], r[3], r[4],
			     r[5]) < 0) {
			o->tmp = NULL;
			errno = ENOMEM;
			return -1;
		}
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int out_file_open_at(struct out_file *o, int dirfd, const char *name,
		     const char *path, struct errmsg *e)
{
	const char *base = strrchr(name, '/');
	struct stat sb;
	int fd;

	memset(o, 0, sizeof(*o));
	o->dirfd = dirfd;
	o->path = strdup(path);
	o->name = strdup(name);
	if (!o->path || !o->name) {
		out_file_abort(o);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	if (!(base ? base + 1 : name)[0]) {
		errmsg_set(e, EISDIR, "cannot write '%s': it names a directory; "
			   "give a file name", path);
		out_file_abort(o);
		return -EISDIR;
	}
	/* The rename would replace a link, not follow it; but a link where
	 * the output goes is not what the user meant to write over (another
	 * user may have made it, in /tmp): said, not replaced. */
	if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode)) {
		errmsg_set(e, ELOOP, "cannot write '%s': it is a symbolic link, and "
			   "faultline writes no file through one (another user may "
			   "have made it); remove it, or give the path it points "
			   "to", path);
		out_file_abort(o);
		return -ELOOP;
	}
	fd = create_tmp(o);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = errno;

		if (fd >= 0) {
			close(fd);
			unlinkat(dirfd, o->tmp, 0);
		}
		fail(o, err, e);
		free(o->tmp);
		o->tmp = NULL;
		out_file_abort(o);
		return -err;
	}
	return 0;
}

int out_file_open(struct out_file *o, const char *path, struct errmsg *e)
{
	return out_file_open_at(o, AT_FDCWD, path, path, e);
}

int out_file_put(struct out_file *o, struct strbuf *sb, int all,
		 struct errmsg *e)
{
	if (strbuf_error(sb) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	if (!all && sb->len < OUT_FILE_CHUNK)
		return 0;
	if (sb->len && fwrite(sb->buf, 1, sb->len, o->f) != sb->len)
		return fail(o, errno ? errno : EIO, e);
	strbuf_reset(sb);
	return 0;
}

int out_file_commit(struct out_file *o, struct errmsg *e)
{
	int err = 0;

	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? errno : EIO;
	if (fclose(o->f) != 0 && !err)
		err = errno;
	o->f = NULL;
	if (!err && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0)
		err = errno;
	if (err) {
		fail(o, err, e);
		out_file_abort(o);
		return -err;
	}
	free(o->tmp);
	o->tmp = NULL;
	out_file_abort(o);
	return 0;
}

void out_file_abort(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	free(o->tmp);
	free(o->name);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->dirfd = AT_FDCWD;
}
