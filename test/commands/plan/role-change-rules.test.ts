import { beforeAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc plan predicts the platform's rules of s15 (attack F5, F6): a role carrying a permission the
// caller lacks is changed by nobody who lacks it (a new description included), and putting
// permissions into a role the caller holds is a grant to themselves (self_assignment). Both are
// planned as refused, in the platform's words, and svc apply sends nothing.
const svc = useSandboxContext({ users: 10 });
const dir = useTempDir('svc-plan-role-change-');
const real = { clock: { now: () => Date.now() } };
let manager: Record<string, string>;

beforeAll(async () => {
  const sandbox = svc.sandbox();
  const mgr = await as(sandbox, LABS, 'POST', '/v1/roles', {
    name: 'rc-mgr',
    permissions: ['role.read', 'role.manage', 'role.assign', 'exception.read'],
  });
  await as(sandbox, LABS, 'POST', '/v1/roles', {
    name: 'rc-super',
    description: 'everything in finance',
    permissions: ['account.write', 'role.read'],
  });
  await as(sandbox, LABS, 'POST', '/v1/roles', { name: 'rc-other', permissions: ['exception.read'] });
  await as(sandbox, LABS, 'POST', `/v1/users/${user(2)}/roles`, { role_id: mgr.id, justification: 'roles' });
  manager = { SVC_TOKEN: sandbox.issueToken(user(2)).token, SVC_TENANT: LABS };
});

const refused = (code: string, message: string) => `the platform refuses it (${code}): ${message}`;

describe('svc plan and role changes the platform refuses', () => {
  it('plans re-describing a role you cannot fully hold, and widening one you hold, as refused', async () => {
    const widen = writeFile(
      dir,
      'rc2.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n' +
        '      - name: rc-super\n        description: read-only finance\n        permissions: [account.write, role.read]\n' +
        '      - name: rc-mgr\n        permissions: [role.read, role.manage, role.assign, exception.read, rule.read]\n' +
        '      - name: rc-other\n        permissions: [exception.read, role.read]\n',
    );
    const sandbox = svc.sandbox();
    // The manager holds rule.read through another grant, so only the self rule stands in the way.
    const rules = await as(sandbox, LABS, 'POST', '/v1/roles', {
      name: 'rc-rules',
      permissions: ['rule.read'],
    });
    await as(sandbox, LABS, 'POST', `/v1/users/${user(2)}/roles`, {
      role_id: rules.id,
      justification: 'rules',
    });
    const planned = await svc.run(['plan', '-f', widen, '--ndjson'], { env: manager, ...real });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'update',
        'rc-super',
        refused(
          'insufficient_permission',
          'you can only change a role whose permissions you all hold yourself; you lack account.write; have someone who holds them change rc-super',
        ),
      ],
      [
        'update',
        'rc-mgr',
        'nobody puts permissions into a role they hold (rc-mgr): the platform refuses it (self_assignment); have another administrator make this change, or leave it out of the file',
      ],
      ['update', 'rc-other', null],
    ]);
    const before = await writes(sandbox);
    const applied = await svc.run(['apply', '-f', widen, '--yes'], { env: manager, ...real });
    expect([applied.code, applied.stdout]).toEqual([2, '']);
    expect(await writes(sandbox)).toBe(before);

    // True both ways: the platform refuses exactly these, in those words.
    const patch = (name: string, body: Record<string, unknown>) =>
      call(sandbox, 'GET', '/v1/roles', { token: manager.SVC_TOKEN!, tenant: LABS }).then((r) =>
        call(
          sandbox,
          'PATCH',
          `/v1/roles/${r.body.items.find((x: { name: string }) => x.name === name).id}`,
          {
            token: manager.SVC_TOKEN!,
            tenant: LABS,
            body,
          },
        ),
      );
    const sup = await patch('rc-super', { description: 'read-only finance' });
    expect([sup.status, sup.body.error?.code]).toEqual([403, 'insufficient_permission']);
    const own = await patch('rc-mgr', { add_permissions: ['rule.read'] });
    expect([own.status, own.body.error?.code, own.body.error?.message]).toEqual([
      403,
      'self_assignment',
      'you cannot put permissions into a role you hold; ask another administrator',
    ]);
    expect((await patch('rc-other', { add_permissions: ['role.read'] })).status).toBe(200);
  });
});
