import { describe, expect, it } from 'vitest';
import { as, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { ACME, adminGrant, call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// The s15-order fixer's doubt: a file narrows a role the caller holds (made last: it takes away
// some of their own reach) and grants that role to someone else. The grant went first, against
// the wider role, so the grantee held permissions the file did not give until the narrowing ran,
// and for good when the narrowing then failed. A grant of a role whose permissions the file
// changes is now made after that change (it needs it: src/ascode/diff.ts), and not at all when
// the change fails.
const svc = useSandboxContext();
const dir = useTempDir('svc-own-reach-grant-');
const real = { clock: { now: () => Date.now() } };
const LEAD = 'usr_lead';
let refuseRole = '';
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) =>
    method === 'PATCH' && refuseRole !== '' && path === `/v1/roles/${refuseRole}`
      ? refusal(403, 'insufficient_permission')
      : undefined,
});

async function role(name: string, permissions: string[]): Promise<string> {
  return (await as(svc.sandbox(), ACME, 'POST', '/v1/roles', { name, description: name, permissions })).id;
}

/** usr_lead: a role manager for 2 h, and `name` (rule.read, account.read) for good; usr_lead's token. */
async function holder(name: string): Promise<{ id: string; env: Record<string, string> }> {
  const until = new Date(Math.floor((await sandboxNow(svc.sandbox())) / 1000) * 1000 + 7_200_000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  const manager = await role(`${name}-mgr`, ['role.assign', 'role.read', 'role.manage']);
  await adminGrant(svc.sandbox(), ACME, LEAD, manager, until);
  const id = await role(name, ['rule.read', 'account.read']);
  await adminGrant(svc.sandbox(), ACME, LEAD, id, null);
  return { id, env: { SVC_TOKEN: svc.sandbox().issueToken(LEAD, { expiresInSeconds: 600 }).token } };
}

/** usr_analyst's active grants of `name`, with the role's permissions now. */
async function analystHolds(name: string): Promise<string[][]> {
  const admin = { token: svc.sandbox().adminToken, tenant: ACME };
  const r = await call(svc.sandbox(), 'GET', '/v1/users/usr_analyst/roles', admin);
  const roles = await call(svc.sandbox(), 'GET', '/v1/roles?limit=200', admin);
  return r.body.items
    .filter((a: { status: string; role_name: string }) => a.status === 'active' && a.role_name === name)
    .map(() => [...roles.body.items.find((x: { name: string }) => x.name === name).permissions].sort());
}

const narrowAndGrant = (name: string) =>
  `version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - {name: ${name}, description: ${name}, permissions: [account.read]}\n    grants:\n      - {role: ${name}, user: usr_analyst, expires_in: 1h, justification: t}\n`;

describe('svc apply: a grant of a role the file narrows is made after the narrowing', () => {
  it('your own role narrowed last, its grant to another after it (both made, exit 0)', async () => {
    const { env } = await holder('fxg');
    const file = writeFile(dir, 'narrow-grant.yaml', narrowAndGrant('fxg'));
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null, c.last ?? null])).toEqual([
      ['update', 'fxg', null, true],
      ['grant', 'usr_analyst fxg', null, true],
    ]);
    const shown = await svc.run(['plan', '-f', file], { ...real, env });
    expect(shown.stdout).toMatch(
      /\tgrant\tgrant\tusr_analyst fxg\t\t\d+\tuntil [^;]+; made last: after the change of its role, which takes away some of your own reach\n/,
    );
    const applied = await svc.run(['apply', '-f', file, '--yes', '--ndjson'], { ...real, env });
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    expect(ndjson(applied.stdout).map((r) => [r.action, r.name, r.status])).toEqual([
      ['update', 'fxg', 'ok'],
      ['grant', 'usr_analyst fxg', 'ok'],
    ]);
    expect(await analystHolds('fxg')).toEqual([['account.read']]);
  });

  it('the narrowing fails: the grant is not made, so no one holds the wider role the file did not give', async () => {
    const { id, env } = await holder('fxh');
    refuseRole = id;
    const file = writeFile(dir, 'narrow-grant-fails.yaml', narrowAndGrant('fxh'));
    const applied = await svc.run(['apply', '-f', file, '--yes', '--ndjson'], {
      ...real,
      env: { ...env, SVC_BASE_URL: proxy().url },
    });
    refuseRole = '';
    expect(applied.code).toBe(7);
    expect(proxy().refused).toEqual([`PATCH /v1/roles/${id}`]);
    expect(ndjson(applied.stdout).map((r) => [r.action, r.name, r.status])).toEqual([
      ['update', 'fxh', 'failed'],
      ['grant', 'usr_analyst fxh', 'failed'],
    ]);
    expect(ndjson(applied.stdout)[1].error.message).toBe(
      `not attempted: acme-treasury: role fxh (${id}) failed`,
    );
    expect(await analystHolds('fxh')).toEqual([]);
  });
});
