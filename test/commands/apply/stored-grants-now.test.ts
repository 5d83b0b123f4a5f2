import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, user, writeFile } from '../../helpers/ascode.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// review19d F5, in `svc apply`: a grant step whose answers were all lost (an unknown outcome, the
// journal kept), the grant revoked by another admin meanwhile, then the same command: the platform
// answers the step's key with its stored grant (Idempotent-Replayed), which svc counted applied
// while the user held nothing. A step answered from the record is read again before it is counted.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-stored-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };
/** While true, every grant's answer is lost (503 after the sandbox made it, every retry too). */
let losing = false;
/**
 * review20 F6: a user whose first grant answer is lost (the retry passes, answered from the record)
 * and whose grants are then listed without it for `reads` reads (a server whose reads lag).
 */
let lagging: { user: string; roleId: string; reads: number; armed: boolean } | undefined;
const grantPath = /^\/v1\/users\/([^/]+)\/roles$/;
const proxy = useLossyProxy(svc.sandbox, {
  lose: (method, path, seen) => {
    const target = method === 'POST' ? grantPath.exec(path)?.[1] : undefined;
    if (target === undefined) return false;
    if (lagging?.user === target) {
      lagging.armed = true;
      return seen === 1;
    }
    return losing;
  },
  reshape: (method, path, status, text) => {
    const lag = lagging;
    if (method !== 'GET' || !lag?.armed || lag.reads === 0 || !path.startsWith(`/v1/users/${lag.user}/roles`))
      return undefined;
    lag.reads--;
    const body = JSON.parse(text) as { items: Array<{ role_id: string }> };
    body.items = body.items.filter((a) => a.role_id !== lag.roleId);
    return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  },
});

describe('svc apply resumed: a grant answered from the record is checked against what holds now', () => {
  it('revoked since: the step fails (changed_since), exit 7, never applied; the same command grants it anew', async () => {
    const role = await as(svc.sandbox(), LABS, 'POST', '/v1/roles', {
      name: 'stored-apply',
      permissions: ['exception.read'],
    });
    const file = writeFile(
      dir,
      'stored.yaml',
      `version: 1
blocks:
  - tenants: acme-labs
    grants:
      - users: [${user(6)}]
        role: stored-apply
        expires_in: 30d
        justification: stored answer test
`,
    );
    const env = { SVC_STATE_DIR: join(dir, 'state'), SVC_BASE_URL: proxy().url };
    const argv = ['apply', '-f', file, '--yes', '--json'];
    losing = true;
    const first = await svc.run(argv, { ...real, env });
    losing = false;
    expect(first.code).toBe(7);
    // Granted all the same; revoked by another admin meanwhile.
    await as(svc.sandbox(), LABS, 'DELETE', `/v1/users/${user(6)}/roles/${role.id}`);

    const again = await svc.run(argv, { ...real, env });
    const rows = JSON.parse(again.stdout) as Array<{
      status: string;
      error?: { code: string; message: string };
    }>;
    expect(rows.map((r) => [r.status, r.error?.code])).toEqual([['failed', 'changed_since']]);
    expect(rows[0]?.error?.message).toMatch(
      new RegExp(
        `^granted by the earlier run this one resumes at \\S+Z \\(the platform answered with its record of it\\), but it was revoked at \\S+Z: ${user(6)} does not hold stored-apply now$`,
      ),
    );
    expect(again.code).toBe(7);

    const third = await svc.run(argv, { ...real, env });
    expect([third.code, JSON.parse(third.stdout).map((r: { status: string }) => r.status)]).toEqual([
      0,
      ['ok'],
    ]);
    const held = (await as(svc.sandbox(), LABS, 'GET', `/v1/users/${user(6)}/roles`)).items;
    expect(
      held.filter((a: { role_id: string; status: string }) => a.role_id === role.id && a.status === 'active'),
    ).toHaveLength(1);
  });

  it('review20 F6: a grant this run made (its answer lost) that a lagging read lists only on the third is applied, exit 0', async () => {
    const role = await as(svc.sandbox(), LABS, 'POST', '/v1/roles', {
      name: 'lagging-apply',
      permissions: ['exception.read'],
    });
    const file = writeFile(
      dir,
      'lagging.yaml',
      `version: 1
blocks:
  - tenants: acme-labs
    grants:
      - users: [${user(7)}]
        role: lagging-apply
        expires_in: 30d
        justification: lagging read test
`,
    );
    const env = { SVC_STATE_DIR: join(dir, 'state-lag'), SVC_BASE_URL: proxy().url };
    lagging = { user: user(7), roleId: role.id, reads: 2, armed: false };
    const waited: number[] = [];
    const clock = {
      now: () => Date.now(),
      sleep: async (ms: number) => {
        waited.push(ms);
      },
    };
    const run = await svc.run(['apply', '-f', file, '--yes', '--json'], { clock, env }).finally(() => {
      lagging = undefined;
    });
    const rows = JSON.parse(run.stdout) as Array<{ status: string; error?: { code: string } }>;
    expect(rows.map((r) => [r.status, r.error?.code])).toEqual([['ok', undefined]]);
    expect(run.code).toBe(0);
    expect(waited.filter((ms) => ms > 0)).toEqual([250, 500]);
  });
});
