#!/bin/bash
# Holds the man pages in man/ to what the binary says about itself.
#
#   tests/man_vs_help.sh path/to/faultline
#
# For each command with a page, man/faultline-COMMAND.1:
#   - the long options of 'faultline COMMAND -h' and those of the .TP
#     entries of the page's OPTIONS section are the same set;
#   - the page's SYNOPSIS has the content of -h's usage text;
#   - the SYNOPSIS names every option of -h's table, by its long name or by
#     the short name -h pairs with it (-h/--help is left out: the usage
#     text does not name it).
# For man/faultline.1, against 'faultline -h': the SYNOPSIS has the usage
# text's content and names each of its long options, and COMMANDS has an
# entry for every command listed.
#
# For every page, man/*.1 and man/*.5: 'groff -ww -z -man' formats it
# without a single warning (a typo such as ".RE.PP" is an undefined macro
# that silently breaks the indentation of everything after it).
#
# Prints a line for each failed check, then one closing line:
#   man_vs_help: N passed, M failed
# and exits 1 if any check failed.  MAN_DIR overrides the pages' folder.
set -u

passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

finish() {
	echo "man_vs_help: $passed passed, $failed failed"
	if [ "$failed" -eq 0 ]; then
		exit 0
	fi
	exit 1
}

bin=${1:-}
man_dir=${MAN_DIR:-$(dirname "$0")/../man}

if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	fail "usage: $0 path/to/faultline (got '${bin}')"
	finish
fi

# The roff source of one section (.SH NAME up to the next .SH), as plain
# text: font and character escapes resolved, macro names dropped, the
# arguments of the alternating-font macros (.BR, .IR, ...) joined.  With
# tags=1, only the tag line of each .TP entry, one a line; else one line.
section_text() {	# $1 = page, $2 = section name, $3 = tags (0 or 1)
	awk -v want="$2" -v tags="$3" '
	function args(s, joined,    out, n, i, c, q, word, words) {
		n = 0; word = ""; q = 0; out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\"") { q = !q; continue }
			if (c == " " && !q) {
				if (word != "") words[++n] = word
				word = ""
				continue
			}
			word = word c
		}
		if (word != "") words[++n] = word
		for (i = 1; i <= n; i++)
			out = out (i > 1 && !joined ? " " : "") words[i]
		return out
	}
	function plain(line,    m, rest) {
		if (line ~ /^[.\047]\\"/)
			return ""
		if (line ~ /^\./) {
			m = line; sub(/[ \t].*/, "", m); m = substr(m, 2)
			rest = line; sub(/^\.[^ \t]*[ \t]*/, "", rest)
			if (m == "B" || m == "I" || m == "SM" || m == "SB")
				line = args(rest, 0)
			else if (m ~ /^(BR|RB|IR|RI|BI|IB)$/)
				line = args(rest, 1)
			else
				return ""
		}
		gsub(/\\f(\[[^]]*\]|\([A-Z][A-Z]|[A-Z1-4P])/, "", line)
		gsub(/\\\(aq/, "\047", line)
		gsub(/\\\((lq|rq|dq)/, "\"", line)
		gsub(/\\\(em/, "--", line)
		gsub(/\\\(en/, "-", line)
		gsub(/\\&/, "", line)
		gsub(/\\[~ ]/, " ", line)
		gsub(/\\-/, "-", line)
		gsub(/\\e/, "\\", line)
		return line
	}
	/^\.SH/ {
		name = $0; sub(/^\.SH[ \t]*/, "", name); gsub(/"/, "", name)
		in_sec = (name == want)
		next
	}
	!in_sec { next }
	tags == 1 {
		if (/^\.TP/) { tag_next = 1; next }
		if (tag_next) { print plain($0); tag_next = 0 }
		next
	}
	{ t = plain($0); if (t != "") out = out " " t }
	END { if (tags != 1) print out }
	' "$1"
}

squeeze() {	# collapses whitespace, trims
	tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//'
}

# The usage text of a -h output: after "usage: ", up to the first blank line.
usage_text() {
	sed -n '/^usage: /,/^$/p' | sed 's/^usage: //' | squeeze
}

# "long short" per option line of -h's "Options:" table ("-" if no short).
help_options() {
	sed -n '/^Options:$/,/^$/p' | sed '1d' |
		sed -n 's/^ *\(-\([a-zA-Z0-9]\), \)\{0,1\}--\([a-zA-Z0-9][a-zA-Z0-9-]*\).*/\3 \2/p' |
		awk '{ print $1, ($2 == "" ? "-" : $2) }'
}

# Is option spelling $2 ("--name" or "-x") a word of text $1?
mentions() {
	grep -qE -- "(^|[^a-zA-Z0-9-])$2([^a-zA-Z0-9-]|\$)" <<<"$1"
}

check_synopsis_content() {	# $1 = page, $2 = usage text
	local synopsis
	synopsis=$(section_text "$1" SYNOPSIS 0 | squeeze)
	if [ -z "$2" ]; then
		fail "man/$(basename "$1"): no usage text in the -h output to compare the SYNOPSIS with"
	elif [ "$synopsis" = "$2" ]; then
		pass
	else
		fail "man/$(basename "$1"): SYNOPSIS is not the -h usage text"
		echo "  SYNOPSIS: $synopsis"
		echo "  usage:    $2"
	fi
}

check_command() {	# $1 = command, $2 = its page
	local cmd=$1 page=$2 where help usage synopsis man_longs help_longs long short
	local -A short_of=()

	where=man/$(basename "$page")

	if ! help=$("$bin" "$cmd" -h 2>&1); then
		fail "'$bin $cmd -h' exited non-zero"
		return
	fi
	while read -r long short; do
		short_of[$long]=$short
	done < <(help_options <<<"$help")
	help_longs=$(printf '%s\n' "${!short_of[@]}" | sort)
	# Only the first long option of each tag line names the entry.
	man_longs=$(section_text "$page" OPTIONS 1 |
		sed -n 's/^[^-]*\(-[a-zA-Z0-9], \)\{0,1\}--\([a-zA-Z0-9][a-zA-Z0-9-]*\).*/\2/p' |
		sort)

	if [ -z "$help_longs" ]; then
		fail "'$bin $cmd -h' lists no options"
		return
	fi
	if [ -z "$man_longs" ]; then
		fail "$where: no option entries (.TP) in OPTIONS"
		return
	fi
	while read -r long; do
		if grep -qx -- "$long" <<<"$man_longs"; then
			pass
		else
			fail "$cmd: --$long is in '$cmd -h' but missing from $where OPTIONS"
		fi
	done <<<"$help_longs"
	while read -r long; do
		if grep -qx -- "$long" <<<"$help_longs"; then
			pass
		else
			fail "$cmd: --$long is in $where OPTIONS but missing from '$cmd -h'"
		fi
	done <<<"$man_longs"

	usage=$(usage_text <<<"$help")
	check_synopsis_content "$page" "$usage"
	synopsis=$(section_text "$page" SYNOPSIS 0 | squeeze)
	while read -r long; do
		[ "$long" = help ] && continue
		short=${short_of[$long]}
		if mentions "$synopsis" "--$long" ||
			{ [ "$short" != - ] && mentions "$synopsis" "-$short"; }; then
			pass
		else
			fail "$cmd: --$long (or its short form) is in '$cmd -h' but missing from $where SYNOPSIS"
		fi
	done <<<"$help_longs"
}

check_main() {	# $1 = man/faultline.1
	local page=$1 help usage synopsis long name entries
	if ! help=$("$bin" -h 2>&1); then
		fail "'$bin -h' exited non-zero"
		return
	fi
	usage=$(usage_text <<<"$help")
	check_synopsis_content "$page" "$usage"
	synopsis=$(section_text "$page" SYNOPSIS 0 | squeeze)
	while read -r long; do
		[ -n "$long" ] || continue
		if mentions "$synopsis" "$long"; then
			pass
		else
			fail "faultline: $long is in 'faultline -h' usage but missing from man/faultline.1 SYNOPSIS"
		fi
	done < <(grep -oE -- '--[a-zA-Z0-9][a-zA-Z0-9-]*' <<<"$usage" | sort -u)
	entries=$(section_text "$page" COMMANDS 1 | squeeze)
	while read -r name; do
		if mentions "$entries" "$name"; then
			pass
		else
			fail "faultline: command '$name' is in 'faultline -h' but missing from man/faultline.1 COMMANDS"
		fi
	done < <(sed -n '/^Commands:$/,/^$/p' <<<"$help" | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
}

# groff's own warnings for one page; none is a pass.
check_groff_warnings() {	# $1 = page
	local out
	out=$(groff -ww -z -man "$1" 2>&1)
	if [ -z "$out" ]; then
		pass
	else
		fail "man/$(basename "$1"): groff -ww -z -man warns:"
		sed 's/^/  /' <<<"$out"
	fi
}

# The check above is only worth something if groff warns here at all: a
# page with an undefined macro must draw a warning.
check_groff_warns_at_all() {
	local bad out
	bad=$(mktemp)
	printf '.TH T 1\n.SH NAME\nt\n.RS\ntext\n.RE.PP\nmore\n' >"$bad"
	out=$(groff -ww -z -man "$bad" 2>&1)
	rm -f "$bad"
	if [ -n "$out" ]; then
		pass
	else
		fail "groff -ww -z -man did not warn about an undefined macro; is groff-base installed?"
	fi
}

if ! command -v groff >/dev/null; then
	fail "groff is not installed (Debian: groff-base); the pages' formatting is not checked"
else
	check_groff_warns_at_all
	for page in "$man_dir"/*.[1-8]; do
		[ -f "$page" ] && check_groff_warnings "$page"
	done
fi

if [ -f "$man_dir/faultline.1" ]; then
	check_main "$man_dir/faultline.1"
else
	fail "no $man_dir/faultline.1"
fi

found=0
for page in "$man_dir"/faultline-*.1; do
	[ -f "$page" ] || continue
	found=1
	name=$(basename "$page" .1)
	check_command "${name#faultline-}" "$page"
done
[ "$found" -eq 1 ] || fail "no command pages (faultline-*.1) in $man_dir"

finish
