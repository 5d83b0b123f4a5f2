/**
 * `svc webhooks listen --webhook W` names W's URL in its messages (the way back before the session,
 * "is back" after it): a host that is not ASCII is shown beside the punycode form deliveries go to,
 * as every other output shows it (withAsciiHost, src/output/hosts.ts); the command that puts it
 * back keeps the URL exact.
 */
import { describe, expect, it } from 'vitest';
import { parseListen } from '../../../src/commands/webhooks/listen.js';
import { runListen } from '../../../src/commands/webhooks/listen-run.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();

describe('svc webhooks listen --webhook W, W with a host that is not ASCII', () => {
  it('names the host beside its punycode form in the way back and in "is back"', async () => {
    const url = 'https://h\u043eoks.example/a';
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/a');
    // As another server keeps it (the sandbox stores the punycode form).
    svc.sandbox().state.webhooks.byId(id)!.url = url;
    const stop = new AbortController();
    const { ctx, stderr } = svc.context({ signal: stop.signal, globals: { ndjson: true }, now: Date.now() });
    const running = runListen(ctx, parseListen({ webhook: id, port: '0' }));
    await expect.poll(stderr, { timeout: 10_000 }).toContain(`webhook ${id} delivers here`);
    expect(stderr()).toContain(
      `webhook ${id}'s URL is ${url} (host xn--hoks-55d.example); for this session svc rotates its secret (deliveries carry the old ` +
        `one too) and points it at the listener; Ctrl-C puts both back; if svc is killed instead, put them back with:\n` +
        `  svc api PATCH /v1/webhooks/${id} -f url='${url}' && svc api POST /v1/webhooks/${id}/restore-secret\n`,
    );
    stop.abort();
    await running;
    expect(stderr()).toContain(
      `✓ webhook ${id} is back: ${url} (host xn--hoks-55d.example), signing with the secret it had before this session (the session's secret no longer works)\n`,
    );
  }, 30_000);
});
