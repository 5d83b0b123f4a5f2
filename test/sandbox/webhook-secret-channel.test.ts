import { describe, expect, it } from 'vitest';
import { codeTokens, createClient, TREASURY } from '../helpers/oauth.js';
import { call, useSandboxContext } from '../helpers/sandbox.js';

// review18 R18-7: a webhook created through a vendor's token (or an API key) answered its signing
// secret to that vendor; once the vendor's client was deleted, an admin enabling the webhook again
// kept that secret without a word, and restore-secret, open to any vendor token, brought it back
// after the admin had rotated it.
const svc = useSandboxContext();
const sandbox = svc.sandbox;
let n = 0;
const key = () => `secret-channel-${++n}`;
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });

async function vendorToken(): Promise<{ clientId: string; token: string }> {
  const client = await createClient(sandbox(), { scopes: ['admin'] });
  const tokens = await codeTokens(sandbox(), client, { scope: 'admin' });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return { clientId: client.client_id, token: tokens.body.access_token };
}

async function hookThrough(token: string): Promise<{ id: string; secret: string }> {
  const made = await call(sandbox(), 'POST', '/v1/webhooks', {
    token,
    tenant: TREASURY,
    body: { url: 'https://receiver.example.com/in', event_types: ['webhook.test'], idempotency_key: key() },
  });
  expect(made.status, made.text).toBe(201);
  return { id: made.body.id, secret: made.body.secret };
}

const enable = (id: string) =>
  call(sandbox(), 'PATCH', `/v1/webhooks/${id}`, { ...admin(), body: { status: 'enabled' } });
const signingSecret = (id: string) => sandbox().state.webhooks.byId(id)!.secret;

describe('restore-secret is for users themselves, as rotate-secret', () => {
  it("a vendor's token cannot bring back a secret an admin rotated away: 403 user_required, nothing changed", async () => {
    const { clientId, token } = await vendorToken();
    const hook = await hookThrough(token);
    const rotated = await call(sandbox(), 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, {
      ...admin(),
      body: { idempotency_key: key() },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const restored = await call(sandbox(), 'POST', `/v1/webhooks/${hook.id}/restore-secret`, {
      token,
      tenant: TREASURY,
      body: { idempotency_key: key() },
    });
    expect([restored.status, restored.body.error?.code, restored.body.error?.message]).toEqual([
      403,
      'user_required',
      `restoring the previous secret of a webhook is for users themselves, not an OAuth client acting for one (this token is ${clientId}'s): ` +
        "a webhook's earlier signing secret would outlive the client; ask the user to do it with their own login",
    ]);
    expect(signingSecret(hook.id)).toBe(rotated.body.secret);
  });
});

describe('enabling a webhook whose secret was given to a credential that is gone says so', () => {
  it("through a deleted vendor's client: rotation_reason on the enable answer and on reads, until rotated", async () => {
    const { clientId, token } = await vendorToken();
    const hook = await hookThrough(token);
    expect(
      (await call(sandbox(), 'GET', `/v1/webhooks/${hook.id}`, admin())).body.rotation_reason,
    ).toBeNull();
    const gone = await call(sandbox(), 'DELETE', `/v1/oauth/clients/${clientId}`, admin());
    expect(gone.status, gone.text).toBe(200);
    const warning =
      `its signing secret was given to the OAuth client ${clientId} it was set up through, which was deleted: ` +
      'whoever kept it can sign events its receiver trusts; rotate the secret';
    const enabled = await enable(hook.id);
    expect(enabled.status, enabled.text).toBe(200);
    expect([enabled.body.status, enabled.body.owner_id, enabled.body.rotation_reason]).toEqual([
      'enabled',
      'usr_admin',
      warning,
    ]);
    expect(signingSecret(hook.id)).toBe(hook.secret);
    // svc's own output: one warning line naming the command, after the ✓ line.
    const r = await svc.run(['webhooks', 'update', hook.id, '--disable']);
    expect(r.code, r.stderr).toBe(0);
    const again = await svc.run(['webhooks', 'update', hook.id, '--enable']);
    expect([again.code, again.stderr]).toEqual([
      0,
      `✓ updated webhook ${hook.id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (status)\n` +
        `warning: webhook ${hook.id}: ${warning}: svc webhooks rotate-secret ${hook.id} --secret-file PATH\n`,
    ]);
    // Rotated by the user: the warning is gone; restored by the user: it is back.
    const rotated = await call(sandbox(), 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, {
      ...admin(),
      body: { idempotency_key: key() },
    });
    expect([rotated.status, rotated.body.rotation_reason]).toEqual([200, null]);
    const restored = await call(sandbox(), 'POST', `/v1/webhooks/${hook.id}/restore-secret`, {
      ...admin(),
      body: { idempotency_key: key() },
    });
    expect([restored.status, restored.body.rotation_reason]).toEqual([200, warning]);
  });

  it('through a revoked service-role key: the same, naming the key', async () => {
    const issued = await call(sandbox(), 'POST', `/v1/tenants/${TREASURY}/api-keys`, {
      ...admin(),
      body: {
        kind: 'service_role',
        name: 'ci2',
        justification: 'ci pipeline for tests',
        idempotency_key: key(),
      },
    });
    expect(issued.status, issued.text).toBe(201);
    const hook = await hookThrough(issued.body.key);
    const revoked = await call(
      sandbox(),
      'DELETE',
      `/v1/tenants/${TREASURY}/api-keys/${issued.body.id}`,
      admin(),
    );
    expect(revoked.status, revoked.text).toBe(200);
    const enabled = await enable(hook.id);
    expect([enabled.status, enabled.body.status, enabled.body.rotation_reason]).toEqual([
      200,
      'enabled',
      `its signing secret was given to the API key ${issued.body.id} it was set up through, which was revoked: ` +
        'whoever kept it can sign events its receiver trusts; rotate the secret',
    ]);
  });

  it("a webhook made with the user's own login has none", async () => {
    const hook = await hookThrough(sandbox().adminToken);
    expect((await enable(hook.id)).body.rotation_reason).toBeNull();
  });
});
