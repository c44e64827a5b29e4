/**
 * The same contract against a real EventStoreDB/KurrentDB, whenever EVENTSTORE_CONNECTION_STRING points at one
 * (e.g. `docker compose -f docker/compose.yaml up eventstore` and esdb://localhost:2113?tls=false).
 * EventStoreDB cannot run on the CI machines, so there the suite is reported as skipped.
 */
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb/eventstoredb.event-store';
import { runEventStoreContract } from './event-store.contract';

const connection = process.env.EVENTSTORE_CONNECTION_STRING;

if (connection) {
  runEventStoreContract('eventstoredb', async () => new EventStoreDbEventStore(connection));
} else {
  describe.skip('EventStore contract: eventstoredb (set EVENTSTORE_CONNECTION_STRING to run)', () => {
    it('runs against a real EventStoreDB', () => undefined);
  });
}
