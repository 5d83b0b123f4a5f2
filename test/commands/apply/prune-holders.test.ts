import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// `svc apply --prune` deletes a custom role only when the grants that end with it are the ones the
// plan showed: a grant someone else makes between the plan and the deletion keeps the role, and
// its row fails naming that grant (exit 7), whether the plan was computed at the start of the run
// (-f) or saved earlier (PLAN.json).
const svc = useSandboxContext({ users: 20 });
const dir = useTempDir('svc-prune-holders-');
const real = { clock: { now: () => Date.now() } };

/** Which tenant the next grant POST to `trigger` grants `inject` in (set by each test). */
let pending: { tenant: string; trigger: string; role: string; user: string } | undefined;
// Someone else grants the role while the run is busy with the file's own grant: after the plan
// (and a saved plan's drift check), before the removals.
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    const meanwhile = pending;
    if (!meanwhile || method !== 'POST' || path !== `/v1/users/${meanwhile.trigger}/roles`) return;
    pending = undefined;
    await as(svc.sandbox(), meanwhile.tenant, 'POST', `/v1/users/${meanwhile.user}/roles`, {
      role_id: meanwhile.role,
      expires_at: '2031-01-01T00:00:00Z',
      justification: 'someone else',
    });
  },
});

const fileFor = (slug: string, grantee: string) => `version: 1
manage: {grants: listed-roles, roles: all}
blocks:
  - tenants: ${slug}
    roles: []
    grants:
      - {user: ${grantee}, role: tenant_viewer}
`;

async function roleState(tenant: string, id: string) {
  const role = await as(svc.sandbox(), tenant, 'GET', `/v1/roles/${id}`);
  const holders = await as(svc.sandbox(), tenant, 'GET', `/v1/role-assignments?role_id=${id}`);
  return {
    deleted: role.deleted_at !== null,
    holders: holders.items.map((a: { user_id: string }) => a.user_id),
  };
}

describe('svc apply --prune: a role granted meanwhile is not deleted', () => {
  it.each([
    ['computed by the run (-f)', 'acme-labs', 'temp-r', false, false],
    ['saved by svc plan --out', 'acme-apac', 'temp-s', true, false],
    // The plan showed "1 grant ends with it": that one may end, the one made since may not.
    ['computed by the run, of a role held when planned', 'acme-ledger-uk', 'temp-t', false, true],
  ])('plan %s', async (_how, slug, name, saved, held) => {
    const tenant = tenantId(slug);
    const env = { SVC_BASE_URL: proxy().url, SVC_TENANT: tenant };
    const role = await as(svc.sandbox(), tenant, 'POST', '/v1/roles', {
      name,
      permissions: ['exception.read'],
    });
    if (held) {
      await as(svc.sandbox(), tenant, 'POST', `/v1/users/${user(6)}/roles`, { role_id: role.id });
    }
    const file = writeFile(dir, `${name}.yaml`, fileFor(slug, user(1)));
    let from = ['-f', file];
    if (saved) {
      const plan = join(dir, `${name}.plan.json`);
      const planned = await svc.run(['plan', '-f', file, '--out', plan], { ...real, env });
      expect(planned.code, planned.stderr).toBe(10);
      from = [plan];
    }
    pending = { tenant, trigger: user(1), role: role.id, user: user(5) };
    const run = await svc.run(['apply', ...from, '--prune', '--yes', '--concurrency', '1', '--ndjson'], {
      ...real,
      env,
    });
    expect(pending).toBeUndefined();
    expect(run.code, run.stderr).toBe(7);
    const row = ndjson(run.stdout).find((r) => r.kind === 'role' && r.name === name);
    expect(row).toMatchObject({ action: 'delete', status: 'failed', error: { code: 'role_still_granted' } });
    expect(row.error.message).toMatch(
      new RegExp(
        `^not deleted: it has 1 grant the plan did not end \\(${user(5)}, granted \\S+Z by usr_admin\\); nothing was removed; revoke it or plan again$`,
      ),
    );
    // Nothing was lost: the role and the grant made meanwhile are both there.
    expect(await roleState(tenant, role.id)).toEqual({
      deleted: false,
      holders: held ? [user(6), user(5)] : [user(5)],
    });
  });
});
