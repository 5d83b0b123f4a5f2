/**
 * src/config/settings.ts in-process, one rule at a time: which profile is in use and where it was
 * named, each setting from its flag, variable or profile, the printed command lines that keep a
 * run's target, and the refusals (a credential pasted as a setting, a URL that is none, /v1 twice)
 * with the words users see.
 */
import { describe, expect, it } from 'vitest';
import {
  bareCommandLine,
  checkBaseUrlPath,
  checkUrlSetting,
  chooseProfileHint,
  commandLine,
  credentialSettingMend,
  credentialSettingProblem,
  describeSource,
  inTenant,
  missingActiveProfileError,
  profileFlag,
  refuseCredentialSetting,
  refuseCredentialSettings,
  resolveProfileName,
  resolveSettings,
  type Settings,
  shownSetting,
  svcCommand,
  type TargetSettings,
  targetOptions,
  unknownProfileError,
} from '../../src/config/settings.js';
import { EXIT_CODES, NotFoundError, UsageError } from '../../src/errors.js';
import { sym } from '../../src/output/symbols.js';
import { thrown } from '../helpers/thrown.js';

const API_KEY = 'svc_pk_0123456789abcdefWXYZ';
const CLIENT_SECRET = 'svc_cs_0123456789abcdefWXYZ';
const REFRESH_TOKEN = 'svc_rt_0123456789abcdefWXYZ';
const WEBHOOK_SECRET = 'whsec_0123456789abcdefWXYZ';
const TOKEN_HOME = 'an API key or token goes in the credential store: `svc login --with-token`, or SVC_TOKEN';
/** The active profile "ci" (a printed line need not name it), and "ci" named by -p. */
const ACTIVE = { profile: 'ci', profileSource: 'profile' } as const;
const NAMED = { profile: 'ci', profileSource: 'flag' } as const;

/** [class, exit code, code, message, hint] of what `run` throws. */
function refusal(run: () => unknown): unknown[] {
  const error = thrown(run);
  return [error.constructor.name, EXIT_CODES[error.category], error.code, error.message, error.hint];
}

describe('resolveProfileName', () => {
  const none = () => undefined;

  it('--profile, else SVC_PROFILE, else the active profile, else "default"', () => {
    expect(resolveProfileName({ profile: 'a' }, { SVC_PROFILE: 'b' }, () => 'c')).toEqual({
      name: 'a',
      source: 'flag',
    });
    expect(resolveProfileName({}, { SVC_PROFILE: 'b' }, () => 'c')).toEqual({ name: 'b', source: 'env' });
    expect(resolveProfileName({ profile: '' }, { SVC_PROFILE: 'b' }, () => 'c')).toEqual({
      name: 'b',
      source: 'env',
    });
    expect(resolveProfileName({}, { SVC_PROFILE: '' }, () => 'c')).toEqual({ name: 'c', source: 'profile' });
    expect(resolveProfileName({}, {}, () => '')).toEqual({ name: 'default', source: 'default' });
    expect(resolveProfileName({}, {}, none)).toEqual({ name: 'default', source: 'default' });
  });

  it.each([
    [{ profile: API_KEY }, {}],
    [{}, { SVC_PROFILE: API_KEY }],
  ])('a credential named as the profile (%j %j) is refused without repeating it', (flags, env) => {
    const words = refusal(() => resolveProfileName(flags, env, none));
    expect(words).toEqual([
      'UsageError',
      2,
      'credential_as_id',
      'that is an API key, not a profile name; nothing was saved',
      'name the profile with -p NAME or SVC_PROFILE; an API key or token goes in the credential store (`svc login --with-token`) or SVC_TOKEN',
    ]);
    expect(JSON.stringify(words)).not.toContain(API_KEY);
  });

  it('a refresh token named as the profile says which credential it is', () => {
    expect(thrown(() => resolveProfileName({ profile: REFRESH_TOKEN }, {}, none)).message).toBe(
      'that is a refresh token, not a profile name; nothing was saved',
    );
  });

  it('a profile an older svc saved under a credential can still be named to remove it, and only then', () => {
    expect(resolveProfileName({ profile: API_KEY }, {}, none, (name) => name === API_KEY)).toEqual({
      name: API_KEY,
      source: 'flag',
    });
    expect(resolveProfileName({}, { SVC_PROFILE: API_KEY }, none, () => true)).toEqual({
      name: API_KEY,
      source: 'env',
    });
    expect(() => resolveProfileName({ profile: API_KEY }, {}, none, () => false)).toThrow(UsageError);
  });
});

describe('profileFlag', () => {
  it.each([
    ['flag', '-p ci '],
    ['env', '-p ci '],
    ['profile', ''],
    ['default', ''],
  ] as const)('a profile named by %s: %j', (source, expected) => {
    expect(profileFlag({ profile: 'ci', profileSource: source })).toBe(expected);
  });
});

describe('targetOptions and the printed command lines', () => {
  const flagged: TargetSettings = {
    profile: 'ci',
    profileSource: 'flag',
    values: {
      base_url: 'https://api.example.com',
      app_url: 'https://app.example.com',
      tenant: 'acme x',
      org: 'org_1',
      client_id: 'cli_1',
    },
    sources: { base_url: 'flag', app_url: 'flag', tenant: 'flag', org: 'flag', client_id: 'flag' },
  };

  it('repeats, in order, the profile and each target setting given by flag, one shell word each; never the client id', () => {
    expect(targetOptions(flagged)).toBe(
      "-p ci --base-url https://api.example.com --app-url https://app.example.com --tenant 'acme x' --org org_1 ",
    );
    expect(svcCommand(flagged, 'users ls')).toBe(`svc ${targetOptions(flagged)}users ls`);
    expect(commandLine(flagged)('users ls')).toBe(`svc ${targetOptions(flagged)}users ls`);
    expect(bareCommandLine('users ls')).toBe('svc users ls');
  });

  it('leaves out what came from the environment, the profile or a default', () => {
    const settings: TargetSettings = {
      profile: 'ci',
      profileSource: 'env',
      values: {
        base_url: 'https://api.example.com',
        app_url: 'https://api.example.com',
        tenant: 't',
        org: 'o',
      },
      sources: { base_url: 'env', app_url: 'default', tenant: 'profile', org: 'env' },
    };
    expect(targetOptions(settings)).toBe('');
    expect(svcCommand(settings, 'me')).toBe('svc me');
  });

  it('masks a secret-named query value of a repeated URL, and only of a URL', () => {
    const settings: TargetSettings = {
      profile: 'default',
      profileSource: 'default',
      values: { base_url: 'https://api.example.com/?token=abc123', tenant: 'token=abc123' },
      sources: { base_url: 'flag', tenant: 'flag' },
    };
    expect(targetOptions(settings)).toBe(
      "--base-url 'https://api.example.com/?token=[redacted]' --tenant token=abc123 ",
    );
  });

  it.each([
    ['http://api.example.com', true, '--base-url http://api.example.com --allow-insecure-http '],
    ['http://127.0.0.1:4010', true, '--base-url http://127.0.0.1:4010 '],
    ['https://api.example.com', true, '--base-url https://api.example.com '],
    ['http://api.example.com', false, '--base-url http://api.example.com '],
  ])(
    '--allow-insecure-http is repeated only for plain http away from loopback (%s, flag %s)',
    (url, flag, expected) => {
      const settings: TargetSettings = {
        profile: 'default',
        profileSource: 'default',
        values: { base_url: url },
        sources: { base_url: 'flag' },
        insecureHttpFlag: flag,
      };
      expect(targetOptions(settings)).toBe(expected);
    },
  );

  it('--allow-insecure-http is repeated for a base URL from the profile too (the flag was typed), never without one', () => {
    const base = { profile: 'default', profileSource: 'default' as const, insecureHttpFlag: true };
    expect(
      targetOptions({
        ...base,
        values: { base_url: 'http://api.example.com' },
        sources: { base_url: 'profile' },
      }),
    ).toBe('--allow-insecure-http ');
    expect(targetOptions({ ...base, values: {}, sources: {} })).toBe('');
  });

  it('inTenant replaces the tenant as if given by --tenant, or leaves it out; the run’s settings are untouched', () => {
    const settings: TargetSettings = {
      profile: 'default',
      profileSource: 'default',
      values: { tenant: 'acme', org: 'o' },
      sources: { tenant: 'env', org: 'flag' },
    };
    const other = inTenant(settings, 'beta');
    expect(other).toEqual({
      ...settings,
      values: { tenant: 'beta', org: 'o' },
      sources: { tenant: 'flag', org: 'flag' },
    });
    expect(targetOptions(other)).toBe('--tenant beta --org o ');
    const without = inTenant(settings, undefined);
    expect(without).toEqual({ ...settings, values: { org: 'o' }, sources: { org: 'flag' } });
    expect(settings).toEqual({
      profile: 'default',
      profileSource: 'default',
      values: { tenant: 'acme', org: 'o' },
      sources: { tenant: 'env', org: 'flag' },
    });
  });
});

describe('profiles that do not exist', () => {
  it('a named profile: exit 5, the closest name, and how to make it', () => {
    const error = unknownProfileError('stagng', ['staging', 'prod']);
    expect([error.constructor.name, EXIT_CODES[error.category], error.message, error.hint]).toEqual([
      'NotFoundError',
      5,
      'no profile named "stagng" (did you mean staging?)',
      'see `svc profiles ls`; create one with `svc -p stagng config set base_url URL` (or `svc -p stagng login --base-url URL`)',
    ]);
  });

  it('named by SVC_PROFILE: says so; by the flag or the profile: does not', () => {
    expect(unknownProfileError('x', [], 'env').message).toBe(
      'no profile named "x" (from SVC_PROFILE) among your profiles',
    );
    expect(unknownProfileError('x', [], 'flag').message).toBe('no profile named "x"');
    expect(unknownProfileError('x', []).message).toBe('no profile named "x"');
  });

  it('a name no profile can have is said to be invalid (exit 2), not missing', () => {
    const error = unknownProfileError('__proto__', ['default']);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/^invalid profile name "__proto__"/);
  });

  it('no profile in force: which, and how to choose one among the profiles there are (sorted)', () => {
    const names = ['prod', 'ci'];
    const none = missingActiveProfileError(undefined, names);
    expect(none).toBeInstanceOf(NotFoundError);
    expect([none.message, none.hint]).toEqual([
      'no profile is active',
      'choose one with `svc profiles use NAME` (yours: ci, prod)',
    ]);
    expect(missingActiveProfileError('gone', []).message).toBe('the active profile "gone" does not exist');
    expect(missingActiveProfileError('gone', []).hint).toBe(
      'create one with `svc sandbox start` or `svc -p NAME config set base_url URL`',
    );
    expect(chooseProfileHint(['b', 'a'])).toBe('choose one with `svc profiles use NAME` (yours: a, b)');
    expect(names).toEqual(['prod', 'ci']);
  });
});

describe('resolveSettings', () => {
  const named = { name: 'ci', source: 'flag' as const };

  it('each setting from its flag, else its variable, else the profile; an empty flag or variable is not given', () => {
    const settings = resolveSettings(
      { baseUrl: 'https://flag.example', tenant: '', org: '' },
      { SVC_BASE_URL: 'https://env.example', SVC_TENANT: 'env-t', SVC_ORG: '', SVC_CLIENT_ID: 'env-client' },
      named,
      { tenant: 'profile-t', org: 'profile-o', client_id: 'profile-client', app_url: 'https://app.example' },
    );
    expect(settings).toEqual({
      profile: 'ci',
      profileSource: 'flag',
      values: {
        base_url: 'https://flag.example',
        app_url: 'https://app.example',
        tenant: 'env-t',
        org: 'profile-o',
        client_id: 'env-client',
      },
      sources: { base_url: 'flag', app_url: 'profile', tenant: 'env', org: 'profile', client_id: 'env' },
    });
  });

  it('nothing given anywhere: no values, and no app URL without a base URL', () => {
    expect(resolveSettings({}, {}, { name: 'default', source: 'default' }, undefined)).toEqual({
      profile: 'default',
      profileSource: 'default',
      values: {},
      sources: {},
    });
  });

  it('the app URL defaults to the base URL', () => {
    const settings = resolveSettings({}, {}, named, { base_url: 'https://api.example' });
    expect(settings.values).toEqual({ base_url: 'https://api.example', app_url: 'https://api.example' });
    expect(settings.sources).toEqual({ base_url: 'profile', app_url: 'default' });
  });

  it.each([
    ['a flag', { baseUrl: 'https://new.example' }, {}],
    ['SVC_BASE_URL', {}, { SVC_BASE_URL: 'https://new.example' }],
  ])(
    'a base URL from %s takes with it a profile app URL that was the profile’s base URL',
    (_, flags, env) => {
      const settings = resolveSettings(flags, env, named, {
        base_url: 'https://old.example',
        app_url: 'https://old.example/',
      });
      expect(settings.values.app_url).toBe('https://new.example');
      expect(settings.sources.app_url).toBe('default');
    },
  );

  it('keeps a profile app URL of its own, and one an app URL flag overrides', () => {
    const profile = { base_url: 'https://old.example', app_url: 'https://app.example' };
    const own = resolveSettings({ baseUrl: 'https://new.example' }, {}, named, profile);
    expect([own.values.app_url, own.sources.app_url]).toEqual(['https://app.example', 'profile']);
    const same = { base_url: 'https://old.example', app_url: 'https://old.example' };
    const flagged = resolveSettings(
      { baseUrl: 'https://new.example', appUrl: 'https://a.example' },
      {},
      named,
      same,
    );
    expect([flagged.values.app_url, flagged.sources.app_url]).toEqual(['https://a.example', 'flag']);
    const untouched = resolveSettings({}, {}, named, same);
    expect([untouched.values.app_url, untouched.sources.app_url]).toEqual(['https://old.example', 'profile']);
    const noBase = resolveSettings({ baseUrl: 'https://new.example' }, {}, named, {
      app_url: 'https://old.example',
    });
    expect([noBase.values.app_url, noBase.sources.app_url]).toEqual(['https://old.example', 'profile']);
  });

  it('--allow-insecure-http is carried only when given', () => {
    expect(resolveSettings({ allowInsecureHttp: true }, {}, named, undefined).insecureHttpFlag).toBe(true);
    expect('insecureHttpFlag' in resolveSettings({ allowInsecureHttp: false }, {}, named, undefined)).toBe(
      false,
    );
    expect('insecureHttpFlag' in resolveSettings({}, {}, named, undefined)).toBe(false);
  });

  it('a credential from a flag or variable is refused before anything is sent; one saved in the profile is left for config to mend', () => {
    expect(refusal(() => resolveSettings({}, { SVC_ORG: API_KEY }, named, undefined))).toEqual([
      'UsageError',
      2,
      'credential_as_id',
      'SVC_ORG holds the API key itself, not an organisation id',
      "svc did not send it or save it; give the organisation's id instead; " +
        'an API key or token goes in the credential store: `svc -p ci login --with-token`, or SVC_TOKEN',
    ]);
    expect(thrown(() => resolveSettings({ tenant: API_KEY }, {}, named, undefined)).message).toBe(
      '--tenant holds the API key itself, not a tenant id or slug',
    );
    expect(resolveSettings({}, {}, named, { org: API_KEY }).values.org).toBe(API_KEY);
  });

  it('a base or app URL that is none is refused wherever it comes from, the profile included', () => {
    expect(refusal(() => resolveSettings({}, {}, named, { base_url: 'api.example.com' }))).toEqual([
      'UsageError',
      2,
      'usage',
      'base_url in profile "ci" must be an absolute http(s) URL, got "api.example.com"',
      'for example http://127.0.0.1:4010',
    ]);
    expect(thrown(() => resolveSettings({}, { SVC_APP_URL: 'ftp://x' }, named, undefined)).message).toBe(
      'SVC_APP_URL must be an absolute http(s) URL, got "ftp://x"',
    );
    expect(() => resolveSettings({}, { SVC_TENANT: 'not a url' }, named, undefined)).not.toThrow();
  });
});

describe('a credential pasted as a setting', () => {
  it.each([
    [
      'base_url',
      CLIENT_SECRET,
      'take it out of the URL; a client secret goes in --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET',
    ],
    [
      'app_url',
      WEBHOOK_SECRET,
      'take it out of the URL; a webhook signing secret goes in --secret-file or SVC_WEBHOOK_SECRET (`svc webhooks verify`, `sign`, `listen`)',
    ],
    [
      'tenant',
      REFRESH_TOKEN,
      "give the tenant's id or slug instead; a refresh token goes in --refresh-token-file or --refresh-token-stdin (`svc oauth token --grant-type refresh_token`)",
    ],
    ['org', API_KEY, `give the organisation's id instead; ${TOKEN_HOME}`],
    ['client_id', API_KEY, `give the OAuth client's id instead (\`svc oauth ls\` lists them); ${TOKEN_HOME}`],
  ] as const)('%s holding %s: what to give instead, and where the credential goes', (key, value, mend) => {
    expect(credentialSettingMend(key, value, ACTIVE)).toBe(mend);
  });

  it.each([
    ['base_url', 'a base URL'],
    ['app_url', 'an app URL'],
    ['tenant', 'a tenant id or slug'],
    ['org', 'an organisation id'],
    ['client_id', 'an OAuth client id'],
  ] as const)('%s: the problem names what the setting should hold (%s)', (key, words) => {
    expect(credentialSettingProblem(key, CLIENT_SECRET)).toBe(`a client secret, not ${words}`);
    expect(credentialSettingProblem(key, 'acme')).toBeUndefined();
  });

  it('from the profile: how to remove it from that profile, one shell word', () => {
    expect(refusal(() => refuseCredentialSetting('client_id', CLIENT_SECRET, 'profile', ACTIVE))).toEqual([
      'UsageError',
      2,
      'credential_as_id',
      'client_id in profile "ci" holds a client secret, not an OAuth client id',
      'svc did not send it; remove it with `svc -p ci config unset client_id`',
    ]);
    expect(thrown(() => refuseCredentialSetting('org', API_KEY, 'default', ACTIVE)).hint).toBe(
      `svc did not send it or save it; give the organisation's id instead; ${TOKEN_HOME}`,
    );
    expect(thrown(() => refuseCredentialSetting('org', API_KEY, 'flag', NAMED)).hint).toBe(
      "svc did not send it or save it; give the organisation's id instead; " +
        'an API key or token goes in the credential store: `svc -p ci login --with-token`, or SVC_TOKEN',
    );
  });

  it('refuseCredentialSettings checks every setting of a run, a value without a source as the profile’s', () => {
    const settings: Settings = {
      profile: 'ci',
      profileSource: 'flag',
      values: { base_url: 'https://api.example', tenant: 'acme', client_id: CLIENT_SECRET },
      sources: { base_url: 'flag', tenant: 'profile' },
    };
    expect(thrown(() => refuseCredentialSettings(settings)).hint).toBe(
      'svc did not send it; remove it with `svc -p ci config unset client_id`',
    );
    expect(() => refuseCredentialSettings({ ...settings, values: { tenant: 'acme' } })).not.toThrow();
  });
});

describe('shownSetting and describeSource', () => {
  it('masks a URL’s secret-named query values and credential shapes, and nothing else', () => {
    expect(shownSetting('base_url', 'https://api.example/?token=abc123')).toBe(
      'https://api.example/?token=[redacted]',
    );
    expect(shownSetting('app_url', 'https://app.example/?api_key=abc123')).toBe(
      'https://app.example/?api_key=[redacted]',
    );
    expect(shownSetting('tenant', 'token=abc123')).toBe('token=abc123');
    expect(shownSetting('org', API_KEY)).not.toContain(API_KEY);
    expect(shownSetting('tenant', 'acme')).toBe('acme');
  });

  it.each([
    ['base_url', 'flag', '--base-url'],
    ['client_id', 'flag', '--client-id'],
    ['org', 'env', 'SVC_ORG'],
    ['client_id', 'env', 'SVC_CLIENT_ID'],
    ['tenant', 'profile', 'tenant in profile "p q"'],
    ['app_url', 'default', 'app_url in profile "p q"'],
  ] as const)('%s from %s: %s', (key, source, words) => {
    expect(describeSource(key, source, 'p q')).toBe(words);
  });
});

describe('checkBaseUrlPath: a base URL ending in /v1', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com'],
    ['https://api.example.com/v1/', 'https://api.example.com'],
    ['https://api.example.com/V1', 'https://api.example.com'],
    ['https://api.example.com/api/v1', 'https://api.example.com/api'],
    ['http://127.0.0.1:4010/v1?x=1', 'http://127.0.0.1:4010'],
  ])('%s is refused (exit 2), with the URL to use: %s', (url, fixed) => {
    expect(refusal(() => checkBaseUrlPath(url, 'flag', 'ci'))).toEqual([
      'UsageError',
      2,
      'usage',
      `--base-url ${url} ends in /v1, and svc adds /v1 to every path (/v1/v1/${sym.ellipsis})`,
      `use ${fixed}`,
    ]);
  });

  it('names the profile it came from, and masks a secret in the URL', () => {
    expect(thrown(() => checkBaseUrlPath('https://x.example/v1?token=abc123', 'profile', 'ci')).message).toBe(
      `base_url in profile "ci" https://x.example/v1?token=[redacted] ends in /v1, and svc adds /v1 to every path (/v1/v1/${sym.ellipsis})`,
    );
  });

  it.each([
    'https://api.example.com',
    'https://api.example.com/v10',
    'https://api.example.com/v1x',
    'https://x/v1/users',
    'not a url',
  ])('%s is fine', (url) => {
    expect(() => checkBaseUrlPath(url, 'env', 'ci')).not.toThrow();
  });
});

describe('checkUrlSetting', () => {
  it('returns an absolute http(s) URL as given', () => {
    expect(checkUrlSetting('base_url', 'https://api.example.com/x', 'flag', ACTIVE)).toBe(
      'https://api.example.com/x',
    );
    expect(checkUrlSetting('app_url', 'http://127.0.0.1:4010', 'env', ACTIVE)).toBe('http://127.0.0.1:4010');
  });

  it('refuses anything else, quoting it with any password masked', () => {
    expect(thrown(() => checkUrlSetting('base_url', 'api.example.com', 'flag', ACTIVE)).message).toBe(
      '--base-url must be an absolute http(s) URL, got "api.example.com"',
    );
    const error = thrown(() => checkUrlSetting('base_url', 'ftp://u:hunter2@x', 'env', ACTIVE));
    expect(error.message).not.toContain('hunter2');
    expect(error.message).toMatch(/^SVC_BASE_URL must be an absolute http\(s\) URL, got "ftp:\/\//);
    expect(thrown(() => checkUrlSetting('app_url', 'nope', 'profile', ACTIVE)).message).toBe(
      'app_url in profile "ci" must be an absolute http(s) URL, got "nope"',
    );
  });

  it.each(['https://user@api.example.com', 'https://:pw@api.example.com', 'https://u:pw@api.example.com'])(
    '%s: refused without repeating it (it holds a credential)',
    (url) => {
      expect(refusal(() => checkUrlSetting('base_url', url, 'flag', ACTIVE))).toEqual([
        'UsageError',
        2,
        'usage',
        '--base-url must not hold a user name or password',
        'credentials go in the credential store: `svc login`, or SVC_TOKEN',
      ]);
      // A profile named by -p or SVC_PROFILE is repeated: `svc login` would log another one in.
      expect(thrown(() => checkUrlSetting('base_url', url, 'flag', NAMED)).hint).toBe(
        'credentials go in the credential store: `svc -p ci login`, or SVC_TOKEN',
      );
    },
  );
});
