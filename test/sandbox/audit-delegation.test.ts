import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { runInProcess } from '../helpers/context.js';
import { codeTokens, createClient, TREASURY } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

// Session 15 (attack15 F7): a user authorizing a tenant's third-party OAuth client (even with
// `admin` scope), the client revoking those tokens, and a webhook test event left no audit entry.
const sandbox = useSandbox();
const admin = () => ({ token: sandbox().adminToken, tenant: TREASURY });
const trail = async (action: string) =>
  (await call(sandbox(), 'GET', `/v1/audit_trail?action=${action}&limit=200`, admin())).body.items;
const pick = (e: any) => ({
  action: e.action,
  actor: e.actor,
  client_id: e.client_id,
  target: `${e.target_type} ${e.target_id}`,
  user_id: e.user_id,
  summary: e.summary,
  after: e.after,
});

describe('delegations and test events are audited', () => {
  it("a user's approval of a third-party client and its tokens revoked: oauth_client.authorized, oauth_client.token_revoked", async () => {
    const client = await createClient(sandbox(), { name: 'Vendor c3', scopes: ['read:exceptions', 'admin'] });
    const tokens = await codeTokens(sandbox(), client, { scope: 'admin', user: 'usr_admin' });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const revoke = () =>
      fetch(`${sandbox().url}/v1/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: client.client_id,
          client_secret: client.client_secret,
          token: tokens.body.refresh_token,
        }).toString(),
      });
    expect((await revoke()).status).toBe(200);
    // Revoked again: nothing more to revoke, no second entry.
    await revoke();
    const entries = (await trail('oauth_client'))
      .filter((e: any) => e.target_id === client.client_id)
      .map(pick);
    expect(entries.slice(1)).toEqual([
      {
        action: 'oauth_client.authorized',
        actor: 'usr_admin',
        client_id: undefined,
        target: `oauth_client ${client.client_id}`,
        user_id: 'usr_admin',
        summary: `usr_admin authorized OAuth client ${client.client_id} (Vendor c3) for admin (authorization code flow)`,
        after: { scopes: ['admin'], flow: 'authorization_code' },
      },
      {
        action: 'oauth_client.token_revoked',
        actor: client.client_id,
        client_id: undefined,
        target: `oauth_client ${client.client_id}`,
        user_id: 'usr_admin',
        summary: `OAuth client ${client.client_id} (Vendor c3) revoked the tokens usr_admin gave it (admin; RFC 7009)`,
        after: { scopes: ['admin'] },
      },
    ]);
    expect(entries[0].action).toBe('oauth_client.created');
  });

  it('a webhook test event: webhook.test_sent, and svc audit ls shows it', async () => {
    const id = SEEDED_WEBHOOKS.exceptions;
    const sent = await call(sandbox(), 'POST', `/v1/webhooks/${id}/test`, {
      ...admin(),
      body: { event_type: 'exception.created', idempotency_key: 'audit-test-1' },
    });
    expect(sent.status, sent.text).toBe(201);
    const [entry] = await trail('webhook.test_sent');
    expect(pick(entry)).toEqual({
      action: 'webhook.test_sent',
      actor: 'usr_admin',
      client_id: undefined,
      target: `webhook ${id}`,
      user_id: null,
      summary: expect.stringMatching(
        new RegExp(
          `^test event ${sent.body.event.id} \\(exception\\.created\\) sent to webhook ${id} \\(https?://\\S+\\)$`,
        ),
      ),
      after: {
        event_id: sent.body.event.id,
        event_type: 'exception.created',
        delivery_id: sent.body.delivery.id,
      },
    });
    const dir = (p: string) => tempDir(`svc-audit-${p}`);
    const r = await runInProcess(['audit', 'ls', '--action', 'webhook.test_sent'], {
      SVC_CONFIG_DIR: dir('c-'),
      SVC_STATE_DIR: dir('s-'),
      SVC_CACHE_DIR: dir('k-'),
      SVC_BASE_URL: sandbox().url,
      SVC_TOKEN: sandbox().adminToken,
      SVC_TENANT: TREASURY,
      NO_COLOR: '1',
    });
    expect(r.code, r.stderr).toBe(0);
    const row = r.stdout.trim().split('\n').at(-1)!.split('\t');
    expect(row.slice(2, 5)).toEqual(['webhook.test_sent', 'usr_admin', entry.summary]);
    expect(row.at(-1)).toBe(
      `event_id "${sent.body.event.id}"; event_type "exception.created"; delivery_id "${sent.body.delivery.id}"`,
    );
  });
});
