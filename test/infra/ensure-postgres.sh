#!/usr/bin/env bash
# The integration tests run against a real PostgreSQL: TEST_DATABASE_URL, by default 127.0.0.1:5432, database
# "test", trust auth (as on the development and CI machines). Starts the local cluster if it is down; fails loudly
# when it cannot be reached, because a silently skipped PostgreSQL suite would prove nothing.
set -euo pipefail
url="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"

reachable() {
  URL="$url" node -e '
    const { Client } = require("pg");
    const c = new Client({ connectionString: process.env.URL, connectionTimeoutMillis: 2000 });
    c.connect().then(() => c.query("SELECT 1")).then(() => c.end()).then(() => process.exit(0), () => process.exit(1));
  ' >/dev/null 2>&1
}

if reachable; then exit 0; fi

if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  echo "PostgreSQL is not reachable at $url; starting the local cluster" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start >&2 || true
  for _ in $(seq 1 30); do
    if reachable; then exit 0; fi
    sleep 1
  done
fi

cat >&2 <<MSG
ERROR: PostgreSQL is required by the integration tests and is not reachable at
  $url
Start a PostgreSQL server with a database "test" (trust auth on 127.0.0.1:5432), or point TEST_DATABASE_URL at one.
MSG
exit 1
