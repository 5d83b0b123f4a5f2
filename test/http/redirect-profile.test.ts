/**
 * A redirect's hint names where the base URL is set; with a profile named by -p or SVC_PROFILE,
 * its `svc config set base_url` repeats `-p NAME` (profileFlag), as every other hint that
 * suggests a command does: without it the pasted line would set the active profile's base URL.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';

const dirs = useTempDirs();
const server = useHostileServer();

const hint = (p: string) =>
  'error: the server answered 307 (a redirect to /api/v1/me on the same server) to GET /v1/me; svc never follows redirects, so nothing was sent there; ' +
  `if the API is under /api on this server, use SERVER/api as the base URL (--base-url, SVC_BASE_URL or \`svc ${p}config set base_url\`); otherwise report the redirect to the server's operator\n`;

describe('a redirect hint and the profile in use', () => {
  it.each([
    ['-p work', ['-p', 'work'], {}, '-p work '],
    ['SVC_PROFILE=work', [], { SVC_PROFILE: 'work' }, '-p work '],
    ['the default profile', [], {}, ''],
  ])('%s: the hint repeats the profile as named', async (_name, flags, env, p) => {
    const s = await server();
    s.answer(answers.raw(307, '', undefined, { location: '/api/v1/me' }));
    const base = {
      ...dirs(),
      NO_COLOR: '1',
      SVC_TOKEN: 'tok_redirect_profile_0123456789',
      SVC_MAX_RETRIES: '0',
    };
    const made = await runInProcess([...flags, 'config', 'set', 'base_url', s.url], { ...base, ...env });
    expect(made.code, made.stderr).toBe(0);
    const run = await runInProcess([...flags, 'api', 'GET', '/v1/me'], { ...base, ...env });
    expect([run.code, run.stderr.replaceAll(s.url, 'SERVER')]).toEqual([1, hint(p)]);
  });
});
