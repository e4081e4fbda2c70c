#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "demangle.h"

char *demangle(const char *sym)
{
	/* Only names with a mangling's prefix: DMGL_AUTO also tries GNAT
	 * and D rules, which would rewrite some plain C names. */
	if (!sym || sym[0] != '_' || (sym[1] != 'Z' && sym[1] != 'R'))
		return NULL;
	return cplus_demangle(sym, DMGL_AUTO);
}

const char *demangle_shown(const char *sym, char **owned)
{
	*owned = demangle(sym);
	return *owned ? *owned : sym;
}
