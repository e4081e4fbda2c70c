#!/bin/sh
# A throwaway PostgreSQL server for the tests: Debian's postgresql package
# (mk/deps.sh check installs it; this script installs nothing), initdb and
# pg_ctl run as the package's postgres user (initdb refuses root), the
# cluster and its Unix socket in a new directory, no TCP port.
#
#   tests/pg_server.sh start OWNER_PID   prints the directory, then a
#                                        conninfo URL for the superuser
#   tests/pg_server.sh stop DIR          stops it and removes DIR
#
# The server is stopped and DIR removed when OWNER_PID exits, however it
# exits (a crashed test included): a watcher started here waits on it.
# Role fl_scram (password 'right') must log in with scram-sha-256; every
# other local login is trusted.
set -eu

bindir() {
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && b=$d
	done
	[ -n "${b:-}" ] || { echo "pg_server: no initdb under /usr/lib/postgresql; install Debian's postgresql (mk/deps.sh check)" >&2; exit 1; }
	echo "$b"
}

stop() {
	dir=$1
	bin=$(bindir)
	# The watcher goes first (unless it is the one stopping): on TERM it
	# kills the sleep it waits in, so nothing of this server outlives
	# the stop.
	if [ -f "$dir/watcher.pid" ] && [ "$(cat "$dir/watcher.pid")" != "$PPID" ]; then
		kill "$(cat "$dir/watcher.pid")" 2>/dev/null || true
	fi
	if [ -f "$dir/data/postmaster.pid" ]; then
		runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
}

case "${1:-}" in
start)
	owner=$2
	bin=$(bindir)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/flpg.XXXXXX")
	chown postgres: "$dir"
	chmod 700 "$dir"
	if ! runuser -u postgres -- "$bin/initdb" -D "$dir/data" -U postgres -A trust \
		-E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		rm -rf "$dir"
		exit 1
	fi
	cat >"$dir/data/pg_hba.conf" <<-HBA
	local all fl_scram scram-sha-256
	local all all trust
	HBA
	if ! runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
		-o "-k $dir -c listen_addresses= -c fsync=off -c max_connections=40" \
		start >/dev/null 2>&1; then
		cat "$dir/server.log" >&2
		rm -rf "$dir"
		exit 1
	fi
	# The watcher: detached from the caller's pipes, so it never holds
	# them open; a stop from the test kills it (TERM), and its sleep.
	(
		s=
		trap 'kill $s 2>/dev/null; exit 0' TERM
		while kill -0 "$owner" 2>/dev/null; do
			sleep 1 &
			s=$!
			wait $s
		done
		"$0" stop "$dir"
	) </dev/null >/dev/null 2>&1 &
	echo $! >"$dir/watcher.pid"
	url="postgresql:///postgres?host=$dir&user=postgres"
	"$bin/psql" -q -X -v ON_ERROR_STOP=1 "$url" \
		-c "CREATE ROLE fl_scram LOGIN SUPERUSER PASSWORD 'right'" >/dev/null
	echo "$dir"
	echo "$url"
	;;
stop)
	stop "$2"
	;;
*)
	echo "usage: tests/pg_server.sh start OWNER_PID | stop DIR" >&2
	exit 2
	;;
esac
