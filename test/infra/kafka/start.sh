#!/usr/bin/env bash
# Starts a real Apache Kafka broker (single node, KRaft, combined broker + controller, PLAINTEXT) on 127.0.0.1 on a
# free port, for the tests and for local development. Prints `KAFKA_BROKERS=127.0.0.1:<port>` as its last line on
# stdout and writes the same line to <dir>/broker.env.
#
#   bash test/infra/kafka/start.sh [--dir DIR] [--fresh]
#
#   --dir DIR   where the broker keeps its config, data, pid and log (default test/infra/.kafka/local)
#   --fresh     forget what DIR held: new ports, empty log directory (the jest global setup starts it so)
#
# A broker already running from DIR is reused (its address printed again). A DIR that held a stopped broker is
# started again with the same ports and data (what the fault tests do), unless --fresh.
#
# The broker's jars come from Maven Central through the machine's Maven (test/infra/kafka/pom.xml,
# `mvn dependency:copy-dependencies`) into test/infra/.kafka/lib; they are fetched once and reused while pom.xml is
# unchanged. Environment: KAFKA_START_TIMEOUT (seconds to wait for the broker to answer, default 90),
# KAFKA_HEAP (JVM heap, default 512m). Stop it with test/infra/kafka/stop.sh [--dir DIR].
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$here/../.kafka"
root="$(cd "$here/../.kafka" && pwd)"
dir="$root/local"
fresh=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    *) echo "usage: start.sh [--dir DIR] [--fresh]" >&2; exit 2 ;;
  esac
done
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
timeout="${KAFKA_START_TIMEOUT:-90}"

fail() {
  echo "ERROR: $*" >&2
  if [ -f "$dir/broker.log" ]; then
    echo "---- last lines of $dir/broker.log ----" >&2
    tail -n 40 "$dir/broker.log" >&2 || true
  fi
  exit 1
}

command -v java >/dev/null 2>&1 || fail "java is not installed (the Kafka test broker needs Java 17)"

# --- the jars, fetched once -----------------------------------------------------------------------------------------
lib="$root/lib"
stamp="$(sha256sum "$here/pom.xml" | cut -c1-64)"
if [ ! -f "$lib/.complete" ] || [ "$(cat "$lib/.complete")" != "$stamp" ]; then
  command -v mvn >/dev/null 2>&1 || fail "mvn is not installed (the Kafka test broker is fetched from Maven Central with Maven)"
  echo "fetching the Kafka broker from Maven Central (once; cached in $lib)" >&2
  rm -rf "$lib.tmp"
  if ! mvn -q -B -Dstyle.color=never -f "$here/pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib.tmp" >&2; then
    rm -rf "$lib.tmp"
    fail "mvn could not fetch the Kafka broker's jars (test/infra/kafka/pom.xml)"
  fi
  rm -rf "$lib"
  mv "$lib.tmp" "$lib"
  echo "$stamp" >"$lib/.complete"
fi

# --- helpers --------------------------------------------------------------------------------------------------------
answers() { # host port: a TCP connection is accepted
  (exec 3<>"/dev/tcp/$1/$2") >/dev/null 2>&1
}
running_pid() {
  [ -f "$dir/broker.pid" ] || return 1
  local pid
  pid="$(cat "$dir/broker.pid")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q 'kafka.Kafka' "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'
}
print_address() {
  echo "KAFKA_BROKERS=127.0.0.1:$(cat "$dir/broker.port")" >"$dir/broker.env"
  cat "$dir/broker.env"
}

# --- reuse a running broker -----------------------------------------------------------------------------------------
if pid="$(running_pid)"; then
  if [ "$fresh" = 1 ]; then
    bash "$here/stop.sh" --dir "$dir" >&2
  elif answers 127.0.0.1 "$(cat "$dir/broker.port")"; then
    print_address
    exit 0
  else
    fail "a broker process ($pid) runs from $dir but does not answer; stop it with test/infra/kafka/stop.sh --dir $dir"
  fi
fi

# --- configure (fresh) or restart with the same ports and data ------------------------------------------------------
if [ "$fresh" = 1 ] || [ ! -f "$dir/server.properties" ] || [ ! -f "$dir/data/meta.properties" ]; then
  rm -rf "$dir/data" "$dir/server.properties" "$dir/broker.port" "$dir/broker.env" "$dir/broker.log"
  port="$(free_port)"
  controller_port="$(free_port)"
  while [ "$controller_port" = "$port" ]; do controller_port="$(free_port)"; done
  cat >"$dir/server.properties" <<PROPS
# Written by test/infra/kafka/start.sh: one node, broker and KRaft controller in one process, PLAINTEXT on loopback.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
# The platform creates its topics itself (partitions, replication, compaction): a typo must not create one.
auto.create.topics.enable=false
# A test broker: small segments so the log cleaner has something to compact, quick shutdown.
log.segment.bytes=1048576
log.cleaner.backoff.ms=1000
controlled.shutdown.enable=true
PROPS
  echo "$port" >"$dir/broker.port"
  # A cluster id is 16 random bytes in base64url (what `kafka-storage random-uuid` prints). Like Kafka's own
  # Uuid.randomUuid, never one starting with '-': the format tool would read it as an option (1 start in 64 failed).
  cluster_id="$(node -e 'let id; do id = require("crypto").randomBytes(16).toString("base64url"); while (id.startsWith("-")); process.stdout.write(id)')"
  java -cp "$lib/*" -Dlog4j.configuration="file:$here/log4j.properties" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" >"$dir/format.log" 2>&1 ||
    { cat "$dir/format.log" >&2; fail "could not format the KRaft log directory $dir/data"; }
fi
port="$(cat "$dir/broker.port")"
if answers 127.0.0.1 "$port"; then fail "port $port (from $dir/server.properties) is taken by another process; start with --fresh"; fi

# --- start, detached from this shell (its own session, output to a file), and wait until it answers ----------------
: >"$dir/broker.log"
setsid nohup java -Xms128m -Xmx"${KAFKA_HEAP:-512m}" -XX:+UseG1GC -XX:TieredStopAtLevel=1 -Xshare:auto \
  -Djava.awt.headless=true -Dlog4j.configuration="file:$here/log4j.properties" -Dkafka.logs.dir="$dir" \
  -cp "$lib/*" kafka.Kafka "$dir/server.properties" >>"$dir/broker.log" 2>&1 </dev/null &
echo $! >"$dir/broker.pid"
pid="$(cat "$dir/broker.pid")"

deadline=$((SECONDS + timeout))
until answers 127.0.0.1 "$port" && grep -q 'Kafka Server started' "$dir/broker.log"; do
  kill -0 "$pid" 2>/dev/null || fail "the Kafka broker exited during start-up (see $dir/broker.log)"
  if [ "$SECONDS" -ge "$deadline" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    fail "the Kafka broker did not answer on 127.0.0.1:$port within ${timeout}s (KAFKA_START_TIMEOUT)"
  fi
  sleep 0.25
done
echo "Kafka broker running (pid $pid) on 127.0.0.1:$port; data and log in $dir" >&2
print_address
