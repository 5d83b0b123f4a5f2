// attack18a F1: a command line a hint prints to `svc -p NAME …` (or `svc --base-url URL …`) repeats
// them, as README's "Output" promises: copied as printed it acts on that profile and server, never
// writes a setting or a credential into the active profile instead.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({}, { tenant: false });
/** No ambient server, credential or tenant: what the profiles hold decides; a fresh config each test. */
let bare: Record<string, string | undefined> = {};
beforeEach(() => {
  const config = mkdtempSync(join(svc.env().SVC_STATE_DIR!, '..', 'config-'));
  bare = {
    SVC_TOKEN: undefined,
    SVC_BASE_URL: undefined,
    SVC_TENANT: undefined,
    SVC_CLIENT_ID: undefined,
    SVC_CONFIG_DIR: config,
  };
});

/** A profile "prod" on the sandbox's server, with nothing else set (a fresh config per test). */
async function prodProfile(env: Record<string, string | undefined>) {
  const r = await svc.run(['-p', 'prod', 'config', 'set', 'base_url', svc.sandbox().url], { env });
  expect(r.code).toBe(0);
}

describe('hints printed to a run given -p NAME keep it', () => {
  it('login without a client id: `svc -p prod config set client_id ID` and `svc -p prod login --with-token`', async () => {
    await prodProfile(bare);
    const r = await svc.run(['-p', 'prod', 'login'], { env: bare, stdin: '' });
    expect([r.code, r.stderr]).toEqual([
      2,
      'error: no OAuth client id for profile "prod"; pass --client-id, set SVC_CLIENT_ID or `svc -p prod config set client_id ID` (svc sandbox start sets it), or use `svc -p prod login --with-token`\n',
    ]);
  });

  it('login --with-token on a terminal: `svc -p prod login --with-token < token.txt`', async () => {
    await prodProfile(bare);
    const r = await svc.run(['-p', 'prod', 'login', '--with-token'], { env: bare, tty: { stdin: true } });
    expect([r.code, r.stderr]).toEqual([
      2,
      'error: --with-token reads the token from standard input, which is this terminal; pipe it in: `svc -p prod login --with-token < token.txt` or `printenv MY_TOKEN | svc -p prod login --with-token`\n',
    ]);
  });

  it('sandbox trigger without a tenant: `svc -p prod config set tenant`', async () => {
    await prodProfile(bare);
    const env = { ...bare, SVC_TOKEN: svc.sandbox().adminToken };
    const r = await svc.run(['-p', 'prod', 'sandbox', 'trigger', 'exception.created'], { env });
    expect([r.code, r.stderr]).toEqual([
      2,
      'error: no tenant to send events in; pass --webhook W, or --tenant ID (or set SVC_TENANT / `svc -p prod config set tenant ID_OR_SLUG`)\n',
    ]);
  });

  it('a bulk grant without a tenant: `svc -p prod config set tenant ID`', async () => {
    await prodProfile(bare);
    const env = { ...bare, SVC_TOKEN: svc.sandbox().adminToken };
    const r = await svc.run(['-p', 'prod', 'roles', 'assign', '--file', '-'], {
      env,
      stdin: 'user,role\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`svc -p prod config set tenant ID');
  });
});

describe('the login hint repeats a --base-url given as a flag', () => {
  it('`svc --base-url URL me` not logged in: `svc --base-url URL login`', async () => {
    const url = svc.sandbox().url;
    const r = await svc.run(['--base-url', url, 'me'], { env: bare });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `run \`svc --base-url ${url} login\` (or \`svc --base-url ${url} login --with-token\`), or set SVC_TOKEN`,
    );
    // As printed, it logs in and the next run needs no flag.
    const login = await svc.run(['--base-url', url, 'login', '--with-token'], {
      env: bare,
      stdin: `${svc.sandbox().adminToken}\n`,
    });
    expect(login.code).toBe(0);
    expect((await svc.run(['me'], { env: bare })).code).toBe(0);
  });

  it('`svc -p nobody --base-url URL me`: the hint names both', async () => {
    const url = svc.sandbox().url;
    const r = await svc.run(['-p', 'nobody', '--base-url', url, 'me'], { env: bare });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`run \`svc -p nobody --base-url ${url} login\``);
  });
});

// Session 19 (words19 #2): a refused setting named the credential store as a bare `svc login`
// (`svc login --with-token`): copied as printed, it logged the active profile in, not the one in use.
describe('a credential refused as a setting names the login of the profile in use', () => {
  const KEY = 'svc_pk_0123456789abcdefWXYZ';
  it.each([
    [
      'a --base-url with a user and password, -p prod',
      ['-p', 'prod', '--base-url', 'https://ada:hunter2@api.example.com', 'me'],
      {},
      'error: --base-url must not hold a user name or password; credentials go in the credential store: `svc -p prod login`, or SVC_TOKEN\n',
    ],
    [
      'SVC_BASE_URL with a user and password, SVC_PROFILE=prod',
      ['me'],
      { SVC_PROFILE: 'prod', SVC_BASE_URL: 'https://ada:hunter2@api.example.com' },
      'error: SVC_BASE_URL must not hold a user name or password; credentials go in the credential store: `svc -p prod login`, or SVC_TOKEN\n',
    ],
    [
      'an API key as --org, -p prod',
      ['-p', 'prod', '--org', KEY, 'me'],
      {},
      'error: --org holds the API key itself, not an organisation id; svc did not send it or save it; ' +
        "give the organisation's id instead; an API key or token goes in the credential store: `svc -p prod login --with-token`, or SVC_TOKEN\n",
    ],
    [
      'config set base_url with a password, -p prod',
      ['-p', 'prod', 'config', 'set', 'base_url', 'https://ada:hunter2@api.example.com'],
      {},
      'error: base_url in profile "prod" must not hold a user name or password; credentials go in the credential store: `svc -p prod login`, or SVC_TOKEN\n',
    ],
    [
      'config set org to an API key, -p prod',
      ['-p', 'prod', 'config', 'set', 'org', KEY],
      {},
      'error: that is the API key itself, not an organisation id; svc did not save it; ' +
        "give the organisation's id instead; an API key or token goes in the credential store: `svc -p prod login --with-token`, or SVC_TOKEN\n",
    ],
  ])('%s', async (_what, argv, env, stderr) => {
    await prodProfile(bare);
    const r = await svc.run(argv, { env: { ...bare, ...env } });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', stderr]);
  });

  it('without -p or SVC_PROFILE the line stays `svc login`', async () => {
    const r = await svc.run(['--base-url', 'https://ada:hunter2@api.example.com', 'me'], { env: bare });
    expect([r.code, r.stderr]).toEqual([
      2,
      'error: --base-url must not hold a user name or password; credentials go in the credential store: `svc login`, or SVC_TOKEN\n',
    ]);
  });
});
