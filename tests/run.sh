#!/bin/bash
# Runs test binaries, each in its own process (a crash is one failure, not
# the end of the run), and prints one closing line for the whole suite:
#   check: N passed, M failed[, K skipped]
# A test that skips says why on a line starting "skipped: ", shown here,
# as is a picture it left to be looked at ("screenshot: PATH").
# cmocka binaries report "[  PASSED  ] N test(s)." and "[  FAILED  ] N
# test(s)"; the fuzz replays report "replay: N passed, M failed".
#
# Nothing may outlive the suite: at its end, a process that carries this
# run's FAULTLINE_SUITE mark in its environment (every process a test
# starts inherits it, servers and daemons too), anything left in the
# suite's own temporary directory (TMPDIR for every test; tests/tmpdir.h),
# or a mount inside it, is a failure that names it; it is then removed,
# so one broken run does not break the next.
set -u

export FAULTLINE_SUITE="suite-$$-$(date +%s%N)"
# On disk (a major-fault test needs pages that can leave the page cache),
# and open to the user nobody and the postgres user some tests run as.
TMPDIR=$(mktemp -d /var/tmp/faultline-suite.XXXXXX) || exit 1
chmod 755 "$TMPDIR"
export TMPDIR

# The live processes (not zombies) that carry this run's mark.
marked_processes() {
	local env stat p
	for env in /proc/[0-9]*/environ; do
		p=${env#/proc/}
		p=${p%/environ}
		[ "$p" = "$$" ] && continue
		grep -qz "^FAULTLINE_SUITE=$FAULTLINE_SUITE\$" "$env" 2>/dev/null || continue
		stat=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		stat=${stat##*) }
		[ "${stat%% *}" = Z ] && continue
		echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120)"
	done
}

# What the tests left behind: each thing named on stdout.
leftovers() {
	local left d
	# A watcher that stops a server when its test exits needs a moment.
	for _ in $(seq 50); do
		left=$(marked_processes)
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ -n "$left" ] && sed 's/^/process /' <<<"$left"
	while read -r _ d _; do
		case "$d" in
		"$TMPDIR"/*) echo "mount $d" ;;
		esac
	done </proc/mounts
	for d in "$TMPDIR"/* "$TMPDIR"/.[!.]*; do
		[ -e "$d" ] && echo "file $d"
	done
}

# Kills the processes and detaches the mounts leftovers named; the
# directory itself goes at exit.
remove_leftovers() {
	local what id _
	while read -r what id _; do
		case "$what" in
		process) kill -9 "$id" 2>/dev/null ;;
		mount) umount -l "$id" 2>/dev/null ;;
		esac
	done <<<"$1"
}

# Stopped half-way (^C, a kill): the suite's processes and files go all
# the same.
trap 'exit 130' INT TERM
trap 'remove_leftovers "$(leftovers)"; rm -rf "$TMPDIR"' EXIT

passed=0
failed=0
skipped=0
broken=()

count_from() {	# $1 = log file; sets p and f
	# A binary may run several cmocka groups: add up their lines.
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' "$1" |
		awk '{ s += $1 } END { if (NR) print s }')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p' "$1" |
		awk '{ s += $1 } END { if (NR) print s }')
	if [ -z "$p$f" ]; then
		p=$(sed -n 's/^[a-z_]*: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' "$1" | tail -n1)
		f=$(sed -n 's/^[a-z_]*: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$1" | tail -n1)
	fi
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s).*/\1/p' "$1" |
		awk '{ s += $1 } END { if (NR) print s }')
	p=${p:-0}
	f=${f:-0}
	s=${s:-0}
}

for bin in "$@"; do
	name=$(basename "$bin")
	args=()
	case "$name" in
	replay_*)
		target=${name#replay_}
		args=(tests/fuzz/corpus/"$target" tests/fuzz/crashes/"$target")
		;;
	man_vs_help.sh | completion.sh | deb_check.sh)
		args=("$FAULTLINE")
		;;
	esac
	log=$(mktemp)
	"$bin" "${args[@]}" >"$log" 2>&1
	rc=$?
	count_from "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or exited non-zero without saying why
	fi
	if [ "$f" -ne 0 ]; then
		cat "$log"
		broken+=("$name")
	fi
	printf '%-28s %4d passed, %d failed' "$name" "$p" "$f"
	if [ "$s" -ne 0 ]; then
		printf ', %d skipped' "$s"
	fi
	printf '\n'
	grep '^skipped: ' "$log" | sed 's/^/    /'
	grep '^screenshot: ' "$log" | sed 's/^/    /'	# for a person to look at
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	rm -f "$log"
done

left=$(leftovers)
if [ -n "$left" ]; then
	echo "left behind by the tests (now removed):"
	sed 's/^/    /' <<<"$left"
	remove_leftovers "$left"
	failed=$((failed + 1))
	broken+=("nothing-left-behind")
fi

if ((${#broken[@]})); then
	echo "failing: ${broken[*]}"
fi
if [ "$skipped" -ne 0 ]; then
	echo "check: $passed passed, $failed failed, $skipped skipped"
else
	echo "check: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
