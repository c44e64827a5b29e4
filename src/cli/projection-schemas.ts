/**
 * `npm run projection-schemas` writes the JSON Schema of every projection topic whose values are an API record
 * (docs/schemas/projection-<read-model>.schema.json) from the contract its outbox declares and the OpenAPI document
 * (docs/openapi.json, itself generated from the DTOs): src/platform/kafka/projection-contracts.ts. `--check` exits 1
 * when a committed file is not what the code declares (the test suite checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { READ_MODELS } from '../../projections';
import { publicationsOf } from '../platform/outbox/outbox';
import { projectionSchema, projectionSchemaPath, schemaText, type OpenApiDocument } from '../platform/kafka/projection-contracts';
import { REPO_ROOT } from './generated-doc';

/** Every published table: its topic's read model and the schema file's expected text (null: by hand). */
export function projectionSchemaFiles(openapi: OpenApiDocument): Array<{ readModel: string; path: string; text: string | null }> {
  return READ_MODELS.flatMap((m) => publicationsOf(new m.projector())).map(({ outbox }) => ({
    readModel: outbox.readModel,
    path: projectionSchemaPath(outbox.readModel),
    text: outbox.contract.component ? schemaText(projectionSchema(outbox.readModel, outbox.contract, openapi)) : null,
  }));
}

function main(): void {
  const check = process.argv.includes('--check');
  const openapi = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/openapi.json'), 'utf8')) as OpenApiDocument;
  let stale = 0;
  for (const f of projectionSchemaFiles(openapi)) {
    if (f.text === null) continue;
    const file = join(REPO_ROOT, f.path);
    let committed = '';
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      /* new */
    }
    if (committed === f.text) continue;
    stale++;
    if (check) process.stderr.write(`${f.path} is not what the contract declares: run npm run projection-schemas\n`);
    else {
      writeFileSync(file, f.text);
      process.stdout.write(`wrote ${f.path}\n`);
    }
  }
  if (check && stale > 0) process.exit(1);
  if (stale === 0) process.stdout.write('projection schemas are up to date\n');
}

if (require.main === module) main();
