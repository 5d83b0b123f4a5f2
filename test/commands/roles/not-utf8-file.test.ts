/**
 * Bulk grant files (CSV and NDJSON) and access files (`svc plan`, `svc apply`) whose bytes are not
 * UTF-8 are refused, naming the line, the byte and its offset, and nothing is sent (s11 review-a
 * 4): they were read with U+FFFD in place of the byte, and "caf\uFFFD" reached the audit trail.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSource } from '../../../src/ascode/source.js';
import { readInput } from '../../../src/bulk/readers.js';
import { bulkRunner, bulkUser, posts } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { tempDir } from '../../helpers/temp.js';

const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);
const latin1 = (text: string) => Buffer.from(text, 'latin1');
const COLUMNS: Record<string, string> = {
  assign: '(columns: user, role, expires_in or expires_at, justification)',
  revoke: '(columns: user, role)',
};

describe('svc roles assign/revoke --file: bytes that are not UTF-8', () => {
  const csvHead = 'user,role,expires_in,justification\n';
  const row = (n: number, why: string) => `${bulkUser(n)},tenant_viewer,1h,${why}\n`;
  const line = (n: number, why: string) =>
    `${JSON.stringify({ user: bulkUser(n), role: 'tenant_viewer', expires_in: '1h', justification: why })}\n`;
  it.each([
    [
      'CSV',
      'bad.csv',
      latin1(`${csvHead}${row(1, 'ok')}${row(2, 'caf\xe9 csv')}`),
      3,
      'E9',
      csvHead.length + row(1, 'ok').length + row(2, 'caf').length - 1,
    ],
    [
      'CSV, a cut character at the end',
      'cut.csv',
      Buffer.concat([Buffer.from(`${csvHead}${row(1, 'caf')}`), Buffer.from([0xc3])]),
      3,
      'C3',
      csvHead.length + row(1, 'caf').length,
    ],
    [
      'NDJSON',
      'bad.ndjson',
      latin1(`${line(1, 'ok')}${line(2, 'caf\xe9')}`),
      2,
      'E9',
      line(1, 'ok').length + line(2, 'caf').length - 3,
    ],
    [
      'NDJSON, a surrogate',
      'sur.ndjson',
      Buffer.concat([
        Buffer.from(line(1, 'x').slice(0, -3)),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('"}\n'),
      ]),
      1,
      'ED',
      line(1, 'x').length - 3,
    ],
  ])(
    '%s: refused with the line and offset, nothing sent (exit 2)',
    async (_what, name, bytes, at, hex, offset) => {
      const path = svc.file(name, bytes);
      for (const verb of ['assign', 'revoke']) {
        const before = await posts(sandbox(), '/v1/users/:id/roles');
        const r = await svc.run(['roles', verb, '--file', path]);
        expect([r.code, r.stdout, r.stderr]).toEqual([
          2,
          '',
          `${path}:${at}: not UTF-8 (byte 0x${hex} at offset ${offset}); save it as UTF-8\n` +
            `error: 1 line of ${path} has problems; nothing was sent; fix them and run the command again ${COLUMNS[verb]}\n`,
        ]);
        expect(await posts(sandbox(), '/v1/users/:id/roles')).toBe(before);
      }
    },
  );

  // UTF-16 without a byte-order mark (s12 scale12 L1) was "line 1 looks like data, not a header".
  it.each([
    ['UTF-16LE', 'u16le.csv', 'utf16le'],
    ['UTF-16BE', 'u16be.csv', 'utf16be'],
    ['UTF-16LE', 'u16le.ndjson', 'utf16le'],
  ] as const)(
    '%s without a byte-order mark (%s): named, with how to convert it, nothing sent (exit 2)',
    async (encoding, name, how) => {
      const text = name.endsWith('.csv')
        ? `user,role,expires_in\r\n${bulkUser(3)},tenant_viewer,7d\r\n`
        : line(3, 'x');
      const le = Buffer.from(text, 'utf16le');
      const bytes = how === 'utf16le' ? le : Buffer.from(le).swap16();
      const path = svc.file(name, bytes);
      for (const verb of ['assign', 'revoke']) {
        const before = await posts(sandbox(), '/v1/users/:id/roles');
        const r = await svc.run(['roles', verb, '--file', path, '--dry-run']);
        expect([r.code, r.stdout, r.stderr]).toEqual([
          2,
          '',
          `${path}:1: not UTF-8: it is ${encoding} (a NUL byte every other byte); save it as UTF-8, e.g. iconv -f ${encoding} -t UTF-8 FILE > NEW\n` +
            `error: 1 line of ${path} has problems; nothing was sent; fix them and run the command again ${COLUMNS[verb]}\n`,
        ]);
        expect(await posts(sandbox(), '/v1/users/:id/roles')).toBe(before);
      }
    },
  );

  it.each([
    ['CSV', 'ok.csv', (n: number) => row(n, `${'é'.repeat(n % 7)}\uFFFD${'€'.repeat(300)}`)],
    ['NDJSON', 'ok.ndjson', (n: number) => line(n, `${'é'.repeat(n % 7)}\uFFFD${'€'.repeat(300)}`)],
  ])(
    'a %s of UTF-8 (a BOM, U+FFFD as given, characters across read chunks) is read whole',
    async (_what, name, make) => {
      const rows = Array.from({ length: 200 }, (_, n) => make(n)).join('');
      const path = svc.file(name, `\uFEFF${name.endsWith('.csv') ? csvHead : ''}${rows}`);
      const events = [];
      for await (const event of readInput(path, name)) events.push(event);
      expect(events.filter((e) => e.kind === 'problem')).toEqual([]);
      expect(events.filter((e) => e.kind === 'record')).toHaveLength(200);
    },
  );
});

describe('access files (svc plan, svc apply): bytes that are not UTF-8', () => {
  it('are refused with the line, byte and offset', () => {
    const text = 'version: 1\nblocks:\n  - tenants: caf\xe9\n';
    expect(parseSource('a.yaml', latin1(text))).toEqual({
      ok: false,
      problems: [
        { line: 3, message: `not UTF-8 (byte 0xE9 at offset ${text.indexOf('\xe9')}); save it as UTF-8` },
      ],
    });
  });

  it('svc plan names the file and line, exit 2', async () => {
    const dir = tempDir('svc-not-utf8-');
    const path = join(dir, 'access.json');
    const text = '{"version":1,\n"blocks":[{"tenants":"caf\xe9"}]}';
    writeFileSync(path, latin1(text));
    const r = await svc.run(['plan', '--file', path]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `${path}:2: not UTF-8 (byte 0xE9 at offset ${text.indexOf('\xe9')}); save it as UTF-8\n` +
        `error: 1 problem in ${path}; nothing was read from the platform; fix them and run the command again\n`,
    ]);
  });
});
