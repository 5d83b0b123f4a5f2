import { beforeAll, describe, expect, it } from 'vitest';
import { as, LABS, user } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// Review 16b B4: the platform answers a change by a caller who cannot read the record with only
// what was sent. `svc records update` read the record first, so an exception.assign holder (the
// catalog's permission, usable alone) could not assign with it at all; it now sends the patch and
// prints what came back, no field of the record besides.
const svc = useSandboxContext({ users: 3 });
let assigner: Record<string, string>;

beforeAll(async () => {
  const sandbox = svc.sandbox();
  const role = await as(sandbox, LABS, 'POST', '/v1/roles', {
    name: 'assign-only',
    permissions: ['exception.assign'],
  });
  await as(sandbox, LABS, 'POST', `/v1/users/${user(1)}/roles`, { role_id: role.id });
  assigner = { SVC_TOKEN: sandbox.issueToken(user(1)).token, SVC_TENANT: LABS };
});

describe('svc records update by a caller who may change a record but not read it', () => {
  it('sends the patch and prints the answer: what was sent, nothing else of the record', async () => {
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/exceptions', {
      kind: 'fx_difference',
      status: 'open',
      counterparty: 'HiddenCo',
    });
    const patch = JSON.stringify({ assigned_to: user(1) });
    const r = await svc.run(['records', 'update', 'exceptions', made.id, '--data', patch, '--json'], {
      env: assigner,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout)).sort()).toEqual([
      'assigned_to',
      'id',
      'surface',
      'tenant_id',
      'updated_at',
    ]);
    const table = await svc.run(
      ['records', 'update', 'exceptions', made.id, '--data', '{"assigned_to":null}'],
      {
        env: assigner,
      },
    );
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).not.toContain('HiddenCo');
    expect(table.stderr).toBe(
      `✓ Updated exceptions record ${made.id} (you cannot read it: the answer holds only what you sent)\n`,
    );
  });

  it("a record it may not change, or that is not there: the platform's one refusal, exit 4", async () => {
    const r = await svc.run(
      ['records', 'update', 'exceptions', 'rec_0000000000000000deadbeef', '--data', '{"status":"resolved"}'],
      { env: assigner },
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      'changing an exception you cannot read needs one that exists and is not deleted',
    );
  });
});
