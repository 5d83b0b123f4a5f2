import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/server.js';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// A saved plan records a digest of what it leaves alone, per kind (src/ascode/drift.ts); a change
// to any of them after the plan was reviewed makes `svc apply PLAN` refuse (exit 6, plan_stale)
// before any write: a grant of a role widened since must not be made from a plan that showed the
// role as it was. One case per kind (audit13 F7: roles and OAuth clients had none).
const svc = useSandboxContext({ users: 40 }, { tenant: false });
const dir = useTempDir('svc-drift-unchanged-');
const real = { clock: { now: () => Date.now() } };

type Made = { role: string; webhook: string; client: string };
const CHANGES: Record<
  string,
  [words: string, counts: string, (s: Sandbox, made: Made, n: number) => Promise<unknown>]
> = {
  role: [
    'custom roles',
    '1 then, 1 now',
    (s, made) =>
      as(s, LABS, 'PATCH', `/v1/roles/${made.role}`, { add_permissions: ['role.manage', 'role.assign'] }),
  ],
  oauth_client: [
    'OAuth clients',
    '1 then, 1 now',
    (s, made) =>
      as(s, LABS, 'PATCH', `/v1/oauth/clients/${made.client}`, {
        scopes: ['read:reconciliations', 'read:tenants'],
      }),
  ],
  webhook: [
    'webhooks',
    '1 then, 1 now',
    (s, made) =>
      as(s, LABS, 'PATCH', `/v1/webhooks/${made.webhook}`, { event_types: ['exception.resolved'] }),
  ],
  grant: [
    'grants',
    '1 then, 2 now',
    (s, made, n) =>
      as(s, LABS, 'POST', `/v1/users/${user(n + 2)}/roles`, { role_id: made.role, justification: 'drift' }),
  ],
};

describe('svc apply SAVED refuses when what the plan leaves alone changed since', () => {
  let n = 0;
  it.each(Object.keys(CHANGES))('%s: exit 6 naming the kind, nothing applied', async (kind) => {
    const [words, counts, change] = CHANGES[kind]!;
    const sandbox = svc.sandbox();
    n += 3;
    const tag = `du-${kind.replace('_', '-')}`;
    const role = await as(sandbox, LABS, 'POST', '/v1/roles', {
      name: `${tag}-role`,
      permissions: ['rule.read'],
    });
    await as(sandbox, LABS, 'POST', `/v1/users/${user(n)}/roles`, {
      role_id: role.id,
      justification: 'held',
    });
    const webhook = await as(sandbox, LABS, 'POST', '/v1/webhooks', {
      url: `https://hooks.example.com/${tag}`,
      event_types: ['exception.created'],
    });
    const client = await as(sandbox, LABS, 'POST', '/v1/oauth/clients', {
      name: `${tag}-portal`,
      redirect_uris: ['https://portal.example.com/cb'],
      scopes: ['read:reconciliations'],
    });
    // Everything as it is live, and one change: a new grant of the role.
    const file = writeFile(
      dir,
      `${tag}.yaml`,
      `version: 1
blocks:
  - tenants: acme-labs
    roles:
      - { name: ${tag}-role, permissions: [rule.read] }
    grants:
      - { user: ${user(n)}, role: ${tag}-role }
      - { user: ${user(n + 1)}, role: ${tag}-role }
    webhooks:
      - { url: "https://hooks.example.com/${tag}", event_types: [exception.created] }
    oauth_clients:
      - { name: ${tag}-portal, redirect_uris: ["https://portal.example.com/cb"], scopes: [read:reconciliations] }
`,
    );
    const saved = join(dir, `${tag}.plan.json`);
    const planned = await svc.run(['plan', '-f', file, '--out', saved], real);
    expect(planned.code, planned.stderr).toBe(10);
    const lines = planned.stdout.split('\n');
    expect([
      lines.length,
      lines[0]?.startsWith(`acme-labs\tgrant\tgrant\t${user(n + 1)} ${tag}-role\t`),
    ]).toEqual([2, true]);

    await change(sandbox, { role: role.id, webhook: webhook.id, client: client.client_id }, n);
    const before = await writes(sandbox);
    const r = await svc.run(['apply', saved, '--yes'], real);
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr.split('\n')).toEqual([
      `acme-labs: ${words} the plan leaves alone changed since it was computed (${counts})`,
      `error: the live state changed since ${saved} was computed; nothing was applied; run \`svc plan -f ${file} --out ${saved}\` again and review the new plan`,
      '',
    ]);
    expect(await writes(sandbox)).toBe(before);
  });
});
