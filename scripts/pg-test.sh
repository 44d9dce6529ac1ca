#!/usr/bin/env bash
# A throwaway PostgreSQL 15 (Debian's postgresql-15) for the tests: a cluster
# in a temp dir, listening on a Unix socket only (no TCP), fsync off.
#   bash scripts/pg-test.sh start      init and start it (again: reuse the running one)
#   bash scripts/pg-test.sh env        print the exports the tests read
#   bash scripts/pg-test.sh stop       stop it and remove the dir
#   bash scripts/pg-test.sh run CMD..  start, run CMD with the exports, stop (also when CMD fails)
# The tests connect as `cilia`, an ordinary role owning database cilia_test:
# the store refuses superusers (row-level security does not bind them).
# CILIA_TEST_PG_SUPERUSER_URL is the cluster's superuser, for the test that
# checks that refusal. PostgreSQL does not run as root: as root, the cluster
# belongs to the system user cilia-test (created when missing).
set -euo pipefail

dir=${CILIA_PG_TEST_DIR:-/tmp/cilia-pg-test}
bin=${CILIA_PG_BIN:-/usr/lib/postgresql/15/bin}
sock=$dir/sock
owner=$(id -un)

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u cilia-test -- "$@"; else "$@"; fi
}

urls() {
  echo "export CILIA_TEST_PG_URL='postgresql:///cilia_test?host=$sock&user=cilia'"
  echo "export CILIA_TEST_PG_SUPERUSER_URL='postgresql:///cilia_test?host=$sock&user=$owner'"
}

start() {
  if [ ! -x "$bin/initdb" ]; then
    echo "pg-test: $bin/initdb not found; install postgresql-15 (bash scripts/setup.sh)" >&2
    exit 1
  fi
  if [ "$(id -u)" = 0 ]; then
    owner=cilia-test
    id -u cilia-test >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin cilia-test
  fi
  if [ -f "$dir/data/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    return 0
  fi
  rm -rf "$dir"
  mkdir -p "$sock"
  [ "$(id -u)" = 0 ] && chown -R cilia-test "$dir"
  chmod 755 "$dir" "$sock"
  as_owner "$bin/initdb" -D "$dir/data" -U "$owner" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
  cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$sock'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
CONF
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
  as_owner "$bin/psql" -q -h "$sock" -U "$owner" -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE cilia LOGIN" -c "CREATE DATABASE cilia_test OWNER cilia" >/dev/null
}

stop() {
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start; urls ;;
  env)
    [ "$(id -u)" = 0 ] && owner=cilia-test
    urls ;;
  stop) stop ;;
  run)
    shift
    start >/dev/null
    [ "$(id -u)" = 0 ] && owner=cilia-test
    eval "$(urls)"
    trap stop EXIT
    "$@" ;;
  *) echo "usage: pg-test.sh start|env|stop|run CMD..." >&2; exit 2 ;;
esac
