/**
 * A terminal table streamed in chunks of 500 rows is laid out on its first chunk; rows on the
 * screen cannot change. What a later chunk's values need was judged on the first 500 rows only
 * (review22e L1, L2, session 23): a name column widened later said nothing, an overflow from row
 * 501 on said nothing, a later URL's longer host was cut inside it, a later time or status was cut
 * mid-value, and `--wide` cut a later chunk's longer values.
 */
import { describe, expect, it } from 'vitest';
import { type Column, Output } from '../../src/output/output.js';
import { fakeIO } from '../helpers/context.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

function table(columns: number, wide = false) {
  const fake = fakeIO({ tty: true, columns });
  return { out: new Output(fake.io, 'table', () => NOW, undefined, { wide }), fake };
}

/** The lines of stdout, each cut into its cells (columns are two or more spaces apart). */
const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));

interface Action {
  action: string;
  summary: string;
}
const actions: Array<Column<Action>> = [
  { header: 'action', value: (r) => r.action, kind: 'name' },
  { header: 'summary', value: (r) => r.summary },
];
/** 500 rows (the first chunk) of role.assigned, then one of role.assignment_updated. */
const grantsThenUpdate: Action[] = [
  ...Array.from({ length: 500 }, () => ({ action: 'role.assigned', summary: 'granted' })),
  { action: 'role.assignment_updated', summary: 'granted' },
];

describe('a name column widened by a later chunk (review22e L1)', () => {
  it('says from which row its names show more, as the ids note does', async () => {
    // At 20 columns the first chunk shows `role.assig…` (11): row 501's name would read alike.
    const { out, fake } = table(20);
    await out.list(grantsThenUpdate, actions);
    const shown = lines(fake.stdout());
    expect(shown[1]).toEqual(['role.assig…', 'granted']);
    expect(shown[501]).toEqual(['role.assignm…', 'grant…']);
    expect(fake.stderr()).toBe(
      '(ACTION shows 12 characters from row 501 on: fewer would read like a name above)\n' +
        '(the table is wider than the terminal from row 501 on: the names in ACTION would read alike cut shorter; a pipe or --json shows ACTION and SUMMARY whole)\n',
    );
  });

  it('says both an id column and a name column widened in one note', async () => {
    interface Entry {
      id: string;
      action: string;
    }
    const hex = (n: number) => n.toString(16).padStart(6, '0');
    const entries: Entry[] = Array.from({ length: 501 }, (_, n) => ({
      id: `aud_${hex(n * 4099)}${hex(n)}aaaaaaaaaaaa`,
      action: n === 500 ? 'role.assignment_updated' : 'role.assigned',
    }));
    // Row 501's id repeats row 3's first 8 characters after `aud_`.
    entries[500]!.id = `${entries[3]!.id.slice(0, 12)}ffffffffffffffff`;
    const { out, fake } = table(24);
    await out.list(entries, [
      { header: 'id', value: (r) => r.id, kind: 'id' },
      { header: 'action', value: (r) => r.action, kind: 'name' },
    ]);
    expect(fake.stderr()).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(ids show 9 characters and ACTION 12 from row 501 on: fewer would read like one above)\n' +
        '(the table is wider than the terminal from row 501 on: the names in ACTION would read alike cut shorter; a pipe or --json shows them whole)\n',
    );
  });
});

describe('the widened-names note of wide (CJK) names, measured as the layout does (session 24)', () => {
  it('says terminal columns, not characters, when a cut name takes two columns a character', async () => {
    // The first chunk cuts `経理部 東京本社 第一` to 11 columns (`経理部 東…`); row 501's
    // `経理部 東京本店 第一` needs 16 (`経理部 東京本店…`, 8 characters): the note said
    // `NAME shows 15 characters`, twice what it shows.
    const list: Action[] = [
      ...Array.from({ length: 500 }, () => ({ action: '経理部 東京本社 第一', summary: 'granted' })),
      { action: '経理部 東京本店 第一', summary: 'granted' },
    ];
    const { out, fake } = table(20);
    await out.list(list, actions);
    const shown = lines(fake.stdout());
    expect(shown[1]).toEqual(['経理部 東…', 'granted']);
    expect(shown[501]).toEqual(['経理部 東京本店…', 'grant…']);
    expect(fake.stderr()).toBe(
      '(ACTION shows 15 terminal columns from row 501 on: fewer would read like a name above)\n' +
        '(the table is wider than the terminal from row 501 on: the names in ACTION would read alike cut shorter; a pipe or --json shows ACTION and SUMMARY whole)\n',
    );
  });
});

describe('the note of a table wider than the terminal (review22e L2)', () => {
  interface Key {
    id: string;
    name: string;
    created: string;
  }
  const keys: Array<Column<Key>> = [
    { header: 'id', value: (k) => k.id, kind: 'id' },
    { header: 'name', value: (k) => k.name, kind: 'name' },
    { header: 'created', value: (k) => k.created, kind: 'time' },
  ];
  const two: Key[] = [
    {
      id: 'key_0a1b2c3d4e5f60718293a4b5',
      name: 'settlement-exporter-eu-west-2',
      created: '2026-11-20T11:58:33Z',
    },
    {
      id: 'key_9f8e7d6c5b4a39281706f5e4',
      name: 'settlement-exporter-eu-west-3',
      created: '2026-11-20T11:57:00Z',
    },
  ];

  it('names the ids and times that hold it wide too, when cutting the names would not be enough', async () => {
    // ID 11 + NAME 29 + CREATED 14 + gaps 4 = 58 at 30 columns: cutting the names to 6 would
    // leave 35, still too wide; the names are whole, so a pipe shows nothing more of them. Until
    // session 24 no note was said: nothing told why the table wraps.
    const { out, fake } = table(30);
    await out.list(two, keys);
    expect(fake.stdout()).toBe(
      'ID           NAME                           CREATED\n' +
        'key_0a1b2c…  settlement-exporter-eu-west-2  87 seconds ago\n' +
        'key_9f8e7d…  settlement-exporter-eu-west-3  3 minutes ago\n',
    );
    expect(fake.stderr()).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(the table is wider than the terminal: ID and CREATED cannot be shorter, and the names in NAME would read alike cut shorter)\n',
    );
  });

  it('names the ids, times and statuses alone when they alone hold it wide, and every other column at its least width beside them when not (review24a L1)', async () => {
    interface Delivery {
      id: string;
      event: string;
      at: string;
      status: string;
    }
    const deliveries: Delivery[] = [
      {
        id: 'dlv_0a1b2c3d4e5f6071',
        event: 'payment.settled',
        at: '2026-11-20T11:58:33Z',
        status: 'delivered',
      },
      { id: 'dlv_9f8e7d6c5b4a3928', event: 'payment.failed', at: '2026-11-20T11:57:00Z', status: 'retrying' },
    ];
    // ID 11 + EVENT 6 (cut) + AT 14 + STATUS 9 + gaps 6 = 46 at 40 columns: the event is cut as
    // far as it goes; ID, AT and STATUS, 38 with their gaps, fit, so EVENT holds it wide too (was
    // `ID, AT and STATUS cannot be shorter` alone, and no word that a pipe shows the event whole).
    const columns: Array<Column<Delivery>> = [
      { header: 'id', value: (d) => d.id, kind: 'id' },
      { header: 'event', value: (d) => d.event },
      { header: 'at', value: (d) => d.at, kind: 'time' },
      { header: 'status', value: (d) => d.status, kind: 'status' },
    ];
    const at40 = table(40);
    await at40.out.list(deliveries, columns);
    expect(lines(at40.fake.stdout())[1]).toEqual(['dlv_0a1b2c…', 'payme…', '87 seconds ago', 'delivered']);
    expect(at40.fake.stderr()).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(the table is wider than the terminal: ID, AT and STATUS cannot be shorter, and EVENT is at its least width; a pipe or --json shows EVENT whole)\n',
    );
    // At 36 columns, ID, AT and STATUS alone are wider than the terminal: they alone are named.
    const at36 = table(36);
    await at36.out.list(deliveries, columns);
    expect(at36.fake.stderr()).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(the table is wider than the terminal: ID, AT and STATUS cannot be shorter; a pipe or --json shows EVENT whole)\n',
    );
  });

  it('a short id beside five text columns at their least: all named, not the id alone (review24a L1: `ID cannot be shorter`)', async () => {
    type Row = Record<'id' | 'a' | 'b' | 'c' | 'd' | 'e', string>;
    const row: Row = {
      id: 'k_001',
      a: 'alpha-one',
      b: 'bravo-two',
      c: 'charlie-3',
      d: 'delta-four',
      e: 'echo-five',
    };
    const text = (key: keyof Row) => ({ header: key, value: (r: Row) => r[key] });
    // ID 5 + five columns of 6 + gaps 10 = 45 at 40: the id's 5 are not what holds it wide.
    const { out, fake } = table(40);
    await out.list(
      [row],
      [
        { header: 'id', value: (r: Row) => r.id, kind: 'id' as const },
        ...(['a', 'b', 'c', 'd', 'e'] as const).map(text),
      ],
    );
    expect(fake.stderr()).toBe(
      '(the table is wider than the terminal: ID cannot be shorter, and A, B, C, D and E are at their least width; a pipe or --json shows A, B, C, D and E whole)\n',
    );
  });

  it('is not said with --wide, whose lines may wrap', async () => {
    const { out, fake } = table(30, true);
    await out.list(two, keys);
    expect(fake.stderr()).toBe('');
  });

  it('says that names are whole when they are, without sending the reader to a pipe', async () => {
    // 57 at 50 columns: cutting the names to 6 would fit, but the names are not cut.
    const { out, fake } = table(50);
    await out.list(two, keys);
    expect(fake.stderr()).toBe(
      '(ids shortened to fit: --wide, a pipe or --json shows them whole)\n' +
        '(the table is wider than the terminal: the names in NAME would read alike cut shorter)\n',
    );
  });
});

describe('a later chunk judged on its own values too', () => {
  interface Hook {
    url: string;
    events: string;
  }
  const hooks: Array<Column<Hook>> = [
    { header: 'url', value: (h) => h.url, kind: 'url' },
    { header: 'events', value: (h) => h.events },
  ];
  const REAL = 'https://hooks.acme-treasury.com/svc/settlements';
  const RELAY = 'https://hooks.acme-treasury.com.cb-relay.io/svc/settlements';

  it("a URL's longer host from row 501 on is shown whole, never cut inside it", async () => {
    const list: Hook[] = [
      ...Array.from({ length: 500 }, () => ({ url: REAL, events: 'payment.settled' })),
      { url: RELAY, events: 'payment.settled' },
    ];
    // 47 + 2 + 15 = 64 at 60 columns: the first chunk's URLs are cut to 43, after their host.
    const { out, fake } = table(60);
    await out.list(list, hooks);
    const shown = lines(fake.stdout());
    expect(shown[1]).toEqual(['https://hooks.acme-treasury.com/svc/settle…', 'payment.settled']);
    // Was `https://hooks.acme-treasury.com.cb-relay.i…`: a host cut inside.
    expect(shown[501]).toEqual(['https://hooks.acme-treasury.com.cb-relay.io…', 'payment.settl…']);
    expect(fake.stderr()).toBe('');
  });

  it('a longer time or status from row 501 on is whole', async () => {
    interface Grant {
      user: string;
      expires: string;
      status: string;
    }
    const list: Grant[] = [
      ...Array.from({ length: 500 }, () => ({
        user: 'usr_lead',
        expires: '2026-11-20T12:00:05Z',
        status: 'active',
      })),
      { user: 'usr_lead', expires: '2026-11-23T12:00:00Z', status: 'expired' },
    ];
    const { out, fake } = table(80);
    await out.list(list, [
      { header: 'user', value: (g) => g.user },
      { header: 'expires', value: (g) => g.expires, kind: 'time' },
      { header: 'status', value: (g) => g.status, kind: 'status' },
    ]);
    const shown = lines(fake.stdout());
    expect(shown[1]).toEqual(['usr_lead', 'now', 'active']);
    // Were `in 3 d…` and `expir…`: cut to the widths of the first chunk's `now` and `active`.
    expect(shown[501]).toEqual(['usr_lead', 'in 3 days', 'expired']);
    expect(fake.stderr()).toBe('');
  });

  it('a later time or status that makes the table too wide: the note says from which row, and what holds it', async () => {
    interface Grant {
      user: string;
      expires: string;
      status: string;
    }
    const list: Grant[] = [
      ...Array.from({ length: 500 }, () => ({
        user: 'usr_lead',
        expires: '2026-11-20T12:00:05Z',
        status: 'active',
      })),
      { user: 'usr_lead', expires: '2026-11-23T12:00:00Z', status: 'expired' },
    ];
    // USER 8 + EXPIRES 7 + STATUS 6 + gaps 4 = 25 fits; row 501's 9 and 7 make 28, 26 with USER cut.
    const { out, fake } = table(25);
    await out.list(list, [
      { header: 'user', value: (g) => g.user },
      { header: 'expires', value: (g) => g.expires, kind: 'time' },
      { header: 'status', value: (g) => g.status, kind: 'status' },
    ]);
    const shown = lines(fake.stdout());
    expect(shown[1]).toEqual(['usr_lead', 'now', 'active']);
    expect(shown[501]).toEqual(['usr_l…', 'in 3 days', 'expired']);
    expect(fake.stderr()).toBe(
      '(the table is wider than the terminal from row 501 on: EXPIRES and STATUS cannot be shorter, and USER is at its least width; a pipe or --json shows USER whole)\n',
    );
  });

  it('--wide: a longer value from row 501 on is whole', async () => {
    const list: Hook[] = [
      ...Array.from({ length: 500 }, () => ({ url: REAL, events: 'payment.settled' })),
      { url: RELAY, events: 'payment.settled' },
    ];
    const { out, fake } = table(40, true);
    await out.list(list, hooks);
    expect(lines(fake.stdout())[501]).toEqual([RELAY, 'payment.settled']);
    expect(fake.stderr()).toBe('');
  });
});
