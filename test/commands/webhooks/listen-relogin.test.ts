/**
 * `svc webhooks listen --webhook W` keeps the identity it started with, and a `svc login
 * --with-token` with the token the profile already holds (the same credential, the same user) is
 * not another login: on Ctrl-C W is put back. A login as someone else still leaves W alone (exit 3).
 */
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { admin, createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
/** The profile's own credential, not SVC_TOKEN. */
const env = () => ({ ...svc.env(), SVC_TOKEN: '' });
const login = (token: string) => svc.run(['login', '--with-token'], { env: { SVC_TOKEN: '' }, stdin: token });

describe('listen --webhook W and a login during the session', () => {
  it('a login with the same token: W is put back on Ctrl-C (exit 0)', async () => {
    const token = svc.sandbox().adminToken;
    expect((await login(token)).code).toBe(0);
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/relogin');
    const run = startInProcess(['webhooks', 'listen', '--port', '0', '--webhook', id], env(), {
      now: Date.now(),
    });
    await run.waitForStderr(/delivers here/);
    const again = await login(token);
    expect(again.code, again.stderr).toBe(0);
    run.interrupt();
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`✓ webhook ${id} is back: https://hooks.example/relogin`);
    expect((await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body.url).toBe(
      'https://hooks.example/relogin',
    );
  }, 30_000);

  it('a login as someone else: W is left alone, said so (exit 1)', async () => {
    expect((await login(svc.sandbox().adminToken)).code).toBe(0);
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/other');
    const run = startInProcess(['webhooks', 'listen', '--port', '0', '--webhook', id], env(), {
      now: Date.now(),
    });
    await run.waitForStderr(/delivers here/);
    expect((await login(svc.sandbox().issueToken('usr_analyst').token)).code).toBe(0);
    run.interrupt();
    const done = await run.done;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain(`webhook ${id} was NOT put back`);
    expect(done.stderr).toContain('now belongs to usr_analyst');
  }, 30_000);
});
