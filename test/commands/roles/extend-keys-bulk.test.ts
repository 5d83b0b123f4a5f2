import { describe, expect, it } from 'vitest';
import { BUILTIN_ROLE_DEFINITIONS } from '../../../src/api/permissions.js';
import { ACME, assignArgv, bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// Review 14 R3: `roles assign USER ROLE --extend` that gives a permanent grant an end warns that
// the user's API keys may stop, by the platform's rule (a key acts only while its issuer holds its
// role's permissions without an end date, whichever roles carry them); `--file --extend` said
// nothing of it. The bulk run says it once, after the summary, naming the lines and users, and
// each such row carries `api_keys_may_stop` (--json/--ndjson); its dry run likewise ("would").
const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);

const KEYS_STOP =
  "stop at once while they do not hold the key's role (tenant_viewer for a publishable, tenant_admin for a service-role key) " +
  "without an end date, and act again once they do (`svc tenants api-keys ls --json` names each key's created_by)";

/** A custom role carrying tenant_viewer's permissions (a key role's, under another name). */
async function viewerClone(name: string): Promise<string> {
  const r = await call(sandbox(), 'POST', '/v1/roles', {
    token: sandbox().adminToken,
    tenant: ACME,
    body: {
      name,
      permissions: [...BUILTIN_ROLE_DEFINITIONS.tenant_viewer.permissions],
      idempotency_key: `role-${name}`,
    },
  });
  expect(r.status, r.text).toBe(201);
  return name;
}

const grant = async (user: string, role: string) => {
  const r = await svc.run(assignArgv(user, role));
  expect(r.code, r.stderr).toBe(0);
};

describe('svc roles assign --file --extend that gives a permanent grant an end', () => {
  it('says once which lines and users may have their API keys stopped, as the single grant does', async () => {
    const clone = await viewerClone('viewer-clone-bulk');
    const other = await customRole(sandbox(), 'reads-exceptions-bulk');
    // Line 2: tenant_viewer permanent, nothing else: its keys would stop.
    await grant(bulkUser(1), 'tenant_viewer');
    // Line 3: tenant_viewer given an end while a permanent clone keeps its permissions: no stop.
    await grant(bulkUser(2), 'tenant_viewer');
    await grant(bulkUser(2), clone);
    // Line 4: a role carrying no key role's permissions: shortened, no stop.
    await grant(bulkUser(3), other);
    // Line 5: the clone, the only holder of a key role's permissions: its keys would stop.
    await grant(bulkUser(4), clone);
    const path = svc.file(
      'ends.csv',
      'user,role,expires_in,justification\n' +
        `${bulkUser(1)},tenant_viewer,2h,wind down\n` +
        `${bulkUser(2)},tenant_viewer,2h,wind down\n` +
        `${bulkUser(3)},reads-exceptions-bulk,2h,wind down\n` +
        `${bulkUser(4)},${clone},2h,wind down\n`,
    );
    const argv = ['roles', 'assign', '--file', path, '--extend', '--concurrency', '1'];
    const warning = (verb: string) =>
      `warning: lines 2, 5 (${bulkUser(1)}, ${bulkUser(4)}) ${verb} permanent grants an end, which may stop API keys: API keys these users issued ${KEYS_STOP}\n`;

    const dry = await svc.run([...argv, '--dry-run', '--ndjson']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(ndjson(dry.stdout).map((x) => [x.line, x.plan, x.api_keys_may_stop ?? null])).toEqual([
      [2, 'extend', true],
      [3, 'extend', null],
      [4, 'extend', null],
      [5, 'extend', true],
    ]);
    expect(dry.stderr).toMatch(
      /^dry run: .*\nwarning: lines 2, 3, 4, 5 would shorten grants .*\n(warning: .*\n)$/,
    );
    expect(dry.stderr.split('\n').at(-2)).toBe(warning('would give').trimEnd());

    const real = await svc.run([...argv, '--json']);
    expect(real.code, real.stderr).toBe(0);
    expect(
      (JSON.parse(real.stdout) as Array<Record<string, unknown>>).map((x) => [
        x.line,
        x.reason,
        x.api_keys_may_stop ?? null,
      ]),
    ).toEqual([
      [2, 'expiry_updated', true],
      [3, 'expiry_updated', null],
      [4, 'expiry_updated', null],
      [5, 'expiry_updated', true],
    ]);
    expect(real.stderr).toMatch(
      /^✓ 4 granted or extended in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)\nwarning: lines 2, 3, 4, 5 shortened grants .*\n/,
    );
    expect(real.stderr.split('\n').at(-2)).toBe(warning('gave').trimEnd());
  });

  it('one line, one user: said in the singular; a later run that changes nothing more says nothing', async () => {
    await grant(bulkUser(5), 'tenant_viewer');
    const path = svc.file(
      'one.csv',
      `user,role,expires_in,justification\n${bulkUser(5)},tenant_viewer,2h,wind down\n`,
    );
    const r = await svc.run(['roles', 'assign', '--file', path, '--extend', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').at(-2)).toBe(
      `warning: line 2 (${bulkUser(5)}) gave a permanent grant an end, which may stop API keys: API keys ${bulkUser(5)} issued ${KEYS_STOP}`,
    );
    // Its grant now ends in 2 h: a new run moves it to a new 2 h from now, no permanent grant ended.
    const again = await svc.run(['roles', 'assign', '--file', path, '--extend', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('API keys');
  });
});
