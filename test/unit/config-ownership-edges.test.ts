/**
 * src/config/ownership.ts's edges that config-ownership.test.ts leaves (session 20's mutation run of
 * the file): how far up the parents are walked ($HOME is the last, a missing part under a link is
 * resolved through it), a sticky directory others can write is safe only when root's, a file owned by
 * $HOME's owner is trusted only by root, a link another user made, a link whose target's directory
 * others can write (and the hint for it), a root-owned group-writable directory of a group of one,
 * and nothing checked where there is no uid (Windows). Giving files away needs root.
 */
import { chmodSync, lchownSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  ownFileProblem,
  ownFileRefusal,
  refuseSharedDirectory,
  unsafeParent,
} from '../../src/config/ownership.js';
import { mayHaveAcl, onlyMemberIsOwner } from '../../src/config/private-group.js';
import { asRootDescribe } from '../helpers/needs.js';
import { ownedDir } from '../helpers/other-user.js';
import { useTempDir } from '../helpers/temp.js';

const top = useTempDir('svc-owner-edges-');
afterAll(() => rmSync(top, { recursive: true, force: true }));
const savedHome = process.env.HOME;
afterEach(() => {
  vi.restoreAllMocks();
  process.env.HOME = savedHome;
});

const refuseStore = (path: string) =>
  refuseSharedDirectory(
    path,
    'the config directory',
    'keep credentials in it',
    'SVC_CONFIG_DIR',
    'config_owner',
  );

asRootDescribe('ownership edges (run as root)', () => {
  it('the parents are walked up to $HOME and no further: one above it others can write is not svc’s concern', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const open = ownedDir(base, 'open', 0o777);
    const home = ownedDir(open, 'home', 0o700);
    process.env.HOME = home;
    expect(unsafeParent(join(home, '.config', 'svc'))).toBeUndefined();
    // Outside $HOME the walk goes on to the one under /: the same directory is then named.
    expect(unsafeParent(join(open, 'elsewhere'))).toEqual({
      path: open,
      problem: 'others can write (mode 0777)',
      own: true,
    });
  });

  it('every directory between the store and $HOME is checked, not only the first', () => {
    const home = mkdtempSync(join(top, 'home-'));
    process.env.HOME = home;
    const open = ownedDir(home, 'open', 0o777);
    const deeper = ownedDir(open, 'deeper', 0o700);
    expect(unsafeParent(join(deeper, 'svc'))).toEqual({
      path: open,
      problem: 'others can write (mode 0777)',
      own: true,
    });
  });

  it('a missing part below a link is resolved through the link: the target’s parents are the ones checked', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const open = ownedDir(base, 'open', 0o777);
    const target = ownedDir(open, 'target', 0o700);
    const safe = ownedDir(base, 'safe', 0o700);
    symlinkSync(target, join(safe, 'link'));
    expect(unsafeParent(join(safe, 'link', 'missing', 'svc'))).toEqual({
      path: open,
      problem: 'others can write (mode 0777)',
      own: true,
    });
  });

  it('a sticky directory others can write is safe when root’s (/tmp), not when the user’s own', () => {
    const base = mkdtempSync(join(top, 'base-'));
    chmodSync(base, 0o755);
    const rootSticky = ownedDir(base, 'root-sticky', 0o1777);
    expect(unsafeParent(join(rootSticky, 'svc'))).toBeUndefined();
    const theirsToo = ownedDir(base, 'user-sticky', 0o1777, 4242);
    vi.spyOn(process, 'getuid').mockReturnValue(4242);
    expect(unsafeParent(join(theirsToo, 'svc'))).toEqual({
      path: theirsToo,
      problem: 'others can write (mode 01777)',
      own: true,
    });
  });

  it('a directory of $HOME’s owner is trusted by root only, not by another user whose HOME it is', () => {
    const base = mkdtempSync(join(top, 'base-'));
    chmodSync(base, 0o755);
    const home = ownedDir(base, 'home', 0o755, 65534);
    process.env.HOME = home;
    const store = ownedDir(base, 'store', 0o700, 65534);
    // Root runs for the owner of $HOME: theirs is fine.
    expect(refuseStore(store)?.uid).toBe(65534);
    // uid 4242 with another's HOME: the owner of HOME is just another user.
    vi.spyOn(process, 'getuid').mockReturnValue(4242);
    expect(() => refuseStore(store)).toThrow(
      `the config directory ${store} belongs to another user (uid 65534), so svc will not keep credentials in it`,
    );
  });

  // Asked of the temporary directory `top` is made in (it exists only from beforeAll on, and a
  // directory made there takes its default ACL, if any): asked of `top` at collection, the test was
  // always skipped.
  it.runIf(onlyMemberIsOwner(0, 0) && !mayHaveAcl(tmpdir()))(
    'a group-writable directory whose group has only its owner in it (root’s own, no ACL): not refused',
    () => {
      const base = mkdtempSync(join(top, 'base-'));
      const store = ownedDir(base, 'store', 0o770, 0);
      expect(refuseStore(store)?.mode).toBe(0o40770);
    },
  );

  it('a link another user made to the user’s own file: refused, whoever owns the target', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const own = join(base, 'own.json');
    writeFileSync(own, '{}', { mode: 0o600 });
    const link = join(base, 'credentials.json');
    symlinkSync(own, link);
    lchownSync(link, 65534, 65534);
    expect(ownFileProblem(link)).toEqual({ said: 'is a symbolic link another user (uid 65534) made' });
  });

  it('a link to a file in a directory others can write: the directory is named, and the fix; a plain file’s directory is refuseSharedDirectory’s', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const open = ownedDir(base, 'open', 0o777);
    const real = join(open, 'creds.json');
    writeFileSync(real, '{}', { mode: 0o600 });
    const store = ownedDir(base, 'store', 0o700);
    const link = join(store, 'credentials.json');
    symlinkSync(real, link);
    const problem = ownFileProblem(link);
    expect(problem).toEqual({
      said: `is a symbolic link to ${real}, which is in ${open}, which others can write (mode 0777)`,
      parent: { path: open, problem: 'others can write (mode 0777)', own: true },
    });
    const refusal = ownFileRefusal(link, problem!);
    expect([refusal.message, refusal.hint]).toEqual([
      `${link} ${problem!.said}, so svc will not read or write credentials through it`,
      `check what is in it, then \`chmod go-w ${open}\`, or remove the link (\`rm ${link}\`) and log in again; svc changed nothing`,
    ]);
    expect(ownFileRefusal(join(store, 'config.json'), problem!).hint).toBe(
      `check what is in it, then \`chmod go-w ${open}\`, or remove the link (\`rm ${join(store, 'config.json')}\`); svc changed nothing`,
    );
    // The file itself, not a link: its directory is the store's, refused by refuseSharedDirectory.
    expect(ownFileProblem(real)).toBeUndefined();
  });
});

describe.skipIf(process.platform === 'win32')('without a uid (Windows: process.getuid absent)', () => {
  it('nothing is checked: no directory, parent or file refused', () => {
    const base = mkdtempSync(join(top, 'base-'));
    const open = ownedDir(base, 'open', 0o777);
    const file = join(open, 'credentials.json');
    writeFileSync(file, '{}', { mode: 0o666 });
    chmodSync(file, 0o666);
    const getuid = Object.getOwnPropertyDescriptor(process, 'getuid')!;
    Object.defineProperty(process, 'getuid', { value: undefined, configurable: true, writable: true });
    try {
      expect(unsafeParent(join(open, 'svc'))).toBeUndefined();
      expect(refuseStore(open)).toBeUndefined();
      expect(ownFileProblem(file)).toBeUndefined();
    } finally {
      Object.defineProperty(process, 'getuid', getuid);
    }
    // The same, with a uid: each refused.
    expect(ownFileProblem(file)?.said).toBe('is a file that others can write (mode 0666)');
  });
});
