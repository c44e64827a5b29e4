/**
 * A worker thread running one of the platform's own modules. In a build that is the module's compiled `.js`. The
 * tests run the TypeScript sources through ts-jest, which a worker thread does not inherit: there the worker loads
 * the `.ts` files through `typescript`'s transpiler (a development dependency, never reached in a build), caching each
 * file's output on disk by its content so only the first worker of a run pays for the transpiler.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, workerData } from 'node:worker_threads';

/** What a module worker is given, wrapped so the TypeScript loader can travel with it. */
interface ModuleWorkerData<T> {
  data: T;
  entry?: string;
  typescript?: string;
  cacheDir?: string;
}

/** `modulePath` without extension: `join(__dirname, 'my.worker')`. */
export function startModuleWorker<T>(modulePath: string, data: T): Worker {
  if (existsSync(`${modulePath}.js`)) return new Worker(`${modulePath}.js`, { workerData: { data } satisfies ModuleWorkerData<T> });
  const loader: ModuleWorkerData<T> = {
    data,
    entry: `${modulePath}.ts`,
    typescript: require.resolve('typescript'),
    cacheDir: join(tmpdir(), 'platform-worker-ts-cache'),
  };
  return new Worker(TYPESCRIPT_LOADER, { eval: true, workerData: loader });
}

/** Inside a module worker: the data it was started with. */
export function moduleWorkerData<T>(): T {
  return (workerData as ModuleWorkerData<T>).data;
}

const TYPESCRIPT_LOADER = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const tsVersion = require(path.join(path.dirname(workerData.typescript), '..', 'package.json')).version;
let ts;
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = path.join(workerData.cacheDir, createHash('sha256').update(tsVersion + '\\0' + filename + '\\0' + source).digest('hex') + '.js');
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require(workerData.typescript);
    output = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, emitDecoratorMetadata: true },
    }).outputText;
    fs.mkdirSync(workerData.cacheDir, { recursive: true });
    const partial = cached + '.' + process.pid + '.' + require('node:worker_threads').threadId;
    fs.writeFileSync(partial, output);
    fs.renameSync(partial, cached);
  }
  module._compile(output, filename);
};
require(workerData.entry);
`;
