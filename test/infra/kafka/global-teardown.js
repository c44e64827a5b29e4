/** Jest global teardown: stops the broker the global setup started (none when KAFKA_BROKERS was given). */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async function kafkaGlobalTeardown() {
  const dir = process.env.KAFKA_TEST_BROKER_STARTED;
  if (!dir) return;
  if (process.env.KAFKA_KEEP_BROKER === '1') {
    process.stderr.write(`Kafka test broker left running (KAFKA_KEEP_BROKER=1): bash test/infra/kafka/stop.sh --dir ${dir}\n`);
    return;
  }
  execFileSync('bash', [join(__dirname, 'stop.sh'), '--dir', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
};
