/**
 * A token refresh during a command is svc's own business, not a change the user asked for: a
 * listing or read whose access token was refreshed on the way still ends quietly (exit 0) when
 * its reader goes away, and a full stdout says only that it cannot write. In-process against a
 * sandbox, after an OAuth login (consentBrowser) whose stored expiry is then moved into the past.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { storedCredential, useLoggedIn } from '../../helpers/oauth.js';

const { env, configDir, expireStoredToken } = useLoggedIn();

describe('a read whose token was refreshed on the way', () => {
  it.each([[['roles', 'ls']], [['me']], [['tenants', 'ls']], [['auth', 'status']]])(
    '%j ends quietly with 0 when its reader went away (EPIPE)',
    async (argv) => {
      expireStoredToken();
      const before = storedCredential(configDir()).refresh_token;
      const r = await runInProcess(argv, env(), { now: Date.now(), stdoutFails: 'EPIPE' });
      expect([r.code, r.stderr]).toEqual([0, '']);
      // It was refreshed (and saved), so the point of the test was reached.
      expect(storedCredential(configDir()).refresh_token).not.toBe(before);
    },
  );

  it('a full stdout says only that it cannot write (exit 1), not that a change was made', async () => {
    expireStoredToken();
    const r = await runInProcess(['roles', 'ls'], env(), { now: Date.now(), stdoutFails: 'ENOSPC' });
    expect([r.code, r.stderr]).toEqual([
      1,
      'error: cannot write to stdout (ENOSPC); check where stdout goes (a full disk, a failed device), then run the command again\n',
    ]);
  });
});
