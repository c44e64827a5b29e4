import 'reflect-metadata';
import { createApp } from './app.factory';
import { loadPlatformConfig } from './platform/config/platform-config';

async function main(): Promise<void> {
  const config = loadPlatformConfig();
  const app = await createApp({ config });
  await app.listen({ port: config.port, host: config.host });
  const store = config.eventStoreConnectionString ? 'EventStoreDB' : config.eventStoreUrl ? `PostgreSQL (schema ${config.eventStoreSchema})` : `SQLite (${config.dataDir}/events.sqlite)`;
  const readModels = config.databaseUrl ? 'PostgreSQL' : `SQLite (${config.dataDir}/read.sqlite)`;
  process.stdout.write(
    JSON.stringify({ level: 30, time: Date.now(), msg: `listening on http://${config.host}:${config.port} — events: ${store}; read models: ${readModels}; API docs at /docs` }) + '\n',
  );
}

main().catch((error: unknown) => {
  // Config errors name the variable and a refusal (an unsafe DATA_DIR) says what to do: their message is the answer.
  // Anything else is a start-up failure worth its stack on stderr.
  const plain = error instanceof Error && (error.name === 'StartupRefused' || error.message.startsWith('Invalid environment'));
  process.stderr.write(`${error instanceof Error ? (plain ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
  process.exit(1);
});
