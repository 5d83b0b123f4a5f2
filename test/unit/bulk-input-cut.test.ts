/**
 * The input snapshot's bounds and its suspicion of a pipe cut short (src/bulk/input.ts), in
 * process: which inputs count as a pipe, which last lines as a row, the bounds' edges and words,
 * and the cut row's verdict (attack20 F6, review20b F1-F3). The verbs' runs through a shell are in
 * test/commands/roles/stdin-cut.test.ts and bulk-input-limit.test.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LineVerdict } from '../../src/bulk/check.js';
import { type InputSnapshot, refuseCutLastRow, snapshotInput } from '../../src/bulk/input.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-bulk-cut-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The snapshot of `text` given on an in-process standard input (a stream with no descriptor). */
async function piped(text: string, limit?: number): Promise<InputSnapshot> {
  const snap = await snapshotInput('-', Readable.from([Buffer.from(text)]), '--file', limit);
  snap.remove();
  return snap;
}

const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('cutShort: a pipe whose last line has no line ending and holds a row', () => {
  it.each([
    ['user,role\nu1,r', true],
    ['user,role\r\nu1,r', true],
    ['user,role\ru1,r', true],
    ['user,role\nu1,r\n', false],
    ['user,role\nu1,r\r\n', false],
    ['user,role\nu1,r\r', false],
    // A spreadsheet's empty row, cut or not, is no row.
    ['user,role\nu1,r\n,,;\t ', false],
    ['user,role\ru1,r\r,,', false],
    ['', false],
  ])('%j: %s', async (text, cut) => {
    expect((await piped(text)).cutShort).toBe(cut);
  });

  it('reads the end of an input longer than the part it looks at', async () => {
    const rows = `user,role\n${'usr_1,r\n'.repeat(1000)}`;
    expect((await piped(rows)).cutShort).toBe(false);
    expect((await piped(`${rows}usr_2,r`)).cutShort).toBe(true);
    expect((await piped(`${rows}usr_2,r\n,,`)).cutShort).toBe(false);
  });

  it('standard input that is a regular file (a redirect) is taken as it is; one that cannot be told is a pipe', async () => {
    const path = file('redirected.csv', 'user,role\nu1,r');
    const fd = openSync(path, 'r');
    try {
      const redirected = Object.assign(Readable.from([Buffer.from('user,role\nu1,r')]), { fd });
      const snap = await snapshotInput('-', redirected, '--file');
      snap.remove();
      expect(snap.cutShort).toBe(false);
    } finally {
      closeSync(fd);
    }
    const unknown = Object.assign(Readable.from([Buffer.from('user,role\nu1,r')]), { fd: 1_000_000 });
    const snap = await snapshotInput('-', unknown, '--file');
    snap.remove();
    expect(snap.cutShort).toBe(true);
  });

  it('a named file is taken without a final line ending; a named pipe is not', async () => {
    const named = await snapshotInput(file('named.csv', 'user,role\nu1,r'), Readable.from([]), '--file');
    named.remove();
    expect(named.cutShort).toBe(false);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('/bin/sh', ['-c', `printf 'user,role\\nu1,r' > '${fifo}'`]);
    const snap = await snapshotInput(fifo, Readable.from([]), '--file');
    snap.remove();
    await new Promise((done) => writer.on('close', done));
    expect([snap.label, snap.name, snap.cutShort]).toEqual([fifo, fifo, true]);
  });
});

describe('the byte bound of one run', () => {
  const mib = 1024 * 1024;

  it('takes an input of exactly the bound, from a file or standard input', async () => {
    const at = await snapshotInput(file('at.csv', Buffer.alloc(mib, 'a')), Readable.from([]), '--file', mib);
    at.remove();
    expect(at.sha256).toHaveLength(64);
    expect((await piped('a'.repeat(mib), mib)).sha256).toHaveLength(64);
  });

  it('says a bound of whole MiB in MiB and bytes', async () => {
    const over = file('over.csv', Buffer.alloc(mib + 1, 'a'));
    await expect(snapshotInput(over, Readable.from([]), '--file', mib)).rejects.toMatchObject({
      exitCode: 2,
      code: 'input_too_large',
      message: `${over} holds more than 1 MiB (1048576 bytes), the most one bulk run takes; nothing was sent`,
    });
    await expect(piped('a'.repeat(mib + 1), mib)).rejects.toMatchObject({
      message: 'stdin holds more than 1 MiB (1048576 bytes), the most one bulk run takes; nothing was sent',
    });
  });
});

describe('refuseCutLastRow', () => {
  let csv = '';
  let ndjson = '';
  beforeAll(() => {
    csv = file('rows.csv', 'user,role\nu1,r\nu2,r');
    ndjson = file('rows.ndjson', '{"user":"u1","role":"r"}');
  });
  const input = (over: Partial<InputSnapshot>): InputSnapshot => ({
    path: csv,
    label: 'stdin',
    name: '',
    sha256: '',
    cutShort: true,
    remove: () => {},
    ...over,
  });
  async function verdicts(snap: InputSnapshot, list: LineVerdict[]) {
    async function* given() {
      yield* list;
    }
    const out: LineVerdict[] = [];
    for await (const verdict of refuseCutLastRow(snap, given())) out.push(verdict);
    return out;
  }
  const words = (what: string) =>
    `${what} ends in this row, with no line ending after it: was what writes it cut short? A row cut short can name another user or role; if the input is whole, end it with a newline (\`(your-command; echo) | svc …\`) or give it as a file`;

  it('refuses the last row of a CSV cut short, keeping its own problems and every row before it', async () => {
    const rows = [
      { line: 2, row: { user: 'u1' } },
      { line: 3, problems: ['no such role'] },
    ];
    expect(await verdicts(input({}), rows)).toEqual([
      { line: 2, row: { user: 'u1' } },
      { line: 3, problems: ['no such role', words('standard input')] },
    ]);
    expect(await verdicts(input({ label: '/dev/stdin', name: '/dev/stdin' }), rows.slice(0, 1))).toEqual([
      { line: 2, problems: [words('the pipe /dev/stdin')] },
    ]);
    expect(await verdicts(input({}), [])).toEqual([]);
  });

  it('passes every verdict of an input not cut short, or not CSV', async () => {
    const rows = [
      { line: 1, row: { user: 'u1' } },
      { line: 2, row: { user: 'u2' } },
    ];
    expect(await verdicts(input({ cutShort: false }), rows)).toEqual(rows);
    expect(await verdicts(input({ path: ndjson }), rows)).toEqual(rows);
    expect(await verdicts(input({ path: ndjson, name: ndjson, label: ndjson }), rows)).toEqual(rows);
  });
});
