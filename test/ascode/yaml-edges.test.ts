import { afterEach, describe, expect, it, vi } from 'vitest';
import { Alias } from 'yaml';
import { checkShape } from '../../src/ascode/shape.js';
import { parseSource } from '../../src/ascode/source.js';

// YAML edges of an access file (review s13, ascode F11, F4): an anchor used often is not an
// attack, a file whose aliases expand without end is refused at its line naming the limit; a key
// that is not text is named as written at its line without a Node warning on stderr; a number a
// double cannot hold is shown as written; !!binary is binary data; %YAML 1.1 is not read.
function problemsOf(text: string, label = 'a.yaml'): string[] {
  const parsed = parseSource(label, Buffer.from(text));
  if (!parsed.ok) return parsed.problems.map((p) => `${p.line}: ${p.message}`);
  const { source } = parsed;
  return checkShape(source.value, (path) => source.written(path)).map(
    (p) => `${source.line(p.path)}: ${p.message}`,
  );
}

const grants = (n: number) => {
  const lines = ['version: 1', 'blocks:', '  - tenants: acme-labs', '    grants:'];
  for (let k = 1; k <= n; k++) {
    lines.push(`      - user: usr_bulk_${String(k).padStart(6, '0')}`, '        role: tenant_viewer');
    lines.push(`        justification: ${k === 1 ? '&why Q4 access review' : '*why'}`);
  }
  return `${lines.join('\n')}\n`;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('aliases', () => {
  it('an anchor used 500 times is read', () => {
    const parsed = parseSource('al.yaml', Buffer.from(grants(501)));
    expect(parsed.ok && (parsed.source.value as any).blocks[0].grants[500].justification).toBe(
      'Q4 access review',
    );
  });

  it("reads 20,000 aliases without the yaml package's per-alias walk of the document (quadratic)", () => {
    const resolve = vi.spyOn(Alias.prototype, 'resolve');
    const text = grants(20_001).replace('role: tenant_viewer', 'role: &r tenant_viewer');
    const aliased = text.replace(/role: tenant_viewer/g, 'role: *r');
    const parsed = parseSource('many.yaml', Buffer.from(aliased));
    expect(parsed.ok).toBe(true);
    const value = parsed.ok ? (parsed.source.value as any) : undefined;
    expect(value.blocks[0].grants[20_000]).toEqual({
      user: 'usr_bulk_020001',
      role: 'tenant_viewer',
      justification: 'Q4 access review',
    });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('an alias inside its own anchor is a file problem at its line, not a crash', () => {
    const rec = (value: string) =>
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: rec\n        permissions: ${value}\n`;
    expect(problemsOf(rec('&p [exception.read, *p]'))).toEqual([
      '6: *p is used inside its own anchor &p (a value that contains itself); write the values out',
    ]);
    expect(problemsOf(rec('&p [exception.read, [*p]]'))).toEqual([
      '6: *p is used inside its own anchor &p (a value that contains itself); write the values out',
    ]);
  });

  it('a file whose aliases expand without end is refused at the alias that crosses the limit', () => {
    const levels = ['version: 1', 'x0: &a0 [usr_bulk_000001, usr_bulk_000002]'];
    for (let i = 1; i <= 11; i++)
      levels.push(
        `x${i}: &a${i} [${Array(5)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    levels.push('blocks:', '  - tenants: acme-labs', '    grants:', '      - users: *a11', '        role: r');
    expect(problemsOf(`${levels.join('\n')}\n`)).toEqual([
      "10: the file's aliases expand to more than 1,000,000 values by *a7 here (svc reads at most that many: aliases nested in aliases grow without end); repeat the values instead",
    ]);
  });
});

describe('YAML edge cases', () => {
  const role = (extra: string) =>
    `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: ci-role\n        permissions: [exception.read]\n${extra}`;

  it('a list as a key: named as written at its line, no process warning', () => {
    const warn = vi.spyOn(process, 'emitWarning');
    expect(problemsOf(role('        ? [a, b]\n        : c\n'))).toEqual([
      '7: "[a, b]" is not a field of a role (fields: name, description, permissions)',
    ]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('a null key: named null at its line', () => {
    expect(problemsOf(role('        null: d\n'))).toEqual([
      '7: "null" is not a field of a role (fields: name, description, permissions)',
    ]);
  });

  it('!!binary is binary data', () => {
    const text =
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: ci-role\n        description: !!binary aGVsbG8=\n        permissions: [exception.read]\n';
    expect(problemsOf(text)).toEqual(['6: "description" must be text, not binary data (!!binary)']);
  });

  it('a number a double cannot hold is shown as written, in YAML and JSON', () => {
    const yaml =
      'version: 1\nblocks:\n  - tenants: acme-labs\n    oauth_clients:\n      - name: big\n        redirect_uris: [https://x.example/cb]\n        scopes: [read:tenants]\n        token_lifetime_seconds: 99999999999999999999\n';
    expect(problemsOf(yaml)).toEqual([
      '8: "token_lifetime_seconds" must be from 60 to 86400, not 99999999999999999999',
    ]);
    const json = `{"version": 1, "blocks": [{"tenants": "acme-labs", "oauth_clients": [{"name": "big",
 "redirect_uris": ["https://x.example/cb"], "scopes": ["read:tenants"],
 "token_lifetime_seconds": 99999999999999999999}]}]}`;
    expect(problemsOf(json, 'a.json')).toEqual([
      '3: "token_lifetime_seconds" must be from 60 to 86400, not 99999999999999999999',
    ]);
  });

  it('a number is named as written, and one a double reads otherwise is refused (attack27b F6)', () => {
    const client = (lifetime: string) =>
      `version: 1\nblocks:\n  - tenants: acme-labs\n    oauth_clients:\n      - name: big\n        redirect_uris: [https://x.example/cb]\n        scopes: [read:tenants]\n        token_lifetime_seconds: ${lifetime}\n`;
    const said = (lifetime: string) => problemsOf(client(lifetime));
    expect(said('3599.9999999999999')).toEqual([
      '8: "token_lifetime_seconds" must be a whole number, not 3599.9999999999999 (a double would read it as 3600)',
    ]);
    expect(said('3600.0000000000001')).toEqual([
      '8: "token_lifetime_seconds" must be a whole number, not 3600.0000000000001 (a double would read it as 3600)',
    ]);
    expect(said('3600.5')).toEqual(['8: "token_lifetime_seconds" must be a whole number, not 3600.5']);
    expect(said('.inf')).toEqual(['8: "token_lifetime_seconds" must be a whole number, not .inf']);
    expect(said('1e400')).toEqual(['8: "token_lifetime_seconds" must be a whole number, not 1e400']);
    expect(said('0x1000')).toEqual([
      '8: "token_lifetime_seconds" is 0x1000, which is not a decimal number; write it in decimal (4096)',
    ]);
    expect(said('0o7000')).toEqual([
      '8: "token_lifetime_seconds" is 0o7000, which is not a decimal number; write it in decimal (3584)',
    ]);
    // review27b L3: YAML 1.2's 3600. is decimal: said as "write it as", not "in decimal".
    expect(said('3600.')).toEqual([
      '8: "token_lifetime_seconds" is 3600., which is not how access files write a number (as JSON does); write it as 3600',
    ]);
    expect(said('3600')).toEqual([]);
    expect(said('3600.0')).toEqual([]);
    expect(said('36e2')).toEqual([]);
    // fixnum2: JSON's numerals are how access files write a number (the schema's type integer
    // takes 36e2 and 3600.0, as a JSON file has them); YAML 1.2's leading dot is not one: .36e4
    // was read as 3600 without a word, and .5 was named 0.5.
    expect(said('.36e4')).toEqual([
      '8: "token_lifetime_seconds" is .36e4, which is not how access files write a number (as JSON does); write it as 3600',
    ]);
    expect(said('-.36e4')).toEqual([
      '8: "token_lifetime_seconds" is -.36e4, which is not how access files write a number (as JSON does); write it as -3600',
    ]);
    expect(said('.5')).toEqual([
      '8: "token_lifetime_seconds" is .5, which is not how access files write a number (as JSON does); write it as 0.5',
    ]);
    expect(said('-.inf')).toEqual(['8: "token_lifetime_seconds" must be a whole number, not -.inf']);
    const json = `{"version": 1, "blocks": [{"tenants": "acme-labs", "oauth_clients": [{"name": "big",
 "redirect_uris": ["https://x.example/cb"], "scopes": ["read:tenants"],
 "token_lifetime_seconds": 3599.9999999999999}]}]}`;
    expect(problemsOf(json, 'a.json')).toEqual([
      '3: "token_lifetime_seconds" must be a whole number, not 3599.9999999999999 (a double would read it as 3600)',
    ]);
  });

  it('a tag the YAML reader leaves unread is named, with the fix (fixnum2)', () => {
    const client = (lifetime: string) =>
      `version: 1\nblocks:\n  - tenants: acme-labs\n    oauth_clients:\n      - name: big\n        redirect_uris: [https://x.example/cb]\n        scopes: [read:tenants]\n        token_lifetime_seconds: ${lifetime}\n`;
    // It said `"token_lifetime_seconds" must be a whole number, not text`.
    expect(problemsOf(client('!!float 3600'))).toEqual([
      '8: "token_lifetime_seconds" is 3600 tagged !!float, which YAML takes only on a number written with a fraction (it read 3600 as text, not a number); remove the tag: 3600',
    ]);
    expect(problemsOf(client('!<tag:yaml.org,2002:float> 3600'))).toEqual([
      '8: "token_lifetime_seconds" is 3600 tagged !<tag:yaml.org,2002:float>, which YAML takes only on a number written with a fraction (it read 3600 as text, not a number); remove the tag: 3600',
    ]);
    // A tag the reader resolves is read (the value is a number): the number rules apply as ever.
    expect(problemsOf(client('!!int 3600'))).toEqual([]);
    // A tag svc does not know was read as the text after it, without a word.
    const role =
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: ci-role\n        description: !note hello\n        permissions: [!perm exception.read]\n';
    expect(problemsOf(role)).toEqual([
      '6: "description" has the tag !note, which svc does not read (the value would be taken as text); remove the tag',
      '7: an item of "permissions" has the tag !perm, which svc does not read (the value would be taken as text); remove the tag',
    ]);
    // A tag on a list or a map was read as the plain list or map under it, without a word (review28a L3).
    const tagged =
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: ci-role\n        permissions: !custom [exception.read]\n      - !rolemap\n        name: other-role\n        permissions: !set\n          - exception.read\n';
    expect(problemsOf(tagged)).toEqual([
      '6: "permissions" has the tag !custom, which svc does not read (the list would be taken as a plain list); remove the tag',
      '7: an item of "roles" has the tag !rolemap, which svc does not read (the map would be taken as a plain map); remove the tag',
      '9: "permissions" has the tag !set, which svc does not read (the list would be taken as a plain list); remove the tag',
    ]);
    // A key's tag was not looked at: `!note name` was read as `name`, silently (session 28's closing note).
    const keys =
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - !note name: ci-role\n        !!float 3: x\n        ? !keymap {a: 1}\n        : y\n        !!str permissions: [exception.read]\n';
    expect(problemsOf(keys)).toEqual([
      '5: the key "name" has the tag !note, which svc does not read (the key would be taken as text); remove the tag',
      '6: the key "3" is 3 tagged !!float, which YAML takes only on a number written with a fraction (it read 3 as text, not a number); remove the tag: 3',
      '7: a key has the tag !keymap, which svc does not read (the map would be taken as a plain map); remove the tag',
    ]);
  });

  it('a %YAML 1.1 directive is refused in one line', () => {
    expect(problemsOf('%YAML 1.1\n---\nversion: 1\nblocks: []\n')).toEqual([
      '1: "%YAML 1.1" is not read: svc reads YAML 1.2 only; remove the line (and check values such as 010, 1:00:00, yes)',
    ]);
    expect(problemsOf('%YAML 1.2\n---\nversion: 1\nblocks:\n  - tenants: acme-labs\n')).toEqual([]);
  });
});
