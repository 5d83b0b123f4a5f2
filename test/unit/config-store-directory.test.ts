/**
 * src/config/store-directory.ts in-process (session 20's mutation run of the file, 73.3%): whom root
 * gives what it makes (heirOf: $HOME's owner, in a directory of theirs, only when svc runs as root),
 * the parents refused before the store directory is made (nothing made), and tighten's words for a
 * group of one and for a directory of $HOME's owner, with or without a listener. Needs root.
 */
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { mayHaveAcl, onlyMemberIsOwner } from '../../src/config/private-group.js';
import { checkStore, ensurePrivateDir, heirOf } from '../../src/config/store-directory.js';
import { asRootDescribe } from '../helpers/needs.js';
import { ownedDir } from '../helpers/other-user.js';
import { useTempDir } from '../helpers/temp.js';

const top = useTempDir('svc-store-dir-');
afterAll(() => rmSync(top, { recursive: true, force: true }));
const savedHome = process.env.HOME;
afterEach(() => {
  vi.restoreAllMocks();
  process.env.HOME = savedHome;
});

const files = (store: string) => ({
  config: join(store, 'config.json'),
  credentials: join(store, 'credentials.json'),
});

asRootDescribe('store directory (run as root)', () => {
  it('heirOf: $HOME’s owner, for a directory of theirs, when svc runs as root; no one otherwise', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const home = ownedDir(base, 'home', 0o755, 65534);
    process.env.HOME = home;
    const theirs = ownedDir(home, 'theirs', 0o700, 65534);
    const roots = ownedDir(home, 'roots', 0o700);
    expect(heirOf(theirs)).toEqual({ uid: 65534, gid: 65534 });
    expect(heirOf(roots)).toBeUndefined();
    expect(heirOf(join(home, 'missing'))).toBeUndefined();
    // Not run as root: what svc makes is its own.
    vi.spyOn(process, 'getuid').mockReturnValue(4242);
    expect(heirOf(theirs)).toBeUndefined();
    vi.restoreAllMocks();
    // Root in its own home: no one to give to.
    chownSync(home, 0, 0);
    chownSync(theirs, 0, 0);
    expect(heirOf(theirs)).toBeUndefined();
  });

  it('ensurePrivateDir: a missing store under a directory others can write is refused before anything is made', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const open = ownedDir(base, 'open', 0o777);
    const store = join(open, 'svc');
    expect(() => ensurePrivateDir(store, undefined)).toThrow(
      `the config directory ${store} is in ${open}, which others can write (mode 0777), so svc will not keep credentials in it`,
    );
    expect(existsSync(store)).toBe(false);
  });

  it('tighten without a listener: made private all the same, nothing thrown', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const store = ownedDir(base, 'store', 0o755);
    checkStore(store, files(store), undefined);
    expect(statSync(store).mode & 0o777).toBe(0o700);
  });

  it('a directory of $HOME’s owner that others can read: named as its owner’s, not yours', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const home = ownedDir(base, 'home', 0o755, 65534);
    process.env.HOME = home;
    const store = ownedDir(home, 'store', 0o755, 65534);
    const said: string[] = [];
    checkStore(store, files(store), (message) => said.push(message));
    expect(said).toEqual([
      `${store} was readable by others (0755); svc made it 0700, since it holds credentials`,
    ]);
    chmodSync(store, 0o750);
    said.length = 0;
    checkStore(store, files(store), (message) => said.push(message));
    expect(said).toEqual(
      onlyMemberIsOwner(65534, 65534) && !mayHaveAcl(store)
        ? [
            `${store} was open to its group (0750), whose only member is its owner (uid 65534); svc made it 0700, since it holds credentials (a user added to the group later would get in)`,
          ]
        : [`${store} was readable by others (0750); svc made it 0700, since it holds credentials`],
    );
  });

  // Asked of the temporary directory `top` is made in (it exists only from beforeAll on, and a
  // directory made there takes its default ACL, if any): asked of `top` at collection, the test was
  // always skipped.
  it.runIf(onlyMemberIsOwner(0, 0) && !mayHaveAcl(tmpdir()))(
    'a directory open to its group of one (root’s own): said so, with why it is tightened',
    () => {
      const base = mkdtempSync(join(top, 'base-'));
      const store = ownedDir(base, 'store', 0o750, 0);
      const said: string[] = [];
      checkStore(store, files(store), (message) => said.push(message));
      expect(said).toEqual([
        `${store} was open to its group (0750), whose only member is you; svc made it 0700, since it holds credentials (a user added to the group later would get in)`,
      ]);
      expect(statSync(store).mode & 0o777).toBe(0o700);
    },
  );
});
