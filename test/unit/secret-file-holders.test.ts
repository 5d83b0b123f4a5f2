/**
 * Whether the run a --secret-file's record names still waits for its secret, by the journal
 * lock's rule (judgeMark, src/system/processes.ts; attack21 F10, F7): a record of another PID
 * namespace (a container sharing the state directory) is a run that may be waiting, whatever its
 * pid is here; a pid that another program has now, or a record of an earlier boot, is a run gone,
 * whose empty file the re-run with its key takes over.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { thisProcess } from '../../src/system/processes.js';
import { SecretFile, type SecretIntent } from '../../src/system/secret-file.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-secret-holders-');
const records = join(dir, 'records');
const sleeps: ChildProcess[] = [];
afterAll(() => {
  for (const child of sleeps) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const made = 'a webhook to https://example.com/holders';
const intent = (key: string): SecretIntent => ({
  records,
  key,
  made,
  find: 'see it with: svc webhooks ls',
  rerun: `the same command with --idempotency-key ${key}`,
});

/** An empty file a run left, and its record naming the run's process as `mark` says. */
function leftBy(name: string, key: string, mark: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, '', { mode: 0o600 });
  mkdirSync(records, { recursive: true });
  const { records: _, ...rest } = intent(key);
  const record = join(
    records,
    `${createHash('sha256').update(resolve(path)).digest('hex').slice(0, 32)}.json`,
  );
  writeFileSync(record, `${JSON.stringify({ path: resolve(path), ...rest, ...thisProcess(), ...mark })}\n`);
  return path;
}

function otherProgram(): number {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  sleeps.push(child);
  return child.pid!;
}

it('a record of another PID namespace: its run may still be waiting, even with our own pid', async () => {
  const path = leftBy('ns.secret', 'k-ns', { pid: process.pid, pidns: 'pid:[4026599999]', start: '1' });
  const error = await SecretFile.create(path, '--secret-file', intent('k-ns')).catch((e: Error) => e);
  expect((error as Error).message).toBe(
    `--secret-file ${path} is empty: another svc run (pid ${process.pid} in another PID namespace (another container)) may still be waiting for its secret to write it there (${made} may be being made)`,
  );
  expect(readFileSync(path, 'utf8')).toBe('');
});

it('a pid another program has now, or a record of an earlier boot: the run is gone, and the re-run takes the file over', async () => {
  for (const [name, mark] of [
    ['reused.secret', { pid: otherProgram(), start: '1' }],
    ['boot.secret', { pid: otherProgram(), boot: 'a-boot-before', start: '1' }],
  ] as const) {
    const path = leftBy(name, `k-${name}`, mark);
    const file = await SecretFile.create(path, '--secret-file', intent(`k-${name}`));
    await file.write('whsec_0123456789');
    expect(readFileSync(path, 'utf8')).toBe('whsec_0123456789');
  }
});
