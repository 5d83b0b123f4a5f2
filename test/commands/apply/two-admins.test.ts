import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// Two admins at once (attack28b): another admin changes a role between apply's last check and its
// own write. The order is forced at the proxy (the other admin acts, to completion, before apply's
// request is forwarded); nothing depends on timing.
const svc = useSandboxContext({ users: 20 });
const dir = useTempDir('svc-two-admins-');
const real = { clock: { now: () => Date.now() } };

/** Before forwarding the next `method path`, what the other admin does (once). */
let meanwhile:
  | { method: string; path: string; act: () => Promise<unknown>; match?: (m: string, p: string) => boolean }
  | undefined;
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: async (method, path) => {
    const other = meanwhile;
    if (!other) return;
    if (other.match ? !other.match(method, path) : method !== other.method || path !== other.path) return;
    meanwhile = undefined;
    await other.act();
  },
});

const roleFile = (slug: string, name: string, permissions: string[]) =>
  `version: 1\nblocks:\n  - tenants: ${slug}\n    roles:\n      - { name: ${name}, permissions: [${permissions.join(', ')}] }\n`;

/** The other admin's PATCH of `path`, made before apply's first request about it is forwarded. */
const otherAdminPatches = (tenant: string, path: string, body: Record<string, unknown>) => {
  meanwhile = {
    method: '*',
    path: '',
    match: (_m, p) => p === path,
    act: () => as(svc.sandbox(), tenant, 'PATCH', path, body),
  };
};

/** `svc apply -f file` through the proxy: its exit code checked, the row of `kind` given back. */
const applied = async (slug: string, file: string, kind: string, code: number) => {
  const env = { SVC_BASE_URL: proxy().url, SVC_TENANT: tenantId(slug) };
  const run = await svc.run(['apply', '-f', file, '--yes', '--ndjson'], { ...real, env });
  expect(meanwhile).toBeUndefined();
  expect(run.code, run.stdout + run.stderr).toBe(code);
  return ndjson(run.stdout).find((r) => r.kind === kind && r.status !== undefined);
};

/** A webhook on `exception.created` and a file asking for it on `exception.resolved` too. */
const webhookAndFile = async (slug: string, name: string) => {
  const url = `https://hooks.example.com/${name}`;
  const hook = await as(svc.sandbox(), tenantId(slug), 'POST', '/v1/webhooks', {
    url,
    event_types: ['exception.created'],
  });
  const file = writeFile(
    dir,
    `${name}.yaml`,
    `version: 1\nblocks:\n  - tenants: ${slug}\n    webhooks:\n      - { id: ${hook.id}, url: "${url}", event_types: [exception.created, exception.resolved] }\n`,
  );
  return { hook, file };
};

/** A role described 'old words' and a file giving it `description`. */
const describedRoleAndFile = async (slug: string, name: string, description: string) => {
  const role = await as(svc.sandbox(), tenantId(slug), 'POST', '/v1/roles', {
    name,
    description: 'old words',
    permissions: ['exception.read'],
  });
  const file = writeFile(
    dir,
    `${name}.yaml`,
    `version: 1\nblocks:\n  - tenants: ${slug}\n    roles:\n      - { name: ${name}, description: "${description}", permissions: [exception.read] }\n`,
  );
  return { role, file };
};

describe('svc apply: a role another admin changed after the plan was checked', () => {
  it.each([
    ['-f FILE', 'acme-labs', 'fx-ops-f', false],
    ['a saved plan', 'acme-apac', 'fx-ops-p', true],
  ])(
    'from %s: sends only its own change, keeps the other admin’s, and does not say ok',
    async (_how, slug, name, saved) => {
      const tenant = tenantId(slug);
      const env = { SVC_BASE_URL: proxy().url, SVC_TENANT: tenant };
      const role = await as(svc.sandbox(), tenant, 'POST', '/v1/roles', {
        name,
        permissions: ['exception.read', 'exception.write', 'rule.read'],
      });
      const file = writeFile(
        dir,
        `${name}.yaml`,
        roleFile(slug, name, ['exception.read', 'exception.write', 'rule.read', 'exception.assign']),
      );
      let from = ['-f', file];
      if (saved) {
        const plan = join(dir, `${name}.plan.json`);
        const planned = await svc.run(['plan', '-f', file, '--out', plan], { ...real, env });
        expect(planned.code, planned.stderr).toBe(10);
        from = [plan];
      }
      // The other admin takes exception.write away once apply has checked, before its write lands.
      meanwhile = {
        method: 'PATCH',
        path: `/v1/roles/${role.id}`,
        act: () =>
          as(svc.sandbox(), tenant, 'PATCH', `/v1/roles/${role.id}`, {
            remove_permissions: ['exception.write'],
          }),
      };
      const run = await svc.run(['apply', ...from, '--yes', '--ndjson'], { ...real, env });
      expect(meanwhile).toBeUndefined();
      // The other admin's removal stands; apply's own addition is made.
      const after = await as(svc.sandbox(), tenant, 'GET', `/v1/roles/${role.id}`);
      expect([...after.permissions].sort()).toEqual(['exception.assign', 'exception.read', 'rule.read']);
      expect(run.code, run.stderr).toBe(7);
      const row = ndjson(run.stdout).find((r) => r.kind === 'role' && r.name === name);
      expect(row).toMatchObject({
        action: 'update',
        status: 'failed',
        error: { code: 'role_changed_meanwhile' },
      });
      expect(row.error.message).toBe(
        `its change was made, but the role lacks exception.write, which the plan did not set: someone changed it since the plan; see svc --tenant ${slug} roles get ${name}`,
      );
    },
  );
});

describe('svc apply --prune: a grant made after its last check, ended by the delete', () => {
  it('the row says the delete ended a grant the plan did not know, and where to see whose', async () => {
    const slug = 'acme-ledger-uk';
    const tenant = tenantId(slug);
    const env = { SVC_BASE_URL: proxy().url, SVC_TENANT: tenant };
    const role = await as(svc.sandbox(), tenant, 'POST', '/v1/roles', {
      name: 'tmp-del',
      permissions: ['exception.read'],
    });
    const file = writeFile(
      dir,
      'tmp-del.yaml',
      `version: 1\nmanage: {roles: all}\nblocks:\n  - tenants: ${slug}\n    roles: []\n`,
    );
    // The other admin grants the role after apply's check of its holders, before its DELETE lands.
    meanwhile = {
      method: 'DELETE',
      path: `/v1/roles/${role.id}`,
      act: () =>
        as(svc.sandbox(), tenant, 'POST', `/v1/users/${user(5)}/roles`, {
          role_id: role.id,
          justification: 'B needs this',
        }),
    };
    const run = await svc.run(['apply', '-f', file, '--prune', '--yes', '--ndjson'], { ...real, env });
    expect(meanwhile).toBeUndefined();
    expect(run.code, run.stderr).toBe(7);
    const row = ndjson(run.stdout).find((r) => r.kind === 'role' && r.name === 'tmp-del');
    expect(row).toMatchObject({ action: 'delete', status: 'failed', error: { code: 'role_grants_ended' } });
    expect(row.error.message).toBe(
      `deleted, but it ended 1 grant made after svc's last check (1 ended, 0 planned): someone granted the role meanwhile; see whose in svc --tenant ${slug} audit ls --action role.revoked --role ${role.id}, and grant what they need again`,
    );
  });
});

// A field the platform takes only whole (no add/remove form): another admin's change of it made
// after apply's check, before its write, would be undone by the write. The other admin acts before
// the first request about the resource itself after the plan (today's code: the write; apply's read
// just before its write, once it makes one), so the order is the same for either.
describe('svc apply: a field sent whole that another admin changed after the plan was checked', () => {
  const refused = (fields: string, them: string, check: string) =>
    `not updated: its ${fields} changed since the plan was checked: someone changed ${them} meanwhile, and sending the plan's ${fields} would undo that; nothing of this change was sent; see ${check}, and plan again`;
  it("a webhook's event_types: the row fails changed_meanwhile and the other admin's list stands", async () => {
    const slug = 'acme-labs';
    const tenant = tenantId(slug);
    const { hook, file } = await webhookAndFile(slug, 'two-admins');
    otherAdminPatches(tenant, `/v1/webhooks/${hook.id}`, {
      event_types: ['exception.created', 'reconciliation.failed'],
    });
    const row = await applied(slug, file, 'webhook', 7);
    expect(row).toMatchObject({ status: 'failed', error: { code: 'changed_meanwhile' } });
    expect(row.error.message).toBe(
      refused('event_types', 'it', `svc --tenant ${slug} webhooks get ${hook.id}`),
    );
    const after = await as(svc.sandbox(), tenant, 'GET', `/v1/webhooks/${hook.id}`);
    expect([...after.event_types].sort()).toEqual(['exception.created', 'reconciliation.failed']);
  });

  it("an OAuth client's redirect_uris: the row fails changed_meanwhile and the other admin's stand", async () => {
    const slug = 'acme-apac';
    const tenant = tenantId(slug);
    const client = await as(svc.sandbox(), tenant, 'POST', '/v1/oauth/clients', {
      name: 'two-admins-portal',
      redirect_uris: ['https://portal.example.com/cb'],
      scopes: ['read:reconciliations'],
    });
    const file = writeFile(
      dir,
      'client.yaml',
      `version: 1\nblocks:\n  - tenants: ${slug}\n    oauth_clients:\n      - { name: two-admins-portal, redirect_uris: ["https://portal.example.com/cb", "https://portal.example.com/cb2"], scopes: [read:reconciliations] }\n`,
    );
    const uris = ['https://other.example.com/cb', 'https://portal.example.com/cb'];
    otherAdminPatches(tenant, `/v1/oauth/clients/${client.client_id}`, { redirect_uris: uris });
    const row = await applied(slug, file, 'oauth_client', 7);
    expect(row).toMatchObject({ status: 'failed', error: { code: 'changed_meanwhile' } });
    expect(row.error.message).toBe(
      refused('redirect_uris', 'it', `svc --tenant ${slug} oauth get ${client.client_id}`),
    );
    const after = await as(svc.sandbox(), tenant, 'GET', `/v1/oauth/clients/${client.client_id}`);
    expect([...after.redirect_uris].sort()).toEqual(uris);
  });

  it("a role's description: the row fails changed_meanwhile and the other admin's stands", async () => {
    const slug = 'acme-ledger-uk';
    const tenant = tenantId(slug);
    const { role, file } = await describedRoleAndFile(slug, 'desc-ops', "A's words");
    otherAdminPatches(tenant, `/v1/roles/${role.id}`, { description: "B's words" });
    const row = await applied(slug, file, 'role', 7);
    expect(row).toMatchObject({ status: 'failed', error: { code: 'changed_meanwhile' } });
    expect(row.error.message).toBe(refused('description', 'it', `svc --tenant ${slug} roles get desc-ops`));
    const after = await as(svc.sandbox(), tenant, 'GET', `/v1/roles/${role.id}`);
    expect(after.description).toBe("B's words");
  });

  it("a grant's expiry: the row fails changed_meanwhile and the other admin's expiry stands", async () => {
    const slug = 'acme-labs';
    const tenant = tenantId(slug);
    const role = await as(svc.sandbox(), tenant, 'POST', '/v1/roles', {
      name: 'exp-ops',
      permissions: ['exception.read'],
    });
    const who = user(7);
    await as(svc.sandbox(), tenant, 'POST', `/v1/users/${who}/roles`, {
      role_id: role.id,
      expires_at: '2031-01-01T00:00:00Z',
      justification: 'on call',
    });
    const file = writeFile(
      dir,
      'exp.yaml',
      `version: 1\nblocks:\n  - tenants: ${slug}\n    grants:\n      - { user: ${who}, role: exp-ops, expires_at: 2032-01-01T00:00:00Z, justification: A extends }\n`,
    );
    const grant = `/v1/users/${who}/roles/${role.id}`;
    meanwhile = {
      method: '*',
      path: '',
      // Today's code: the write; with the read before it: the one that names this user.
      match: (m, p) =>
        p === grant || (m === 'GET' && p.startsWith('/v1/role-assignments') && p.includes(who)),
      act: () =>
        as(svc.sandbox(), tenant, 'PATCH', grant, {
          expires_at: '2030-06-01T00:00:00Z',
          justification: 'B shortens',
        }),
    };
    const row = await applied(slug, file, 'grant', 7);
    expect(row).toMatchObject({ status: 'failed', error: { code: 'changed_meanwhile' } });
    expect(row.error.message).toBe(refused('expires_at', 'it', `svc --tenant ${slug} roles holders exp-ops`));
    const held = await as(
      svc.sandbox(),
      tenant,
      'GET',
      `/v1/role-assignments?role_id=${role.id}&user_id=${who}`,
    );
    expect(held.items.map((a: { expires_at: string }) => a.expires_at)).toEqual(['2030-06-01T00:00:00Z']);
  });
});

// The other admin made the file's own change meanwhile (review28d M1): nothing would be undone, the
// change is made already; the row says so and svc sends nothing, exit 0.
describe('svc apply: a field sent whole that another admin set to the file’s own value meanwhile', () => {
  const madeAlready = (fields: string) =>
    `its ${fields} already holds the file's value: someone made this change since the plan was checked; svc sent nothing`;

  it("a webhook's event_types: skipped already_done, nothing sent, exit 0", async () => {
    const slug = 'acme-apac';
    const { hook, file } = await webhookAndFile(slug, 'two-admins-same');
    otherAdminPatches(tenantId(slug), `/v1/webhooks/${hook.id}`, {
      event_types: ['exception.resolved', 'exception.created'],
    });
    const row = await applied(slug, file, 'webhook', 0);
    expect(row).toMatchObject({
      status: 'skipped',
      reason: 'already_done',
      note: madeAlready('event_types'),
    });
  });

  it("a role's description: skipped already_done, exit 0", async () => {
    const slug = 'acme-labs';
    const { role, file } = await describedRoleAndFile(slug, 'desc-same', 'new words');
    otherAdminPatches(tenantId(slug), `/v1/roles/${role.id}`, { description: 'new words' });
    const row = await applied(slug, file, 'role', 0);
    expect(row).toMatchObject({
      status: 'skipped',
      reason: 'already_done',
      note: madeAlready('description'),
    });
  });

  // Session 28's leftover: a grant's expiry found at the file's value skips the write, and with it
  // the file's justification, which the audit trail then never records (it keeps the other admin's,
  // of the write that set it). The row says so, never a silent already_done.
  it("a grant's expiry: skipped already_done, saying the file's justification was not sent", async () => {
    const slug = 'acme-labs';
    const tenant = tenantId(slug);
    const role = await as(svc.sandbox(), tenant, 'POST', '/v1/roles', {
      name: 'exp-same',
      permissions: ['exception.read'],
    });
    const who = user(8);
    await as(svc.sandbox(), tenant, 'POST', `/v1/users/${who}/roles`, {
      role_id: role.id,
      expires_at: '2031-01-01T00:00:00Z',
      justification: 'on call',
    });
    const file = writeFile(
      dir,
      'exp-same.yaml',
      `version: 1\nblocks:\n  - tenants: ${slug}\n    grants:\n      - { user: ${who}, role: exp-same, expires_at: 2032-01-01T00:00:00Z, justification: A extends }\n`,
    );
    const grant = `/v1/users/${who}/roles/${role.id}`;
    meanwhile = {
      method: '*',
      path: '',
      match: (m, p) =>
        p === grant || (m === 'GET' && p.startsWith('/v1/role-assignments') && p.includes(who)),
      act: () =>
        as(svc.sandbox(), tenant, 'PATCH', grant, {
          expires_at: '2032-01-01T00:00:00Z',
          justification: 'B extends',
        }),
    };
    const row = await applied(slug, file, 'grant', 0);
    expect(row).toMatchObject({
      status: 'skipped',
      reason: 'already_done',
      justification_not_sent: true,
      note: `${madeAlready('expires_at')}; the file's justification was not sent: the audit trail keeps the justification of the change that set the grant, not the file's`,
    });
  });
});
