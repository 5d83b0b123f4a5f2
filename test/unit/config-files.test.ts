// Over 300 lines: mostly tables of exact inputs and outputs, one block per function, so a
// module's whole contract reads in one file.
// The shape checks of config.json and credentials.json (src/config/files.ts), the profile-name rule
// and the settings resolution (src/config/settings.ts), message for message: a hand-edited file
// must be reported by name with what is wrong in it, never half-read.
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfigFile, checkCredentialsFile, parseFile } from '../../src/config/files.js';
import { configDir, stateDir } from '../../src/config/paths.js';
import {
  checkUrlSetting,
  describeSource,
  resolveProfileName,
  resolveSettings,
} from '../../src/config/settings.js';
import { ConfigStore, checkProfileName, PROFILE_KEYS } from '../../src/config/store.js';
import { ensurePrivateDir } from '../../src/config/store-directory.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { quoted } from '../../src/output/format.js';
import { tempDir } from '../helpers/temp.js';

const PATH = '/cfg/config.json';
const HINT = 'fix or remove the file; svc never resets it on its own';

/** The error a check throws, as message and hint. */
function failure(check: () => unknown): { type: string; message: string; hint: string | undefined } {
  try {
    check();
  } catch (error) {
    const e = error as ConfigError;
    return { type: e.constructor.name, message: e.message, hint: e.hint };
  }
  throw new Error('the check passed');
}

describe('parseFile', () => {
  it.each([
    ['', 'it is empty'],
    [' \n\t', 'it is empty'],
    ['{"a": ', 'it is not valid JSON'],
    ['[1, 2]', 'it does not hold a JSON object'],
    ['null', 'it does not hold a JSON object'],
    ['"text"', 'it does not hold a JSON object'],
    ['7', 'it does not hold a JSON object'],
  ])('%j: %s', (text, reason) => {
    expect(failure(() => parseFile(PATH, text))).toEqual({
      type: 'ConfigError',
      message: `cannot read ${PATH}: ${reason}`,
      hint: HINT,
    });
  });

  it('returns the object of a well-formed file', () => {
    expect(parseFile(PATH, ' {"active_profile": "p"} ')).toEqual({ active_profile: 'p' });
  });
});

describe('checkConfigFile', () => {
  it.each([
    [{ active_profile: 3 }, '"active_profile" is not a string'],
    [{ active_profile: null }, '"active_profile" is not a string'],
    [{ profiles: [] }, '"profiles" is not an object of profiles'],
    [{ profiles: 'p' }, '"profiles" is not an object of profiles'],
    [{ profiles: null }, '"profiles" is not an object of profiles'],
    [{ profiles: { ok: {}, bad: 'x' } }, 'profile "bad" is not an object'],
    [{ profiles: { bad: null } }, 'profile "bad" is not an object'],
    [{ profiles: { bad: ['a'] } }, 'profile "bad" is not an object'],
    [{ profiles: { p: { tenant: 7 } } }, '"tenant" of profile "p" is not a string'],
    [{ profiles: { p: { base_url: 'http://x', org: {} } } }, '"org" of profile "p" is not a string'],
  ])('%j: %s', (file, reason) => {
    expect(failure(() => checkConfigFile(PATH, file, PROFILE_KEYS))).toEqual({
      type: 'ConfigError',
      message: `cannot read ${PATH}: ${reason}`,
      hint: HINT,
    });
  });

  it.each([
    [{}],
    [{ active_profile: 'p' }],
    [{ profiles: {} }],
    [{ profiles: { p: { tenant: 't', org: 'o', base_url: 'http://x' } } }],
    // Keys svc does not know are left alone (a newer version may have written them).
    [{ profiles: { p: { colour: 3 } } }],
  ])('accepts %j', (file) => {
    expect(() => checkConfigFile(PATH, file, PROFILE_KEYS)).not.toThrow();
  });
});

describe('checkCredentialsFile', () => {
  const which = 'the credential of profile "p"';
  const token = { type: 'token', access_token: 'tok', obtained_at: 'now' };
  it.each([
    [{ profiles: { p: { ...token, type: 'basic' } } }, `${which} has an unknown type "basic"`],
    [{ profiles: { p: { access_token: 'tok' } } }, `${which} has an unknown type undefined`],
    [{ profiles: { p: { ...token, access_token: '' } } }, `${which} has no access_token`],
    [{ profiles: { p: { ...token, access_token: 5 } } }, `${which} has no access_token`],
    [{ profiles: { p: { type: 'oauth' } } }, `${which} has no access_token`],
    [{ profiles: { p: { ...token, refresh_token: 1 } } }, `"refresh_token" of ${which} is not a string`],
    [{ profiles: { p: { ...token, origin: false } } }, `"origin" of ${which} is not a string`],
    [{ profiles: { p: { ...token, obtained_at: 0 } } }, `"obtained_at" of ${which} is not a string`],
    [{ profiles: 'x' }, '"profiles" is not an object of profiles'],
    [{ profiles: { ok: token, p: { ...token, session: 1 } } }, `"session" of ${which} is not a string`],
    ...[
      'refused',
      null,
      ['c', 'm', 'a'],
      { code: 'c', message: 'm' },
      { code: 'c', message: 1, at: 'a' },
      { code: 1, message: 'm', at: 'a' },
      { message: 'm', at: 'a' },
    ].map((refused): [Record<string, unknown>, string] => [
      { profiles: { p: { ...token, refresh_refused: refused } } },
      `"refresh_refused" of ${which} is not an object of code, message and at`,
    ]),
    ...['sent', { refresh_token_sha256: 'h', pid: '1', at: 'a' }, { pid: 1, at: 'a' }].map(
      (sent): [Record<string, unknown>, string] => [
        { profiles: { p: { ...token, refresh_sent: sent } } },
        `"refresh_sent" of ${which} is not an object of refresh_token_sha256, pid and at`,
      ],
    ),
  ])('%j: %s', (file, reason) => {
    expect(failure(() => checkCredentialsFile(PATH, file))).toEqual({
      type: 'ConfigError',
      message: `cannot read ${PATH}: ${reason}`,
      hint: HINT,
    });
  });

  it.each([
    [{}],
    [{ profiles: { p: token } }],
    [{ profiles: { p: { ...token, type: 'oauth', refresh_token: 'r', expires_at: 'e', scope: 's' } } }],
    [{ profiles: { p: { ...token, refresh_refused: { code: 'invalid_grant', message: 'm', at: 't' } } } }],
    [{ profiles: { p: { ...token, refresh_sent: { refresh_token_sha256: 'h', pid: 1, at: 't' } } } }],
  ])('accepts %j', (file) => {
    expect(() => checkCredentialsFile(PATH, file)).not.toThrow();
  });

  it('is what a ConfigStore read applies to credentials.json (and config rules to config.json)', () => {
    const dir = tempDir('svc-files-');
    writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ profiles: { p: { type: 'x' } } }));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { p: { tenant: 1 } } }));
    const store = new ConfigStore(dir);
    expect(failure(() => store.credential('p')).message).toBe(
      `cannot read ${store.credentialsPath}: ${which} has an unknown type "x"`,
    );
    expect(failure(() => store.profile('p')).message).toBe(
      `cannot read ${store.configPath}: "tenant" of profile "p" is not a string`,
    );
  });
});

describe('checkProfileName', () => {
  it.each(['a', 'A', '0', 'prod', 'p.1_x-2', `a${'b'.repeat(63)}`])('accepts %j', (name) => {
    expect(checkProfileName(name)).toBe(name);
  });

  it.each(['', '.hidden', '_x', '-x', 'a b', 'a/b', 'é', `a${'b'.repeat(64)}`, 'a\n'])(
    'refuses %j with the rule',
    (name) => {
      expect(failure(() => checkProfileName(name))).toEqual({
        type: 'UsageError',
        message: `invalid profile name ${quoted(name)}: a profile name starts with a letter or digit, then letters, digits, '.', '_' or '-' (at most 64 characters in all)`,
        hint: undefined,
      });
    },
  );
});

describe('settings', () => {
  const named = { name: 'p', source: 'profile' as const };

  it('resolveProfileName says where the name came from', () => {
    expect(resolveProfileName({ profile: 'f' }, { SVC_PROFILE: 'e' }, () => 'a')).toEqual({
      name: 'f',
      source: 'flag',
    });
    expect(resolveProfileName({}, { SVC_PROFILE: 'e' }, () => 'a')).toEqual({ name: 'e', source: 'env' });
    expect(resolveProfileName({}, {}, () => 'a')).toEqual({ name: 'a', source: 'profile' });
    expect(resolveProfileName({ profile: '' }, { SVC_PROFILE: '' }, () => '')).toEqual({
      name: 'default',
      source: 'default',
    });
  });

  it('takes every key from its flag, its variable or the profile, and says which', () => {
    const settings = resolveSettings(
      { baseUrl: 'http://flag', tenant: '' },
      { SVC_TENANT: 'env-t', SVC_ORG: '', SVC_CLIENT_ID: 'cid', SVC_APP_URL: 'https://app' },
      named,
      { tenant: 'prof-t', org: 'prof-o', client_id: 'prof-c', base_url: 'http://profile' },
    );
    expect(settings).toEqual({
      profile: 'p',
      profileSource: 'profile',
      values: {
        base_url: 'http://flag',
        app_url: 'https://app',
        tenant: 'env-t',
        org: 'prof-o',
        client_id: 'cid',
      },
      sources: { base_url: 'flag', app_url: 'env', tenant: 'env', org: 'profile', client_id: 'env' },
    });
  });

  it('leaves out what nothing sets, and app_url follows base_url only when base_url is set', () => {
    expect(resolveSettings({}, {}, named, undefined)).toEqual({
      profile: 'p',
      profileSource: 'profile',
      values: {},
      sources: {},
    });
    // An empty value in the profile is a value (only empty flags and variables are not).
    expect(resolveSettings({ org: 'o' }, {}, named, { tenant: '' })).toEqual({
      profile: 'p',
      profileSource: 'profile',
      values: { org: 'o', tenant: '' },
      sources: { org: 'flag', tenant: 'profile' },
    });
    expect(resolveSettings({}, {}, named, { base_url: 'http://b' })).toEqual({
      profile: 'p',
      profileSource: 'profile',
      values: { base_url: 'http://b', app_url: 'http://b' },
      sources: { base_url: 'profile', app_url: 'default' },
    });
  });

  it.each([
    ['base_url', 'flag', '--base-url'],
    ['app_url', 'flag', '--app-url'],
    ['client_id', 'flag', '--client-id'],
    ['tenant', 'env', 'SVC_TENANT'],
    ['org', 'profile', 'org in profile "work"'],
    ['base_url', 'default', 'base_url in profile "work"'],
  ] as const)('describeSource(%s, %s) is %j', (key, source, words) => {
    expect(describeSource(key, source, 'work')).toBe(words);
  });

  it.each(['http://127.0.0.1:4010', 'https://api.example.com/v1', 'HTTP://X'])(
    'accepts the URL %j',
    (url) => {
      expect(checkUrlSetting('base_url', url, 'flag', { profile: 'work', profileSource: 'profile' })).toBe(
        url,
      );
    },
  );

  it.each(['127.0.0.1:4010', 'ftp://x', 'file:///etc/passwd', '', 'http//x'])('refuses the URL %j', (url) => {
    expect(
      failure(() =>
        checkUrlSetting('app_url', url, 'profile', { profile: 'work', profileSource: 'profile' }),
      ),
    ).toEqual({
      type: 'UsageError',
      message: `app_url in profile "work" must be an absolute http(s) URL, got ${JSON.stringify(url)}`,
      hint: 'for example http://127.0.0.1:4010',
    });
  });

  it('checks app_url as well as base_url, from the profile too', () => {
    expect(() => resolveSettings({}, {}, named, { app_url: 'nope' })).toThrow(
      'app_url in profile "p" must be an absolute http(s) URL, got "nope"',
    );
    expect(() => resolveSettings({}, {}, named, { tenant: 'nope' })).not.toThrow();
  });
});

describe('paths', () => {
  it('configDir: SVC_CONFIG_DIR, else XDG_CONFIG_HOME/svc, else ~/.config/svc', () => {
    expect(configDir({ SVC_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x' })).toBe('/c');
    expect(configDir({ XDG_CONFIG_HOME: '/x' })).toBe(join('/x', 'svc'));
    expect(configDir({ SVC_CONFIG_DIR: '', XDG_CONFIG_HOME: '' })).toBe(join(homedir(), '.config', 'svc'));
  });

  it.runIf(process.platform === 'linux')(
    'configDir: a relative XDG_CONFIG_HOME is invalid (XDG Base Directory spec) and ignored, never the cwd',
    () => {
      for (const relative of ['.config', 'rel', './x', '../x']) {
        expect(configDir({ XDG_CONFIG_HOME: relative })).toBe(join(homedir(), '.config', 'svc'));
      }
    },
  );

  it.runIf(process.platform === 'linux')(
    'an empty or relative HOME (cron, env -i) is not used: the home of the user list, as with no HOME, never the cwd',
    () => {
      const saved = process.env.HOME;
      const home = userInfo().homedir;
      try {
        for (const value of ['', 'relhome', './x']) {
          process.env.HOME = value;
          expect(configDir({})).toBe(join(home, '.config', 'svc'));
          expect(stateDir({})).toBe(join(home, '.local', 'state', 'svc'));
        }
      } finally {
        process.env.HOME = saved;
      }
    },
  );

  it('configDir: a relative SVC_CONFIG_DIR is taken from the current directory, as any path typed', () => {
    expect(configDir({ SVC_CONFIG_DIR: 'cfg' })).toBe('cfg');
  });

  const mode = (path: string) => statSync(path).mode & 0o7777;

  it('ensurePrivateDir creates a 0700 directory and tightens a group- or world-readable one', () => {
    const root = tempDir('svc-paths-');
    const made = join(root, 'a', 'b');
    ensurePrivateDir(made, undefined);
    expect(mode(made)).toBe(0o700);
    for (const loose of [0o750, 0o705, 0o755]) {
      chmodSync(made, loose);
      ensurePrivateDir(made, undefined);
      expect(mode(made)).toBe(0o700);
    }
  });

  // fix-store18 #2: a directory others can write (0777, sticky 1777) was chmod-ed 0700, or left
  // shared and used; it is refused, as a file others can write is, its mode left.
  it('ensurePrivateDir leaves a private directory as it is, and refuses one others can write, sticky or not', () => {
    const root = tempDir('svc-paths-');
    const own = join(root, 'own');
    mkdirSync(own, { mode: 0o500 });
    chmodSync(own, 0o500);
    ensurePrivateDir(own, undefined);
    expect(mode(own)).toBe(0o500);
    for (const loose of [0o777, 0o1777]) {
      const shared = join(root, `shared-${loose.toString(8)}`);
      mkdirSync(shared);
      chmodSync(shared, loose);
      expect(() => ensurePrivateDir(shared, undefined)).toThrow(/so svc will not keep credentials in it/);
      expect(mode(shared)).toBe(loose);
    }
  });
});

describe('ConfigStore writes', () => {
  const fresh = () => join(tempDir('svc-store-'), 'svc');

  it('claims the active profile only when none is set', async () => {
    const store = new ConfigStore(fresh());
    expect(await store.claimActiveProfile('first')).toBe(true);
    expect(await store.claimActiveProfile('second')).toBe(false);
    expect(store.activeProfile()).toBe('first');
    await expect(new ConfigStore(fresh()).claimActiveProfile('bad name')).rejects.toThrow(UsageError);
  });

  it('sets and unsets one value, keeping the others', async () => {
    const store = new ConfigStore(fresh());
    await store.setProfileValues('p', { tenant: 't', org: 'o' });
    await store.setProfileValues('p', { org: 'o2', base_url: 'http://b' });
    expect(store.profile('p')).toEqual({ tenant: 't', org: 'o2', base_url: 'http://b' });
    await store.unsetProfileValue('p', 'org');
    await store.unsetProfileValue('absent', 'org');
    expect(store.profiles()).toEqual({ p: { tenant: 't', base_url: 'http://b' } });
  });

  it('removeProfile says whether anything existed, and keeps another active profile', async () => {
    const store = new ConfigStore(fresh());
    expect(await store.removeProfile('none')).toBe(false);
    await store.setProfileValues('a', { tenant: 't' });
    await store.setProfileValues('b', { tenant: 't' });
    await store.setActiveProfile('b');
    expect(await store.removeProfile('a')).toBe(true);
    expect(store.activeProfile()).toBe('b');
    expect(store.profiles()).toEqual({ b: { tenant: 't' } });
    // Only a credential left: removing it still counts.
    await store.setCredential('c', { type: 'token', access_token: 'x', obtained_at: 'x' });
    expect(await store.removeProfile('c')).toBe(true);
    expect(await store.removeCredential('c')).toBe(false);
  });

  it('names the file it cannot read when it is not a file', () => {
    const dir = tempDir('svc-store-');
    mkdirSync(join(dir, 'config.json'));
    const store = new ConfigStore(dir);
    const error = failure(() => store.profiles());
    expect(error.type).toBe('ConfigError');
    expect(error.message).toBe(
      `cannot read ${store.configPath}: EISDIR: illegal operation on a directory, read`,
    );
  });

  it('refuses a config directory it cannot create, naming it and the fix', async () => {
    const root = tempDir('svc-store-');
    writeFileSync(join(root, 'file'), '');
    const store = new ConfigStore(join(root, 'file', 'svc'));
    const error = await store.setProfileValues('p', { tenant: 't' }).catch((e: ConfigError) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      new RegExp(`^cannot create config directory ${join(root, 'file', 'svc')}: ENOTDIR`),
    );
    expect((error as ConfigError).hint).toBe('set SVC_CONFIG_DIR to a writable directory');
  });
});
