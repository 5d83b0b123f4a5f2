// Over 300 lines: a saved plan from `svc plan --out` to `svc apply`, each way it can be refused
// (stale, foreign, another person's, cut short), one behaviour per test against one sandbox.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { planDigest } from '../../../src/ascode/plan.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { bash } from '../../helpers/svc.js';
import { tempDir, useTempDir } from '../../helpers/temp.js';

// Saved plans (exploratory test s10, ascode): a plan edited by hand was applied, and apply showed
// the change's `name` while it sent `grant.role_id` / `grant.user` (C1); with --json a stale plan
// printed its reasons as text before the JSON error (M1); `--out -` wrote a file named `-` and
// named a command that did not work (M2); a plan applied by another person was "your own grants
// changed" (L1); a grant that expired since the plan "was removed" (L2).
const svc = useSandboxContext({ users: 30 }, { tenant: false });
const dir = useTempDir('svc-saved-plan-');
const real = { clock: { now: () => Date.now() } };
type Doc = Record<string, any>;

const FILE = `version: 1
blocks:
  - tenants: acme-labs
    roles:
      - { name: sp-role, permissions: [exception.read, rule.read] }
    grants:
      - { user: ${user(11)}, role: tenant_viewer }
    webhooks:
      - { url: "https://hooks.example.com/sp", event_types: [exception.created] }
    oauth_clients:
      - { name: sp-portal, redirect_uris: ["https://portal.example.com/cb"], scopes: [read:reconciliations] }
`;

/** The change of `kind` in a plan document (the one tenant's). */
const change = (doc: Doc, kind: string) =>
  doc.tenants[0].changes.find((c: { kind: string }) => c.kind === kind);
const field = (c: Doc, name: string) => c.fields.find((f: { field: string }) => f.field === name);

describe('a saved plan is applied as svc plan wrote it', () => {
  let saved = '';
  beforeAll(async () => {
    await as(svc.sandbox(), LABS, 'POST', '/v1/roles', { name: 'sp-role', permissions: ['rule.read'] });
    saved = join(dir, 'sp.plan.json');
    const planned = await svc.run(['plan', '-f', writeFile(dir, 'sp.yaml', FILE), '--out', saved], real);
    expect(planned.code, planned.stderr).toBe(10);
  });
  const edited = (name: string, edit: (doc: Doc) => void, digest = false) => {
    const doc = JSON.parse(readFileSync(saved, 'utf8'));
    edit(doc);
    if (digest) doc.digest = planDigest(doc);
    return writeFile(dir, name, JSON.stringify(doc, null, 2));
  };

  it.each([
    ['the role of a grant', (d: Doc) => (change(d, 'grant').grant.role_id = 'tenant_admin')],
    ['the user of a grant', (d: Doc) => (change(d, 'grant').grant.user = user(12))],
    ['the expiry of a grant', (d: Doc) => (change(d, 'grant').grant.expires_at = '2030-01-01T00:00:00Z')],
    ['a role’s permissions', (d: Doc) => field(change(d, 'role'), 'permissions').to.push('role.manage')],
    [
      'a webhook’s event types',
      (d: Doc) => field(change(d, 'webhook'), 'event_types').to.push('exception.resolved'),
    ],
    [
      'an OAuth client’s redirect URIs',
      (d: Doc) => (field(change(d, 'oauth_client'), 'redirect_uris').to = ['https://evil.example.com/cb']),
    ],
    ['a change’s name', (d: Doc) => (change(d, 'grant').name = `${user(11)} tenant_auditor`)],
    ['the summary', (d: Doc) => (d.summary.create = 0)],
  ])('refuses one whose %s was edited by hand (exit 2, nothing sent)', async (_what, edit) => {
    const path = edited('edited.json', edit);
    const before = await writes(svc.sandbox());
    for (const json of [[], ['--json']]) {
      const r = await svc.run(['apply', path, '--yes', '--secret-dir', join(dir, 's'), ...json], real);
      expect([r.code, r.stdout]).toEqual([2, '']);
      const message = `${path} is not the plan svc wrote: it does not match its digest (edited by hand?)`;
      const hint =
        'a plan is applied as svc plan --out saved it; save a new one with `svc plan -f FILE --out PLAN.json`';
      expect(r.stderr).toBe(
        json.length === 0
          ? `error: ${message}; ${hint}\n`
          : `${JSON.stringify({ error: { code: 'invalid_plan', message, exit_code: 2, hint } })}\n`,
      );
    }
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('refuses a change whose digest was made again but which shows one thing and sends another', async () => {
    const before = await writes(svc.sandbox());
    // What a row and the confirmation show of a grant (its name) is what is sent (its user and role).
    const named = edited('named.json', (d) => (change(d, 'grant').name = `${user(11)} tenant_auditor`), true);
    expect(await svc.run(['apply', named, '--yes'], real)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${named} is not a plan svc wrote: tenants[0].changes[1].name is "${user(11)} tenant_auditor", not the grant's user and role ("${user(11)} tenant_viewer"); a plan is applied as svc plan --out saved it; save a new one with \`svc plan -f FILE --out PLAN.json\`\n`,
    });
    const expiry = edited(
      'expiry.json',
      (d) => (change(d, 'grant').grant.expires_at = '2030-01-01T00:00:00Z'),
      true,
    );
    expect((await svc.run(['apply', expiry, '--yes'], real)).stderr).toBe(
      `error: ${expiry} is not a plan svc wrote: tenants[0].changes[1].fields expires_at is null, not the grant's expires_at ("2030-01-01T00:00:00Z"); a plan is applied as svc plan --out saved it; save a new one with \`svc plan -f FILE --out PLAN.json\`\n`,
    );
    // The role id sent must be the id of the role shown, live: else it is drift (exit 6).
    const role = edited('role.json', (d) => (change(d, 'grant').grant.role_id = 'tenant_admin'), true);
    const r = await svc.run(['apply', role, '--yes', '--secret-dir', join(dir, 's')], real);
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr.split('\n')[0]).toBe(
      `acme-labs: the grant of tenant_viewer to ${user(11)} is of role id tenant_admin, which is not tenant_viewer's (tenant_viewer)`,
    );
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('applies one saved again with other spacing (the digest is of its content), each row as sent', async () => {
    const compact = writeFile(dir, 'compact.json', JSON.stringify(JSON.parse(readFileSync(saved, 'utf8'))));
    const r = await svc.run(['apply', compact, '--yes', '--ndjson', '--secret-dir', join(dir, 's')], real);
    expect(r.code, r.stderr).toBe(0);
    expect(
      ndjson(r.stdout)
        .map((row) => `${row.kind} ${row.action} ${row.name} ${row.status}`)
        .sort(),
    ).toEqual([
      `grant grant ${user(11)} tenant_viewer ok`,
      'oauth_client create sp-portal ok',
      'role update sp-role ok',
      'webhook create https://hooks.example.com/sp ok',
    ]);
  });
});

const GRANTS = (...lines: string[]) =>
  `version: 1\nmanage: {grants: listed-roles}\nblocks:\n  - tenants: acme-labs\n    grants:\n${lines.join('')}`;
const grant = (n: number, role: string, extra = '') =>
  `      - { user: ${user(n)}, role: ${role}${extra} }\n`;

describe('a saved plan refused at apply time', () => {
  it('--json/--ndjson: stderr is the error alone, each reason in its details (a stale plan)', async () => {
    const saved = join(dir, 'st.plan.json');
    const file = writeFile(dir, 'st.yaml', GRANTS(grant(13, 'tenant_auditor')));
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    await as(svc.sandbox(), LABS, 'POST', `/v1/users/${user(14)}/roles`, {
      role_id: 'tenant_auditor',
      justification: 'drift',
    });
    const before = await writes(svc.sandbox());
    const reason =
      /^acme-labs: grants the plan leaves alone changed since it was computed \(0 then, 1 now\)$/;
    const text = await svc.run(['apply', saved, '--yes'], real);
    expect(text.code).toBe(6);
    expect(text.stderr.split('\n')[0]).toMatch(reason);
    for (const mode of ['--json', '--ndjson']) {
      const r = await svc.run(['apply', saved, '--yes', mode], real);
      expect([r.code, r.stdout, r.stderr.trimEnd().split('\n').length]).toEqual([6, '', 1]);
      const { error } = JSON.parse(r.stderr);
      expect(error).toMatchObject({
        code: 'plan_stale',
        message: `the live state changed since ${saved} was computed (each change in details); nothing was applied`,
        exit_code: 6,
      });
      expect(error.details).toHaveLength(1);
      expect(error.details[0].message).toMatch(reason);
    }
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('says who may not make which change when another person applies it (exit 6; --json: details)', async () => {
    const sandbox = svc.sandbox();
    const delegates = await as(sandbox, LABS, 'POST', '/v1/roles', {
      name: 'sp-delegates',
      permissions: ['role.read', 'role.assign', 'account.read', 'exception.read', 'reconciliation.read'],
    });
    await as(sandbox, LABS, 'POST', `/v1/users/${user(20)}/roles`, {
      role_id: delegates.id,
      justification: 'delegate',
    });
    const delegate = { SVC_TOKEN: sandbox.issueToken(user(20)).token, SVC_TENANT: LABS };
    const saved = join(dir, 'dl.plan.json');
    const file = writeFile(
      dir,
      'dl.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: view-only, permissions: [exception.read] }\n    grants:\n${grant(21, 'view-only')}`,
    );
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    const before = await writes(sandbox);
    const r = await svc.run(['apply', saved, '--yes'], { ...real, env: delegate });
    expect([r.code, r.stdout]).toEqual([6, '']);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(/^acme-labs: role view-only: the platform refuses it \(insufficient_role\): /);
    expect(lines.slice(1)).toEqual([
      `error: ${saved} was planned by usr_admin, and you (${user(20)}) may not make 1 of its changes (each on a line above): they would change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key or a third-party client's token (only a user with their own login may); nothing was applied; have someone who may make them apply the plan, or plan again as yourself`,
      '',
    ]);
    const json = await svc.run(['apply', saved, '--yes', '--json'], { ...real, env: delegate });
    const { error } = JSON.parse(json.stderr);
    expect([json.code, json.stderr.trimEnd().split('\n').length, error.code, error.details]).toEqual([
      6,
      1,
      'plan_stale',
      [{ message: lines[0] }],
    ]);
    expect(await writes(sandbox)).toBe(before);
  });

  it('says a grant that expired since the plan ended, and when', async () => {
    const sandbox = svc.sandbox();
    const ends = new Date(Math.floor((await sandboxNow(sandbox)) / 1000) * 1000 + 120_000)
      .toISOString()
      .replace('.000Z', 'Z');
    await as(sandbox, LABS, 'POST', `/v1/users/${user(15)}/roles`, {
      role_id: 'tenant_viewer',
      expires_at: ends,
      justification: 'short',
    });
    const saved = join(dir, 'exp.plan.json');
    const file = writeFile(
      dir,
      'exp.yaml',
      GRANTS(grant(15, 'tenant_viewer', ', expires_at: "2031-01-01T00:00:00Z", justification: longer')),
    );
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    await call(sandbox, 'POST', '/_sandbox/clock', { body: { advance_seconds: 180 } });
    const r = await svc.run(['apply', saved, '--yes'], real);
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([
      6,
      `acme-labs: the grant of tenant_viewer to ${user(15)} ended (not held; its planned expiry ${ends} has passed) since the plan`,
    ]);
  });
});

// A plan's tenant is sent by its id and shown by its slug and display name (exploratory test
// s14 isolation, F2): a plan whose tenant id was changed and its digest made again (the digest
// is a check, not a signature) was confirmed and reported as Acme Labs and changed Acme Payments EU.
describe('a saved plan names its tenants as the platform does', () => {
  it('refuses one whose tenant id is another tenant’s (exit 2, nothing sent, neither tenant changed)', async () => {
    const sandbox = svc.sandbox();
    const EU = tenantId('acme-payments-eu');
    const saved = join(dir, 'tn.plan.json');
    const file = writeFile(
      dir,
      'tn.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: tn-probe, permissions: [exception.read] }\n    grants:\n${grant(18, 'tn-probe')}`,
    );
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    const doc = JSON.parse(readFileSync(saved, 'utf8'));
    doc.tenants[0].id = EU;
    doc.digest = planDigest(doc);
    const moved = writeFile(dir, 'tn-eu.plan.json', JSON.stringify(doc, null, 2));
    const before = await writes(sandbox);
    const message = `${moved} shows tenant ${EU} as acme-labs (Acme Labs), but the platform names it acme-payments-eu (Acme Payments EU): edited by hand, or the tenant was renamed since; nothing was applied`;
    const hint =
      'a plan is applied as svc plan --out saved it; save a new one with `svc plan -f FILE --out PLAN.json`';
    expect(await svc.run(['apply', moved, '--yes'], real)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${message}; ${hint}\n`,
    });
    expect(await svc.run(['apply', moved, '--yes', '--json'], real)).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'invalid_plan', message, exit_code: 2, hint } })}\n`,
    });
    expect(await writes(sandbox)).toBe(before);
    for (const tenant of [EU, LABS]) {
      const roles = await as(sandbox, tenant, 'GET', '/v1/roles?limit=200');
      expect(roles.items.map((r: { name: string }) => r.name)).not.toContain('tn-probe');
    }
    // The plan as saved applies, each row naming the tenant the platform calls it.
    const r = await svc.run(['apply', saved, '--yes'], real);
    expect([
      r.code,
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[1]),
    ]).toEqual([0, ['acme-labs', 'acme-labs']]);
  });
});

describe('a saved plan someone else made', () => {
  it('is confirmed on a terminal naming who planned it and how to review it', async () => {
    const sandbox = svc.sandbox();
    await as(sandbox, LABS, 'POST', `/v1/users/${user(22)}/roles`, {
      role_id: 'tenant_admin',
      justification: 'second admin',
    });
    const other = { SVC_TOKEN: sandbox.issueToken(user(22)).token, SVC_TENANT: LABS };
    const saved = join(dir, 'pb.plan.json');
    const file = writeFile(
      dir,
      'pb.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - { name: pb-probe, permissions: [exception.read] }\n',
    );
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    const before = await writes(sandbox);
    const declined = await svc.run(['apply', saved], { ...real, env: other, tty: true, answers: [false] });
    expect([declined.code, declined.stderr]).toEqual([
      2,
      'Acme Labs (acme-labs)\n  + role pb-probe  (line 5)\n      permissions: exception.read\n' +
        `planned by usr_admin, not you (${user(22)}): to review it, run svc plan -f FILE on the access file it came from\n` +
        'error: cancelled; nothing was changed\n',
    ]);
    expect(await writes(sandbox)).toBe(before);
  });
});

describe('svc plan --out -', () => {
  it('is refused, naming what prints the plan on stdout; svc plan --json | svc apply - applies it', async () => {
    const file = writeFile(dir, 'out.yaml', GRANTS(grant(16, 'tenant_auditor')));
    const cwd = tempDir('svc-out-dash-');
    const env = svc.env();
    const refused = await bash(`cd '${cwd}' && svc plan -f '${file}' --out -`, { env });
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'error: --out - would not write the plan on stdout: --out takes a file; svc plan --json prints the plan document on stdout, e.g. svc plan -f FILE --json | svc apply - --yes\n',
    });
    expect(existsSync(join(cwd, '-'))).toBe(false);
    const piped = await bash(
      `cd '${cwd}' && { svc plan -f '${file}' --json || [ $? -eq 10 ]; } | svc apply - --yes --ndjson`,
      { env },
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(ndjson(piped.stdout).map((row) => `${row.name} ${row.status}`)).toEqual([
      `${user(16)} tenant_auditor ok`,
    ]);
  });

  it('names a plan saved under a name like an option so that svc apply takes it as one', async () => {
    const file = writeFile(dir, 'dash.yaml', GRANTS(grant(17, 'tenant_auditor')));
    const cwd = tempDir('svc-out-dash-');
    const r = await bash(`cd '${cwd}' && svc plan -f '${file}' --out '-my plan.json'`, { env: svc.env() });
    expect(r.code).toBe(10);
    expect(r.stderr.split('\n').at(-2)).toBe(
      "plan saved to -my plan.json; svc apply './-my plan.json' applies it while the live state is unchanged",
    );
  });
});
