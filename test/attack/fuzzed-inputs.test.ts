import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runListen } from '../../src/commands/webhooks/listen-run.js';
import { createContext } from '../../src/context.js';
import { secretFromText } from '../../src/system/secret-text.js';
import { computeSignature } from '../../src/webhooks/signature.js';
import { fakeIO, runInProcess, testDeps } from '../helpers/context.js';
import { TREASURY } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { attackDirs, cases } from './lib.js';

/**
 * Attack class "fuzzed inputs": ids that are not ids (`.`, `..`, empty, anything at all) wherever
 * an id goes into a path, and secrets read from files as editors and `echo` write them. An id
 * is a usage error naming the argument (exit 2), never "a bug in svc"; a secret file ending in
 * one newline (LF or CRLF) works everywhere, and other whitespace around a secret is reported.
 */

const sandbox = useSandbox();
const dirs = attackDirs();
const env = () => ({
  ...dirs.env,
  SVC_BASE_URL: sandbox().url,
  SVC_TOKEN: sandbox().adminToken,
  SVC_TENANT: TREASURY,
});

const ID_COMMANDS: Array<[string, (id: string) => string[]]> = [
  ['ROLE', (id) => ['roles', 'get', id]],
  ['ROLE', (id) => ['roles', 'delete', id, '--yes']],
  ['ROLE', (id) => ['roles', 'update', id, '--description', 'd']],
  ['USER', (id) => ['roles', 'assignments', id]],
  [
    'USER',
    (id) => [
      'roles',
      'assign',
      id,
      'tenant_viewer',
      '--expires-in',
      '1h',
      '--justification',
      'quarter close',
    ],
  ],
  [
    'ROLE',
    (id) => ['roles', 'assign', 'usr_viewer', id, '--expires-in', '1h', '--justification', 'quarter close'],
  ],
  ['USER', (id) => ['roles', 'revoke', id, 'tenant_viewer', '--yes']],
  ['WEBHOOK', (id) => ['webhooks', 'deliveries', id]],
  ['WEBHOOK', (id) => ['webhooks', 'dlq', id]],
  ['WEBHOOK', (id) => ['webhooks', 'test', id]],
  ['DELIVERY', (id) => ['webhooks', 'replay', 'wh_1', id]],
  ['CLIENT', (id) => ['oauth', 'rotate-secret', id, '--yes', '--show-secret']],
  ['SURFACE', (id) => ['records', 'ls', id]],
  ['ID', (id) => ['records', 'get', 'alerts', id]],
  ['ID', (id) => ['records', 'delete', 'alerts', id, '--yes']],
  ['KEY', (id) => ['tenants', 'api-keys', 'revoke', TREASURY, id, '--yes']],
];

describe('"." and ".." are not ids', () => {
  it.each(
    ID_COMMANDS.flatMap(([name, argv]) =>
      ['.', '..'].map((id) => [argv(id).join(' '), name, argv(id), id] as const),
    ),
  )('svc %s: exit 2 naming %s', async (_line, name, argv, id) => {
    // On the sandbox's clock: a machine clock months off would add its warning before the error.
    const result = await runInProcess(argv, env(), { now: Date.now() });
    expect(result.code, result.stderr).toBe(2);
    // The one check in http/path.ts — or, for records, its own earlier check of surface names.
    const quoted = JSON.stringify(id).replace(/\./g, '\\.');
    expect(result.stderr).toMatch(
      new RegExp(`^error: (${name} must be an id, not |invalid ${name.toLowerCase()} )${quoted}`),
    );
  });
});

describe('a credential is not an id', () => {
  // What a user has in hand instead of the id: the secret itself. In a URL it would stay in
  // proxy and server access logs, so it is refused before it is sent.
  const CREDENTIALS: Array<[string, string]> = [
    ['svc_pk_CGfq0123456789abcdefghijklmnop', 'the API key itself'],
    ['svc_sk_Zx9y0123456789abcdefghijklmnop', 'the API key itself'],
    ['whsec_0123456789abcdefghijklmnopqrstuv', 'a webhook signing secret'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfYWRtaW4ifQ.c2lnbmF0dXJlLXZhbHVl', 'an access token'],
    ['svc_cs_0123456789abcdefghijklmnopqrstuv', 'a client secret'],
    ['svc_rt_0123456789abcdefghijklmnopqrstuv', 'a refresh token'],
  ];
  const COMMANDS: Array<[string, (id: string) => string[]]> = [
    // A surface is a name svc checks itself (lowercase letters, digits and _): refused before that.
    ...ID_COMMANDS.filter(([name]) => name !== 'SURFACE'),
    ['WEBHOOK', (id) => ['webhooks', 'get', id]],
    ['CLIENT', (id) => ['oauth', 'get', id]],
    ['ID', (id) => ['audit', 'get', id]],
    ['ROLE', (id) => ['roles', 'holders', id]],
  ];
  it.each(
    COMMANDS.map(([name, argv], i) => {
      const [credential, kind] = CREDENTIALS[i % CREDENTIALS.length]!;
      return [argv(credential).join(' ').replace(credential, kind), name, argv(credential), kind] as const;
    }),
  )('svc %s: exit 2, never sent', async (_line, name, argv, kind) => {
    const result = await runInProcess(['--debug', ...argv], env(), { now: Date.now() });
    expect(result.code, result.stderr).toBe(2);
    const error = result.stderr.split('\n').filter((line) => line.startsWith('error: '));
    // The id wanted, in words ("a role id or name", "an audit entry id (aud_…)"); a key's own: "its id".
    const kindOfId = name === 'ID' ? '' : `\\b${name.toLowerCase()}\\b[^;]* `;
    const whose =
      kind === 'the API key itself' && name === 'KEY' ? 'its id' : `an? [^;]*${kindOfId}id\\b[^;]*`;
    expect(error).toEqual([
      expect.stringMatching(new RegExp(`^error: that is ${kind}, not ${whose}; .*did not send`)),
    ]);
    // The trace masks a credential it shows: a request line with a mask carried one.
    const requests = result.stderr.split('\n').filter((line) => /^\* [A-Z]+ /.test(line));
    for (const line of requests) expect(line).not.toContain('redacted');
  });
});

describe('any id at all', () => {
  const anyId = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      '.',
      '..',
      '../admin',
      '%2e%2e',
      './',
      '.%2e',
      'a/../b',
      '?x=1',
      '#frag',
      '\u0000',
      ' .. ',
    ),
  );
  it.each([
    ['roles get', (id: string) => ['roles', 'get', '--', id]],
    ['records get', (id: string) => ['records', 'get', 'alerts', '--', id]],
    ['webhooks deliveries', (id: string) => ['webhooks', 'deliveries', '--', id]],
  ])('%s: a usage error, not found or found; never a bug in svc', async (_name, argv) => {
    await fc.assert(
      fc.asyncProperty(anyId, async (id) => {
        const result = await runInProcess(argv(id), env());
        expect([0, 2, 5], `${JSON.stringify(id)}: ${result.stderr}`).toContain(result.code);
        expect(result.stderr).not.toContain('bug in svc');
      }),
      { numRuns: cases(25, 500) },
    );
  });
});

describe('secret files as editors and echo write them', () => {
  it('one final newline (LF or CRLF) is removed; other whitespace is reported (then trimmed or kept)', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
    fc.assert(
      fc.property(secret, fc.constantFrom('', '\n', '\r\n'), (value, ending) => {
        for (const trim of [true, false]) {
          expect(secretFromText(`${value}${ending}`, 'F', { trim })).toEqual({ secret: value });
        }
      }),
      { numRuns: cases(300, 10_000) },
    );
    fc.assert(
      fc.property(secret, fc.constantFrom(' ', '\t', '\n\n', '\r\n\r\n', ' \n'), (value, ending) => {
        const kept = secretFromText(`${value}${ending}`, 'F', { trim: false });
        expect(kept.secret.startsWith(value) && kept.secret !== value).toBe(true);
        expect(kept.warning).toContain('F has whitespace around the secret');
        const trimmed = secretFromText(`${value}${ending}`, 'F', { trim: true });
        expect(trimmed.secret).toBe(value);
        expect(trimmed.warning).toContain('it was removed');
      }),
      { numRuns: cases(300, 10_000) },
    );
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('webhooks listen accepts a secret file ending in %s', async (_name, ending) => {
    const secret = 'whsec_listen_newline_0123456789';
    const file = join(dirs.root, `listen-${ending.length}.secret`);
    writeFileSync(file, `${secret}${ending}`, { mode: 0o600 });
    const fake = fakeIO();
    const controller = new AbortController();
    const ctx = createContext(testDeps(fake.io, dirs.env, { signal: controller.signal }), { ndjson: true });
    const running = runListen(ctx, {
      host: '127.0.0.1',
      port: 0,
      secretFile: file,
      forwardTo: undefined,
      toleranceSeconds: 300,
      webhook: undefined,
      publicUrl: undefined,
      capture: undefined,
    });
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(fake.stderr())?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 10));
    }
    const body = JSON.stringify({ id: 'evt_nl', type: 'webhook.test' });
    const t = Math.floor(Date.now() / 1000);
    const answer = await fetch(url!, {
      method: 'POST',
      headers: { 'x-svc-signature': `t=${t},v1=${computeSignature(secret, t, body)}` },
      body,
    });
    controller.abort();
    await running;
    expect(answer.status).toBe(200);
    expect(JSON.parse(fake.stdout()).valid).toBe(true);
    expect(fake.stderr()).not.toContain('warning');
  });
});
