/**
 * fix-files19 #3: an older `sudo -E svc login` (before session 18 gave root's writes to $HOME's
 * owner) left a root-owned 0600 credentials.json, or a root-owned store directory, in the user's
 * home; the user's own runs then said a bare `EACCES: permission denied, open …`. Now one line
 * names the file, its owner and the chown that gives it back (config/root-left.ts, rootLeft); so for a
 * root-owned ~/.config above it (review19c F7) and a root-owned journals directory (F5), never
 * when $HOME is not the user's (F3).
 * A real run of uid 4242 (only root can make a file root's for another user); skipped, saying so,
 * when not run as root.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { needsSetup } from '../helpers/needs.js';
import { asUser, USER, userCanRun } from '../helpers/other-user.js';
import { ACME, useSandbox } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const KEY = 'svc_pk_0123456789abcdefWXYZ';
const top = useTempDir('svc-root-left-', (made) => chmodSync(made, 0o755));
afterAll(() => rmSync(top, { recursive: true, force: true }));
const sandbox = useSandbox({ users: 1 });

/** uid 4242's home with a store in it (~/.config/svc), the user's but for credentials.json or the directory. */
function storeLeftByRoot(rootsIs: 'credentials.json' | 'the directory'): { home: string; store: string } {
  const home = mkdtempSync(join(top, 'home-'));
  const store = join(home, '.config', 'svc');
  mkdirSync(store, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(store, 'config.json'),
    '{"active_profile":"default","profiles":{"default":{"base_url":"http://127.0.0.1:9"}}}',
    { mode: 0o600 },
  );
  writeFileSync(
    join(store, 'credentials.json'),
    `{"profiles":{"default":{"type":"token","access_token":"${KEY}"}}}`,
    { mode: 0o600 },
  );
  for (const path of [
    home,
    join(home, '.config'),
    store,
    join(store, 'config.json'),
    join(store, 'credentials.json'),
  ])
    chownSync(path, USER, USER);
  chmodSync(home, 0o755);
  if (rootsIs === 'credentials.json') chownSync(join(store, 'credentials.json'), 0, 0);
  else chownSync(store, 0, 0);
  return { home, store };
}

const user = needsSetup(
  userCanRun ? undefined : `uid ${USER} cannot run ${process.execPath}`,
  `a node uid ${USER} can run (open the directories it sits in to others)`,
);
const block = root
  ? user.describe
  : (name: string, body: () => void) => {
      console.warn(
        `skipped: ${name}: not run as root (only root can leave a root-owned file in a user's store)`,
      );
      describe.skip(name, body);
    };

block('a store an older `sudo -E svc login` left root’s', () => {
  it('a root-owned credentials.json: reading it (auth token) and changing it (logout) say whose it is and the chown', async () => {
    const { home, store } = storeLeftByRoot('credentials.json');
    const file = join(store, 'credentials.json');
    const said = `error: ${file} belongs to root (uid 0), so svc cannot read it as you (uid ${USER}); an older \`sudo -E svc\` run may have left it so; give it back to you with \`sudo chown $USER ${file}\`, then run the command again; svc changed nothing\n`;
    expect(await asUser(home, ['auth', 'token'])).toEqual({ code: 2, stdout: '', stderr: said });
    expect(await asUser(home, ['logout'])).toEqual({ code: 2, stdout: '', stderr: said });
  });

  it('a root-owned store directory: names it and the chown -R', async () => {
    const { home, store } = storeLeftByRoot('the directory');
    const r = await asUser(home, ['auth', 'token']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${join(store, 'config.json')} is in ${store}, which belongs to root (uid 0), so svc cannot read it as you (uid ${USER}); an older \`sudo -E svc\` run may have left it so; give it back to you with \`sudo chown -R $USER ${store}\`, then run the command again; svc changed nothing\n`,
    });
  });

  it('a root-owned directory outside the home is not advised away: no chown of what svc cannot know is the user’s', async () => {
    // SVC_CONFIG_DIR (or a --journal) naming a directory of root's: `sudo chown -R $USER` of it
    // could be of /root or /etc; the store was not left there by an older svc run.
    const { home } = storeLeftByRoot('credentials.json');
    const closed = mkdtempSync(join(top, 'roots-'));
    chmodSync(closed, 0o700);
    const r = await asUser(home, ['config', 'ls'], { SVC_CONFIG_DIR: closed });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read ${join(closed, 'config.json')}: EACCES: permission denied, lstat '${join(closed, 'config.json')}'\n`,
    });
  });

  it('a fresh home where the older run made ~/.config too: names ~/.config and gives back only what svc made (review19c F7)', async () => {
    const { home, store } = storeLeftByRoot('the directory');
    const config = join(home, '.config');
    chownSync(config, 0, 0);
    chmodSync(config, 0o700);
    const said = (doing: string) =>
      `error: ${join(store, 'config.json')} is in ${config}, which belongs to root (uid 0), so svc cannot ${doing} it as you (uid ${USER}); an older \`sudo -E svc\` run may have left it so; give it back to you with \`sudo chown $USER ${config}\` and \`sudo chown -R $USER ${store}\`, then run the command again; svc changed nothing\n`;
    expect(await asUser(home, ['config', 'ls'])).toEqual({ code: 2, stdout: '', stderr: said('read') });
  });

  it('a root-owned ~/.config the user can enter is not blamed for a file of theirs they cannot read', async () => {
    const { home, store } = storeLeftByRoot('credentials.json');
    chownSync(join(home, '.config'), 0, 0);
    chmodSync(join(home, '.config'), 0o755);
    chmodSync(join(store, 'config.json'), 0o000);
    const file = join(store, 'config.json');
    expect(await asUser(home, ['config', 'ls'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read ${file}: EACCES: permission denied, open '${file}'\n`,
    });
  });

  it('a HOME that is not the user’s own (root’s, entered as another user): no “give it back”, it was never theirs (review19c F3)', async () => {
    const { home, store } = storeLeftByRoot('the directory');
    for (const path of [home, join(home, '.config'), join(store, 'config.json')]) chownSync(path, 0, 0);
    chmodSync(join(home, '.config'), 0o755); // root's own store, ~/.config open to all as usual
    const r = await asUser(home, ['config', 'ls']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read ${join(store, 'config.json')}: EACCES: permission denied, lstat '${join(store, 'config.json')}'\n`,
    });
  });

  it('a journals directory an older `sudo -E svc apply` left root’s: the same one line (review19c F5)', async () => {
    const home = mkdtempSync(join(top, 'home-'));
    const journals = join(home, '.local', 'state', 'svc', 'journals');
    mkdirSync(journals, { recursive: true, mode: 0o700 });
    const grants = join(home, 'g.csv');
    writeFileSync(grants, 'user,role,expires_in,justification\nusr_bulk_000001,tenant_viewer,8h,t\n');
    for (const path of [home, join(home, '.local'), join(home, '.local', 'state'), dirname(journals), grants])
      chownSync(path, USER, USER);
    chmodSync(home, 0o755);
    const r = await asUser(home, ['roles', 'assign', '--file', grants], {
      SVC_BASE_URL: sandbox().url,
      SVC_TOKEN: sandbox().adminToken,
      SVC_TENANT: ACME,
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: ${journals}/[^ ]+\\.ndjson\\.lock is in ${journals}, which belongs to root \\(uid 0\\), so svc cannot write it as you \\(uid ${USER}\\); an older \`sudo -E svc\` run may have left it so; give it back to you with \`sudo chown -R \\$USER ${journals}\`, then run the command again; svc changed nothing\\n$`,
      ),
    );
    expect(r.code).toBe(2);
  });
});
