import { describe, expect, it } from 'vitest';
import { as, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { ACME, adminGrant, call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc plan judges every change on what the caller holds before the run; svc apply makes the
// changes that can take away the caller's own reach (revoking their own grant with --prune,
// narrowing a role they hold) after every other change, so the others go through as planned
// (exploratory test s15, dryrun15 F1 and F2: the own change went first, the rest failed 403, and
// the caller's role was gone for good).
const svc = useSandboxContext();
const dir = useTempDir('svc-own-reach-');
const real = { clock: { now: () => Date.now() } };
const LEAD = 'usr_lead';
// Refuses the revocation of usr_auditor's tenant_auditor (the wording test).
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) =>
    method === 'DELETE' && path === '/v1/users/usr_auditor/roles/tenant_auditor'
      ? refusal(403, 'insufficient_permission')
      : undefined,
});

/** A custom role in Acme Treasury; its id. */
async function role(name: string, permissions: string[]): Promise<string> {
  return (await as(svc.sandbox(), ACME, 'POST', '/v1/roles', { name, description: name, permissions })).id;
}

/** usr_lead, a just-in-time role manager (`name`, a custom role, for 2 h); the grant's expiry and usr_lead's token. */
async function jitRoleManager(name: string): Promise<{ until: string; env: Record<string, string> }> {
  const until = new Date(Math.floor((await sandboxNow(svc.sandbox())) / 1000) * 1000 + 7_200_000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  await adminGrant(
    svc.sandbox(),
    ACME,
    LEAD,
    await role(name, ['role.assign', 'role.read', 'role.manage']),
    until,
  );
  const token = svc.sandbox().issueToken(LEAD, { expiresInSeconds: 600 }).token;
  return { until, env: { SVC_TOKEN: token } };
}

async function holds(user: string): Promise<string[]> {
  const r = await call(svc.sandbox(), 'GET', `/v1/users/${user}/roles`, {
    token: svc.sandbox().adminToken,
    tenant: ACME,
  });
  return r.body.items
    .filter((a: { status: string }) => a.status === 'active')
    .map((a: { role_name: string }) => a.role_name)
    .sort();
}

describe('svc apply: what takes away your own reach is made last', () => {
  it('--prune revokes your own grant after the revocation it gives you the power for (both made, exit 0)', async () => {
    const { until, env } = await jitRoleManager('grantmgr');
    // Every grant of Acme Treasury but usr_lead's own tenant_lead and usr_viewer's tenant_viewer,
    // whose permissions usr_lead holds only through tenant_lead.
    const kept = ['admin', 'reviewer', 'analyst', 'rule_author', 'ai_prompter', 'compliance', 'auditor'];
    const file = writeFile(
      dir,
      'prune-own.yaml',
      `version: 1\nmanage:\n  grants: all\nblocks:\n  - tenants: acme-treasury\n    grants:\n${kept
        .map((u) => `      - {role: tenant_${u}, user: usr_${u}}\n`)
        .join('')}      - {role: grantmgr, user: ${LEAD}, expires_at: "${until}", justification: setup}\n`,
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.name, c.refused ?? null, c.last ?? null])).toEqual([
      [`${LEAD} tenant_lead`, null, true],
      ['usr_viewer tenant_viewer', null, null],
    ]);
    const shown = await svc.run(['plan', '-f', file], { ...real, env });
    expect(shown.stdout).toContain(
      'acme-treasury\tgrant\trevoke\tusr_lead tenant_lead\t\t\theld permanently; only with --prune; made last: it takes away some of your own reach\n',
    );
    const applied = await svc.run(['apply', '-f', file, '--prune', '--yes', '--ndjson'], { ...real, env });
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    // Made in this order: the other user's revocation while usr_lead still held tenant_lead.
    expect(ndjson(applied.stdout).map((r) => [r.name, r.status])).toEqual([
      ['usr_viewer tenant_viewer', 'ok'],
      [`${LEAD} tenant_lead`, 'ok'],
    ]);
    expect(await holds('usr_viewer')).toEqual([]);
    expect(await holds(LEAD)).toEqual(['grantmgr']);
  });

  it('narrows a role you hold after the grant that needs what it takes away (both made, exit 0)', async () => {
    const { env } = await jitRoleManager('grantmgr2');
    await adminGrant(svc.sandbox(), ACME, LEAD, await role('fxr', ['rule.read', 'account.read']), null);
    await role('ruleviewer', ['rule.read']);
    const file = writeFile(
      dir,
      'narrow-own.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - {name: fxr, description: fxr, permissions: [account.read]}\n    grants:\n      - {role: ruleviewer, user: usr_analyst, expires_in: 1h, justification: t}\n',
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null, c.last ?? null])).toEqual([
      ['update', 'fxr', null, true],
      ['grant', 'usr_analyst ruleviewer', null, null],
    ]);
    const applied = await svc.run(['apply', '-f', file, '--yes', '--concurrency', '1', '--ndjson'], {
      ...real,
      env,
    });
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    expect(ndjson(applied.stdout).map((r) => [r.action, r.name, r.status])).toEqual([
      ['grant', 'usr_analyst ruleviewer', 'ok'],
      ['update', 'fxr', 'ok'],
    ]);
    expect(await holds('usr_analyst')).toEqual(['ruleviewer', 'tenant_analyst']);
  });

  it('names a failed revocation as the revoke it is, not as a grant', async () => {
    const file = writeFile(
      dir,
      'revoke-fails.yaml',
      'version: 1\nmanage: {grants: listed-roles}\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - {role: tenant_auditor, user: usr_analyst, expires_in: 1h, justification: t}\n',
    );
    const applied = await svc.run(['apply', '-f', file, '--prune', '--yes', '--ndjson'], {
      ...real,
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(applied.code).toBe(7);
    expect(proxy().refused).toEqual(['DELETE /v1/users/usr_auditor/roles/tenant_auditor']);
    expect(applied.stderr).toContain(
      'acme-treasury: revoke usr_auditor tenant_auditor: refused by the test proxy',
    );
  });
});
