/**
 * src/config/root-left.ts in-process: which failure to read or write a file of svc's is said as one
 * an older `sudo -E svc` run left root's (or another user's) in the user's home, which directory is
 * named, and the chown lines given. The spawned runs as uid 4242 (test/config/root-left-store.test.ts)
 * go through the verbs; Stryker sees no mutant in a child process, so each rule is pinned here too.
 *
 * The user is uid 4242 (process.getuid stubbed), their HOME a temporary directory they own, and
 * root (this process) gives each part of the path to 4242, root or 65534. Root can stat through any
 * directory, so a directory "the user cannot enter" is modelled by its next part being absent.
 */
import { chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, expect, it, vi } from 'vitest';
import { statOrUndefined } from '../../src/config/ownership.js';
import { rootLeft } from '../../src/config/root-left.js';
import { asRootDescribe } from '../helpers/needs.js';
import { useTempDir } from '../helpers/temp.js';

const USER = 4242;
const top = useTempDir('svc-root-left-unit-');
afterAll(() => rmSync(top, { recursive: true, force: true }));

const eacces = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });

let home = '';
const savedHome = process.env.HOME;
beforeEach(() => {
  home = mkdtempSync(join(top, 'home-'));
  chownSync(home, USER, USER);
  process.env.HOME = home;
  vi.spyOn(process, 'getuid').mockReturnValue(USER);
});
afterEach(() => {
  vi.restoreAllMocks();
  process.env.HOME = savedHome;
});

/** Makes `parts` below $HOME (a last part with an extension is a file), each given to its uid. */
function tree(...parts: [string, number][]): string {
  let at = home;
  for (const [name, owner] of parts) {
    at = join(at, name);
    if (name.lastIndexOf('.') > 0) writeFileSync(at, '{}');
    else mkdirSync(at);
    chownSync(at, owner, owner);
  }
  return at;
}

/** The refusal's words, or undefined. */
function said(path: string, error: unknown = eacces, doing: 'read' | 'write' = 'read') {
  const refusal = rootLeft(path, error, doing);
  return refusal === undefined
    ? undefined
    : { message: refusal.message, code: refusal.code, hint: refusal.hint };
}

const because = (doing: string) =>
  `so svc cannot ${doing} it as you (uid ${USER}); an older \`sudo -E svc\` run may have left it so`;
const back = (chown: string) =>
  `give it back to you with ${chown}, then run the command again; svc changed nothing`;

asRootDescribe('rootLeft (run as root, as uid 4242 stubbed)', () => {
  it('root’s credentials.json in the user’s store: the file and its own chown (no -R)', () => {
    const file = tree(['.config', USER], ['svc', USER], ['credentials.json', 0]);
    expect(said(file)).toEqual({
      message: `${file} belongs to root (uid 0), ${because('read')}`,
      code: 'config_owner',
      hint: back(`\`sudo chown $USER ${file}\``),
    });
  });

  it('EPERM is said as EACCES, and the verb is the caller’s', () => {
    const file = tree(['.config', USER], ['svc', USER], ['config.json', 0]);
    const eperm = Object.assign(new Error('EPERM'), { code: 'EPERM' });
    expect(said(file, eperm, 'write')?.message).toBe(`${file} belongs to root (uid 0), ${because('write')}`);
  });

  it('another user’s file is named as theirs, by uid', () => {
    const file = tree(['.config', USER], ['svc', USER], ['credentials.json', 65534]);
    expect(said(file)?.message).toBe(`${file} belongs to another user (uid 65534), ${because('read')}`);
  });

  it('root’s store directory with the user’s file in it: the directory, chown -R of it alone', () => {
    const file = tree(['.config', USER], ['svc', 0], ['credentials.json', USER]);
    const store = join(home, '.config', 'svc');
    expect(said(file)).toEqual({
      message: `${file} is in ${store}, which belongs to root (uid 0), ${because('read')}`,
      code: 'config_owner',
      hint: back(`\`sudo chown -R $USER ${store}\``),
    });
  });

  it('root’s store directory named itself (a directory, no extension): chown -R of it', () => {
    const store = tree(['.config', USER], ['svc', 0]);
    expect(said(store, eacces, 'write')).toEqual({
      message: `${store} belongs to root (uid 0), ${because('write')}`,
      code: 'config_owner',
      hint: back(`\`sudo chown -R $USER ${store}\``),
    });
  });

  it('a root-owned ~/.config the user can go through is not named: the root file below it is', () => {
    const file = tree(['.config', 0], ['svc', USER], ['credentials.json', 0]);
    expect(said(file)?.message).toBe(`${file} belongs to root (uid 0), ${because('read')}`);
  });

  it('a root-owned ~/.config with nothing below it yet: only it, chowned (a chown -R of the missing store would fail first)', () => {
    tree(['.config', 0]);
    const config = join(home, '.config');
    const file = join(config, 'svc', 'credentials.json');
    expect(said(file, eacces, 'write')).toEqual({
      message: `${file} is in ${config}, which belongs to root (uid 0), ${because('write')}`,
      code: 'config_owner',
      hint: back(`\`sudo chown $USER ${config}\``),
    });
  });

  it('a journals directory under a state directory root made, the rest not made yet: only what exists is chowned', () => {
    tree(['.local', USER], ['state', 0]);
    const state = join(home, '.local', 'state');
    const file = join(state, 'svc', 'journals', 'j.json');
    expect(said(file, eacces, 'write')?.hint).toBe(back(`\`sudo chown $USER ${state}\``));
  });

  it('the user’s own path all the way down: a path part that cannot be read is some other failure', () => {
    const file = tree(['.config', USER], ['svc', USER], ['credentials.json', USER]);
    expect(said(file)).toBeUndefined();
    // A part missing under the user's own directories: stat fails, not a directory of another's.
    expect(said(join(home, '.config', 'gone', 'credentials.json'))).toBeUndefined();
  });

  it('not a permission failure, or svc run as root, or a $HOME that is not the user’s: undefined', () => {
    const file = tree(['.config', USER], ['svc', USER], ['credentials.json', 0]);
    expect(said(file, Object.assign(new Error('ENOENT'), { code: 'ENOENT' }))).toBeUndefined();
    expect(said(file, new Error('no code'))).toBeUndefined();
    vi.spyOn(process, 'getuid').mockReturnValue(0);
    expect(said(file)).toBeUndefined();
    vi.spyOn(process, 'getuid').mockReturnValue(USER);
    chownSync(home, 0, 0); // root's own home, entered as the user (review19c F3)
    expect(said(file)).toBeUndefined();
  });

  it('run as root in root’s own home: another user’s file is not root’s to be told to chown', () => {
    chownSync(home, 0, 0);
    const file = tree(['.config', 0], ['svc', 0], ['credentials.json', 65534]);
    vi.spyOn(process, 'getuid').mockReturnValue(0);
    expect(said(file)).toBeUndefined();
  });

  it('outside $HOME, or beside it with the same prefix: undefined (not the user’s to chown)', () => {
    const beside = `${home}x`;
    mkdirSync(beside);
    chownSync(beside, 0, 0);
    expect(said(join(beside, 'credentials.json'))).toBeUndefined();
    expect(said('/etc/svc/credentials.json')).toBeUndefined();
  });

  it('a $HOME that does not exist: undefined', () => {
    const file = tree(['.config', USER], ['svc', USER], ['credentials.json', 0]);
    process.env.HOME = join(top, 'no-such-home');
    expect(said(file)).toBeUndefined();
  });

  it('ownership’s statOrUndefined: a stat refused there is said as root-left (read), elsewhere named as it failed', () => {
    const file = tree(['.config', USER], ['svc', USER], ['credentials.json', 0]);
    const refused = () => {
      throw eacces;
    };
    expect(() => statOrUndefined(refused, file)).toThrow(
      `${file} belongs to root (uid 0), ${because('read')}`,
    );
    expect(() => statOrUndefined(refused, '/etc/svc/config.json')).toThrow(
      'cannot read /etc/svc/config.json: EACCES: permission denied',
    );
  });

  it('$HOME through a link: the real path is what is checked and named', () => {
    const file = tree(['.config', USER], ['svc', USER], ['credentials.json', 0]);
    const link = join(top, `link-${home.slice(-6)}`);
    symlinkSync(home, link);
    process.env.HOME = link;
    expect(said(join(link, '.config', 'svc', 'credentials.json'))?.message).toBe(
      `${file} belongs to root (uid 0), ${because('read')}`,
    );
  });
});
