/**
 * Jest global setup: the module workers' TypeScript cache filled once (the worker threads of every app a suite starts,
 * WORKER_THREADS, load the whole module graph through src/platform/workers/typescript-loader.js: on a fresh checkout
 * two test workers compiling it at once took longer than a suite's 30-s hook), then the Kafka broker (kafka/).
 */
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const { Worker } = require('node:worker_threads');
const kafka = require('./kafka/global-setup');

const ROOT = join(__dirname, '..', '..');

function sources(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

function warmWorkerCache() {
  const files = [join(ROOT, 'src'), join(ROOT, 'projections'), join(ROOT, 'test', 'support')].flatMap(sources);
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(ROOT, 'src', 'platform', 'workers', 'typescript-loader.js'), { workerData: { warm: files } });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the worker TypeScript cache warm-up exited with ${code}`))));
  });
}

module.exports = async (globalConfig, projectConfig) => {
  // Only where an app boots: a run of the pure suites alone (jest test/unit) starts none.
  const pattern = globalConfig && globalConfig.testPathPattern;
  if (!pattern || !/^test\/unit\/?$/.test(pattern)) await warmWorkerCache();
  return kafka(globalConfig, projectConfig);
};
