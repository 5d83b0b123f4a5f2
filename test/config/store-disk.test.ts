/**
 * Where the credential store's writes land (config/disk.ts), review16c R6 and R2.
 * R6: with credentials.json a link to the user's own file elsewhere, the write's temp file is made
 * beside the link's target, so the room proved before a refresh token is spent must be proved there.
 * R2: a write killed between its temp file and the rename left `.credentials.json.PID-HEX` (every
 * profile's credential) for good; the next write removes those of processes that are gone.
 */
import {
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realDisk } from '../../src/config/disk.js';
import { ConfigStore } from '../../src/config/store.js';
import { roomBeside } from '../../src/system/output-file.js';
import { useFreshDirs } from '../helpers/context.js';
import { endedPid } from '../helpers/ended-pid.js';

const dirs = useFreshDirs();
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const KEY = 'svc_pk_0123456789abcdefWXYZ';
const credential = { type: 'token' as const, access_token: KEY, obtained_at: '2026-01-15T12:00:00.000Z' };

/** A config directory whose credentials.json links to the user's own file in `elsewhere`. */
function linked() {
  const env = dirs();
  const dir = env.SVC_CONFIG_DIR;
  const elsewhere = env.SVC_STATE_DIR;
  mkdirSync(dir, { mode: 0o700 });
  mkdirSync(elsewhere, { mode: 0o700 });
  writeFileSync(join(elsewhere, 'creds.json'), '{"profiles":{}}', { mode: 0o600 });
  symlinkSync(join(elsewhere, 'creds.json'), join(dir, 'credentials.json'));
  return { dir, elsewhere };
}

describe.skipIf(process.platform === 'win32')('the credential store’s disk', () => {
  it('R6: proves the room where the write will happen, beside a link’s target, not in the config directory', () => {
    const { dir, elsewhere } = linked();
    // Something in the way of a scratch file beside the target (a directory rm cannot remove)
    // stands for a read-only or full target directory: the proof must fail there.
    mkdirSync(join(roomBeside(join(elsewhere, 'creds.json')), 'x'), { recursive: true });
    expect(() => realDisk.reserve(join(dir, 'credentials.json'), 1024)).toThrow();
    // The config directory is left as it was.
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });

  it('R2: the next write removes the temp files of a write killed before its rename; a live one’s stays', async () => {
    const { dir, elsewhere } = linked();
    const dead = endedPid();
    const stale = [`.creds.json.${dead}-0123456789ab`, `.creds.json.room-${dead}`];
    const live = `.creds.json.${process.ppid}-0123456789ab`;
    for (const name of [...stale, live]) writeFileSync(join(elsewhere, name), KEY, { mode: 0o600 });
    await new ConfigStore(dir).setCredential('ci', credential);
    expect(readdirSync(elsewhere).sort()).toEqual([live, 'creds.json'].sort());
  });

  // fix-store17 #3: the stale temps removed were any file of that name, whoever owned it. Played as
  // root with uid 65534 (a file cannot be given away otherwise).
  it.skipIf(!root)(
    'R2: removes only stale temp files the user owns; another user’s is left as it is',
    async () => {
      const { dir, elsewhere } = linked();
      const dead = endedPid();
      const mine = `.creds.json.${dead}-0123456789ab`;
      const theirs = [`.creds.json.${dead}-ba9876543210`, `.creds.json.room-${dead}`];
      for (const name of [mine, ...theirs]) writeFileSync(join(elsewhere, name), KEY, { mode: 0o600 });
      for (const name of theirs) chownSync(join(elsewhere, name), 65534, 65534);
      await new ConfigStore(dir).setCredential('ci', credential);
      expect(readdirSync(elsewhere).sort()).toEqual([...theirs, 'creds.json'].sort());
      for (const name of theirs) {
        expect([readFileSync(join(elsewhere, name), 'utf8'), statSync(join(elsewhere, name)).uid]).toEqual([
          KEY,
          65534,
        ]);
      }
    },
  );
});
