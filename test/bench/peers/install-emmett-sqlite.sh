#!/usr/bin/env bash
# Installs the benchmark peer @event-driven-io/emmett-sqlite (pinned, with its lock file) into
# node_modules/.bench-peers/emmett-sqlite, outside the platform's own dependencies (see emmett-sqlite.package.json for
# why), and builds its native sqlite3 binding from source against this Node's headers (the prebuilt binaries live on
# GitHub, which these machines cannot reach). Idempotent; prints the directory on success.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
target="$root/node_modules/.bench-peers/emmett-sqlite"
binding="$target/node_modules/sqlite3/build/Release/node_sqlite3.node"
abi="$(node -p 'process.versions.modules')"
if [ -f "$binding" ] && [ "$(cat "$target/.abi" 2>/dev/null)" = "$abi" ] && cmp -s "$here/emmett-sqlite.package-lock.json" "$target/package-lock.json"; then
  echo "$target"
  exit 0
fi
mkdir -p "$target"
cp "$here/emmett-sqlite.package.json" "$target/package.json"
cp "$here/emmett-sqlite.package-lock.json" "$target/package-lock.json"
(cd "$target" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
prefix="$(dirname "$(dirname "$(node -p 'process.execPath')")")"
nodedir=()
if [ -f "$prefix/include/node/node.h" ]; then nodedir=(--nodedir="$prefix"); fi
(cd "$target/node_modules/sqlite3" && node "$gyp" rebuild "${nodedir[@]}" --loglevel=error >&2)
echo "$abi" > "$target/.abi"
echo "$target"
