/**
 * `svc webhooks listen --webhook W` says where W delivers from the answers' `url`, never from a
 * 2xx alone (attack26b F1): a put-back PATCH answered with W still at the listener (a server that
 * applied it as a no-op) is "NOT put back", its URL now and the commands that put it back, exit 1,
 * no ✓; a restore-secret whose record names another URL likewise; a set-up PATCH answered with
 * another URL than the listener's stops the session before it says "delivers here", W put back.
 */
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../../helpers/context.js';
import { useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);

/** A PATCH body whose `url` `matches` is sent as a change of the description only (a no-op on W's URL). */
const urlChangeDropped =
  (matches: (url: string) => boolean) =>
  (text: string): string => {
    try {
      const body = JSON.parse(text) as { url?: unknown };
      if (typeof body.url === 'string' && matches(body.url))
        return JSON.stringify({ description: 'unchanged' });
    } catch {}
    return text;
  };

const listen = (id: string) =>
  startInProcess(
    ['webhooks', 'listen', '--port', '0', '--webhook', id],
    { ...svc.env(), SVC_BASE_URL: proxy().url },
    { now: Date.now() },
  );

describe('listen --webhook W: the put-back answered with W elsewhere', () => {
  it('the PATCH applied as a no-op (W still at the listener): NOT put back, its URL, the commands, exit 1, no ✓', async () => {
    const original = 'https://hooks.example/put-back-noop';
    const { id } = await createWebhook(svc.sandbox(), original);
    const run = listen(id);
    await run.waitForStderr(/delivers here/);
    const session = (await webhookNow(svc.sandbox(), id)).url;
    proxy().set({ body: urlChangeDropped((url) => url === original) });
    run.interrupt();
    const done = await run.done;
    const after = await webhookNow(svc.sandbox(), id);
    // The sandbox left W at the listener, its rotation not undone: svc says so.
    expect(after.url).toBe(session);
    expect(after.secret_rotated_at).not.toBeNull();
    expect(done.stderr).not.toContain('✓');
    expect([done.code, done.stderr.slice(done.stderr.indexOf('error:'))]).toEqual([
      1,
      `error: webhook ${id} was NOT put back (the server answered the change of its URL with its URL ${session}, not ${original}); ` +
        `put it back with: svc api PATCH /v1/webhooks/${id} -f url=${original} && svc api POST /v1/webhooks/${id}/restore-secret\n` +
        'stopped after 0 requests: 0 valid, 0 invalid\n',
    ]);
  }, 30_000);

  it('the restore-secret record naming another URL: NOT put back, the URL command, exit 1, no ✓', async () => {
    const original = 'https://hooks.example/restored-elsewhere';
    const { id } = await createWebhook(svc.sandbox(), original);
    const run = listen(id);
    await run.waitForStderr(/delivers here/);
    proxy().set({
      reshape: (answer) => {
        if (answer.method === 'POST' && answer.path.endsWith('/restore-secret') && answer.status === 200)
          (answer.body as { url: string }).url = 'https://elsewhere.example/hook';
      },
    });
    run.interrupt();
    const done = await run.done;
    expect(done.stderr).not.toContain('✓');
    expect([done.code, done.stderr.slice(done.stderr.indexOf('error:'))]).toEqual([
      1,
      `error: webhook ${id} was NOT put back (the server answered the undoing of its rotation with its URL https://elsewhere.example/hook, not ${original}; its secret's rotation was undone); ` +
        `put its URL back with: svc api PATCH /v1/webhooks/${id} -f url=${original}\n` +
        'stopped after 0 requests: 0 valid, 0 invalid\n',
    ]);
  }, 30_000);

  it('the set-up PATCH answered without the listener’s URL: stops before "delivers here", W as it was, exit 1', async () => {
    const original = 'https://hooks.example/setup-noop';
    const { id } = await createWebhook(svc.sandbox(), original);
    proxy().set({ body: urlChangeDropped((url) => url.includes('svc-listen=')) });
    const done = await listen(id).done;
    const after = await webhookNow(svc.sandbox(), id);
    expect([after.url, after.secret_rotated_at]).toEqual([original, null]);
    expect(done.stderr).not.toContain(`webhook ${id} delivers here`);
    expect(done.code).toBe(1);
    expect(done.stderr.slice(done.stderr.indexOf('error:'))).toMatch(
      new RegExp(
        `^error: the server answered the change of webhook ${id}'s URL to the listener's \\(http://127\\.0\\.0\\.1:\\d+/webhooks\\?svc-listen=[0-9a-f]+\\) with its URL ${original.replace(/\./g, '\\.')}, which does not say it delivers to the listener; svc undid the rotation of its secret, so it is as it was\n$`,
      ),
    );
  }, 30_000);
});
