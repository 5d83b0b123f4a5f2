/**
 * review25b L4: webhooks live in a tenant, yet `webhooks update`, `delete`, `test` and the
 * summaries of `webhooks replay` and `dlq discard` named only the webhook. Their ✓ lines now say the
 * tenant as every change's does (changed-in.ts changedIn): after a question, in its words.
 */
import { describe, expect, it } from 'vitest';
import { scriptedPrompter } from '../../helpers/context.js';
import { ACME, call, useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const WORDS = 'Acme Treasury (acme-treasury)';

describe('a webhook change names its tenant', () => {
  it('update, with --yes-free flags: the tenant as the run named it', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/l4-update');
    const r = await svc.run(['webhooks', 'update', id, '--description', 'l4']);
    expect([r.code, r.stderr]).toEqual([0, `✓ updated webhook ${id} in ${ACME} (description)\n`]);
  });

  it('delete asked on a terminal: the ✓ line says the question’s words', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/l4-delete');
    const prompter = scriptedPrompter([true]);
    const r = await svc.run(['webhooks', 'delete', id], { tty: true, prompter });
    expect(r.code, r.stderr).toBe(0);
    expect(prompter.questions).toEqual([
      `Delete webhook ${id} (https://h.example/l4-delete) in ${WORDS}? It receives no more events; deliveries still waiting are cancelled.`,
    ]);
    expect(r.stderr).toBe(`✓ deleted webhook ${id} (https://h.example/l4-delete) in ${WORDS}\n`);
  });

  it('dlq discard asked during the run: its summary, read at the end, says the question’s words', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none');
    await call(svc.sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: id, count: 2 },
    });
    const prompter = scriptedPrompter([true]);
    const r = await svc.run(['webhooks', 'dlq', 'discard', id, '--all'], { tty: true, prompter });
    expect(r.code, r.stderr).toBe(0);
    expect(prompter.questions).toEqual([
      `Discard 2 dead-letter entries of ${id} in ${WORDS}? Their deliveries will not be replayed from the queue.`,
    ]);
    expect(r.stderr.split(/[\r\n]/).filter((l) => l.includes('✓'))).toEqual([
      expect.stringMatching(
        new RegExp(`✓ 2 discarded in ${WORDS.replace(/[()]/g, '\\$&')} \\(\\d+\\.\\d s\\)$`),
      ),
    ]);
  });
});
