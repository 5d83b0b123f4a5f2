import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, useHostileServer } from '../../helpers/hostile.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { tempDir } from '../../helpers/temp.js';

// Tenants by slug or id wherever a tenant is named (issue 13): --tenant and SVC_TENANT take a
// slug, `config set tenant` is checked when the server can be asked, api-keys default to the
// profile's tenant, and a well-formed id never needs a lookup.
const svc = useSandboxContext({ tenants: 1 });
const EU = tenantId('acme-payments-eu');
const server = useHostileServer();
const dirs = useTempDirs();

describe('a tenant named by its slug', () => {
  it.each([
    ['--tenant', ['--tenant', 'acme-payments-eu'], {}],
    ['SVC_TENANT', [], { SVC_TENANT: 'acme-payments-eu' }],
  ])('%s acme-payments-eu acts in that tenant', async (_how, flags, env) => {
    const me = await svc.run([...flags, 'me', '--json'], { env });
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).tenant_id).toBe(EU);
    const roles = await svc.run([...flags, 'roles', 'ls', '--builtin'], { env });
    expect(roles.code, roles.stderr).toBe(0);
  });

  it('an unknown slug is not found (exit 5) with a suggestion, not a misleading 403', async () => {
    const r = await svc.run(['--tenant', 'acme-paymnts-eu', 'roles', 'ls']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      5,
      '',
      'error: no tenant "acme-paymnts-eu" (from --tenant) among your tenants (did you mean acme-payments-eu?); yours: acme-treasury, acme-payments-eu, acme-ledger-uk, acme-apac, acme-labs (see `svc tenants ls`)\n',
    ]);
  });
});

describe('a tenant that exists but is not one of yours', () => {
  // bulk-000001 is in the organisation (`svc tenants ls` lists it for the org_admin) but not in the
  // credential: by slug as by id, that is a refusal (exit 4), not a tenant that does not exist.
  const BULK = 'ba385045-4c07-5fe8-a85a-949cad30674c';
  const ORG = { SVC_ORG: 'org_demo' };
  it.each([
    [
      'its slug',
      'bulk-000001',
      `error: tenant "bulk-000001" (from --tenant, ${BULK}) is not one of your credential's tenants, or you hold no role there; yours: acme-treasury, acme-payments-eu, acme-ledger-uk, acme-apac, acme-labs; ask an administrator of bulk-000001 for a role, or use a credential that names it\n`,
    ],
  ])('named by %s: exit 4, no hint to look for it in `svc tenants ls`', async (_how, ref, stderr) => {
    expect(tenantId('bulk-000001')).toBe(BULK);
    const listed = await svc.run(['tenants', 'ls', '--all'], { env: ORG });
    expect(listed.stdout).toContain('bulk-000001');
    const r = await svc.run(['--tenant', ref, 'roles', 'ls'], { env: ORG });
    expect([r.code, r.stdout, r.stderr]).toEqual([4, '', stderr]);
    const byId = await svc.run(['--tenant', BULK, 'roles', 'ls'], { env: ORG });
    expect(byId.code).toBe(4);
  });

  it('config set tenant refuses it too, and saves nothing', async () => {
    const env = { SVC_TENANT: undefined, ...ORG };
    const bad = await svc.run(['config', 'set', 'tenant', 'bulk-000001'], { env });
    expect(bad.code, bad.stderr).toBe(4);
    expect((await svc.run(['config', 'get', 'tenant'], { env })).stdout).not.toContain('bulk-000001');
  });
});

describe('svc config set tenant', () => {
  it('checks the tenant against yours when it can: known is saved, unknown refused (exit 5)', async () => {
    const env = { SVC_TENANT: undefined };
    const ok = await svc.run(['config', 'set', 'tenant', 'acme-apac'], { env });
    expect([ok.code, ok.stderr]).toEqual([
      0,
      `✓ set tenant for profile "default" (a new profile, now the active one): Acme APAC (acme-apac, ${tenantId('acme-apac')})\n`,
    ]);
    const bad = await svc.run(['config', 'set', 'tenant', 'acme-apak'], { env });
    expect(bad.code, bad.stderr).toBe(5);
    expect(bad.stderr).toMatch(
      /^error: no tenant "acme-apak" among your tenants \(did you mean acme-apac\?\)/,
    );
    const kept = await svc.run(['config', 'get', 'tenant'], { env });
    expect(kept.stdout).toBe('acme-apac\n');
  });

  it('saves with a warning when the server cannot be asked', async () => {
    const r = await runInProcess(['config', 'set', 'tenant', 'acme-apac'], {
      ...dirs(),
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_TOKEN: 'x',
      SVC_MAX_RETRIES: '0',
      NO_COLOR: '1',
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: saved without checking that acme-apac is one of your tenants: .*connect.*\n✓ set tenant for profile "default" \(a new profile, now the active one\)\n$/s,
    );
  });
});

describe('svc tenants api-keys', () => {
  it("defaults to the profile's tenant, and takes any other by slug", async () => {
    await svc.run(['tenants', 'api-keys', 'create', '--kind', 'publishable', '--name', 'mine']);
    const mine = await svc.run(['tenants', 'api-keys', 'ls', '--json']);
    expect(mine.code, mine.stderr).toBe(0);
    expect(JSON.parse(mine.stdout).map((k: { name: string }) => k.name)).toContain('mine');
    // Without SVC_TENANT: a tenant given by it or --tenant bounds the run, and an argument naming
    // another is refused (attack24c F3, api-keys-tenant-arg.test.ts).
    const other = await svc.run(['tenants', 'api-keys', 'ls', 'acme-payments-eu', '--json'], {
      env: { SVC_TENANT: undefined },
    });
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout).every((k: { tenant_id: string }) => k.tenant_id === EU)).toBe(true);
  });

  it('a well-formed tenant id needs no lookup: one request, the one asked for', async () => {
    const s = await server();
    s.answer(answers.json(200, { items: [] }));
    const id = '11111111-2222-4333-8444-555555555555';
    const r = await runInProcess(['--tenant', id, 'tenants', 'api-keys', 'ls', id, '--json'], {
      ...dirs(),
      SVC_BASE_URL: s.url,
      SVC_TOKEN: 'test-token',
      NO_COLOR: '1',
    });
    expect([r.code, r.stdout]).toEqual([0, '[]\n']);
    expect(s.seen.map((q) => `${q.method} ${q.url} ${q.headers['x-tenant-id']}`)).toEqual([
      `GET /v1/tenants/${id}/api-keys ${id}`,
    ]);
  });
});

describe('a tenant id in upper case (RFC 9562: UUIDs are case-insensitive on input)', () => {
  it('--tenant, SVC_TENANT and a TENANT argument are sent in lower case, to a server that compares them as they are', async () => {
    const s = await server();
    s.answer(answers.json(200, { items: [] }));
    const id = 'abcdef12-2222-4333-8444-55555555abcd';
    const upper = id.toUpperCase();
    const env = { ...dirs(), SVC_BASE_URL: s.url, SVC_TOKEN: 'test-token', NO_COLOR: '1' };
    const flag = await runInProcess(['--tenant', upper, 'tenants', 'api-keys', 'ls', upper, '--json'], env);
    const fromEnv = await runInProcess(['tenants', 'api-keys', 'ls', '--json'], {
      ...env,
      SVC_TENANT: upper,
    });
    expect([flag.code, flag.stdout, fromEnv.code, fromEnv.stdout]).toEqual([0, '[]\n', 0, '[]\n']);
    expect(s.seen.map((q) => `${q.method} ${q.url} ${q.headers['x-tenant-id']}`)).toEqual([
      `GET /v1/tenants/${id}/api-keys ${id}`,
      `GET /v1/tenants/${id}/api-keys ${id}`,
    ]);
  });

  it('acts in that tenant against the sandbox', async () => {
    const r = await svc.run(['--tenant', EU.toUpperCase(), 'me', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).tenant_id).toBe(EU);
  });

  // Every place that looks a tenant up among the caller's own (export, an access file's
  // `tenants:`, config set tenant) goes through the one rule of src/api/tenant-id.ts.
  const LABS = tenantId('acme-labs');
  const UPPER = LABS.toUpperCase();
  const onlyTenant = (yaml: string) => (yaml.match(/^ {2}- tenants: (\S+)/m) ?? [])[1];

  it.each([
    ['--tenant', ['--tenant', UPPER], {}],
    ['SVC_TENANT', [], { SVC_TENANT: UPPER }],
  ])('svc export with %s in upper case exports that tenant', async (_how, flags, env) => {
    const r = await svc.run([...flags, 'export', '--only', 'roles'], { env });
    expect([r.code, r.stderr]).toEqual([0, 'exported 0 custom roles of 1 tenant\n']);
    expect(onlyTenant(r.stdout)).toBe('acme-labs');
  });

  it("an access file's `tenants:` in upper case is that tenant (svc plan)", async () => {
    const dir = tempDir('svc-upper-');
    const file = join(dir, 'f.yaml');
    writeFileSync(file, `version: 1\nblocks:\n  - tenants: ${UPPER}\n    roles: []\n`);
    // Without SVC_TENANT: it bounds svc plan to acme-treasury.
    const r = await svc.run(['plan', '-f', file], { env: { SVC_TENANT: undefined } });
    expect([r.code, r.stderr]).toEqual([0, `no changes: the live state of 1 tenant matches ${file}\n`]);
  });

  it("a tenant seen but not held, named in upper case, is told as such (exit 4), not as someone else's", async () => {
    const BULK = tenantId('bulk-000001');
    const r = await svc.run(['--tenant', BULK.toUpperCase(), 'export'], { env: { SVC_ORG: 'org_demo' } });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(
      /^error: you are \S+ in bulk-000001, which lets you see it but gives no role there/,
    );
  });

  it('svc config set tenant takes it, and saves it in lower case', async () => {
    const env = { SVC_TENANT: undefined };
    const ok = await svc.run(['config', 'set', 'tenant', UPPER], { env });
    expect([ok.code, ok.stderr]).toEqual([
      0,
      `✓ set tenant for profile "default": Acme Labs (acme-labs, ${LABS})\n`,
    ]);
    const kept = await svc.run(['config', 'get', 'tenant'], { env });
    expect(kept.stdout).toBe(`${LABS}\n`);
  });
});
