#!/usr/bin/env bash
# Black-box checks against the real built server: a fresh DATA_DIR, real HTTP, no test hooks. PASS/FAIL per item;
# exits non-zero on a FAIL.
#   bash test/infra/blackbox/run.sh        issue 18 (this script starts the server)
#   bash test/infra/blackbox/run.sh 19     issue 19 (the script starts, kills and restarts the server itself)
set -euo pipefail
cd "$(dirname "$0")/../../.."
issue=${1:-18}
npm run build --silent
if [ "$issue" = 19 ]; then
  exec node test/infra/blackbox/issue-19.mjs
fi
data_dir=$(mktemp -d)
port=${PORT:-3099}
DATA_DIR=$data_dir PORT=$port PASSWORD_HASH_COST=${PASSWORD_HASH_COST:-12} node dist/src/main.js > "$data_dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$data_dir"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/health/ready" > /dev/null && break; sleep 0.5; done
BASE="http://127.0.0.1:$port" DATA_DIR=$data_dir node test/infra/blackbox/issue-18.mjs | tee "$data_dir/result.txt"
! grep -q '^FAIL' "$data_dir/result.txt"
