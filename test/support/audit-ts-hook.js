/**
 * Runs TypeScript sources under plain Node for tests that start a CLI as a child process (what ts-node would do,
 * without the dependency): `node -r ./test/support/audit-ts-hook.js src/cli/audit.ts …`. Each file is transpiled
 * on its own with TypeScript's transpileModule, the same isolated-module settings Jest uses (no type check).
 */
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

// Transpiled files are cached by content (and TypeScript version): a CLI started many times in a suite compiles once,
// and a warm start does not even load TypeScript.
const TS_VERSION = require('typescript/package.json').version;
const CACHE = join(tmpdir(), `audit-ts-hook-${TS_VERSION}`);
mkdirSync(CACHE, { recursive: true });
let ts = null;

const compilerOptions = () => ({
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  isolatedModules: true,
  inlineSourceMap: true,
});

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = readFileSync(filename, 'utf8');
  const cached = join(CACHE, `${createHash('sha256').update(filename).update('\0').update(source).digest('hex')}.js`);
  let output;
  try {
    output = readFileSync(cached, 'utf8');
  } catch {
    ts = ts || require('typescript');
    output = ts.transpileModule(source, { fileName: filename, compilerOptions: compilerOptions() }).outputText;
    const temp = `${cached}.${process.pid}.tmp`;
    writeFileSync(temp, output);
    renameSync(temp, cached);
  }
  module._compile(output, filename);
};
