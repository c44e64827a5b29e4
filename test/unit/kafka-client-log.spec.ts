/**
 * The Kafka client's log lines through the platform's logger (issue 19, item 9): a broker that cannot be reached is a
 * warning logged once per 30 s with the repeats counted, not an error on every reconnect; every line has a msg.
 */
import { logLevel, type LogEntry } from 'kafkajs';
import { KafkaClientLog } from '../../src/platform/kafka/kafka-client';

const entry = (level: logLevel, namespace: string, log: Record<string, unknown>): LogEntry => ({
  namespace,
  level,
  label: logLevel[level],
  log: { timestamp: '2026-11-25T00:00:00.000Z', message: '', ...log } as LogEntry['log'],
});

describe('KafkaClientLog', () => {
  it('given a refused connection at the client\'s ERROR level, then it is a warning with the broker and a msg', () => {
    const log = new KafkaClientLog(() => 0);
    const line = log.line(entry(logLevel.ERROR, 'Connection', { message: 'Connection error: connect ECONNREFUSED 127.0.0.1:9092', broker: '127.0.0.1:9092', clientId: 'platform' }));
    expect(line).toEqual({
      level: 'warn',
      obj: { kafka: 'Connection', broker: '127.0.0.1:9092', clientId: 'platform' },
      msg: 'kafka: Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    });
  });

  it('given the same reconnect failure again within 30 s, then it is held back, and the next line counts the repeats', () => {
    let now = 0;
    const log = new KafkaClientLog(() => now);
    const refused = entry(logLevel.ERROR, 'BrokerPool', { message: 'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED', retryCount: 1 });
    expect(log.line(refused)?.level).toBe('warn');
    for (const at of [200, 400, 800, 1600]) {
      now = at;
      expect(log.line(refused)).toBeNull();
    }
    now = 30_001;
    expect(log.line(refused)?.obj).toMatchObject({ kafka: 'BrokerPool', repeats_held_back: 4 });
  });

  it('given a retriable error from the producer (a leader election), then it is a warning', () => {
    const log = new KafkaClientLog(() => 0);
    const line = log.line(entry(logLevel.ERROR, 'Producer', { message: 'Failed to send messages: There is no leader for this topic-partition as we are in the middle of a leadership election', retriable: true }));
    expect(line?.level).toBe('warn');
  });

  it('given an error that is not about reaching a broker, then it stays an error, every time', () => {
    const log = new KafkaClientLog(() => 0);
    const denied = entry(logLevel.ERROR, 'Producer', { message: 'Topic authorization failed', retriable: false });
    expect(log.line(denied)?.level).toBe('error');
    expect(log.line(denied)?.level).toBe('error');
  });

  it('given a line without a message, then the msg still says what spoke', () => {
    const log = new KafkaClientLog(() => 0);
    expect(log.line(entry(logLevel.WARN, 'Admin', {}))?.msg).toBe('kafka: Admin event');
  });

  it('drops the idempotent producer\'s notice about bounded retries (deliberate: the publisher resends)', () => {
    const log = new KafkaClientLog(() => 0);
    expect(log.line(entry(logLevel.WARN, 'Producer', { message: 'Limiting retries for the idempotent producer to Number.MAX_SAFE_INTEGER' }))).toBeNull();
  });
});
