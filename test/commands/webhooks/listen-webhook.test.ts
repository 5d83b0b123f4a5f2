/**
 * `svc webhooks listen --webhook W --capture DIR`, end to end: the webhook delivers to the
 * listener while it runs (a fresh secret, by rotation), an event is triggered, the request is
 * saved as it came, `svc webhooks verify` accepts the saved files as they are (exit 0), and on
 * Ctrl-C the webhook gets its URL and its old secret back. Also through the binary, stopped by
 * SIGINT and by SIGTERM.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseListen } from '../../../src/commands/webhooks/listen.js';
import { runListen } from '../../../src/commands/webhooks/listen-run.js';
import { spawnSvc } from '../../helpers/oauth.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { createWebhook, emit, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const tmp = useTempDir('svc-listen-webhook-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const secrets = async (id: string) =>
  (await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body;
const webhookOf = (id: string) => webhookNow(svc.sandbox(), id);

describe('svc webhooks listen --webhook W --capture DIR', () => {
  it('receives W while it runs, saves each request for verify, and puts W back on Ctrl-C', async () => {
    const { id, secret: original } = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none');
    const before = await webhookOf(id);
    const dir = join(tmp, 'captured');
    const stop = new AbortController();
    const { ctx, stdout, stderr } = svc.context({
      signal: stop.signal,
      globals: { ndjson: true },
      now: Date.now(),
    });
    const running = runListen(ctx, parseListen({ webhook: id, port: '0', capture: dir }));
    await expect.poll(stderr, { timeout: 10_000 }).toContain(`webhook ${id} delivers here`);
    expect(stderr()).toContain(
      `Ctrl-C puts both back; if svc is killed instead, put them back with:\n  svc api PATCH /v1/webhooks/${id} -f url=http://127.0.0.1:9/none && svc api POST /v1/webhooks/${id}/restore-secret\n`,
    );
    const during = await webhookOf(id);
    expect(during.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\?svc-listen=[0-9a-f]{12}$/);
    expect((await secrets(id)).previous_secret).toBe(original);

    await emit(svc.sandbox(), id, 1);
    await expect.poll(stdout, { timeout: 10_000 }).toContain('"valid":true');
    const received = JSON.parse(stdout().trim().split('\n')[0]!);
    expect(received).toMatchObject({ valid: true, status: 200, capture: { headers: expect.any(String) } });

    stop.abort();
    await running;
    expect(stderr()).toContain(
      `✓ webhook ${id} is back: http://127.0.0.1:9/none, signing with the secret it had before this session (the session's secret no longer works)\n`,
    );
    const after = await webhookOf(id);
    expect(after.url).toBe(before.url);
    expect(after.previous_secret_expires_at).toBe(before.previous_secret_expires_at);
    expect(await secrets(id)).toEqual({ id, secret: original, previous_secret: null });

    // The saved files: 0600 in a 0700 directory, and verify takes them as they are.
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir).sort();
    expect(files).toEqual([
      expect.stringMatching(/^0001-dlv_[0-9a-f]+-1\.body$/),
      expect.stringMatching(/^0001-dlv_[0-9a-f]+-1\.headers$/),
    ]);
    for (const file of files) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    const verified = await svc.run(
      ['webhooks', 'verify', '--header-file', join(dir, files[1]!), '--payload', join(dir, files[0]!)],
      { env: { SVC_WEBHOOK_SECRET: original }, now: Date.now() },
    );
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toMatch(/^valid: signed at .+, v1 signature 2 matched\n$/);
  }, 30_000);

  it('refuses a capture directory others can read, and --secret-file with --webhook, before any change', async () => {
    const open = mkdtempSync(join(tmp, 'open-'));
    const { chmodSync } = await import('node:fs');
    chmodSync(open, 0o755);
    const r = await svc.run(['webhooks', 'listen', '--webhook', 'wh_x', '--port', '0', '--capture', open]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: --capture ${open} can be read by others (mode 0755); captured deliveries are signed payloads; use a new directory (svc makes it 0700), or \`chmod 700 ${open}\`\n`,
    ]);
    const both = await svc.run(['webhooks', 'listen', '--webhook', 'wh_x', '--secret-file', 'x']);
    expect(both.code).toBe(2);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'through the binary: %s puts the webhook back',
    async (signal) => {
      const { id, secret: original } = await createWebhook(svc.sandbox(), 'https://hooks.example/in');
      const live = spawnSvc(['webhooks', 'listen', '--webhook', id, '--port', '0'], svc.env());
      await live.waitForStderr(/delivers here/);
      expect((await webhookOf(id)).url).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/webhooks\?svc-listen=[0-9a-f]{12}$/,
      );
      live.child.kill(signal);
      const result = await live.done;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        `✓ webhook ${id} is back: https://hooks.example/in, signing with the secret it had before this session`,
      );
      expect((await webhookOf(id)).url).toBe('https://hooks.example/in');
      expect((await secrets(id)).secret).toBe(original);
    },
    30_000,
  );
});
