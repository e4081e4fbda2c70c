#!/bin/bash
# Holds completion/faultline to what the binary offers: sources the script
# in bash and calls its function as bash's completion does, with
# COMP_WORDS and COMP_CWORD set, for commands, options, tracepoint names
# (from a tracefs list made here, so the machine's tracefs is not needed)
# and canned query names.
#
#   tests/completion.sh path/to/faultline
#
# Prints a line for each failed check, then one closing line:
#   completion: N passed, M failed
set -u

bin=${1:?usage: tests/completion.sh path/to/faultline}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The binary is completed under the name the user types.
mkdir -p "$tmp/bin"
ln -s "$(readlink -f "$bin")" "$tmp/bin/faultline"
PATH=$tmp/bin:$PATH

# shellcheck source=../completion/faultline
. "$(dirname "$0")/../completion/faultline"
complete -p faultline >/dev/null || { echo "completion: 0 passed, 1 failed"; exit 1; }

printf 'sched:sched_switch\nsched:sched_wakeup\nskb:kfree_skb\n' >"$tmp/available_events"
export FAULTLINE_TRACEFS=$tmp

# complete WORDS...: COMPREPLY for the line WORDS, the cursor at the end
# of the last word, one per line, sorted.
complete_line() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_faultline
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

# expect WANT WORDS...: WANT is the reply, words joined by spaces.
expect() {
	local want=$1 got
	shift
	got=$(complete_line "$@" | paste -sd' ')
	if [ "$got" = "$want" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: '$*' completed to '$got', not '$want'"
	fi
}

# has WANT WORDS...: the reply holds WANT.
has() {
	local want=$1
	shift
	if complete_line "$@" | grep -qx -- "$want"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: '$*' did not offer '$want'"
	fi
}

# Commands: every one 'faultline -h' lists, and only those.
cmds=$(faultline -h | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' | sort | paste -sd' ')
[ -n "$cmds" ] || { echo "FAIL: faultline -h lists no command"; failed=$((failed + 1)); }
expect "$cmds" faultline ""
expect "record report" faultline re
expect "stacks symbolize" faultline s

# Options of a command, from its -h.
has --duration faultline record --d
has --stacks-on faultline record -o run.db --stacks-o
has --block-io faultline record -o run.db --bl
expect "--min-fault-duration" faultline export run.db --min
has --format faultline query run.db --f
has -s faultline report run.db -
expect "--flight" faultline record --fl
has --max-memory faultline record --flight --max-m
expect "--metric-fifo --metric-udp" faultline record --flight --metric-

# Tracepoints after -e and --event, whole or after the colon bash splits at.
expect "sched:sched_switch sched:sched_wakeup" faultline record -e sched
expect "sched_switch sched_wakeup" faultline record -e sched : ""
expect "sched_switch" faultline record --event sched : sched_s
expect ":sched_switch :sched_wakeup" faultline record -e sched :
expect "skb:kfree_skb" faultline record -o x.db -e sk
expect "sched:sched_switch sched:sched_wakeup" faultline record --latency sched
expect "sched_wakeup" faultline record --latency sched : sched_w

# Canned queries after query DB, with .sql files.
queries=$(faultline query --list | sed -n 's/^\([a-z][a-z0-9-]*\)$/\1/p' | sort)
has stalls-near faultline query run.db ""
has longest-stalls faultline query run.db long
expect "$(printf '%s\n' $queries | grep '^fault-' | paste -sd' ')" faultline query run.db fault-
# Metric names after runs DB --metric, from the database.
if command -v sqlite3 >/dev/null; then
	sqlite3 "$tmp/fleet.db" "CREATE TABLE metric_series (name TEXT);
		INSERT INTO metric_series VALUES ('nak'), ('lat'), ('nak')"
	expect "lat nak" faultline runs "$tmp/fleet.db" --metric ""
	expect "nak" faultline runs "$tmp/fleet.db" -m n
	expect "" faultline runs --metric ""
fi
cd "$tmp" || exit 1
touch my-question.sql my-notes.txt
expect "my-question.sql" faultline query run.db my-
expect "my-notes.txt my-question.sql" faultline report my-
cd - >/dev/null || exit 1

echo "completion: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
