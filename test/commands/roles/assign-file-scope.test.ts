/**
 * A roles listing without `scope` (a field the reference does not show): the rows of a bulk grant
 * were all refused as "an organisation role" before anything was sent, while the single verb of
 * the same role worked (findings-attack18b #14). Only a role whose scope says organization (or
 * org_admin, when no scope is given) is one; any other is sent, and the platform decides.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser } from '../../helpers/bulk.js';
import { type Exchange, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 5 });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);
const through = () => ({ env: svc.env({ SVC_BASE_URL: proxy().url }) });
const HEADER = 'user,role,expires_in,justification\n';

const noScope = () =>
  proxy().reshape((x: Exchange) => {
    if (x.method !== 'GET' || !/^\/v1\/roles(\?|$)/.test(x.path)) return;
    for (const role of (x.body as { items: Array<Record<string, unknown>> }).items) delete role.scope;
  });

describe('roles assign --file, roles listed without scope', () => {
  it('grants a tenant role, as the single verb does', async () => {
    noScope();
    const file = svc.file('no-scope.csv', `${HEADER}${bulkUser(1)},tenant_rule_author,8h,rota\n`);
    const r = await svc.run(['roles', 'assign', '--file', file, '--yes'], through());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^✓ 1 granted in Acme Treasury \(acme-treasury\) \([\d.]+ s\)\n$/);
  });

  it('still refuses org_admin before sending anything, exit 2', async () => {
    noScope();
    const file = svc.file('org.csv', `${HEADER}${bulkUser(2)},org_admin,8h,rota\n`);
    const r = await svc.run(['roles', 'assign', '--file', file, '--yes'], through());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:2: org_admin is an organisation role; it cannot be granted in a tenant\n`,
    );
    expect(proxy().seen.filter((s) => s.startsWith('POST'))).toEqual([]);
  });
});
