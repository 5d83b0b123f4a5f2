/**
 * fix-store18 #4: a credentials.json (or config.json) link was followed when its target was the
 * user's own, whatever the directories above that target: one another user can write lets them
 * swap the target for a file of theirs (their base_url, or a place where the credential lands).
 * The target's directories are checked as the store's own parents are (ssh's rule).
 */
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess, useFreshDirs } from '../helpers/context.js';

const dirs = useFreshDirs();
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const KEY = 'svc_pk_0123456789abcdefWXYZ';
const EMPTY = '{"profiles":{}}';

/** A store whose credentials.json is a link to `dotfiles/credentials.json`, an own 0600 file. */
function linkedStore(env: ReturnType<typeof dirs>) {
  const dir = env.SVC_CONFIG_DIR;
  mkdirSync(dir, { mode: 0o700 });
  const dotfiles = join(env.SVC_STATE_DIR, 'dotfiles');
  mkdirSync(dotfiles, { recursive: true, mode: 0o700 });
  const real = join(dotfiles, 'credentials.json');
  writeFileSync(real, EMPTY, { mode: 0o600 });
  const link = join(dir, 'credentials.json');
  symlinkSync(real, link);
  return { dir, dotfiles, real, link };
}

const login = (env: Record<string, string>) =>
  runInProcess(['login', '--base-url', 'http://127.0.0.1:9', '--with-token'], env, { stdin: KEY });

describe.skipIf(process.platform === 'win32')(
  'the directories above a credentials.json link’s target',
  () => {
    it('a target in a directory of the user’s own that others can write (0777) is refused, one line; nothing written', async () => {
      const env = dirs();
      const { dotfiles, real, link } = linkedStore(env);
      chmodSync(dotfiles, 0o777);
      const r = await login(env);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${link} is a symbolic link to ${real}, which is in ${dotfiles}, which others can write (mode 0777), so svc will not read or write credentials through it; check what is in it, then \`chmod go-w ${dotfiles}\`, or remove the link (\`rm ${link}\`) and log in again; svc changed nothing\n`,
      });
      expect([readFileSync(real, 'utf8'), (statSync(dotfiles).mode & 0o777).toString(8)]).toEqual([
        EMPTY,
        '777',
      ]);
    });

    it('one further up counts too, and a private chain is followed as before', async () => {
      const env = dirs();
      const { dotfiles, real, link } = linkedStore(env);
      const above = env.SVC_STATE_DIR;
      chmodSync(above, 0o757);
      await expect(
        new ConfigStore(env.SVC_CONFIG_DIR).setCredential('ci', {
          type: 'token',
          access_token: KEY,
          obtained_at: '2026-01-15T12:00:00.000Z',
        }),
      ).rejects.toThrow(
        `${link} is a symbolic link to ${real}, which is in ${above}, which others can write (mode 0757)`,
      );
      expect(readFileSync(real, 'utf8')).toBe(EMPTY);
      chmodSync(above, 0o700);
      expect(dotfiles).toBe(join(above, 'dotfiles'));
      await new ConfigStore(env.SVC_CONFIG_DIR).setCredential('ci', {
        type: 'token',
        access_token: KEY,
        obtained_at: '2026-01-15T12:00:00.000Z',
      });
      expect(readFileSync(real, 'utf8')).toContain(KEY);
    });

    it.skipIf(!root)(
      'a target in a directory another user owns is refused, with the fix that fits',
      async () => {
        const env = dirs();
        const { dotfiles, real, link } = linkedStore(env);
        chmodSync(dotfiles, 0o755);
        chownSync(dotfiles, 4242, 4242);
        const r = await login(env);
        expect(r).toEqual({
          code: 2,
          stdout: '',
          stderr: `error: ${link} is a symbolic link to ${real}, which is in ${dotfiles}, which belongs to another user (uid 4242), so svc will not read or write credentials through it; \`chown\` it to you if it is yours to take, or remove the link (\`rm ${link}\`) and log in again; svc changed nothing\n`,
        });
        expect(readFileSync(real, 'utf8')).toBe(EMPTY);
      },
    );
  },
);
