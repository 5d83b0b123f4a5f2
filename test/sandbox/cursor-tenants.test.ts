/**
 * A cursor is bound to the tenant it was issued in: sent with another X-Tenant-Id, every
 * tenant-scoped list refuses it (400 invalid_cursor, "another tenant", no tenant id), where it
 * used to page the other tenant from the first one's position (an empty list, "no more items").
 */
import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const TREASURY = tenantId('acme-treasury');
const LABS = tenantId('acme-labs');
let keys = 0;

const as = (tenant: string, method: string, path: string, body?: Record<string, unknown>) =>
  call(sandbox(), method, path, {
    token: sandbox().adminToken,
    tenant,
    ...(body === undefined ? {} : { body: { ...body, idempotency_key: `cursor-tenants-${++keys}` } }),
  });

describe('a cursor of another tenant', () => {
  it.each([
    ['records', (_labsWebhook: string) => '/v1/accounts', '/v1/accounts'],
    ['roles', () => '/v1/roles', '/v1/roles'],
    ['webhooks', () => '/v1/webhooks', '/v1/webhooks'],
    [
      'deliveries',
      (labsWebhook: string) => `/v1/webhooks/${labsWebhook}/deliveries`,
      `/v1/webhooks/${SEEDED_WEBHOOKS.exceptions}/deliveries`,
    ],
    [
      'dead-letter entries',
      (labsWebhook: string) => `/v1/webhooks/${labsWebhook}/dlq`,
      `/v1/webhooks/${SEEDED_WEBHOOKS.exceptions}/dlq`,
    ],
    ['audit trail', () => '/v1/audit_trail', '/v1/audit_trail'],
    ['users', () => '/v1/users', '/v1/users'],
    ['role assignments', () => '/v1/role-assignments', '/v1/role-assignments'],
  ])('%s: refused with invalid_cursor naming "another tenant"', async (_what, labsPath, treasuryPath) => {
    // Both tenants hold items, so a cursor taken across would page something.
    for (const tenant of [TREASURY, LABS]) {
      for (const n of [1, 2, 3]) await as(tenant, 'POST', '/v1/accounts', { n });
    }
    const labsWebhook = await as(LABS, 'POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/labs',
      event_types: ['exception.created'],
    });
    expect(labsWebhook.status, labsWebhook.text).toBe(201);
    const first = await as(TREASURY, 'GET', `${treasuryPath}?limit=1`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.next_cursor, first.text).toEqual(expect.any(String));
    const cursor = first.body.next_cursor as string;
    expect(Buffer.from(cursor, 'base64url').toString('utf8')).not.toContain(TREASURY);

    const path = labsPath(labsWebhook.body.id);
    const refused = await as(LABS, 'GET', `${path}?limit=1&cursor=${cursor}`);
    expect([refused.status, refused.body.error?.code], refused.text).toEqual([400, 'invalid_cursor']);
    expect(refused.body.error.message).toBe(
      'the cursor was issued for another tenant; list this tenant without a cursor, or use the cursor with the tenant it came from',
    );
    expect(refused.body.error.details).toEqual([{ field: 'cursor', message: 'belongs to another tenant' }]);
    expect(refused.text).not.toContain(TREASURY);
    // In its own tenant it still pages.
    expect((await as(TREASURY, 'GET', `${treasuryPath}?limit=1&cursor=${cursor}`)).status).toBe(200);
  });
});
