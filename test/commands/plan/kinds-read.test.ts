/**
 * svc plan / apply / export read only the kinds a file declares or manages (or an export is
 * asked for): a delegated admin who may read and assign roles, and nothing of webhooks or OAuth
 * clients, plans and applies a grants-only file (findings-ascode L1). In-process.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext({ users: 10 });
const dir = useTempDir('svc-kinds-');
let delegate: Record<string, string>;

const GRANTS_ONLY = `version: 1
manage:
  grants: listed-roles
  oauth_clients: none
blocks:
  - tenants: acme-labs
    grants:
      - user: ${user(3)}
        role: ops
        expires_at: 2031-06-30T00:00:00Z
        justification: rota
`;

beforeAll(async () => {
  await as(svc.sandbox(), LABS, 'POST', '/v1/roles', { name: 'ops', permissions: ['rule.read'] });
  const assigner = await as(svc.sandbox(), LABS, 'POST', '/v1/roles', {
    name: 'assigner',
    // rule.read too: one grants only roles whose permissions one holds (ops has rule.read)
    permissions: ['role.read', 'role.assign', 'rule.read'],
  });
  await as(svc.sandbox(), LABS, 'POST', `/v1/users/${user(2)}/roles`, {
    role_id: assigner.id,
    expires_at: '2032-01-01T00:00:00Z',
    justification: 'delegated',
  });
  delegate = { SVC_TOKEN: svc.sandbox().issueToken(user(2)).token, SVC_TENANT: LABS };
});

describe('a delegated admin without webhook.read or oauth_client.manage', () => {
  it('plans a grants-only file (exit 10, the one grant), reading no webhooks or clients', async () => {
    const file = writeFile(dir, 'grants.yaml', GRANTS_ONLY);
    const r = await svc.run(['plan', '-f', file], { env: delegate });
    expect([r.code, r.stderr]).toEqual([
      10,
      'plan: 1 to create, 0 to update, 0 to delete in 1 of 1 tenant\n',
    ]);
    expect(r.stdout).toBe(`acme-labs\tgrant\tgrant\t${user(3)} ops\t\t8\tuntil 2031-06-30T00:00:00Z\n`);
  });

  it('applies it', async () => {
    const file = writeFile(dir, 'grants.yaml', GRANTS_ONLY);
    const r = await svc.run(['apply', '-f', file, '--yes'], { env: delegate });
    expect([r.code, r.stderr]).toEqual([0, expect.stringContaining('1 applied')]);
    expect((await svc.run(['plan', '-f', file], { env: delegate })).code).toBe(0);
  });

  it('applies a saved plan of it', async () => {
    const file = writeFile(dir, 'grants2.yaml', GRANTS_ONLY.replaceAll(user(3), user(4)));
    const saved = join(dir, 'grants2.plan.json');
    expect((await svc.run(['plan', '-f', file, '--out', saved], { env: delegate })).code).toBe(10);
    const r = await svc.run(['apply', saved, '--yes'], { env: delegate });
    expect([r.code, r.stderr]).toEqual([0, expect.stringContaining('1 applied')]);
  });

  it('still may not plan a file that manages OAuth clients (exit 4, naming the permission)', async () => {
    const file = writeFile(
      dir,
      'clients.yaml',
      GRANTS_ONLY.replace('oauth_clients: none', 'oauth_clients: all'),
    );
    const r = await svc.run(['plan', '-f', file], { env: delegate });
    expect([r.code, r.stderr]).toEqual([4, expect.stringContaining('oauth_client.manage')]);
  });

  it('exports the kinds asked for, and only those', async () => {
    const r = await svc.run(['export', '--only', 'roles,grants', '--json'], { env: delegate });
    // the summary names only the kinds asked for
    expect([r.code, r.stderr]).toEqual([
      0,
      expect.stringMatching(/^exported 2 custom roles, \d+ grants? of 1 tenant\n$/),
    ]);
    const doc = JSON.parse(r.stdout);
    expect(doc.manage).toEqual({ roles: 'all', grants: 'all' });
    expect(Object.keys(doc.blocks[0]).sort()).toEqual(['grants', 'roles', 'tenants']);
    expect(doc.blocks[0].roles.map((role: { name: string }) => role.name)).toEqual(['assigner', 'ops']);
  });

  it('refuses an --only kind it does not know (exit 2, before any request)', async () => {
    const r = await svc.run(['export', '--only', 'roles', '--only', 'grant'], { env: delegate });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      'error: --only takes roles, grants, webhooks or oauth_clients, got "grant" (did you mean grants?)\n',
    );
  });
});
