import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { advanceClock, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// --expires-at is judged "in the past" at the platform's time, single and as the default of
// --file, as a file's expires_at column is (review s7, finding 2); and the clock-skew warning says
// the offset to the minute, the same in every command (finding 4). The sandbox's clock is moved
// ahead 2 h; "this machine ahead" is a Context clock 4 h ahead of the real one.
const svc = useSandboxContext({ users: 20 });
const dir = useTempDir('svc-expires-at-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const real = { clock: { now: () => Date.now() } };
const machineAhead = { clock: { now: () => Date.now() + 4 * HOUR } };
const user = (n: number) => `usr_bulk_${String(n).padStart(6, '0')}`;
const past = (at: string) =>
  `error: --expires-at ${at} is in the past; give a later time, or --expires-in DURATION (e.g. 8h)\n`;

let files = 0;
function csv(text: string): string {
  const path = join(dir, `f${++files}.csv`);
  writeFileSync(path, text);
  return path;
}

const single = (n: number, at: string, ...extra: string[]) => [
  'roles',
  'assign',
  user(n),
  'tenant_viewer',
  '--expires-at',
  at,
  '--justification',
  'skew',
  ...extra,
];

const advance = (seconds: number) => advanceClock(svc.sandbox(), seconds);

describe('--expires-at on a platform whose clock differs', () => {
  it('the sandbox clock moves 2 hours ahead', async () => {
    await advance(7200);
  });

  it('platform ahead: a time past on the platform is refused, single and with --file, dry run or not', async () => {
    const at = isoSeconds(Date.now() + 30 * MINUTE);
    const path = csv(`user,role,justification\n${user(1)},tenant_viewer,skew\n`);
    const before = await writes(svc.sandbox());
    const dry = await svc.run(['roles', 'assign', '--file', path, '--expires-at', at, '--dry-run'], real);
    expect(dry).toEqual({ code: 2, stdout: '', stderr: past(at) });
    const bulk = await svc.run(
      ['roles', 'assign', '--file', path, '--expires-at', at, '--journal', join(dir, 'j1')],
      real,
    );
    expect(bulk).toEqual({ code: 2, stdout: '', stderr: past(at) });
    const one = await svc.run(single(1, at), real);
    expect(one).toEqual({ code: 2, stdout: '', stderr: past(at) });
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('platform behind: a time future on the platform is granted, single and with --file', async () => {
    const at = isoSeconds((await sandboxNow(svc.sandbox())) + 30 * MINUTE);
    const one = await svc.run(single(2, at, '--json'), machineAhead);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).expires_at).toBe(at);

    const path = csv(`user,role,justification\n${user(3)},tenant_viewer,skew\n`);
    const dry = await svc.run(
      ['roles', 'assign', '--file', path, '--expires-at', at, '--dry-run', '--ndjson'],
      machineAhead,
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(ndjson(dry.stdout).map((r) => [r.plan, r.expires_at])).toEqual([['grant', at]]);
    const bulk = await svc.run(
      ['roles', 'assign', '--file', path, '--expires-at', at, '--ndjson', '--journal', join(dir, 'j2')],
      machineAhead,
    );
    expect(bulk.code, bulk.stderr).toBe(0);
    expect(ndjson(bulk.stdout).map((r) => [r.status, r.expires_at])).toEqual([['ok', at]]);
  });
});

describe('the clock-skew warning', () => {
  it('says 2 h 30 min in single assign, bulk assign and svc plan alike', async () => {
    await advance(1800);
    const offset = (await sandboxNow(svc.sandbox())) - Date.now();
    expect(Math.abs(offset - 150 * MINUTE)).toBeLessThan(5000);
    const warning = (what: string) =>
      `warning: the platform's clock is 2 h 30 min ahead of this machine's; ${what} counted from the platform's time`;

    const one = await svc.run(
      ['roles', 'assign', user(4), 'tenant_viewer', '--expires-in', '1h', '--justification', 'skew'],
      real,
    );
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr.split('\n')[0]).toBe(warning('--expires-in was'));

    const path = csv(`user,role,expires_in,justification\n${user(5)},tenant_viewer,1h,skew\n`);
    const bulk = await svc.run(['roles', 'assign', '--file', path, '--dry-run'], real);
    expect(bulk.code, bulk.stderr).toBe(0);
    expect(bulk.stderr.split('\n')[0]).toBe(warning('durations (expires_in, --expires-in) were'));

    const access = join(dir, 'access.yaml');
    writeFileSync(
      access,
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - user: ${user(6)}\n        role: tenant_viewer\n        expires_in: 1h\n        justification: skew\n`,
    );
    const plan = await svc.run(['plan', '-f', access], real);
    expect(plan.code, plan.stderr).toBe(10);
    expect(plan.stderr.split('\n')[0]).toBe(warning('durations (expires_in) were'));
  });
});
