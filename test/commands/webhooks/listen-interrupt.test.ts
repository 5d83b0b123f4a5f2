/**
 * `svc webhooks listen --webhook W` stopped at a bad moment, on a slow platform (the sandbox's
 * latency): a Ctrl-C during set-up (the GET, the rotation, the PATCH of the URL) never leaves W
 * changed silently (a change once sent finishes, and what took effect is undone, said, exit 130),
 * and a second Ctrl-C while W is being put back waits for that instead of abandoning it. The
 * second signal needs a process, so those tests spawn the binary.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startInProcess } from '../../helpers/context.js';
import { spawnSvc } from '../../helpers/oauth.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const latency = (ms: number) => call(svc.sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: ms } });
afterEach(async () => {
  await latency(0);
});

const webhookOf = (id: string) => webhookNow(svc.sandbox(), id);
const secrets = async (id: string) =>
  (await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body;
/** What restoring must give back: the URL and the rotation fields (updated_at moves). */
const asItWas = async (id: string) => {
  const { url, secret_rotated_at, previous_secret_expires_at } = await webhookOf(id);
  return { url, secret_rotated_at, previous_secret_expires_at, secrets: await secrets(id) };
};

describe('listen --webhook W: Ctrl-C during set-up', () => {
  it.each([
    ['the GET', 'GET', '', `error: interrupted; the request was cancelled\n`],
    [
      'the rotation',
      'POST',
      '/rotate-secret',
      "error: interrupted while setting up: webhook ID's secret had been rotated; svc undid that, so it is as it was\n",
    ],
    [
      'the PATCH of the URL',
      'PATCH',
      '',
      'error: interrupted while setting up: webhook ID had been pointed at the listener; svc put it back: ' +
        'https://hooks.example/setup, signing with the secret it had before\n',
    ],
  ])(
    'during %s: W is as it was, and svc says what it did (130)',
    async (_, method, suffix, said) => {
      const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/setup');
      const before = await asItWas(id);
      await latency(400);
      const run = startInProcess(
        ['webhooks', 'listen', '--port', '0', '--webhook', id, '--debug'],
        svc.env(),
        {
          now: Date.now(),
        },
      );
      await run.waitForStderr(new RegExp(`\\* ${method} \\S+/v1/webhooks/${id}${suffix}\\n`));
      run.interrupt();
      // Cut in the slow request (its 400 ms already under way): what svc then does to undo it need
      // not wait 400 ms a request too.
      await latency(0);
      const done = await run.done;
      expect(done.code, done.stderr).toBe(130);
      expect(done.stderr).not.toContain('✓');
      expect(done.stderr.slice(done.stderr.lastIndexOf('error:'))).toBe(said.replace('ID', id));
      if (method !== 'GET') {
        // The way back was on screen before the first change.
        expect(done.stderr).toContain(
          `if svc is killed instead, put them back with:\n  svc api PATCH /v1/webhooks/${id} -f url=https://hooks.example/setup && svc api POST /v1/webhooks/${id}/restore-secret\n`,
        );
        expect(done.stderr.indexOf('put them back with:')).toBeLessThan(
          done.stderr.indexOf('/rotate-secret'),
        );
      }
      await latency(0);
      expect(await asItWas(id)).toEqual(before);
    },
    30_000,
  );
});

describe('listen --webhook W: a second Ctrl-C (spawned)', () => {
  const spawnListen = (id: string) =>
    spawnSvc(['webhooks', 'listen', '--port', '0', '--webhook', id, '--debug'], svc.env());

  it('while W is being put back: the restore finishes and says so, then exit 130', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/twice');
    const before = await asItWas(id);
    const live = spawnListen(id);
    try {
      await live.waitForStderr(/delivers here/);
      await latency(500);
      live.child.kill('SIGINT');
      // The restore's first request (the GET that checks W) is on its way: Ctrl-C again.
      await live.waitForStderr(new RegExp(`delivers here[^]*\\* GET \\S+/v1/webhooks/${id}\\n`));
      live.child.kill('SIGINT');
      // The second Ctrl-C is in while that GET takes its 500 ms: the rest of the restore need not.
      await latency(0);
    } finally {
      if (live.child.exitCode === null) setTimeout(() => live.child.kill('SIGKILL'), 15_000).unref();
    }
    const result = await live.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain(`putting webhook ${id} back; svc exits (130) once that is done\n`);
    expect(result.stderr).toContain(`✓ webhook ${id} is back: https://hooks.example/twice`);
    await latency(0);
    expect(await asItWas(id)).toEqual(before);
  }, 30_000);

  it('during set-up: what took effect is undone before svc exits (130)', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/twice-setup');
    const before = await asItWas(id);
    await latency(500);
    const live = spawnListen(id);
    try {
      await live.waitForStderr(new RegExp(`\\* PATCH \\S+/v1/webhooks/${id}\\n`));
      live.child.kill('SIGINT');
      // Two signals sent at once may arrive as one: the PATCH takes 500 ms, this is well inside it.
      await new Promise((resolve) => setTimeout(resolve, 150));
      live.child.kill('SIGINT');
      // Both are in while the PATCH takes its 500 ms: the undoing need not wait 500 ms a request.
      await latency(0);
    } finally {
      if (live.child.exitCode === null) setTimeout(() => live.child.kill('SIGKILL'), 15_000).unref();
    }
    const result = await live.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain(
      `undoing the changes made to webhook ${id} so far; svc exits (130) once that is done\n`,
    );
    expect(result.stderr).toContain(
      `interrupted while setting up: webhook ${id} had been pointed at the listener`,
    );
    await latency(0);
    expect(await asItWas(id)).toEqual(before);
  }, 30_000);
});
