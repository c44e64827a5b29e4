/**
 * A client generated from the committed OpenAPI document proves it (issue 20): openapi-generator (typescript-fetch,
 * pinned, Maven Central) generates it, tsc --strict compiles it with the walk (test/infra/openapi/client-walk), and
 * the walk runs against a listening server: register, activate, sign in, list markets, place an order, read it back,
 * cancel it, read a notification, push a price provider's quotes with its key (the apiKey scheme), each result used
 * through its generated type.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { adminHeaders, TEST_ADMIN, until } from '../support/traders';

const ROOT = join(__dirname, '../..');

function run(command: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 240_000, maxBuffer: 32 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('a client generated from docs/openapi.json', () => {
  let dir: string;
  let t: TestApp;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'client-walk-'));
    t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    await t.app.listen(0, '127.0.0.1');
    await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('compiles under tsc --strict and walks register → activate → sign in → markets → order → read back → cancel → notification', async () => {
    const generated = await run('bash', [join(ROOT, 'test/infra/openapi/generator.sh'), 'generate', '-i', join(ROOT, 'docs/openapi.json'), '-g', 'typescript-fetch', '-o', join(dir, 'client'), '--additional-properties=supportsES6=true'], dir);
    expect([generated.code, generated.code === 0 ? '' : generated.out.slice(-2000)]).toEqual([0, '']);
    copyFileSync(join(ROOT, 'test/infra/openapi/client-walk/walk.ts'), join(dir, 'walk.ts'));
    const compiled = await run(
      join(ROOT, 'node_modules/.bin/tsc'),
      ['--strict', '--target', 'ES2022', '--module', 'commonjs', '--moduleResolution', 'node', '--lib', 'ES2022,DOM', '--skipLibCheck', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types'), '--outDir', 'out', 'walk.ts'],
      dir,
    );
    expect([compiled.code, compiled.out]).toEqual([0, '']);
    const port = (t.app.getHttpServer().address() as { port: number }).port;
    const walked = await run(process.execPath, [join(dir, 'out/walk.js'), `http://127.0.0.1:${port}`, t.config.dataDir, TEST_ADMIN.email, TEST_ADMIN.password], dir);
    expect([walked.code, walked.out]).toEqual([0, expect.stringContaining('walk complete')]);
    for (const step of ['ok registered', 'ok activated', 'ok signed in', 'markets, BTC-PERP', 'ok placed', 'read back: OPEN', 'ok cancelled', 'read back: CANCELLED', 'ok notification SECURITY_NEW_DEVICE_SIGN_IN', 'ok notification read', 'ok provider quotes accepted with the provider key', 'ok provider quotes without the key: 401']) {
      expect(walked.out).toContain(step);
    }
  }, 300_000);
});
