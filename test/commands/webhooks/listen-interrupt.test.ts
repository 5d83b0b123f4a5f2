/**
 * `svc webhooks listen --webhook W` stopped at a bad moment, while a request is in flight (held by
 * the sandbox until the test lets it go, never latency that is usually long enough): a Ctrl-C during set-up (the GET, the rotation, the PATCH of the URL) never leaves W
 * changed silently (a change once sent finishes, and what took effect is undone, said, exit 130),
 * and a second Ctrl-C while W is being put back waits for that instead of abandoning it. The
 * second signal needs a process, so those tests spawn the binary.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startInProcess } from '../../helpers/context.js';
import { spawnSvc } from '../../helpers/oauth.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { signalTaken } from '../../helpers/signals.js';
import { createWebhook, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const releases: Array<() => void> = [];
/** Holds W's next request of `method` to `/v1/webhooks/W{suffix}` in the sandbox until released. */
const hold = (id: string, method: string, suffix = '') => {
  const held = svc.sandbox().faults.hold((m, url) => m === method && url === `/v1/webhooks/${id}${suffix}`);
  releases.push(held.release);
  return held;
};
afterEach(() => {
  for (const release of releases.splice(0)) release();
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
      const held = hold(id, method, suffix);
      const run = startInProcess(
        ['webhooks', 'listen', '--port', '0', '--webhook', id, '--debug'],
        svc.env(),
        {
          now: Date.now(),
        },
      );
      await held.arrived;
      run.interrupt();
      // Cut while the request is in flight: then it is let go, and what svc does to undo it is not held.
      held.release();
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
      const checked = hold(id, 'GET');
      live.child.kill('SIGINT');
      // The restore's first request (the GET that checks W) is in flight: Ctrl-C again, and let it go
      // only once svc has said it waits for the restore.
      await checked.arrived;
      live.child.kill('SIGINT');
      await live.waitForStderr(/svc exits \(130\) once that is done\n/);
      checked.release();
    } finally {
      if (live.child.exitCode === null) setTimeout(() => live.child.kill('SIGKILL'), 30_000).unref();
    }
    const result = await live.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain(`putting webhook ${id} back; svc exits (130) once that is done\n`);
    expect(result.stderr).toContain(`✓ webhook ${id} is back: https://hooks.example/twice`);
    expect(await asItWas(id)).toEqual(before);
  }, 30_000);

  it('during set-up: what took effect is undone before svc exits (130)', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/twice-setup');
    const before = await asItWas(id);
    const patched = hold(id, 'PATCH');
    const live = spawnListen(id);
    try {
      await patched.arrived;
      // Two Ctrl-Cs while the PATCH is in flight; the second sent once the first is taken (two sent
      // at once may arrive as one), the PATCH let go once svc has said it waits for the undoing.
      await signalTaken(live.child, 'SIGINT');
      live.child.kill('SIGINT');
      await live.waitForStderr(/svc exits \(130\) once that is done\n/);
      patched.release();
    } finally {
      if (live.child.exitCode === null) setTimeout(() => live.child.kill('SIGKILL'), 30_000).unref();
    }
    const result = await live.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain(
      `undoing the changes made to webhook ${id} so far; svc exits (130) once that is done\n`,
    );
    expect(result.stderr).toContain(
      `interrupted while setting up: webhook ${id} had been pointed at the listener`,
    );
    expect(await asItWas(id)).toEqual(before);
  }, 30_000);
});
