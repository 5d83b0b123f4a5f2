import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ClosedPipeError } from '../../src/errors.js';
import { fitTable, shortenId, uniqueKeep } from '../../src/output/layout.js';
import { type Column, type Field, Output, type OutputMode } from '../../src/output/output.js';
import { fakeIO } from '../helpers/context.js';

interface Row {
  id: string;
  name: string;
  created: string;
}

const NOW = Date.parse('2026-06-15T12:00:00Z');
const rows: Row[] = [
  { id: 'id-1', name: 'Acme\tTreasury', created: '2026-06-15T09:00:00Z' },
  { id: 'id-2', name: 'Evil\u001b[31m', created: '2026-06-14T11:00:00.500Z' },
];
const columns: Array<Column<Row>> = [
  { header: 'id', value: (r) => r.id, kind: 'id' },
  { header: 'name', value: (r) => r.name },
  { header: 'created', value: (r) => r.created, kind: 'time' },
];

function render(mode: OutputMode, tty: boolean) {
  const fake = fakeIO({ tty });
  const out = new Output(fake.io, mode, () => NOW);
  return { out, fake };
}

describe('Output.list', () => {
  it('prints a borderless table with relative times on a TTY', async () => {
    const { out, fake } = render('table', true);
    await out.list(rows, columns);
    expect(fake.stdout()).toBe(
      'ID    NAME           CREATED\n' +
        'id-1  Acme Treasury  3 hours ago\n' +
        'id-2  Evil\\x1b[31m   25 hours ago\n',
    );
  });

  it('prints tab-separated rows with RFC 3339 times when piped', async () => {
    const { out, fake } = render('plain', false);
    await out.list(rows, columns);
    expect(fake.stdout()).toBe(
      'id-1\tAcme Treasury\t2026-06-15T09:00:00Z\nid-2\tEvil\\x1b[31m\t2026-06-14T11:00:00Z\n',
    );
  });

  it('prints one JSON array with the API objects unchanged', async () => {
    const { out, fake } = render('json', false);
    await out.list(rows, columns);
    expect(JSON.parse(fake.stdout())).toEqual(rows);
  });

  it('prints one object per line with --ndjson', async () => {
    const { out, fake } = render('ndjson', false);
    await out.list(rows, columns);
    expect(
      fake
        .stdout()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(rows);
  });

  it('streams async iterables and prints [] for an empty JSON list', async () => {
    const { out, fake } = render('json', false);
    async function* none() {}
    await out.list(none(), columns);
    expect(fake.stdout()).toBe('[]\n');
  });

  it('says so on stderr when a table is empty', async () => {
    const { out, fake } = render('table', true);
    await out.list([], columns, { empty: 'no tenants match' });
    expect(fake.stdout()).toBe('');
    expect(fake.stderr()).toBe('no tenants match\n');
  });

  it('drops optional columns, then shortens ids to a unique prefix and says so, then cuts text', async () => {
    const fake = fakeIO({ tty: true, columns: 30 });
    const out = new Output(fake.io, 'table', () => NOW);
    const wide = [
      { id: 'ten_0123456789ab', name: 'A very long tenant display name', created: '2026-06-15T09:00:00Z' },
      { id: 'ten_0123459999ab', name: 'Short', created: '2026-06-15T09:00:00Z' },
    ];
    await out.list(wide, [columns[0]!, columns[1]!, { ...columns[2]!, optional: true }]);
    expect(fake.stdout()).toBe(
      'ID            NAME\n' + 'ten_0123456…  A very long ten…\n' + 'ten_0123459…  Short\n',
    );
    expect(fake.stderr()).toBe('(ids shortened to fit: --wide, a pipe or --json shows them whole)\n');
  });

  it('throws ClosedPipeError when the reader has gone', async () => {
    const stdout = new PassThrough();
    stdout.destroy();
    const fake = fakeIO();
    const out = new Output({ ...fake.io, stdout }, 'plain', () => NOW);
    await expect(out.list(rows, columns)).rejects.toBeInstanceOf(ClosedPipeError);
  });
});

describe('Output.record', () => {
  it('leaves empty optional fields out on a terminal, and keeps every label in a pipe', async () => {
    const role = { id: 'role_1', description: '', deleted_at: null };
    const fields: Field[] = [
      ['id', role.id],
      ['description', role.description, 'text', 'optional'],
      ['deleted', role.deleted_at, 'time', 'optional'],
      ['scopes', null],
    ];
    const terminal = render('table', true);
    await terminal.out.record(role, fields);
    expect(terminal.fake.stdout()).toBe('id      role_1\nscopes  -\n');
    const pipe = render('plain', false);
    await pipe.out.record(role, fields);
    expect(pipe.fake.stdout()).toBe('id\trole_1\ndescription\t\ndeleted\t\nscopes\t\n');
  });

  it('prints aligned fields on a TTY and tab-separated ones when piped', async () => {
    const value = { id: 'usr_1', at: '2026-06-15T09:00:00Z' };
    const a = render('table', true);
    await a.out.record(value, [
      ['id', value.id],
      ['expires', value.at, 'time'],
      ['scopes', null],
    ]);
    expect(a.fake.stdout()).toBe('id       usr_1\nexpires  2026-06-15T09:00:00Z (3 hours ago)\nscopes   -\n');
    const b = render('plain', false);
    await b.out.record(value, [
      ['id', value.id],
      ['expires', value.at, 'time'],
    ]);
    expect(b.fake.stdout()).toBe('id\tusr_1\nexpires\t2026-06-15T09:00:00Z\n');
    const c = render('json', false);
    await c.out.record(value, []);
    expect(JSON.parse(c.fake.stdout())).toEqual(value);
  });
});

describe('fitting a table (layout.ts)', () => {
  it.each([
    ['dlq_31e3ec6adaece4ff47ee93b6', 6, 'dlq_31e3ec…'],
    ['8ab23c1d-a27b-565a-ad8f-983ecf5fe016', 6, '8ab23c…'],
    ['usr_viewer', 6, 'usr_viewer'],
    ['-', 6, '-'],
  ])('shortenId(%s, %i) is %s', (id, keep, expected) => {
    expect(shortenId(id, keep)).toBe(expected);
  });

  it('keeps ids distinct: the prefix grows until no two ids share it', () => {
    expect(uniqueKeep(['dlv_aaaaaa11', 'dlv_bbbbbb22'])).toBe(6);
    expect(uniqueKeep(['dlv_aaaaaaa1x', 'dlv_aaaaaaa2x', 'dlv_aaaaaaa2x'])).toBe(8);
  });

  it('drops the lowest rank first, and brings a more important column back when it fits', () => {
    const head = ['ID', 'A', 'B', 'C'];
    const rows = [['x', 'aaaaaaaaaa', 'bb', 'cccccccccccccccccccc']];
    const fit = [
      { kind: 'id' as const, dropRank: 0 },
      { kind: 'text' as const, dropRank: 2 },
      { kind: 'text' as const, dropRank: 1 },
      { kind: 'text' as const, dropRank: 3 },
    ];
    // 1 + 10 + 2 + 20 + 6 = 39 > 30: B (rank 1) goes, then A (rank 2): 1 + 20 + 2 = 23 fits; B comes back (27).
    expect(fitTable(head, rows, fit, 30, false)).toEqual({
      shown: [0, 2, 3],
      widths: [2, 2, 20],
      idKeep: new Map(),
      least: new Map(),
    });
    expect(fitTable(head, rows, fit, 30, true).shown).toEqual([0, 1, 2, 3]);
  });

  it('cuts detail columns only after every other text column is at its minimum', () => {
    const head = ['T', 'DETAIL'];
    const rows = [['tttttttttt', 'dddddddddd']];
    const fit = [
      { kind: 'text' as const, dropRank: 0 },
      { kind: 'detail' as const, dropRank: 0 },
    ];
    expect(fitTable(head, rows, fit, 18, false).widths).toEqual([6, 10]);
    expect(fitTable(head, rows, fit, 14, false).widths).toEqual([6, 6]);
  });
});
