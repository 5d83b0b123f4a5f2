/**
 * A terminal table longer than one chunk (500 rows are laid out at a time, so the first rows show
 * at once): an id shortened in a later chunk must not read like one shortened earlier.
 */
import { describe, expect, it } from 'vitest';
import { type Column, Output } from '../../src/output/output.js';
import { fakeIO } from '../helpers/context.js';

interface Row {
  id: string;
  name: string;
  owner: string;
}

const columns: Array<Column<Row>> = [
  { header: 'id', value: (r) => r.id, kind: 'id' },
  { header: 'name', value: (r) => r.name },
  { header: 'owner', value: (r) => r.owner, kind: 'id' },
];
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/** 1,200 ids distinct in their first 6 characters, but for row 700, which repeats row 3's first 8. */
const rows: Row[] = Array.from({ length: 1200 }, (_, n) => ({
  id: `ten_${hex(n * 4099, 6)}${hex(n, 18)}`,
  name: `Tenant ${n} ${'x'.repeat(40)}`,
  owner: 'usr_0123456789abcdef01234567',
}));
rows[700]!.id = `${rows[3]!.id.slice(0, 12)}ffffffffffffffff`;

function table(columnsWide: number) {
  const fake = fakeIO({ tty: true, columns: columnsWide });
  return { out: new Output(fake.io, 'table', () => 0), fake };
}

describe('shortened ids over several chunks', () => {
  it('never shows two different ids alike: a later chunk that would, shows more of each id, and says so', async () => {
    const { out, fake } = table(80);
    await out.list(rows, columns);
    const shown = fake
      .stdout()
      .split('\n')
      .slice(1, -1)
      .map((line) => line.split(' ')[0]!);
    expect(shown).toHaveLength(1200);
    expect(new Set(shown).size).toBe(1200);
    // A first chunk that is full (500 rows, thousands may follow) keeps 8 characters, not 6.
    expect(shown[0]).toBe(`${rows[0]!.id.slice(0, 12)}…`);
    // From the widened chunk on, what is shown of an id is a prefix of that id and of no other
    // row's (rows above were printed before row 701 was read: the note says why ids grew).
    const prefixOf = (text: string) => text.replace(/…$/, '');
    for (const [at, text] of [...shown.entries()].slice(500)) {
      const owners = rows.filter((r) => r.id.startsWith(prefixOf(text)));
      expect(
        owners.map((r) => r.id),
        `row ${at}: ${text}`,
      ).toEqual([rows[at]!.id]);
    }
    for (const line of fake.stderr().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(fake.stderr()).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(ids show 9 characters from row 501 on: fewer would read like an id above)\n',
    );
  });

  it('widens two id columns each as far as it needs, and says both', async () => {
    const owned = rows.map((r, n) => ({ ...r, owner: `usr_${hex(n * 7919, 8)}${hex(n, 16)}` }));
    // Row 900's owner repeats row 5's first 11 characters after the prefix.
    owned[900]!.owner = `${owned[5]!.owner.slice(0, 15)}eeeeeeeeeeeee`;
    const { out, fake } = table(80);
    await out.list(owned, columns);
    expect(fake.stderr()).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(ids show 9 or 12 characters from row 501 on: fewer would read like an id above)\n',
    );
  });

  it('keeps one width when no later id comes close to an earlier one', async () => {
    const { out, fake } = table(80);
    await out.list(
      rows.filter((_, n) => n !== 700),
      columns,
    );
    expect(fake.stderr()).toBe('(ids shortened to fit: --wide, a pipe or --json shows them whole)\n');
  });
});

describe('names cut over several chunks (attack22b F2)', () => {
  const actions: Array<Column<{ action: string; summary: string }>> = [
    { header: 'action', value: (r) => r.action, kind: 'name' },
    { header: 'summary', value: (r) => r.summary },
  ];
  it('a name of a later chunk that would read like one above makes its column wider from there on', async () => {
    // 500 rows (the first chunk) of one action, then the other: cut as far as the first chunk alone
    // allows (6 columns), `role.assignment_updated` would read `role.…` like `role.assigned`.
    const list = [
      ...Array.from({ length: 500 }, () => ({ action: 'role.assigned', summary: 's' })),
      { action: 'role.assignment_updated', summary: 's' },
    ];
    const { out, fake } = table(10);
    await out.list(list, actions);
    const cellsOf = fake
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => line.split('  ')[0]!.trimEnd());
    expect(new Set(cellsOf.slice(1, 501))).toEqual(new Set(['role.…']));
    expect(cellsOf[501]).toBe('role.assignm…');
    // A row above shows `role.…`, which may be this one's action: the note says so (review22e L1).
    expect(fake.stderr()).toBe(
      '(ACTION shows 12 characters from row 501 on: fewer would read like a name above)\n',
    );
  });
});
