/**
 * review19 F3: an assignment status word svc does not know (`granted`, `in_force`, `pending`) was
 * read as "not held" by every reader but export and plan: a bulk --dry-run said "would be skipped
 * (not_assigned)" of a held grant, and "your live roles there do not grant" (exit 7) of a caller
 * who holds tenant_admin; the last-admin forecast counted no administrator; and `roles assignments`
 * showed a `REVOKED` grant's expiry as running. Unknown is neither held nor ended: the row could
 * not be checked (exit 1), saying which word.
 */
import { describe, expect, it } from 'vitest';
import { ACME, bulkRunner, bulkUser } from '../../helpers/bulk.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);
const via = () => ({ env: { SVC_BASE_URL: proxy().url } });

/** Assignment listings (a user's, the tenant's) whose `from` status is said as `to`. */
const listsSay =
  (from: string, to: string, only?: RegExp) =>
  (answer: Reshaped): void => {
    if (answer.method !== 'GET' || (only && !only.test(answer.path))) return;
    const items = (answer.body as { items?: Array<{ status?: string }> } | null)?.items;
    for (const item of Array.isArray(items) ? items : []) if (item.status === from) item.status = to;
  };

async function grantAdmin(user: string): Promise<void> {
  const r = await call(sandbox(), 'POST', `/v1/users/${user}/roles`, {
    token: sandbox().adminToken,
    tenant: ACME,
    body: {
      role_id: 'tenant_admin',
      expires_at: new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      justification: 'x',
      idempotency_key: `adm-${user}`,
    },
  });
  if (r.status !== 201) throw new Error(`grant: ${r.status} ${r.text}`);
}

const lastLines = (stderr: string) => stderr.trimEnd().split('\n');

describe('bulk --dry-run with an assignment status svc does not know', () => {
  it('revoke --file of a held grant said "granted": could not be checked (exit 1), never skipped not_assigned', async () => {
    const user = bulkUser(1);
    await grantAdmin(user);
    proxy().reshape(listsSay('active', 'granted'));
    const path = svc.file('ra.csv', `user,role\n${user},tenant_admin\n`);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--dry-run'], via());
    expect(r.stdout).toBe(
      `2\tunknown\t${user}\ttenant_admin\t\t\tcould not be checked: the platform lists ${user}'s assignment of tenant_admin with status "granted", which svc does not know (held or ended)\n`,
    );
    expect(r.code).toBe(1);
    expect(lastLines(r.stderr)[0]).toBe(
      'dry run: 0 would be revoked, 0 would be skipped, 0 would fail, 1 could not be checked',
    );
  });

  it('assign --file by a caller whose own grants are said "granted": could not be checked (exit 1), never "your live roles there do not grant"', async () => {
    proxy().reshape(listsSay('active', 'granted'));
    const path = svc.file('rg.csv', `user,role\n${bulkUser(2)},tenant_viewer\n`);
    const r = await svc.run(
      [
        'roles',
        'assign',
        '--file',
        path,
        '--expires-in',
        '1d',
        '--justification',
        'x',
        '--dry-run',
        '--ndjson',
      ],
      via(),
    );
    const [row] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect([row.plan, row.error.code]).toEqual(['unknown', 'unknown_status']);
    expect(row.error.message).toBe(
      'could not be checked: svc cannot tell what your roles in acme-treasury grant: the platform lists your assignment of tenant_admin with status "granted", which svc does not know (held or ended)',
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(lastLines(r.stderr).at(-1)!).error.hint).toBe(
      'nothing was changed; the rows may be fine: the server answered their checks in words svc does not know (each row says which); a dry run again is answered the same',
    );
  });

  it('the tenant\'s tenant_admin grants said "in_force": the last-admin refusal is not predicted, the row could not be checked', async () => {
    const user = bulkUser(3);
    await grantAdmin(user);
    // The tenant's listing, read by the forecast, says the other administrators' grants (usr_admin's
    // among them) in a word svc does not know: counted as not held, the row's revoke was "the last".
    proxy().reshape((answer) => {
      if (answer.method !== 'GET' || !answer.path.startsWith('/v1/role-assignments')) return;
      const items = (answer.body as { items: Array<{ user_id: string; status: string }> }).items;
      for (const item of items)
        if (item.user_id !== user && item.status === 'active') item.status = 'in_force';
    });
    const path = svc.file('rl.csv', `user,role\n${user},tenant_admin\n`);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--dry-run', '--ndjson'], via());
    const [row] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect([row.plan, row.error?.code, r.code]).toEqual(['unknown', 'unknown_status', 1]);
    expect(row.error.message).toMatch(
      /^could not be checked: svc cannot tell whether it would leave acme-treasury without a tenant administrator: the platform lists usr_\w+'s assignment of tenant_admin with status "in_force", which svc does not know \(held or ended\)$/,
    );
  });
});

describe('roles assignments of a grant said "REVOKED"', () => {
  it('shows no expiry on a terminal, as of "revoked"', async () => {
    const user = bulkUser(4);
    const granted = await svc.run([
      ...['roles', 'assign', user, 'tenant_viewer', '--expires-in', '1d', '--justification', 'x', '--yes'],
    ]);
    expect(granted.code, granted.stderr).toBe(0);
    const revoked = await svc.run(['roles', 'revoke', user, 'tenant_viewer', '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
    proxy().reshape(listsSay('revoked', 'REVOKED'));
    const r = await svc.run(['roles', 'assignments', user, '--include-ended'], { ...via(), mode: 'table' });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('tenant_viewer'));
    expect(line).toMatch(/^tenant_viewer\s+REVOKED\s+-\s/);
  });
});
