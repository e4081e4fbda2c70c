#!/bin/sh
# Turns text files into one C string, in order: mk/embed.sh NAME FILE... > out.c
set -eu
name=$1
shift
printf '/* Generated from %s by mk/embed.sh: edit the source, not this. */\n' "$*"
printf 'const char %s[] =\n' "$name"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$@"
printf ';\n'
