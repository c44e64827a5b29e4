/**
 * The scale-out benchmark's commit baselines: a durable one-row commit of each store, timed alone on the machine the
 * placements run on, while the nodes idle (their CPU meanwhile is printed, so a busy node shows).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';
import { ms, percentile } from './order-load';
import { cpuWindow, flagDisturbed, idleNode } from './proc-cpu';
import { clock, log } from './report';
import { cleanup, random } from './server-process';

/** A durable one-row PostgreSQL commit: a prepared INSERT of ~100 bytes per autocommit statement, in a fresh schema (added to `schemas`, which the caller drops). */
export async function postgresCommitP50(databaseUrl: string, commits: number, nodePids: number[], schemas: string[]): Promise<number> {
  const schema = `so_commit_${random(6)}`;
  schemas.push(schema);
  const client = new PgClient({ connectionString: databaseUrl });
  await client.connect();
  try {
    const synchronous = (await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit as string;
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`CREATE TABLE "${schema}".rows (id bigserial PRIMARY KEY, body text NOT NULL)`);
    const insert = { name: 'scale-out-commit', text: `INSERT INTO "${schema}".rows (body) VALUES ($1)`, values: ['x'.repeat(100)] };
    for (let i = 0; i < 100; i++) await client.query(insert);
    const samples: number[] = [];
    const window = cpuWindow(nodePids);
    for (let i = 0; i < commits; i++) {
      const started = clock();
      await client.query(insert);
      samples.push(Number(clock() - started) / 1000);
    }
    const cpu = window.close();
    const p50 = percentile(samples, 0.5);
    log(`   durable one-row PostgreSQL commit (synchronous_commit ${synchronous}), ${commits} commits: p50 ${ms(p50)} ms, p99 ${ms(percentile(samples, 0.99))} ms; meanwhile the idle node used ${idleNode(cpu)} cores, the rest of the machine ${cpu.otherCores.toFixed(2)}`);
    flagDisturbed('the PostgreSQL commit', cpu);
    return p50;
  } finally {
    await client.end();
  }
}

/** A durable one-row SQLite commit (WAL, synchronous=FULL, as the event store) in a file on the nodes' disk. */
export function sqliteCommitP50(commits: number, nodePids: number[]): number {
  const dir = mkdtempSync(join(tmpdir(), 'scale-out-commit-'));
  cleanup.dirs.push(dir);
  const db = new SqliteDatabase(join(dir, 'commit.sqlite'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    const body = 'x'.repeat(100);
    for (let i = 0; i < 100; i++) insert.run(body);
    const samples: number[] = [];
    const window = cpuWindow(nodePids);
    for (let i = 0; i < commits; i++) {
      const started = clock();
      insert.run(body); // one statement outside a transaction: one durable transaction
      samples.push(Number(clock() - started) / 1000);
    }
    const cpu = window.close();
    const p50 = percentile(samples, 0.5);
    log(`   durable one-row SQLite commit (WAL, synchronous=FULL), ${commits} commits: p50 ${ms(p50)} ms, p99 ${ms(percentile(samples, 0.99))} ms; meanwhile the idle node used ${idleNode(cpu)} cores, the rest of the machine ${cpu.otherCores.toFixed(2)}`);
    flagDisturbed('the SQLite commit', cpu);
    return p50;
  } finally {
    db.close();
  }
}
