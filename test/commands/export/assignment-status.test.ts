/**
 * An assignment's `status` is not in the reference: svc export and plan take a grant as held when
 * the word is absent or "active", as ended when it is one that says so, and refuse a word they do
 * not know rather than drop the grant (findings-attack18b #12: "granted" made a 0-grant export,
 * exit 0). In-process, through a proxy that rewords the sandbox's assignment listings.
 */
import { describe, expect, it } from 'vitest';
import { useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({ users: 5 });
const proxy = useReshapingProxy(svc.sandbox);
const through = () => ({ env: { SVC_BASE_URL: proxy().url } });

const restatus = (status: string | undefined) =>
  proxy().reshape((x) => {
    if (x.method !== 'GET' || !x.path.startsWith('/v1/role-assignments')) return;
    for (const a of (x.body as { items: Record<string, unknown>[] }).items) {
      if (status === undefined) delete a.status;
      else a.status = status;
    }
  });

const grantsOf = (stderr: string) => /(\d+) grants?/.exec(stderr)?.[1];

describe('svc export of assignments by their status', () => {
  it('counts a grant whose status is absent as held (the same count as the sandbox as it is)', async () => {
    const real = await svc.run(['export', '--only', 'grants']);
    expect(real.code, real.stderr).toBe(0);
    expect(Number(grantsOf(real.stderr))).toBeGreaterThan(0);
    restatus(undefined);
    const r = await svc.run(['export', '--only', 'grants'], through());
    expect([r.code, grantsOf(r.stderr)]).toEqual([0, grantsOf(real.stderr)]);
  });

  it('drops a grant whose status says it ended', async () => {
    restatus('expired');
    const r = await svc.run(['export', '--only', 'grants'], through());
    expect([r.code, grantsOf(r.stderr)]).toEqual([0, '0']);
  });

  it('refuses a status word it does not know, in one line, exit 1', async () => {
    restatus('granted');
    const r = await svc.run(['export', '--only', 'grants'], through());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: the platform lists usr_\w+'s assignment of \w+ in acme-treasury with status "granted", which svc does not know; svc counts a grant as held only when its status is absent or "active", and as ended when "expired", "revoked" or "role_deleted"; is --base-url the platform API\?\n$/,
    );
  });
});
