import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { ACME, useSandbox } from '../../helpers/sandbox.js';

// A listing of svc's own (`svc roles assignments --ndjson`) as a bulk file (review20c): the fields
// that say what was — the tenant it was of, the old grant's reason and expiry, its status — are not
// taken as what to do, and a row that names two users is refused as two roles are.

const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
const LABS = tenantId('acme-labs');
const FIX_REVOKE =
  'error: 1 line of stdin has problems; nothing was sent; fix them and run the command again (columns: user, role)\n';
const FIX_ASSIGN =
  'error: 1 line of stdin has problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n';
const row = (fields: Record<string, unknown>) => `${JSON.stringify(fields)}\n`;

describe('result rows of a run piped back (review20d D1)', () => {
  it('name their tenant, so an undo in another tenant (--tenant forgotten) is refused, nothing revoked', async () => {
    const path = svc.file('labs.csv', `user,role\n${bulkUser(3)},tenant_viewer\n`);
    const made = await svc.run([
      'roles',
      'assign',
      '--file',
      path,
      '--tenant',
      LABS,
      '--expires-in',
      '1h',
      '--justification',
      'labs',
      '--ndjson',
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).tenant_id).toBe(LABS);
    const undo = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], { stdin: made.stdout });
    expect([undo.code, undo.stderr]).toEqual([
      2,
      `stdin:1: the row is of tenant ${LABS} (its tenant_id), not of this run's tenant ${ACME}: to revoke in ${LABS}, pass --tenant ${LABS}; to revoke in ${ACME}, drop the field: jq -c 'if type == "array" then .[] else . end | del(.tenant_id)'\n${FIX_REVOKE}`,
    ]);
    const right = await svc.run(['roles', 'revoke', '--file', '-', '--yes', '--tenant', LABS], {
      stdin: made.stdout,
    });
    expect(right.code, right.stderr).toBe(0);
  });
});

describe('a listing row of another tenant (review20c F1)', () => {
  it('is refused by roles revoke --file, naming both tenants and --tenant, before anything is sent', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      stdin: row({ user_id: bulkUser(1), role_id: 'tenant_viewer', tenant_id: LABS, status: 'active' }),
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin:1: the row is of tenant ${LABS} (its tenant_id), not of this run's tenant ${ACME}: to revoke in ${LABS}, pass --tenant ${LABS}; to revoke in ${ACME}, drop the field: jq -c 'if type == "array" then .[] else . end | del(.tenant_id)'\n${FIX_REVOKE}`,
    ]);
  });

  it('is refused by roles assign --file as well (a copy to this tenant drops the field)', async () => {
    const r = await svc.run(
      ['roles', 'assign', '--file', '-', '--dry-run', '--expires-in', '1h', '--justification', 'copy'],
      { stdin: row({ user_id: bulkUser(2), role_id: 'tenant_viewer', tenant_id: LABS }) },
    );
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin:1: the row is of tenant ${LABS} (its tenant_id), not of this run's tenant ${ACME}: to grant in ${LABS}, pass --tenant ${LABS}; to grant in ${ACME}, drop the field: jq -c 'if type == "array" then .[] else . end | del(.tenant_id)'\n${FIX_ASSIGN}`,
    ]);
  });

  it("a row of the run's own tenant is read, the tenant given by its slug or its id in upper case", async () => {
    const name = 'listing-own-tenant';
    await customRole(sandbox(), name);
    for (const [tenant, id] of [
      ['acme-treasury', ACME],
      [ACME, ACME.toUpperCase()],
    ]) {
      const r = await svc.run(
        ['roles', 'assign', '--file', '-', '--dry-run', '--tenant', tenant!, '--expires-in', '1h'],
        { stdin: row({ user_id: bulkUser(3), role_id: name, tenant_id: id, justification: 'j' }) },
      );
      expect([r.code, r.stderr]).toEqual([
        0,
        'dry run: 1 would be granted, 0 would be skipped, 0 would fail; nothing was changed\n',
      ]);
    }
  });
});

describe("a listing row's expires_at and justification (review20c F2)", () => {
  const listed = (user: string, role: string) =>
    row({
      user_id: user,
      role_id: role,
      role_name: role,
      assigned_by: 'usr_admin',
      assigned_at: '2026-01-01T00:00:00Z',
      expires_at: '2099-01-01T00:00:00Z',
      justification: 'the old reason',
      status: 'active',
    });

  it("are the old grant's: the typed --expires-in and --justification are the new grant's", async () => {
    const name = 'listing-old-grant';
    await customRole(sandbox(), name);
    const r = await svc.run(
      ['roles', 'assign', '--file', '-', '--expires-in', '2h', '--justification', 'CHG-99 copy', '--yes'],
      { stdin: listed(bulkUser(4), name) },
    );
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/^✓ 1 granted in /)]);
    const held = await svc.run(['roles', 'assignments', bulkUser(4), '--ndjson']);
    const grant = JSON.parse(held.stdout.trim()) as { justification: string; expires_at: string };
    expect(grant.justification).toBe('CHG-99 copy');
    expect(grant.expires_at).not.toBe('2099-01-01T00:00:00Z');
  });

  it('without the flags, the row is refused: they are what a grant of it needs', async () => {
    const name = 'listing-no-flags';
    await customRole(sandbox(), name);
    const r = await svc.run(['roles', 'assign', '--file', '-', '--dry-run'], {
      stdin: listed(bulkUser(5), name),
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin:1: a listing's expires_at and justification are its grant's, not this one's: pass --expires-in (or --expires-at) and --justification\n${FIX_ASSIGN}`,
    ]);
  });
});

describe('a listing row whose status svc does not know (review20c F9)', () => {
  it.each([
    [
      'suspended',
      `the assignment's status "suspended" is not one svc knows (active, expired, revoked, role_deleted): it may grant nothing; keep the active ones: jq -c 'select(.status == "active")'`,
    ],
    [
      'Revoked',
      `the assignment is revoked (its status): it grants nothing to copy; keep the active ones: jq -c 'select(.status == "active")'`,
    ],
  ])('status %j is refused by a grant file, not granted', async (status, problem) => {
    const r = await svc.run(
      ['roles', 'assign', '--file', '-', '--dry-run', '--expires-in', '1h', '--justification', 'x'],
      { stdin: row({ user_id: bulkUser(6), role_id: 'tenant_compliance', status }) },
    );
    expect([r.code, r.stderr]).toEqual([2, `stdin:1: ${problem}\n${FIX_ASSIGN}`]);
  });

  it('ACTIVE in another case, and a result row of svc (status ok), are granted', async () => {
    const name = 'listing-active-case';
    await customRole(sandbox(), name);
    for (const [n, status] of [
      [7, 'ACTIVE'],
      [8, 'ok'],
    ] as const) {
      const r = await svc.run(
        ['roles', 'assign', '--file', '-', '--dry-run', '--expires-in', '1h', '--justification', 'x'],
        { stdin: row({ user_id: bulkUser(n), role_id: name, status }) },
      );
      expect([r.code, r.stderr]).toEqual([
        0,
        'dry run: 1 would be granted, 0 would be skipped, 0 would fail; nothing was changed\n',
      ]);
    }
  });
});

describe('a row naming two users (review20c F11)', () => {
  it('user and user_id that differ are refused, not one picked', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--dry-run'], {
      stdin: row({ user: bulkUser(9), user_id: bulkUser(10), role: 'tenant_viewer' }),
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin:1: user "${bulkUser(9)}" and user_id "${bulkUser(10)}" are not one user; keep one\n${FIX_REVOKE}`,
    ]);
  });

  it('the same user under both names is one user', async () => {
    const name = 'listing-one-user';
    await customRole(sandbox(), name);
    const r = await svc.run(
      ['roles', 'assign', '--file', '-', '--dry-run', '--expires-in', '1h', '--justification', 'x'],
      { stdin: row({ user: bulkUser(11), user_id: bulkUser(11), role: name }) },
    );
    expect([r.code, r.stderr]).toEqual([
      0,
      'dry run: 1 would be granted, 0 would be skipped, 0 would fail; nothing was changed\n',
    ]);
  });
});
