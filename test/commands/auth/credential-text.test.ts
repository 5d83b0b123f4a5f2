/**
 * A credential that cannot be sent in an Authorization header (a line break or another control
 * character inside it) is refused before any request, naming where it came from (exit 2) — not
 * met later as "cannot reach the server".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const dirs = useTempDirs();
// Nothing listens here: a request would be a connection error (exit 1), not the refusal tested.
const env = () => ({ ...dirs(), NO_COLOR: '1', SVC_BASE_URL: 'http://127.0.0.1:9' });

describe('a blank SVC_TOKEN', () => {
  // It overrode the stored login and sent no credential, so the 401's "svc login" hint could not help.
  it('is refused (exit 2) by API commands, saying to set or unset it', async () => {
    for (const argv of [
      ['tenants', 'ls'],
      ['auth', 'token'],
    ]) {
      const r = await runInProcess(argv, { ...env(), SVC_TOKEN: '   ' });
      expect(r, argv.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'error: SVC_TOKEN is set but holds only white space; set it to the token (SVC_TOKEN="$(cat token.txt)"), or unset it to use the stored login: unset SVC_TOKEN\n',
      });
    }
  });
});

describe('a credential holding a control character', () => {
  it.each([
    ['a line break', 'svc_pk_abc\ndef'],
    ['a line break', 'svc_pk_abc\r\nX-Evil: 1'],
    ['a control character', 'svc_pk_abc\u0001def'],
  ])('SVC_TOKEN with %s is refused (exit 2) by API commands and auth status', async (what, token) => {
    for (const argv of [
      ['tenants', 'ls'],
      ['auth', 'status'],
      ['auth', 'token'],
    ]) {
      const r = await runInProcess(argv, { ...env(), SVC_TOKEN: token });
      expect(r, argv.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: SVC_TOKEN contains ${what}; set it to the token alone, e.g. SVC_TOKEN="$(cat token.txt)"\n`,
      });
    }
  });

  it('SVC_TOKEN with surrounding whitespace is trimmed as before', async () => {
    const r = await runInProcess(['auth', 'token'], { ...env(), SVC_TOKEN: ' svc_pk_abc\r\n' });
    expect(r).toEqual({ code: 0, stdout: 'svc_pk_abc\n', stderr: '' });
  });

  it('credentials.json holding one is named when that profile is used; other profiles still work, and logout --no-revoke mends it', async () => {
    mkdirSync(dirs().SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
    const file = join(dirs().SVC_CONFIG_DIR, 'credentials.json');
    writeFileSync(
      file,
      JSON.stringify({
        profiles: {
          default: { type: 'token', access_token: 'abc\r\nX-Evil: 1' },
          other: { type: 'token', access_token: 'svc_pk_other', origin: 'http://127.0.0.1:9' },
        },
      }),
      { mode: 0o600 },
    );
    const r = await runInProcess(['auth', 'status'], env());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${file}: the credential of profile "default" contains a line break (in access_token), so it cannot be sent; log in again with \`svc -p default login\`, or forget it with \`svc -p default logout --no-revoke\`\n`,
    });
    // Another profile in the same file is not held up by it.
    expect(await runInProcess(['-p', 'other', 'auth', 'token'], env())).toEqual({
      code: 0,
      stdout: 'svc_pk_other\n',
      stderr: '',
    });
    // The fix the hint gives works: the credential is forgotten without being sent anywhere.
    const mended = await runInProcess(['-p', 'default', 'logout', '--no-revoke'], env());
    expect(mended.code, mended.stderr).toBe(0);
    expect((await runInProcess(['auth', 'status'], env())).code).toBe(3);
  });

  it('--with-token refuses one on standard input', async () => {
    const r = await runInProcess(['login', '--with-token'], env(), { stdin: 'svc_pk_abc\u0001def\n' });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: standard input contains a control character; it must hold exactly one token\n',
    });
  });
});

describe('a secret of another kind given as the token (attack25b M4)', () => {
  // Sent, it went to the profile's server as a bearer token, and its 401 said "copy the whole token".
  const kinds = [
    [
      'a client secret',
      'svc_cs_AbCdEfGhIjKlMnOpQrStUv',
      'a client secret goes in --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET',
    ],
    [
      'a refresh token',
      'svc_rt_AbCdEfGhIjKlMnOpQrStUv',
      'a refresh token goes in --refresh-token-file or --refresh-token-stdin (`svc oauth token --grant-type refresh_token`)',
    ],
    [
      'a webhook signing secret',
      'whsec_AbCdEfGhIjKlMnOpQrStUv',
      'a webhook signing secret goes in --secret-file or SVC_WEBHOOK_SECRET (`svc webhooks verify`, `sign`, `listen`)',
    ],
  ];
  it.each(kinds)(
    'SVC_TOKEN holding %s is refused (exit 2), nothing sent, not echoed',
    async (kind, secret, home) => {
      for (const argv of [['tenants', 'ls'], ['auth', 'status'], ['me']]) {
        const r = await runInProcess(argv, { ...env(), SVC_TOKEN: secret });
        expect(r, argv.join(' ')).toEqual({
          code: 2,
          stdout: '',
          stderr: `error: SVC_TOKEN holds ${kind}, not an API key or access token; svc did not send it; ${home}\n`,
        });
      }
    },
  );
  it.each(kinds)(
    'login --with-token refuses %s on standard input and stores nothing',
    async (kind, secret, home) => {
      const r = await runInProcess(['login', '--with-token'], env(), { stdin: `${secret}\n` });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: standard input holds ${kind}, not an API key or access token; svc did not send it; ${home}\n`,
      });
      expect((await runInProcess(['auth', 'status'], env())).code).toBe(3);
    },
  );
  it('an API key and a JWT are still taken', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl';
    for (const token of ['svc_sk_AbCdEfGhIjKlMnOpQrStUv', jwt]) {
      expect(await runInProcess(['auth', 'token'], { ...env(), SVC_TOKEN: token })).toEqual({
        code: 0,
        stdout: `${token}\n`,
        stderr: '',
      });
    }
  });
});

const WIDE = 'which a header cannot carry';
const LATIN =
  'which a header carries only as one Latin-1 byte (obs-text), that servers and proxies read differently';

describe('a token holding a character past U+007F (attack25b M6)', () => {
  // Past U+00FF undici refused the header: "this is a bug in svc", and auth status said "server
  // unreachable". U+0080–U+00FF went as one Latin-1 byte, and the 401 said "copy the whole
  // token": every other header value was refused past U+007F (characters.ts nonAsciiIn), a token too.
  it.each([
    ['svc_pk_abcdef\u200bghij', `U+200B ZERO WIDTH SPACE at 14, ${WIDE}`],
    ['svc_pk_abcdef€', `€ (U+20AC) at 14, ${WIDE}`],
    ['svc_pk_abc\u2003def', `U+2003 at 11, ${WIDE}`],
    ['svc_pk_abcdefé', `é (U+00E9) at 14, ${LATIN}`],
    ['svc_pk_abc\u00a0def', `U+00A0 at 11, ${LATIN}`],
    ['svc_pk_abc\u00addef', `U+00AD SOFT HYPHEN at 11, ${LATIN}`],
    ['svc_pk_abc\u0085def', `U+0085 at 11, ${LATIN}`],
  ])('SVC_TOKEN %j is refused (exit 2) naming the character and its place', async (token, what) => {
    for (const argv of [
      ['tenants', 'ls'],
      ['auth', 'status'],
      ['auth', 'token'],
    ]) {
      const r = await runInProcess(argv, { ...env(), SVC_TOKEN: token });
      expect(r, argv.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: SVC_TOKEN holds ${what}; nothing was sent; set it to the token alone, e.g. SVC_TOKEN="$(cat token.txt)"\n`,
      });
    }
  });
  it('login --with-token refuses one on standard input', async () => {
    const r = await runInProcess(['login', '--with-token'], env(), { stdin: 'svc_pk_abcdef\u200bghij\n' });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: standard input holds U+200B ZERO WIDTH SPACE at 14, which a header cannot carry; nothing was sent; pipe in the token alone: `svc login --with-token < token.txt`\n',
    });
  });
  it('login --with-token refuses a Latin-1 one on standard input', async () => {
    const r = await runInProcess(['login', '--with-token'], env(), { stdin: 'svc_pk_abc\u00addef\n' });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: standard input holds U+00AD SOFT HYPHEN at 11, ${LATIN}; nothing was sent; pipe in the token alone: \`svc login --with-token < token.txt\`\n`,
    });
  });
  it('credentials.json holding one (a hand edit) is named when that profile is used, with the fix', async () => {
    mkdirSync(dirs().SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
    const file = join(dirs().SVC_CONFIG_DIR, 'credentials.json');
    writeFileSync(
      file,
      JSON.stringify({ profiles: { default: { type: 'token', access_token: 'svc_pk_abcé' } } }),
      { mode: 0o600 },
    );
    for (const argv of [
      ['tenants', 'ls'],
      ['auth', 'token'],
    ]) {
      expect(await runInProcess(argv, env()), argv.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${file}: the credential of profile "default" holds é (U+00E9) at 11 (in access_token), ${LATIN}, so it cannot be sent; log in again with \`svc -p default login\`, or forget it with \`svc -p default logout --no-revoke\`\n`,
      });
    }
  });
});
