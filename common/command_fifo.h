/*
 * command_fifo: the named pipe a running recorder reads lines from
 * (record --control, --metric-fifo), opened the one way.  Its lines stop
 * the recorder, fire dumps and become metric rows, and faultline runs as
 * root at a path, often under /tmp, that other users may write to.  So:
 *
 *   - a missing FIFO is made, mode 0600;
 *   - the path must be the FIFO itself: a symbolic link there is refused
 *     (O_NOFOLLOW), not followed wherever its maker pointed it;
 *   - what is there is looked at before it is opened for reading and
 *     writing (through an O_PATH descriptor, which opens nothing): a
 *     device is never opened, whatever was swapped in after a check;
 *   - the FIFO must belong to root or to the user recording: its
 *     permissions, which only its owner sets, then say who may write.
 *
 * It is opened read-write and non-blocking, so that it never reads EOF
 * between two writers and a read never waits.
 */
#ifndef FL_COMMAND_FIFO_H
#define FL_COMMAND_FIFO_H

/*
 * Opens (making it if missing) the FIFO at path: a descriptor (the
 * caller closes it), or -errno with *why a static text of what is wrong:
 * -EPERM for a link, something other than a FIFO, or a FIFO of another
 * owner; another -errno for what mkfifo or open said (*why strerror's).
 */
int command_fifo_open(const char *path, const char **why);

#endif
