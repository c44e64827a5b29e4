/**
 * A worker thread running one of the platform's own modules. In a build that is the module's compiled `.js`. The
 * tests run the TypeScript sources through ts-jest, which a worker thread does not inherit: there the worker loads
 * the `.ts` files through `typescript`'s transpiler (typescript-loader.js; a development dependency, never reached in
 * a build), caching each file's output on disk by its content so only the first worker of a run pays for it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, workerData } from 'node:worker_threads';

/** What a module worker is given, wrapped so the TypeScript loader can travel with it. */
interface ModuleWorkerData<T> {
  data: T;
  entry?: string;
  /** typescript-loader.js: only compile these into the cache. */
  warm?: string[];
}

/** `modulePath` without extension: `join(__dirname, 'my.worker')`. */
export function startModuleWorker<T>(modulePath: string, data: T): Worker {
  if (existsSync(`${modulePath}.js`)) return new Worker(`${modulePath}.js`, { workerData: { data } satisfies ModuleWorkerData<T> });
  return new Worker(TYPESCRIPT_LOADER, { workerData: { data, entry: `${modulePath}.ts` } satisfies ModuleWorkerData<T> });
}

/** Inside a module worker: the data it was started with. */
export function moduleWorkerData<T>(): T {
  return (workerData as ModuleWorkerData<T>).data;
}

/**
 * Plain JavaScript, so a worker can run it before anything is compiled. The tests' global setup runs it once with
 * `warm` (test/infra/global-setup.js), so a fresh checkout's first workers start from its cache.
 */
const TYPESCRIPT_LOADER = join(__dirname, 'typescript-loader.js');
