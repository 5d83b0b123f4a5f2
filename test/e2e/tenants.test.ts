import { describe, expect, it } from 'vitest';
import { DEMO_ORG, tenantId } from '../../src/sandbox/seed.js';
import { runInProcess } from '../helpers/context.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { bash, sandboxEnv, svc } from '../helpers/svc.js';

const sandbox = useSandbox({ tenants: 1000 });
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });

const tenantGets = async () => {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return stats['GET /v1/tenants 200'] ?? 0;
};

describe('svc tenants ls — every output mode', () => {
  it('prints a table with headers and relative times on a terminal', async () => {
    const r = await runInProcess(['tenants', 'ls'], env, { tty: { stdout: true }, columns: 160 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ID {2,}SLUG {2,}NAME {2,}TIER {2,}ROLE {2,}CURRENCY {2,}TIME ZONE {2,}CREATED$/,
    );
    expect(lines).toHaveLength(6);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${tenantId('acme-treasury')} +acme-treasury +Acme Treasury +enterprise +tenant_admin +USD +America/New_York +\\d+ years? ago$`,
      ),
    );
    expect(r.stderr).toBe('');
  });

  it('colours the header on a terminal unless NO_COLOR is set', async () => {
    const { NO_COLOR: _drop, ...colourful } = env;
    const r = await runInProcess(['tenants', 'ls'], colourful, { tty: { stdout: true }, columns: 160 });
    expect(r.stdout).toContain('\u001b[1mID\u001b[22m');
    const piped = await svc(['tenants', 'ls'], { env: colourful });
    expect(piped.stdout).not.toContain('\u001b[');
  });

  it('prints tab-separated rows with RFC 3339 times when piped', async () => {
    const r = await svc(['tenants', 'ls'], { env });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(5);
    expect(rows[0]).toEqual([
      tenantId('acme-treasury'),
      'acme-treasury',
      'Acme Treasury',
      'enterprise',
      'tenant_admin',
      'USD',
      'America/New_York',
      '2024-01-15T09:00:00Z',
    ]);
  });

  it('prints the API objects unchanged with --json and --ndjson', async () => {
    const json = await svc(['tenants', 'ls', '--json'], { env });
    const list = JSON.parse(json.stdout);
    expect(list).toHaveLength(5);
    expect(Object.keys(list[0]).sort()).toEqual(
      [
        'created_at',
        'default_currency',
        'display_name',
        'id',
        'role',
        'slug',
        'subscription_tier',
        'time_zone',
      ].sort(),
    );
    const ndjson = await svc(['tenants', 'ls', '--ndjson'], { env });
    expect(
      ndjson.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(list);
  });

  it('filters by tier and role and continues from a cursor', async () => {
    const pro = await svc(['tenants', 'ls', '--tier', 'pro', '--json'], { env });
    expect(JSON.parse(pro.stdout).map((t: { slug: string }) => t.slug)).toEqual([
      'acme-payments-eu',
      'acme-apac',
    ]);
    const first = await svc(['tenants', 'ls', '--limit', '2'], { env });
    expect(first.stdout.trimEnd().split('\n')).toHaveLength(2);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeDefined();
    const next = await svc(['tenants', 'ls', '--limit', '2', '--cursor', cursor!], { env });
    expect(next.stdout.split('\t')[1]).toBe('acme-ledger-uk');
  });

  it('streams every page of 1,005 org tenants with --all', async () => {
    const before = await tenantGets();
    const r = await svc(['tenants', 'ls', '--all', '--ndjson', '--org', DEMO_ORG, '--limit', '200'], { env });
    expect(r.code).toBe(0);
    const ids = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toHaveLength(1005);
    expect(new Set(ids).size).toBe(1005);
    expect((await tenantGets()) - before).toBe(6);
    const plain = await svc(['tenants', 'ls', '--all', '--org', DEMO_ORG], { env });
    expect(plain.stdout.trimEnd().split('\n')).toHaveLength(1005);
  });

  it('ends quietly with exit 0 when the reader closes the pipe', async () => {
    const r = await bash(`svc tenants ls --all --limit 200 --org ${DEMO_ORG} | head -1`, { env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toBe('');
  });
});
