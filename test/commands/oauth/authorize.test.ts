/**
 * `svc oauth authorize` and `svc oauth token`, in-process against a sandbox: the browser is
 * consentBrowser() (it approves on the consent page and follows the redirect to svc's loopback,
 * as clicking does), the secret comes from a file, stdin or SVC_CLIENT_SECRET; usage errors
 * exit 2 before any request. Was test/e2e/oauth-cli.test.ts (second half).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { virtualClock } from '../../helpers/context.js';
import { authorizationCode, consentBrowser, createClient } from '../../helpers/oauth.js';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-oauth-authorize-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
/** No admin token: authorize is a user's login through a client, not the admin's. */
const anonymous = (config: string) => ({
  SVC_TOKEN: undefined,
  SVC_TENANT: undefined,
  SVC_CONFIG_DIR: join(files, config),
});

/** What svc says while the browser is at the consent page (the URL holds a random state and port). */
function waiting(url: string | undefined): string {
  const redirect = new URL(url ?? '').searchParams.get('redirect_uri');
  return (
    `opening the login page in your browser; if it does not open, visit:\n  ${url}\n` +
    `waiting for the browser on ${redirect} (up to 5 minutes; Ctrl-C to cancel)…\n`
  );
}

describe('svc oauth authorize', () => {
  it('--json prints the token response of a confidential client and stores nothing', async () => {
    const client = await createClient(svc.sandbox());
    const file = join(files, 'authorize.secret');
    writeFileSync(file, `${client.client_secret}\n`, { mode: 0o600 });
    const browser = consentBrowser();
    const r = await svc.run(
      ['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-file', file, '--json'],
      { env: anonymous('json'), browser },
    );
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(browser.opened).toHaveLength(1);
    const body = JSON.parse(r.stdout);
    expect(body).toEqual({
      access_token: expect.stringMatching(/^eyJ/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_rt_/),
      scope: 'read:reconciliations read:exceptions',
    });
    expect(r.stdout).toBe(`${JSON.stringify(body, null, 2)}\n`);
    expect(existsSync(join(files, 'json', 'credentials.json'))).toBe(false);
    // The tab the user is left with says what happened, in this verb's words (not a login's).
    expect(browser.pages).toEqual([
      {
        status: 200,
        text: expect.stringContaining(
          '<h1>Authorized</h1><p>svc received the tokens. You can close this tab and return to your terminal.</p>',
        ),
      },
    ]);
  });

  it('in a pipe, secret from stdin: the tokens as TSV, and "nothing was stored" on stderr', async () => {
    const client = await createClient(svc.sandbox());
    const browser = consentBrowser();
    const r = await svc.run(
      [
        'oauth',
        'authorize',
        '--client-id',
        client.client_id,
        '--client-secret-stdin',
        '--scope',
        'read:exceptions',
      ],
      { env: anonymous('pipe'), browser, stdin: client.client_secret },
    );
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    const access = /^access_token\t(eyJ\S+)\n/.exec(r.stdout)?.[1];
    const refresh = /\nrefresh_token\t(svc_rt_\S+)\n$/.exec(r.stdout)?.[1];
    expect(r.stdout).toBe(
      `access_token\t${access}\ntoken_type\tBearer\nexpires_in\t3600\nscope\tread:exceptions\nrefresh_token\t${refresh}\n`,
    );
    expect(r.stderr).toBe(
      `${waiting(browser.opened[0])}nothing was stored (pass --save to keep these tokens in the profile)\n`,
    );
    expect(r.stderr).not.toContain(client.client_secret);
    expect(existsSync(join(files, 'pipe', 'credentials.json'))).toBe(false);
  });

  it('--save keeps the tokens and the client secret (SVC_CLIENT_SECRET) in the profile; svc me uses them', async () => {
    const client = await createClient(svc.sandbox());
    const env = { ...anonymous('saved'), SVC_CLIENT_SECRET: client.client_secret };
    const browser = consentBrowser();
    const saved = await svc.run(['oauth', 'authorize', '--client-id', client.client_id, '--save', '--json'], {
      env,
      browser,
    });
    await browser.settled();
    expect(saved.code, saved.stderr).toBe(0);
    const me = await svc.run(['me', '--json'], { env: anonymous('saved'), now: Date.now() });
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).credential).toMatchObject({
      kind: 'oauth_access_token',
      client_id: client.client_id,
    });
    const stored = JSON.parse(readFileSync(join(files, 'saved', 'credentials.json'), 'utf8')).profiles
      .default;
    expect(stored.client_secret).toBe(client.client_secret);
  });

  it.each([
    [[], 'error: --client-id is required\n'],
    [
      ['--client-id', 'x'],
      'error: this needs the client secret; pass --client-secret-file FILE or --client-secret-stdin, or set SVC_CLIENT_SECRET\n',
    ],
    [
      ['--client-id', 'x', '--public', '--client-secret-stdin'],
      'error: --public cannot be combined with --client-secret-file or --client-secret-stdin\n',
    ],
  ])('svc oauth authorize %j exits 2 before any request', async (args, message) => {
    const before = await requestCount(svc.sandbox());
    const browser = consentBrowser();
    const r = await svc.run(['oauth', 'authorize', ...args], { env: anonymous('usage'), browser });
    expect(r).toEqual({ code: 2, stdout: '', stderr: message });
    expect(browser.opened).toEqual([]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  // review28e L5: svc-cli is public (PKCE); by login's rule, --public or not (client-secret.ts).
  it('svc-cli without --public: SVC_CLIENT_SECRET is not sent (said once), and the tokens come back', async () => {
    const browser = consentBrowser();
    const r = await svc.run(['oauth', 'authorize', '--client-id', 'svc-cli', '--json'], {
      env: { ...anonymous('svc-cli'), SVC_CLIENT_SECRET: 'left-over-vendor-secret' },
      browser,
    });
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      "warning: SVC_CLIENT_SECRET is set but not sent: svc-cli is svc's own public client (it proves itself with PKCE); unset SVC_CLIENT_SECRET unless another client needs it\n" +
        waiting(browser.opened[0]),
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ access_token: expect.stringMatching(/^eyJ/) });
  });

  // With a credential the client lookup (checkRedirectUris) is a request: the refusal comes first
  // (review29a L4); without one the lookup sends nothing either way.
  it.each([
    ['no credential', anonymous('svc-cli-flag')],
    ["the admin's token", { SVC_CONFIG_DIR: join(files, 'svc-cli-flag-admin') }],
  ])(
    'svc-cli with --client-secret-stdin (%s): exit 2 before any request, as svc login refuses it',
    async (_name, env) => {
      const before = await requestCount(svc.sandbox());
      const browser = consentBrowser();
      const r = await svc.run(['oauth', 'authorize', '--client-id', 'svc-cli', '--client-secret-stdin'], {
        env,
        browser,
        stdin: 'some-secret',
      });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr:
          "error: svc-cli is svc's own public client and takes no client secret (it proves itself with PKCE; a secret sent for it is refused with invalid_client): leave out --client-secret-stdin" +
          "; if this server registered svc-cli as confidential, log in with `svc login --with-token`, or pass --client-id of a client it registered for you, with that client's secret\n",
      });
      expect(browser.opened).toEqual([]);
      expect(await requestCount(svc.sandbox())).toBe(before);
    },
  );

  it('a client with no loopback redirect URI: exit 2 at once, naming what is registered and what svc needs', async () => {
    const client = await createClient(svc.sandbox(), { redirect_uris: ['https://vendor.example/callback'] });
    const file = join(files, 'web.secret');
    writeFileSync(file, `${client.client_secret}\n`, { mode: 0o600 });
    const browser = consentBrowser();
    // The admin may read the client (GET /v1/oauth/clients/ID), so svc checks before the browser.
    const r = await svc.run(
      ['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-file', file],
      {
        browser,
      },
    );
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: client ${client.client_id} has no redirect URI svc can use: it has https://vendor.example/callback, ` +
        'svc redirects to http://127.0.0.1:PORT/callback; register http://127.0.0.1/callback (any port is accepted): ' +
        `\`svc oauth update ${client.client_id} --redirect-uri https://vendor.example/callback --redirect-uri http://127.0.0.1/callback\`\n`,
    });
    expect(browser.opened).toEqual([]);
  });

  it('a wrong client secret: exit 3 and a hint; the secret is not in the message', async () => {
    const client = await createClient(svc.sandbox());
    const canary = 'svc_cs_wrong-secret-canary-000000000000000000000';
    const browser = consentBrowser();
    const r = await svc.run(
      ['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-stdin'],
      {
        env: anonymous('wrong'),
        browser,
        stdin: canary,
      },
    );
    await browser.settled();
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toBe(
      `${waiting(browser.opened[0])}error: the authorization code could not be exchanged for tokens: client authentication failed (invalid_client); check the client id and its secret (from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET)\n`,
    );
    expect(r.stderr).not.toContain(canary);
    expect(browser.pages).toEqual([
      {
        status: 400,
        text: expect.stringContaining(
          '<h1>Authorization failed</h1><p>svc could not finish: the authorization code could not be exchanged for tokens. See your terminal for why and what to do.</p>',
        ),
      },
    ]);
  });
});

describe('svc oauth authorize: a wait that runs out', () => {
  it('with the URL printed (--no-browser): more time is the fix, and no --device (authorize has none)', async () => {
    const client = await createClient(svc.sandbox());
    const r = await svc.run(
      [
        'oauth',
        'authorize',
        '--client-id',
        client.client_id,
        '--client-secret-stdin',
        '--no-browser',
        '--browser-timeout',
        '1',
      ],
      { env: anonymous('timeout'), stdin: client.client_secret, clock: virtualClock() },
    );
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr.split('\n').at(-2)).toBe(
      'error: timed out after 1 s waiting for the browser to finish the login; run it again with a longer --browser-timeout (it was 1 s)',
    );
  });
});

describe('svc oauth token', () => {
  it('calls the token endpoint raw: code exchange and refresh, secrets from files or stdin; a code works once', async () => {
    const client = await createClient(svc.sandbox());
    const secretFile = join(files, 'raw.secret');
    const verifierFile = join(files, 'raw.verifier');
    const refreshFile = join(files, 'raw.refresh');
    writeFileSync(secretFile, client.client_secret, { mode: 0o600 });
    const { code, redirectUri, verifier } = await authorizationCode(svc.sandbox(), client);
    writeFileSync(verifierFile, `${verifier}\n`, { mode: 0o600 });
    const env = anonymous('raw');
    const base = ['oauth', 'token', '--client-id', client.client_id, '--client-secret-file', secretFile];
    const exchange = [
      ...base,
      '--grant-type',
      'authorization_code',
      '--code-stdin',
      '--redirect-uri',
      redirectUri,
      '--code-verifier-file',
      verifierFile,
    ];
    const exchanged = await svc.run(exchange, { env, stdin: `${code}\n` });
    expect([exchanged.code, exchanged.stderr]).toEqual([0, '']);
    const tokens = JSON.parse(exchanged.stdout);
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^eyJ/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_rt_/),
      scope: 'read:reconciliations read:exceptions',
    });
    writeFileSync(refreshFile, tokens.refresh_token, { mode: 0o600 });
    const refreshed = await svc.run(
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
    expect([refreshed.code, refreshed.stderr]).toEqual([0, '']);
    expect(JSON.parse(refreshed.stdout).scope).toBe('read:exceptions');
    // RFC 6749 §6: --scope narrowed that access token only; the new refresh token keeps the grant.
    writeFileSync(refreshFile, JSON.parse(refreshed.stdout).refresh_token, { mode: 0o600 });
    const whole = await svc.run(
      [...base, '--grant-type', 'refresh_token', '--refresh-token-file', refreshFile],
      {
        env,
      },
    );
    expect([whole.code, whole.stderr]).toEqual([0, '']);
    expect(JSON.parse(whole.stdout).scope).toBe('read:reconciliations read:exceptions');
    const again = await svc.run(exchange, { env, stdin: `${code}\n` });
    expect([again.code, again.stdout]).toEqual([2, '']);
    expect(again.stderr).toMatch(
      /^error: the authorization code was already used; the tokens issued with it are revoked \(HTTP 400, invalid_grant, request req_\w+\)\n$/,
    );
  });

  it.each([
    [[], 'error: --grant-type is required: authorization_code or refresh_token\n'],
    [
      ['--grant-type', 'refresh_token', '--code-file', 'code.txt'],
      'error: --code-file does not apply to --grant-type refresh_token\n',
    ],
    [
      ['--grant-type', 'authorization_code', '--redirect-uri', 'http://127.0.0.1/cb'],
      'error: --grant-type authorization_code needs --code-file FILE or --code-stdin\n',
    ],
    [
      ['--grant-type', 'authorization_code', '--code', 'JeDlsTyVdvxK7R8UCu_4EAenRU1oErDZva9mfctj04E'],
      'error: --code would put the authorization code on the command line, where other users of this machine can read it (ps); use --code-file FILE or --code-stdin\n',
    ],
    [
      ['--grant-type', 'authorization_code', '--code-stdin', '--code-verifier-stdin'],
      'error: only one secret can come from standard input; use --…-file for the others\n',
    ],
    [
      ['--grant-type', 'refresh_token'],
      'error: --grant-type refresh_token needs --refresh-token-file FILE or --refresh-token-stdin\n',
    ],
    [
      ['--grant-type', 'refresh_token', '--refresh-token-stdin', '--client-secret-stdin'],
      'error: only one secret can come from standard input; use --…-file for the others\n',
    ],
  ])('svc oauth token %j exits 2 before any request', async (args, message) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['oauth', 'token', ...args], { env: anonymous('usage') });
    expect(r).toEqual({ code: 2, stdout: '', stderr: message });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });
});
