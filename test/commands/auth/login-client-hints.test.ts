/**
 * What `svc login` and `svc oauth authorize` say about the client they log in through, in-process
 * against a sandbox: a login without a refresh token is not "refreshed automatically", a client id
 * the tenant does not know is named before the browser opens (and when it times out), and a
 * device login refused with invalid_client names the secret options as the browser flow does.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from '../../../src/system/browser.js';
import { virtualClock } from '../../helpers/context.js';
import { consentBrowser, createClient } from '../../helpers/oauth.js';
import { ACME, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-login-hints-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
/** The sandbox's clock is real time: expiries are relative to now. */
const realTime = { now: Date.now() };

let configs = 0;
/** A login of a user through a client: no admin token, a fresh config directory. */
const anonymous = () => ({
  SVC_TOKEN: undefined,
  SVC_TENANT: undefined,
  SVC_CONFIG_DIR: join(files, `config-${++configs}`),
});

async function clientWithoutRefresh(): Promise<{ id: string; file: string }> {
  const client = await createClient(svc.sandbox(), { grant_types: ['authorization_code'] });
  const file = join(files, `${client.client_id}.secret`);
  writeFileSync(file, `${client.client_secret}\n`, { mode: 0o600 });
  return { id: client.client_id, file };
}

/**
 * A browser that opens nothing: the login waits for its whole --browser-timeout, on a clock whose
 * waits return at once (virtualClock): the 1 s runs out without a real second going by.
 */
function deadBrowser(): Browser & { opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    async open(url) {
      opened.push(url);
    },
  };
}

describe('a login whose token response has no refresh token', () => {
  it('svc login does not promise "refreshed automatically": it says when to log in again', async () => {
    const { id, file } = await clientWithoutRefresh();
    const browser = consentBrowser();
    const r = await svc.run(['login', '--client-id', id, '--client-secret-file', file], {
      env: anonymous(),
      browser,
      ...realTime,
    });
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('refreshed automatically');
    expect(r.stderr).toMatch(
      /\n {2}scopes: read:reconciliations read:exceptions; the access token expires in 60 minutes; there is no refresh token: log in again when it expires\n$/,
    );
  });

  it('svc oauth authorize --save does not say svc refreshes the tokens', async () => {
    const { id, file } = await clientWithoutRefresh();
    const browser = consentBrowser();
    const r = await svc.run(
      ['oauth', 'authorize', '--client-id', id, '--client-secret-file', file, '--save'],
      {
        env: anonymous(),
        browser,
        ...realTime,
      },
    );
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /\nstored in profile "default"; there is no refresh token: run the command again when the access token expires \(in 60 minutes\)\n$/,
    );
  });
});

describe('a client id the tenant does not know', () => {
  const unknownClient =
    `warning: OAuth client cli_nope was not found in tenant ${ACME} (a client of another tenant reads the same, so the login goes on); ` +
    'if the login page says "Unknown client", check --client-id\n';
  const timedOut =
    'error: timed out after 1 s waiting for the browser to finish the login; ' +
    `OAuth client cli_nope was not found in tenant ${ACME}: if the login page said "Unknown client", check --client-id; otherwise run the login again\n`;

  it.each([
    ['oauth authorize', ['oauth', 'authorize', '--public']],
    ['login', ['login']],
  ])('svc %s: warned before the browser opens, and named when it times out', async (_name, argv) => {
    const browser = deadBrowser();
    const r = await svc.run([...argv, '--client-id', 'cli_nope', '--browser-timeout', '1'], {
      browser,
      clock: virtualClock(),
    });
    expect(browser.opened).toHaveLength(1);
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr.startsWith(unknownClient)).toBe(true);
    expect(r.stderr.indexOf('opening the login page')).toBeGreaterThan(0);
    expect(r.stderr.endsWith(timedOut)).toBe(true);
  });
});

// s11 review-b 2: the sandbox's own login client (svc-cli, the one `svc sandbox start` names) is
// no client of a tenant, and reading it answered oauth_client_not_found: the login was warned
// about a client it then logged in with. A client the platform accepts is never warned about.
describe('the platform’s first-party client', () => {
  it.each([
    ['oauth authorize', ['oauth', 'authorize', '--public']],
    ['login', ['login']],
  ])('svc %s --client-id svc-cli: no warning, and logged in', async (_name, argv) => {
    const browser = consentBrowser();
    const r = await svc.run([...argv, '--client-id', 'svc-cli'], { browser, ...realTime });
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('OAuth client svc-cli');
    expect(r.stderr).not.toContain('not found');
  });

  it('svc login --client-id svc-cli in another tenant (--tenant): no warning either', async () => {
    const browser = consentBrowser();
    const r = await svc.run(['--tenant', 'acme-payments-eu', 'login', '--client-id', 'svc-cli'], {
      browser,
      ...realTime,
    });
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('OAuth client svc-cli');
  });
});

// Exploratory test s11: the warning is the platform's answer for an unknown client
// (oauth_client_not_found), not any 404: a server that is not the platform answers 404 to every
// path it lacks, and a login through it was told its client did not exist.
describe('a 404 that is not the platform saying the client is unknown', () => {
  const answers = {
    'an HTML page': { type: 'text/html', body: '<html><body><h1>404 Not Found</h1></body></html>' },
    'a JSON "no route"': {
      type: 'application/json',
      body: JSON.stringify({
        error: { code: 'not_found', message: 'no route GET /v1/oauth/clients/cli_nope' },
      }),
    },
  };
  const servers = new Map<string, { url: string; close(): Promise<void> }>();
  beforeAll(async () => {
    for (const [name, answer] of Object.entries(answers)) {
      const server = createServer((_request, response) => {
        response.writeHead(404, { 'content-type': answer.type });
        response.end(answer.body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.set(name, {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      });
    }
  });
  afterAll(async () => {
    for (const server of servers.values()) await server.close();
  });

  it.each([
    ['an HTML page', 'oauth authorize', ['oauth', 'authorize', '--public']],
    ['an HTML page', 'login', ['login']],
    ['a JSON "no route"', 'oauth authorize', ['oauth', 'authorize', '--public']],
    ['a JSON "no route"', 'login', ['login']],
  ])(
    '%s: svc %s says nothing about the client, and times out as any login does',
    async (name, _verb, argv) => {
      const browser = deadBrowser();
      // --base-url as well: a login moves a profile to another server only on a flag (F4).
      const url = servers.get(name)!.url;
      const r = await svc.run(
        [...argv, '--base-url', url, '--client-id', 'cli_nope', '--browser-timeout', '1'],
        // No SVC_TOKEN: a login under it is warned of before the wait (attack25a F9).
        { browser, clock: virtualClock(), env: { SVC_BASE_URL: url, SVC_TOKEN: undefined } },
      );
      expect(browser.opened).toHaveLength(1);
      expect([r.code, r.stdout]).toEqual([3, '']);
      expect(r.stderr).not.toContain('warning');
      expect(r.stderr).not.toContain('OAuth client');
      expect(
        r.stderr.endsWith(
          'error: timed out after 1 s waiting for the browser to finish the login; run the login again (with --no-browser, open the printed URL yourself)\n',
        ),
      ).toBe(true);
    },
  );
});

describe('svc login --device refused with invalid_client', () => {
  it.each([
    [
      'without its secret',
      [],
      'this client must authenticate with its client_secret (invalid_client); a confidential client needs its secret: --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET',
    ],
    [
      'with a wrong secret',
      ['--client-secret-file', 'WRONG'],
      'client authentication failed (invalid_client); check the client id and its secret (from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET)',
    ],
  ])('%s: names the secret, not --scope (exit 3)', async (_name, extra, reason) => {
    const client = await createClient(svc.sandbox());
    const wrong = join(files, 'wrong.secret');
    writeFileSync(wrong, 'svc_cs_wrong\n', { mode: 0o600 });
    const args = extra.map((a) => (a === 'WRONG' ? wrong : a));
    const r = await svc.run(['login', '--device', '--client-id', client.client_id, ...args], {
      env: anonymous(),
    });
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: the server refused to start a device login: ${reason}\n`,
    });
  });
});

// attack25a F7: an unknown client id was told to supply a secret, which changed nothing; the id
// came from the profile, whose setting is what fixes it.
describe('svc login --device with a client id the server does not know', () => {
  it.each([
    [
      'from the profile',
      [],
      `profile "work"'s client_id (\`svc -p work config set client_id ID\` changes it, \`svc -p work config unset client_id\` removes it)`,
    ],
    ['by --client-id', ['--client-id', 'cli_nope'], 'given with --client-id'],
  ])('%s: says the server does not know it, and where it came from (exit 3)', async (_name, extra, from) => {
    const env = anonymous();
    const made = await svc.run(['-p', 'work', 'config', 'set', 'client_id', 'cli_nope'], { env });
    expect(made.code, made.stderr).toBe(0);
    const r = await svc.run(['-p', 'work', 'login', '--device', ...extra], { env });
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: the server refused to start a device login: unknown client (invalid_client); the server does not know this client id, ${from}: check it\n`,
    });
  });
});
