/**
 * src/config/disk.ts in-process: the store's proof of room (a scratch file made new, never
 * through a link, and removed), its atomic write (the file replaced whole, 0600, tab-indented, at
 * a link's target, refused again right before the rename), and which temp files of killed writes
 * the next write removes (only its own file's, of processes that are gone). Through the store:
 * test/config/store-disk.test.ts, config-store.test.ts.
 */
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realDisk } from '../../src/config/disk.js';
import { EXIT_CODES, type SvcError } from '../../src/errors.js';
import { roomBeside } from '../../src/system/output-file.js';
import { endedPid } from '../helpers/ended-pid.js';
import { useTempDir } from '../helpers/temp.js';

const root = useTempDir('svc-disk-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fresh = () => mkdtempSync(join(root, 'd-'));
const mode = (path: string) => statSync(path).mode & 0o777;
/** The pid of a process that has exited. */
const deadPid = () => endedPid();

describe('realDisk.reserve', () => {
  it.each([0, 1, 64 * 1024, 200_000])('proves room for %d bytes and leaves nothing behind', (bytes) => {
    const dir = fresh();
    writeFileSync(join(dir, 'credentials.json'), '{}');
    realDisk.reserve(join(dir, 'credentials.json'), bytes);
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });

  it('replaces a scratch file an earlier run of the same pid left, and a link planted in its place, never writing through it', () => {
    const dir = fresh();
    const scratch = roomBeside(join(dir, 'credentials.json'));
    writeFileSync(scratch, 'left over');
    realDisk.reserve(join(dir, 'credentials.json'), 100);
    expect(readdirSync(dir)).toEqual([]);
    const victim = join(root, `victim-${process.pid}`);
    writeFileSync(victim, 'theirs');
    symlinkSync(victim, scratch);
    realDisk.reserve(join(dir, 'credentials.json'), 100);
    expect(readdirSync(dir)).toEqual([]);
    expect(readFileSync(victim, 'utf8')).toBe('theirs');
  });

  it('fails with the system error when the scratch file cannot be made (the directory is missing)', () => {
    expect(() => realDisk.reserve(join(root, 'missing', 'credentials.json'), 100)).toThrow(/ENOENT/);
  });
});

describe('realDisk.write', () => {
  it('makes the directory 0700 and the file 0600, tab-indented JSON, with no temp file left', async () => {
    const dir = join(fresh(), 'svc');
    await realDisk.write(dir, 'config', { active_profile: 'ci', profiles: { ci: { tenant: 't' } } });
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(
      '{\n\t"active_profile": "ci",\n\t"profiles": {\n\t\t"ci": {\n\t\t\t"tenant": "t"\n\t\t}\n\t}\n}',
    );
    expect([mode(dir), mode(join(dir, 'config.json'))]).toEqual([0o700, 0o600]);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('replaces a looser file whole with a 0600 one', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'credentials.json'), `{"profiles":{}}${' '.repeat(1000)}`, { mode: 0o644 });
    await realDisk.write(dir, 'credentials', { profiles: {} });
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe('{\n\t"profiles": {}\n}');
    expect(mode(join(dir, 'credentials.json'))).toBe(0o600);
  });

  it('writes a link to the user’s own file at its target, keeping the link', async () => {
    const dir = fresh();
    const elsewhere = fresh();
    writeFileSync(join(elsewhere, 'creds.json'), '{}', { mode: 0o600 });
    symlinkSync(join(elsewhere, 'creds.json'), join(dir, 'credentials.json'));
    await realDisk.write(dir, 'credentials', { profiles: { a: 1 } });
    expect(lstatSync(join(dir, 'credentials.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(elsewhere, 'creds.json'), 'utf8'))).toEqual({ profiles: { a: 1 } });
    expect(readdirSync(elsewhere)).toEqual(['creds.json']);
  });

  it('refuses a link to nothing (exit 2, config_owner) and changes nothing', async () => {
    const dir = fresh();
    symlinkSync(join(dir, 'nowhere'), join(dir, 'config.json'));
    const error = (await realDisk.write(dir, 'config', {}).catch((e: unknown) => e)) as SvcError;
    expect([EXIT_CODES[error.category], error.code, error.message]).toEqual([
      2,
      'config_owner',
      `${join(dir, 'config.json')} is a symbolic link to something that does not exist, so svc will not read or write profiles through it`,
    ]);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('checks the file again right before replacing it: a link planted meanwhile is refused, the temp file removed', async () => {
    const dir = fresh();
    const path = join(dir, 'credentials.json');
    // Serialising the file runs between the first check and the rename: the link is planted then.
    const file = {
      profiles: {},
      toJSON() {
        symlinkSync(join(dir, 'nowhere'), path);
        return { profiles: {} };
      },
    };
    const error = (await realDisk.write(dir, 'credentials', file).catch((e: unknown) => e)) as SvcError;
    expect(error.code).toBe('config_owner');
    expect(readdirSync(dir)).toEqual(['credentials.json']);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });

  it('a write that fails removes its temp file and throws the system error', async () => {
    const dir = fresh();
    const file = {
      toJSON() {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    };
    await expect(realDisk.write(dir, 'config', file)).rejects.toThrow('ENOSPC');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('the temp files of killed writes', () => {
  it('removes its own file’s temp and scratch files of processes that are gone, and nothing else', async () => {
    const dir = fresh();
    const dead = deadPid();
    const gone = [`.credentials.json.${dead}-0123456789ab`, `.credentials.json.room-${dead}`];
    const kept = [
      // a process that runs: this one, and its parent
      `.credentials.json.${process.pid}-0123456789ab`,
      `.credentials.json.room-${process.ppid}`,
      // another file's
      `.config.json.${dead}-0123456789ab`,
      `.other.credentials.json.${dead}-0123456789ab`,
      // not the shape of a temp file
      `.credentials.json.${dead}-0123456789abc`,
      `.credentials.json.${dead}-0123456789AB`,
      `.credentials.json.x${dead}-0123456789ab`,
      `.credentials.json.room-${dead}x`,
      `.credentials.json.${dead}`,
      '.credentials.json.99999999999999999999-0123456789ab',
      'credentials.json.bak',
    ];
    for (const name of [...gone, ...kept]) writeFileSync(join(dir, name), 'secret', { mode: 0o600 });
    await realDisk.write(dir, 'credentials', { profiles: {} });
    expect(readdirSync(dir).sort()).toEqual([...kept, 'credentials.json'].sort());
  });

  it('are looked for beside a link’s target, where the write makes them', async () => {
    const dir = fresh();
    const elsewhere = fresh();
    writeFileSync(join(elsewhere, 'creds.json'), '{}', { mode: 0o600 });
    symlinkSync(join(elsewhere, 'creds.json'), join(dir, 'credentials.json'));
    const dead = deadPid();
    writeFileSync(join(elsewhere, `.creds.json.${dead}-0123456789ab`), 'secret');
    await realDisk.write(dir, 'credentials', {});
    expect(readdirSync(elsewhere)).toEqual(['creds.json']);
  });
});
