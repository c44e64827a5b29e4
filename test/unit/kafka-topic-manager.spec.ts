/**
 * TopicManager's admin client is closed even when the stop comes while it is still connecting: before, close() saw no
 * admin yet, the connect finished afterwards and its socket stayed open (jest: "a worker process has failed to exit").
 */
import type { Admin, Kafka } from 'kafkajs';
import { TopicManager } from '../../src/platform/kafka/kafka-client';
import type { TopicSettings } from '../../src/platform/kafka/topics';

const topicSettingsForTests: TopicSettings = { partitions: 1, replicationFactor: -1, eventsRetentionMs: -1 };

function fakeKafka(): { kafka: Kafka; admins: Array<{ connected: boolean; disconnected: boolean; finishConnect: () => void }> } {
  const admins: Array<{ connected: boolean; disconnected: boolean; finishConnect: () => void }> = [];
  const kafka = {
    admin: () => {
      const state = { connected: false, disconnected: false, finishConnect: () => undefined as void };
      admins.push(state);
      const admin = {
        connect: () => new Promise<void>((resolve) => (state.finishConnect = () => ((state.connected = true), resolve()))),
        disconnect: async () => void (state.disconnected = true),
        listTopics: async () => ['p.events.x'],
      };
      return admin as unknown as Admin;
    },
  };
  return { kafka: kafka as unknown as Kafka, admins };
}

describe('TopicManager.close', () => {
  it('given an admin still connecting, when closed, then the admin is disconnected once it has connected', async () => {
    const { kafka, admins } = fakeKafka();
    const topics = new TopicManager(kafka, 'p', topicSettingsForTests);
    const ensuring = topics.ensure(['p.events.x']);
    await Promise.resolve();
    expect(admins).toHaveLength(1);
    const closing = topics.close();
    admins[0].finishConnect();
    await closing;
    await ensuring.catch(() => undefined);
    expect(admins[0].disconnected).toBe(true);
  });

  it('given a closed manager, when asked to ensure topics, then it refuses instead of connecting again', async () => {
    const { kafka, admins } = fakeKafka();
    const topics = new TopicManager(kafka, 'p', topicSettingsForTests);
    await topics.close();
    await expect(topics.ensure(['p.events.y'])).rejects.toThrow(/closed/);
    expect(admins).toHaveLength(0);
  });
});
