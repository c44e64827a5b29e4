/**
 * The committed OpenAPI document passes openapi-generator's own validation (issue 20): the tool integrators generate
 * clients with, pinned, from Maven Central (test/infra/openapi/generator.sh).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

it('openapi-generator validate finds no issue in docs/openapi.json', async () => {
  const { code, out } = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile('bash', [join(ROOT, 'test/infra/openapi/generator.sh'), 'validate', '-i', join(ROOT, 'docs/openapi.json')], { cwd: ROOT, timeout: 240_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
  expect([code, out.trim().split('\n').slice(-3).join('\n')]).toEqual([0, expect.stringContaining('No validation issues detected.')]);
}, 300_000);
