import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LABS, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, near, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// An access file's expires_in counts from the platform's clock when it differs from this
// machine's by more than a minute, as `roles assign --expires-in` does: svc plan shows (and a
// saved plan keeps) the expiry svc apply then grants. The sandbox's clock is moved ahead 2 h.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-skew-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MINUTE = 60_000;
const real = { clock: { now: () => Date.now() } };
const AHEAD =
  "warning: the platform's clock is 2 h ahead of this machine's; durations (expires_in) were counted from the platform's time";

const grants = (n: number, expires = 'expires_in: 30m') =>
  `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${user(n)}\n        role: tenant_viewer\n        ${expires}\n        justification: skew\n`;

async function heldUntil(n: number): Promise<string | null | undefined> {
  const r = await call(svc.sandbox(), 'GET', `/v1/users/${user(n)}/roles`, {
    token: svc.sandbox().adminToken,
    tenant: LABS,
  });
  const items = r.body.items as Array<{
    role_name?: string;
    role_id: string;
    status: string;
    expires_at: string | null;
  }>;
  return items.find((a) => a.status === 'active' && a.role_id.length > 0 && a.role_name !== 'tenant_admin')
    ?.expires_at;
}

describe('svc plan and svc apply on a platform whose clock differs', () => {
  it('the sandbox clock moves 2 hours ahead', async () => {
    const r = await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 7200 } });
    expect(r.status).toBe(200);
  });

  it('svc plan -f counts expires_in from the platform time; its anchor is the platform time', async () => {
    const file = writeFile(dir, 'plan.yaml', grants(1));
    const r = await svc.run(['plan', '-f', file, '--json'], real);
    expect(r.code, r.stderr).toBe(10);
    const doc = JSON.parse(r.stdout);
    const now = await sandboxNow(svc.sandbox());
    expect(near(doc.anchor, now), doc.anchor).toBe(true);
    const [change] = doc.tenants[0].changes;
    expect(change.grant.expires_at).toBe(
      new Date(Date.parse(doc.anchor) + 30 * MINUTE).toISOString().replace('.000', ''),
    );
    expect(r.stderr.split('\n')[0]).toBe(AHEAD);
  });

  it('svc apply -f grants for as long as asked, on the platform clock', async () => {
    const file = writeFile(dir, 'apply.yaml', grants(2));
    const r = await svc.run(['apply', '-f', file, '--yes', '--ndjson', '--journal', join(dir, 'aj')], real);
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).map((x) => x.status)).toEqual(['ok']);
    expect(near(await heldUntil(2), (await sandboxNow(svc.sandbox())) + 30 * MINUTE)).toBe(true);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([AHEAD]);
  });

  it('svc apply PLAN.json grants the expiry the saved plan showed, after the platform clock moved again', async () => {
    const file = writeFile(dir, 'saved.yaml', grants(3, 'expires_in: 1h'));
    const out = join(dir, 'plan.json');
    const planned = await svc.run(['plan', '-f', file, '--out', out], real);
    expect(planned.code, planned.stderr).toBe(10);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const promised = doc.tenants[0].changes[0].grant.expires_at;
    expect(near(promised, (await sandboxNow(svc.sandbox())) + 60 * MINUTE), promised).toBe(true);
    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 300 } });
    const r = await svc.run(['apply', out, '--yes', '--ndjson', '--journal', join(dir, 'pj')], real);
    expect(r.code, r.stderr).toBe(0);
    expect(await heldUntil(3)).toBe(promised);
  });

  it('says nothing when the file has no duration', async () => {
    const file = writeFile(dir, 'at.yaml', grants(4, 'expires_at: 2032-01-01T00:00:00Z'));
    const r = await svc.run(['plan', '-f', file], real);
    expect(r.code, r.stderr).toBe(10);
    expect(r.stderr).not.toContain('warning');
  });
});
