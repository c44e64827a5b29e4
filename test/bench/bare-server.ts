/**
 * The HTTP benchmarks' bare NestJS-on-Fastify app (http-harness.ts: no auth, no validation, no store) as a server
 * process of its own on PORT, so a process benchmark (threads.bench.ts) measures its baseline the way it measures the
 * platform: in another process than the clients, its CPU read from /proc the same way.
 */
import 'reflect-metadata';
import { startBareApp } from './http-harness';

startBareApp(Number(process.env.PORT)).catch((error: unknown) => {
  process.stderr.write(`bare server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
