import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authorizationCode, consentRobot, createClient, TREASURY, tokenRequest } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const sandbox = useSandbox();
const dir = tempConfigDir();
const files = mkdtempSync(join(tmpdir(), 'svc-oauth-files-'));
// tempConfigDir cleans its own folder; this one holds the secret files of the tests.
afterAll(() => rmSync(files, { recursive: true, force: true }));
const browser = consentRobot();
const admin = () => ({
  SVC_CONFIG_DIR: dir,
  SVC_BASE_URL: sandbox().url,
  SVC_TENANT: TREASURY,
  SVC_TOKEN: sandbox().adminToken,
});
const REDIRECT = ['--redirect-uri', 'http://127.0.0.1/callback'];

async function clientCreations(): Promise<number> {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([k]) => k.startsWith('POST /v1/oauth/clients '))
    .reduce((n, [, v]) => n + v, 0);
}

describe('svc oauth create', () => {
  it('prints the client and its secret once, with the warning and what to run next', async () => {
    const r = await svc(
      [
        'oauth',
        'create',
        '--name',
        'Vendor portal',
        ...REDIRECT,
        '--scope',
        'read:exceptions',
        '--description',
        'd',
      ],
      { env: admin() },
    );
    expect(r.code, r.stderr).toBe(0);
    const fields = Object.fromEntries(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(fields).toMatchObject({
      'client id': expect.stringMatching(/^cli_/),
      name: 'Vendor portal',
      description: 'd',
      'redirect uris': 'http://127.0.0.1/callback',
      'grant types': 'authorization_code,refresh_token',
      scopes: 'read:exceptions',
      'token lifetime': '3600 s',
      'refresh lifetime': '2592000 s',
      'pkce required': 'yes',
      'secret rotated': '',
      'client secret': expect.stringMatching(/^svc_cs_/),
    });
    expect(r.stderr).toBe(
      'warning: Store the client_secret now: it is shown only in this response and cannot be retrieved again (rotate it if lost).\n' +
        `Try it: svc oauth authorize --client-id ${fields['client id']} --client-secret-stdin\n`,
    );
  });

  it('returns the full creation response with --json', async () => {
    const r = await svc(
      [
        'oauth',
        'create',
        '--json',
        '--name',
        'n',
        ...REDIRECT,
        '--scope',
        'read:exceptions',
        '--no-pkce',
        '--grant-type',
        'authorization_code',
        '--token-lifetime',
        '600',
        '--refresh-token-lifetime',
        '600',
      ],
      { env: admin() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      client_id: expect.stringMatching(/^cli_/),
      client_secret: expect.stringMatching(/^svc_cs_/),
      warning: expect.any(String),
      name: 'n',
      description: '',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code'],
      scopes: ['read:exceptions'],
      token_lifetime_seconds: 600,
      refresh_token_lifetime_seconds: 600,
      pkce_required: false,
      created_at: expect.any(String),
      secret_rotated_at: null,
      tenant_id: TREASURY,
    });
    expect(r.stderr).toBe('');
  });

  it('writes the secret to a new 0600 file with --secret-file (even under umask 000) and never prints it', async () => {
    const file = join(files, 'vendor.secret');
    const r = await svc(
      ['oauth', 'create', '--name', 'n', ...REDIRECT, '--scope', 'read:exceptions', '--secret-file', file],
      {
        env: admin(),
        umask: '000',
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const secret = readFileSync(file, 'utf8');
    expect(secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(r.stdout).toContain(`client secret\twritten to ${file} (mode 0600)\n`);
    expect(r.stdout + r.stderr).not.toContain('svc_cs_');
    const json = await svc(
      [
        'oauth',
        'create',
        '--json',
        '--name',
        'n',
        ...REDIRECT,
        '--scope',
        'read:exceptions',
        '--secret-file',
        `${file}2`,
      ],
      { env: admin() },
    );
    const body = JSON.parse(json.stdout);
    expect(body.client_secret).toBeUndefined();
    expect(body.client_secret_file).toBe(`${file}2`);
    expect(json.stdout).not.toContain('svc_cs_');
  });

  it('refuses to overwrite a secret file, before creating anything (exit 2)', async () => {
    const file = join(files, 'exists.secret');
    writeFileSync(file, 'keep me\n');
    const before = await clientCreations();
    const r = await svc(
      ['oauth', 'create', '--name', 'n', ...REDIRECT, '--scope', 'read:exceptions', '--secret-file', file],
      {
        env: admin(),
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --secret-file ${file} already exists; svc never overwrites a secret file; choose a new path, or remove the old file first\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(await clientCreations()).toBe(before);
  });

  it('removes the new secret file when the creation fails', async () => {
    const file = join(files, 'failed.secret');
    const r = await svc(
      [
        'oauth',
        'create',
        '--name',
        'n',
        '--redirect-uri',
        'http://vendor.example/cb',
        '--scope',
        'read:exceptions',
        '--secret-file',
        file,
      ],
      {
        env: admin(),
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: redirect_uris\.0 "http:\/\/vendor\.example\/cb" may use http only on a loopback host/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    [['--redirect-uri', 'https://a.example/cb'], 2, /^error: --name must not be empty/],
    [['--name', 'n'], 2, /^error: --redirect-uri is required/],
    [
      ['--name', 'n', '--redirect-uri', '/callback'],
      2,
      /^error: --redirect-uri "\/callback" is not an absolute http\(s\) URI/,
    ],
    [['--name', 'n', ...REDIRECT, '--grant-type', 'password'], 2, /password/],
    [
      ['--name', 'n', ...REDIRECT, '--token-lifetime', '1h'],
      2,
      /^error: --token-lifetime must be an integer/,
    ],
    [
      ['--name', 'n', ...REDIRECT, '--scope', 'nope'],
      2,
      /^error: scopes\.0 must be equal to one of the allowed values/,
    ],
    [
      ['--name', 'n', ...REDIRECT, '--scope', 'read:exceptions', '--token-lifetime', '10'],
      2,
      /^error: token_lifetime_seconds must be >= 60/,
    ],
  ])('svc oauth create %j → exit %i', async (args, code, message) => {
    const r = await svc(['oauth', 'create', ...args], { env: admin() });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('replays a creation with the same --idempotency-key instead of making a second client', async () => {
    const args = ['oauth', 'create', '--json', '--name', 'Once', ...REDIRECT, '--scope', 'read:exceptions'];
    const key = ['--idempotency-key', `once-${Date.now()}`];
    const first = JSON.parse((await svc([...args, ...key], { env: admin() })).stdout);
    const again = JSON.parse((await svc([...args, ...key], { env: admin() })).stdout);
    expect(again.client_id).toBe(first.client_id);
    const other = JSON.parse((await svc(args, { env: admin() })).stdout);
    expect(other.client_id).not.toBe(first.client_id);
  });

  it('needs tenant_admin (exit 4)', async () => {
    const r = await svc(['oauth', 'create', '--name', 'n', ...REDIRECT, '--scope', 'read:exceptions'], {
      env: { ...admin(), SVC_TOKEN: sandbox().issueToken('usr_analyst').token },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^error: oauth_clients_create needs permission oauth_client\.manage in tenant acme-treasury; your live roles there \(tenant_analyst\) do not grant it \(HTTP 403, insufficient_role/,
    );
  });

  it('rotates a secret with --yes, writing the new one to a file; the old one stops working', async () => {
    const client = await createClient(sandbox());
    const file = join(files, 'rotated.secret');
    const refused = await svc(['oauth', 'rotate-secret', client.client_id], { env: admin() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/rotating a client secret needs confirmation; pass --yes/);
    const r = await svc(['oauth', 'rotate-secret', client.client_id, '--yes', '--secret-file', file], {
      env: admin(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\nsecret rotated\t\d{4}-/);
    const secret = readFileSync(file, 'utf8').trim();
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
    const form = {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    };
    expect((await tokenRequest(sandbox(), { ...form, client_secret: client.client_secret })).body.error).toBe(
      'invalid_client',
    );
    const missing = await svc(['oauth', 'rotate-secret', 'cli_nope', '--yes'], { env: admin() });
    expect(missing.code).toBe(5);
    expect(secret).toMatch(/^svc_cs_/);
  });
});

describe('svc oauth authorize and svc oauth token', () => {
  it('prints the token response of a confidential client and stores nothing', async () => {
    const client = await createClient(sandbox());
    const file = join(files, 'authorize.secret');
    writeFileSync(file, `${client.client_secret}\n`);
    const env = {
      SVC_CONFIG_DIR: join(files, 'authorize-config'),
      SVC_BASE_URL: sandbox().url,
      SVC_BROWSER: browser,
    };
    const r = await svc(
      ['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-file', file, '--json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      access_token: expect.stringMatching(/^eyJ/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_rt_/),
      scope: 'read:reconciliations read:exceptions',
    });
    expect(existsSync(join(files, 'authorize-config', 'credentials.json'))).toBe(false);

    const human = await svc(
      [
        'oauth',
        'authorize',
        '--client-id',
        client.client_id,
        '--client-secret-stdin',
        '--scope',
        'read:exceptions',
      ],
      {
        env,
        input: client.client_secret,
      },
    );
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /^access_token\teyJ\S+\ntoken_type\tBearer\nexpires_in\t3600\nscope\tread:exceptions\nrefresh_token\tsvc_rt_\S+\n$/,
    );
    expect(human.stderr).toContain('Nothing was stored (pass --save to keep these tokens in the profile).');

    const saved = await svc(['oauth', 'authorize', '--client-id', client.client_id, '--save', '--json'], {
      env: { ...env, SVC_CLIENT_SECRET: client.client_secret },
    });
    expect(saved.code, saved.stderr).toBe(0);
    const me = await svc(['me', '--json'], { env: { SVC_CONFIG_DIR: env.SVC_CONFIG_DIR } });
    expect(JSON.parse(me.stdout).credential).toMatchObject({
      kind: 'oauth_access_token',
      client_id: client.client_id,
    });
    const stored = JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR, 'credentials.json'), 'utf8')).profiles
      .default;
    expect(stored.client_secret).toBe(client.client_secret);
  });

  it.each([
    [[], 2, /^error: --client-id is required/],
    [
      ['--client-id', 'x'],
      2,
      /^error: this needs the client secret; pass --client-secret-file FILE or --client-secret-stdin, or set SVC_CLIENT_SECRET/,
    ],
    [['--client-id', 'x', '--public', '--client-secret-stdin'], 2, /cannot be combined/],
  ])('svc oauth authorize %j → exit %i', async (args, code, message) => {
    const r = await svc(['oauth', 'authorize', ...args], {
      env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url },
    });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('fails with exit 3 and a hint when the client secret is wrong; no secret in the message', async () => {
    const client = await createClient(sandbox());
    const canary = 'svc_cs_wrong-secret-canary-000000000000000000000';
    const r = await svc(['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-stdin'], {
      env: { SVC_CONFIG_DIR: join(files, 'wrong'), SVC_BASE_URL: sandbox().url, SVC_BROWSER: browser },
      input: canary,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^error: the authorization code could not be exchanged for tokens: client authentication failed \(invalid_client\); check the client id and secret$/m,
    );
    expect(r.stderr + r.stdout).not.toContain(canary);
  });

  it('calls the token endpoint raw: code exchange and refresh, secrets from files', async () => {
    const client = await createClient(sandbox());
    const secretFile = join(files, 'raw.secret');
    const verifierFile = join(files, 'raw.verifier');
    const refreshFile = join(files, 'raw.refresh');
    writeFileSync(secretFile, client.client_secret);
    const { code, redirectUri, verifier } = await authorizationCode(sandbox(), client);
    writeFileSync(verifierFile, `${verifier}\n`);
    const env = { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url };
    const base = ['oauth', 'token', '--client-id', client.client_id, '--client-secret-file', secretFile];
    const exchanged = await svc(
      [
        ...base,
        '--grant-type',
        'authorization_code',
        '--code',
        code,
        '--redirect-uri',
        redirectUri,
        '--code-verifier-file',
        verifierFile,
      ],
      { env },
    );
    expect(exchanged.code, exchanged.stderr).toBe(0);
    const tokens = JSON.parse(exchanged.stdout);
    expect(tokens.token_type).toBe('Bearer');
    writeFileSync(refreshFile, tokens.refresh_token);
    const refreshed = await svc(
      [
        ...base,
        '--grant-type',
        'refresh_token',
        '--refresh-token-file',
        refreshFile,
        '--scope',
        'read:exceptions',
      ],
      { env },
    );
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(JSON.parse(refreshed.stdout).scope).toBe('read:exceptions');
    const again = await svc(
      [
        ...base,
        '--grant-type',
        'authorization_code',
        '--code',
        code,
        '--redirect-uri',
        redirectUri,
        '--code-verifier-file',
        verifierFile,
      ],
      { env },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /^error: the authorization code was already used; the tokens issued with it are revoked \(HTTP 400, invalid_grant, request req_\w+\)\n$/,
    );
  });

  it.each([
    [[], /^error: --grant-type is required/],
    [
      ['--grant-type', 'refresh_token', '--code', 'x'],
      /^error: --code does not apply to --grant-type refresh_token/,
    ],
    [['--grant-type', 'authorization_code', '--redirect-uri', 'http://127.0.0.1/cb'], /needs --code/],
    [['--grant-type', 'refresh_token'], /needs --refresh-token-file FILE or --refresh-token-stdin/],
    [
      ['--grant-type', 'refresh_token', '--refresh-token-stdin', '--client-secret-stdin'],
      /only one secret can come from standard input/,
    ],
  ])('svc oauth token %j → exit 2', async (args, message) => {
    const r = await svc(['oauth', 'token', ...args], {
      env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
