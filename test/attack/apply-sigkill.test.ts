/**
 * Attack class "SIGKILL and re-run", for `svc apply` (issue 14): killed without warning half-way,
 * then the same command again; the final state is exactly the file's — every grant once, each
 * webhook and OAuth client once, each secret in one file — and svc plan then shows no changes.
 * Spawned: only a real process can be killed with SIGKILL. Users per tenant: fast / full
 * (`npm test` / `npm run attack`). (Was test/e2e/apply-sigkill.test.ts.)
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APAC, LABS, user, writeFile } from '../helpers/ascode.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv, svc } from '../helpers/svc.js';
import { cases, killedAfter } from './lib.js';

// Killed after USERS + 200 result lines of 2 × USERS grants: well inside the run either way.
const USERS = cases(500, 1500);
const sandbox = useSandbox({ users: USERS });
// No SVC_TENANT: it would bound svc apply to one tenant, and the file names two.
const env = sandboxEnv(sandbox, { SVC_TENANT: '' });

const users = Array.from({ length: USERS }, (_, i) => user(i + 1));
const FILE = `version: 1
blocks:
  - tenants: [acme-labs, acme-apac]
    roles:
      - { name: sigkill, permissions: [rule.read] }
    grants:
      - role: sigkill
        users: [${users.join(', ')}]
        expires_in: 7d
        justification: killed and resumed
    webhooks:
      - { url: "https://hooks.example.com/sigkill", event_types: [webhook.test] }
    oauth_clients:
      - { name: killed-portal, redirect_uris: ["https://portal.example.com/cb"], scopes: [read:exceptions] }
`;

const admin = (tenant: string, path: string) =>
  call(sandbox(), 'GET', path, { token: sandbox().adminToken, tenant });

describe('attack: svc apply killed with SIGKILL, then run again', () => {
  it(`${(USERS * 2).toLocaleString('en')} grants, 2 roles, 2 webhooks and 2 clients: exactly once each`, async () => {
    const file = writeFile(join(env.SVC_STATE_DIR!, '..'), 'sigkill.yaml', FILE);
    const secrets = join(env.SVC_STATE_DIR!, '..', 'secrets');
    const args = ['apply', '-f', file, '--secret-dir', secrets, '--yes', '--ndjson', '--concurrency', '8'];
    const before = await killedAfter(env, args, USERS + 200);
    expect(before.split('\n').length).toBeGreaterThan(USERS);
    const journals = readdirSync(join(env.SVC_STATE_DIR!, 'journals'));
    // The journal, the plan the run works from beside it, and the locks the killed process left,
    // its own and the one an svc before session 16 would look at (attack23b F1): its pid is gone,
    // so the resume takes them over at once.
    expect(journals.map((f) => f.replace(/-[0-9a-f]{16}/, '')).sort()).toEqual([
      'apply.ndjson',
      'apply.ndjson.lock',
      'apply.ndjson.lock',
      'apply.ndjson.plan.json',
    ]);

    const again = await svc(args, { env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(join(env.SVC_STATE_DIR!, 'journals'))).toEqual([]);
    const rows = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; reason?: string });
    expect(rows.filter((r) => r.status === 'failed')).toEqual([]);
    // Everything the killed run finished is in the journal; the rest was done now.
    expect(rows.filter((r) => r.reason === 'journal').length).toBeGreaterThanOrEqual(USERS);

    for (const tenant of [LABS, APAC]) {
      const role = (await admin(tenant, '/v1/roles?kind=custom')).body.items.filter(
        (r: { name: string }) => r.name === 'sigkill',
      );
      expect(role).toHaveLength(1);
      const counts = await call(
        sandbox(),
        'GET',
        `/_sandbox/assignments?tenant_id=${tenant}&role_id=${role[0].id}`,
      );
      expect(counts.body).toEqual({ total: USERS, active: USERS, users: USERS, duplicates: 0 });
      const hooks = (await admin(tenant, '/v1/webhooks')).body.items.filter((w: { url: string }) =>
        w.url.endsWith('/sigkill'),
      );
      expect(hooks).toHaveLength(1);
      const clients = (await admin(tenant, '/v1/oauth/clients')).body.items.filter(
        (c: { name: string }) => c.name === 'killed-portal',
      );
      expect(clients).toHaveLength(1);
    }
    expect(
      readdirSync(secrets)
        .sort()
        .map((f) => f.replace(/\.(wh|cli)_[0-9a-f]+\./, '.ID.')),
    ).toEqual([
      'acme-apac.oauth-client.killed-portal.ID.secret',
      'acme-apac.webhook.hooks.example.com_sigkill.ID.secret',
      'acme-labs.oauth-client.killed-portal.ID.secret',
      'acme-labs.webhook.hooks.example.com_sigkill.ID.secret',
    ]);
    expect(readdirSync(join(env.SVC_STATE_DIR!, 'journals'))).toEqual([]);
    const plan = await svc(['plan', '-f', file], { env });
    expect([plan.code, plan.stderr]).toEqual([
      0,
      `no changes: the live state of 2 tenants matches ${file}\n`,
    ]);
  }, 180_000);
});
