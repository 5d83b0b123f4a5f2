/**
 * src/config/ownership.ts in-process, each rule with the words users see: which directories svc
 * refuses to keep credentials or journals in (and the hint for each), which config.json or
 * credentials.json it will not read or write through, and what it tightens with one warning.
 * Another user is uid 65534 (nobody): those cases need root to give a file away. Through verbs:
 * test/config/store-ownership.test.ts.
 */
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownFileProblem, ownFileRefusal, refuseSharedDirectory } from '../../src/config/ownership.js';
import { onlyMemberIsOwner } from '../../src/config/private-group.js';
import { checkStore } from '../../src/config/store-directory.js';
import { EXIT_CODES, type SvcError } from '../../src/errors.js';
import { useTempDir } from '../helpers/temp.js';

const asRoot = process.getuid?.() === 0;
const root = useTempDir('svc-owner-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o7777;

function directory(dirMode: number, uid?: number): string {
  const dir = mkdtempSync(join(root, 'd-'));
  chmodSync(dir, dirMode);
  if (uid !== undefined) chownSync(dir, uid, uid);
  // A group-writable directory of the owner's private group counts as the owner's
  // (src/config/private-group.ts): root gives it a group of others (65534) to be refused.
  else if (asRoot && dirMode & 0o020) chownSync(dir, 0, 65534);
  return dir;
}

const refuseJournals = (dir: string) =>
  refuseSharedDirectory(dir, 'the journals directory', 'keep journals in it', 'SVC_STATE_DIR', 'state_owner');

function refusal(run: () => unknown): [string, number, string | undefined, string, string | undefined] {
  try {
    run();
  } catch (error) {
    const e = error as SvcError;
    return [e.constructor.name, EXIT_CODES[e.category], e.code, e.message, e.hint];
  }
  throw new Error('not refused');
}

describe.skipIf(process.platform === 'win32')('refuseSharedDirectory', () => {
  it.each([
    [0o777, 'is writable by others (mode 0777)', true],
    [0o770, 'is writable by others (mode 0770)', true],
    [0o702, 'is writable by others (mode 0702)', true],
    [0o1777, 'is a shared directory (mode 01777, sticky)', false],
    [0o1702, 'is a shared directory (mode 01702, sticky)', false],
    [0o2770, 'is a shared directory (mode 02770, setgid)', false],
    [0o3777, 'is a shared directory (mode 03777, sticky)', false],
  ])('mode %o: refused (exit 2) as one that %s', (dirMode, problem, chmodHint) => {
    const dir = directory(dirMode);
    // Not root, in a private group of one's own: group write is one's own (private-group.test.ts).
    if (!asRoot && dirMode & 0o020 && onlyMemberIsOwner(statSync(dir).gid, process.getuid?.() ?? -1)) return;
    const hint = chmodHint
      ? `check what is in it, then \`chmod 700 ${dir}\`, or point SVC_STATE_DIR at a private directory of your own; svc changed nothing`
      : 'point SVC_STATE_DIR at a private directory of your own (`mkdir -m 700 DIR`); svc changed nothing';
    expect(refusal(() => refuseJournals(dir))).toEqual([
      'ConfigError',
      2,
      'state_owner',
      `the journals directory ${dir} ${problem}, so svc will not keep journals in it`,
      hint,
    ]);
    expect(mode(dir)).toBe(dirMode);
  });

  it.each([0o700, 0o755, 0o750, 0o2755, 0o1755, 0o711])(
    'mode %o (no one else can write): its stat, for the caller',
    (dirMode) => {
      const dir = directory(dirMode);
      expect(refuseJournals(dir)?.mode).toBe(statSync(dir).mode);
      expect(mode(dir)).toBe(dirMode);
    },
  );

  it('no directory there (missing, or a file): nothing to refuse', () => {
    const file = join(root, 'plain');
    writeFileSync(file, 'x');
    expect(refuseJournals(join(root, 'missing'))).toBeUndefined();
    expect(refuseJournals(file)).toBeUndefined();
  });

  it('a directory that cannot be looked at is named (a loop of links)', () => {
    const loop = join(root, 'loop-2');
    symlinkSync(loop, loop);
    expect(refusal(() => refuseJournals(join(loop, 'sub')))).toEqual([
      'ConfigError',
      2,
      'config',
      // Its parent is looked at first (the parents' rule), and named.
      `cannot read ${loop}: ELOOP: too many symbolic links encountered, stat '${loop}'`,
      undefined,
    ]);
  });

  it.runIf(asRoot)(
    'another user’s directory, even private: refused, with the hint to point elsewhere',
    () => {
      const dir = directory(0o700, 65534);
      expect(refusal(() => refuseJournals(dir)).slice(3)).toEqual([
        `the journals directory ${dir} belongs to another user (uid 65534), so svc will not keep journals in it`,
        'point SVC_STATE_DIR at a private directory of your own (`mkdir -m 700 DIR`); svc changed nothing',
      ]);
    },
  );
});

describe.skipIf(process.platform === 'win32')('ownFileProblem and ownFileRefusal', () => {
  it('absent, the user’s own file, or a link to one: no problem', () => {
    const dir = directory(0o700);
    writeFileSync(join(dir, 'own.json'), '{}');
    symlinkSync(join(dir, 'own.json'), join(dir, 'link.json'));
    expect(ownFileProblem(join(dir, 'absent.json'))).toBeUndefined();
    expect(ownFileProblem(join(dir, 'own.json'))).toBeUndefined();
    expect(ownFileProblem(join(dir, 'link.json'))).toBeUndefined();
  });

  it('a link to nothing', () => {
    const dir = directory(0o700);
    symlinkSync(join(dir, 'nowhere'), join(dir, 'credentials.json'));
    expect(ownFileProblem(join(dir, 'credentials.json'))).toEqual({
      said: 'is a symbolic link to something that does not exist',
    });
  });

  it('a path that cannot be looked at is named (a loop of links)', () => {
    const loop = join(root, 'loop-3');
    symlinkSync(loop, loop);
    expect(() => ownFileProblem(join(loop, 'config.json'))).toThrow(
      `cannot read ${join(loop, 'config.json')}: ELOOP`,
    );
  });

  it.runIf(asRoot)('another user’s file, or a link to one (named with its real path)', () => {
    const dir = directory(0o700);
    const theirs = join(dir, 'theirs.json');
    writeFileSync(theirs, '{}');
    chownSync(theirs, 65534, 65534);
    symlinkSync(theirs, join(dir, 'credentials.json'));
    expect(ownFileProblem(theirs)).toEqual({ said: 'is a file that belongs to another user (uid 65534)' });
    expect(ownFileProblem(join(dir, 'credentials.json'))).toEqual({
      said: `is a symbolic link to ${theirs}, which belongs to another user (uid 65534)`,
    });
  });

  it('the refusal: exit 2, config_owner, profiles or credentials by the file’s name, how to remove it as one shell word', () => {
    expect(
      refusal(() => {
        throw ownFileRefusal('/x y/config.json', { said: 'is a file that belongs to another user (uid 7)' });
      }),
    ).toEqual([
      'ConfigError',
      2,
      'config_owner',
      '/x y/config.json is a file that belongs to another user (uid 7), so svc will not read or write profiles through it',
      "remove it (`rm '/x y/config.json'`) if you did not put it there; svc changed nothing",
    ]);
    expect(ownFileRefusal('/c/credentials.json', { said: 'p' }).message).toBe(
      '/c/credentials.json p, so svc will not read or write credentials through it',
    );
    expect(ownFileRefusal('/c/credentials.json', { said: 'p' }).hint).toBe(
      'remove it (`rm /c/credentials.json`) if you did not put it there, then log in again; svc changed nothing',
    );
  });
});

describe.skipIf(process.platform === 'win32')('checkStore', () => {
  const files = (dir: string) => ({
    config: join(dir, 'config.json'),
    credentials: join(dir, 'credentials.json'),
  });

  it('tightens the directory and credentials.json of the user’s own, saying each once; config.json is left', () => {
    const dir = directory(0o755);
    writeFileSync(join(dir, 'credentials.json'), '{}', { mode: 0o644 });
    chmodSync(join(dir, 'credentials.json'), 0o644);
    writeFileSync(join(dir, 'config.json'), '{}', { mode: 0o644 });
    chmodSync(join(dir, 'config.json'), 0o644);
    const said: string[] = [];
    checkStore(dir, files(dir), (message) => said.push(message));
    expect(said).toEqual([
      `${dir} was readable by others (0755); svc made it 0700, since it holds credentials`,
      `${join(dir, 'credentials.json')} was readable by others (0644); svc made it 0600, since it holds credentials`,
    ]);
    expect([mode(dir), mode(join(dir, 'credentials.json')), mode(join(dir, 'config.json'))]).toEqual([
      0o700, 0o600, 0o644,
    ]);
  });

  it('a directory only others can enter is "open to" them; a private store says nothing', () => {
    const dir = directory(0o711);
    const said: string[] = [];
    checkStore(dir, files(dir), (message) => said.push(message));
    expect(said).toEqual([`${dir} was open to others (0711); svc made it 0700, since it holds credentials`]);
    checkStore(dir, files(dir), (message) => said.push(message));
    expect(said).toHaveLength(1);
  });

  it('tightens without a listener too', () => {
    const dir = directory(0o750);
    checkStore(dir, files(dir), undefined);
    expect(mode(dir)).toBe(0o700);
  });

  it('a missing directory: nothing to check or tighten', () => {
    const said: string[] = [];
    checkStore(join(root, 'none'), files(join(root, 'none')), (message) => said.push(message));
    expect(said).toEqual([]);
  });

  it('a link to nothing as config.json or credentials.json is refused before anything is tightened', () => {
    for (const name of ['config.json', 'credentials.json'] as const) {
      const dir = directory(0o755);
      symlinkSync(join(dir, 'nowhere'), join(dir, name));
      const words = refusal(() => checkStore(dir, files(dir), () => {}));
      expect(words[3]).toBe(
        `${join(dir, name)} is a symbolic link to something that does not exist, so svc will not read or write ${name === 'config.json' ? 'profiles' : 'credentials'} through it`,
      );
      expect(mode(dir)).toBe(0o755);
    }
  });

  it('a directory others can write is refused as the config directory, naming SVC_CONFIG_DIR', () => {
    const dir = directory(0o777);
    expect(refusal(() => checkStore(dir, files(dir), undefined)).slice(2)).toEqual([
      'config_owner',
      `the config directory ${dir} is writable by others (mode 0777), so svc will not keep credentials in it`,
      `check what is in it, then \`chmod 700 ${dir}\`, or point SVC_CONFIG_DIR at a private directory of your own; svc changed nothing`,
    ]);
  });

  it.runIf(process.platform === 'linux')(
    'cannot tighten what it cannot change: says so, with the command to run',
    () => {
      // /proc/self/status is the user's own (here root's) and 0444, and chmod there fails (EPERM).
      const said: string[] = [];
      const dir = directory(0o700);
      const status = '/proc/self/status';
      checkStore(dir, { config: join(dir, 'config.json'), credentials: status }, (message) =>
        said.push(message),
      );
      expect(said).toEqual([
        `${status} was readable by others (0444) and svc could not tighten it (EPERM: operation not permitted, chmod '${status}'); run \`chmod 600 ${status}\``,
      ]);
    },
  );
});
