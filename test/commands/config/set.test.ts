import { describe, expect, it } from 'vitest';
import { runInProcess, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();
const profile = (name: string) => testContext({ env: env() }).ctx.store().profile(name);

describe('svc config set', () => {
  it.each<[string, string[], Record<string, string>, string, string]>([
    ['in a pipe', ['config', 'set', 'org', 'org_demo'], {}, '', '✓ set org for profile "default"\n'],
    [
      'with --json',
      ['config', 'set', 'org', 'org_demo', '--json'],
      {},
      '{\n  "profile": "default",\n  "key": "org",\n  "value": "org_demo",\n  "profile_created": false,\n  "made_active": false\n}\n',
      '',
    ],
    [
      'and warns when the environment overrides it',
      ['config', 'set', 'org', 'org_demo'],
      { SVC_ORG: 'org_other' },
      '',
      '✓ set org for profile "default"\nwarning: SVC_ORG overrides this value right now\n',
    ],
  ])('stores a setting in the profile %s', async (_what, argv, extra, stdout, stderr) => {
    expect(await runInProcess(argv, { ...env(), ...extra })).toEqual({ code: 0, stdout, stderr });
    expect(profile('default')?.org).toBe('org_demo');
  });

  it.each<[string[], number, string]>([
    [
      ['config', 'set', 'colour', 'x'],
      2,
      'error: unknown setting "colour"; settings are base_url, app_url, tenant, org, client_id\n',
    ],
    [
      ['config', 'set', 'base_url', 'localhost:4010'],
      2,
      'error: base_url in profile "default" must be an absolute http(s) URL, got "localhost:4010"; for example http://127.0.0.1:4010\n',
    ],
    [
      // A password in a setting would sit in config.json and show in `config get` and `profiles ls`.
      ['config', 'set', 'base_url', 'https://admin:urlpassw0rd@api.example.com'],
      2,
      'error: base_url in profile "default" must not hold a user name or password; credentials go in the credential store: `svc login`, or SVC_TOKEN\n',
    ],
    [
      ['--base-url', 'https://admin@api.example.com', 'config', 'get', 'base_url'],
      2,
      'error: --base-url must not hold a user name or password; credentials go in the credential store: `svc login`, or SVC_TOKEN\n',
    ],
  ])('refuses svc %j with exit %i and changes nothing', async (argv, code, stderr) => {
    expect(await runInProcess(argv, env())).toEqual({ code, stdout: '', stderr });
    expect(profile('default')?.base_url).toBe('https://api.example.com');
  });
});

// env12 #3: "saved without checking…" came before the save, which then failed.
describe.runIf(process.platform === 'linux')(
  'svc config set tenant, when the config cannot be written',
  () => {
    it.each([
      ['without a base URL', {}],
      ['with a server that cannot be asked', { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' }],
    ])('%s: only the error, no line claiming a save (exit 2)', async (_what, extra) => {
      const dir = '/proc/self/svc-no-such-dir';
      const r = await runInProcess(['config', 'set', 'tenant', 'abc'], {
        ...env(),
        ...extra,
        SVC_CONFIG_DIR: dir,
      });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: cannot create config directory ${dir}: ENOENT: no such file or directory, mkdir '${dir}'; set SVC_CONFIG_DIR to a writable directory\n`,
      });
    });
  },
);

// examples16 E7: the warning's reason was "no profile named "staging"" (a lookup's error), about the
// profile being new, and no way to have the tenant checked; it says what was missing and the fix.
describe('svc config set tenant on a profile with no base URL', () => {
  it.each<[string, string[], string]>([
    ['a new profile (-p NEW)', ['-p', 'eu-prod', 'config', 'set', 'tenant', 'acme-payments-eu'], 'eu-prod'],
  ])('%s: saved, with why it was not checked and how to give it a server', async (_what, argv, name) => {
    expect(await runInProcess(argv, { ...env(), SVC_BASE_URL: '' })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `warning: saved without checking that acme-payments-eu is one of your tenants: profile "${name}" has no base URL to ask; set one with \`svc -p ${name} config set base_url URL\`\n` +
        `✓ set tenant for profile "${name}" (a new profile)\n`,
    });
    expect(profile(name)?.tenant).toBe('acme-payments-eu');
  });
});
