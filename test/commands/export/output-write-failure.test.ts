import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { virtualClock } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { BIN } from '../../helpers/svc.js';
import { useTempDir } from '../../helpers/temp.js';

// attack21b F1, F2: a write to an output file that fails once the file is open (a full disk, a
// reader gone) is not "usage or invalid input" (exit 2): a full disk is a failure (exit 1), as
// stdout's is; the reader of `-o /dev/stdout` going away is stdout's closed pipe (a listing ends
// quietly, a plan with changes pending still exits 10). A path refused before writing stays 2.
const svc = useSandboxContext({ users: 5, tenants: 1 }, { tenant: false });
const dir = useTempDir('svc-output-fails-');
const ACCESS = `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${user(4)}\n        role: tenant_viewer\n`;

describe('an output file whose write fails', () => {
  it('export -o /dev/full: exit 1, the file and the reason named', async () => {
    const r = await svc.run(['export', '--tenant', 'acme-labs', '-o', '/dev/full']);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: cannot write --output /dev/full: no space left on device; check where it goes (a full disk, a failed device), then run the command again\n',
    });
  });

  it('plan --out /dev/full: exit 1, not the 10 of a plan saved', async () => {
    const file = writeFile(dir, 'full.yaml', ACCESS);
    const r = await svc.run(['plan', '-f', file, '--out', '/dev/full']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: cannot write --out /dev/full: no space left on device; check where it goes (a full disk, a failed device), then run the command again\n',
    );
  });

  it('a directory that does not exist is still a usage error (exit 2)', async () => {
    const r = await svc.run(['export', '--tenant', 'acme-labs', '-o', join(dir, 'none', 'x.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: cannot write --output .*x\.yaml: its directory does not exist/);
  });
});

/** The built svc with stdout a pipe whose reader is gone before svc writes (`| true`). */
function readerGone(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...svc.env(), NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdout.destroy();
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('-o /dev/stdout whose reader goes away', () => {
  it('export: ends quietly with 0, as plain stdout does', async () => {
    expect(await readerGone(['export', '--tenant', 'acme-labs', '-o', '/dev/stdout'])).toEqual({
      code: 0,
      stderr: '',
    });
  });
});

describe('plan --out /dev/stdout whose reader goes away', () => {
  it('changes pending: still exit 10, never 0', async () => {
    const file = writeFile(dir, 'gone.yaml', ACCESS);
    const r = await readerGone(['plan', '-f', file, '--out', '/dev/stdout']);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(/^error: changes are pending \(stdout closed/);
  });
});

describe('an output path that cannot be a file (review21c F6)', () => {
  it.each([
    ['export', ['export', '--tenant', 'acme-labs', '-o', '/dev/null/x'], '--output'],
    ['plan', ['plan', '-f', '<access>', '--out', '/dev/null/x'], '--out'],
  ])('%s: a path under a file is a usage error naming the flag (exit 2)', async (_name, argv, flag) => {
    const file = writeFile(dir, 'under-file.yaml', ACCESS);
    const r = await svc.run(argv.map((a) => (a === '<access>' ? file : a)));
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(`error: cannot write ${flag} /dev/null/x: not a directory\n`);
  });

  // Node 24's statSync({ throwIfNoEntry: false }) answers undefined for a path under a file, where
  // Node 20 throws: on 24 the path passed as one a file could be made at, the export said its
  // webhook URL's secret was in a file "written 0600", then failed to write it (path-stat.ts).
  it('export -o under a regular file: refused before a word about the file, on every Node', async () => {
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/in?token=s3cr3tTokenValue123456',
      event_types: ['exception.created'],
    });
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const out = join(file, 'x.yaml');
    const r = await svc.run(['export', '--tenant', 'acme-labs', '--only', 'webhooks', '-o', out]);
    await as(svc.sandbox(), LABS, 'DELETE', `/v1/webhooks/${made.id}`); // the later tests' export has none
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot write --output ${out}: not a directory\n`,
    });
  });
});

/** The built svc given a pipe as fd 3 whose reader is gone before svc writes: `--out /dev/fd/3` is no stdout. */
function fd3ReaderGone(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...svc.env(), NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  (child.stdio[3] as NodeJS.ReadableStream & { destroy(): void }).destroy();
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// review21b R21b-3: the EPIPE of another pipe than stdout (a named pipe, /dev/fd/3) is that file's:
// named in the words, and stdout, open and fine, still gets the plan.
describe('plan --out PIPE (not stdout) whose reader goes away', () => {
  it('changes pending: exit 10 naming the --out file, the plan still printed on stdout', async () => {
    const file = writeFile(dir, 'fd3.yaml', ACCESS);
    const r = await fd3ReaderGone(['plan', '-f', file, '--out', '/dev/fd/3']);
    expect(r.code, r.stderr).toBe(10);
    expect(r.stdout).toContain(`${user(4)}`);
    expect(r.stderr).toMatch(
      /^plan: .*\nerror: changes are pending \(--out \/dev\/fd\/3: its reader closed the pipe before the plan was written whole, so it holds no plan to apply\): plan: /,
    );
  });

  it('export: exit 1 naming the --output file, never a quiet 0', async () => {
    const r = await fd3ReaderGone(['export', '--tenant', 'acme-labs', '-o', '/dev/fd/3']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr:
        'error: cannot write --output /dev/fd/3: its reader closed the pipe before all of it was written; keep the reader of that pipe open until svc ends (or give a regular file), then run the command again\n',
    });
  });
});

// review21d R21d-3: a named pipe nobody reads was opened for writing with no way out (the open
// waits for a reader; Ctrl-C and SIGTERM do nothing there): its reader is waited for 10 s, then it is
// refused, exit 2. The 10 s are the run's clock's (virtualClock: its pauses counted, played at once).
describe('an output named pipe that nobody reads', () => {
  it.each([['export', ['export', '--tenant', 'acme-labs', '-o', '<fifo>'], '--output']])(
    '%s: refused after 10 s, naming it and what to do',
    async (name, argv, flag) => {
      const fifo = join(dir, `nobody-reads-${name}`);
      execFileSync('mkfifo', [fifo]);
      const file = writeFile(dir, 'fifo.yaml', ACCESS);
      const clock = virtualClock();
      const r = await svc.run(
        argv.map((a) => (a === '<fifo>' ? fifo : a === '<access>' ? file : a)),
        { clock },
      );
      expect(r.code).toBe(2);
      // Refused once the 10 s were waited, not before: every pause of the run was the reader's poll.
      expect(clock.waits.reduce((sum, ms) => sum + ms, 0)).toBe(10_000);
      expect(r.stderr).toContain(
        `error: cannot write ${flag} ${fifo}: no process opened this named pipe for reading within 10 s; start what reads it first (or give a regular file), then run the command again\n`,
      );
    },
  );
});
