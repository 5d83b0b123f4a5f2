/**
 * A token refresh during a command is svc's own business, not a change the user asked for: a
 * listing or read whose access token was refreshed on the way still ends quietly (exit 0) when
 * its reader goes away, and a full stdout says only that it cannot write. In-process against a
 * sandbox, after an OAuth login (consentBrowser) whose stored expiry is then moved into the past.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { consentBrowser, storedCredential, TREASURY } from '../../helpers/oauth.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useTempDirs();
const env = () => ({
  ...dirs(),
  SVC_BASE_URL: sandbox().url,
  SVC_CLIENT_ID: 'svc-cli',
  SVC_TENANT: TREASURY,
});

/** Makes the stored access token expired, so the next command refreshes it first. */
function expireStoredToken(): void {
  const path = join(dirs().SVC_CONFIG_DIR, 'credentials.json');
  const file = JSON.parse(readFileSync(path, 'utf8'));
  file.profiles.default.expires_at = '2020-01-01T00:00:00Z';
  writeFileSync(path, JSON.stringify(file));
}

beforeAll(async () => {
  const browser = consentBrowser();
  const r = await runInProcess(['login'], env(), { now: Date.now(), browser });
  await browser.settled();
  if (r.code !== 0) throw new Error(r.stderr);
});

describe('a read whose token was refreshed on the way', () => {
  it.each([[['roles', 'ls']], [['me']], [['tenants', 'ls']], [['auth', 'status']]])(
    '%j ends quietly with 0 when its reader went away (EPIPE)',
    async (argv) => {
      expireStoredToken();
      const before = storedCredential(dirs().SVC_CONFIG_DIR).refresh_token;
      const r = await runInProcess(argv, env(), { now: Date.now(), stdoutFails: 'EPIPE' });
      expect([r.code, r.stderr]).toEqual([0, '']);
      // It was refreshed (and saved), so the point of the test was reached.
      expect(storedCredential(dirs().SVC_CONFIG_DIR).refresh_token).not.toBe(before);
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
