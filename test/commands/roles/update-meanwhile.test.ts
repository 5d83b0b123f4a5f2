import { describe, expect, it } from 'vitest';
import { parseRolesUpdate, runRolesUpdate } from '../../../src/commands/roles/update.js';
import { ACME, call, useSandboxContext } from '../../helpers/sandbox.js';

// Two admins at once (attack28b F4): another admin changes the role while this `roles update` is in
// flight (its PATCH held by the sandbox until the other change is done: no timing). svc says only
// what its own request changed, and the other change apart, as someone else's.
const svc = useSandboxContext({ users: 3 });
const admin = (method: string, path: string, body: Record<string, unknown>) =>
  call(svc.sandbox(), method, path, { token: svc.sandbox().adminToken, tenant: ACME, body });

describe('svc roles update while another admin changes the role', () => {
  it('credits itself only with what it sent, and names the other change', async () => {
    const made = await admin('POST', '/v1/roles', {
      name: 'fx-meanwhile',
      permissions: ['exception.read'],
      idempotency_key: 'meanwhile-role',
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id as string;
    const granted = await admin('POST', '/v1/users/usr_bulk_000002/roles', {
      role_id: id,
      idempotency_key: 'meanwhile-grant',
    });
    expect(granted.status, granted.text).toBe(201);
    const held = svc.sandbox().faults.hold((method, url) => method === 'PATCH' && url === `/v1/roles/${id}`);
    try {
      const { ctx, stderr } = svc.context({ tty: true });
      const updating = runRolesUpdate(
        ctx,
        parseRolesUpdate('fx-meanwhile', { addPermission: ['exception.assign'] }),
      );
      await held.arrived;
      const other = await admin('PATCH', `/v1/roles/${id}`, { add_permissions: ['rule.read'] });
      expect(other.status, other.text).toBe(200);
      held.release();
      await updating;
      expect(stderr()).toBe(
        `✓ role fx-meanwhile (${id}) in ${ACME} now has exception.assign; its 1 holder gains exception.assign\n` +
          `warning: role fx-meanwhile (${id}) also has rule.read, which this command did not send: someone else changed it since svc read it\n`,
      );
    } finally {
      held.release();
    }
  });

  // Both admins add the same permission (session 28's leftover): this command's PATCH, held until
  // the other admin's has added it, changes nothing. The answer is the same as if it had added it,
  // and the platform's answer names no actor: svc says what is known, that the role has it now,
  // never "updated" (the audit trail has only the other admin's entry).
  it('does not say it updated the role when the other admin added the same permission first', async () => {
    const made = await admin('POST', '/v1/roles', {
      name: 'fx-both',
      permissions: ['exception.read'],
      idempotency_key: 'both-role',
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id as string;
    const held = svc.sandbox().faults.hold((method, url) => method === 'PATCH' && url === `/v1/roles/${id}`);
    try {
      const { ctx, stdout, stderr } = svc.context({ tty: true });
      const updating = runRolesUpdate(ctx, parseRolesUpdate('fx-both', { addPermission: ['rule.write'] }));
      await held.arrived;
      const other = await admin('PATCH', `/v1/roles/${id}`, { add_permissions: ['rule.write'] });
      expect(other.status, other.text).toBe(200);
      held.release();
      await updating;
      expect(stderr()).toBe(`✓ role fx-both (${id}) in ${ACME} now has rule.write; nobody holds it\n`);
      expect(stdout()).toContain('rule.write');
      const audit = await call(svc.sandbox(), 'GET', `/v1/audit_trail?target_id=${id}&action=role.updated`, {
        token: svc.sandbox().adminToken,
        tenant: ACME,
      });
      expect((audit.body.items as unknown[]).length, audit.text).toBe(1);
    } finally {
      held.release();
    }
  });
});
