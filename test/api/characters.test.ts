import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { characters, invisibleIn, unicodeEscape } from '../../src/api/characters.js';
import { checkShape } from '../../src/ascode/shape.js';
import { justificationFlag } from '../../src/commands/roles/assign.js';
import { fileRows } from '../../src/commands/roles/rows.js';
import { parseApiKeyCreate } from '../../src/commands/tenants/api-keys/create.js';
import { secretSpellings } from '../../src/http/redact.js';
import { escapeForTerminal, escapeJsonForTerminal, jsonOneLine } from '../../src/output/sanitize.js';
import { roleOf } from '../helpers/bulk.js';
import { tempDir } from '../helpers/temp.js';

// Finding tenants 5 (s10): svc counted its length limits in UTF-16 units, the platform's JSON
// Schema maxLength/minLength counts characters (code points). An emoji is one character: 60 of
// them are a name the platform takes, 6 are a justification it refuses.
const emoji = (n: number) => '🎉'.repeat(n);

describe('length limits count characters, as the platform does', () => {
  it('counts code points', () => {
    expect(characters(emoji(60))).toBe(60);
    expect(characters('ab')).toBe(2);
    expect(characters('')).toBe(0);
  });

  it('api-keys create: --name and --justification within their limits in characters', () => {
    expect(parseApiKeyCreate('acme', { kind: 'publishable', name: emoji(60) }).name).toBe(emoji(60));
    expect(() => parseApiKeyCreate('acme', { kind: 'publishable', name: emoji(101) })).toThrow(
      '--name is longer than 100 characters',
    );
    const justification = emoji(300);
    expect(
      parseApiKeyCreate('acme', { kind: 'service_role', justification, showSecret: true }).justification,
    ).toBe(justification);
    expect(() => parseApiKeyCreate('acme', { kind: 'service_role', justification: emoji(6) })).toThrow(
      '--justification must say why, in at least 10 characters',
    );
  });

  it('roles assign: --justification of 600 emoji passes, 1001 does not', () => {
    expect(justificationFlag(emoji(600))).toBe(emoji(600));
    expect(() => justificationFlag(emoji(1001))).toThrow('--justification is longer than 1000 characters');
  });

  it('roles assign --file: a row justification of 600 emoji is no problem', async () => {
    const path = join(tempDir('svc-chars-'), 'f.csv');
    writeFileSync(
      path,
      `user,role,expires_in,justification\nu1,tenant_viewer,1h,${emoji(600)}\nu2,tenant_viewer,1h,${emoji(1001)}\n`,
    );
    const problems: string[] = [];
    const rules = {
      kind: 'assign' as const,
      roles: [roleOf('tenant_viewer')],
      defaults: {},
      anchorMs: Date.parse('2026-01-15T09:30:00Z'),
      nowMs: Date.parse('2026-01-15T09:30:00Z'),
    };
    for await (const event of fileRows(path, 'f.csv', rules, { duplicates: true })) {
      if (!('row' in event)) for (const message of event.problems) problems.push(`${event.line}: ${message}`);
    }
    expect(problems).toEqual(['3: justification is longer than 1000 characters']);
  });

  it('access files: a role description of 300 emoji fits, 501 does not', () => {
    const file = (description: string) => ({
      version: 1,
      blocks: [{ tenants: 'all', roles: [{ name: 'ops', description, permissions: ['rule.read'] }] }],
    });
    expect(checkShape(file(emoji(300)))).toEqual([]);
    expect(checkShape(file(emoji(501))).map((p) => p.message)).toEqual([
      expect.stringContaining('is longer than 500 characters'),
    ]);
  });
});

// One `\uXXXX` escape for the id message, the terminal sanitizer and a secret's JSON spellings
// (session 21's fold): each keeps its own output, `\xad` where the sanitizer writes it.
describe('unicodeEscape and the three places that write the escape', () => {
  it('writes lower-case hex, four digits at least, one escape per code point given', () => {
    expect(['\u00ad', '\u2028', '\ufeff', '\u{e0001}', '\ud83c'].map(unicodeEscape)).toEqual([
      '\\u00ad',
      '\\u2028',
      '\\ufeff',
      '\\ue0001',
      '\\ud83c',
    ]);
  });

  it('keeps each output as it was', () => {
    expect(invisibleIn('user', 'usr_\u00ad1\u{e0001}')).toBe(
      'user "usr_\\u00ad1\\ue0001" holds an invisible character (U+00AD SOFT HYPHEN) at 5: type the id again, or delete that character',
    );
    expect(escapeForTerminal('a\u00ad\u0085\u2028b')).toBe('a\u00ad\\x85\\u2028b');
    expect(escapeJsonForTerminal('"\u00ad\u202e"')).toBe('"\\u00ad\\u202e"');
    expect(jsonOneLine('"\u0085\u2029"')).toBe('"\\u0085\\u2029"');
    expect(secretSpellings('s\u00e9\u{1f389}')).toContain('s\\u00e9\\ud83c\\udf89');
    expect(secretSpellings('s\u00e9\u{1f389}')).toContain('s\\u00E9\\uD83C\\uDF89');
  });
});
