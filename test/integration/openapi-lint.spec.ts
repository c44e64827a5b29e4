/**
 * The committed OpenAPI document under the two linters integrators use (issue 20): Spectral's `spectral:oas` and
 * Redocly's `recommended`, both pinned; any error fails the run. Remaining warnings are listed with their reasons in
 * .spectral.yaml and redocly.yaml.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const DOC = join(ROOT, 'docs/openapi.json');
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, timeout: 120_000, maxBuffer: 32 << 20, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('OpenAPI lint', () => {
  it('Spectral (spectral:oas) reports no error', async () => {
    const r = await run(bin('spectral'), ['lint', DOC, '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet']);
    const problems: Array<{ severity: number; code: string; path: string[] }> = JSON.parse(r.stdout || '[]');
    // severity 0 is an error in Spectral's JSON output.
    expect(problems.filter((p) => p.severity === 0).map((p) => `${p.code} ${p.path.join('.')}`)).toEqual([]);
    expect(problems.every((p) => p.code === 'operation-description')).toBe(true);
  }, 120_000);

  it('Redocly (recommended) reports no error', async () => {
    const r = await run(bin('redocly'), ['lint', DOC, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '10000']);
    const report: { problems: Array<{ severity: string; ruleId: string; location: Array<{ pointer: string }> }> } = JSON.parse(r.stdout);
    expect(report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}`)).toEqual([]);
    // No warning either: every operation declares its 4xx answers.
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}`)).toEqual([]);
  }, 120_000);
});
