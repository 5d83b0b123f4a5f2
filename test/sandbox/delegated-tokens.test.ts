import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { CLI_CLIENT_ID } from '../../src/sandbox/domain/oauth.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { codeTokens, createClient, TREASURY } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// Session 12 (isolation12): a third-party OAuth client's token, approved by a tenant_admin with
// the admin scope, minted a permanent service-role key that outlived the client, credited to the
// admin alone; and a cross-organisation request on the key routes that also sent X-Tenant-Id was
// refused tenant_mismatch before it could be logged.
const sandbox = useSandbox();
const keysPath = `/v1/tenants/${TREASURY}/api-keys`;
let n = 0;
const key = () => `delegated-${++n}`;

/** An access token with the admin scope, approved by usr_admin, of `clientId` (secret: confidential). */
async function adminToken(client: { client_id: string; client_secret?: string }): Promise<string> {
  const tokens = await codeTokens(sandbox(), client, { scope: 'admin' });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return tokens.body.access_token;
}

const vendor = async () => {
  const client = await createClient(sandbox(), { scopes: ['admin'] });
  return { client, token: await adminToken(client) };
};

/** A service-role key the admin issues with their own login. */
const serviceKey = () =>
  call(sandbox(), 'POST', keysPath, {
    token: sandbox().adminToken,
    tenant: TREASURY,
    body: {
      kind: 'service_role',
      name: 'ci',
      justification: 'nightly reconciliation job',
      idempotency_key: key(),
    },
  });

const issue = (token: string) =>
  call(sandbox(), 'POST', keysPath, {
    token,
    tenant: TREASURY,
    body: {
      kind: 'service_role',
      name: 'vendor-sync',
      justification: 'nightly vendor sync',
      idempotency_key: key(),
    },
  });

describe("a third-party client's token does not mint credentials that outlive it", () => {
  it('issuing, listing or revoking API keys with it is 403 user_required naming the client; nothing is issued', async () => {
    const { client, token } = await vendor();
    const before = sandbox().state.identity.apiKeysOf(TREASURY).length;
    const refusal = {
      status: 403,
      code: 'user_required',
      message: `managing API keys is for users themselves, not an OAuth client acting for one (this token is ${client.client_id}'s): an API key would outlive the client; ask the user to do it with their own login`,
    };
    const issued = await issue(token);
    expect({ status: issued.status, ...issued.body.error, request_id: undefined }).toEqual({
      ...refusal,
      message: refusal.message.replace('managing API keys', 'issuing API keys'),
      request_id: undefined,
    });
    expect(sandbox().state.identity.apiKeysOf(TREASURY).length).toBe(before);
    // Listing and revoking mint nothing: the refusal says what it is, the platform's choice
    // (review-c f3), not that a key would outlive the client.
    const managed = (verb: string) =>
      `${verb} API keys is for users themselves, not an OAuth client acting for one (this token is ${client.client_id}'s): ` +
      'API keys are managed by users with their own login only; ask the user to do it with their own login';
    const listed = await call(sandbox(), 'GET', keysPath, { token, tenant: TREASURY });
    expect([listed.status, listed.body.error?.code, listed.body.error?.message]).toEqual([
      403,
      'user_required',
      managed('listing'),
    ]);
    const revoked = await call(sandbox(), 'DELETE', `${keysPath}/key_000000000000000000000000`, {
      token,
      tenant: TREASURY,
    });
    expect([revoked.status, revoked.body.error?.code, revoked.body.error?.message]).toEqual([
      403,
      'user_required',
      managed('revoking'),
    ]);
  });

  // Session 17 (attack17 A4): the same token, or a service-role key, created an admin-scope
  // client with its secret, rotated another integration's secret, added its own redirect URI to
  // it, and rotated a webhook's signing secret; all of it stayed after the client was deleted or
  // the key revoked.
  /** What a refusal says of the credential a call came through: its words, and what outlives what. */
  const throughClient = async () => {
    const { client, token } = await vendor();
    return {
      token,
      refusal: (action: string, mints: string) =>
        `${action} is for users themselves, not an OAuth client acting for one (this token is ${client.client_id}'s): ` +
        `${mints} would outlive the client; ask the user to do it with their own login`,
    };
  };
  const throughKey = async () => ({
    token: (await serviceKey()).body.key as string,
    refusal: (action: string, mints: string) =>
      `${action} is for users; API keys cannot do it: ${mints} would outlive the key; ask a user to do it with their own login`,
  });
  const webhookId = SEEDED_WEBHOOKS.exceptions;
  const changes: Array<[string, string, (client: string) => [string, string, Record<string, unknown>]]> = [
    [
      'creating OAuth clients',
      'an OAuth client and its secret',
      () => [
        'POST',
        '/v1/oauth/clients',
        { name: 'minted-by-vendor', redirect_uris: ['https://vendor.example/cb2'], scopes: ['admin'] },
      ],
    ],
    [
      'rotating the secret of an OAuth client',
      "a client's new secret",
      (c) => ['POST', `/v1/oauth/clients/${c}/rotate-secret`, {}],
    ],
    [
      'changing OAuth clients',
      "a client's settings (where its codes go, what its tokens reach, how long they last)",
      (c) => [
        'PATCH',
        `/v1/oauth/clients/${c}`,
        { redirect_uris: ['https://second.example/cb', 'https://vendor.example/steal'] },
      ],
    ],
    // review18 R18-4: a rename changes no redirect URI nor scope; the words say what any change is.
    [
      'changing OAuth clients',
      "a client's settings (where its codes go, what its tokens reach, how long they last)",
      (c) => ['PATCH', `/v1/oauth/clients/${c}`, { name: 'renamed-by-vendor' }],
    ],
    [
      'rotating the secret of a webhook',
      "a webhook's new signing secret",
      () => ['POST', `/v1/webhooks/${webhookId}/rotate-secret`, {}],
    ],
    // review18 R18-7: undoing a rotation puts a secret back into use.
    [
      'restoring the previous secret of a webhook',
      "a webhook's earlier signing secret",
      () => ['POST', `/v1/webhooks/${webhookId}/restore-secret`, {}],
    ],
  ];
  describe.each([
    ['a third-party client', throughClient],
    ['a service-role API key', throughKey],
  ])('through %s, no standing credential is minted or re-pointed', (_, through) => {
    it.each(changes)('%s is 403 user_required, and nothing changes', async (action, mints, request) => {
      const { token, refusal } = await through();
      const second = await createClient(sandbox(), {
        name: 'second',
        redirect_uris: ['https://second.example/cb'],
      });
      const [method, path, body] = request(second.client_id);
      const now = () =>
        JSON.stringify([
          [...sandbox().state.oauth.clients.values()],
          sandbox().state.webhooks.byId(webhookId),
        ]);
      const before = now();
      const r = await call(sandbox(), method, path, {
        token,
        tenant: TREASURY,
        body: method === 'POST' ? { ...body, idempotency_key: key() } : body,
      });
      expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
        403,
        'user_required',
        refusal(action, mints),
      ]);
      expect(now()).toBe(before);
    });
  });

  it("the user's own login (the first-party svc-cli client, or a JWT) still issues keys", async () => {
    const viaCli = await adminToken({ client_id: CLI_CLIENT_ID });
    const r = await issue(viaCli);
    expect(r.status, r.text).toBe(201);
    const own = await issue(sandbox().adminToken);
    expect(own.status, own.text).toBe(201);
  });

  it('the audit trail names the client a change was made through, beside the user it acted for', async () => {
    const { client, token } = await vendor();
    const made = await call(sandbox(), 'POST', '/v1/webhooks', {
      token,
      tenant: TREASURY,
      body: {
        url: 'https://vendor.example/hook',
        event_types: ['exception.created'],
        idempotency_key: key(),
      },
    });
    expect(made.status, made.text).toBe(201);
    const entries = await call(sandbox(), 'GET', '/v1/audit_trail', {
      token: sandbox().adminToken,
      tenant: TREASURY,
    });
    const entry = entries.body.items.find((e: { target_id: string }) => e.target_id === made.body.id);
    expect(entry).toMatchObject({
      action: 'webhook.created',
      actor: 'usr_admin',
      client_id: client.client_id,
    });
    // The user's own JWT: no client between them and the change.
    const own = await call(sandbox(), 'DELETE', `/v1/webhooks/${made.body.id}`, {
      token: sandbox().adminToken,
      tenant: TREASURY,
    });
    expect(own.status, own.text).toBe(200);
    const after = await call(sandbox(), 'GET', '/v1/audit_trail', {
      token: sandbox().adminToken,
      tenant: TREASURY,
      headers: {},
    });
    const deleted = after.body.items.find(
      (e: { target_id: string; action: string }) =>
        e.target_id === made.body.id && e.action === 'webhook.deleted',
    );
    expect(deleted.actor).toBe('usr_admin');
    expect(deleted).not.toHaveProperty('client_id');
  });
});

describe('a cross-organisation request on the key routes is logged, X-Tenant-Id or not', () => {
  const wayne = tenantId('wayne-clearing');
  const events = () => sandbox().state.securityEvents.filter((e) => e.actor === 'usr_bruce');

  it.each([
    ['GET', keysPath, wayne],
    ['POST', keysPath, wayne],
    ['DELETE', `${keysPath}/key_000000000000000000000000`, wayne],
    ['GET', `/v1/tenants/${wayne}/api-keys`, TREASURY],
  ])(
    '%s %s with X-Tenant-Id %s: 403 tenant_forbidden, written as cross_org_denied',
    async (method, path, header) => {
      const bruce = sandbox().issueToken('usr_bruce').token;
      const before = events().length;
      const r = await call(sandbox(), method, path, {
        token: bruce,
        tenant: header,
        ...(method === 'POST' ? { body: { kind: 'publishable', name: 'x', idempotency_key: key() } } : {}),
      });
      expect([r.status, r.body.error.code, r.body.error.message]).toEqual([
        403,
        'tenant_forbidden',
        `tenant ${TREASURY} is not one of your credential's tenants`,
      ]);
      expect(
        events()
          .slice(before)
          .map((e) => [e.kind, e.tenant_ids]),
      ).toEqual([['cross_org_denied', [TREASURY]]]);
    },
  );

  it('two tenants of the credential that differ are still 400 tenant_mismatch (nothing crossed)', async () => {
    const before = sandbox().state.securityEvents.length;
    const labs = tenantId('acme-labs');
    const r = await call(sandbox(), 'GET', keysPath, { token: sandbox().adminToken, tenant: labs });
    expect([r.status, r.body.error.code]).toEqual([400, 'tenant_mismatch']);
    expect(sandbox().state.securityEvents.length).toBe(before);
  });
});
