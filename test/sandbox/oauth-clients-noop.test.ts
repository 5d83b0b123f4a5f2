import { describe, expect, it } from 'vitest';
import { createClient, TREASURY } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// The OAuth client half of the audit-trail rule "a change that changes nothing writes no entry"
// (src/sandbox/openapi-choices.ts; roles: audit-truth.test.ts, webhooks: webhooks/update-nothing
// .test.ts). svc itself sends no PATCH for a no-op `oauth update`, so only the route is tested here
// (audit13 F3).
const sandbox = useSandbox();
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });

async function trail(clientId: string): Promise<Array<{ action: string; changes: unknown }>> {
  const r = await call(sandbox(), 'GET', `/v1/audit_trail?target_id=${clientId}&limit=100`, admin());
  expect(r.status, r.text).toBe(200);
  return r.body.items.map((e: { action: string; changes: unknown }) => ({
    action: e.action,
    changes: e.changes,
  }));
}

describe('PATCH /v1/oauth/clients/{id} that changes nothing', () => {
  it('answers 200 with the client as it was and writes no audit entry', async () => {
    const client = await createClient(sandbox());
    const shown = await call(sandbox(), 'GET', `/v1/oauth/clients/${client.client_id}`, admin());
    expect(shown.status, shown.text).toBe(200);
    const before = await trail(client.client_id);
    expect(before.map((e) => e.action)).toEqual(['oauth_client.created']);
    const r = await call(sandbox(), 'PATCH', `/v1/oauth/clients/${client.client_id}`, {
      ...admin(),
      body: {
        name: client.name,
        redirect_uris: [...client.redirect_uris],
        scopes: [...client.scopes],
        token_lifetime_seconds: client.token_lifetime_seconds,
        pkce_required: client.pkce_required,
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual(shown.body);
    expect(await trail(client.client_id)).toEqual(before);
  });

  it('names only the field that changed when one of two does', async () => {
    const client = await createClient(sandbox());
    const r = await call(sandbox(), 'PATCH', `/v1/oauth/clients/${client.client_id}`, {
      ...admin(),
      body: { name: client.name, scopes: ['read:exceptions'] },
    });
    expect(r.status, r.text).toBe(200);
    const entries = await trail(client.client_id);
    expect(entries.map((e) => e.action).sort()).toEqual(['oauth_client.created', 'oauth_client.updated']);
    expect(entries.find((e) => e.action === 'oauth_client.updated')?.changes).toEqual(['scopes']);
  });
});
