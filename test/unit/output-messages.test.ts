// The parts of the output layer (src/output/output.ts) that test/unit/output.test.ts leaves open:
// messages on stderr (colour, escapes, secrets), JSON on a terminal, raw bodies, empty lists,
// coloured statuses, records in every mode and a reader that went away. Exact bytes throughout.
import { describe, expect, it } from 'vitest';
import { ClosedPipeError } from '../../src/errors.js';
import { SecretRegistry } from '../../src/http/redact.js';
import { type Column, Output, type OutputMode } from '../../src/output/output.js';
import { fakeIO } from '../helpers/context.js';

const NOW = Date.parse('2026-06-15T12:00:00Z');

function output(
  mode: OutputMode,
  options: { tty?: boolean; color?: boolean; secrets?: SecretRegistry; wide?: boolean } = {},
) {
  const fake = fakeIO({
    tty: options.tty ?? false,
    ...(options.color === undefined ? {} : { color: options.color }),
  });
  const out = new Output(fake.io, mode, () => NOW, options.secrets, { wide: options.wide === true });
  return { out, fake };
}

describe('messages on stderr', () => {
  it('plain: info, success and warning lines, escapes made visible', () => {
    const { out, fake } = output('table');
    out.info('note \u001b]0;title\u0007');
    out.success('done');
    out.warn('careful');
    out.stderr('raw \u009b text\n');
    expect(fake.stderr()).toBe('note \\x1b]0;title\\x07\n✓ done\nwarning: careful\nraw \\x9b text\n');
    expect(fake.stdout()).toBe('');
  });

  it('in colour on a terminal: a green tick and a yellow warning', () => {
    const { out, fake } = output('table', { tty: true, color: true });
    out.success('done');
    out.warn('careful');
    expect(fake.stderr()).toBe('\u001b[32m✓\u001b[39m done\n\u001b[33mwarning:\u001b[39m careful\n');
  });

  it('never in colour with --json or --ndjson, even on a terminal', () => {
    for (const mode of ['json', 'ndjson'] as const) {
      const { out, fake } = output(mode, { tty: true, color: true });
      out.success('done');
      expect(fake.stderr()).toBe('✓ done\n');
      expect(out.color.level).toBe(0);
    }
    expect(output('table', { tty: true, color: true }).out.color.level).toBe(1);
  });

  it('scrubs the secrets the registry knows, else credential shapes', () => {
    const secrets = new SecretRegistry();
    secrets.add('plain-secret-value');
    const known = output('table', { secrets });
    known.out.info('got plain-secret-value and svc_sk_abcdefghijklmnopqrst');
    expect(known.fake.stderr()).toBe('got [redacted] and svc_sk_[redacted]\n');
    const shapes = output('table');
    shapes.out.warn('token svc_sk_abcdefghijklmnopqrst, plain-secret-value');
    expect(shapes.fake.stderr()).toBe('warning: token svc_sk_[redacted], plain-secret-value\n');
  });

  it('says nothing once stderr is closed, and does not throw', () => {
    const { out, fake } = output('table');
    fake.io.stderr.end();
    expect(() => out.info('late')).not.toThrow();
    const destroyed = output('table');
    destroyed.fake.io.stderr.destroy();
    expect(() => destroyed.out.warn('late')).not.toThrow();
  });
});

describe('stdout', () => {
  it('JSON on a terminal escapes what JSON leaves raw; in a pipe it is left as it is', async () => {
    const value = { name: 'a\u009bb\u202e' };
    const tty = output('json', { tty: true });
    await tty.out.json(value);
    await tty.out.jsonLine(value);
    expect(tty.fake.stdout()).toBe('{\n  "name": "a\\u009bb\\u202e"\n}\n{"name":"a\\u009bb\\u202e"}\n');
    expect(tty.out.jsonText(value, 1)).toBe('{\n "name": "a\\u009bb\\u202e"\n}');
    const pipe = output('ndjson');
    await pipe.out.json(value);
    expect(pipe.fake.stdout()).toBe(`${JSON.stringify(value)}\n`);
    expect(pipe.out.jsonText(value)).toBe(JSON.stringify(value));
  });

  it('raw text: unchanged in a pipe, escaped on a terminal; text lines always escaped', async () => {
    const body = 'a\u001b[2Jb\r\n';
    const pipe = output('plain');
    await pipe.out.raw(body);
    await pipe.out.text('line \u001b[1m');
    expect(pipe.fake.stdout()).toBe('a\u001b[2Jb\r\nline \\x1b[1m\n');
    const tty = output('table', { tty: true });
    await tty.out.raw(body);
    expect(tty.fake.stdout()).toBe('a\\x1b[2Jb\\x0d\n');
  });

  it('an empty list: [] with --json, nothing with --ndjson, the empty message on a terminal', async () => {
    const json = output('json');
    expect(await json.out.jsonList([])).toBe(0);
    const ndjson = output('ndjson');
    expect(await ndjson.out.list([], [], { empty: 'no rows' })).toBe(0);
    const table = output('table');
    expect(await table.out.list([], [{ header: 'x', value: () => 1 }], { empty: 'no rows' })).toBe(0);
    const quiet = output('table');
    await quiet.out.list([], [{ header: 'x', value: () => 1 }]);
    expect([json.fake.stdout(), ndjson.fake.stdout(), table.fake.stdout(), table.fake.stderr()]).toEqual([
      '[]\n',
      '',
      '',
      'no rows\n',
    ]);
    expect(quiet.fake.stderr()).toBe('');
  });

  it('a JSON list streams item by item', async () => {
    const { out, fake } = output('json');
    async function* rows() {
      yield { a: 1 };
      yield { a: 2 };
    }
    expect(await out.jsonList(rows())).toBe(2);
    expect(fake.stdout()).toBe('[\n{"a":1},\n{"a":2}\n]\n');
  });

  it('writes after the reader went away fail with ClosedPipeError', async () => {
    const { out, fake } = output('plain');
    fake.io.stdout.end();
    await expect(out.text('x')).rejects.toBeInstanceOf(ClosedPipeError);
    expect(out.stdoutClosed).toBe(false);
    const destroyed = output('plain');
    destroyed.fake.io.stdout.destroy();
    expect(destroyed.out.stdoutClosed).toBe(true);
    await expect(destroyed.out.text('x')).rejects.toBeInstanceOf(ClosedPipeError);
  });
});

describe('cells', () => {
  interface Row {
    status: string;
    at: string | null;
    note: string;
  }
  const columns: Array<Column<Row>> = [
    { header: 'status', value: (r) => r.status, kind: 'status' },
    { header: 'at', value: (r) => r.at, kind: 'time' },
    { header: 'note', value: (r) => r.note },
  ];
  const rows: Row[] = [
    { status: 'failed', at: null, note: '' },
    { status: 'delivered', at: '', note: 'x' },
    { status: 'unknown', at: '2026-06-15T11:00:00Z', note: 'y' },
    { status: 'pending', at: '2026-06-15T11:00:00Z', note: 'z' },
    { status: 'expired', at: '2026-06-15T11:00:00Z', note: 'z' },
  ];

  it('on a coloured terminal: statuses in their colours, "-" for nothing', async () => {
    const { out, fake } = output('table', { tty: true, color: true });
    await out.list(rows, columns);
    expect(fake.stdout()).toBe(
      [
        '\u001b[1mSTATUS\u001b[22m     \u001b[1mAT\u001b[22m              \u001b[1mNOTE\u001b[22m',
        '\u001b[31mfailed\u001b[39m     -               -',
        '\u001b[32mdelivered\u001b[39m  -               x',
        'unknown    60 minutes ago  y',
        '\u001b[33mpending\u001b[39m    60 minutes ago  z',
        '\u001b[2mexpired\u001b[22m    60 minutes ago  z',
        '',
      ].join('\n'),
    );
  });

  it('a status word in capitals has its colour, as it came (`DELIVERED` is delivered)', async () => {
    const { out, fake } = output('table', { tty: true, color: true });
    await out.list(
      [
        { status: 'DELIVERED', at: null, note: '' },
        { status: 'Failed', at: null, note: '' },
      ],
      columns,
    );
    expect(fake.stdout().split('\n').slice(1, 3)).toEqual([
      '\u001b[32mDELIVERED\u001b[39m  -   -',
      '\u001b[31mFailed\u001b[39m     -   -',
    ]);
  });

  // closing12-s20: `recovered` (failed, then its event delivered by a replay: delivered after all,
  // deliveryState) was the one delivery state shown without a colour; it has delivered's green.
  it.each([
    [{ FORCE_COLOR: '1' }, false, '\u001b[32mrecovered\u001b[39m  -   -'],
    [{ NO_COLOR: '1' }, true, 'recovered  -   -'],
  ])(
    'a recovered delivery under %j (terminal: %s) is green as delivered is, unless colour is off',
    async (env, tty, line) => {
      const fake = fakeIO({ env, tty });
      const out = new Output(fake.io, 'table', () => NOW, undefined, { wide: false });
      await out.list([{ status: 'recovered', at: null, note: '' }], columns);
      expect(fake.stdout().split('\n')[1]).toBe(line);
    },
  );

  it('in a pipe: empty cells stay empty, times in RFC 3339', async () => {
    const { out, fake } = output('plain');
    await out.list(rows.slice(0, 3), columns);
    expect(fake.stdout()).toBe('failed\t\t\ndelivered\t\tx\nunknown\t2026-06-15T11:00:00Z\ty\n');
  });
});

describe('record', () => {
  const fields = [
    ['name', 'Acme'],
    ['created', '2026-06-15T09:00:00Z', 'time'],
    ['deleted', null, 'time', 'optional'],
    ['note', '', undefined, 'optional'],
    ['empty', undefined],
  ] as Parameters<Output['record']>[1];

  it('on a terminal: labels padded, times absolute and relative, empty optional fields left out', async () => {
    const { out, fake } = output('table');
    await out.record({ a: 1 }, fields);
    expect(fake.stdout()).toBe('name     Acme\ncreated  2026-06-15T09:00:00Z (3 hours ago)\nempty    -\n');
  });

  it('in a pipe: every label, tab-separated, times in RFC 3339', async () => {
    const { out, fake } = output('plain');
    await out.record({ a: 1 }, fields);
    expect(fake.stdout()).toBe('name\tAcme\ncreated\t2026-06-15T09:00:00Z\ndeleted\t\nnote\t\nempty\t\n');
  });

  it('with --json: the object itself', async () => {
    const { out, fake } = output('json');
    await out.record({ a: 1 }, fields);
    expect(fake.stdout()).toBe('{\n  "a": 1\n}\n');
    expect(out.isMachine).toBe(true);
    expect(output('plain').out.isMachine).toBe(false);
  });

  it('an optional field with a value is shown on a terminal', async () => {
    const { out, fake } = output('table');
    await out.record({}, [
      ['id', 'r1'],
      ['deleted', '2026-06-15T11:00:00Z', 'time', 'optional'],
    ]);
    expect(fake.stdout()).toBe('id       r1\ndeleted  2026-06-15T11:00:00Z (60 minutes ago)\n');
  });
});
