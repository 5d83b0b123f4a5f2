// Over 300 lines: `svc apply` in-process against one sandbox, one behaviour per test with its
// exact output; the restore and create-missing cases live in restore.test.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { APAC, as, LABS, seedTenant, user, writeFile, writes } from '../../helpers/ascode.js';
import { afterResuming, lastJson } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// `svc apply` (issue 14): edit → plan → apply → plan shows no changes; --prune for every
// removal; never the caller's own administration; a saved plan only on the state it was made
// from; secrets to --secret-dir; a failed change stops what depends on it and nothing else.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-');
const LEDGER = tenantId('acme-ledger-uk');
const EU = tenantId('acme-payments-eu');
// The sandbox's clock is real: expiries must be in its future.
const real = { clock: { now: () => Date.now() } };
// A platform that refuses creating roles outright (svc cannot know beforehand): a change fails.
const refusing = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) =>
    method === 'POST' && path === '/v1/roles' ? refusal(403, 'insufficient_permission') : undefined,
});

const FILE = `version: 1
manage:
  roles: all
  grants: listed-roles
  webhooks: all
  oauth_clients: all
blocks:
  - tenants: acme-labs
    roles:
      - name: ops
        description: Operations team
        permissions: [exception.read, rule.read]
      - name: fx-desk
        permissions: [rule.write.fx]
    grants:
      - user: ${user(1)}
        role: ops
        expires_at: 2032-01-01T00:00:00Z
        justification: another year
      - users: [${user(2)}, ${user(3)}]
        role: fx-desk
        expires_in: 30d
        justification: FX rota
    webhooks:
      - url: https://hooks.example.com/labs
        event_types: [exception.created, exception.resolved]
        description: pager
      - url: https://hooks.example.com/new
        event_types: [reconciliation.failed]
    oauth_clients:
      - name: portal
        redirect_uris: [https://portal.example.com/cb]
        scopes: [read:reconciliations]
      - name: analytics
        redirect_uris: [https://analytics.example.com/cb]
        scopes: [read:reconciliations, read:exceptions]
`;

describe('svc apply', () => {
  it('edit → plan → apply → plan shows no changes; secrets go to --secret-dir, one 0600 file each', async () => {
    const ids = await seedTenant(svc.sandbox(), LABS, 'labs');
    const file = writeFile(dir, 'labs.yaml', FILE);
    const planned = await svc.run(['plan', '-f', file], real);
    expect([planned.code, planned.stderr]).toEqual([
      10,
      'plan: 5 to create, 3 to update, 0 to delete in 1 of 1 tenant\n',
    ]);

    const secrets = join(dir, 'secrets');
    const applied = await svc.run(['apply', '-f', file, '--secret-dir', secrets, '--yes', '--ndjson'], real);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toMatch(/^✓ 8 applied \(\d+\.\d s\)\n$/);
    const rows = ndjson(applied.stdout);
    // Roles first, then grants and integrations (their order within a phase is the run's).
    expect(
      rows
        .slice(0, 2)
        .map((r) => `${r.kind} ${r.action} ${r.name}`)
        .sort(),
    ).toEqual(['role create fx-desk', 'role update ops']);
    expect(rows.map((r) => `${r.tenant} ${r.kind} ${r.action} ${r.name} ${r.status}`).sort()).toEqual([
      'acme-labs grant extend usr_bulk_000001 ops ok',
      'acme-labs grant grant usr_bulk_000002 fx-desk ok',
      'acme-labs grant grant usr_bulk_000003 fx-desk ok',
      'acme-labs oauth_client create analytics ok',
      'acme-labs role create fx-desk ok',
      'acme-labs role update ops ok',
      'acme-labs webhook create https://hooks.example.com/new ok',
      'acme-labs webhook update https://hooks.example.com/labs ok',
    ]);
    expect(rows.find((r) => r.action === 'update' && r.kind === 'role').id).toBe(ids.role);

    // One file per new resource, named so a person knows which, holding only its secret.
    expect(statSync(secrets).mode & 0o777).toBe(0o700);
    const made = readdirSync(secrets).sort();
    const hook = rows.find((r) => r.kind === 'webhook' && r.action === 'create');
    const client = rows.find((r) => r.kind === 'oauth_client');
    expect(made).toEqual([
      `acme-labs.oauth-client.analytics.${client.id}.secret`,
      `acme-labs.webhook.hooks.example.com_new.${hook.id}.secret`,
    ]);
    for (const name of made) expect(statSync(join(secrets, name)).mode & 0o777).toBe(0o600);
    // Exactly the key's bytes, no final newline: receivers read the file as it is (sig13 finding 8).
    expect(readFileSync(join(secrets, made[1]!), 'utf8')).toMatch(/^whsec_[\w-]+$/);
    expect(readFileSync(join(secrets, made[0]!), 'utf8')).toMatch(/^svc_cs_[\w-]+$/);
    // The stripe package, given the file as it is, accepts what the webhook's key signs.
    const payload = writeFile(dir, 'event.json', '{"id":"evt_1","type":"reconciliation.failed"}');
    const signed = await svc.run(
      [
        'webhooks',
        'sign',
        '--secret-file',
        join(secrets, made[1]!),
        '--payload',
        payload,
        '--at',
        String(Math.floor(Date.now() / 1000)),
      ],
      real,
    );
    expect(signed.code, signed.stderr).toBe(0);
    expect(() =>
      Stripe.webhooks.constructEvent(
        readFileSync(payload),
        signed.stdout.trim(),
        readFileSync(join(secrets, made[1]!), 'utf8'),
      ),
    ).not.toThrow();
    expect(hook.secret_file).toBe(join(secrets, made[1]!));
    expect(applied.stdout).not.toMatch(/whsec_|svc_cs_/);

    expect(await svc.run(['plan', '-f', file], real)).toEqual({
      code: 0,
      stdout: '',
      stderr: `no changes: the live state of 1 tenant matches ${file}\n`,
    });
  });

  it('makes every removal only with --prune, and only within what the file manages', async () => {
    const file = writeFile(
      dir,
      'prune.yaml',
      `version: 1
manage: { roles: all, grants: listed-roles, webhooks: all, oauth_clients: all }
blocks:
  - tenants: acme-labs
    roles:
      - name: ops
        permissions: [exception.read, rule.read]
    grants:
      - user: ${user(1)}
        role: ops
        expires_at: 2032-01-01T00:00:00Z
`,
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], real);
    expect(planned.code).toBe(10);
    const removals = ndjson(planned.stdout);
    expect(removals.map((r) => `${r.kind} ${r.verb} ${r.name} ${r.prune}`).sort()).toEqual([
      'oauth_client delete analytics true',
      'oauth_client delete portal true',
      'role delete fx-desk true',
      'webhook delete https://hooks.example.com/labs true',
      'webhook delete https://hooks.example.com/new true',
    ]);
    // fx-desk's grants are not of a role the file lists, so they are not revoked one by one:
    // they end with the role, and the plan says so, and whose (apply deletes it only while no one else holds it).
    expect(removals.find((r) => r.kind === 'role').fields).toEqual([
      { field: 'permissions', from: ['rule.write.fx'] },
      { field: 'grants', from: 2, holders: [user(2), user(3)] },
    ]);
    const before = await writes(svc.sandbox());
    expect(await svc.run(['apply', '-f', file, '--yes'], real)).toEqual({
      code: 0,
      stdout: '',
      // Not "the live state matches": it differs, by removals only (svc plan says so, exit 10).
      stderr: `nothing applied: the only differences from ${file} are 5 removals, made only with --prune\n`,
    });
    expect(await writes(svc.sandbox())).toBe(before);

    const pruned = await svc.run(['apply', '-f', file, '--yes', '--prune', '--ndjson'], real);
    expect(pruned.code, pruned.stderr).toBe(0);
    const order = ndjson(pruned.stdout).map((r) => `${r.kind} ${r.action} ${r.status}`);
    // Custom roles go last.
    expect(order).toHaveLength(5);
    expect(order.at(-1)).toBe('role delete ok');
    // usr_admin's tenant_admin grant is not of a listed role: untouched.
    const admins = await call(svc.sandbox(), 'GET', '/v1/role-assignments?role_id=tenant_admin', {
      token: svc.sandbox().adminToken,
      tenant: LABS,
    });
    expect(admins.body.items.map((a: { user_id: string }) => a.user_id)).toEqual(['usr_admin']);
    expect((await svc.run(['plan', '-f', file], real)).code).toBe(0);
  });

  it('never takes away your own administration of a tenant, even with --prune', async () => {
    const file = writeFile(
      dir,
      'lockout.yaml',
      'version: 1\nmanage: { grants: all }\nblocks:\n  - tenants: acme-ledger-uk\n    grants: []\n',
    );
    const before = await writes(svc.sandbox());
    // Without --prune, the removal --prune would refuse too is not promised to it.
    expect(await svc.run(['apply', '-f', file, '--yes'], real)).toEqual({
      code: 0,
      stdout: '',
      stderr: `nothing applied: the only differences from ${file} are 1 removal, made only with --prune, and 1 removal svc refuses to make (svc plan says why; keep it in the file)\n`,
    });
    const refused = await svc.run(['apply', '-f', file, '--yes', '--prune'], real);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: svc apply refuses acme-ledger-uk: revoke tenant_admin from usr_admin: it would take away your own administration of acme-ledger-uk (role.read, role.manage, role.assign, webhook.read, webhook.manage, oauth_client.manage); keep it in the file, or have another administrator make this change; nothing was applied\n',
    });
    expect(await writes(svc.sandbox())).toBe(before);
    // The other grant of the tenant (usr_viewer's) goes, with --prune, when yours stays.
    const keep = writeFile(
      dir,
      'keep.yaml',
      'version: 1\nmanage: { grants: all }\nblocks:\n  - tenants: acme-ledger-uk\n    grants:\n      - { user: usr_admin, role: tenant_admin }\n',
    );
    const pruned = await svc.run(['apply', '-f', keep, '--yes', '--prune', '--ndjson'], real);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(ndjson(pruned.stdout).map((r) => `${r.action} ${r.name} ${r.status}`)).toEqual([
      'revoke usr_viewer tenant_viewer ok',
    ]);
    const plan = await svc.run(['plan', '-f', file, '--ndjson'], real);
    expect(ndjson(plan.stdout)[0].refused).toContain('your own administration');
    const left = await call(svc.sandbox(), 'GET', '/v1/role-assignments', {
      token: svc.sandbox().adminToken,
      tenant: LEDGER,
    });
    expect(
      left.body.items.map((a: { user_id: string; role_id: string }) => `${a.user_id} ${a.role_id}`),
    ).toEqual(['usr_admin tenant_admin']);
  });

  it('applies a saved plan while the tenant is as it was, and refuses it, saying what drifted, once it is not', async () => {
    const ids = await seedTenant(svc.sandbox(), APAC, 'apac');
    const file = writeFile(
      dir,
      'apac.yaml',
      `version: 1
manage: { webhooks: all }
blocks:
  - tenants: acme-apac
    roles:
      - name: ops
        description: Operations, reviewed
        permissions: [rule.read]
    webhooks:
      - url: https://hooks.example.com/apac
        event_types: [exception.created]
        description: pager
`,
    );
    const plan = join(dir, 'apac-plan.json');
    expect((await svc.run(['plan', '-f', file, '--out', plan], real)).code).toBe(10);
    // Someone changes the role, and adds a webhook the plan would not know to remove.
    await as(svc.sandbox(), APAC, 'PATCH', `/v1/roles/${ids.role}`, {
      permissions: ['rule.read', 'exception.read'],
    });
    await as(svc.sandbox(), APAC, 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/other',
      event_types: ['webhook.test'],
    });
    const before = await writes(svc.sandbox());
    // The fix names the whole command that makes a plan apply takes: the plan's own file and
    // path, and the run's --tenant (attack25a F10: was "run svc plan again", without -f or --out).
    expect(await svc.run(['--tenant', 'acme-apac', 'apply', plan, '--yes'], real)).toEqual({
      code: 6,
      stdout: '',
      stderr:
        'acme-apac: role ops changed since the plan\n' +
        'acme-apac: webhooks the plan leaves alone changed since it was computed (1 then, 2 now)\n' +
        `error: the live state changed since ${plan} was computed; nothing was applied; run \`svc --tenant acme-apac plan -f ${file} --out ${plan}\` again and review the new plan\n`,
    });
    expect(await writes(svc.sandbox())).toBe(before);

    // Planned again on the new state, the saved plan applies (removing the new webhook with --prune).
    expect((await svc.run(['plan', '-f', file, '--out', plan], real)).code).toBe(10);
    const applied = await svc.run(['apply', plan, '--yes', '--prune', '--ndjson'], real);
    expect(applied.code, applied.stderr).toBe(0);
    expect(ndjson(applied.stdout).map((r) => `${r.kind} ${r.action} ${r.status}`)).toEqual([
      'role update ok',
      'webhook delete ok',
    ]);
    expect((await svc.run(['plan', '-f', file], real)).code).toBe(0);
    expect(ids.client).toMatch(/^cli_/);
  });

  it('refuses a plan made against another platform, and what is not a plan', async () => {
    const source = writeFile(dir, 'other.yaml', 'version: 1\nblocks:\n  - tenants: acme-labs\n');
    const saved = join(dir, 'other.saved.json');
    expect((await svc.run(['plan', '-f', source, '--out', saved])).code).toBe(0);
    // The same sandbox by another name is another platform to svc (a plan edited to say so is
    // refused by its digest instead: saved-plan.test.ts).
    const other = svc.sandbox().url.replace('127.0.0.1', 'localhost');
    expect(await svc.run(['apply', saved, '--yes'], { env: { SVC_BASE_URL: other } })).toMatchObject({
      code: 2,
      stderr: `error: ${saved} was computed against ${svc.sandbox().url}, not ${other}; apply it with the profile it was made with, or plan again here\n`,
    });
    const notPlan = writeFile(dir, 'not.json', '{"version":1}');
    expect((await svc.run(['apply', notPlan])).stderr).toContain('is not a plan saved by svc plan --out');
    expect((await svc.run(['apply'])).stderr).toBe(
      'error: svc apply needs -f FILE (an access file) or PLAN.json (saved by svc plan --out)\n',
    );
  });

  it('asks on a terminal, showing the plan and naming the tenant; elsewhere it needs --yes', async () => {
    const file = writeFile(
      dir,
      'ask.yaml',
      `version: 1\nblocks:\n  - tenants: acme-ledger-uk\n    roles:\n      - { name: asked, permissions: [rule.read] }\n`,
    );
    const refused = await svc.run(['apply', '-f', file], real);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: applying ${file} needs confirmation; pass --yes to confirm non-interactively\n`,
    });
    const declined = await svc.run(['apply', '-f', file], { ...real, tty: true, answers: [false] });
    expect(declined.code).toBe(2);
    expect(declined.stderr).toBe(
      'Acme Ledger UK (acme-ledger-uk)\n  + role asked  (line 5)\n      permissions: rule.read\n' +
        'error: cancelled; nothing was changed\n',
    );
    const asked = await svc.run(['apply', '-f', file], {
      ...real,
      tty: { stdin: true, stdout: true },
      answers: [true],
    });
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(
      /^LINE +TENANT +KIND +ACTION +NAME +STATUS +ID +DETAIL\n5 +acme-ledger-uk +role +create +asked +ok +role_\w+ +-\n$/,
    );
  });

  it('a failed change stops what depends on it, and nothing else; exit 7 says what was applied', async () => {
    // A delegated administrator, on a platform that refuses the role's creation (svc apply plans
    // nothing it can tell the platform would refuse: see test/commands/plan/holds.test.ts).
    const sandbox = svc.sandbox();
    const delegate = await as(sandbox, EU, 'POST', '/v1/roles', {
      name: 'delegate',
      permissions: [
        'role.read',
        'role.manage',
        'role.assign',
        'webhook.read',
        'webhook.manage',
        'oauth_client.manage',
        'account.read',
        'reconciliation.read',
        'exception.read',
        'rule.write',
      ],
    });
    await as(sandbox, EU, 'POST', `/v1/users/${user(9)}/roles`, { role_id: delegate.id });
    const token = sandbox.issueToken(user(9), { expiresInSeconds: 600 }).token;
    const file = writeFile(
      dir,
      'fail.yaml',
      `version: 1
blocks:
  - tenants: acme-payments-eu
    roles:
      - { name: rules, permissions: [rule.write] }
    grants:
      - { user: ${user(8)}, role: rules }
      - { user: ${user(7)}, role: tenant_viewer }
`,
    );
    const run = await svc.run(['apply', '-f', file, '--yes', '--ndjson'], {
      ...real,
      env: { SVC_TOKEN: token, SVC_TENANT: EU, SVC_BASE_URL: refusing().url },
    });
    expect(run.code).toBe(7);
    const rows = ndjson(run.stdout);
    expect(rows.map((r) => `${r.kind} ${r.action} ${r.name} ${r.status} ${r.error?.code ?? ''}`)).toEqual([
      'role create rules failed insufficient_permission',
      `grant grant ${user(8)} rules failed dependency_failed`,
      `grant grant ${user(7)} tenant_viewer ok `,
    ]);
    expect(rows[1].error.message).toBe('not attempted: acme-payments-eu: role rules failed');
    // The summary line, then (--ndjson) the error as one JSON object.
    const [summary, last, ...more] = run.stderr.trimEnd().split('\n');
    expect([summary, more]).toEqual([
      expect.stringMatching(/^1 applied, 2 failed \(1 not attempted: what they need failed\) \(\d+\.\d s\)$/),
      [],
    ]);
    const error = JSON.parse(last!).error;
    expect(`${error.message}; ${error.hint}`).toMatch(
      /^2 of 3 items failed: acme-payments-eu: create role rules: .*refused by the test proxy.*; acme-payments-eu: grant usr_bulk_000008 rules: not attempted: acme-payments-eu: role rules failed; fix them and run the same command again with the same profile, logged in as the same user or with the same API key, to resume \(journal .*\)$/,
    );

    // With --json the summary line too (attack26a F11): the resumed run's first line, the counts,
    // then the error object, the last line of stderr.
    const again = await svc.run(['apply', '-f', file, '--yes', '--json'], {
      ...real,
      env: { SVC_TOKEN: token, SVC_TENANT: EU, SVC_BASE_URL: refusing().url },
    });
    expect(again.code).toBe(7);
    const said = afterResuming(again.stderr).trimEnd().split('\n');
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/^0 applied, 1 skipped, 2 failed /);
    expect(lastJson(again.stderr).error).toMatchObject({ code: 'partial_failure', exit_code: 7 });
  });

  it('refuses to create webhooks or OAuth clients without --secret-dir, before sending anything', async () => {
    const file = writeFile(
      dir,
      'secret.yaml',
      `version: 1\nblocks:\n  - tenants: acme-ledger-uk\n    webhooks:\n      - { url: "https://x.example/h", event_types: [webhook.test] }\n`,
    );
    const before = await writes(svc.sandbox());
    expect(await svc.run(['apply', '-f', file, '--yes'], real)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: the plan creates 1 webhook or OAuth client, whose secrets are shown only once; pass --secret-dir DIR; svc writes each secret to its own 0600 file there; nothing was applied\n',
    });
    expect(await writes(svc.sandbox())).toBe(before);
  });
});
