import { describe, expect, it } from 'vitest';
import { call, useSandboxContext } from '../../helpers/sandbox.js';

// svc audit ls | get show what a change did from the entry's fields (findings escalate13 F4): a
// role's permissions added and removed, a webhook's or OAuth client's old and new values, in the
// last column (so the columns before keep their places) and as get's `change` field.
const svc = useSandboxContext();
let keys = 0;
const admin = () => ({ token: svc.sandbox().adminToken, tenant: svc.env().SVC_TENANT });
const api = async (method: string, path: string, body?: Record<string, unknown>) => {
  const withKey = method === 'POST' ? { ...body, idempotency_key: `change-${++keys}` } : body;
  const r = await call(svc.sandbox(), method, path, { ...admin(), ...(withKey ? { body: withKey } : {}) });
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
};
type Entry = { id: string; created_at: string; request_id: string; action: string };
const entries = async (target: string): Promise<Entry[]> => {
  const r = await svc.run(['audit', 'ls', '--target', target, '--oldest-first', '--json']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
};

describe('svc audit ls / get: the change an entry records', () => {
  it('a role: created with its permissions, widened, replaced (pipe, table, JSON, get)', async () => {
    const role = await api('POST', '/v1/roles', { name: 'r8', permissions: ['role.read'] });
    await api('PATCH', `/v1/roles/${role.id}`, { add_permissions: ['account.write', 'api_key.manage'] });
    await api('PATCH', `/v1/roles/${role.id}`, { permissions: ['account.read', 'role.read'] });
    const [created, widened, replaced] = await entries(role.id);

    const pipe = await svc.run(['audit', 'ls', '--target', role.id, '--oldest-first']);
    expect([pipe.code, pipe.stderr]).toEqual([0, '']);
    const row = (e: Entry, summary: string, change: string) =>
      [e.id, e.created_at, e.action, 'usr_admin', summary, '', e.request_id, '', change].join('\t');
    expect(pipe.stdout).toBe(
      [
        row(created!, 'custom role r8 created', 'name "r8"; description ""; permissions +role.read'),
        row(widened!, 'custom role r8 updated (permissions)', 'permissions +account.write +api_key.manage'),
        row(
          replaced!,
          'custom role r8 updated (permissions)',
          'permissions +account.read -account.write -api_key.manage',
        ),
        '',
      ].join('\n'),
    );

    const json = await svc.run(['audit', 'ls', '--target', role.id, '--oldest-first', '--json']);
    expect(
      (JSON.parse(json.stdout) as Array<Record<string, unknown>>).map((e) => [
        e.changes,
        e.before,
        e.after,
        e.permissions_added,
        e.permissions_removed,
      ]),
    ).toEqual([
      [null, null, { name: 'r8', description: '', permissions: ['role.read'] }, ['role.read'], []],
      [
        ['permissions'],
        { permissions: ['role.read'] },
        { permissions: ['account.write', 'api_key.manage', 'role.read'] },
        ['account.write', 'api_key.manage'],
        [],
      ],
      [
        ['permissions'],
        { permissions: ['account.write', 'api_key.manage', 'role.read'] },
        { permissions: ['account.read', 'role.read'] },
        ['account.read'],
        ['account.write', 'api_key.manage'],
      ],
    ]);

    const table = await svc.run(['audit', 'ls', '--target', role.id, '--oldest-first', '--wide'], {
      tty: { stdout: true },
      columns: 400,
      now: Date.parse(replaced!.created_at),
    });
    // A terminal table: the same cells, aligned (times relative: "now"; empty cells "-").
    const cells = [
      ['ID', 'AT', 'ACTION', 'ACTOR', 'SUMMARY', 'JUSTIFICATION', 'REQUEST', 'CLIENT', 'CHANGE'],
      ...pipe.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t').map((cell, i) => (i === 1 ? 'now' : cell === '' ? '-' : cell))),
    ];
    const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
    const aligned = cells.map((r) =>
      r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i]! + 2) : cell)).join(''),
    );
    expect(table).toEqual({ code: 0, stdout: `${aligned.join('\n')}\n`, stderr: '' });

    const one = await svc.run(['audit', 'get', replaced!.id]);
    expect([one.code, one.stderr]).toEqual([0, '']);
    expect(one.stdout).toBe(
      [
        `id\t${replaced!.id}`,
        `at\t${replaced!.created_at}`,
        'action\trole.updated',
        'actor\tusr_admin',
        'via OAuth client\t',
        'summary\tcustom role r8 updated (permissions)',
        `target\trole ${role.id}`,
        'user\t',
        `role\tr8 (${role.id})`,
        'expires\t',
        'previous expiry\t',
        'justification\t',
        'changed fields\tpermissions',
        'change\tpermissions +account.read -account.write -api_key.manage',
        `request\t${replaced!.request_id}`,
        '',
      ].join('\n'),
    );
  });

  it('a webhook re-pointed and an OAuth client redirected: old and new values, secrets masked', async () => {
    const hook = await api('POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/in?token=s3cr3t-t0ken-abcdef',
      event_types: ['webhook.test'],
    });
    await api('PATCH', `/v1/webhooks/${hook.id}`, { url: 'https://exfil.example/x' });
    const [, moved] = await entries(hook.id);
    const get = await svc.run(['audit', 'get', moved!.id]);
    expect(get.stdout).toContain(
      '\nchange\turl "https://hooks.example.com/in?token=[redacted]" → "https://exfil.example/x"\n',
    );
    expect(get.stdout + get.stderr).not.toContain('s3cr3t');

    const client = await api('POST', '/v1/oauth/clients', {
      name: 'integ2',
      redirect_uris: ['https://vendor.example/cb'],
      scopes: ['read:exceptions'],
    });
    await api('PATCH', `/v1/oauth/clients/${client.client_id}`, {
      redirect_uris: ['https://evil.example/cb'],
      scopes: ['read:exceptions', 'admin'],
    });
    const [, redirected] = await entries(client.client_id);
    const ndjson = await svc.run(['audit', 'ls', '--target', client.client_id, '--ndjson']);
    expect(JSON.parse(ndjson.stdout.trimEnd().split('\n')[0]!)).toMatchObject({
      id: redirected!.id,
      changes: ['redirect_uris', 'scopes'],
      before: { redirect_uris: ['https://vendor.example/cb'], scopes: ['read:exceptions'] },
      after: { redirect_uris: ['https://evil.example/cb'], scopes: ['read:exceptions', 'admin'] },
    });
    const pipe = await svc.run(['audit', 'ls', '--target', client.client_id, '--limit', '1']);
    expect(pipe.stdout.split('\t').at(-1)).toBe(
      'redirect_uris ["https://vendor.example/cb"] → ["https://evil.example/cb"]; ' +
        'scopes ["read:exceptions"] → ["read:exceptions","admin"]\n',
    );
    expect(pipe.stdout + pipe.stderr).not.toContain(client.client_secret);
  });

  it('a grant records no change values: the column is empty', async () => {
    const r = await svc.run([
      ...['roles', 'assign', 'usr_viewer', 'tenant_auditor', '--expires-in', '2h'],
      ...['--justification', 'walkthrough', '--json'],
    ]);
    const id = (JSON.parse(r.stdout) as { audit_trail_id: string }).audit_trail_id;
    const one = await svc.run(['audit', 'get', id]);
    expect(one.stdout).toContain('\nchanged fields\t\nchange\t\nrequest\t');
  });
});
