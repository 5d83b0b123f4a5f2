/**
 * fix-store18 #1/#2: the words of a tightened store, and the lock's own directory step.
 * #1: a 0770 store directory whose group has the owner as its only member (a user private group)
 * was said "readable by others": nobody else can read it; what svc does is close it to the group.
 * #2: the lock's directory step (ensurePrivateDir) chmod-ed a store directory others could write to
 * 0700 and wrote the credential into it: one made between the store's check and the write (a login
 * waits minutes for the browser) was never refused. Others can write it: refused, as a file is.
 */
import { chmodSync, chownSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onlyMemberIsOwner } from '../../src/config/private-group.js';
import { ConfigStore } from '../../src/config/store.js';
import { ensurePrivateDir } from '../../src/config/store-directory.js';
import { runInProcess, useFreshDirs } from '../helpers/context.js';

const dirs = useFreshDirs();
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const posix = process.platform !== 'win32';
/** The user's primary group is a private one (root's is here): a 0770 directory of theirs lets nobody else in. */
const privateGroup = posix && onlyMemberIsOwner(process.getgid!(), process.getuid!());
const KEY = 'svc_pk_0123456789abcdefWXYZ';
const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);
const credential = {
  type: 'token' as const,
  access_token: KEY,
  obtained_at: '2026-01-15T12:00:00.000Z',
};

describe.skipIf(!privateGroup)('a store directory open to the owner’s private group', () => {
  it.each(['770', '750'])(
    '0%s is made 0700, said as open to its group, whose only member is the owner',
    async (loose) => {
      const env = dirs();
      const dir = env.SVC_CONFIG_DIR;
      mkdirSync(dir);
      chmodSync(dir, Number.parseInt(loose, 8));
      const r = await runInProcess(['config', 'set', 'base_url', 'http://127.0.0.1:9'], env);
      expect(r).toEqual({
        code: 0,
        stdout: '',
        stderr:
          `warning: ${dir} was open to its group (0${loose}), whose only member is you; svc made it 0700, since it holds credentials (a user added to the group later would get in)\n` +
          '✓ set base_url for profile "default" (a new profile, now the active one)\n',
      });
      expect(mode(dir)).toBe('700');
    },
  );

  it('a credentials.json of 0660 is made 0600, with the same words', async () => {
    const env = dirs();
    const dir = env.SVC_CONFIG_DIR;
    await new ConfigStore(dir).setCredential('default', credential);
    const file = join(dir, 'credentials.json');
    chmodSync(file, 0o660);
    const said: string[] = [];
    expect(new ConfigStore(dir, { warn: (m) => said.push(m) }).credential('default')?.access_token).toBe(KEY);
    expect(said).toEqual([
      `${file} was open to its group (0660), whose only member is you; svc made it 0600, since it holds credentials (a user added to the group later would get in)`,
    ]);
    expect(mode(file)).toBe('600');
  });
});

describe.skipIf(!posix)('the lock’s directory step (ensurePrivateDir)', () => {
  it('makes a missing directory 0700, and leaves a private one as it is', () => {
    const env = dirs();
    const made = join(env.SVC_CONFIG_DIR, 'a', 'b');
    ensurePrivateDir(made, undefined);
    expect([mode(env.SVC_CONFIG_DIR), mode(join(env.SVC_CONFIG_DIR, 'a')), mode(made)]).toEqual([
      '700',
      '700',
      '700',
    ]);
    chmodSync(made, 0o500);
    ensurePrivateDir(made, undefined);
    expect(mode(made)).toBe('500');
  });

  it.each(['777', '757', '1777', '3777'])(
    'refuses an own directory others can write (0%s), one line naming the chmod after a look; mode left',
    (loose) => {
      const env = dirs();
      const dir = env.SVC_CONFIG_DIR;
      mkdirSync(dir);
      chmodSync(dir, Number.parseInt(loose, 8));
      const said: string[] = [];
      expect(() => ensurePrivateDir(dir, (m) => said.push(m))).toThrow(
        loose.length === 3
          ? `the config directory ${dir} is writable by others (mode 0${loose}), so svc will not keep credentials in it`
          : `the config directory ${dir} is a shared directory (mode 0${loose}, sticky), so svc will not keep credentials in it`,
      );
      expect([mode(dir), said]).toEqual([loose, []]);
    },
  );

  it.each(['755', '750', '705', '711'])(
    'tightens an own directory others can only read or enter (0%s) to 0700, saying so',
    (loose) => {
      const env = dirs();
      const dir = env.SVC_CONFIG_DIR;
      mkdirSync(dir);
      chmodSync(dir, Number.parseInt(loose, 8));
      const said: string[] = [];
      ensurePrivateDir(dir, (m) => said.push(m));
      expect(mode(dir)).toBe('700');
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        new RegExp(`^${dir} was .* \\(0${loose}\\).*; svc made it 0700, since it holds credentials`),
      );
    },
  );

  it('a store directory made 0777 after the check and before the write is refused, nothing written', async () => {
    const env = dirs();
    const dir = env.SVC_CONFIG_DIR;
    const store = new ConfigStore(dir);
    store.checkBeforeWriting(); // a login checks, then waits for the browser
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    await expect(store.setCredential('default', credential)).rejects.toThrow(
      `the config directory ${dir} is writable by others (mode 0777), so svc will not keep credentials in it`,
    );
    expect([mode(dir), readdirSync(dir)]).toEqual(['777', []]);
  });

  it.skipIf(!root)(
    'a store directory another user made after the check (in sticky /tmp) is refused, nothing written',
    async () => {
      const env = dirs();
      const dir = env.SVC_CONFIG_DIR;
      const store = new ConfigStore(dir);
      store.checkBeforeWriting();
      mkdirSync(dir, { mode: 0o755 });
      chownSync(dir, 4242, 4242);
      await expect(store.setCredential('default', credential)).rejects.toThrow(
        `the config directory ${dir} belongs to another user (uid 4242), so svc will not keep credentials in it`,
      );
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});
