/**
 * src/config/paths.ts in-process: where the state directory is, and the check of the directory
 * variables (SVC_CONFIG_DIR, SVC_STATE_DIR, SVC_CACHE_DIR) before svc reads or makes anything
 * there: an unexpanded `~` or `$VAR`, a file, a path under a file, a link to nothing. The same
 * refusals through a verb are in config-dirs.test.ts and test/config/tilde-dir.test.ts (which
 * changes the working directory, so it is not in the mutation selection).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDirectoryVariables, homeDirectory, stateDir } from '../../src/config/paths.js';
import { ensurePrivateDir } from '../../src/config/store-directory.js';
import { EXIT_CODES, type SvcError } from '../../src/errors.js';
import { useTempDir } from '../helpers/temp.js';

const root = useTempDir('svc-paths-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const HOME = homedir();

function refusal(env: Record<string, string>): [string, number, string, string | undefined] {
  try {
    checkDirectoryVariables(env);
  } catch (error) {
    const e = error as SvcError;
    return [e.constructor.name, EXIT_CODES[e.category], e.message, e.hint];
  }
  throw new Error('not refused');
}

describe('stateDir', () => {
  it('SVC_STATE_DIR, else an absolute XDG_STATE_HOME/svc, else ~/.local/state/svc', () => {
    expect(stateDir({ SVC_STATE_DIR: '/s', XDG_STATE_HOME: '/x' })).toBe('/s');
    expect(stateDir({ SVC_STATE_DIR: '', XDG_STATE_HOME: '/x' })).toBe(join('/x', 'svc'));
    expect(stateDir({ XDG_STATE_HOME: 'relative' })).toBe(join(HOME, '.local', 'state', 'svc'));
    expect(stateDir({ XDG_STATE_HOME: '' })).toBe(join(HOME, '.local', 'state', 'svc'));
    expect(stateDir({})).toBe(join(HOME, '.local', 'state', 'svc'));
  });

  it('homeDirectory is an absolute HOME as it is', () => {
    expect(homeDirectory()).toBe(HOME);
  });
});

describe('checkDirectoryVariables: an unexpanded ~ or variable', () => {
  it.each([
    ['SVC_CONFIG_DIR', '~/.svc', 'a ~', ` (e.g. SVC_CONFIG_DIR=${join(HOME, '.svc')})`],
    ['SVC_STATE_DIR', '~/state/svc', 'a ~', ` (e.g. SVC_STATE_DIR=${join(HOME, 'state/svc')})`],
    ['SVC_CACHE_DIR', '~', 'a ~', ` (e.g. SVC_CACHE_DIR=${HOME})`],
    ['SVC_CONFIG_DIR', '$HOME/.svc', 'a variable ($HOME)', ` (e.g. SVC_CONFIG_DIR=${join(HOME, '.svc')})`],
    ['SVC_CONFIG_DIR', '$HOME', 'a variable ($HOME)', ` (e.g. SVC_CONFIG_DIR=${HOME})`],
    ['SVC_STATE_DIR', `\${HOME}/s`, `a variable (\${HOME})`, ` (e.g. SVC_STATE_DIR=${join(HOME, 's')})`],
    ['SVC_CONFIG_DIR', '~alice/.svc', 'a ~', ''],
    ['SVC_CACHE_DIR', '$XDG_CACHE_HOME/svc', 'a variable ($XDG_CACHE_HOME)', ''],
    ['SVC_CACHE_DIR', `\${TMP}`, `a variable (\${TMP})`, ''],
    ['SVC_STATE_DIR', '$', 'a variable ($)', ''],
  ])(
    '%s=%s: refused (exit 2), naming what no shell expanded, with an absolute example when it meant home',
    (name, value, what, example) => {
      expect(refusal({ [name]: value })).toEqual([
        'ConfigError',
        2,
        `${name} ${value} starts with ${what} that no shell expanded`,
        `use an absolute path${example}; svc changed nothing`,
      ]);
    },
  );

  it.each(['/abs/~x', '/abs/$HOME', 'rel/~'])(
    '%s (a ~ or $ further in) is a path like any other',
    (value) => {
      expect(() => checkDirectoryVariables({ SVC_CONFIG_DIR: value })).not.toThrow();
    },
  );
});

describe('checkDirectoryVariables: what is at the path', () => {
  const file = join(root, 'a-file');
  const directory = join(root, 'a-dir');
  beforeAll(() => {
    writeFileSync(file, 'x');
    mkdirSync(directory);
  });

  it('unset, empty, an existing directory or a path svc can make: fine', () => {
    expect(() => checkDirectoryVariables({})).not.toThrow();
    expect(() =>
      checkDirectoryVariables({
        SVC_CONFIG_DIR: '',
        SVC_STATE_DIR: directory,
        SVC_CACHE_DIR: join(root, 'new', 'x'),
      }),
    ).not.toThrow();
  });

  it.each(['SVC_CONFIG_DIR', 'SVC_STATE_DIR', 'SVC_CACHE_DIR'])(
    'each variable is checked, whichever others are fine (%s a file)',
    (name) => {
      const env = {
        SVC_CONFIG_DIR: directory,
        SVC_STATE_DIR: directory,
        SVC_CACHE_DIR: directory,
        [name]: file,
      };
      expect(refusal(env)).toEqual([
        'ConfigError',
        2,
        `${name} ${file} is a file, not a directory`,
        `point ${name} at a directory (or unset it); svc changed nothing`,
      ]);
    },
  );

  it('the first variable in the way is named (config, state, cache)', () => {
    expect(refusal({ SVC_CACHE_DIR: file, SVC_STATE_DIR: '~/s' })[2]).toBe(
      'SVC_STATE_DIR ~/s starts with a ~ that no shell expanded',
    );
    expect(refusal({ SVC_CACHE_DIR: '~/c', SVC_CONFIG_DIR: file })[2]).toBe(
      `SVC_CONFIG_DIR ${file} is a file, not a directory`,
    );
  });

  it('something that is neither a file nor a directory', () => {
    expect(refusal({ SVC_STATE_DIR: '/dev/null' })[2]).toBe('SVC_STATE_DIR /dev/null is not a directory');
  });

  it('a path deep under a file names the file', () => {
    expect(refusal({ SVC_CONFIG_DIR: join(file, 'a', 'b') })[2]).toBe(
      `SVC_CONFIG_DIR ${join(file, 'a', 'b')} is under a file (${file}), not a directory`,
    );
  });

  it('a link to a directory, and a missing path under one, are fine; a link to nothing is named with its target', () => {
    const good = join(root, 'good-link');
    symlinkSync(directory, good);
    expect(() =>
      checkDirectoryVariables({ SVC_CONFIG_DIR: good, SVC_STATE_DIR: join(good, 'x', 'y') }),
    ).not.toThrow();
    const dangling = join(root, 'dangling');
    symlinkSync('nowhere', dangling);
    expect(refusal({ SVC_CACHE_DIR: dangling })[2]).toBe(
      `SVC_CACHE_DIR ${dangling} is a symbolic link to nowhere, which does not exist`,
    );
    expect(refusal({ SVC_CACHE_DIR: join(dangling, 'a', 'b') })[2]).toBe(
      `SVC_CACHE_DIR ${join(dangling, 'a', 'b')} is under a symbolic link (${dangling}) to nowhere, which does not exist`,
    );
  });

  it('a missing path under a missing directory is fine: svc makes both', () => {
    expect(() => checkDirectoryVariables({ SVC_STATE_DIR: join(root, 'no', 'such', 'dir') })).not.toThrow();
  });
});

describe('ensurePrivateDir', () => {
  const mode = (path: string) => statSync(path).mode & 0o7777;

  // fix-store18 #2: a shared directory others can write was left open and used; it is refused.
  it.each(['1777', '3777', '2777'])(
    'refuses a shared directory others can write (mode 0%s: sticky or setgid), its mode left',
    (octal) => {
      const shared = Number.parseInt(octal, 8);
      const dir = mkdtempSync(join(root, 'shared-'));
      chmodSync(dir, shared);
      expect(() => ensurePrivateDir(dir, undefined)).toThrow(
        `is a shared directory (mode 0${shared.toString(8)}, ${shared & 0o1000 ? 'sticky' : 'setgid'})`,
      );
      expect(mode(dir)).toBe(shared);
    },
  );

  it.each(['755', '701', '710', '750', '2755'])('tightens its own 0%s to 0700', (octal) => {
    const dir = mkdtempSync(join(root, 'own-'));
    chmodSync(dir, Number.parseInt(octal, 8));
    ensurePrivateDir(dir, undefined);
    expect(mode(dir)).toBe(0o700);
  });

  it('refuses a file (ENOTDIR) and leaves its mode', () => {
    const file = join(root, 'not-a-dir');
    writeFileSync(file, 'x');
    chmodSync(file, 0o644);
    expect(() => ensurePrivateDir(file, undefined)).toThrow(/ENOTDIR/);
    expect(mode(file)).toBe(0o644);
  });
});
