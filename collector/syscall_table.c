#include <string.h>

#include "syscall_table.h"

long syscall_nr(const char *name)
{
	for (size_t i = 0; i < syscall_table_n; i++)
		if (!strcmp(syscall_table[i].name, name))
			return syscall_table[i].nr;
	return -1;
}

const char *syscall_name(long nr)
{
	for (size_t i = 0; i < syscall_table_n; i++)
		if (syscall_table[i].nr == nr)
			return syscall_table[i].name;
	return NULL;
}
