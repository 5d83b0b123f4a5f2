import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ACME, bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, sandboxNow, useSandbox } from '../../helpers/sandbox.js';

// The rows of a bulk file whose outcome hangs on another row's by the last-tenant-admin rule are
// made one at a time in file order, the order the dry run plays them in (s15 dryrun15 F3): sent
// eight at a time, the row the dry run said would be refused was sometimes the one made, and the
// other refused. The proxy forces the bad interleaving: it holds usr_admin's expiry move until
// usr_compliance's has been made, if usr_compliance's row has started meanwhile. Sent beside each
// other, usr_compliance's first request (its grant's POST) reaches the proxy before usr_admin's move
// is even sent (that follows usr_admin's own POST's answer); a run that sends one at a time sends
// nothing for usr_compliance until usr_admin's move is answered, so there is no hold. Nothing waits
// on real time: a few turns of the event loop (svc, proxy and sandbox share this process) are only
// a margin for a row started a little later.
const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
let gate = false;
let complianceSent: () => void = () => {};
const complianceArrived = () => new Promise<void>((resolve) => (complianceSent = resolve));

async function complianceEnds(): Promise<boolean> {
  const r = await call(sandbox(), 'GET', '/v1/users/usr_compliance/roles', {
    token: sandbox().adminToken,
    tenant: ACME,
  });
  return r.body.items.some(
    (a: { role_id: string; status: string; expires_at: string | null }) =>
      a.role_id === 'tenant_admin' && a.status === 'active' && a.expires_at !== null,
  );
}

let arrived = complianceArrived();
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (!gate) return;
    // Any request for usr_compliance's row (a read before its move, the move): its row has started.
    if (path.startsWith('/v1/users/usr_compliance/')) complianceSent();
    if (method !== 'PATCH' || path !== '/v1/users/usr_admin/roles/tenant_admin') return;
    let sent = false;
    void arrived.then(() => (sent = true));
    for (let i = 0; i < 200 && !sent; i++) await turn();
    if (!sent) return;
    // Sent beside it: usr_admin's waits until usr_compliance's has been made.
    for (let i = 0; i < 10_000 && !(await complianceEnds()); i++) await turn();
  },
});

async function admin(user: string, expiresAt?: string) {
  const r = await call(sandbox(), 'POST', `/v1/users/${user}/roles`, {
    token: sandbox().adminToken,
    tenant: ACME,
    body: {
      role_id: 'tenant_admin',
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      justification: 't',
      idempotency_key: `extend-order-${user}`,
    },
  });
  expect(r.status, r.text).toBe(201);
}

describe('svc roles assign --file --extend and the last tenant_admin', () => {
  it('the real run refuses the row the dry run said it would, and makes the other (tenant_admin rows one at a time, in file order)', async () => {
    const inTwoHours = new Date((await sandboxNow(sandbox())) + 7_200_000).toISOString();
    await admin('usr_reviewer', inTwoHours); // the caller: a just-in-time administrator
    await admin('usr_compliance');
    const env = {
      SVC_BASE_URL: proxy().url,
      SVC_TOKEN: sandbox().issueToken('usr_reviewer', { expiresInSeconds: 600 }).token,
    };
    const path = svc.file(
      'extend-admins.csv',
      'user,role,expires_in,justification\nusr_admin,tenant_admin,1h,a\nusr_compliance,tenant_admin,1h,b\n',
    );
    const dry = await svc.run(['roles', 'assign', '--file', path, '--extend', '--dry-run', '--ndjson'], {
      env,
    });
    expect(dry.code).toBe(7);
    const planned = ndjson(dry.stdout)
      .map((r) => [r.line, r.plan, (r.error as { code?: string } | undefined)?.code ?? null])
      .sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(planned).toEqual([
      [2, 'extend', null],
      [3, 'fail', 'last_tenant_admin'],
    ]);

    gate = true;
    arrived = complianceArrived();
    const real = await svc.run(['roles', 'assign', '--file', path, '--extend', '--ndjson'], { env });
    gate = false;
    expect(real.code).toBe(7);
    const made = ndjson(real.stdout)
      .map((r) => [r.line, r.status, (r.error as { code?: string } | undefined)?.code ?? null])
      .sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(made).toEqual([
      [2, 'ok', null],
      [3, 'failed', 'last_tenant_admin'],
    ]);
    // usr_compliance keeps the permanent administration the dry run said the file could not end.
    expect(await complianceEnds()).toBe(false);
  });
});
