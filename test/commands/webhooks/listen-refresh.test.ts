/**
 * `svc webhooks listen --webhook W` left running past its access token's life (nothing refreshes
 * it during a session: listen sends nothing): the put-back after Ctrl-C needs a refresh, and sends
 * it, for the put-back is promised to finish whatever the stop (attack24b F1: the refresher,
 * bound to the command's stop, refused once Ctrl-C had fired, and W stayed on the dead listener).
 * In-process, after an OAuth login; the stored expiry is moved into the past once W is pointed
 * at the listener, then Ctrl-C: the order is driven, nothing raced.
 */
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../../helpers/context.js';
import { storedCredential, useLoggedIn } from '../../helpers/oauth.js';
import { advanceClock } from '../../helpers/sandbox.js';
import { admin, createWebhook } from '../../helpers/webhooks.js';

const { sandbox, env, configDir, expireStoredToken } = useLoggedIn();

describe('listen --webhook W: a put-back that needs a token refresh', () => {
  it('refreshes the session after Ctrl-C and puts W back (exit 0)', async () => {
    const { id } = await createWebhook(sandbox(), 'https://hooks.example/refresh');
    const run = startInProcess(['webhooks', 'listen', '--port', '0', '--webhook', id], env(), {
      now: Date.now(),
    });
    await run.waitForStderr(/delivers here/);
    expireStoredToken();
    const before = storedCredential(configDir()).refresh_token;
    run.interrupt();
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`✓ webhook ${id} is back: https://hooks.example/refresh`);
    expect(done.stderr).not.toContain('NOT put back');
    const w = (await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body;
    expect([w.url, w.secret_rotated_at]).toEqual(['https://hooks.example/refresh', null]);
    // Refreshed, and the new tokens kept: the login goes on.
    expect(storedCredential(configDir()).refresh_token).not.toBe(before);
  }, 30_000);

  // Last: the sandbox's clock stays an hour ahead.
  it('a token the platform rejects (its clock an hour on): renewed after Ctrl-C, W put back', async () => {
    const { id } = await createWebhook(sandbox(), 'https://hooks.example/rejected');
    const run = startInProcess(['webhooks', 'listen', '--port', '0', '--webhook', id], env(), {
      now: Date.now(),
    });
    await run.waitForStderr(/delivers here/);
    await advanceClock(sandbox(), 3700);
    run.interrupt();
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`✓ webhook ${id} is back: https://hooks.example/rejected`);
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body.url).toBe(
      'https://hooks.example/rejected',
    );
  }, 30_000);
});
