/**
 * `svc tenants api-keys get TENANT KEY_ID` (closing note s13, Keys: every other noun has `get`):
 * one key as `ls` lists it — its status (active, revoked, stopped with why) and who issued it,
 * never the key itself; read from the tenant's list (the platform has no GET of one key), so a key
 * that list does not hold is not found in one line (exit 5), and the key given for its id is refused.
 */
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { admin, TENANT } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
let n = 0;

async function issuedBy(user: string) {
  const sandbox = svc.sandbox();
  const granted = await admin(sandbox, 'POST', `/v1/users/${user}/roles`, { role_id: 'tenant_admin' });
  expect([201, 409], granted.text).toContain(granted.status);
  const issued = await call(sandbox, 'POST', `/v1/tenants/${TENANT}/api-keys`, {
    token: sandbox.issueToken(user, { expiresInSeconds: 86_400 }).token,
    tenant: TENANT,
    body: {
      kind: 'service_role',
      name: 'sync',
      justification: 'nightly sync job key',
      idempotency_key: `get-${++n}`,
    },
  });
  expect(issued.status, issued.text).toBe(201);
  return issued.body as { id: string; key: string; prefix: string; created_at: string };
}

describe('svc tenants api-keys get', () => {
  it('shows a stopped key with why (piped), and --json is the record as ls --json lists it', async () => {
    const made = await issuedBy('usr_reviewer');
    const until = isoSeconds((await sandboxNow(svc.sandbox())) + 3600_000);
    const wound = await admin(svc.sandbox(), 'PATCH', '/v1/users/usr_reviewer/roles/tenant_admin', {
      expires_at: until,
      justification: 'make it jit now',
    });
    expect(wound.status, wound.text).toBe(200);
    const reason =
      'this API key acts only while usr_reviewer, who issued it, holds every permission of tenant_admin without an end date; ' +
      `they hold them only until ${until}: have someone who holds them without an end date issue a new key`;
    const piped = await svc.run(['tenants', 'api-keys', 'get', 'acme-treasury', made.id]);
    expect(piped).toEqual({
      code: 0,
      stdout: [
        `id\t${made.id}`,
        'kind\tservice_role',
        'name\tsync',
        `prefix\t${made.prefix}…`,
        `tenant\tAcme Treasury (acme-treasury) ${TENANT}`,
        `created\t${made.created_at}`,
        'created by\tusr_reviewer',
        'justification\tnightly sync job key',
        'revoked\t',
        'status\tstopped',
        `stopped because\t${reason}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(piped.stdout).not.toContain(made.key);
    const json = await svc.run(['tenants', 'api-keys', 'get', 'acme-treasury', made.id, '--json']);
    const listed = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(
      JSON.parse(listed.stdout).find((k: { id: string }) => k.id === made.id),
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ stopped_reason: reason, revoked_at: null });
    expect(json.stdout).not.toContain(made.key);
  });

  it('on a terminal: labelled lines, a revoked key says so', async () => {
    const made = await issuedBy('usr_auditor');
    const revoked = await admin(svc.sandbox(), 'DELETE', `/v1/tenants/${TENANT}/api-keys/${made.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    const r = await svc.run(['tenants', 'api-keys', 'get', 'acme-treasury', made.id], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^id +${made.id}\n`));
    expect(r.stdout).toMatch(/\nstatus +revoked\n/);
    expect(r.stdout).not.toContain('stopped because');
  });

  it('a key id the tenant does not have is not found, in one line (exit 5)', async () => {
    expect(await svc.run(['tenants', 'api-keys', 'get', 'acme-treasury', 'key_nope'])).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: API key key_nope not found in Acme Treasury (acme-treasury); see `svc tenants api-keys ls acme-treasury` for its keys\n',
    });
  });

  it('the key itself instead of its id is refused, not sent, naming its id', async () => {
    const made = await issuedBy('usr_auditor');
    const r = await svc.run(['tenants', 'api-keys', 'get', 'acme-treasury', made.key]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`its id is ${made.id}`);
    expect(r.stderr).toContain(`svc tenants api-keys get acme-treasury ${made.id}`);
    expect(r.stderr).not.toContain(made.key);
  });

  // attack18a F5: the id `ls` shortened to fit a terminal, given back, is said to be that (exit 2,
  // with --wide), as `api-keys revoke` and every other get say it; not "not found" (exit 5).
  it('a key id shortened by a table: exit 2 with the --wide fix, never "not found"', async () => {
    const made = await issuedBy('usr_compliance');
    const cut = `${made.id.slice(0, 10)}…`;
    const r = await svc.run(['tenants', 'api-keys', 'get', 'acme-treasury', cut]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: KEY "${cut}" is an id shortened to fit a table; list again with --wide (or --json, or in a pipe) to see ids whole\n`,
    });
    const revoke = await svc.run(['tenants', 'api-keys', 'revoke', 'acme-treasury', cut, '--yes']);
    expect([revoke.code, revoke.stderr]).toEqual([2, r.stderr]);
  });
});
