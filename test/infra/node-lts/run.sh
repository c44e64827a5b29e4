#!/usr/bin/env bash
# The whole test suite on the supported Node.js LTS that .nvmrc names, beside the machine's own Node (CI runs both).
#
# The LTS comes from the npm registry's node-linux-<arch> package (the official binary tarball, headers included, so
# better-sqlite3 compiles against it without a download from nodejs.org); it is cached under
# ${XDG_CACHE_HOME:-~/.cache}/trading-account-platform/. The suite runs in a temporary copy of the working tree (files
# git tracks and untracked ones it does not ignore) with its own node_modules, because a native module is built for one
# Node ABI: the checkout's node_modules stay built for the machine's Node.
#
#   bash test/infra/node-lts/run.sh          (npm run test:lts)
#   NODE_LTS_VERSION=22.21.1 bash …          another version than .nvmrc's
#   NODE_LTS_KEEP=1 bash …                   keep the temporary copy (its path is printed)
set -euo pipefail

root="$(cd "$(dirname "$0")/../../.." && pwd)"
version="${NODE_LTS_VERSION:-$(tr -d ' \nv' < "$root/.nvmrc")}"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-lts: no Node.js binary package for $(uname -m)" >&2; exit 1 ;;
esac

cache="${XDG_CACHE_HOME:-$HOME/.cache}/trading-account-platform"
nodedir="$cache/node-v$version-linux-$arch"
if [ ! -x "$nodedir/bin/node" ]; then
  echo "node-lts: fetching Node.js $version (npm package node-linux-$arch@$version)"
  mkdir -p "$cache"
  fetch="$(mktemp -d "$cache/fetch.XXXXXX")"
  (cd "$fetch" && npm pack --silent "node-linux-$arch@$version" > /dev/null && tar -xzf ./*.tgz)
  rm -rf "$nodedir" && mv "$fetch/package" "$nodedir" && rm -rf "$fetch"
fi
[ -f "$nodedir/include/node/node.h" ] || { echo "node-lts: $nodedir has no headers" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/platform-lts.XXXXXX")"
cleanup() { if [ "${NODE_LTS_KEEP:-}" = 1 ]; then echo "node-lts: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
if git -C "$root" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh | tar --null -T - -cf -) | tar -xf - -C "$work"
else
  tar -C "$root" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./test/infra/.kafka -cf - . | tar -xf - -C "$work"
fi

export PATH="$nodedir/bin:$PATH"
export npm_config_nodedir="$nodedir"
echo "node-lts: running the test suite on $(node --version) in $work"
cd "$work"
npm ci
npm test
