/*
 * file_backed: SQL shared by the fault patterns: the mapping that held a
 * fault's address (the latest mapped at or before it), and whether that
 * mapping is a file's.  A fault f (alias f) of the fault table.
 */
#ifndef FL_DIAG_FILE_BACKED_H
#define FL_DIAG_FILE_BACKED_H

/* The rowid of the mapping that held f.addr when f happened, or NULL. */
#define FAULT_MAPPING_WHERE \
	"(SELECT m2.rowid FROM mapping m2\n" \
	"  WHERE m2.session_id = f.session_id AND m2.pid = f.pid\n" \
	"    AND m2.start_addr <= f.addr AND m2.end_addr > f.addr\n"
/* (SQLite's ORDER BY in a subquery cannot name the outer row: the
 * latest mapping made by f's time, else the first made after it.) */
#define FAULT_MAPPING \
	"coalesce(" FAULT_MAPPING_WHERE \
	"    AND m2.ts <= f.ts ORDER BY m2.ts DESC LIMIT 1),\n" \
	FAULT_MAPPING_WHERE "  ORDER BY m2.ts LIMIT 1))"

/* Mapping m is a file's page cache: a path, not anonymous memory, SysV
 * or memfd shared memory (those are swapped, not re-read). */
#define FILE_BACKED(m) \
	"(" m ".path LIKE '/%' AND " m ".path NOT LIKE '//anon%' AND " \
	m ".path NOT LIKE '/dev/zero%' AND " m ".path NOT LIKE '/SYSV%' AND " \
	m ".path NOT LIKE '/memfd:%')"

#endif
