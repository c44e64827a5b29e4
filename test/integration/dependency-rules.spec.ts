/**
 * The dependency rules of docs/architecture.md, enforced (dependency-cruiser, pinned; .dependency-cruiser.cjs): the
 * code base has no violation at all (no known-violations baseline), and the check does catch a planted violation of
 * each kind, naming the rule and how to fix it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

function cruise(cwd: string, args: string[]): Promise<{ violations: Violation[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(join(ROOT, 'node_modules/.bin/depcruise'), ['--config', CONFIG, '--output-type', 'json', ...args], { cwd, timeout: 120_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      try {
        const report = JSON.parse(stdout) as { summary: { violations: Violation[] } };
        resolve({ violations: report.summary.violations, stderr });
      } catch {
        reject(new Error(`depcruise gave no report: ${error?.message ?? ''} ${stderr}`));
      }
    });
  });
}

describe('dependency rules', () => {
  it('holds on src and projections: no violation, none ignored', async () => {
    const { violations } = await cruise(ROOT, ['src', 'projections']);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
    expect(existsSync(join(ROOT, '.dependency-cruiser-known-violations.json'))).toBe(false);
  }, 120_000);

  it('no source file is over 500 lines (outside generated files and migrations): one concern per file', () => {
    const long: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !/\/migrations\//.test(path)) {
          const lines = readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1;
          if (lines > 500) long.push(`${path}: ${lines} lines`);
        }
      }
    };
    walk('src');
    walk('projections');
    expect(long).toEqual([]);
  });

  it('catches a planted violation of each kind, naming the rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'depcruise-'));
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    try {
      file('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', strict: true } }));
      file('src/platform/planted.ts', "import { x } from '../modules/wallets/internal';\nexport const y = x;\n");
      file('src/modules/wallets/internal.ts', "export const x = 1;\n");
      file('src/modules/wallets/domain/events.ts', "export type E = { type: 'X' };\n");
      file('src/modules/shop/uses-wallet-code.ts', "import { x } from '../wallets/internal';\nimport type { E } from '../wallets/domain/events';\nexport const z: E | number = x;\n");
      file('src/modules/shop/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
      file('src/modules/shop/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
      file('src/modules/notifications/rules.ts', "import type { E } from '../wallets/domain/events';\nexport const r: E[] = [];\n");
      file('projections/notification-inbox/read-model.ts', "import type { E } from '../../src/modules/wallets/domain/events';\nexport const n: E[] = [];\n");
      file('projections/identity-accounts/read-model.ts', "import { x } from '../../src/modules/identity/queries';\nexport const q = x;\n");
      file('src/modules/identity/queries.ts', "export const x = 1;\n");
      file('src/modules/notifications/domain/rule-port.ts', "export type NotificationRules = { source: string };\n");
      file('src/modules/notifications/domain/notification.ts', "export type NotificationDraft = { type: string };\n");
      file('src/modules/shop/domain/notification-rules.ts', "import type { NotificationRules } from '../../notifications/domain/rule-port';\nimport type { NotificationDraft } from '../../notifications/domain/notification';\nexport const rules: NotificationRules[] = [];\nexport const d: NotificationDraft[] = [];\n");
      // A package to resolve, as better-sqlite3 does in the real tree.
      file('node_modules/better-sqlite3/package.json', JSON.stringify({ name: 'better-sqlite3', main: 'lib/index.js', types: 'index.d.ts' }));
      file('node_modules/better-sqlite3/lib/index.js', 'module.exports = class Database {};\n');
      file('node_modules/better-sqlite3/index.d.ts', 'declare class Database { constructor(f: string); }\ndeclare namespace Database { type Options = object; }\nexport = Database;\n');
      file('src/platform/event-store/opens-sqlite.ts', "import Database from 'better-sqlite3';\nimport type Types from 'better-sqlite3';\nexport const open = (f: string, o: Types.Options): Database => new Database(f);\n");
      file('src/platform/event-store/types-only.ts', "import type Database from 'better-sqlite3';\nexport type D = Database.Options;\n");
      const { violations } = await cruise(dir, ['src', 'projections']);
      const seen = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
      expect(seen).toEqual(
        expect.arrayContaining([
          'platform-imports-no-module: src/platform/planted.ts -> src/modules/wallets/internal.ts',
          'module-imports-only-published-event-types-of-others: src/modules/shop/uses-wallet-code.ts -> src/modules/wallets/internal.ts',
          'no-circular: src/modules/shop/a.ts -> src/modules/shop/b.ts',
          'notifications-imports-no-other-module: src/modules/notifications/rules.ts -> src/modules/wallets/domain/events.ts',
          'notifications-imports-no-other-module: projections/notification-inbox/read-model.ts -> src/modules/wallets/domain/events.ts',
          'projections-of-identity-import-their-module-domain-and-the-platform: projections/identity-accounts/read-model.ts -> src/modules/identity/queries.ts',
          'modules-reach-notifications-through-its-rule-port: src/modules/shop/domain/notification-rules.ts -> src/modules/notifications/domain/notification.ts',
          'sqlite-through-the-driver: src/platform/event-store/opens-sqlite.ts -> node_modules/better-sqlite3/lib/index.js',
        ]),
      );
      // better-sqlite3's types may be imported anywhere.
      expect(seen.some((s) => s.includes('types-only.ts'))).toBe(false);
      // The port itself is what a module may import.
      expect(seen.some((s) => s.includes('shop/domain/notification-rules.ts -> src/modules/notifications/domain/rule-port.ts'))).toBe(false);
      // Another module's domain event types are allowed.
      expect(seen.some((s) => s.startsWith('module-imports-only-published-event-types-of-others') && s.endsWith('domain/events.ts') && s.includes('shop'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
