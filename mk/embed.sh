#!/bin/sh
# Turns a text file into a C string: mk/embed.sh NAME FILE > out.c
set -eu
printf '/* Generated from %s by mk/embed.sh: edit that file. */\n' "$2"
printf 'const char %s[] =\n' "$1"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$2"
printf ';\n'
