import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import { BadRequestError, ConflictError } from '../../src/http/errors.js';
import {
  AssignmentExistsError,
  AssignmentNotFoundError,
  BuiltinRoleImmutableError,
  RoleNameTakenError,
  RoleNotFoundError,
  UnknownPermissionError,
  UserNotFoundError,
} from '../../src/platform/errors.js';
import { usePlatform } from '../helpers/platform.js';
import { useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const client = usePlatform(sandbox);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('platform.roles', () => {
  it('lists one page, or every role across pages', async () => {
    const { platform } = client();
    const page = await platform.roles.list({ limit: 3 });
    expect(page.items.map((r) => r.id)).toEqual(['tenant_admin', 'tenant_reviewer', 'tenant_lead']);
    expect(typeof page.next_cursor).toBe('string');
    const all: string[] = [];
    for await (const role of platform.roles.listAll({ limit: 3, kind: 'builtin' })) all.push(role.id);
    expect(all.length).toBeGreaterThan(3);
    expect(all).toEqual([...new Set(all)]);
    expect(all).toContain('tenant_ai_prompter');
  });

  it('creates, reads, updates and deletes a custom role', async () => {
    const { platform } = client();
    const created = await platform.roles.create({ name: 'platform-desk', permissions: ['exception.read'] });
    expect(created).toMatchObject({ name: 'platform-desk', kind: 'custom', permissions: ['exception.read'] });
    expect((await platform.roles.get(created.id)).name).toBe('platform-desk');
    const updated = await platform.roles.update(created.id, { add_permissions: ['rule.read'] });
    expect(updated.permissions).toEqual(['exception.read', 'rule.read']);
    const deleted = await platform.roles.delete(created.id);
    expect(deleted.deleted_at).toEqual(expect.any(String));
  });

  it('grants and revokes, and lists what a user holds', async () => {
    const { platform } = client();
    const granted = await platform.roles.assign('usr_viewer', {
      role_id: 'tenant_auditor',
      justification: 'platform client test',
    });
    expect(granted).toMatchObject({ user_id: 'usr_viewer', role_id: 'tenant_auditor', status: 'active' });
    const held = await platform.roles.listAssignments('usr_viewer');
    expect(held.items.map((a) => a.role_id)).toContain('tenant_auditor');
    const revoked = await platform.roles.revoke('usr_viewer', 'tenant_auditor');
    expect(revoked.status).toBe('revoked');
    const all = await platform.roles.listAssignments('usr_viewer', { include_inactive: true });
    expect(all.items.find((a) => a.role_id === 'tenant_auditor')?.status).toBe('revoked');
  });

  it('reports a replayed grant (same idempotency key) through withResponse()', async () => {
    const { platform } = client();
    const body = { role_id: 'tenant_compliance', justification: 'replay test' };
    const first = await platform.roles
      .assign('usr_lead', body, { idempotencyKey: 'platform-replay-1' })
      .withResponse();
    const again = await platform.roles
      .assign('usr_lead', body, { idempotencyKey: 'platform-replay-1' })
      .withResponse();
    expect(first.response.status).toBe(201);
    expect(first.response.replayed).toBe(false);
    expect(first.response.requestId).toMatch(/\S/);
    expect(again.response.replayed).toBe(true);
    expect(again.data.audit_trail_id).toBe(first.data.audit_trail_id);
    await platform.roles.revoke('usr_lead', 'tenant_compliance');
  });

  it('answers a second grant of a held role with AssignmentExistsError carrying the assignment', async () => {
    const { platform } = client();
    const body = { role_id: 'tenant_rule_author', justification: 'first' };
    const first = await platform.roles.assign('usr_analyst', body);
    const error = await rejection(platform.roles.assign('usr_analyst', { ...body, justification: 'second' }));
    expect(error).toBeInstanceOf(AssignmentExistsError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(exitCodeFor(error)).toBe(6);
    const existing = (error as AssignmentExistsError).assignment;
    expect(existing?.audit_trail_id).toBe(first.audit_trail_id);
    expect((error as AssignmentExistsError).requestId).toMatch(/\S/);
    await platform.roles.revoke('usr_analyst', 'tenant_rule_author');
  });

  it.each([
    ['an unknown role', (p: any) => p.roles.get('no-such-role'), RoleNotFoundError, 5],
    [
      'an unknown role to update',
      (p: any) => p.roles.update('role_nope', { name: 'x-y' }),
      RoleNotFoundError,
      5,
    ],
    [
      'a revoke of a role not held',
      (p: any) => p.roles.revoke('usr_viewer', 'tenant_lead'),
      AssignmentNotFoundError,
      5,
    ],
    ['the roles of an unknown user', (p: any) => p.roles.listAssignments('usr_nobody'), UserNotFoundError, 5],
    [
      'a change to a built-in role',
      (p: any) => p.roles.delete('tenant_viewer'),
      BuiltinRoleImmutableError,
      4,
    ],
    [
      'a permission outside the catalog',
      (p: any) => p.roles.create({ name: 'bad-perm', permissions: ['nope.nothing'] }),
      UnknownPermissionError,
      2,
    ],
    [
      'a name kept for built-in roles',
      (p: any) => p.roles.create({ name: 'tenant_admin', permissions: ['exception.read'] }),
      BadRequestError,
      2,
    ],
  ])('types %s', async (_what, call, type, exit) => {
    const error = await rejection(call(client().platform));
    expect(error).toBeInstanceOf(type);
    expect(exitCodeFor(error)).toBe(exit);
  });

  it('types a taken custom name as RoleNameTakenError', async () => {
    const { platform } = client();
    const role = await platform.roles.create({ name: 'taken-once', permissions: ['exception.read'] });
    const error = await rejection(platform.roles.create({ name: 'taken-once', permissions: ['rule.read'] }));
    expect(error).toBeInstanceOf(RoleNameTakenError);
    expect(exitCodeFor(error)).toBe(6);
    await platform.roles.delete(role.id);
  });
});
