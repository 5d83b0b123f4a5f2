/**
 * `svc login --json` whose stdout does not take the answer: the login is saved before it is
 * printed, so svc says that (the login succeeded, in which profile; only the JSON is lost), exit
 * 141 for a reader gone and 1 for a failed write, never 0 and never "run the command again" as if
 * it had failed (s16 note: with-token ended quietly with 0, a full disk said only "cannot write").
 */
import { describe, expect, it } from 'vitest';
import { consentBrowser } from '../../helpers/oauth.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const stored = { SVC_TOKEN: undefined, SVC_TENANT: undefined };
const saved = (cut: string, profile: string) =>
  `${cut}, but the login succeeded: it is saved in profile "${profile}"; only its JSON was not printed`;

describe('svc login --json, stdout gone before the answer is printed', () => {
  it.each<[string, string[], string, number, string, string]>([
    ['--with-token, the reader gone (141)', [], 'EPIPE', 141, 'stdout_closed', 'stdout closed'],
    ['--with-token, a full disk (1)', [], 'ENOSPC', 1, 'stdout_failed', 'cannot write to stdout (ENOSPC)'],
    [
      '--with-token -p ci, the reader gone (141)',
      ['-p', 'ci'],
      'EPIPE',
      141,
      'stdout_closed',
      'stdout closed',
    ],
  ])('%s: the login is saved and said so', async (_what, global, fails, code, kind, cut) => {
    const profile = global.length > 0 ? 'ci' : 'default';
    const token = svc.sandbox().adminToken;
    const r = await svc.run([...global, 'login', '--with-token', '--json'], {
      env: stored,
      stdin: `${token}\n`,
      stdoutFails: fails,
    });
    const status = `svc ${global.length > 0 ? '-p ci ' : ''}auth status`;
    expect(r).toEqual({
      code,
      stdout: '',
      stderr: `${JSON.stringify({
        error: {
          code: kind,
          message: saved(cut, profile),
          exit_code: code,
          hint: `svc uses it from there; \`${status}\` shows the login`,
        },
      })}\n`,
    });
    const me = await svc.run([...global, 'auth', 'status', '--json'], { env: stored });
    expect(me.code, me.stderr).toBe(0);
  });

  it('the browser login, the reader gone (141)', async () => {
    const browser = consentBrowser();
    const r = await svc.run(['login', '--json'], {
      env: { ...stored, SVC_CLIENT_ID: 'svc-cli' },
      browser,
      now: Date.now(),
      stdoutFails: 'EPIPE',
    });
    await browser.settled();
    expect([r.code, r.stdout, r.stderr.trimEnd().split('\n').at(-1)]).toEqual([
      141,
      '',
      JSON.stringify({
        error: {
          code: 'stdout_closed',
          message: saved('stdout closed', 'default'),
          exit_code: 141,
          hint: 'svc uses it from there; `svc auth status` shows the login',
        },
      }),
    ]);
  });
});
