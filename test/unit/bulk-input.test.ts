// The first steps of every bulk run (src/bulk/input.ts, src/bulk/check.ts): the private copy of
// the input and its hash, and the check of every line before anything is sent, message by message.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkInput, type LineVerdict } from '../../src/bulk/check.js';
import { snapshotInput } from '../../src/bulk/input.js';
import { UsageError } from '../../src/errors.js';
import { testContext } from '../helpers/context.js';
import { tempDir } from '../helpers/temp.js';

async function* verdicts(list: LineVerdict[]): AsyncGenerator<LineVerdict> {
  yield* list;
}

describe('checkInput', () => {
  it('counts the good lines when there is no problem, saying nothing', async () => {
    const t = testContext();
    const n = await checkInput(
      t.ctx,
      'grants.csv',
      verdicts([
        { line: 2, row: {} },
        { line: 3, row: {} },
      ]),
      'h',
    );
    expect(n).toBe(2);
    expect(t.stderr()).toBe('');
  });

  it('prints every problem as FILE:LINE: message, then fails with exit 2 saying nothing was sent', async () => {
    const t = testContext();
    const error = await checkInput(
      t.ctx,
      'grants.csv',
      verdicts([
        { line: 2, row: {} },
        { line: 3, problems: ['no user', 'no role'] },
      ]),
      'fix the file',
    ).catch((e: UsageError) => e);
    expect(t.stderr()).toBe('grants.csv:3: no user\ngrants.csv:3: no role\n');
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: '1 line of grants.csv has problems; nothing was sent',
      code: 'invalid_file',
      hint: 'fix the file',
    });
  });

  it('shows the first 1,000 lines with problems and counts the rest', async () => {
    const t = testContext();
    const bad = Array.from({ length: 1234 }, (_, i) => ({ line: i + 2, problems: [`p${i + 2}`] }));
    const error = await checkInput(t.ctx, 'stdin', verdicts(bad), 'h').catch((e: Error) => e);
    const lines = t.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(1001);
    expect(lines[0]).toBe('stdin:2: p2');
    expect(lines[999]).toBe('stdin:1001: p1001');
    expect(lines[1000]).toBe('… and 234 more lines with problems');
    expect((error as Error).message).toBe('1,234 lines of stdin have problems; nothing was sent');
  });

  it('exactly 1,000 lines with problems: all shown, no "more" line', async () => {
    const t = testContext();
    const bad = Array.from({ length: 1000 }, (_, i) => ({ line: i + 1, problems: ['x'] }));
    await expect(checkInput(t.ctx, 'f', verdicts(bad), 'h')).rejects.toThrow(
      '1,000 lines of f have problems; nothing was sent',
    );
    expect(t.stderr().trimEnd().split('\n')).toHaveLength(1000);
  });
});

describe('snapshotInput', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('copies a file to a private place, with its SHA-256, and removes the copy', async () => {
    const dir = tempDir('svc-bulk-');
    const file = join(dir, 'grants.csv');
    const text = `user,role\n${'u,r\n'.repeat(30_000)}`;
    writeFileSync(file, text);
    const snap = await snapshotInput(file, Readable.from([]), '--file');
    expect(snap.label).toBe(file);
    expect(snap.name).toBe(file);
    expect(snap.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(readFileSync(snap.path, 'utf8')).toBe(text);
    expect(mode(snap.path)).toBe(0o600);
    expect(mode(dirname(snap.path))).toBe(0o700);
    snap.remove();
    expect(() => statSync(dirname(snap.path))).toThrow(/ENOENT/);
  });

  it('copies standard input for "-", named stdin', async () => {
    const snap = await snapshotInput(
      '-',
      Readable.from([Buffer.from('a,b\n'), Buffer.from('1,2\n')]),
      '--file',
    );
    expect([snap.label, snap.name]).toEqual(['stdin', '']);
    expect(readFileSync(snap.path, 'utf8')).toBe('a,b\n1,2\n');
    expect(snap.sha256).toBe(createHash('sha256').update('a,b\n1,2\n').digest('hex'));
    expect(mode(snap.path)).toBe(0o600);
    snap.remove();
  });

  it.each([
    ['a missing file', (dir: string) => join(dir, 'absent.csv'), 'no such file'],
    [
      'a directory',
      (dir: string) => {
        mkdirSync(join(dir, 'sub'));
        return join(dir, 'sub');
      },
      'it is a directory',
    ],
  ])('names %s and the flag', async (_name, make, reason) => {
    const path = make(tempDir('svc-bulk-'));
    await expect(snapshotInput(path, Readable.from([]), '--file')).rejects.toThrow(
      new UsageError(`cannot read --file ${path}: ${reason}`),
    );
  });

  it('names standard input when it fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('boom'));
      },
    });
    await expect(snapshotInput('-', failing, '--file')).rejects.toThrow(
      new UsageError('cannot read standard input: boom'),
    );
  });
});
