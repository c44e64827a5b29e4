/** The writer thread of read-model-writers.ts: its own ReadModelDatabase on the DATA_DIR the test migrated. */
import { parentPort } from 'node:worker_threads';
import { openReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { moduleWorkerData } from '../../src/platform/workers/module-worker';
import { addToPosition, nextTurn, type AddRequest, type WriterReport } from './read-model-writers';

const port = parentPort!;
const send = (report: WriterReport) => port.postMessage(report);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(request: AddRequest): Promise<void> {
  for (let i = 0; i < request.times; i++) {
    send({ id: request.id, state: 'trying' });
    await addToPosition(db, request.name, request.amount, async () => {
      send({ id: request.id, state: 'holding' });
      await (request.holdMs ? delay(request.holdMs) : nextTurn());
    });
  }
}

const { dataDir } = moduleWorkerData<{ dataDir: string }>();
// The test's thread migrated the directory; a second migrator would race it on the migrations table.
const opened = openReadModelDatabase({ dataDir, readModels: [], migrate: false });
let db: Awaited<typeof opened>;
opened.then(
  (open) => {
    db = open;
    send({ id: 0, state: 'ready' });
  },
  (error: unknown) => send({ id: 0, state: 'failed', message: String(error) }),
);

port.on('message', (request: AddRequest | 'close') => {
  if (request === 'close') {
    void db.close().then(() => send({ id: -1, state: 'closed' }));
    return;
  }
  run(request).then(
    () => send({ id: request.id, state: 'done' }),
    (error: unknown) => send({ id: request.id, state: 'failed', message: String((error as Error)?.message ?? error) }),
  );
});
