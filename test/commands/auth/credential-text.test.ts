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

  it('credentials.json holding one is named, with the profile', async () => {
    mkdirSync(dirs().SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
    const file = join(dirs().SVC_CONFIG_DIR, 'credentials.json');
    writeFileSync(
      file,
      JSON.stringify({ profiles: { default: { type: 'token', access_token: 'abc\r\nX-Evil: 1' } } }),
      { mode: 0o600 },
    );
    const r = await runInProcess(['auth', 'status'], env());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read ${file}: the credential of profile "default" contains a line break (in access_token); fix or remove the file; svc never resets it on its own\n`,
    });
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
