#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis servers for the tests: nothing to start by hand, nothing kept.
#
#   scripts/services.sh start DIR [PID]
#                                   start both in DIR (made if missing), listening only on Unix
#                                   sockets inside DIR (no port to collide with anything), then print
#                                   NIMMT_TEST_POSTGRES_URL=... and NIMMT_TEST_REDIS_URL=... lines;
#                                   with PID, a watcher stops them once that process is gone, even
#                                   if it was killed before it could stop them itself
#   scripts/services.sh stop DIR    stop both and remove DIR
#   scripts/services.sh pg-stop DIR, pg-start DIR
#                                   stop PostgreSQL, keeping its data, and start it again (for tests
#                                   of a database that goes away)
#   scripts/services.sh pg-kill DIR kill -9 PostgreSQL (its postmaster and every process it started),
#                                   as a crash would; pg-start then recovers it from its WAL
#   scripts/services.sh run CMD...  start both in a temporary folder, run CMD with the two variables
#                                   set, stop both whatever CMD did, exit with CMD's status
#
# The PostgreSQL cluster is made by initdb (trust authentication, superuser "nimmt", database
# "nimmt"; no fsync: it is thrown away). With NIMMT_PG_SAFE=1 in the environment of "start", it runs
# on PostgreSQL's safe defaults instead (fsync, synchronous_commit and full_page_writes on), for
# the test that kills it (tests/server/test_postgres_crash.py); it keeps them when started again. As root it runs as the "postgres" user, which Debian's
# postgresql package creates. scripts/system-deps.sh installs both servers when they are missing.
# The tests' fixtures (tests/server/services.py) call this script; NIMMT_TEST_POSTGRES_URL and
# NIMMT_TEST_REDIS_URL set beforehand name servers to use instead.
set -euo pipefail

find_pg_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  echo "PostgreSQL's initdb was not found: run 'bash scripts/system-deps.sh' as root (Debian: apt-get install postgresql)" >&2
  return 1
}

as_owner() {  # run a PostgreSQL command as the cluster's owner (initdb and postgres refuse root)
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start() {
  local dir=$1
  command -v redis-server >/dev/null 2>&1 || {
    echo "redis-server was not found: run 'bash scripts/system-deps.sh' as root (Debian: apt-get install redis-server)" >&2
    return 1
  }
  local bin
  bin=$(find_pg_bin)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ ${#dir} -gt 80 ]; then  # a Unix socket's path is at most 107 bytes
    echo "services.sh: $dir is too long a path for a socket; use a shorter one" >&2
    return 1
  fi
  mkdir -p "$dir/pg"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "services.sh: no 'postgres' user to run PostgreSQL as" >&2; return 1; }
    chown postgres: "$dir/pg"
    chmod 755 "$dir"
  fi
  as_owner "$bin/initdb" -D "$dir/pg/data" -U nimmt --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$dir/pg/initdb.log" 2>&1 || { cat "$dir/pg/initdb.log" >&2; return 1; }
  if [ "${NIMMT_PG_SAFE:-}" = 1 ]; then touch "$dir/pg/safe"; fi
  pg_start "$dir"
  "$bin/createdb" -h "$dir/pg" -U nimmt nimmt 2>/dev/null || as_owner "$bin/createdb" -h "$dir/pg" -U nimmt nimmt
  redis-server --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" --save '' --appendonly no
  local tries=0
  until [ -S "$dir/redis.sock" ]; do
    tries=$((tries + 1))
    if [ $tries -gt 100 ]; then cat "$dir/redis.log" >&2; return 1; fi
    sleep 0.05
  done
  if [ -n "${2:-}" ]; then
    setsid nohup bash "$0" watch "$dir" "$2" </dev/null >/dev/null 2>&1 &
  fi
  echo "NIMMT_TEST_POSTGRES_URL=postgresql+asyncpg://nimmt@/nimmt?host=$dir/pg"
  echo "NIMMT_TEST_REDIS_URL=unix://$dir/redis.sock?db=0"
}

watch() {  # stop the servers in $1 once process $2 is gone (or leave when they were stopped)
  while [ -d "$1" ] && kill -0 "$2" 2>/dev/null; do sleep 1; done
  stop "$1"
}

pg_start() {  # (again) start the cluster in $1
  local dir=$1 bin durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  bin=$(find_pg_bin)
  if [ -f "$dir/pg/safe" ]; then durability="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"; fi
  as_owner "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 120 start -o \
    "-c listen_addresses='' -c unix_socket_directories='$dir/pg' $durability -c max_connections=60 -c shared_buffers=16MB" \
    >/dev/null || { cat "$dir/pg/server.log" >&2; return 1; }
}

pg_kill() {  # kill -9 the cluster in $1: its postmaster and the processes it started, by their ids
  local dir=$1 pid children
  pid=$(head -n 1 "$dir/pg/data/postmaster.pid")
  children=$(ps -o pid= --ppid "$pid" || true)
  # shellcheck disable=SC2086
  kill -9 "$pid" $children 2>/dev/null || true
  for _ in $(seq 200); do
    local alive=0
    # shellcheck disable=SC2086
    for p in $pid $children; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && return 0
    sleep 0.05
  done
  echo "services.sh: PostgreSQL did not die" >&2
  return 1
}

pg_stop() {  # stop the cluster in $1 (fast: its connections are cut), keeping its data
  local bin
  bin=$(find_pg_bin)
  as_owner "$bin/pg_ctl" -D "$1/pg/data" -m fast -w stop >/dev/null
}

stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  if [ -f "$dir/pg/data/postmaster.pid" ]; then
    local bin
    bin=$(find_pg_bin)
    as_owner "$bin/pg_ctl" -D "$dir/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ -f "$dir/redis.pid" ]; then
    local pid
    pid=$(cat "$dir/redis.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 start DIR [PID]" >&2; exit 2; }; start "$2" "${3:-}" ;;
  pg-stop | pg-start | pg-kill) [ $# -eq 2 ] || { echo "usage: $0 $1 DIR" >&2; exit 2; }; "${1/-/_}" "$2" ;;
  watch) [ $# -eq 3 ] || { echo "usage: $0 watch DIR PID" >&2; exit 2; }; watch "$2" "$3" ;;
  stop) [ $# -eq 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
  run)
    shift
    [ $# -gt 0 ] || { echo "usage: $0 run CMD..." >&2; exit 2; }
    dir=$(mktemp -d /tmp/nimmt-services.XXXXXX)
    trap 'stop "$dir"' EXIT
    trap 'exit 130' INT TERM
    if ! lines=$(start "$dir"); then exit 1; fi
    while IFS= read -r line; do export "${line?}"; done <<<"$lines"
    status=0
    "$@" || status=$?
    exit $status
    ;;
  *) echo "usage: $0 start DIR [PID] | stop DIR | run CMD..." >&2; exit 2 ;;
esac
