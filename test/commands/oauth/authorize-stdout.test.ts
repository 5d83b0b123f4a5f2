/**
 * `svc oauth authorize` whose stdout closes (or fails) while it prints the tokens: the output was
 * their only copy unless --save stored them. Unstored, svc revokes the session they opened (no
 * live credential is left that nobody holds) and says so, exit 141 (1 for a failed write), never a
 * token on stderr; stored, it says where they are. Never 0: the tokens were not shown.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../../src/system/shell-words.js';
import { authorizationCode, consentBrowser, createClient } from '../../helpers/oauth.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-oauth-authorize-stdout-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
const anonymous = (config: string, secret: string) => ({
  SVC_TOKEN: undefined,
  SVC_TENANT: undefined,
  SVC_CONFIG_DIR: join(files, config),
  SVC_CLIENT_SECRET: secret,
});
const revoked = () => svc.sandbox().state.oauth.familiesRevoked;
/** Everything after the browser's lines (the URL holds a random state and port). */
const last = (stderr: string) => stderr.trimEnd().split('\n').at(-1);

describe('svc oauth authorize, stdout gone before the tokens are printed', () => {
  it.each([
    [
      '--json, the reader gone (141)',
      ['--json'],
      'EPIPE',
      141,
      'stdout closed before the tokens were printed',
    ],
    [
      'a pipe, a full disk (1)',
      [],
      'ENOSPC',
      1,
      'cannot write to stdout (ENOSPC), so the tokens were not printed',
    ],
  ])('%s: svc revokes the session nobody holds, and says so', async (_what, mode, fails, code, said) => {
    const client = await createClient(svc.sandbox());
    const before = revoked();
    const browser = consentBrowser();
    const r = await svc.run(['oauth', 'authorize', '--client-id', client.client_id, ...mode], {
      env: anonymous(`lost-${code}`, client.client_secret),
      browser,
      stdoutFails: fails,
    });
    await browser.settled();
    expect([r.code, r.stdout]).toEqual([code, '']);
    const error = `${said}, their only copy (nothing was stored); svc revoked that session at ${svc.sandbox().url}, so nothing holds it`;
    const hint =
      'run the command again with a stdout that stays open (e.g. > tokens.json), or --save to keep them in the profile';
    const kind = code === 141 ? 'stdout_closed' : 'stdout_failed';
    expect(last(r.stderr)).toBe(
      mode.length > 0
        ? JSON.stringify({ error: { code: kind, message: error, exit_code: code, hint } })
        : `error: ${error}; ${hint}`,
    );
    expect(revoked()).toBe(before + 1);
    expect(r.stderr).not.toMatch(/eyJ|svc_rt_/);
  });

  it('--save: the tokens are in the profile, the output lost says so (141), and they work', async () => {
    const client = await createClient(svc.sandbox());
    const before = revoked();
    const env = anonymous('saved', client.client_secret);
    const browser = consentBrowser();
    const r = await svc.run(['oauth', 'authorize', '--client-id', client.client_id, '--save', '--json'], {
      env,
      browser,
      stdoutFails: 'EPIPE',
    });
    await browser.settled();
    expect([r.code, r.stdout]).toEqual([141, '']);
    expect(last(r.stderr)).toBe(
      JSON.stringify({
        error: {
          code: 'stdout_closed',
          message: 'stdout closed before the tokens were printed; they are stored in profile "default"',
          exit_code: 141,
          hint: 'svc uses them from there; `svc auth status` shows the login',
        },
      }),
    );
    expect(revoked()).toBe(before);
    const me = await svc.run(['me', '--json'], { env, now: Date.now() });
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).credential).toMatchObject({ client_id: client.client_id });
  });
});

// Session 19 (words19 #2): the hint named a bare `svc auth status`, which shows the active
// profile's login, not the one the tokens were stored in.
it("--save into -p work: the hint shows that profile's login", async () => {
  const client = await createClient(svc.sandbox());
  const env = anonymous('saved-work', client.client_secret);
  const browser = consentBrowser();
  const r = await svc.run(
    ['-p', 'work', 'oauth', 'authorize', '--client-id', client.client_id, '--save', '--json'],
    { env, browser, stdoutFails: 'EPIPE' },
  );
  await browser.settled();
  expect([r.code, r.stdout]).toEqual([141, '']);
  expect(JSON.parse(last(r.stderr)!).error).toMatchObject({
    message: 'stdout closed before the tokens were printed; they are stored in profile "work"',
    hint: 'svc uses them from there; `svc -p work auth status` shows the login',
  });
});

describe('svc oauth authorize, stdout gone after it took some of the tokens', () => {
  it.each([
    ['the reader took the first line and left (141)', 'EPIPE', 141, 'stdout closed'],
    ['the disk filled after the first line (1)', 'ENOSPC', 1, 'cannot write to stdout (ENOSPC)'],
  ])('%s: nothing is revoked, the access token it took works', async (_what, fails, code, closed) => {
    const client = await createClient(svc.sandbox());
    const before = revoked();
    const browser = consentBrowser();
    const env = anonymous(`took-${code}`, client.client_secret);
    const r = await svc.run(['oauth', 'authorize', '--client-id', client.client_id], {
      env,
      browser,
      stdoutFails: fails,
      stdoutFailsAfter: 1,
    });
    await browser.settled();
    expect(r.code).toBe(code);
    const [label, token] = r.stdout.trimEnd().split('\t');
    expect([label, r.stdout.split('\n').length]).toEqual(['access_token', 2]);
    expect(last(r.stderr)).toBe(
      `error: ${closed} after the tokens began to print, so svc did not revoke their session: your reader may hold them; ` +
        `if your reader did not keep them, end that session with a token it took: printf 'token=%s&client_id=${client.client_id}&client_secret=%s' TOKEN "$SVC_CLIENT_SECRET" | ` +
        `svc api POST /v1/oauth/revoke -H 'Content-Type: application/x-www-form-urlencoded' --input - (a reader that took none leaves it valid until its tokens expire); ` +
        'or run the command again with a stdout that stays open (e.g. > tokens.json)',
    );
    expect(revoked()).toBe(before);
    const me = await svc.run(['me', '--json'], { env: { ...env, SVC_TOKEN: token }, now: Date.now() });
    expect(me.code, me.stderr).toBe(0);
    // The command the hint gives ends the session with the token the reader took.
    const form = `token=${token}&client_id=${client.client_id}&client_secret=${client.client_secret}`;
    const end = await svc.run(
      [
        'api',
        'POST',
        '/v1/oauth/revoke',
        '-H',
        'Content-Type: application/x-www-form-urlencoded',
        '--input',
        '-',
      ],
      { env, stdin: form },
    );
    expect(end.code, end.stderr).toBe(0);
    expect(revoked()).toBe(before + 1);
  });
});

// review16e E6: the "end that session" command read "$SVC_CLIENT_SECRET" whatever the secret's
// source: given by file, the command pasted was refused invalid_client.
describe('svc oauth authorize cut after a line: the end-that-session command reads the secret as it was given', () => {
  it('--client-secret-file F: "$(cat F)", F quoted, which reads the secret', async () => {
    const client = await createClient(svc.sandbox());
    const file = join(files, "c1 it's.secret");
    writeFileSync(file, `${client.client_secret}\n`, { mode: 0o600 });
    const browser = consentBrowser();
    const r = await svc.run(
      ['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-file', file],
      {
        env: anonymous('took-file', ''),
        browser,
        stdoutFails: 'EPIPE',
        stdoutFailsAfter: 1,
      },
    );
    await browser.settled();
    expect(r.code).toBe(141);
    const read = `"$(cat ${shellQuote(file)})"`;
    expect(last(r.stderr)).toContain(
      `end that session with a token it took: printf 'token=%s&client_id=${client.client_id}&client_secret=%s' TOKEN ${read} | svc api POST`,
    );
    expect(execFileSync('bash', ['-c', `printf %s ${read}`], { encoding: 'utf8' })).toBe(
      client.client_secret,
    );
  });

  // review17 F5: svc takes off a CRLF and surrounding whitespace, `$(cat F)` does not: the printed
  // command sent `secret\r` and was refused invalid_client, so the session stayed live.
  it.each([
    ['a CRLF', (secret: string) => `${secret}\r\n`],
    ['spaces around it', (secret: string) => `  ${secret} \n`],
  ])(
    '--client-secret-file F holding %s: the placeholder, as `$(cat F)` would not read what svc sent',
    async (_what, text) => {
      const client = await createClient(svc.sandbox());
      const file = join(files, 'crlf.secret');
      writeFileSync(file, text(client.client_secret), { mode: 0o600 });
      const browser = consentBrowser();
      const r = await svc.run(
        ['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-file', file],
        { env: anonymous('took-crlf', ''), browser, stdoutFails: 'EPIPE', stdoutFailsAfter: 1 },
      );
      await browser.settled();
      expect(r.code).toBe(141);
      expect(last(r.stderr)).toContain(
        `end that session with a token it took (TOKEN) and the client secret (CLIENT_SECRET): printf 'token=%s&client_id=${client.client_id}&client_secret=%s' TOKEN CLIENT_SECRET | svc api POST`,
      );
      expect(r.stderr).not.toContain('$(cat');
    },
  );

  it('SVC_CLIENT_SECRET with a space after it: the placeholder, not "$SVC_CLIENT_SECRET"', async () => {
    const client = await createClient(svc.sandbox());
    const browser = consentBrowser();
    const r = await svc.run(['oauth', 'authorize', '--client-id', client.client_id], {
      env: anonymous('took-env-space', `${client.client_secret} `),
      browser,
      stdoutFails: 'EPIPE',
      stdoutFailsAfter: 1,
    });
    await browser.settled();
    expect(r.code).toBe(141);
    expect(last(r.stderr)).toContain('TOKEN CLIENT_SECRET | svc api POST');
    expect(r.stderr).not.toContain('"$SVC_CLIENT_SECRET"');
  });

  it('--client-secret-stdin: a placeholder named as the client secret', async () => {
    const client = await createClient(svc.sandbox());
    const browser = consentBrowser();
    const r = await svc.run(
      ['oauth', 'authorize', '--client-id', client.client_id, '--client-secret-stdin'],
      {
        env: anonymous('took-stdin', ''),
        browser,
        stdin: client.client_secret,
        stdoutFails: 'EPIPE',
        stdoutFailsAfter: 1,
      },
    );
    await browser.settled();
    expect(r.code).toBe(141);
    expect(last(r.stderr)).toContain(
      `end that session with a token it took (TOKEN) and the client secret (CLIENT_SECRET): printf 'token=%s&client_id=${client.client_id}&client_secret=%s' TOKEN CLIENT_SECRET | svc api POST`,
    );
    expect(r.stderr).not.toContain('SVC_CLIENT_SECRET');
  });
});

describe('svc oauth token --grant-type refresh_token, a server that sends the same refresh token back', () => {
  it.each([
    ['the same refresh token back: the one the caller sent is not revoked', 'rt_SAME_ONE'],
    ['a new refresh token (rotation): that one is revoked, and what it ends is said', 'rt_NEW_ONE'],
  ])('stdout gone, %s (141)', async (_what, returned) => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        requests.push(
          `${req.method} ${req.url?.split('?')[0]} ${new URLSearchParams(body).get('token') ?? ''}`,
        );
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/oauth/token') {
          res.end(
            JSON.stringify({
              access_token: 'at_1',
              token_type: 'Bearer',
              expires_in: 3600,
              refresh_token: returned,
            }),
          );
        } else {
          res.statusCode = req.url === '/v1/oauth/revoke' ? 200 : 404;
          res.end('{}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await svc.run(
        [
          'oauth',
          'token',
          '--base-url',
          base,
          '--grant-type',
          'refresh_token',
          '--client-id',
          'cli_x',
          '--refresh-token-stdin',
        ],
        { env: anonymous('same-rt', 's3cr3t'), stdin: 'rt_SAME_ONE', stdoutFails: 'EPIPE' },
      );
      const again = 'run the command again with a stdout that stays open (e.g. > tokens.json)';
      if (returned === 'rt_SAME_ONE') {
        expect(r).toEqual({
          code: 141,
          stdout: '',
          stderr: `error: stdout closed before the tokens were printed, their only copy: the access token stays valid until it expires; the refresh token given still holds the session; ${again}\n`,
        });
        expect(requests).toEqual(['POST /v1/oauth/token ']);
        return;
      }
      expect(r).toEqual({
        code: 141,
        stdout: '',
        stderr: `error: stdout closed before the tokens were printed, their only copy (nothing was stored); svc revoked that session at ${base}, so nothing holds it (the refresh token sent was replaced by the new one; access tokens issued before in that session, wherever they are kept, stop working too); ${again}\n`,
      });
      expect(requests.filter((q) => q.startsWith('POST'))).toEqual([
        'POST /v1/oauth/token ',
        'POST /v1/oauth/revoke rt_NEW_ONE',
      ]);
    } finally {
      server.close();
    }
  });
});

describe('svc oauth token, stdout gone before the tokens are printed', () => {
  it('a code exchanged: svc revokes the session nobody holds (141)', async () => {
    const client = await createClient(svc.sandbox());
    const { code, redirectUri, verifier } = await authorizationCode(svc.sandbox(), client);
    const verifierFile = join(files, 'token.verifier');
    writeFileSync(verifierFile, `${verifier}\n`, { mode: 0o600 });
    const before = revoked();
    const r = await svc.run(
      [
        'oauth',
        'token',
        '--client-id',
        client.client_id,
        '--grant-type',
        'authorization_code',
        '--code-stdin',
        '--redirect-uri',
        redirectUri,
        '--code-verifier-file',
        verifierFile,
      ],
      { env: anonymous('token', client.client_secret), stdin: code, stdoutFails: 'EPIPE' },
    );
    expect(r).toEqual({
      code: 141,
      stdout: '',
      stderr: `error: stdout closed before the tokens were printed, their only copy (nothing was stored); svc revoked that session at ${svc.sandbox().url}, so nothing holds it; run the command again with a stdout that stays open (e.g. > tokens.json)\n`,
    });
    expect(revoked()).toBe(before + 1);
  });
});
