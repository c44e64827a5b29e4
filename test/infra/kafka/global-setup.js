/**
 * Jest global setup: the Kafka suites (test/integration/kafka-*.spec.ts) run against a real broker. With KAFKA_BROKERS already
 * set (any Kafka), that one is used and nothing is started. Otherwise test/infra/kafka/start.sh starts a fresh
 * single-node KRaft broker in test/infra/.kafka/jest (fetching its jars from Maven Central once) and KAFKA_BROKERS is
 * exported to the test workers, which are forked after this runs.
 *
 * A run whose selected files include no Kafka suite (`jest test/unit`) starts nothing. A broker that cannot start
 * does not stop the other suites: the reason is printed here and carried in KAFKA_TEST_BROKER_ERROR, and every Kafka
 * suite then fails with it (test/integration/kafka-support.ts) — never skipped.
 */
const { execFileSync } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..', '..', '..');
const DIR = join(__dirname, '..', '.kafka', 'jest');

/** The Kafka suites' paths, to see whether the run's path pattern selects any. */
function kafkaSuites(dir = join(ROOT, 'test')) {
  if (dir === join(ROOT, 'test', 'unit')) return []; // pure: no broker
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...kafkaSuites(path));
    else if (/^kafka.*\.spec\.ts$/.test(entry.name)) found.push(path);
  }
  return found;
}

function selectsKafka(globalConfig) {
  const pattern = globalConfig && globalConfig.testPathPattern;
  if (!pattern) return true;
  let re;
  try {
    re = new RegExp(pattern, 'i');
  } catch {
    return true;
  }
  return kafkaSuites().some((file) => re.test(file) || re.test(relative(ROOT, file)));
}

module.exports = async function kafkaGlobalSetup(globalConfig) {
  process.env.KAFKA_TEST_BROKER_STARTED = '';
  if (process.env.KAFKA_BROKERS || !selectsKafka(globalConfig)) return;
  const started = Date.now();
  try {
    const out = execFileSync('bash', [join(__dirname, 'start.sh'), '--dir', DIR, '--fresh'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const match = /^KAFKA_BROKERS=(\S+)$/m.exec(out.trim().split('\n').pop() || '');
    if (!match) throw new Error(`test/infra/kafka/start.sh printed no KAFKA_BROKERS line: ${out}`);
    process.env.KAFKA_BROKERS = match[1];
    process.env.KAFKA_TEST_BROKER_STARTED = DIR;
    process.stderr.write(`\nKafka test broker at ${match[1]} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  } catch (error) {
    const reason = `the Kafka test broker did not start (test/infra/kafka/start.sh): ${error.message.split('\n')[0]}`;
    process.env.KAFKA_TEST_BROKER_ERROR = reason;
    process.stderr.write(`\nERROR: ${reason}\nThe Kafka suites will fail; the others run. Set KAFKA_BROKERS to use another broker.\n`);
  }
};
