#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_file.h"

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

int out_file_open(struct out_file *o, const char *path, struct errmsg *e)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%.*s.%s.XXXXXX", (int)dirlen, path,
				 path + dirlen) < 0) {
		o->tmp = NULL;
		out_file_abort(o);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	if (!path[dirlen]) {
		errmsg_set(e, EISDIR, "cannot write '%s': it names a directory; "
			   "give a file name", path);
		out_file_abort(o);
		return -EISDIR;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		fail(o, err, e);
		free(o->tmp);
		o->tmp = NULL;
		out_file_abort(o);
		return -err;
	}
	return 0;
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
	mode_t mask = umask(0);
	int err = 0;

	umask(mask);
	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? errno : EIO;
	if (!err && fchmod(fileno(o->f), 0666 & ~mask) != 0)
		err = errno;
	if (fclose(o->f) != 0 && !err)
		err = errno;
	o->f = NULL;
	if (!err && rename(o->tmp, o->path) != 0)
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
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}
