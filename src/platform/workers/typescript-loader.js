/**
 * The TypeScript loader of a module worker under the tests (module-worker.ts): a worker thread does not inherit
 * ts-jest, so it compiles the `.ts` files it requires with `typescript`'s transpiler (a development dependency, never
 * reached in a build, where the worker runs the compiled `.js`), caching each file's output on disk by its content.
 *
 * With `warm` (a list of files) it only fills that cache and ends: the tests' global setup runs it once, so the
 * workers of a fresh checkout do not each spend seconds compiling the whole module graph on their first start.
 */
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const os = require('node:os');

const typescript = require.resolve('typescript');
const cacheDir = path.join(os.tmpdir(), 'platform-worker-ts-cache');
const tsVersion = require(path.join(path.dirname(typescript), '..', 'package.json')).version;
let ts;

function compiled(filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = path.join(cacheDir, createHash('sha256').update(tsVersion + '\0' + filename + '\0' + source).digest('hex') + '.js');
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require(typescript);
    const output = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, emitDecoratorMetadata: true },
    }).outputText;
    fs.mkdirSync(cacheDir, { recursive: true });
    const partial = cached + '.' + process.pid + '.' + require('node:worker_threads').threadId;
    fs.writeFileSync(partial, output);
    fs.renameSync(partial, cached);
    return output;
  }
}

if (workerData.warm) {
  for (const file of workerData.warm) compiled(file);
} else {
  require.extensions['.ts'] = (module, filename) => module._compile(compiled(filename), filename);
  require(workerData.entry);
}
