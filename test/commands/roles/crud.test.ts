// Over 300 lines: the roles verbs share one sandbox and their exact outputs, one behaviour per test.
/**
 * The roles verbs against a sandbox, in-process: ls and get, custom roles (create, update,
 * delete, protected built-ins), assign/revoke/assignments with their usage errors and the
 * permissions they need. Was test/e2e/roles.test.ts (spawned); prompts on a terminal stay in
 * test/e2e/roles-tty.test.ts (tmux).
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { sandboxEnv } from '../../helpers/svc.js';
import { useTempDir } from '../../helpers/temp.js';

const sandbox = useSandbox();
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });
const cache = useTempDir('svc-roles-cache-');
afterAll(() => rmSync(cache, { recursive: true, force: true }));
/** svc in-process, as a pipe sees it, on the sandbox's (real) clock. */
const svc = (args: string[], options: { env?: Record<string, string> } = {}) =>
  runInProcess(args, { SVC_CACHE_DIR: cache, ...env, ...options.env }, { now: Date.now() });

const json = (text: string) => JSON.parse(text);
const roleRequests = async () => {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([k]) => /\/v1\/(roles|users)/.test(k))
    .reduce((sum, [, n]) => sum + n, 0);
};

describe('svc roles ls / get', () => {
  it('lists built-in roles first, as TSV when piped and as a table on a terminal', async () => {
    const piped = await svc(['roles', 'ls', '--builtin'], { env });
    expect(piped.code).toBe(0);
    const rows = piped.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => r[0])).toEqual([
      'tenant_admin',
      'tenant_reviewer',
      'tenant_lead',
      'tenant_analyst',
      'tenant_rule_author',
      'tenant_ai_prompter',
      'tenant_compliance',
      'tenant_auditor',
      'tenant_viewer',
      'org_admin',
    ]);
    expect(rows[8]).toEqual([
      'tenant_viewer',
      'tenant_viewer',
      'builtin',
      'account.read,exception.read,reconciliation.read',
      'Read-only access',
    ]);
    const table = await runInProcess(['roles', 'ls', '--builtin'], env, {
      tty: { stdout: true },
      columns: 200,
      now: Date.now(),
    });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +NAME +KIND +PERMISSIONS +DESCRIPTION$/);
    expect(table.stdout.split('\n')[9]).toMatch(
      /^tenant_viewer +tenant_viewer +builtin +account.read, exception.read, reconciliation.read +Read-only access$/,
    );
    const empty = await runInProcess(['roles', 'ls', '--custom'], env, {
      tty: { stdout: true },
      columns: 200,
      now: Date.now(),
    });
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([
      0,
      '',
      'no custom roles yet: create one with `svc roles create`\n',
    ]);
  });

  it('gets a role by id or by name, and says when there is none', async () => {
    const viewer = await svc(['roles', 'get', 'tenant_viewer', '--json'], { env });
    expect(json(viewer.stdout)).toMatchObject({ id: 'tenant_viewer', kind: 'builtin', scope: 'tenant' });
    const missing = await svc(['roles', 'get', 'tenant_viewr'], { env });
    expect([missing.code, missing.stderr]).toEqual([
      5,
      'error: no role "tenant_viewr" in this tenant (did you mean tenant_viewer?) (HTTP 404, not_found); give the role id (role_…) of a deleted role, or see `svc roles ls --include-deleted`\n',
    ]);
  });
});

describe('custom roles', () => {
  it.each([
    [
      'tenant-admin',
      'tenant-',
      'role names starting with tenant- are kept: they read as built-in roles (tenant_…)',
    ],
    ['usr_admin', 'usr_', 'role names starting with usr_ are kept for user ids'],
  ])(
    'refuses the look-alike name %s in one line, exit 2, creating nothing',
    async (name, prefix, message) => {
      const refused = await svc(['roles', 'create', '--name', name, '--permission', 'rule.read'], { env });
      expect([refused.code, refused.stdout]).toEqual([2, '']);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^error: ${message.replace(/[()…]/g, '\\$&')} \\[name: choose one that does not start with ${prefix}\\] \\(HTTP 400, reserved_role_name, request req_[0-9a-f]+\\)\\n$`,
        ),
      );
      expect((await svc(['roles', 'get', name], { env })).code).toBe(5);
    },
  );

  it('creates, updates and deletes a custom role; built-in roles are protected', async () => {
    const created = await svc(
      [
        'roles',
        'create',
        '--name',
        'fx-desk',
        '--description',
        'FX desk',
        '--permission',
        'exception.read',
        '--permission',
        'exception.resolve.fx_difference',
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const id = /^id\t(role_[0-9a-f]{24})$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect(created.stdout).toContain('permissions\texception.read, exception.resolve.fx_difference\n');
    expect(created.stderr).toBe(`✓ created role fx-desk (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`);

    const updated = await svc(
      [
        'roles',
        'update',
        'fx-desk',
        '--name',
        'fx-ops',
        '--add-permission',
        'rule.write.fx',
        '--remove-permission',
        'exception.read',
        '--json',
      ],
      { env },
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(json(updated.stdout)).toMatchObject({
      id,
      name: 'fx-ops',
      permissions: ['exception.resolve.fx_difference', 'rule.write.fx'],
    });
    const byId = await svc(['roles', 'get', id!, '--json'], { env });
    expect(json(byId.stdout).name).toBe('fx-ops');

    // An update that changes nothing says so, and neither the role nor the audit trail moves.
    const auditBefore = await svc(['audit', 'ls', '--json'], { env });
    const same = await svc(
      [
        'roles',
        'update',
        'fx-ops',
        '--add-permission',
        'rule.write.fx',
        '--remove-permission',
        'exception.read',
      ],
      { env },
    );
    expect([same.code, same.stderr]).toEqual([
      0,
      `nothing changed: role fx-ops (${id}) already has rule.write.fx and does not have exception.read\n`,
    ]);
    expect(same.stdout).toContain('permissions\texception.resolve.fx_difference, rule.write.fx\n');
    expect((await svc(['roles', 'get', id!, '--json'], { env })).stdout).toBe(byId.stdout);
    expect((await svc(['audit', 'ls', '--json'], { env })).stdout).toBe(auditBefore.stdout);

    const refused = await svc(['roles', 'delete', 'fx-ops'], { env });
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'error: deleting role fx-ops needs confirmation; pass --yes to confirm non-interactively\n',
    ]);
    const deleted = await svc(['roles', 'delete', 'fx-ops', '--yes'], { env });
    expect([deleted.code, deleted.stderr]).toEqual([
      0,
      `✓ deleted role fx-ops (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016; nobody held it\n`,
    ]);
    const listed = await svc(['roles', 'ls', '--custom', '--include-deleted', '--json'], { env });
    expect(json(listed.stdout)).toEqual([
      expect.objectContaining({ id, deleted_at: expect.stringMatching(/Z$/) }),
    ]);

    for (const args of [
      ['roles', 'delete', 'tenant_admin'],
      ['roles', 'update', 'tenant_viewer', '--add-permission', 'rule.read'],
    ]) {
      const r = await svc(args, { env });
      expect(r.code, args.join(' ')).toBe(4);
      expect(r.stderr).toMatch(
        /^error: tenant_(admin|viewer) is a built-in role; built-in roles cannot be changed or deleted \(HTTP 403, builtin_role_immutable, request req_[0-9a-f]+\)\n$/,
      );
    }
  });

  it.each([
    [
      ['roles', 'create', '--name', 'ops'],
      'error: a role needs at least one --permission; e.g. --permission exception.read --permission exception.write',
    ],
    [['roles', 'create', '--permission', 'exception.read'], 'error: --name is required'],
    [
      ['roles', 'create', '--name', 'ops', '--permission', 'Exception.Read'],
      'error: --permission "Exception.Read" is not a permission: use a dotted lowercase identifier such as exception.read or rule.write.fx',
    ],
    [
      ['roles', 'update', 'ops', '--add-permission', 'exception'],
      'error: --add-permission "exception" is not a permission: use a dotted lowercase identifier such as exception.read or rule.write.fx',
    ],
    [
      ['roles', 'update', 'ops'],
      'error: nothing to change; pass --name, --description, --add-permission or --remove-permission',
    ],
    [
      ['roles', 'ls', '--custom', '--builtin'],
      'error: --custom and --builtin cannot be combined; leave both out to list every role',
    ],
  ])('svc %j → exit 2 before any request', async (args, message) => {
    const before = await roleRequests();
    const r = await svc(args, { env });
    expect([r.code, r.stderr]).toEqual([2, `${message}\n`]);
    expect(await roleRequests()).toBe(before);
  });

  it('reports a permission outside the catalog from the server, with a suggestion', async () => {
    const r = await svc(['roles', 'create', '--name', 'ops', '--permission', 'exception.reed'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: unknown permission exception\.reed \(did you mean exception\.read\?\); GET \/v1\/permissions lists the catalog \[permissions: exception\.reed is not in the permission catalog \(did you mean exception\.read\?\)\] \(HTTP 400, unknown_permission, request req_\w+\); see `svc roles permissions` for the catalog\n$/,
    );
  });
});

describe('svc roles assign / revoke', () => {
  it('grants with an expiry and prints the audit_trail_id; a duplicate is a conflict', async () => {
    const r = await svc(
      [
        'roles',
        'assign',
        'usr_lead',
        'tenant_reviewer',
        '--expires-in',
        '8h',
        '--justification',
        'INC-4711 cover',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const audit = /^audit trail id\t(aud_[0-9a-f]{24})$/m.exec(r.stdout)?.[1];
    expect(audit).toBeDefined();
    const expires = /^expires\t(\S+)$/m.exec(r.stdout)?.[1];
    expect(Date.parse(expires!) - Date.now()).toBeGreaterThan(8 * 3600_000 - 60_000);
    expect(r.stdout).toContain(
      `user\tusr_lead\nrole\ttenant_reviewer\ntenant\t8ab23c1d-a27b-565a-ad8f-983ecf5fe016\nstatus\tactive\nassigned by\tusr_admin\n`,
    );
    expect(r.stderr).toBe(
      `✓ granted tenant_reviewer to usr_lead in Acme Treasury (acme-treasury) until ${expires} (audit trail ${audit})\n`,
    );
    const trail = await call(sandbox(), 'GET', '/_sandbox/audit-trail?user_id=usr_lead&action=role.assigned');
    expect(trail.body.items.at(-1)).toMatchObject({
      id: audit,
      justification: 'INC-4711 cover',
      actor: 'usr_admin',
    });

    const again = await svc(
      [
        'roles',
        'assign',
        'usr_lead',
        'tenant_reviewer',
        '--expires-at',
        '2099-01-01T00:00:00Z',
        '--justification',
        'x',
        '--json',
      ],
      { env },
    );
    // A role already held is one outcome, as in bulk runs: already_assigned, nothing changed, exit 0.
    expect(again.code, again.stderr).toBe(0);
    // The machine shapes mark it: a script can tell that nothing was granted.
    expect(json(again.stdout)).toMatchObject({
      audit_trail_id: audit,
      expires_at: expires,
      status: 'active',
      already_assigned: true,
    });
    const againNd = await svc(
      [
        'roles',
        'assign',
        'usr_lead',
        'tenant_reviewer',
        '--expires-in',
        '5h',
        '--justification',
        'b',
        '--ndjson',
      ],
      { env },
    );
    expect(
      againNd.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).already_assigned),
    ).toEqual([true]);
    expect(again.stderr).toBe(
      `skipped: already_assigned — usr_lead already holds tenant_reviewer until ${expires} (audit trail ${audit}); nothing changed\n` +
        'to move its expiry: svc roles assign usr_lead tenant_reviewer --extend --expires-in DURATION --justification TEXT\n',
    );

    // --extend moves the expiry through the API, audited with the previous one.
    const extended = await svc(
      [
        'roles',
        'assign',
        'usr_lead',
        'tenant_reviewer',
        '--extend',
        '--expires-at',
        '2099-01-01T00:00:00Z',
        '--justification',
        'INC-4711 runs long',
      ],
      { env },
    );
    expect(extended.code, extended.stderr).toBe(0);
    const update = /^update audit trail id\t(aud_[0-9a-f]{24})$/m.exec(extended.stdout)?.[1];
    expect(update).toBeDefined();
    expect(extended.stdout).toMatch(/^expires\t2099-01-01T00:00:00Z$/m);
    expect(extended.stderr).toBe(
      `✓ usr_lead holds tenant_reviewer in Acme Treasury (acme-treasury) until 2099-01-01T00:00:00Z now (was until ${expires}; audit trail ${update})\n`,
    );
    const entry = json((await svc(['audit', 'get', update!, '--json'], { env })).stdout);
    expect(entry).toMatchObject({
      action: 'role.assignment_updated',
      previous_expires_at: expires,
      expires_at: '2099-01-01T00:00:00Z',
      justification: 'INC-4711 runs long',
    });

    const listed = await svc(['roles', 'assignments', 'usr_lead', '--json'], { env });
    expect(json(listed.stdout).map((a: { role_id: string }) => a.role_id)).toEqual([
      'tenant_lead',
      'tenant_reviewer',
    ]);

    const noYes = await svc(['roles', 'revoke', 'usr_lead', 'tenant_reviewer'], { env });
    expect([noYes.code, noYes.stderr]).toEqual([
      2,
      'error: revoking tenant_reviewer from usr_lead needs confirmation; pass --yes to confirm non-interactively\n',
    ]);
    const revoked = await svc(['roles', 'revoke', 'usr_lead', 'tenant_reviewer', '--yes'], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    const revocation = /^revocation audit trail id\t(aud_[0-9a-f]{24})$/m.exec(revoked.stdout)?.[1];
    expect(revoked.stderr).toBe(
      `✓ revoked tenant_reviewer from usr_lead in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (audit trail ${revocation})\n`,
    );
    const gone = await svc(['roles', 'revoke', 'usr_lead', 'tenant_reviewer', '--yes'], { env });
    expect(gone.code).toBe(5);
    expect(gone.stderr).toMatch(
      /^error: usr_lead does not hold tenant_reviewer in this tenant \(HTTP 404, assignment_not_found/,
    );
  });

  it.each([
    [
      ['roles', 'assign', 'usr_lead', 'tenant_viewer'],
      'error: missing --expires-in or --expires-at, --justification; pass them on the command line (see `svc roles assign --help`), or run in a terminal to be asked',
    ],
    [
      ['roles', 'assign', '--expires-in', '8h', '--justification', 'x'],
      'error: missing USER, ROLE; pass them on the command line (see `svc roles assign --help`), or run in a terminal to be asked',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-in', '8x', '--justification', 'x'],
      'error: --expires-in "8x" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-in', '0h', '--justification', 'x'],
      'error: --expires-in a duration must be longer than zero, got "0h"',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-in', '400d', '--justification', 'x'],
      'error: --expires-in "400d" is longer than 365 days; give an end time (expires at) instead',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-at', '2030-02-30T00:00:00Z', '--justification', 'x'],
      'error: --expires-at "2030-02-30T00:00:00Z" is not a date: February has 28 days',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-at', '2027-02-29T00:00:00Z', '--justification', 'x'],
      'error: --expires-at "2027-02-29T00:00:00Z" is not a date: 2027 is not a leap year (February 2027 has 28 days)',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-at', '2026-12-01', '--justification', 'x'],
      'error: --expires-at "2026-12-01" is a date alone: add a time and a time zone, e.g. 2026-12-01T00:00:00Z',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-in', '30s', '--justification', 'x'],
      `error: --expires-in "30s": a grant's expiry is not counted in seconds; use m, h or d (30m, 8h, 7d), at least 1m`,
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-at', '2030-01-01T00:00:00', '--justification', 'x'],
      'error: --expires-at "2030-01-01T00:00:00" is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)',
    ],
    [
      [
        'roles',
        'assign',
        'u',
        'r',
        '--expires-in',
        '1h',
        '--expires-at',
        '2030-01-01T00:00:00Z',
        '--justification',
        'x',
      ],
      'error: --expires-in and --expires-at cannot be combined; pick one',
    ],
    [
      ['roles', 'assign', 'u', 'r', '--expires-in', '1h', '--justification', ' '],
      'error: --justification must not be empty',
    ],
    [['roles', 'assign', 'u', 'r', '--file', 'x.csv'], 'error: give USER and ROLE, or --file, not both'],
    [['roles', 'assign', 'u', 'r', '--dry-run'], 'error: --dry-run only works with --file'],
    [
      ['roles', 'assign', '--file', 'x.csv', '--concurrency', '0'],
      'error: --concurrency must be an integer from 1 to 64, got "0"',
    ],
    [
      ['roles', 'revoke', 'usr_lead'],
      'error: missing ROLE; pass it on the command line, or run in a terminal to be asked',
    ],
  ])('svc %j → exit 2 before any request', async (args, message) => {
    const before = await roleRequests();
    const r = await svc(args, { env });
    expect([r.code, r.stderr]).toEqual([2, `${message}\n`]);
    expect(await roleRequests()).toBe(before);
  });

  it('an assignment that expires no longer authorizes (the sandbox clock moves past it)', async () => {
    const auditor = (
      await call(sandbox(), 'POST', '/_sandbox/tokens', {
        body: { user_id: 'usr_auditor', expires_in_seconds: 86_400 },
      })
    ).body.access_token as string;
    const asAuditor = { ...env, SVC_TOKEN: auditor };
    const before = await svc(['roles', 'ls'], { env: asAuditor });
    expect(before.code).toBe(4);
    const granted = await svc(
      [
        'roles',
        'assign',
        'usr_auditor',
        'tenant_admin',
        '--expires-in',
        '30m',
        '--justification',
        'audit prep',
      ],
      { env },
    );
    expect(granted.code, granted.stderr).toBe(0);
    expect((await svc(['roles', 'ls', '--builtin'], { env: asAuditor })).code).toBe(0);
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 31 * 60 } });
    const after = await svc(['roles', 'ls'], { env: asAuditor });
    expect(after.code).toBe(4);
    expect(after.stderr).toMatch(
      /^error: listing roles needs permission role\.read in tenant acme-treasury, which your live roles there \(tenant_auditor\) do not grant; ask a tenant_admin of acme-treasury for a role that grants it \(HTTP 403, insufficient_role, request req_\w+\); another credential that holds it works too: set SVC_TOKEN to a credential that holds it \(it overrides every profile\), or unset it to use a profile whose login does\n$/,
    );
    const history = await svc(['roles', 'assignments', 'usr_auditor', '--include-ended', '--json'], { env });
    expect(
      json(history.stdout).map((a: { role_id: string; status: string }) => [a.role_id, a.status]),
    ).toEqual([
      ['tenant_auditor', 'active'],
      ['tenant_admin', 'expired'],
    ]);
  });

  it.each([
    [
      ['roles', 'assign', 'usr_admin', 'tenant_viewer', '--expires-in', '1h', '--justification', 'self'],
      'you cannot grant roles to yourself; ask another administrator',
    ],
    [
      [
        'roles',
        'assign',
        'usr_admin',
        'tenant_admin',
        '--expires-in',
        '7d',
        '--justification',
        'self',
        '--extend',
      ],
      // usr_admin holds tenant_admin: --extend asks to move its expiry, and is refused for that (review s10 a, 4).
      'you cannot change the expiry of your own roles; ask another administrator',
    ],
    [
      [
        'roles',
        'assign',
        'usr_admin',
        'tenant_auditor',
        '--expires-in',
        '7d',
        '--justification',
        'self',
        '--extend',
      ],
      // A role not held: --extend asks for a grant.
      'you cannot grant roles to yourself; ask another administrator',
    ],
  ])('svc %j on oneself → exit 4, one line (403 self_assignment)', async (args, message) => {
    const r = await svc(args, { env });
    expect(r.code, r.stderr).toBe(4);
    // Earlier tests moved the sandbox's clock: svc says it counted --expires-in from it.
    expect(r.stderr).toMatch(
      new RegExp(
        `^(warning: the platform's clock is [\\d a-z]+ ahead of this machine's; --expires-in was counted from the platform's time\n)?error: ${message} \\(HTTP 403, self_assignment, request req_[0-9a-f]+\\)\n$`,
      ),
    );
  });
});

describe('--extend through an API key its issuer holds', () => {
  // Review s10 a, 4: the key's refusal said "grants roles to themselves" for an expiry change.
  it('is refused as a change of the expiry of a grant its issuer holds; a grant as a grant', async () => {
    const made = await svc(
      [
        'tenants',
        'api-keys',
        'create',
        'acme-treasury',
        '--kind',
        'service_role',
        '--justification',
        'extend own grant test',
        '--show-secret',
        '--json',
      ],
      { env },
    );
    expect(made.code, made.stderr).toBe(0);
    const byKey = { ...env, SVC_TOKEN: json(made.stdout).key };
    const assign = (role: string, ...flags: string[]) =>
      svc(
        ['roles', 'assign', 'usr_admin', role, '--expires-in', '7d', '--justification', 'via key', ...flags],
        {
          env: byKey,
        },
      );
    const before = json((await svc(['roles', 'assignments', 'usr_admin', '--json'], { env })).stdout);
    const extend = await assign('tenant_admin', '--extend');
    expect([extend.code, extend.stdout]).toEqual([4, '']);
    expect(extend.stderr).toMatch(
      /error: this API key was issued by usr_admin, and nobody changes the expiry of their own roles; ask another administrator \(HTTP 403, self_assignment, /,
    );
    const grant = await assign('tenant_auditor', '--extend');
    expect(grant.code).toBe(4);
    expect(grant.stderr).toMatch(
      /error: this API key was issued by usr_admin, and nobody grants roles to themselves; ask another administrator \(HTTP 403, self_assignment, /,
    );
    expect(json((await svc(['roles', 'assignments', 'usr_admin', '--json'], { env })).stdout)).toEqual(
      before,
    );
  });
});

describe('a 403 to an API key', () => {
  // Review s8 (review-a 2): a key acts with the role of its kind, which nobody can grant it more
  // than, so its refusal names another credential, not a tenant_admin to ask.
  it('names another credential as the fix, not a grant', async () => {
    const me = JSON.parse((await svc(['me', '--json'])).stdout) as { tenant_id: string };
    const minted = await call(sandbox(), 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: me.tenant_id, kind: 'publishable' },
    });
    const r = await svc(['roles', 'create', '--name', 'by-key', '--permission', 'exception.read'], {
      env: { SVC_TOKEN: minted.body.key as string },
    });
    expect([r.code, r.stdout]).toEqual([4, '']);
    expect(r.stderr).toMatch(
      /^error: creating custom roles needs permission role\.manage in tenant acme-treasury, which this API key's role \(tenant_viewer, fixed by its kind\) does not grant; use a service-role key or a user's login \(HTTP 403, insufficient_role, request req_\w+\); another credential that holds it works too: set SVC_TOKEN to a credential that holds it \(it overrides every profile\), or unset it to use a profile whose login does\n$/,
    );
  });
});
