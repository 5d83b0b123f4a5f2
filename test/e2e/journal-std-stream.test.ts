/**
 * review25b H1: `--journal /dev/stdout` (or a link to /proc/self/fd/1, or a link to the output
 * file itself) with stdout redirected to a file was accepted: the journal was written over the
 * output, and at the run's end svc removed the journal's name, the machine's /dev/stdout. Now it
 * is refused (exit 2, one line, nothing sent), as are `--journal -` (L3: a file named `-`) and
 * `--journal /proc/self/fd/1` (L2: "cannot lock … no such file"). Spawned: the streams are the
 * process's own. Links are made in the test's directory; /dev is never written.
 */
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import { bash, sandboxEnv } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';

const sandbox = useSandbox();
const env = sandboxEnv(sandbox);
const work = useTempDir('svc-journal-stream-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ELSEWHERE =
  'give a file path, e.g. --journal ./svc-journal.ndjson, or leave out --journal (svc keeps it in its state directory); svc changed nothing';

/** The requests the sandbox was sent that are not reads: a refused run sends none. */
async function changeCount(): Promise<number> {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats).reduce((sum, [key, n]) => (key.startsWith('GET ') ? sum : sum + n), 0);
}

/** Runs a grant from a file with `journal`, stdout to `out` and stderr to `err` in `dir`. */
async function grant(dir: string, journal: string) {
  writeFileSync(join(dir, 'g.csv'), 'user,role\nusr_analyst,tenant_viewer\n');
  const before = await changeCount();
  const r = await bash(
    `cd "${dir}" && svc roles assign --file g.csv --expires-in 8h --justification r --journal '${journal}' > out.txt 2> err.txt`,
    { env },
  );
  const sent = (await changeCount()) - before;
  return {
    code: r.code,
    out: readFileSync(join(dir, 'out.txt'), 'utf8'),
    err: readFileSync(join(dir, 'err.txt'), 'utf8'),
    sent,
  };
}

describe('--journal the same file as svc’s output, or a path of the system’s', () => {
  it('a link to /proc/self/fd/1 with stdout a file: refused, the output untouched, the link kept', async () => {
    const dir = mkdtempSync(join(work, 'a-'));
    const link = join(dir, 'myout');
    symlinkSync('/proc/self/fd/1', link);
    expect(await grant(dir, link)).toEqual({
      code: 2,
      out: '',
      err: `error: --journal ${link} is svc's standard output (the same file); the journal is a file of its own; ${ELSEWHERE}\n`,
      sent: 0,
    });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['err.txt', 'g.csv', 'myout', 'out.txt']);
  });

  it('a link straight to the file stdout goes to, and to stderr’s: refused as that stream', async () => {
    const dir = mkdtempSync(join(work, 'b-'));
    for (const [name, target, stream] of [
      ['toout', 'out.txt', 'standard output'],
      ['toerr', 'err.txt', 'standard error'],
    ] as const) {
      const link = join(dir, name);
      symlinkSync(join(dir, target), link);
      const r = await grant(dir, link);
      expect([r.code, r.sent, r.out]).toEqual([2, 0, '']);
      expect(r.err).toBe(
        `error: --journal ${link} is svc's ${stream} (the same file); the journal is a file of its own; ${ELSEWHERE}\n`,
      );
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
    }
  });

  it('/proc/self/fd/1 itself: said as svc’s output (was "cannot lock journal …: no such file")', async () => {
    const dir = mkdtempSync(join(work, 'c-'));
    expect(await grant(dir, '/proc/self/fd/1')).toEqual({
      code: 2,
      out: '',
      err: `error: --journal /proc/self/fd/1 is svc's standard output (the same file); the journal is a file of its own; ${ELSEWHERE}\n`,
      sent: 0,
    });
  });

  it('`-`: refused, no file named `-` made', async () => {
    const dir = mkdtempSync(join(work, 'd-'));
    expect(await grant(dir, '-')).toEqual({
      code: 2,
      out: '',
      err: `error: \`-\` is not a journal path; the journal is a file svc writes and reads back, not standard input or output; ${ELSEWHERE}\n`,
      sent: 0,
    });
    expect(existsSync(join(dir, '-'))).toBe(false);
  });
});
