# Shell helpers the benchmarks share; sourced, not run.
#
#   now            wall-clock seconds, with nanoseconds
#   min            the smallest number read from stdin, one a line
#   calc EXPR [N]  EXPR computed by awk, N decimals (2)
#   stats          numbers on stdin -> "best median p25 p75 n largest"
#                  (best: the smallest)
#   median         the median of the numbers on stdin
#   show LABEL V.. one line: the median of V.., the best, and the spread
#                  (25th to 75th percentile), with DIGITS decimals (1); the
#                  best is the smallest, or with BEST=max (throughput) the
#                  largest
#   sign_verdict A B "a1 a2 .." "b1 b2 .."
#                  A's and B's figure, round by round (interleaved rounds,
#                  so each pair met the same moment of the machine): in
#                  how many rounds each was lower, and "within noise"
#                  unless a two-sided sign test says p < 0.05
#   timed OUT CMD..  runs CMD with its stdout into OUT and its own CPU
#                  time (user + system, itself and the children it waited
#                  for, in s) into OUT.cpu
#   field NAME FILE  the value of NAME=value in FILE
#   rotate I A B C..  the names A B C.. rotated by I: round I's order, so
#                  no tool always runs first or last
#   session_10m DB NAME  a session of 10M fault and 1M thread_state rows

now() { date +%s.%N; }
min() { sort -g | head -n1; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

stats() {
	sort -g | awk '
		{ v[NR] = $1 }
		function q(p,   i, f, g) {
			i = 1 + (NR - 1) * p; f = int(i); g = f < NR ? f + 1 : NR
			return v[f] + (i - f) * (v[g] - v[f])
		}
		END {
			if (!NR) { print "nan nan nan nan 0 nan"; exit }
			printf "%.6g %.6g %.6g %.6g %d %.6g\n", v[1], q(0.5), q(0.25),
				q(0.75), NR, v[NR]
		}'
}
median() { stats | awk '{ print $2 }'; }

show() {
	local label=$1
	shift
	printf '%s\n' "$@" | stats | awk -v l="$label" -v d="${DIGITS:-1}" \
		-v m="${BEST:-min}" '{
		printf "  %-40s median %10.*f   best %10.*f   p25-p75 %.*f-%.*f\n",
			l, d, $2, d, m == "max" ? $6 : $1, d, $3, d, $4 }'
}

sign_verdict() {
	awk -v an="$1" -v bn="$2" -v as="$3" -v bs="$4" 'BEGIN {
		n = split(as, a, " "); split(bs, b, " ")
		for (i = 1; i <= n; i++) {
			if (a[i] + 0 < b[i] + 0) k++
			else if (a[i] + 0 > b[i] + 0) m++
		}
		t = k + m; lo = k < m ? k : m
		p = 0; c = 1
		for (i = 0; i <= lo; i++) { if (i) c = c * (t - i + 1) / i; p += c }
		p = t ? 2 * p / 2 ^ t : 1
		if (p > 1) p = 1
		v = p >= 0.05 ? "within noise" : (k > m ? an " lower" : bn " lower")
		printf "  %s lower in %d of %d rounds, %s in %d (sign test p = %.3f): %s\n",
			an, k, n, bn, m, p, v
	}'
}

timed() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S' -o "$out.time" "$@" >"$out"
	awk '{ printf "%.3f\n", $1 + $2 }' "$out.time" >"$out.cpu"
}

field() { sed -n "s/.*$1=\\([0-9.]*\\).*/\\1/p" "$2" | head -n1; }

rotate() {
	local i=$1
	shift
	local names=("$@") n=$#
	for ((k = 0; k < n; k++)); do
		printf '%s ' "${names[$(((i + k) % n))]}"
	done
}

# session_10m DB NAME: a database faultline record made, holding session 2
# of 100 s made with recursive CTEs (indexes dropped for the load and
# made after it, schema/indexes.sql): 8 threads; each takes a fault every
# 80 us (1.5-2.1 us long), 13 of 5 ms and one major fault of 150 ms; its
# timeline alternates 1.5 ms running and 100 us sleeping, but 10 times
# 1.5 ms blocked; 10,000 imported 'nak' events and 990,000 samples of a
# socket's depth: 10M fault rows, 1M thread_state rows.  NAME: the
# session's command line.  Needs FAULTLINE and T (the start, ns since the
# epoch).
session_10m() {
	"$FAULTLINE" record -q -o "$1" -- /bin/true
	{
		# (session_uuid stays: schema.sql makes it, indexes.sql does not)
		sqlite3 "$1" "SELECT 'DROP INDEX ' || name || ';' FROM sqlite_master
			WHERE type = 'index' AND sql IS NOT NULL AND name != 'session_uuid'"
		cat <<-SQL
	PRAGMA synchronous = OFF;
	BEGIN;
	INSERT INTO session (session_id, start_ts, end_ts, status, host, kernel,
	  command_line, options, faultline_version, start_realtime_ns,
	  start_monotonic_ns, min_fault_dur, buffer_bytes, cpus)
	VALUES (2, $T, $T + 100200000000, 'complete', 'bench', 'bench',
	  '$2', '', 'bench', $T, 0, 0, 4194304, 2);
	INSERT INTO thread SELECT 2, 1001 + value, 1000, 'rx-' || value, $T, $T + 100200000000
	  FROM (WITH RECURSIVE c(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM c
	        WHERE value < 7) SELECT value FROM c);
	INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip, stack_id)
	WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 10030000),
	s AS (SELECT n, n / 8 AS k, n % 8 AS t FROM c)
	SELECT 2, $T + k * 80000 + t * 1000,
	       CASE WHEN k % 1000000 = 500000 THEN 150000000
	            WHEN k % 100000 = 50000 THEN 5000000 ELSE 1500 + (n % 7) * 100 END,
	       1001 + t, 1000, t % 2, t % 2,
	       CASE WHEN k % 1000000 = 500000 THEN 'major' ELSE 'minor' END,
	       (n * 4096) % 1099511627776, 4194304,
	       CASE WHEN k % 100000 = 50000 OR k % 1000000 = 500000 THEN 1 END
	  FROM s
	 WHERE k % 1000000 NOT BETWEEN 500001 AND 501875
	   AND k % 100000 NOT BETWEEN 50001 AND 50063
	 LIMIT 10000000;
	INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu, waker_tid,
	  waker_cpu, preempted, uncertain, stack_id)
	WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 499999),
	s AS (SELECT n / 8 AS p, n % 8 AS t, (n / 8) % 6250 = 3125 AS blocked FROM c)
	SELECT 2, 1001 + t, 1000, $T + p * 1600000, CASE WHEN blocked THEN 100000 ELSE 1500000 END,
	       'running', t % 2, NULL, NULL, 0, 0, NULL FROM s
	UNION ALL
	SELECT 2, 1001 + t, 1000, $T + p * 1600000 + CASE WHEN blocked THEN 100000 ELSE 1500000 END,
	       CASE WHEN blocked THEN 1500000 ELSE 100000 END,
	       CASE WHEN blocked THEN 'blocked' ELSE 'sleeping' END, t % 2,
	       CASE WHEN blocked THEN NULL ELSE 1001 + (t + 1) % 8 END, NULL, 0, 0,
	       CASE WHEN blocked THEN 2 END FROM s;
	INSERT INTO metric_series VALUES (1, NULL, 'nak', '{}', NULL, 'naks.csv', $T),
	  (2, 2, 'udp_rx_queue_bytes', '{"port":9000,"inode":77}', 'bytes', 'sampler', $T);
	INSERT INTO metric
	WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 989999)
	SELECT 2, $T + n * 101000, (n * 7919) % 212992 FROM c;
	INSERT INTO metric
	WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 9999)
	SELECT 1, $T + n * 10000000 + 3000000, n % 50 + 1 FROM c;
	INSERT INTO stack VALUES (2, 1, 1000, 3, 'fp', NULL), (2, 2, 1000, 2, 'fp', NULL);
	INSERT INTO stack_frame VALUES (2, 1, 0, 1), (2, 1, 1, 2), (2, 1, 2, 3), (2, 2, 0, 4), (2, 2, 1, 3);
	INSERT INTO frame VALUES (2, 1, 1000, 4096, 0, 0, '/lib/ld.so', 4096, NULL, 'ok'),
	  (2, 2, 1000, 8192, 0, 1, '/lib/ld.so', 8192, NULL, 'ok'),
	  (2, 3, 1000, 12288, 0, 1, '/usr/bin/rx', 12288, NULL, 'ok'),
	  (2, 4, -1, -4096, 1, 0, '[kernel.kallsyms]', NULL, NULL, 'ok');
	INSERT INTO symbol VALUES (2, 1, 0, '_dl_fixup', 0, NULL, NULL, NULL, 0),
	  (2, 2, 0, '_dl_runtime_resolve', 0, NULL, NULL, NULL, 0),
	  (2, 3, 0, 'main', 0, NULL, NULL, NULL, 0), (2, 4, 0, 'io_schedule', 0, NULL, NULL, NULL, 0);
	COMMIT;
	SQL
		cat schema/indexes.sql
	} | sqlite3 "$1"
}
