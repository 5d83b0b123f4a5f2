/**
 * Server text in svc's own lines, in pipes and in tables (findings-attack19 F1, F4, F7, F10): a
 * value svc did not choose never makes a second line, never splits a row or a JSON line for a
 * reader that breaks lines at U+2028/U+2029/U+0085, never reads as two list items, and is measured
 * as the terminal draws it.
 */
import { describe, expect, it } from 'vitest';
import { cellText } from '../../src/output/format.js';
import { fitTable } from '../../src/output/layout.js';
import { Output } from '../../src/output/output.js';
import { renderTable } from '../../src/output/table.js';
import { textWidth } from '../../src/output/width.js';
import { fakeIO } from '../helpers/context.js';

const now = () => Date.parse('2026-11-25T20:00:00Z');

function output(mode: 'table' | 'plain' | 'json' | 'ndjson', tty = false, wide = false) {
  const fake = fakeIO({ tty });
  return { ...fake, out: new Output(fake.io, mode, now, undefined, { wide }) };
}

/** Lines as Python's str.splitlines() cuts them (what a script reading svc's output gets). */
const splitlines = (text: string) => text.split(/\r\n|[\n\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/);

describe('F4: a message holding a server value is one line', () => {
  it.each(['success', 'info', 'warn', 'notice'] as const)('%s escapes a line break', (kind) => {
    const { out, stderr } = output('table', true);
    out[kind]('Revoked key_1 (CI reader\n✓ Revoked key_payroll) of Acme');
    expect(stderr().trimEnd().split('\n')).toHaveLength(1);
    expect(stderr()).toContain('(CI reader\\n✓ Revoked key_payroll) of Acme');
  });
});

describe('F7: U+2028, U+2029 and U+0085 never split a row or a JSON line', () => {
  const description = 'a\u2028b\u2029c\u0085d';

  it('a TSV cell escapes them', async () => {
    const { out, stdout } = output('plain');
    await out.list(
      [{ id: 'r1', description }],
      [
        { header: 'id', value: (r) => r.id },
        { header: 'description', value: (r) => r.description },
      ],
    );
    expect(stdout()).toBe('r1\ta\\u2028b\\u2029c\\x85d\n');
    expect(splitlines(stdout().trimEnd())).toHaveLength(1);
  });

  it('an NDJSON line escapes them, and parses to the same value', async () => {
    const { out, stdout } = output('ndjson');
    await out.jsonList([{ description }, { description: 'x' }]);
    expect(stdout()).toBe('{"description":"a\\u2028b\\u2029c\\u0085d"}\n{"description":"x"}\n');
    const lines = splitlines(stdout().trimEnd());
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({ description });
  });

  it('a JSON line of a stream (jsonLine) escapes them too', async () => {
    const { out, stdout } = output('table');
    await out.jsonLine({ description });
    expect(stdout()).toBe('{"description":"a\\u2028b\\u2029c\\u0085d"}\n');
  });
});

describe('F10: a list cell cannot be read as more or fewer items', () => {
  it('a comma inside an item is written %2C: one URI with a comma and two URIs differ', () => {
    const one = cellText(['https://a.example/cb?x=1,https://evil.example/cb']);
    const two = cellText(['https://a.example/cb?x=1', 'https://evil.example/cb']);
    expect(one).toBe('https://a.example/cb?x=1%2Chttps://evil.example/cb');
    expect(two).toBe('https://a.example/cb?x=1,https://evil.example/cb');
  });
});

describe('F1: a table measures text as the terminal draws it', () => {
  it('CJK and emoji take two columns, combining marks none', () => {
    expect(textWidth('経理部 東京本社')).toBe(15);
    expect(textWidth('🚀🚀🚀 déploiement café')).toBe(23);
    expect(textWidth('Nguyễn Thị Ánh'.normalize('NFD'))).toBe(14);
  });

  it('--wide never cuts a CJK value: the two names stay told apart', () => {
    const names = ['経理部 東京本社', '経理部 東京本店'];
    const { widths } = fitTable(
      ['NAME'],
      names.map((n) => [n]),
      [{ kind: 'text', dropRank: 0 }],
      200,
      true,
    );
    expect(
      renderTable(
        ['NAME'],
        names.map((n) => [n]),
        widths,
      ),
    ).toBe(`NAME\n${names.join('\n')}\n`);
  });

  it('a column that fits is kept whole on a wide terminal', () => {
    const rows = [['usr_admin', '経理部 東京本社']];
    const columns = [
      { kind: 'id' as const, dropRank: 0 },
      { kind: 'text' as const, dropRank: 0 },
    ];
    const { widths } = fitTable(['ID', 'NAME'], rows, columns, 200, false);
    expect(renderTable(['ID', 'NAME'], rows, widths)).toBe('ID         NAME\nusr_admin  経理部 東京本社\n');
  });

  it('an NFD name does not push out a column that fits', () => {
    const name = 'Nguyễn Thị Ánh Hồng Phượng'.normalize('NFD');
    const rows = [['usr_admin', name, 'ada@acme.example']];
    const columns = [
      { kind: 'id' as const, dropRank: 0 },
      { kind: 'text' as const, dropRank: 0 },
      { kind: 'text' as const, dropRank: 1 },
    ];
    const { shown } = fitTable(['ID', 'NAME', 'EMAIL'], rows, columns, 60, false);
    expect(shown).toEqual([0, 1, 2]);
  });

  it('a record aligns CJK labels by their width on the screen', async () => {
    const { out, stdout } = output('table', true);
    await out.record({}, [
      ['field.名前', '東京本社口座'],
      ['field.note', 'x'],
    ]);
    expect(stdout()).toBe('field.名前  東京本社口座\nfield.note  x\n');
  });
});
