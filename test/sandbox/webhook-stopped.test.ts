import { describe, expect, it } from 'vitest';
import { codeTokens, createClient } from '../helpers/oauth.js';
import { call, useGrantRules } from '../helpers/sandbox.js';
import { until } from '../helpers/webhooks.js';

// Session 13 review (review-authz R2, R6): a third-party integration's webhook kept delivering
// after the user revoked every token of the integration (RFC 7009); a delivery cancelled because
// its webhook was stopped was listed as failed with the last attempt's connection_timeout, and was
// in no dead-letter queue, so `replay --dlq` after enabling the webhook never sent it.
const { sandbox, TREASURY, key, user, admin, as, grant, customRole } = useGrantRules('stopped');

const createHook = (caller: { token: string; tenant: string }, url: string, extra = {}) =>
  call(sandbox(), 'POST', '/v1/webhooks', {
    ...caller,
    body: { url, event_types: ['exception.created'], idempotency_key: key(), ...extra },
  });

async function emitted(): Promise<void> {
  const r = await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
    body: { type: 'exception.created', tenant_id: TREASURY },
  });
  expect(r.status, r.text).toBe(201);
}

const deliveriesTo = (webhookId: string) => sandbox().state.webhooks.deliveriesOf(webhookId).length;
const getHook = async (id: string) => (await call(sandbox(), 'GET', `/v1/webhooks/${id}`, admin())).body;

/** RFC 7009 revocation by the client itself (form body, client authentication). */
async function revoke(client: { client_id: string; client_secret: string }, token: string) {
  const response = await fetch(`${sandbox().url}/v1/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, ...client }).toString(),
  });
  expect(response.status, await response.text()).toBe(200);
}

describe("a third-party integration's webhook rests on the approving user's grant to the client", () => {
  it('it delivers while one token the approval gave the client is not revoked, and stops when every one is', async () => {
    const client = await createClient(sandbox(), { scopes: ['admin'] });
    const first = await codeTokens(sandbox(), client, { scope: 'admin' });
    const second = await codeTokens(sandbox(), client, { scope: 'admin' });
    expect([first.status, second.status], JSON.stringify(first.body)).toEqual([200, 200]);
    const made = await createHook(
      { token: first.body.access_token, tenant: TREASURY },
      'http://127.0.0.1:9/vendor',
      { max_attempts: 1 },
    );
    expect(made.status, made.text).toBe(201);
    const id = made.body.id;

    // The family the webhook was made with is revoked; the user's second approval still stands.
    await revoke(client, first.body.refresh_token);
    await emitted();
    expect(deliveriesTo(id)).toBe(1);
    expect((await getHook(id)).status).toBe('enabled');

    // The last token of the user's grant to the client is revoked (an access token: its family).
    await revoke(client, second.body.access_token);
    await emitted();
    expect(deliveriesTo(id)).toBe(1);
    const hook = await getHook(id);
    expect([hook.status, hook.owner_id, hook.disabled_reason]).toEqual([
      'disabled',
      'usr_admin',
      `every token of the OAuth client ${client.client_id} it was set up through was revoked for usr_admin, ` +
        'who approved it; someone who holds exception.read without an end date can enable it again, and then owns it',
    ]);
  });
});

describe('a delivery cancelled because its webhook was stopped', () => {
  it('says so in last_error_code (webhook_stopped) and is dead-lettered, so replay --dlq sends it once enabled', async () => {
    const managers = await customRole('stopped-hookmgr', ['webhook.manage', 'webhook.read']);
    await grant(user(1), managers.id);
    await grant(user(1), 'tenant_viewer');
    const made = await createHook(as(user(1)), 'http://127.0.0.1:9/down', { max_attempts: 5 });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id;
    await emitted();
    const d = sandbox().state.webhooks.deliveriesOf(id)[0]!;
    await until(() => d.status === 'retrying');
    expect(d.last_error_code).toBe('connection_timeout');

    // Its owner loses exception.read: the webhook stops; its retry, once due, is cancelled.
    const revoked = await call(sandbox(), 'DELETE', `/v1/users/${user(1)}/roles/tenant_viewer`, admin());
    expect(revoked.status, revoked.text).toBe(200);
    const moved = await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 3600 } });
    expect(moved.status, moved.text).toBe(200);
    await until(() => d.status === 'failed');

    const got = (await call(sandbox(), 'GET', `/v1/webhooks/${id}/deliveries/${d.id}`, admin())).body;
    const reason = (await getHook(id)).disabled_reason;
    expect([got.status, got.attempts.length, got.next_retry_at, got.last_error_code, got.last_error]).toEqual(
      [
        'failed',
        1,
        null,
        'webhook_stopped',
        `webhook_stopped: cancelled: the webhook was stopped: ${reason}`,
      ],
    );
    const dlq = (await call(sandbox(), 'GET', `/v1/webhooks/${id}/dlq`, admin())).body.items;
    expect(dlq.map((e: { delivery_id: string; status: string }) => [e.delivery_id, e.status])).toEqual([
      [d.id, 'queued'],
    ]);
  });
});
