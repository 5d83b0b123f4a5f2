import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { readEntries } from '../../src/ascode/entries.js';
import { checkShape } from '../../src/ascode/shape.js';
import { parseSource } from '../../src/ascode/source.js';
import { ROOT } from '../helpers/svc.js';

// The published schema refuses what svc plan refuses wherever JSON Schema 2020-12 can say it
// (review s13, ascode F1: a schema lint in CI or an editor passed twelve kinds of file svc plan
// then refused). Each case is checked by a standard validator (Ajv with formats, as editors and
// CI linters check) and by svc's own reading of the file.
const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'svc-config.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validate = ajv.compile(schema);

function svcProblems(value: unknown): string[] {
  const parsed = parseSource('a.json', Buffer.from(JSON.stringify(value, null, 1)));
  if (!parsed.ok) return parsed.problems.map((p) => p.message);
  const shape = checkShape(parsed.source.value);
  return [
    ...shape.map((p) => p.message),
    ...readEntries(parsed.source, shape).problems.map((p) => p.message),
  ];
}

const T = 'acme-labs';
const role = (r: object) => ({
  version: 1,
  blocks: [{ tenants: T, roles: [{ name: 'ci-role', permissions: ['exception.read'], ...r }] }],
});
const grant = (g: object) => ({
  version: 1,
  blocks: [{ tenants: T, grants: [{ user: 'usr_bulk_000001', role: 'tenant_viewer', ...g }] }],
});
const webhook = (w: object) => ({
  version: 1,
  blocks: [
    { tenants: T, webhooks: [{ url: 'https://h.example.com/x', event_types: ['exception.created'], ...w }] },
  ],
});
const client = (o: object) => ({
  version: 1,
  blocks: [
    {
      tenants: T,
      oauth_clients: [
        { name: 'cx', redirect_uris: ['https://p.example.com/cb'], scopes: ['read:tenants'], ...o },
      ],
    },
  ],
});

describe('the schema and svc plan agree', () => {
  it.each([
    ['a role name starting with tenant_', role({ name: 'tenant_x' }), 'names starting with tenant_'],
    ['a role name starting with role_', role({ name: 'role_x' }), 'names starting with role_'],
    ['a role name starting with usr_', role({ name: 'usr_x' }), 'names starting with usr_'],
    ['expires_in 0d', grant({ expires_in: '0d' }), 'longer than zero'],
    ['expires_in 366d', grant({ expires_in: '366d' }), 'longer than 365 days'],
    ['expires_in 8761h', grant({ expires_in: '8761h' }), 'longer than 365 days'],
    ['expires_in 525601m', grant({ expires_in: '525601m' }), 'longer than 365 days'],
    [
      'a leap second',
      grant({ expires_at: '2027-06-30T23:59:60Z' }),
      '"expires_at" "2027-06-30T23:59:60Z" is a leap second (second 60), which the platform does not take; give 2027-06-30T23:59:59Z or the next second',
    ],
    ['a justification of spaces', grant({ justification: '   ' }), 'must not be empty'],
    [
      'a justification of invisible characters',
      grant({ justification: '\u200b \u2800' }),
      '"justification" must say why: it holds only invisible characters (U+200B, U+0020, U+2800); write the reason in words',
    ],
    ['an ftp webhook URL', webhook({ url: 'ftp://h.example.com/x' }), 'must use http or https'],
    [
      'a webhook URL with a password',
      webhook({ url: 'https://u:p@h.example.com/x' }),
      'must not carry a user',
    ],
    ['an http redirect URI off loopback', client({ redirect_uris: ['http://p.example.com/cb'] }), 'loopback'],
    [
      'grant_types of refresh_token alone',
      client({ grant_types: ['refresh_token'] }),
      'needs authorization_code',
    ],
  ])('both refuse %s', (_name, value, words) => {
    expect(validate(value)).toBe(false);
    expect(svcProblems(value).join('\n')).toContain(words);
  });

  it.each([
    ['a role name with an inner tenant_', role({ name: 'ops-tenant_x' })],
    ['expires_in 365d', grant({ expires_in: '365d', justification: 'x' })],
    ['expires_in 8760h', grant({ expires_in: '8760h', justification: 'x' })],
    ['second 59', grant({ expires_at: '2027-06-30T23:59:59Z' })],
    ['an http webhook URL', webhook({ url: 'HTTP://h.example.com/x' })],
    [
      'an http redirect URI on loopback',
      client({ redirect_uris: ['http://127.0.0.1:8080/cb', 'http://localhost/cb'] }),
    ],
    ['both grant types', client({ grant_types: ['refresh_token', 'authorization_code'] })],
  ])('both accept %s', (_name, value) => {
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(svcProblems(value)).toEqual([]);
  });
});
