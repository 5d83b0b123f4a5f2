import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkShape } from '../../src/ascode/shape.js';
import { ACCESS } from '../../src/tour/chapters/ascode.js';
import { ROOT } from '../helpers/svc.js';

// The published JSON Schema of access files (docs/svc-config.schema.json, issue 14): every
// example of the README and the tour fits it, and svc's own check agrees with a standard
// validator (Ajv, draft 2020-12) on what fits and what does not.
const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'svc-config.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(schema);

/** The README's YAML examples that are access files. */
function readmeExamples(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((text) => /^version: 1$/m.test(text));
}

describe('docs/svc-config.schema.json', () => {
  it('is a valid draft 2020-12 schema', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(ajv.validateSchema(schema)).toBe(true);
  });

  const examples: Array<[string, string]> = [
    ...readmeExamples().map((text, i): [string, string] => [`README example ${i + 1}`, text]),
    ['the tour', ACCESS],
  ];
  it.each(examples)('%s fits the schema, and svc finds nothing wrong with its shape', (_name, text) => {
    const value = parse(text);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(checkShape(value)).toEqual([]);
  });

  it('has README examples to check', () => {
    expect(readmeExamples().length).toBeGreaterThan(0);
  });

  it.each([
    ['a grant with user and users', { role: 'r', user: 'a', users: ['b'] }],
    ['a grant with neither', { role: 'r' }],
    [
      'a grant with two expiries',
      { role: 'r', user: 'a', expires_at: '2030-01-01T00:00:00Z', expires_in: '7d' },
    ],
    ['a bad duration', { role: 'r', user: 'a', expires_in: '2 weeks' }],
    ['a secret', { role: 'r', user: 'a', client_secret: 'x' }],
    ['an unknown field', { role: 'r', user: 'a', expire_in: '7d' }],
  ])('Ajv and svc agree that %s does not fit', (_name, grant) => {
    const value = { version: 1, blocks: [{ tenants: 'all', grants: [grant] }] };
    expect(validate(value)).toBe(false);
    expect(checkShape(value).length).toBeGreaterThan(0);
  });

  it.each([
    ['the wrong version', { version: 2, blocks: [] }],
    ['no blocks', { version: 1 }],
    ['tenants as a number', { version: 1, blocks: [{ tenants: 7 }] }],
    ['a manage scope that does not exist', { version: 1, manage: { grants: 'some' }, blocks: [] }],
    [
      'an empty permission list',
      { version: 1, blocks: [{ tenants: 'all', roles: [{ name: 'ops', permissions: [] }] }] },
    ],
    [
      'an event kind that does not exist',
      { version: 1, blocks: [{ tenants: 'all', webhooks: [{ url: 'https://x', event_types: ['nope'] }] }] },
    ],
  ])('Ajv and svc agree that a file with %s does not fit', (_name, value) => {
    expect(validate(value)).toBe(false);
    expect(checkShape(value).length).toBeGreaterThan(0);
  });
});
