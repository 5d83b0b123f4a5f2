/**
 * `svc me`, in-process against a sandbox: the identity in every output mode, and every way a call
 * can fail before or at the API, each with its exit code and one line on stderr.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_ROLE_DEFINITIONS } from '../../../src/api/permissions.js';
import { runMe } from '../../../src/commands/me/index.js';
import type { GlobalOptions } from '../../../src/context.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import type { VerbOptions } from '../../helpers/context.js';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const LEDGER = tenantId('acme-ledger-uk');
const TREASURY = tenantId('acme-treasury');
const HOUR = 3600_000;
/** What the viewer may do in the tenant of the call (/v1/me permissions, a sandbox addition). */
const VIEWING = [...BUILTIN_ROLE_DEFINITIONS.tenant_viewer.permissions].sort();

/**
 * A viewer's token (one tenant, expiring in an hour) and the clocks 20 minutes in: the platform's
 * moved too, since a terminal's relative times count from it (attack22 F1).
 */
function viewer() {
  const { token, expiresAt } = svc.sandbox().issueToken('usr_viewer');
  svc.sandbox().state.clock.advance(20 * 60_000);
  return { token, expiresAt, now: Date.parse(expiresAt) - HOUR + 20 * 60_000 };
}

const requests = () => requestCount(svc.sandbox());

describe('svc me', () => {
  it.each<[string, VerbOptions, (expiresAt: string) => string]>([
    [
      'aligned fields and a relative expiry on a terminal',
      { tty: { stdout: true } },
      (at) =>
        'id          usr_viewer\ntype        user\nname        Viewer User\nemail       viewer@acme.example\n' +
        `tenant      ${LEDGER}\ntenants     acme-treasury (tenant_viewer), acme-ledger-uk (tenant_viewer)\n` +
        'org         org_demo\ncredential  jwt\n' +
        `expires     ${at} (in 40 minutes)\nscopes      -\n`,
    ],
    [
      'tab-separated fields, RFC 3339 times, in a pipe',
      {},
      (at) =>
        'id\tusr_viewer\ntype\tuser\nname\tViewer User\nemail\tviewer@acme.example\n' +
        `tenant\t${LEDGER}\ntenants\tacme-treasury (tenant_viewer), acme-ledger-uk (tenant_viewer)\n` +
        `org\torg_demo\ncredential\tjwt\nexpires\t${at}\nscopes\t\n`,
    ],
    [
      'the API object with --ndjson',
      { globals: { ndjson: true } },
      (at) =>
        `{"id":"usr_viewer","type":"user","name":"Viewer User","email":"viewer@acme.example","tenant_id":"${LEDGER}",` +
        `"tenants":[{"id":"${TREASURY}","slug":"acme-treasury","display_name":"Acme Treasury","role":"tenant_viewer"},` +
        `{"id":"${LEDGER}","slug":"acme-ledger-uk","display_name":"Acme Ledger UK","role":"tenant_viewer"}],` +
        `"org":{"id":"org_demo","name":"Acme Group","role":null},"credential":{"kind":"jwt","expires_at":"${at}","scopes":null},` +
        `"permissions":${JSON.stringify(VIEWING)}}\n`,
    ],
  ])('prints %s', async (_what, options, expected) => {
    const { token, expiresAt, now } = viewer();
    const { ctx, stdout, stderr } = svc.context({
      ...options,
      now,
      env: { SVC_TOKEN: token, SVC_TENANT: LEDGER },
    });
    await runMe(ctx);
    expect([stdout(), stderr()]).toEqual([expected(expiresAt), '']);
  });

  it('prints the API object as indented JSON with --json', async () => {
    const { token, expiresAt, now } = viewer();
    const { ctx, stdout } = svc.context({
      globals: { json: true },
      now,
      env: { SVC_TOKEN: token, SVC_TENANT: LEDGER },
    });
    await runMe(ctx);
    expect(JSON.parse(stdout())).toEqual({
      id: 'usr_viewer',
      type: 'user',
      name: 'Viewer User',
      email: 'viewer@acme.example',
      tenant_id: LEDGER,
      permissions: VIEWING,
      tenants: [
        { id: TREASURY, slug: 'acme-treasury', display_name: 'Acme Treasury', role: 'tenant_viewer' },
        { id: LEDGER, slug: 'acme-ledger-uk', display_name: 'Acme Ledger UK', role: 'tenant_viewer' },
      ],
      org: { id: 'org_demo', name: 'Acme Group', role: null },
      credential: { kind: 'jwt', expires_at: expiresAt, scopes: null },
    });
    expect(stdout()).toBe(`${JSON.stringify(JSON.parse(stdout()), null, 2)}\n`);
  });

  it('lets SVC_TOKEN override a stored credential', async () => {
    const dirs = { SVC_CONFIG_DIR: `${svc.env().SVC_CONFIG_DIR}-override` };
    const login = await svc.run(['login', '--with-token'], {
      env: { ...dirs, SVC_TOKEN: undefined },
      stdin: `${svc.sandbox().adminToken}\n`,
      now: Date.now(),
    });
    expect(login.code, login.stderr).toBe(0);
    const { token } = viewer();
    const r = await svc.run(['me', '--json'], { env: { ...dirs, SVC_TOKEN: token, SVC_TENANT: LEDGER } });
    expect(JSON.parse(r.stdout).id).toBe('usr_viewer');
  });

  it.each<[string, number, Record<string, string | undefined>, string[], string | RegExp]>([
    [
      'no credential',
      3,
      { SVC_TOKEN: undefined },
      ['me'],
      'error: not logged in: profile "default" has no credential; run `svc login` (or `svc login --with-token`), or set SVC_TOKEN\n',
    ],
    [
      'a rejected credential',
      3,
      { SVC_TOKEN: 'eyJhbGciOiJIUzI1NiJ9.e30.bad' },
      ['me'],
      // SVC_TOKEN overrides any login: logging in would not fix it.
      'error: SVC_TOKEN was rejected: the access token is not valid for this sandbox; SVC_TOKEN overrides any stored login: unset it, or set it to a valid token\n',
    ],
    [
      'a tenant not in the token',
      4,
      { SVC_TENANT: tenantId('wayne-clearing') },
      ['me'],
      new RegExp(
        `^error: tenant ${tenantId('wayne-clearing')} is not one of your credential's tenants \\(HTTP 403, tenant_forbidden, request req_[0-9a-f]+\\); use a tenant your credential has \\(\`svc me\` lists them, run without this --tenant or SVC_TENANT\\), or a credential that has this tenant\\n$`,
      ),
    ],
    [
      'no base URL',
      2,
      { SVC_BASE_URL: undefined },
      ['me'],
      'error: no API base URL for profile "default"; run `svc sandbox start` (it configures a "sandbox" profile, unless --seed none), or pass --base-url / set SVC_BASE_URL / `svc config set base_url URL`\n',
    ],
    [
      'a server that is not there',
      1,
      { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' },
      ['me'],
      'error: cannot reach http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9; is the server running? check --base-url and your network or proxy settings\n',
    ],
    [
      // svc adds /v1 to every path: /v1/v1/me would be a 404 that says nothing of the cause.
      'a base URL that ends in /v1',
      2,
      { SVC_BASE_URL: 'http://127.0.0.1:4010/v1' },
      ['me'],
      'error: SVC_BASE_URL http://127.0.0.1:4010/v1 ends in /v1, and svc adds /v1 to every path (/v1/v1/…); use http://127.0.0.1:4010\n',
    ],
    [
      'a base URL that ends in /v1/, from the flag',
      2,
      {},
      ['--base-url', 'https://api.example.com/v1/', 'me'],
      'error: --base-url https://api.example.com/v1/ ends in /v1, and svc adds /v1 to every path (/v1/v1/…); use https://api.example.com\n',
    ],
    [
      'a timeout of 0',
      2,
      {},
      ['--timeout', '0', 'me'],
      'error: --timeout must be a number of seconds, more than 0 and at most 3600, got "0"\n',
    ],
    [
      'SVC_TIMEOUT=0',
      2,
      { SVC_TIMEOUT: '0' },
      ['me'],
      'error: SVC_TIMEOUT must be a number of seconds, more than 0 and at most 3600, got "0"\n',
    ],
    [
      'a boolean variable that is not one',
      2,
      { SVC_DEBUG: 'maybe' },
      ['me'],
      'error: SVC_DEBUG must be 1, true, yes or on (or 0, false, no, off), got "maybe"\n',
    ],
    [
      'SVC_ALLOW_INSECURE_HTTP that is not a boolean',
      2,
      { SVC_ALLOW_INSECURE_HTTP: 'please' },
      ['me'],
      'error: SVC_ALLOW_INSECURE_HTTP must be 1, true, yes or on (or 0, false, no, off), got "please"\n',
    ],
  ])('%s: exit %i, one line on stderr, nothing on stdout', async (_what, code, env, argv, stderr) => {
    const r = await svc.run(argv, { env });
    expect([r.code, r.stdout]).toEqual([code, '']);
    if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
    else expect(r.stderr).toMatch(stderr);
  });

  it('sends nothing when a flag is wrong', async () => {
    const before = await requests();
    expect((await svc.run(['--timeout', '0', 'me'])).code).toBe(2);
    expect(await requests()).toBe(before);
  });

  it('prints an error as one JSON object on stderr with --json', async () => {
    const r = await svc.run(['me', '--json'], { env: { SVC_TENANT: tenantId('wayne-clearing') } });
    expect([r.code, r.stdout]).toEqual([4, '']);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'tenant_forbidden',
        message: `tenant ${tenantId('wayne-clearing')} is not one of your credential's tenants`,
        exit_code: 4,
        hint: 'use a tenant your credential has (`svc me` lists them, run without this --tenant or SVC_TENANT), or a credential that has this tenant',
        status: 403,
        request_id: expect.stringMatching(/^req_[0-9a-f]+$/),
      },
    });
  });

  it.each(['1', 'true', 'YES', 'on', 'On'])('SVC_DEBUG=%s turns the trace on', async (value) => {
    const r = await svc.run(['me'], { env: { SVC_DEBUG: value } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^\* GET http:\/\/127\.0\.0\.1:\d+\/v1\/me\n/);
  });

  it.each(['0', 'false', 'No', 'off', ''])('SVC_DEBUG=%j leaves it off', async (value) => {
    const r = await svc.run(['me'], { env: { SVC_DEBUG: value } });
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  it.each<[string, GlobalOptions]>([
    ['a trace', {}],
    ['a trace with --json', { json: true }],
  ])('--debug prints %s on stderr with every credential masked', async (_what, globals) => {
    const canary = svc.sandbox().issueToken('usr_admin').token;
    const { ctx, stdout, stderr } = svc.context({
      globals: { ...globals, debug: true },
      env: { SVC_TOKEN: canary },
    });
    await runMe(ctx);
    expect(stderr()).toMatch(/^\* GET http:\/\/127\.0\.0\.1:\d+\/v1\/me\n/);
    expect(stderr()).toContain('> authorization: Bearer [redacted]\n');
    expect(stderr()).toMatch(/\n< 200 OK in \d+ ms\n/);
    for (const text of [stdout(), stderr()]) {
      expect(text).not.toContain(canary);
      expect(text).not.toContain(svc.sandbox().adminToken);
    }
  });
});
