/*
 * by_directory: the stalls of one thread and pattern whose culprits are
 * more than DIR_GROUP_MIN files under one directory (at any depth below
 * it, two levels down at least) take the directory as their culprit
 * ("/src/.git/objects/ (218 files)"), so they make one finding; each
 * stall's evidence still names its file.  A file goes under the deepest
 * such directory, or under one higher up that has more than DIR_GROUP_MIN
 * entries (files or directories) right below it leading to such files:
 * .git/objects/ for objects in many of its 256 directories, however many
 * each directory holds.
 */
#ifndef FL_DIAG_BY_DIRECTORY_H
#define FL_DIAG_BY_DIRECTORY_H

#include "diagnose.h"

/* Files of one directory past this many are one finding. */
#define DIR_GROUP_MIN 8

/* Before the stalls are grouped into findings.  0 or -ENOMEM. */
int diag_by_directory(struct diag_result *res);

#endif
