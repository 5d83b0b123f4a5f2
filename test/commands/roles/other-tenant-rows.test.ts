import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { bulkRunner, bulkUser } from '../../helpers/bulk.js';
import { ACME, useSandbox } from '../../helpers/sandbox.js';

// A listing of another tenant piped to a bulk run (--tenant forgotten): its rows are refused, as
// review20c F1 has it, but said once for the tenant with the count and the first lines, not once a
// row (a 5,000-row listing printed 5,000 refusals). --json keeps a record per row in details.

const sandbox = useSandbox({ users: 8 });
const svc = bulkRunner(sandbox);
const LABS = tenantId('acme-labs');
const JQ = `jq -c 'if type == "array" then .[] else . end | del(.tenant_id)'`;
const listing = (n: number, extra: Record<string, unknown> = {}) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${JSON.stringify({ user_id: bulkUser(i + 1), role_id: 'tenant_viewer', tenant_id: LABS, ...extra })}\n`,
  ).join('');

describe('rows of another tenant (fix-list21 1)', () => {
  it('roles revoke --file: said once, with the count and the first lines; a row of its own problem still said', async () => {
    const stdin = `${listing(6)}${JSON.stringify({ user_id: bulkUser(1) })}\n`;
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], { stdin });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'stdin:7: missing role\n' +
        `stdin: lines 1, 2, 3 … and 3 more are of tenant ${LABS} (their tenant_id), not of this run's tenant ${ACME}: to revoke in ${LABS}, pass --tenant ${LABS}; to revoke in ${ACME}, drop the field: ${JQ}\n` +
        'error: 7 lines of stdin have problems; nothing was sent; fix them and run the command again (columns: user, role)\n',
    ]);
  });

  it('its custom roles, unknown in this tenant, are not said once a row: the tenant is the problem', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      stdin: listing(5, { role_id: 'labs-only-role' }),
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin: lines 1, 2, 3 … and 2 more are of tenant ${LABS} (their tenant_id), not of this run's tenant ${ACME}: to revoke in ${LABS}, pass --tenant ${LABS}; to revoke in ${ACME}, drop the field: ${JQ}\n` +
        'error: 5 lines of stdin have problems; nothing was sent; fix them and run the command again (columns: user, role)\n',
    ]);
  });

  it('a few lines are all named', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], { stdin: listing(3) });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `stdin: lines 1, 2 and 3 are of tenant ${LABS} (their tenant_id), not of this run's tenant ${ACME}: to revoke in ${LABS}, pass --tenant ${LABS}; to revoke in ${ACME}, drop the field: ${JQ}`,
    );
  });

  it("roles assign --file: a listing's rows, its old grant's fields too, said once each", async () => {
    const stdin = listing(5, { assigned_at: '2026-01-01T00:00:00Z', assigned_by: 'usr_admin' });
    const r = await svc.run(['roles', 'assign', '--file', '-', '--dry-run'], { stdin });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `stdin: lines 1, 2, 3 … and 2 more are of tenant ${LABS} (their tenant_id), not of this run's tenant ${ACME}: to grant in ${LABS}, pass --tenant ${LABS}; to grant in ${ACME}, drop the field: ${JQ}\n` +
        "stdin: lines 1, 2, 3 … and 2 more: a listing's expires_at and justification are its grant's, not this one's: pass --expires-in (or --expires-at) and --justification\n" +
        'error: 5 lines of stdin have problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n',
    ]);
  });

  it('--json keeps a record per row in details: a program matches problems to lines', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes', '--json'], { stdin: listing(3) });
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stderr) as { error: { details: Array<{ line: number; message: string }> } };
    expect(error.error.details.map((d) => d.line)).toEqual([1, 2, 3]);
    expect(error.error.details[0]!.message).toBe(
      `the row is of tenant ${LABS} (its tenant_id), not of this run's tenant ${ACME}: to revoke in ${LABS}, pass --tenant ${LABS}; to revoke in ${ACME}, drop the field: ${JQ}`,
    );
  });
});
