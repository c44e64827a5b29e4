#!/usr/bin/env bash
# Stops the test broker started by start.sh from DIR (default test/infra/.kafka/local): SIGTERM (a controlled
# shutdown that flushes the log), then SIGKILL after KAFKA_STOP_TIMEOUT seconds (default 30). Keeps DIR's config and
# data, so start.sh --dir DIR starts the same broker again. Nothing to stop is not an error.
#
#   bash test/infra/kafka/stop.sh [--dir DIR] [--kill]      (--kill: SIGKILL at once, a crash)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$here/../.kafka/local"
signal=TERM
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --kill) signal=KILL; shift ;;
    *) echo "usage: stop.sh [--dir DIR] [--kill]" >&2; exit 2 ;;
  esac
done
[ -f "$dir/broker.pid" ] || exit 0
pid="$(cat "$dir/broker.pid")"
if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || ! grep -q 'kafka.Kafka' "/proc/$pid/cmdline" 2>/dev/null; then
  rm -f "$dir/broker.pid"
  exit 0
fi
kill -"$signal" "$pid" 2>/dev/null || true
deadline=$((SECONDS + ${KAFKA_STOP_TIMEOUT:-30}))
while kill -0 "$pid" 2>/dev/null; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "the Kafka broker ($pid) did not stop within ${KAFKA_STOP_TIMEOUT:-30}s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  sleep 0.2
done
rm -f "$dir/broker.pid"
echo "Kafka broker ($pid) stopped" >&2
