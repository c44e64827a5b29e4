/**
 * `npm run projections -- list` and `npm run projections -- rebuild <name>`: operate read models from the shell,
 * on the same stores the server uses (the environment of README "Configuration").
 */
import 'reflect-metadata';
import { SingleBar, Presets } from 'cli-progress';
import { READ_MODELS } from '../../projections';
import { loadPlatformConfig, type PlatformConfig } from '../platform/config/platform-config';
import { openSealedEventStore } from '../platform/platform.module';
import { ProjectionRunner } from '../platform/projections/projection-runner';
import { openReadModelDatabase } from '../platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../platform/read-model/read-model.definition';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Shows a progress bar (a TTY); otherwise progress is printed as lines every 10%. */
  interactive: boolean;
}

const USAGE = 'usage: npm run projections -- list | rebuild <name>';

export async function runProjectionsCli(argv: string[], config: PlatformConfig, readModels: ReadModelDefinition[], io: CliIo): Promise<number> {
  const [command, name] = argv;
  if (command !== 'list' && command !== 'rebuild') {
    io.err(USAGE);
    return 2;
  }
  // Projectors see clear values, as in the running platform (personal and secret fields are sealed in the log).
  const { store, keys } = openSealedEventStore(config);
  const db = await openReadModelDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, schema: config.databaseSchema, readModels });
  const runner = new ProjectionRunner(store, db, readModels.map((m) => new m.projector()), { batchSize: Math.max(config.projectionBatchSize, 1000) });
  try {
    if (command === 'list') {
      const head = await store.headPosition();
      io.out(`log head: ${head}`);
      if (runner.names.length === 0) io.out('no read models registered');
      for (const n of runner.names) {
        const cp = await runner.checkpoints.read(n);
        io.out(`${n}\tcheckpoint ${cp?.position ?? 0n}\tlag ${head - (cp?.position ?? 0n)}\towner ${cp?.owner ?? '-'}`);
      }
      return 0;
    }
    if (!name || !runner.names.includes(name)) {
      io.err(`unknown projection ${name ?? '(none)'}; known: ${runner.names.join(', ') || '(none)'}`);
      return 2;
    }
    const head = await store.headPosition();
    const bar = io.interactive ? new SingleBar({ format: `${name} [{bar}] {percentage}% | {value}/{total} positions | {eta}s left` }, Presets.shades_classic) : null;
    bar?.start(Number(head), 0);
    let lastTenth = -1;
    const started = process.hrtime.bigint();
    const result = await runner.rebuild(name, (position, total) => {
      bar?.update(Number(position));
      const tenth = total > 0n ? Number((position * 10n) / total) : 10;
      if (!bar && tenth !== lastTenth) {
        lastTenth = tenth;
        io.out(`${name}: ${tenth * 10}% (${position}/${total})`);
      }
    });
    bar?.stop();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    io.out(`rebuilt ${name}: ${result.events} events up to position ${result.head} in ${seconds.toFixed(2)} s`);
    return 0;
  } catch (error) {
    io.err(`projections ${command} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await db.close();
    await store.close();
    await keys.close();
  }
}

if (require.main === module) {
  const io: CliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`), interactive: Boolean(process.stdout.isTTY) };
  runProjectionsCli(process.argv.slice(2), loadPlatformConfig(), READ_MODELS, io).then(
    (code) => process.exit(code),
    (error: unknown) => {
      io.err(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
