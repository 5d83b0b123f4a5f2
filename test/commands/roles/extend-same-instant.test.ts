/**
 * review19b F2: `roles assign --file --extend` compared the held expiry with the row's as text, so
 * on a server that writes `+00:00` for the Z (or no zone, the reference's UTC) a grant already
 * ending at the very instant asked was "expiry_updated": a PATCH that changed nothing (an audit
 * entry on a platform that audits every update), "1 granted or extended", and the dry run said it
 * would extend. The same instant however written is the same expiry: skipped, already_assigned.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { bulkUser } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { offsetZero, zoneless } from '../../helpers/time-zone.js';

const svc = useSandboxContext({ users: 10 });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-extend-same-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const viaProxy = (argv: string[]) => svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });
const patches = () => proxy().seen.filter((s) => s.startsWith('PATCH '));

/** bulkUser(n) granted tenant_analyst until `at` (straight to the sandbox), and a file asking the same. */
async function heldUntil(n: number, at: string): Promise<string> {
  const made = await svc.run([
    ...['roles', 'assign', bulkUser(n), 'tenant_analyst', '--expires-at', at],
    ...['--justification', 'first', '--json'],
  ]);
  expect(made.code, made.stderr).toBe(0);
  const file = join(dir, `same-${n}.csv`);
  writeFileSync(file, `user,role,expires_at,justification\n${bulkUser(n)},tenant_analyst,${at},again\n`);
  return file;
}

describe('roles assign --file --extend of a grant already ending at the instant asked, written otherwise', () => {
  it.each<[string, (answer: Reshaped) => void, number]>([
    ['+00:00 for the Z', offsetZero, 1],
    ['no zone', zoneless, 2],
  ])('%s: the dry run and the run skip it (already_assigned), no PATCH', async (_name, reshape, n) => {
    const at = isoSeconds(Date.now() + 7 * 86_400_000);
    const file = await heldUntil(n, at);
    proxy().set({ reshape });
    const dry = await viaProxy(['roles', 'assign', '--file', file, '--extend', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')[0]?.split('\t').at(-1)).toBe('already_assigned');
    expect(dry.stderr).toContain('dry run: 0 would be granted or extended, 1 would be skipped, 0 would fail');
    const real = await viaProxy(['roles', 'assign', '--file', file, '--extend', '--yes', '--ndjson']);
    expect(real.code, real.stderr).toBe(0);
    expect(ndjson(real.stdout).map((row) => [row.line, row.status, row.reason])).toEqual([
      [2, 'skipped', 'already_assigned'],
    ]);
    expect(real.stderr).toMatch(/^✓ 0 granted or extended, 1 skipped/);
    expect(patches()).toEqual([]);
  });

  it('a later instant written +00:00 is still moved (expiry_updated, one PATCH)', async () => {
    const at = isoSeconds(Date.now() + 7 * 86_400_000);
    const file = await heldUntil(3, at);
    const later = isoSeconds(Date.now() + 8 * 86_400_000);
    writeFileSync(file, `user,role,expires_at,justification\n${bulkUser(3)},tenant_analyst,${later},later\n`);
    proxy().set({ reshape: offsetZero });
    const real = await viaProxy(['roles', 'assign', '--file', file, '--extend', '--yes', '--ndjson']);
    expect(real.code, real.stderr).toBe(0);
    expect(ndjson(real.stdout).map((row) => [row.status, row.reason, row.expires_at])).toEqual([
      ['ok', 'expiry_updated', `${later.slice(0, -1)}+00:00`],
    ]);
    expect(patches()).toHaveLength(1);
  });
});

describe('roles assign --extend (one grant), the move answered in another form than the held grant', () => {
  it('the same instant: "already holds …; nothing changed"', async () => {
    const at = isoSeconds(Date.now() + 7 * 86_400_000);
    await heldUntil(4, at);
    // Only the PATCH's answer is written +00:00: the held grant (the 409's) keeps its Z.
    proxy().set({ reshape: (answer) => answer.method === 'PATCH' && offsetZero(answer) });
    const r = await viaProxy([
      ...['roles', 'assign', bulkUser(4), 'tenant_analyst', '--expires-at', at],
      ...['--justification', 'again', '--extend'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `${bulkUser(4)} already holds tenant_analyst until ${at.slice(0, -1)}+00:00; nothing changed`,
    );
  });
});
