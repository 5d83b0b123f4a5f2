/**
 * fix-files18 #5: a run that takes over an earlier run's empty --secret-file (the same key, its
 * writer gone) and then cannot write the secret into it (a disk that filled up after the proof of
 * room) removed the file and its record: the next run no longer named the key whose re-run gets
 * the secret, and a file this run did not make was gone. Now the file is left as the earlier run
 * left it (empty; a part of the secret written is taken out again), its record with it, and the
 * error says where it is. A file the run made itself is still removed. The full disk is a spied
 * FileHandle.writeFile (no module is mocked).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SecretFile, type SecretIntent } from '../../src/system/secret-file.js';
import { endedPid } from '../helpers/ended-pid.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-secret-taken-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const records = join(dir, 'records');

let handles: FileHandle;
beforeAll(async () => {
  writeFileSync(join(dir, 'probe'), '');
  const handle = await open(join(dir, 'probe'), 'r');
  handles = Object.getPrototypeOf(handle);
  await handle.close();
});
afterEach(() => vi.restoreAllMocks());

/** A disk that fills up half-way through the secret: half of it is written, then ENOSPC. */
function fillDisk(): void {
  vi.spyOn(handles, 'writeFile').mockImplementation(async function (this: FileHandle, data) {
    await this.write(String(data).slice(0, 5));
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  });
}

const intent = (key: string): SecretIntent => ({
  records,
  key,
  made: 'a webhook to https://example.com/taken',
  find: 'see it with: svc webhooks ls',
  rerun: `the same command with --idempotency-key ${key}`,
});
const recordOf = (path: string) =>
  join(records, `${createHash('sha256').update(resolve(path)).digest('hex').slice(0, 32)}.json`);
const made = {
  made: 'webhook wh_1 was created',
  what: "webhook wh_1's signing secret",
  remedy: 'rotate it with: svc webhooks rotate-secret wh_1 --secret-file PATH --yes',
};

describe('a secret that cannot be written once it arrived', () => {
  it('into an earlier run’s empty file taken over: the file stays as it was, its record too, and the error says where', async () => {
    const path = join(dir, 'taken.secret');
    const key = `taken-${Date.now()}`;
    // What a run killed in flight leaves: the empty file, and its record naming a pid now gone.
    writeFileSync(path, '', { mode: 0o600 });
    mkdirSync(records, { recursive: true });
    const gone = endedPid();
    const { records: _, ...rest } = intent(key);
    writeFileSync(recordOf(path), `${JSON.stringify({ path: resolve(path), ...rest, pid: gone })}\n`);

    const file = await SecretFile.create(path, '--secret-file', intent(key));
    fillDisk();
    const error = await file.write('whsec_0123456789', 'secret', made).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `webhook wh_1 was created, but webhook wh_1's signing secret could not be written to ${path}: no space left on device; the secret was not saved; ${path} is left as it was (empty), for the re-run with the same key to fill`,
    );
    expect([existsSync(path), existsSync(path) && readFileSync(path, 'utf8')]).toEqual([true, '']);
    expect(existsSync(recordOf(path))).toBe(true);

    // The next run with that key takes it over again (its writer is gone), and fills it.
    vi.restoreAllMocks();
    const again = await SecretFile.create(path, '--secret-file', intent(key));
    await again.write('whsec_0123456789', 'secret', made);
    expect(readFileSync(path, 'utf8')).toBe('whsec_0123456789');
  });

  it('into a file this run made: the file is removed (it holds part of the secret)', async () => {
    const path = join(dir, 'made.secret');
    const file = await SecretFile.create(path, '--secret-file', intent(`made-${Date.now()}`));
    fillDisk();
    const error = await file.write('whsec_0123456789', 'secret', made).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `webhook wh_1 was created, but webhook wh_1's signing secret could not be written to ${path}: no space left on device; the secret was not saved`,
    );
    expect(existsSync(path)).toBe(false);
    expect(existsSync(recordOf(path))).toBe(false);
  });
});
