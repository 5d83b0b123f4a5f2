import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from '../../src/cli.js';
import { openapiDocument } from '../../src/sandbox/server.js';
import { runInProcess } from '../helpers/context.js';
import { ROOT } from '../helpers/paths.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('checked-in generated files are current (run `npm run generate` after changing them)', () => {
  it('docs/openapi.json matches what the sandbox serves', async () => {
    const current = await openapiDocument();
    expect(JSON.parse(read('docs/openapi.json'))).toEqual(JSON.parse(JSON.stringify(current)));
  });

  it('completions/ and docs/cli.md match the command tree', async () => {
    for (const [file, text] of Object.entries(await generatedFiles())) expect(read(file), file).toBe(text);
  });

  it('is OpenAPI 3.1 and documents the error codes and the choices made', async () => {
    const doc = JSON.parse(read('docs/openapi.json'));
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc['x-error-codes'])).toContain('idempotency_key_reused');
    expect(doc['x-svc-choices'].length).toBeGreaterThan(5);
    for (const path of ['/v1/me', '/v1/tenants', '/v1/reconciliations', '/v1/reconciliations/{id}'])
      expect(doc.paths[path]).toBeDefined();
  });
});

describe('docs/cli.md says what --help says', () => {
  /** Words only: the two are wrapped at different widths. */
  const words = (text: string) => text.replace(/\s+/g, ' ').trim();
  const section = (path: string) => {
    const doc = read('docs/cli.md');
    const start = doc.indexOf('```text\n', doc.indexOf(`## ${path}\n`)) + '```text\n'.length;
    return doc.slice(start, doc.indexOf('\n```', start));
  };

  it('the top-level section is `svc --help` (its commands and their summaries)', async () => {
    const help = await runInProcess(['--help'], {});
    const commands = (text: string) => words(text.slice(text.indexOf('Getting started:')));
    expect(commands(section('svc'))).toBe(commands(help.stdout));
  });
});
