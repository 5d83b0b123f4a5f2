/**
 * `svc webhooks listen --webhook W` puts W back on exit with the platform's restore-secret. When
 * that request's outcome is unknown (answered 200 in a body svc cannot read, or every answer lost),
 * the secret may well be back: svc says so and names the command that shows whether it is
 * (`svc webhooks get W`: its secret_rotated_at is the one before the session), never "NOT put
 * back" with a restore-secret to run again, which would undo an earlier rotation (restore-secret
 * undoes rotations as a stack).
 */
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
/** How the restore-secret POST is answered once the sandbox made it: its own answer when undefined. */
let restoreAnswer: 'text' | 'lost' | undefined;
const isRestore = (method: string, path: string) => method === 'POST' && path.endsWith('/restore-secret');
const proxy = useLossyProxy(svc.sandbox, {
  lose: (method, path) => restoreAnswer === 'lost' && isRestore(method, path),
  reshape: (method, path) =>
    restoreAnswer === 'text' && isRestore(method, path)
      ? { status: 200, body: 'OK', headers: { 'content-type': 'text/plain' } }
      : undefined,
});

describe('listen --webhook W: a restore-secret whose outcome is unknown', () => {
  it.each([
    ['answered 200 text/plain', 'text'],
    ['its answers lost (503 after the change)', 'lost'],
  ] as const)(
    '%s: says it may be back and how to see it, never NOT put back',
    async (_label, how) => {
      const { id } = await createWebhook(svc.sandbox(), `https://hooks.example/restore-${how}`);
      const before = await webhookNow(svc.sandbox(), id);
      expect(before.secret_rotated_at).toBeNull();
      restoreAnswer = how;
      const run = startInProcess(
        ['webhooks', 'listen', '--port', '0', '--webhook', id],
        { ...svc.env(), SVC_BASE_URL: proxy().url },
        { now: Date.now() },
      );
      await run.waitForStderr(/delivers here/);
      const session = (await webhookNow(svc.sandbox(), id)).secret_rotated_at;
      run.interrupt();
      const done = await run.done;
      restoreAnswer = undefined;
      const after = await webhookNow(svc.sandbox(), id);
      // The sandbox made the restore: the secret is the one before the session.
      expect([after.url, after.secret_rotated_at]).toEqual([before.url, before.secret_rotated_at]);
      const why =
        how === 'text'
          ? `the server's answer to POST /v1/webhooks/${id}/restore-secret is not a JSON object (text/plain)`
          : 'injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change';
      expect([done.code, done.stderr.slice(done.stderr.indexOf('error:'))]).toEqual([
        1,
        `error: webhook ${id} has its URL back (https://hooks.example/restore-${how}), but whether its secret is the one it had ` +
          `before this session is not known (${why}); see \`svc webhooks get ${id}\`: its secret_rotated_at is null once the ` +
          `rotation is undone; only while it is still ${session}, undo it with: svc api POST /v1/webhooks/${id}/restore-secret ` +
          '(once it is undone, that would undo an earlier rotation too)\n' +
          'stopped after 0 requests: 0 valid, 0 invalid\n',
      ]);
    },
    30_000,
  );

  it('--json: the error says "outcome": "unknown"', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/restore-json');
    restoreAnswer = 'lost';
    const run = startInProcess(
      ['webhooks', 'listen', '--port', '0', '--webhook', id, '--json'],
      { ...svc.env(), SVC_BASE_URL: proxy().url },
      { now: Date.now() },
    );
    await run.waitForStderr(/delivers here/);
    run.interrupt();
    const done = await run.done;
    restoreAnswer = undefined;
    const line = done.stderr.split('\n').find((l) => l.startsWith('{"error"'));
    const { error } = JSON.parse(line ?? '{}');
    expect([done.code, error?.code, error?.outcome]).toEqual([1, 'service_unavailable', 'unknown']);
  }, 30_000);
});
