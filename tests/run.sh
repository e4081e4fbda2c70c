#!/bin/bash
# Runs test binaries, each in its own process (a crash is one failure, not
# the end of the run), and prints one closing line for the whole suite:
#   check: N passed, M failed[, K skipped]
# A test that skips says why on a line starting "skipped: ", shown here.
# cmocka binaries report "[  PASSED  ] N test(s)." and "[  FAILED  ] N
# test(s)"; the fuzz replays report "replay: N passed, M failed".
set -u

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
	man_vs_help.sh)
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
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	rm -f "$log"
done

if ((${#broken[@]})); then
	echo "failing: ${broken[*]}"
fi
if [ "$skipped" -ne 0 ]; then
	echo "check: $passed passed, $failed failed, $skipped skipped"
else
	echo "check: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
