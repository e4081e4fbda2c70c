#!/bin/sh
# Embeds the canned queries as C strings with a table of their names:
#   mk/embed_queries.sh queries/*.sql > out.c
# Each file's name without .sql is the query's name; the table is in the
# order given (the shell sorts the glob), which query --list keeps.
# The output is compiled with -I at the top of the tree.
set -eu
printf '/* Generated from queries/ by mk/embed_queries.sh: edit those files. */\n'
printf '#include "schema/query_def.h"\n\n'
i=0
for f in "$@"; do
	printf 'static const char q%d[] =\n' "$i"
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$f"
	printf ';\n'
	i=$((i + 1))
done
printf '\nconst struct embedded_query embedded_queries[] = {\n'
i=0
for f in "$@"; do
	printf '\t{ "%s", q%d },\n' "$(basename "$f" .sql)" "$i"
	i=$((i + 1))
done
printf '\t{ NULL, NULL },\n};\n'
printf 'const size_t n_embedded_queries = %d;\n' "$i"
