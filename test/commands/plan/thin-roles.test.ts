/**
 * Role records as thin as the reference allows ("a role record has at least id and name"): svc
 * plan, apply and export must not take a role whose kind (or, for a custom role, whose permissions
 * or description) the server did not say as built-in or unchanged (findings-attack18b #3). They
 * read the role itself when the list is thin, and refuse, naming the missing field, when even the
 * role's own record lacks it. In-process, through a proxy that thins the sandbox's answers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { as, writeFile } from '../../helpers/ascode.js';
import { keepOnly, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { ACME, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const svc = useSandboxContext({ users: 5 });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-thin-roles-');
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
    expect(exported.stderr).toContain('exported 1 custom role of 1 tenant');
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
      `error: the platform gave role tenant_admin of acme-treasury without "kind", so svc cannot tell a custom role from a built-in one; svc compares and exports custom roles by their kind and permissions: is --base-url the platform API?\n`,
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
      `error: the platform gave role fx-helper of acme-treasury without "permissions"; svc compares and exports custom roles by their kind and permissions: is --base-url the platform API?\n`,
    ]);
  });
});

describe('custom roles the platform shows no description of, even in their own record', () => {
  // The reference shows a role's id and name only: a server that keeps no description (or does
  // not show it) is still the platform. Plan cannot compare a description it is not shown, and
  // says so; export writes the role without one (never `description: ''`, which an apply
  // elsewhere would write over a real description).
  const undescribed = (x: { method: string; path: string; body: unknown }) => {
    if (x.method !== 'GET') return;
    const roles = isRoleList(x.path)
      ? (x.body as { items: unknown[] }).items
      : isRole(x.path)
        ? [x.body]
        : [];
    for (const role of roles as Record<string, unknown>[]) delete role.description;
  };
  const warning =
    'warning: acme-treasury: the platform shows no description of custom role fx-helper, so its description is not compared\n';

  it('plan compares the rest, and says the description is not compared', async () => {
    proxy().reshape(undescribed);
    const same = writeFile(
      dir,
      'same.yaml',
      CHANGED.replace('[exception.write, rule.write]', '[exception.read]'),
    );
    const r = await svc.run(['plan', '-f', same], through());
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `${warning}no changes: the live state of 1 tenant matches ${same}\n`,
    ]);
    const changed = await svc.run(
      ['plan', '-f', writeFile(dir, 'changed.yaml', CHANGED), '--ndjson'],
      through(),
    );
    expect(changed.code, changed.stderr).toBe(10);
    expect(changed.stderr.startsWith(warning), changed.stderr).toBe(true);
    expect(
      changed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).fields.map((f: { field: string }) => f.field)),
    ).toEqual([['permissions']]);
  });

  it('export writes the role without a description, saying why', async () => {
    proxy().reshape(undescribed);
    const r = await svc.run(['export', '--only', 'roles'], through());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('      - name: fx-helper\n        permissions: [exception.read]\n');
    expect(r.stdout).not.toContain('description');
    expect(r.stderr).toContain(
      'warning: acme-treasury: the platform shows no description of custom role fx-helper, so it is exported without one\n',
    );
  });
  it('is said only where roles are exported, or declared with a description to compare (review19c F8)', async () => {
    proxy().reshape(undescribed);
    for (const only of ['webhooks', 'grants']) {
      const r = await svc.run(['export', '--only', only], through());
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('shows no description');
    }
    const hooks = writeFile(
      dir,
      'hooks.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    webhooks:\n      - url: https://example.com/in\n        event_types: [exception.created]\n',
    );
    const plain = writeFile(
      dir,
      'plain.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - name: fx-helper\n        permissions: [exception.read]\n',
    );
    for (const file of [hooks, plain]) {
      const r = await svc.run(['plan', '-f', file], through());
      expect(r.stderr, file).not.toContain('shows no description');
      expect(r.stderr.length, file).toBeGreaterThan(0);
    }
  });
});
