/**
 * One server answer, the same result in every machine zone (attack19 F2, F5), in-process through a
 * proxy in front of the sandbox: its timestamps written without a zone (`2026-11-25T21:51:20`, the
 * reference's UTC) or its Date header in asctime form (`Wed Nov 25 21:51:20 2026`, GMT). Read by
 * `Date.parse` they were local times: `replay --dlq` west of UTC left the newest dead letters
 * queued and said ✓, `roles holders` printed other instants with a Z, `plan` saw changes that are
 * none; an asctime Date made svc "learn" a clock hours off, so `--expires-in 8h` granted 11 hours
 * in São Paulo, and a creation just made was "an earlier run's".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverTime } from '../../src/api/time.js';
import { bulkUser } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';
import { asctimeDate, inTimeZone, zoneless } from '../helpers/time-zone.js';
import { deadLetteredQueue, dlqEntries } from '../helpers/webhooks.js';

const svc = useSandboxContext({ users: 10, webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-server-times-');
const HOUR = 3_600_000;
/** svc through the proxy, on the real clock (the sandbox's), or at `now`. */
const viaProxy = (argv: string[], options: { now?: number; tty?: boolean } = {}) =>
  svc.run(argv, {
    env: { SVC_BASE_URL: proxy().url },
    now: options.now ?? Date.now(),
    tty: options.tty ?? false,
  });
const direct = (argv: string[], options: { now?: number; tty?: boolean } = {}) =>
  svc.run(argv, { now: options.now ?? Date.now(), tty: options.tty ?? false });

const grant = async (user: string, expiresIn: string) => {
  const r = await direct([
    'roles',
    'assign',
    user,
    'tenant_viewer',
    '--expires-in',
    expiresIn,
    '--justification',
    'tz',
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
};

describe('a server time without a zone is UTC, in every machine zone', () => {
  it.each(['Pacific/Chatham', 'America/Sao_Paulo'])(
    'roles holders in %s: the same instants (TSV) and the same "in 2 hours" (terminal) as with their Z',
    async (tz) => {
      await grant(bulkUser(1), '2h');
      const now = Date.now();
      const argv = ['roles', 'holders', 'tenant_viewer'];
      const [tsv, table] = [await direct(argv, { now }), await direct(argv, { now, tty: true })];
      expect(tsv.stdout).toContain(`${bulkUser(1)}\tactive\t`);
      expect(table.stdout).toMatch(new RegExp(`${bulkUser(1)} +active +in 2 hours `));
      proxy().set({ reshape: zoneless });
      await inTimeZone(tz, async () => {
        const zonelessTsv = await viaProxy(argv, { now });
        expect(zonelessTsv.code, zonelessTsv.stderr).toBe(0);
        expect(zonelessTsv.stdout).toBe(tsv.stdout);
        expect((await viaProxy(argv, { now, tty: true })).stdout).toBe(table.stdout);
      });
    },
  );

  it('replay --dlq in America/Sao_Paulo replays the newest dead letters too, and leaves none queued', async () => {
    const { webhook, entries } = await deadLetteredQueue(svc.sandbox(), { status: 200 }, 3);
    proxy().set({ reshape: zoneless });
    const r = await inTimeZone('America/Sao_Paulo', () =>
      viaProxy(['webhooks', 'replay', webhook, '--dlq', '--yes', '--no-wait', '--ndjson']),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(
      ndjson(r.stdout)
        .map((row) => row.dlq_entry_id)
        .sort(),
    ).toEqual(entries.map((e) => e.id).sort());
    expect(await dlqEntries(svc.sandbox(), webhook, 'queued')).toEqual([]);
  });

  it('plan of a fresh export in Pacific/Chatham: no changes, as in UTC', async () => {
    await grant(bulkUser(2), '3h');
    const file = join(dir, 'grants.yaml');
    const exported = await direct(['export', '--only', 'grants', '-o', file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/expires_at: "?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    proxy().set({ reshape: zoneless });
    const r = await inTimeZone('Pacific/Chatham', () => viaProxy(['plan', '-f', file]));
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `no changes: the live state of 1 tenant matches ${file}\n`,
    ]);
  });
  it("export of zone-less times writes them with their Z: plan takes svc's own export, no changes", async () => {
    await grant(bulkUser(4), '5h');
    const file = join(dir, 'zoneless.yaml');
    proxy().set({ reshape: zoneless });
    const exported = await inTimeZone('America/Sao_Paulo', () =>
      viaProxy(['export', '--only', 'grants', '-o', file]),
    );
    expect(exported.code, exported.stderr).toBe(0);
    const times = readFileSync(file, 'utf8').match(/expires_at: .*/g) ?? [];
    expect(times.length).toBeGreaterThan(0);
    for (const line of times) expect(line).toMatch(/^expires_at: "?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"?$/);
    const r = await direct(['plan', '-f', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `no changes: the live state of 1 tenant matches ${file}\n`,
    ]);
  });
});

describe('an HTTP Date header in asctime form is GMT, in every machine zone', () => {
  it('roles assign --expires-in 8h in America/Sao_Paulo: 8 hours, and no word of a clock off', async () => {
    proxy().set({ reshape: asctimeDate });
    const r = await inTimeZone('America/Sao_Paulo', () =>
      viaProxy([
        'roles',
        'assign',
        bulkUser(3),
        'tenant_viewer',
        '--expires-in',
        '8h',
        '--justification',
        'tz',
        '--json',
      ]),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const made = JSON.parse(r.stdout) as { assigned_at: string; expires_at: string };
    const lasts = serverTime(made.expires_at) - serverTime(made.assigned_at);
    // Whole seconds on two clocks (svc's anchor, the platform's assigned_at): 8 h within a minute.
    expect(Math.abs(lasts - 8 * HOUR)).toBeLessThan(60_000);
  });

  it('audit ls --since 10m in Pacific/Chatham: counted from a clock in step, no warning', async () => {
    proxy().set({ reshape: asctimeDate });
    const r = await inTimeZone('Pacific/Chatham', () =>
      viaProxy(['audit', 'ls', '--since', '10m', '--json']),
    );
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  // review18b R1's second form, seen again by attack19 F2: a zone-less created_at east of UTC.
  it.each([
    ['an asctime Date', 'America/Sao_Paulo', asctimeDate],
    ['zone-less times', 'Pacific/Chatham', zoneless],
  ] as const)(
    'webhooks create under a new --idempotency-key, %s in %s: not "an earlier run\'s"',
    async (_what, tz, reshape) => {
      proxy().set({ reshape });
      const key = `tz-${tz.replace('/', '-')}-${Date.now()}`;
      const r = await inTimeZone(tz, () =>
        viaProxy([
          'webhooks',
          'create',
          '--url',
          `https://hooks.example/${key}`,
          '--event-type',
          'exception.created',
          '--idempotency-key',
          key,
          '--secret-file',
          join(dir, `${key}.secret`),
          '--json',
        ]),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/earlier run/);
      expect(JSON.parse(r.stdout).replayed).toBeUndefined();
    },
  );
});
