// src/output/output.ts's stdout in-process: a reader that goes away (EPIPE), a write that fails
// (ENOSPC), a reader that leaves while svc waits for it to drain, and the writes that must be taken
// before svc goes on. The spawned pipe tests (test/attack/pipe-close.test.ts) see the same through
// the binary; these see it in the module, where its mutation run can.
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ClosedPipeError, SvcError } from '../../src/errors.js';
import { SecretRegistry } from '../../src/http/redact.js';
import { Output } from '../../src/output/output.js';
import { sym, useUnicodeMarks } from '../../src/output/symbols.js';
import { fakeIO } from '../helpers/context.js';

const now = () => Date.parse('2026-11-25T12:00:00Z');

/** A stdout whose write() itself throws `error` (as a stream written after its end does). */
function throwingStdout(error: Error): Writable {
  const stream = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  stream.write = () => {
    throw error;
  };
  return stream;
}

describe('a stdout whose reader went away or whose writes fail', () => {
  it('EPIPE: closed with no failure code; the writes taken before it are counted', async () => {
    const { io, stdout } = fakeIO({ stdoutFails: 'EPIPE', stdoutFailsAfter: 2 });
    const out = new Output(io, 'plain', now);
    await out.write('one\n', { taken: true });
    await out.write('two\n', { taken: true });
    expect([out.stdoutClosed, out.stdoutTook]).toEqual([false, 2]);
    const lost = await out.write('three\n', { taken: true }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(ClosedPipeError);
    expect((lost as ClosedPipeError).failure).toBeUndefined();
    expect([out.stdoutClosed, out.stdoutFailure, out.stdoutTook]).toEqual([true, undefined, 2]);
    await expect(out.write('four\n')).rejects.toThrow('stdout closed');
    expect(stdout()).toBe('one\ntwo\n');
  });

  it('a write to be taken throws when stdout fails it after taking it into its buffer', async () => {
    const late = new Writable({
      write(_chunk, _encoding, callback) {
        setImmediate(() => callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })));
      },
    }).on('error', () => {});
    const out = new Output({ ...fakeIO().io, stdout: late }, 'plain', now);
    await expect(out.write('line\n', { taken: true })).rejects.toBeInstanceOf(ClosedPipeError);
    expect([out.stdoutClosed, out.stdoutTook]).toEqual([true, 0]);
  });

  it('ENOSPC: a failed write, named, and only the first failure is kept', async () => {
    const { io } = fakeIO({ stdoutFails: 'ENOSPC' });
    const out = new Output(io, 'plain', now);
    await expect(out.write('x\n', { taken: true })).rejects.toThrow('cannot write to stdout (ENOSPC)');
    expect([out.stdoutClosed, out.stdoutFailure, out.stdoutTook]).toEqual([true, 'ENOSPC', 0]);
    await expect(out.write('y\n')).rejects.toThrow('cannot write to stdout (ENOSPC)');
  });

  it('a write that throws a system error is a closed stdout; any other error is svc’s own and thrown as it is', async () => {
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    const broken = fakeIO().io;
    const stream = throwingStdout(epipe);
    const out = new Output({ ...broken, stdout: stream }, 'plain', now);
    await expect(out.write('x')).rejects.toBeInstanceOf(ClosedPipeError);
    expect(out.stdoutClosed).toBe(true);

    const eio = Object.assign(new Error('write EIO'), { code: 'EIO' });
    const failing = throwingStdout(eio);
    const out2 = new Output({ ...broken, stdout: failing }, 'plain', now);
    await expect(out2.write('x')).rejects.toThrow('cannot write to stdout (EIO)');
    expect(out2.stdoutFailure).toBe('EIO');

    // Node's own codes (ERR_…) and errors without a code are bugs, not a closed stdout.
    for (const own of [
      Object.assign(new Error('write after end'), { code: 'ERR_STREAM_DESTROYED' }),
      new TypeError('not a string'),
    ]) {
      const odd = throwingStdout(own);
      const out3 = new Output({ ...broken, stdout: odd }, 'plain', now);
      await expect(out3.write('x')).rejects.toBe(own);
      expect([out3.stdoutClosed, out3.stdoutFailure]).toEqual([false, undefined]);
    }
  });

  it('a reader that leaves while svc waits for it to drain ends the wait: the write throws, nothing hangs', async () => {
    const stalled = new Writable({ highWaterMark: 4, write() {} });
    const { io } = fakeIO();
    const out = new Output({ ...io, stdout: stalled }, 'plain', now);
    const waiting = out.write('more than four bytes\n').catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    stalled.destroy();
    expect(await waiting).toBeInstanceOf(ClosedPipeError);
    expect(stalled.listenerCount('drain') + stalled.listenerCount('close')).toBe(0);
  });

  it('a reader that fails while svc waits for it to drain: the failure is named', async () => {
    const stalled = new Writable({ highWaterMark: 4, write() {} });
    const { io } = fakeIO();
    const out = new Output({ ...io, stdout: stalled }, 'plain', now);
    const waiting = out.write('more than four bytes\n').catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    stalled.destroy(Object.assign(new Error('write EIO'), { code: 'EIO' }));
    const error = await waiting;
    expect(error).toBeInstanceOf(ClosedPipeError);
    expect(out.stdoutFailure).toBe('EIO');
  });
});

describe('what a command declares and masks', () => {
  it('declareOutcome: the outcome a closed stdout ends with, until declared away', () => {
    const out = new Output(fakeIO().io, 'plain', now);
    expect(out.declaredOutcome).toBeUndefined();
    const refused = new SvcError('failure', 'refused');
    out.declareOutcome(refused);
    expect(out.declaredOutcome).toBe(refused);
    out.declareOutcome(undefined);
    expect(out.declaredOutcome).toBeUndefined();
  });

  it('stdout keeps secrets by default (create --show-secret); maskSecretsOnStdout scrubs text, not bytes', async () => {
    const secret = 'whsec_abcdefghijklmnop1234';
    const secrets = new SecretRegistry();
    secrets.add(secret);
    const { io, stdout } = fakeIO();
    const out = new Output(io, 'plain', now, secrets);
    await out.write(`shown ${secret}\n`);
    out.maskSecretsOnStdout();
    await out.write(`masked ${secret}\n`);
    await out.write(new TextEncoder().encode(`bytes ${secret}\n`));
    expect(stdout()).toBe(`shown ${secret}\nmasked [redacted]\nbytes ${secret}\n`);
  });
});

describe('the other writers', () => {
  it('jsonAsItCame: indented with --json, one line with --ndjson, numbers as written', async () => {
    const text = '{"n":12345678901234567891,"a":[1,{"b":"c"}]}';
    const json = fakeIO();
    await new Output(json.io, 'json', now).jsonAsItCame(text);
    expect(json.stdout()).toBe(
      JSON.stringify(JSON.parse(text), null, 2).replace('12345678901234567000', '12345678901234567891') +
        '\n',
    );
    const ndjson = fakeIO();
    await new Output(ndjson.io, 'ndjson', now).jsonAsItCame(text);
    expect(ndjson.stdout()).toBe(`${text}\n`);
  });

  it('notice: clears a progress line first on a terminal that takes cursor control, never elsewhere', () => {
    const tty = fakeIO({ tty: true, env: { NO_COLOR: '1', TERM: 'xterm' } });
    new Output(tty.io, 'table', now).notice('waiting 5 s \u001b[2J');
    expect(tty.stderr()).toBe('\r\u001b[2Kwaiting 5 s \\x1b[2J\n');
    const dumb = fakeIO({ tty: true, env: { NO_COLOR: '1', TERM: 'dumb' } });
    new Output(dumb.io, 'table', now).notice('waiting');
    expect(dumb.stderr()).toBe('waiting\n');
    const pipe = fakeIO({ env: { NO_COLOR: '1', TERM: 'xterm' } });
    new Output(pipe.io, 'plain', now).notice('waiting');
    expect(pipe.stderr()).toBe('waiting\n');
  });

  it("a column's terminal text (an ended grant's expiry) is the table's only; a pipe keeps the API's value, empty cells empty", async () => {
    interface Grant {
      id: string;
      expires: string | null;
      note: string;
    }
    const rows: Grant[] = [
      { id: 'g1', expires: '2026-11-25T10:00:00.500Z', note: '' },
      { id: 'g2', expires: null, note: 'x' },
    ];
    const noTable = [{ header: 'expires', value: (r: { at?: string }) => r.at, kind: 'time' as const }];
    const blank = fakeIO({ tty: true });
    await new Output(blank.io, 'table', now).list([{}], noTable);
    expect(blank.stdout()).toBe('EXPIRES\n-\n');
    const columns = [
      { header: 'id', value: (r: Grant) => r.id },
      {
        header: 'expires',
        value: (r: Grant) => r.expires,
        table: (r: Grant) => (r.expires === null ? null : 'ended'),
        kind: 'time' as const,
      },
      { header: 'note', value: (r: Grant) => r.note, table: () => 'shown on a terminal' },
    ];
    const pipe = fakeIO();
    expect(await new Output(pipe.io, 'plain', now).list(rows, columns)).toBe(2);
    expect(pipe.stdout()).toBe('g1\t2026-11-25T10:00:00Z\t\ng2\t\tx\n');
    const term = fakeIO({ tty: true });
    await new Output(term.io, 'table', now).list(rows, columns);
    expect(
      term
        .stdout()
        .split('\n')
        .slice(1, 3)
        .map((line) => line.split(/\s{2,}/)),
    ).toEqual([
      ['g1', 'ended', 'shown on a terminal'],
      ['g2', '-', 'shown on a terminal'],
    ]);
  });

  it('jsonList --ndjson counts the rows it printed', async () => {
    const { io, stdout } = fakeIO();
    expect(await new Output(io, 'ndjson', now).jsonList([{ a: 1 }, { a: 2 }])).toBe(2);
    expect(stdout()).toBe('{"a":1}\n{"a":2}\n');
  });

  it('record: an optional empty field is left out on a terminal; a pipe prints times in RFC 3339', async () => {
    const term = fakeIO({ tty: true });
    await new Output(term.io, 'table', now).record({}, [
      ['name', 'r'],
      ['deleted', '', 'time', 'optional'],
      ['replaced by', undefined, 'text', 'optional'],
      ['owner', null, 'text', 'optional'],
    ]);
    expect(term.stdout()).toBe('name  r\n');
    const pipe = fakeIO();
    await new Output(pipe.io, 'plain', now).record({}, [
      ['name', 'r'],
      ['created', '2026-11-25T13:00:00.750+01:00', 'time'],
      ['note', '2026-11-25T13:00:00.750+01:00'],
    ]);
    expect(pipe.stdout()).toBe(
      'name\tr\ncreated\t2026-11-25T12:00:00Z\nnote\t2026-11-25T13:00:00.750+01:00\n',
    );
  });
});

describe('marks and colours', () => {
  // One setting per process (the last Output made sets it): the next file must not inherit ASCII.
  afterAll(() => useUnicodeMarks(true));

  it("in a locale that is not UTF-8, svc's marks are ASCII, but JSON keeps them as they are", () => {
    const c = { env: { NO_COLOR: '1', LC_ALL: 'C' } };
    for (const [mode, mark] of [
      ['table', '...'],
      ['json', '…'],
      ['plain', '...'],
      ['ndjson', '…'],
    ] as const) {
      new Output(fakeIO(c).io, mode, now);
      expect([mode, sym.ellipsis]).toEqual([mode, mark]);
    }
  });

  it("a status column is coloured by its value; another column's same word is not", async () => {
    const { io, stdout } = fakeIO({ tty: true, color: true });
    await new Output(io, 'table', now).list(
      [{ state: 'failed', note: 'failed' }],
      [
        { header: 'state', value: (r) => r.state, kind: 'status' },
        { header: 'note', value: (r) => r.note },
      ],
    );
    const row = stdout().split('\n')[1]!;
    expect(row).toBe('\u001b[31mfailed\u001b[39m  failed');
  });
});
