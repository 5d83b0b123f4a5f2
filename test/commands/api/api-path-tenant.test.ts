/**
 * `svc api` on a path that names its tenant (/v1/tenants/{id}/…) sends that tenant as
 * X-Tenant-Id, not the profile's (isolation12 f3): the profile's made the platform refuse a
 * header the user never gave ("X-Tenant-Id and the tenant in the path differ"), with no fix.
 */
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, HOSTILE_TENANT, hostileEnv, useHostileServer } from '../../helpers/hostile.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const dirs = useTempDirs();
const server = useHostileServer();
const TREASURY = tenantId('acme-treasury');
const LABS = tenantId('acme-labs');
const WAYNE = tenantId('wayne-clearing');

describe("svc api on /v1/tenants/{id}/…: the path's tenant, not the profile's", () => {
  it("another of the credential's tenants in the path is answered for that tenant", async () => {
    // The profile's tenant is Acme Treasury (SVC_TENANT); the path names Acme Labs.
    const r = await svc.run(['api', `/v1/tenants/${LABS}/api-keys`]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toHaveProperty('items');
  });

  it("a tenant outside the credential: the platform's answer about that tenant (exit 4), not a mismatch", async () => {
    const bruce = svc.sandbox().issueToken('usr_bruce').token;
    const r = await svc.run(['api', `/v1/tenants/${TREASURY}/api-keys`], {
      env: { SVC_TOKEN: bruce, SVC_TENANT: WAYNE },
    });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).error.code).toBe('tenant_forbidden');
    expect(r.stderr).not.toContain('X-Tenant-Id');
  });

  it('sends the decoded path tenant as the header; a -H X-Tenant-Id is still sent as given', async () => {
    const s = await server();
    s.answer(answers.json(200, { items: [] }));
    const other = '00000000-0000-4000-8000-000000000002';
    const own = await runInProcess(['api', `/v1/tenants/${other}/api-keys?limit=5`], {
      ...dirs(),
      ...hostileEnv(s),
    });
    expect(own.code, own.stderr).toBe(0);
    const given = await runInProcess(
      ['api', `/v1/tenants/${other}/api-keys`, '-H', `X-Tenant-Id: ${HOSTILE_TENANT}`],
      { ...dirs(), ...hostileEnv(s) },
    );
    expect(given.code, given.stderr).toBe(0);
    const elsewhere = await runInProcess(['api', '/v1/webhooks'], { ...dirs(), ...hostileEnv(s) });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(s.seen.map((r) => r.headers['x-tenant-id'])).toEqual([other, HOSTILE_TENANT, HOSTILE_TENANT]);
  });

  it('a path naming its tenant by anything but an id sends no X-Tenant-Id: the path decides (review-c f4)', async () => {
    // X-Tenant-Id carries a tenant id (a UUID); a slug in the header would be refused as one.
    const s = await server();
    s.answer(answers.json(200, { items: [] }));
    const r = await runInProcess(['api', '/v1/tenants/acme-treasury/api-keys'], {
      ...dirs(),
      ...hostileEnv(s),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(s.seen.map((q) => q.headers['x-tenant-id'])).toEqual([undefined]);
  });

  it("the sandbox's answer to a slug in the path says what is wrong and how to fix it (exit 2)", async () => {
    const r = await svc.run(['api', '/v1/tenants/acme-treasury/api-keys']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toBe(
      'acme-treasury is not a tenant id: tenants are named by their id (a UUID), in paths and in X-Tenant-Id; GET /v1/tenants lists each with its slug',
    );
  });
});
