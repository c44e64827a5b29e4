/**
 * The generated part of a document (docs/privacy.md, docs/commerce.md): the text between two markers, written from
 * what the code declares by `npm run <command>`; `--check` fails when the committed part is not what the code declares
 * (the test suite checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root, from src/cli (ts-node, jest) or dist/src/cli (the build). */
export const REPO_ROOT = resolve(__dirname, __dirname.split(/[\\/]/).includes('dist') ? '../../..' : '../..');

export interface GeneratedDoc {
  /** Relative to the repository's root, e.g. docs/privacy.md. */
  path: string;
  begin: string;
  end: string;
  /** The npm script that writes it. */
  command: string;
  /** Where the tables come from, for the message of a stale document. */
  source: string;
}

export const generatedDocFile = (g: GeneratedDoc): string => join(REPO_ROOT, g.path);

/** `doc` with its generated part replaced by `body` (one blank line on either side). */
export function withGeneratedPart(g: GeneratedDoc, doc: string, body: string): string {
  const from = doc.indexOf(g.begin);
  const to = doc.indexOf(g.end);
  if (from < 0 || to < from) throw new Error(`${g.path} lacks the markers ${g.begin} … ${g.end}`);
  return `${doc.slice(0, from + g.begin.length)}\n\n${body.trimEnd()}\n\n${doc.slice(to)}`;
}

/** The CLI: writes the document's generated part, or with `--check` exits 1 when it is stale. */
export function writeGeneratedDoc(g: GeneratedDoc, body: string): void {
  const file = generatedDocFile(g);
  const doc = readFileSync(file, 'utf8');
  const next = withGeneratedPart(g, doc, body);
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      process.stderr.write(`${g.path} is not what ${g.source} declares: run npm run ${g.command}\n`);
      process.exit(1);
    }
    return;
  }
  if (next !== doc) writeFileSync(file, next);
  process.stdout.write(`${next === doc ? 'unchanged' : 'wrote'} ${file}\n`);
}
