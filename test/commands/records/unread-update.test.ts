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
      `✓ updated exceptions record ${made.id} in fbbe4d31-beac-5b48-a287-2d8bcd45003b (you cannot read it: the answer holds only what you sent)\n`,
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

// Review 16d D4, D5, D7: `records delete` read the record first, so a write-without-read holder,
// whom the platform lets delete, was stopped by svc's own read; the human answer of a blind change
// printed empty created/deleted/purge rows ("not deleted"), fields the caller was not told; and an
// idempotency_key member, which the platform ignores, drew a warning that the patch was not held.
describe('svc records delete and update by a caller who may write a record but not read it', () => {
  let writer: Record<string, string>;
  beforeAll(async () => {
    const sandbox = svc.sandbox();
    const role = await as(sandbox, LABS, 'POST', '/v1/roles', {
      name: 'write-only',
      permissions: ['exception.write'],
    });
    await as(sandbox, LABS, 'POST', `/v1/users/${user(2)}/roles`, { role_id: role.id });
    writer = { SVC_TOKEN: sandbox.issueToken(user(2)).token, SVC_TENANT: LABS };
  });
  const exception = () =>
    as(svc.sandbox(), LABS, 'POST', '/v1/exceptions', { kind: 'duplicate', status: 'open', note: 'n0' });

  it('delete sends the DELETE and prints what came back; a missing or deleted id gets the one refusal, exit 4', async () => {
    const made = await exception();
    const r = await svc.run(['records', 'delete', 'exceptions', made.id, '--yes'], { env: writer });
    expect(r.code, r.stderr).toBe(0);
    const stored = svc.sandbox().state.records.get(made.tenant_id, 'exceptions', made.id)!;
    expect(stored.soft_delete).toBe(true);
    expect(r.stderr).toBe(
      `✓ deleted exceptions record ${made.id} in fbbe4d31-beac-5b48-a287-2d8bcd45003b; it is hidden from lists and to be purged at ${stored.purge_at} (you cannot read it: the answer holds only what the delete did)\n`,
    );
    for (const id of [made.id, 'rec_0000000000000000deadbeef']) {
      const again = await svc.run(['records', 'delete', 'exceptions', id, '--yes'], { env: writer });
      expect(again.code, id).toBe(4);
      expect(again.stderr, id).toContain(
        'deleting an exception you cannot read needs one that exists and is not deleted',
      );
    }
  });

  it('the human answer of a blind update has no line for a field it does not hold', async () => {
    const made = await exception();
    const r = await svc.run(['records', 'update', 'exceptions', made.id, '--data', '{"note":"n1"}'], {
      env: writer,
    });
    expect(r.code, r.stderr).toBe(0);
    const labels = r.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')[0]);
    expect(labels).toEqual(['id', 'surface', 'tenant', 'updated', 'field.note']);
  });

  it('an idempotency_key member, which the platform ignores, draws no warning (blind and reader alike)', async () => {
    const made = await exception();
    const patch = '{"note":"n2","idempotency_key":"abc"}';
    const admin = { SVC_TOKEN: svc.sandbox().adminToken, SVC_TENANT: LABS };
    for (const [who, env] of [
      ['writer', writer],
      ['admin', admin],
    ] as const) {
      const r = await svc.run(
        ['records', 'update', 'exceptions', made.id, '--data', patch.replace('n2', who)],
        {
          env,
        },
      );
      expect([r.code, r.stderr.includes('warning')], `${who}: ${r.stderr}`).toEqual([0, false]);
    }
  });
});
