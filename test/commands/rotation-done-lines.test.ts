/**
 * A rotation is a change, and says so in one ✓ line in the house form (lower-case verb, what,
 * where), as a creation does (attack26a F9: `webhooks rotate-secret` and `oauth rotate-secret`
 * printed only `The … secret is in F; it is not shown again.`). A rotation an earlier run made
 * (the same --idempotency-key) is no change of this run: its note, no ✓.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/oauth.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';
import { createWebhook } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const dir = useTempDir('svc-rotation-lines-');
let files = 0;
const file = () => join(dir, `s${++files}`);

describe('svc webhooks rotate-secret', () => {
  it('--secret-file: one ✓ line naming the webhook, the tenant and the file', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/done');
    const to = file();
    const r = await svc.run(['webhooks', 'rotate-secret', id, '--secret-file', to]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(
      `✓ rotated the signing secret of webhook ${id} in ${ACME}; its signing secret is in ${to} (mode 0600), not shown again`,
    );
    expect(r.stderr.match(/✓/g)).toHaveLength(1);
  });

  it('--show-secret: the ✓ line, then the warning to store it', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/shown');
    const r = await svc.run(['webhooks', 'rotate-secret', id, '--show-secret']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      `✓ rotated the signing secret of webhook ${id} in ${ACME}`,
      'warning: store the signing secret now: it is not shown again (rotate it to get a new one)',
    ]);
  });

  it('the same --idempotency-key again: the earlier run’s rotation, no ✓', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://h.example/replayed');
    const key = `rot-${id}`;
    const args = ['webhooks', 'rotate-secret', id, '--idempotency-key', key];
    expect((await svc.run([...args, '--secret-file', file()])).code).toBe(0);
    const again = await svc.run([...args, '--secret-file', file()]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('✓');
    expect(again.stderr.split('\n')[0]).toBe(
      `webhook ${id}'s secret was already rotated by an earlier run with this idempotency key: this is the platform's stored answer, and its secret is still the current one`,
    );
  });
});

describe('svc oauth rotate-secret', () => {
  it('--secret-file and --show-secret: one ✓ line naming the client, the tenant and where the secret went', async () => {
    const client = await createClient(svc.sandbox(), { name: 'rotated' });
    const to = file();
    const r = await svc.run(['oauth', 'rotate-secret', client.client_id, '--secret-file', to, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `✓ rotated the secret of OAuth client rotated (${client.client_id}) in ${ACME}; its client secret is in ${to} (mode 0600), not shown again\n`,
    );
    const shown = await svc.run(['oauth', 'rotate-secret', client.client_id, '--show-secret', '--yes']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr.split('\n')[0]).toBe(
      `✓ rotated the secret of OAuth client rotated (${client.client_id}) in ${ACME}`,
    );
  });
});
