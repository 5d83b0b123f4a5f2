/**
 * Role answers of another reasonable server (attack18b 2, 4, 15), through a proxy that reshapes
 * the sandbox's: an answer about another user, role or tenant than the request is no result of
 * it (exit 1, what was asked and what came; bulk rows too); a role record with only id and name
 * (the reference's minimum) is shown, its permissions "not given by the server"; an expiry the
 * server did not keep is said in one line.
 */
import { describe, expect, it } from 'vitest';
import { bulkUser } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({ users: 30 });
const proxy = useReshapingProxy(svc.sandbox);
const viaProxy = (argv: string[], input?: string) =>
  svc.run(argv, {
    env: { SVC_BASE_URL: proxy().url },
    now: Date.now(),
    ...(input === undefined ? {} : { stdin: input }),
  });
const grant = (user: string, ...more: string[]) => [
  ...['roles', 'assign', user, 'tenant_viewer', '--expires-in', '1d', '--justification', 'x', '--yes'],
  ...more,
];
/** Answers to grants (POST …/roles) with `fields` changed. */
const grantsSay =
  (fields: Record<string, unknown>) =>
  (answer: Reshaped): void => {
    if (answer.method === 'POST' && /^\/v1\/users\/[^/]+\/roles$/.test(answer.path) && answer.status === 201)
      Object.assign(answer.body as object, fields);
  };

describe('an answer about another user, role or tenant than the request', () => {
  it('roles assign answered with another user and role: exit 1, what was asked and what came, no ✓', async () => {
    const user = bulkUser(1);
    proxy().set({
      reshape: grantsSay({ user_id: 'usr_viewer', role_id: 'tenant_admin', role_name: 'tenant_admin' }),
    });
    const r = await viaProxy(grant(user));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the server's answer to POST /v1/users/${user}/roles is about user_id "usr_viewer", role_id "tenant_admin", not the user_id "${user}", role_id "tenant_viewer" asked for; ` +
          'svc saved and printed nothing, but the server answered 201 \\(request req_\\w+\\) and may have made the change: check before running the command again \\(`svc [^`]*roles holders tenant_viewer` shows whether it was\\)\n$',
      ),
    );
  });

  // review18b R4: ids compared exactly made a grant a server answered with the user's id in upper
  // case (ids it takes in any case) exit 1, though it was made.
  it('the same ids in another case: the grant, exit 0', async () => {
    const user = bulkUser(4);
    proxy().set({ reshape: grantsSay({ user_id: user.toUpperCase(), role_id: 'TENANT_VIEWER' }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
  });

  it('an assignment in another tenant (--json): exit 1', async () => {
    const user = bulkUser(2);
    const other = '00000000-0000-4000-8000-00000000abcd';
    proxy().set({ reshape: grantsSay({ tenant_id: other }) });
    const r = await viaProxy(grant(user, '--json'));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toMatch(
      new RegExp(
        `^the server's answer to POST /v1/users/${user}/roles is about tenant_id "${other}", not the tenant_id "[0-9a-f-]{36}" asked for$`,
      ),
    );
  });

  it('roles assign --file: no row is ok when its answer names another user', async () => {
    proxy().set({ reshape: grantsSay({ user_id: 'usr_viewer' }) });
    const file = `user,role\n${bulkUser(3)},tenant_viewer\n${bulkUser(4)},tenant_viewer\n`;
    const r = await viaProxy(
      ['roles', 'assign', '--file', '-', '--expires-in', '1d', '--justification', 'x', '--yes', '--ndjson'],
      file,
    );
    expect(r.code).not.toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => row.status)).not.toContain('ok');
    expect(r.stderr).not.toContain('✓');
  });

  it('roles get ROLE answered with another role: exit 1', async () => {
    proxy().set({
      reshape: (answer) => {
        if (answer.path === '/v1/roles/tenant_viewer')
          Object.assign(answer.body as object, { id: 'tenant_admin', name: 'tenant_admin' });
      },
    });
    const r = await viaProxy(['roles', 'get', 'tenant_viewer']);
    expect(r.code).toBe(1);
    expect(r.stderr.split(';')[0]).toBe(
      `error: the server's answer to GET /v1/roles/tenant_viewer is about id "tenant_admin", name "tenant_admin", not the id "tenant_viewer" or name "tenant_viewer" asked for`,
    );
  });
});

describe('a role record with only id and name', () => {
  const idAndName = (answer: Reshaped): void => {
    if (answer.path !== '/v1/roles/tenant_viewer') return;
    const { id, name } = answer.body as { id: string; name: string };
    answer.body = { id, name };
  };

  it('roles get: shown, its permissions "not given by the server"', async () => {
    proxy().set({ reshape: idAndName });
    const r = await viaProxy(['roles', 'get', 'tenant_viewer']);
    expect(r).toEqual({
      code: 0,
      stdout:
        'id\ttenant_viewer\nname\ttenant_viewer\nkind\t\nscope\t\ndescription\t\npermissions\tnot given by the server\n' +
        'tenant\t\ncreated\t\ncreated by\t\nupdated\t\ndeleted\t\n',
      stderr: '',
    });
  });

  it('roles get --json: the record as it came', async () => {
    proxy().set({ reshape: idAndName });
    const r = await viaProxy(['roles', 'get', 'tenant_viewer', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'tenant_viewer', name: 'tenant_viewer' });
  });
});

describe('an expiry the server did not keep', () => {
  it('roles assign --expires-in 1d answered expires_at null: granted, and one line says the expiry was not kept', async () => {
    const user = bulkUser(5);
    proxy().set({ reshape: grantsSay({ expires_at: null }) });
    const r = await viaProxy(grant(user));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^✓ granted tenant_viewer to ${user} in Acme Treasury \\(acme-treasury\\) permanently \\(audit trail aud_\\w+\\)$`,
      ),
    );
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: the platform did not keep the expiry asked for: svc sent an expiry at \\S+Z, the grant it answered with has none; check with: svc roles assignments ${user}$`,
        ),
      ),
    ]);
  });

  it('roles assign --file, answered expires_at null: rows granted and marked, one warning naming the lines', async () => {
    proxy().set({ reshape: grantsSay({ expires_at: null }) });
    const file = `user,role\n${bulkUser(7)},tenant_viewer\n${bulkUser(8)},tenant_viewer\n`;
    const r = await viaProxy(
      ['roles', 'assign', '--file', '-', '--expires-in', '1d', '--justification', 'x', '--yes', '--ndjson'],
      file,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.status, row.expires_at, row.expiry_not_kept])).toEqual([
      ['ok', null, true],
      ['ok', null, true],
    ]);
    expect(r.stderr).toContain(
      `warning: lines 2, 3 (${bulkUser(7)}, ${bulkUser(8)}): the platform did not keep the expiry asked for (see each row's expires_at); check with: svc roles assignments USER\n`,
    );
  });

  it('the expiry kept: no such line', async () => {
    const r = await viaProxy(grant(bulkUser(6)));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('did not keep');
  });
});
