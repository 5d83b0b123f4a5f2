import { describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc plan predicts the platform's refusal of webhook and OAuth client changes by a caller without
// webhook.manage / oauth_client.manage (src/ascode/lockout.ts holdsRefusal; audit13 F9), so that
// svc apply does not start and leave half a file applied (the grant made, the webhook refused).
// The OAuth client half is checked in test/ascode/holds-integrations.test.ts: through svc plan a
// caller without oauth_client.manage cannot read the clients at all (exit 4 before any plan).
const svc = useSandboxContext({ users: 10 });
const dir = useTempDir('svc-plan-holds-integrations-');
const real = { clock: { now: () => Date.now() } };

describe('a delegate who may grant roles but not manage integrations', () => {
  it('plan marks the webhook refused; apply refuses the file whole (exit 2, nothing sent)', async () => {
    const sandbox = svc.sandbox();
    await as(sandbox, LABS, 'POST', '/v1/roles', { name: 'ops', permissions: ['rule.read'] });
    const delegates = await as(sandbox, LABS, 'POST', '/v1/roles', {
      name: 'delegates',
      permissions: ['role.read', 'role.assign', 'role.manage', 'rule.read', 'webhook.read'],
    });
    await as(sandbox, LABS, 'POST', `/v1/users/${user(2)}/roles`, {
      role_id: delegates.id,
      justification: 'delegated',
    });
    const env = { SVC_TOKEN: sandbox.issueToken(user(2)).token, SVC_TENANT: LABS };
    const file = writeFile(
      dir,
      'f.yaml',
      `version: 1
blocks:
  - tenants: acme-labs
    grants:
      - { user: ${user(3)}, role: ops }
    webhooks:
      - { url: "https://hooks.example.com/holds", event_types: [exception.created] }
`,
    );

    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env, ...real });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.kind, c.refused ?? null])).toEqual([
      ['grant', null],
      [
        'webhook',
        'the platform refuses it (insufficient_role): changing webhooks needs permission webhook.manage in acme-labs, which your live roles there do not grant; ask an administrator of acme-labs',
      ],
    ]);

    const before = await writes(sandbox);
    const applied = await svc.run(['apply', '-f', file, '--yes', '--secret-dir', dir], { env, ...real });
    expect([applied.code, applied.stdout]).toEqual([2, '']);
    expect(applied.stderr).toMatch(
      /^error: svc apply refuses acme-labs: webhook https:\/\/hooks\.example\.com\/holds: the platform refuses it \(insufficient_role\): changing webhooks needs permission webhook\.manage .*; nothing was applied\n$/,
    );
    expect(await writes(sandbox)).toBe(before);
    const grants = await call(sandbox, 'GET', `/v1/role-assignments?user_id=${user(3)}`, {
      token: sandbox.adminToken,
      tenant: LABS,
    });
    expect(grants.body.items).toEqual([]);
  });
});
