import { describe, expect, it } from 'vitest';
import { RoleAssignment } from '../../src/api/schemas/roles.js';
import { exitCodeFor } from '../../src/errors.js';
import { BadRequestError } from '../../src/http/errors.js';
import { findMismatch, type JsonSchema } from '../../src/platform/check.js';
import {
  AssignmentNotFoundError,
  AuditEntryNotFoundError,
  InvalidExpiryError,
  OAuthClientNotFoundError,
  RoleNotFoundError,
  UserNotFoundError,
  WebhookNotFoundError,
} from '../../src/platform/errors.js';
import { clientView, SCHEMA_REFS } from '../../src/platform/schemas.js';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { usePlatform } from '../helpers/platform.js';
import { useSandbox } from '../helpers/sandbox.js';

// The platform client methods of the operations issue 13 adds (issue 14's export/plan/apply
// build on them): each one against the sandbox, its typed errors, its answer checked.
const sandbox = useSandbox({ users: 20 });
const client = usePlatform(sandbox);
const DAY = 24 * 3600 * 1000;
const inDays = (n: number) => new Date(Date.now() + n * DAY).toISOString().replace(/\.\d+Z$/, 'Z');

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('platform.roles: holders, every assignment, expiry changes, the catalog', () => {
  it('lists a role’s holders and every assignment of the tenant, across pages', async () => {
    const { platform } = client();
    for (const user of ['usr_bulk_000001', 'usr_bulk_000002', 'usr_bulk_000003'])
      await platform.roles.assign(user, { role_id: 'tenant_compliance', justification: 'holders' });
    const page = await platform.roles.listTenantAssignments({ role_id: 'tenant_compliance', limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(typeof page.next_cursor).toBe('string');
    const holders: string[] = [];
    for await (const a of platform.roles.listAllTenantAssignments({ role_id: 'tenant_compliance', limit: 2 }))
      holders.push(a.user_id);
    expect(holders).toEqual(['usr_compliance', 'usr_bulk_000001', 'usr_bulk_000002', 'usr_bulk_000003']);
    let total = 0;
    for await (const a of platform.roles.listAllTenantAssignments({ limit: 3 })) {
      expect(a.status).toBe('active');
      total++;
    }
    expect(total).toBeGreaterThan(holders.length);
  });

  it('moves an expiry and names the audit entry it wrote', async () => {
    const { platform } = client();
    const granted = await platform.roles.assign('usr_bulk_000010', {
      role_id: 'tenant_viewer',
      expires_at: inDays(1),
      justification: 'short',
    });
    const later = inDays(14);
    const moved = await platform.roles
      .updateAssignment('usr_bulk_000010', 'tenant_viewer', { expires_at: later, justification: 'longer' })
      .withResponse();
    expect(moved.response.status).toBe(200);
    expect(moved.data).toMatchObject({ expires_at: later, audit_trail_id: granted.audit_trail_id });
    const entry = await platform.audit.get(moved.data.update_audit_trail_id as string);
    expect(entry).toMatchObject({
      action: 'role.assignment_updated',
      previous_expires_at: granted.expires_at,
    });
  });

  it('lists the permission catalog', async () => {
    const { platform } = client();
    const catalog = await platform.roles.permissions();
    expect(catalog.items.find((p) => p.name === 'role.assign')).toMatchObject({
      description: expect.stringContaining('Assign and revoke roles'),
      builtin_roles: ['tenant_admin'],
    });
  });

  it.each([
    [
      'holders of an unknown role',
      (p: any) => p.roles.listTenantAssignments({ role_id: 'no-such-role' }),
      RoleNotFoundError,
      5,
    ],
    [
      'assignments of an unknown user',
      (p: any) => p.roles.listTenantAssignments({ user_id: 'usr_nobody' }),
      UserNotFoundError,
      5,
    ],
    [
      'an expiry change of a role not held',
      (p: any) =>
        p.roles.updateAssignment('usr_viewer', 'tenant_lead', { expires_at: null, justification: 'x' }),
      AssignmentNotFoundError,
      5,
    ],
    [
      'an expiry in the past',
      (p: any) =>
        p.roles.updateAssignment('usr_viewer', 'tenant_viewer', {
          expires_at: '2001-01-01T00:00:00Z',
          justification: 'x',
        }),
      InvalidExpiryError,
      2,
    ],
  ])('answers %s with a typed error', async (_what, call, type, exit) => {
    const error = await rejection(call(client().platform));
    expect(error).toBeInstanceOf(type);
    expect(exitCodeFor(error)).toBe(exit);
  });
});

describe('platform.oauth.clients: update and delete', () => {
  it('updates a client and deletes it; a deleted client is not found', async () => {
    const { platform } = client();
    const created = await platform.oauth.clients.create({
      name: 'Portal',
      redirect_uris: ['https://portal.example/cb'],
      scopes: ['read:exceptions'],
    });
    const updated = await platform.oauth.clients.update(created.client_id, {
      description: 'the vendor portal',
      pkce_required: false,
    });
    expect(updated).toMatchObject({
      client_id: created.client_id,
      description: 'the vendor portal',
      pkce_required: false,
    });
    expect('client_secret' in updated).toBe(false);
    const bad = await rejection(
      platform.oauth.clients.update(created.client_id, { redirect_uris: ['http://x.example/'] }),
    );
    expect(bad).toBeInstanceOf(BadRequestError);
    const deleted = await platform.oauth.clients.delete(created.client_id);
    expect(deleted).toMatchObject({ client_id: created.client_id, deleted: true });
    expect(await rejection(platform.oauth.clients.get(created.client_id))).toBeInstanceOf(
      OAuthClientNotFoundError,
    );
    expect(await rejection(platform.oauth.clients.delete(created.client_id))).toBeInstanceOf(
      OAuthClientNotFoundError,
    );
  });
});

describe('platform.audit', () => {
  it('lists with filters, newest first across pages, and reads one entry', async () => {
    const { platform } = client();
    const granted = await platform.roles.assign('usr_bulk_000015', {
      role_id: 'tenant_viewer',
      justification: 'audit',
    });
    const page = await platform.audit.list({ user_id: 'usr_bulk_000015' });
    expect(page.items.map((e) => e.id)).toEqual([granted.audit_trail_id]);
    const newest: string[] = [];
    for await (const e of platform.audit.listAll({ order: 'desc', limit: 2, action: 'role' }))
      newest.push(e.action);
    expect(newest.length).toBeGreaterThan(2);
    expect(newest.every((a) => a.startsWith('role.'))).toBe(true);
    expect((await platform.audit.get(granted.audit_trail_id)).summary).toBe(
      'tenant_viewer granted to usr_bulk_000015 permanently',
    );
    expect(await rejection(platform.audit.get('aud_missing'))).toBeInstanceOf(AuditEntryNotFoundError);
  });
});

describe('platform.sandbox (the /_sandbox controls)', () => {
  it('emits events and makes a target fail, with no idempotency key', async () => {
    const { platform } = client();
    const webhook = SEEDED_WEBHOOKS.warehouse;
    const fault = await platform.sandbox.setTargetFault(webhook, { fault: 'status', status_code: 502 });
    expect(fault).toEqual({ webhook_id: webhook, fault: 'status', status_code: 502 });
    expect(await platform.sandbox.targetFault(webhook)).toEqual(fault);
    const emitted = await platform.sandbox.emitEvents({
      type: 'reconciliation.completed',
      webhook_id: webhook,
      count: 2,
    });
    expect(emitted).toMatchObject({ count: 2, deliveries: 2 });
    expect(emitted.events[0]!.delivery_ids).toHaveLength(1);
    await platform.sandbox.setTargetFault(webhook, { fault: 'none' });
    expect(await rejection(platform.sandbox.targetFault('wh_missing'))).toBeInstanceOf(WebhookNotFoundError);
  });
});

describe('the client view of an assignment', () => {
  it('needs only the reference’s fields, and checks the sandbox’s additions when present', () => {
    const view = clientView(RoleAssignment as JsonSchema);
    const reference = {
      user_id: 'u',
      role_id: 'r',
      role_name: 'r',
      assigned_by: 'a',
      assigned_at: '2026-01-01T00:00:00Z',
      expires_at: '2026-02-01T00:00:00Z',
      audit_trail_id: 'aud_1',
    };
    expect(findMismatch(view, reference, SCHEMA_REFS)).toBeUndefined();
    expect(findMismatch(view, { ...reference, update_audit_trail_id: 7 }, SCHEMA_REFS)).toMatchObject({
      path: 'update_audit_trail_id',
    });
    const { audit_trail_id: _, ...withoutAudit } = reference;
    expect(findMismatch(view, withoutAudit, SCHEMA_REFS)).toMatchObject({ path: 'audit_trail_id' });
  });
});
