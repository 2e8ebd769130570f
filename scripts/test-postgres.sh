#!/usr/bin/env bash
# Runs `npm test` against a throwaway PostgreSQL cluster on 127.0.0.1 (installs Debian's
# postgresql when it is missing). Usage: bash scripts/test-postgres.sh [vitest args]
set -euo pipefail
cd "$(dirname "$0")/.."

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

# A free port unless one is given: a fixed default collides with any other cluster left running.
port=${PG_TEST_PORT:-$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')}
dir=$(mktemp -d /tmp/svc-pg-XXXXXX)
run_as=()
if [ "$(id -u)" = "0" ]; then
  chown postgres "$dir"
  run_as=(runuser -u postgres --)
fi
"${run_as[@]}" "$pg_bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
if ! "${run_as[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null; then
  cat "$dir/log" >&2
  rm -rf "$dir"
  exit 1
fi
cleanup() { "${run_as[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT

TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:$port/postgres" npm test -- "$@"
