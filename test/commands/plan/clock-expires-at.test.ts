import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { user, writeFile, writes } from '../../helpers/ascode.js';
import { call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// An access file's expires_at is judged "in the past" at the platform's time, as its expires_in
// counts from it (review s7, finding 1): with the platform ahead, svc plan no longer promises a
// grant the platform refuses; with it behind, a fresh export is not refused. The sandbox's clock
// is moved ahead 2 h; "this machine ahead" is a Context clock 4 h ahead of the real one.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-plan-expires-at-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const real = { clock: { now: () => Date.now() } };
const machineAhead = { clock: { now: () => Date.now() + 4 * HOUR } };

const grant = (n: number, at: string) =>
  `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${user(n)}\n        role: tenant_viewer\n        expires_at: "${at}"\n        justification: skew\n`;

describe('an access file expires_at, on a platform whose clock differs', () => {
  it('the sandbox clock moves 2 hours ahead', async () => {
    const r = await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 7200 } });
    expect(r.status).toBe(200);
  });

  it('platform ahead: svc plan and svc apply -f refuse a time past on the platform, future on this machine', async () => {
    const at = isoSeconds(Date.now() + 30 * MINUTE);
    const file = writeFile(dir, 'ahead.yaml', grant(1, at));
    const expected = `${file}:7: "expires_at" ${at} is in the past\nerror: 1 problem in ${file}; nothing was compared or changed; fix them and run the command again\n`;
    const planned = await svc.run(['plan', '-f', file], real);
    expect(planned).toEqual({ code: 2, stdout: '', stderr: expected });

    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--yes', '--journal', join(dir, 'j1')], real);
    expect(applied).toEqual({ code: 2, stdout: '', stderr: expected });
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('platform ahead: a time still future on the platform is planned', async () => {
    const at = isoSeconds((await sandboxNow(svc.sandbox())) + 30 * MINUTE);
    const file = writeFile(dir, 'ahead-ok.yaml', grant(2, at));
    const r = await svc.run(['plan', '-f', file, '--json'], real);
    expect(r.code, r.stderr).toBe(10);
    expect(JSON.parse(r.stdout).tenants[0].changes[0].grant.expires_at).toBe(at);
  });

  it('platform behind: svc plan of a fresh export shows no changes', async () => {
    const platformNow = await sandboxNow(svc.sandbox());
    const assigned = await svc.run(
      [
        'roles',
        'assign',
        user(3),
        'tenant_viewer',
        '--tenant',
        'acme-labs',
        '--expires-in',
        '1h',
        '--justification',
        'skew',
        '--json',
      ],
      real,
    );
    expect(assigned.code, assigned.stderr).toBe(0);
    const exported = join(dir, 'export.yaml');
    const ex = await svc.run(
      ['export', '--tenant', 'acme-labs', '--only', 'grants', '-o', exported],
      machineAhead,
    );
    expect(ex.code, ex.stderr).toBe(0);
    const at = JSON.parse(assigned.stdout).expires_at as string;
    expect(Date.parse(at)).toBeGreaterThan(platformNow);
    // On this machine's clock (4 h ahead), the grant's expiry is 1 h in the past.
    expect(Date.parse(at)).toBeLessThan(machineAhead.clock.now());
    expect(readFileSync(exported, 'utf8')).toContain(`expires_at: "${at}"`);
    const r = await svc.run(['plan', '-f', exported], machineAhead);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('an offline check does not judge expires_at: the platform’s clock is not known', async () => {
    const file = writeFile(
      dir,
      'offline.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: usr_a\n        role: tenant_viewer\n        expires_at: "2020-01-01T00:00:00Z"\n      - user: usr_b\n        rol: tenant_viewer\n`,
    );
    const r = await svc.run(['plan', '-f', file], {
      env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('in the past');
    expect(r.stderr).toContain('expiry times');
  });
});
