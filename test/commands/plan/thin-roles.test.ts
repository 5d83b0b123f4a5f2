/**
 * Role records as thin as the reference allows ("a role record has at least id and name"): svc
 * plan, apply and export must not take a role whose kind (or, for a custom role, whose permissions
 * or description) the server did not say as built-in or unchanged (findings-attack18b #3). They
 * read the role itself when the list is thin, and refuse, naming the missing field, when even the
 * role's own record lacks it. In-process, through a proxy that thins the sandbox's answers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { as, writeFile } from '../../helpers/ascode.js';
import { keepOnly, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { ACME, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({ users: 5 });
const proxy = useReshapingProxy(svc.sandbox);
const dir = mkdtempSync(join(tmpdir(), 'svc-thin-roles-'));
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });

const CHANGED = `version: 1
manage:
  roles: all
blocks:
  - tenants: acme-treasury
    roles:
      - name: fx-helper
        description: changed
        permissions: [exception.write, rule.write]
`;

const isRoleList = (path: string) => /^\/v1\/roles(\?|$)/.test(path);
const isRole = (path: string) => /^\/v1\/roles\/[^/?]+(\?|$)/.test(path);

beforeAll(async () => {
  await as(svc.sandbox(), ACME, 'POST', '/v1/roles', {
    name: 'fx-helper',
    description: 'd',
    permissions: ['exception.read'],
  });
});

describe('a roles listing without "kind"', () => {
  it("is completed from each role's own record: plan shows the change, export keeps the role", async () => {
    proxy().reshape((x) => {
      if (x.method === 'GET' && isRoleList(x.path)) {
        for (const role of (x.body as { items: Record<string, unknown>[] }).items) delete role.kind;
      }
    });
    const file = writeFile(dir, 'changed.yaml', CHANGED);
    const plan = await svc.run(['plan', '-f', file, '--json'], through());
    expect(plan.code, plan.stderr).toBe(10);
    const changes = JSON.parse(plan.stdout).tenants[0].changes;
    expect(changes.map((c: { action: string; name: string }) => `${c.action} ${c.name}`)).toEqual([
      'update fx-helper',
    ]);
    const exported = await svc.run(['export', '--only', 'roles'], through());
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('- name: fx-helper');
    expect(exported.stderr).toContain('exported 1 custom role(s) of 1 tenant(s)');
  });
});

describe('role records of only id and name, listed and read alone', () => {
  const thin = (x: { method: string; path: string; body: unknown }) => {
    if (x.method !== 'GET') return;
    if (isRoleList(x.path))
      for (const role of (x.body as { items: unknown[] }).items) keepOnly(role, ['id', 'name']);
    if (isRole(x.path)) keepOnly(x.body, ['id', 'name']);
  };

  it.each([
    ['plan', ['plan', '-f', '@']],
    ['apply', ['apply', '-f', '@', '--yes']],
    ['export', ['export', '--only', 'roles']],
  ])('%s refuses in one line naming "kind", exit 1, and changes nothing', async (_verb, argv) => {
    const file = writeFile(dir, 'changed.yaml', CHANGED);
    proxy().reshape(thin);
    const r = await svc.run(
      argv.map((a) => (a === '@' ? file : a)),
      through(),
    );
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: the platform gave role tenant_admin of acme-treasury without "kind", so svc cannot tell a custom role from a built-in one; svc compares and exports custom roles by their kind, permissions and description: is --base-url the platform API?\n`,
    ]);
    proxy().reshape(undefined);
    const role = (await svc.run(['roles', 'get', 'fx-helper', '--json'])).stdout;
    expect(JSON.parse(role)).toMatchObject({ description: 'd', permissions: ['exception.read'] });
  });

  it('a custom role read without its permissions is refused naming "permissions"', async () => {
    const file = writeFile(dir, 'changed.yaml', CHANGED);
    proxy().reshape((x) => {
      if (x.method !== 'GET') return;
      const roles = isRoleList(x.path)
        ? (x.body as { items: unknown[] }).items
        : isRole(x.path)
          ? [x.body]
          : [];
      for (const role of roles as Record<string, unknown>[])
        if (role.kind === 'custom') delete role.permissions;
    });
    const r = await svc.run(['plan', '-f', file], through());
    expect([r.code, r.stderr]).toEqual([
      1,
      `error: the platform gave role fx-helper of acme-treasury without "permissions"; svc compares and exports custom roles by their kind, permissions and description: is --base-url the platform API?\n`,
    ]);
  });
});
