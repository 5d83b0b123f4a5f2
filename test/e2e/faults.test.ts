import { describe, expect, it } from 'vitest';
import { DEMO_ORG, tenantId } from '../../src/sandbox/seed.js';
import { useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv, svc } from '../helpers/svc.js';

// 30% of /v1 requests answer 503 with Retry-After: 1, half of them after the handler ran
// (the change was applied, the answer lost); a few connections are dropped outright.
const sandbox = useSandbox({
  tenants: 300,
  faults: { fail_rate: 0.3, retry_after: '1', phase: 'both', drop_rate: 0.03, seed: 20261121 },
});
const env = sandboxEnv(sandbox, { SVC_MAX_RETRIES: '8' });

describe('under injected 503s with Retry-After', () => {
  it('every command succeeds and no POST side effect happens twice', async () => {
    for (const args of [['me'], ['auth', 'status'], ['tenants', 'ls'], ['tenants', 'ls', '--tier', 'pro']]) {
      const r = await svc(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const all = await svc(['tenants', 'ls', '--all', '--ndjson', '--org', DEMO_ORG], {
      env,
    });
    expect(all.code, all.stderr).toBe(0);
    expect(
      new Set(
        all.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l).id),
      ).size,
    ).toBe(305);

    for (let i = 0; i < 12; i++) {
      const r = await svc(['api', 'POST', '/v1/accounts', '-F', `n=${i}`], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    const listed = await svc(['api', 'GET', '/v1/accounts', '--paginate', '--ndjson'], { env });
    expect(listed.code).toBe(0);
    expect(
      listed.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).n),
    ).toEqual([...Array(12).keys()]);
    expect(sandbox().state.records.count(tenantId('acme-treasury'), 'accounts')).toBe(12);
  });
});
