/**
 * `svc oauth create` and `svc oauth rotate-secret`, in-process against a sandbox: the client and
 * its one-time secret in every mode, the secret to a file instead, refusals before anything is
 * created, replays by idempotency key, permissions. The file's mode under a umask: e2e/file-modes.
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  authorizationCode,
  consentBrowser,
  createClient,
  TREASURY,
  tokenRequest,
} from '../../helpers/oauth.js';
import { call, requestCount, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-oauth-files-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
const REDIRECT = ['--redirect-uri', 'http://127.0.0.1/callback'];
const CREATE = ['oauth', 'create', '--name', 'Vendor portal', ...REDIRECT, '--scope', 'read:exceptions'];
/** The sandbox's clock is real time: created_at is "now" on a terminal. */
const realTime = { clock: { now: () => Date.now() } };
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WARNING =
  'Store the client_secret now: it is shown only in this response and cannot be retrieved again (rotate it if lost).';
/** The server's warning as svc writes it after `warning: ` (lower case, no full stop). */
const SAID =
  'store the client_secret now: it is shown only in this response and cannot be retrieved again (rotate it if lost)';

async function clientCreations(): Promise<number> {
  const stats = (await call(svc.sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([k]) => k.startsWith('POST /v1/oauth/clients '))
    .reduce((n, [, v]) => n + v, 0);
}

/** The values the API chose (id, time, secret), read from a printed record. */
function chosen(stdout: string, separator: RegExp) {
  const field = (name: string) => new RegExp(`^${name}${separator.source}(.*)$`, 'm').exec(stdout)?.[1] ?? '';
  return {
    id: field('client id'),
    created: field('created').replace(/ \(now\)$/, ''),
    secret: field('client secret'),
  };
}

describe('svc oauth create', () => {
  it('in a pipe: the client, then its secret, with the warning and what to run next on stderr', async () => {
    const r = await svc.run([...CREATE, '--show-secret', '--description', 'd']);
    expect(r.code, r.stderr).toBe(0);
    const { id, created, secret } = chosen(r.stdout, /\t/);
    expect(id).toMatch(/^cli_[0-9a-f]{24}$/);
    expect(secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    expect(r.stdout).toBe(
      `client id\t${id}\nname\tVendor portal\ndescription\td\nredirect uris\thttp://127.0.0.1/callback\n` +
        'grant types\tauthorization_code,refresh_token\nscopes\tread:exceptions\ntoken lifetime\t3600 s\n' +
        `refresh lifetime\t2592000 s\npkce required\tyes\ncreated\t${created}\nsecret rotated\t\nclient secret\t${secret}\n`,
    );
    expect(r.stderr).toBe(
      `✓ created OAuth client Vendor portal (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n` +
        `warning: ${SAID}\ntry it (it asks for the client secret): svc oauth authorize --client-id ${id}\n`,
    );
  });

  it('prints "try it" only for a client svc oauth authorize can use (a loopback redirect URI)', async () => {
    const web = await svc.run([
      ...['oauth', 'create', '--name', 'Web', '--scope', 'read:exceptions'],
      ...['--redirect-uri', 'https://vendor.example/callback', '--show-secret'],
    ]);
    expect(web.code, web.stderr).toBe(0);
    const { id } = chosen(web.stdout, /\t/);
    expect(web.stderr).toBe(
      `✓ created OAuth client Web (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\nwarning: ${SAID}\n`,
    );
  });

  // examples16 E1: the line printed `--client-secret-stdin`, which pasted on the terminal the secret
  // was shown on met a terminal on stdin and was refused (exit 2). Pasted as printed, it works.
  it('on a terminal: "try it" works pasted as printed there (it asks for the secret shown)', async () => {
    const terminal = { tty: true, ...realTime };
    const r = await svc.run([...CREATE, '--show-secret'], terminal);
    expect(r.code, r.stderr).toBe(0);
    const { id, secret } = chosen(r.stdout, / +/);
    const line = /^try it \(it asks for the client secret\): svc (.*)$/m.exec(r.stderr)?.[1];
    expect(line, r.stderr).toBe(`oauth authorize --client-id ${id}`);
    const browser = consentBrowser();
    const tried = await svc.run(line!.split(' '), { ...terminal, answers: [secret], browser });
    await browser.settled();
    expect(tried.code, tried.stderr).toBe(0);
    expect(browser.opened).toHaveLength(1);
  });

  it('on a terminal: aligned fields, a relative time, "-" for what is empty', async () => {
    const r = await svc.run([...CREATE, '--show-secret'], { tty: { stdout: true }, ...realTime });
    expect(r.code, r.stderr).toBe(0);
    const { id, created, secret } = chosen(r.stdout, / +/);
    expect(r.stdout).toBe(
      `client id         ${id}\nname              Vendor portal\ndescription       -\n` +
        'redirect uris     http://127.0.0.1/callback\ngrant types       authorization_code, refresh_token\n' +
        'scopes            read:exceptions\ntoken lifetime    3600 s\nrefresh lifetime  2592000 s\n' +
        `pkce required     yes\ncreated           ${created} (now)\nsecret rotated    -\nclient secret     ${secret}\n`,
    );
  });

  it('with --json: the whole creation response, secret and warning included', async () => {
    const r = await svc.run([
      'oauth',
      'create',
      '--json',
      '--show-secret',
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
    ]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const body = JSON.parse(r.stdout);
    expect(body).toEqual({
      client_id: expect.stringMatching(/^cli_/),
      client_secret: expect.stringMatching(/^svc_cs_/),
      warning: WARNING,
      name: 'n',
      description: '',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code'],
      scopes: ['read:exceptions'],
      token_lifetime_seconds: 600,
      refresh_token_lifetime_seconds: 600,
      pkce_required: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      secret_rotated_at: null,
      secret_last4: body.client_secret.slice(-4),
      secret_sha256_prefix: createHash('sha256').update(body.client_secret).digest('hex').slice(0, 16),
      tenant_id: TREASURY,
    });
    expect(r.stdout).toBe(`${JSON.stringify(body, null, 2)}\n`);
  });

  it('--secret-file: the secret goes to a new file, never to the screen', async () => {
    const file = join(files, 'vendor.secret');
    const r = await svc.run([...CREATE, '--secret-file', file]);
    expect(r.code, r.stderr).toBe(0);
    const secret = readFileSync(file, 'utf8');
    expect(secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    const { id } = chosen(r.stdout, /\t/);
    expect(r.stdout).toMatch(new RegExp(`\\nclient secret\\twritten to ${file} \\(mode 0600\\)\\n$`));
    expect(r.stderr).toBe(
      `✓ created OAuth client Vendor portal (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016; its client secret is in ${file} (mode 0600), not shown again\n` +
        `try it: svc oauth authorize --client-id ${id} --client-secret-file ${file}\n`,
    );
    expect(r.stdout + r.stderr).not.toContain('svc_cs_');

    const json = await svc.run([...CREATE, '--json', '--secret-file', `${file}2`]);
    const body = JSON.parse(json.stdout);
    expect(body.client_secret).toBeUndefined();
    expect(body.client_secret_file).toBe(`${file}2`);
    // svc stored the secret: the server's "store it now" is not for this output (review16 R2).
    expect(body).not.toHaveProperty('warning');
    expect(json.stdout + json.stderr).not.toContain('svc_cs_');
  });

  it('refuses to overwrite a secret file, before creating anything (exit 2)', async () => {
    const file = join(files, 'exists.secret');
    writeFileSync(file, 'keep me\n');
    const before = await clientCreations();
    expect(await svc.run([...CREATE, '--secret-file', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --secret-file ${file} already exists; svc never overwrites a secret file; choose a new path; keep the old file until the new secret is in use (it may hold the one in force now)\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(await clientCreations()).toBe(before);
  });

  it('removes the new secret file when the creation fails', async () => {
    const file = join(files, 'failed.secret');
    const r = await svc.run([
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
    ]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      /^error: --redirect-uri "http:\/\/vendor\.example\/cb" may use http only on a loopback host \(127\.0\.0\.1, \[::1\], localhost\) \(HTTP 400, invalid_request, request req_[0-9a-f]+\)\n$/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    [['--redirect-uri', 'https://a.example/cb'], 'error: --name must not be empty\n'],
    [['--name', 'n'], 'error: --redirect-uri is required (repeat it for several URIs)\n'],
    [
      ['--name', 'n', '--redirect-uri', '/callback'],
      'error: --redirect-uri "/callback" is not an absolute http(s) URI; for example https://app.example.com/oauth/callback, or http://127.0.0.1/callback for a native app\n',
    ],
    [
      ['--name', 'n', '--redirect-uri', 'myapp://u:pw@cb'],
      'error: --redirect-uri "myapp://[redacted]:[redacted]@cb" is not an absolute http(s) URI; for example https://app.example.com/oauth/callback, or http://127.0.0.1/callback for a native app\n',
    ],
    [
      ['--name', 'n', ...REDIRECT, '--grant-type', 'password'],
      'error: --grant-type must be one of authorization_code, refresh_token, got "password"\n',
    ],
    [
      ['--name', 'n', ...REDIRECT, '--token-lifetime', '1h'],
      'error: --token-lifetime must be an integer from 1 to 2147483647, got "1h"\n',
    ],
  ])('svc oauth create %j exits 2 before any request', async (args, stderr) => {
    const before = await clientCreations();
    expect(await svc.run(['oauth', 'create', ...args])).toEqual({ code: 2, stdout: '', stderr });
    expect(await clientCreations()).toBe(before);
  });

  it.each([
    [
      ['--scope', 'nope'],
      '--scope "nope" must be equal to one of the allowed values: read:reconciliations, read:exceptions, read:tenants, admin',
      'scopes.0: must be equal to one of the allowed values: read:reconciliations, read:exceptions, read:tenants, admin',
    ],
    [
      ['--scope', 'read:exceptions', '--token-lifetime', '10'],
      '--token-lifetime 10 must be >= 60',
      'token_lifetime_seconds: must be >= 60',
    ],
  ])('svc oauth create %j: the API refuses (exit 2), naming the flag once', async (args, message, detail) => {
    const r = await svc.run(['oauth', 'create', '--name', 'n', ...REDIRECT, '--show-secret', ...args]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: ${escapeRegExp(message)} \\(HTTP 400, invalid_request, request req_[0-9a-f]+\\)\\n$`,
      ),
    );
    // The API's detail only repeats the message, so the line does not.
    expect(r.stderr).not.toContain(detail);
  });

  it('replays a creation with the same --idempotency-key instead of making a second client', async () => {
    const args = [...CREATE, '--show-secret', '--json'];
    const key = ['--idempotency-key', 'once-1'];
    const first = JSON.parse((await svc.run([...args, ...key])).stdout);
    const again = JSON.parse((await svc.run([...args, ...key])).stdout);
    expect(again).toEqual({ ...first, replayed: true });
    const other = JSON.parse((await svc.run(args)).stdout);
    expect(other.client_id).not.toBe(first.client_id);
  });

  it('needs oauth_client.manage (exit 4), and says which roles fall short', async () => {
    const r = await svc.run([...CREATE, '--show-secret'], {
      env: { SVC_TOKEN: svc.sandbox().issueToken('usr_analyst').token },
    });
    expect([r.code, r.stdout]).toEqual([4, '']);
    expect(r.stderr).toMatch(
      /^error: creating OAuth clients needs permission oauth_client\.manage in tenant acme-treasury, which your live roles there \(tenant_analyst\) do not grant; ask a tenant_admin of acme-treasury for a role that grants it \(HTTP 403, insufficient_role, request req_[0-9a-f]+\); another credential that holds it works too: set SVC_TOKEN to a credential that holds it \(it overrides every profile\), or unset it to use a profile whose login does/,
    );
  });
});

describe('svc oauth rotate-secret', () => {
  it('needs --yes without a terminal to ask on (exit 2), and sends nothing', async () => {
    const before = await requestCount(svc.sandbox());
    expect(await svc.run(['oauth', 'rotate-secret', 'cli_nope', '--show-secret'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: rotating a client secret needs confirmation; pass --yes to confirm non-interactively\n',
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('rotates with --yes, writing the new secret to a file; the old one stops working', async () => {
    const client = await createClient(svc.sandbox());
    const file = join(files, 'rotated.secret');
    const r = await svc.run(['oauth', 'rotate-secret', client.client_id, '--yes', '--secret-file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\nsecret rotated\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n/);
    expect(r.stdout).toContain(`\nclient secret\twritten to ${file} (mode 0600)\n`);
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret).toMatch(/^svc_cs_/);
    expect(secret).not.toBe(client.client_secret);
    const { code, redirectUri, verifier } = await authorizationCode(svc.sandbox(), client);
    const exchange = (clientSecret: string) =>
      tokenRequest(svc.sandbox(), {
        grant_type: 'authorization_code',
        client_id: client.client_id,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_secret: clientSecret,
      });
    expect((await exchange(client.client_secret)).body.error).toBe('invalid_client');
    expect((await exchange(secret)).status).toBe(200);
  });

  it('an unknown client: exit 5', async () => {
    const r = await svc.run(['oauth', 'rotate-secret', 'cli_nope', '--yes', '--show-secret']);
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toMatch(
      /^error: OAuth client cli_nope not found \(HTTP 404, oauth_client_not_found, request req_[0-9a-f]+\); see `svc oauth ls` for the OAuth clients of the tenant\n$/,
    );
  });
});
